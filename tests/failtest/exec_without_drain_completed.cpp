// expect: the Exec policy must provide `can_dispatch\(kind, scheduler, cycle\)`, `dispatch\(op, scheduler, cycle\)` and `drain_completed\(cycle, done\)`
// An Exec that never reports completions is rejected by SM<...> with a sentence.
#include <gpuarch/exec/simd_exec.hpp>
#include <gpuarch/frontend/fermi.hpp>
#include <gpuarch/mem/ideal_memory.hpp>
#include <gpuarch/regfile/ideal_rf.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sm.hpp>

using namespace gpuarch;
struct NoCompletions {
    static constexpr std::string_view name = "NoCompletions";
    explicit NoCompletions(const timing::ExecConfig&) {}
    bool can_dispatch(timing::UnitKind, unsigned, core::Cycle) const { return true; }
    void dispatch(const timing::ExecOp&, unsigned, core::Cycle) {}
};
#ifdef GPUARCH_FAILTEST_SHOULD_FAIL
using ExecSlot = NoCompletions;
#else
using ExecSlot = exec::SimdExec;
#endif
using Variant = SM<frontend::FermiFrontend, sched::LRR, regfile::IdealRF, ExecSlot, mem::IdealMemory<10>>;

int main() { return Variant::variant_name().empty() ? 1 : 0; }
