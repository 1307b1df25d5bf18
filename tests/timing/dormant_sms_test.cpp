// Dormant SMs (sm.hpp, skips_dormant_cycles; issue 23): an SM without a CTA and with nothing in flight only counts
// its cycles, and accounts for them in bulk (settle_dormant) when something reads or wakes it. The full scans
// (tests/support/full_scan.hpp) never replay quiet cycles, so they never skip one: any difference in cycles or in
// any statistic is an error of the bulk accounting. The schedulers with state are compared on GTX480 by
// quiet_replay_stateful_test.cpp (CCWS's hook decays by each skipped cycle's now()); this file adds the stateless
// ones and OAWS, and checks that the skip happens at all.
#include <doctest/doctest.h>

#include "../support/full_scan.hpp"

#include <corpus/corpus.hpp>
#include <gpuarch/machines.hpp>
#include <gpuarch/sched/gto.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sched/oaws.hpp>
#include <gpuarch/support/variants.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

using namespace gpuarch;
using gpuarch::test_support::check_replay_matches_full_scan;

TEST_CASE("quiet replay: dormant SMs give the full scan's cycles and statistics (GTX480: GTO, LRR, OAWS)") {
    for (const char* kernel : test_support::quiet_replay_kernels) {
        check_replay_matches_full_scan<machines::GTX480, sched::GTO>("gtx480", kernel);
        check_replay_matches_full_scan<machines::GTX480, sched::LRR>("gtx480", kernel);
        check_replay_matches_full_scan<machines::GTX480, sched::OAWSDynamic<>>("gtx480", kernel);
    }
}

namespace {
// Runs atax (small) on a GTX480 with `Scheduler` and returns {dormant, all} SM-cycles over the 15 SMs.
template <class Scheduler> std::pair<std::uint64_t, std::uint64_t> dormant_share_of_atax() {
    using Gpu = machines::GTX480::gpu<Scheduler>;
    func::Device device;
    const auto module =
        func::Module::from_file(examples::kernels_dir() + "/ptx/" + std::string(kernels::find_case("atax").ptx_file));
    auto gpu = std::make_unique<Gpu>(machines::GTX480::config<Gpu>());
    auto launcher = [&](const func::Module& m, std::string_view entry, const func::LaunchConfig& launch,
                        const func::Args& args) { gpu->launch(device, m, entry, launch, args); };
    REQUIRE(kernels::run_case("atax", device, module, launcher, kernels::Size::small).passed);
    std::uint64_t dormant = 0, cycles = 0;
    for (unsigned i = 0; i < 15; ++i) {
        dormant += gpu->sm(i).dormant_cycles();
        cycles += gpu->sm(i).cycles();
    }
    return {dormant, cycles};
}
} // namespace

// About 80% of atax's SM-cycles have no CTA (3 of 15 SMs busy): most must be skipped, by a stateless scheduler and
// by one with a quiet-cycle hook alike.
TEST_CASE("an SM that a small grid leaves without work is dormant for most of the run (GTX480, atax: GTO, OAWS)") {
    for (const auto& [dormant, cycles] :
         {dormant_share_of_atax<sched::GTO>(), dormant_share_of_atax<sched::OAWSDynamic<>>()}) {
        INFO(dormant << " dormant of " << cycles << " SM-cycles");
        CHECK(dormant > cycles / 2);
        CHECK(dormant < cycles);
    }
}
