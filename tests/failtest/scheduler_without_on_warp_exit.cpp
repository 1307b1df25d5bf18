// expect: the Scheduler policy must provide `on_issue\(slot, cycle\)`, `on_warp_start\(slot\)` and `on_warp_exit\(slot\)`
// A scheduler that forgets a notification member (here on_warp_exit: docs/new_policy.md, section 4) is rejected by
// SM<...> with a sentence.
#include <gpuarch/exec/simd_exec.hpp>
#include <gpuarch/frontend/fermi.hpp>
#include <gpuarch/mem/ideal_memory.hpp>
#include <gpuarch/regfile/ideal_rf.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sm.hpp>

using namespace gpuarch;
struct NoWarpExit {
    static constexpr std::string_view name = "NoWarpExit";
    explicit NoWarpExit(const timing::SchedulerConfig&) {}
    template <timing::SchedulerView View> unsigned select(const View& view) const {
        for (unsigned slot = 0; slot < view.pool_size(); ++slot)
            if (view.ready(slot)) return slot;
        return timing::no_warp;
    }
    void on_issue(unsigned, core::Cycle) {}
    void on_warp_start(unsigned) {}
};
#ifdef GPUARCH_FAILTEST_SHOULD_FAIL
using SchedulerSlot = NoWarpExit;
#else
using SchedulerSlot = sched::LRR;
#endif
using Variant = SM<frontend::FermiFrontend, SchedulerSlot, regfile::IdealRF, exec::SimdExec, mem::IdealMemory<10>>;

int main() { return Variant::variant_name().empty() ? 1 : 0; }
