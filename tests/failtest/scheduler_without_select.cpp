// expect: the Scheduler policy must provide `select\(view\)` returning a pool slot or no_warp
// A scheduler that forgets select() is rejected by SM<...> with a sentence.
#include <gpuarch/exec/simd_exec.hpp>
#include <gpuarch/frontend/fermi.hpp>
#include <gpuarch/mem/ideal_memory.hpp>
#include <gpuarch/regfile/ideal_rf.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sm.hpp>

using namespace gpuarch;
struct NoSelect {
    static constexpr std::string_view name = "NoSelect";
    explicit NoSelect(const timing::SchedulerConfig&) {}
    void on_issue(unsigned, core::Cycle) {}
    void on_warp_start(unsigned) {}
    void on_warp_exit(unsigned) {}
};
#ifdef GPUARCH_FAILTEST_SHOULD_FAIL
using SchedulerSlot = NoSelect;
#else
using SchedulerSlot = sched::LRR;
#endif
using Variant = SM<frontend::FermiFrontend, SchedulerSlot, regfile::IdealRF, exec::SimdExec, mem::IdealMemory<10>>;

int main() { return Variant::variant_name().empty() ? 1 : 0; }
