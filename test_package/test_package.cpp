// Consumes an installed gpuarch through find_package(gpuarch): composes policies and runs them.
#include <gpuarch/core/lane_mask.hpp>
#include <gpuarch/core/stats.hpp>
#include <gpuarch/frontend/kepler.hpp>
#include <gpuarch/sched/gto.hpp>
#include <gpuarch/timing/concepts.hpp>

#include <iostream>

namespace {
struct AllReady {
    unsigned pool_size() const { return 4; }
    bool occupied(unsigned) const { return true; }
    bool ready(unsigned i) const { return i != 0; }
    std::uint64_t age(unsigned i) const { return 10 - i; }
    bool long_latency_pending(unsigned) const { return false; }
    gpuarch::timing::L1View l1() const { return {}; }
    gpuarch::core::Cycle now() const { return 0; }
};
} // namespace

int main() {
    static_assert(gpuarch::timing::check_frontend<gpuarch::frontend::KeplerFrontend>());
    gpuarch::sched::GTO gto(gpuarch::timing::SchedulerConfig{4, 0});
    const unsigned pick = gto.select(AllReady{});
    const auto mask = gpuarch::core::WarpMask::first(48);
    std::cout << "gpuarch test_package: GTO picked warp " << pick << ", mask of " << mask.popcount() << " lanes\n";
    return pick == 3 && mask.popcount() == 48 ? 0 : 1;
}
