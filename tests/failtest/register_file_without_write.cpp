// expect: the RegisterFile policy must provide `accept`, `cycle`, `dispatch_ready`, `write` and `drain_written`
// A register file that takes reads but no writes is rejected by SM<...> with a sentence.
#include <gpuarch/exec/simd_exec.hpp>
#include <gpuarch/frontend/fermi.hpp>
#include <gpuarch/mem/ideal_memory.hpp>
#include <gpuarch/regfile/ideal_rf.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sm.hpp>

using namespace gpuarch;
struct ReadOnlyRF {
    static constexpr std::string_view name = "ReadOnlyRF";
    explicit ReadOnlyRF(const timing::RegisterFileConfig&) {}
    bool can_accept(const timing::OperandRead&) const { return true; }
    void accept(const timing::OperandRead&, core::Cycle) {}
    void cycle(core::Cycle) {}
    template <class F> void dispatch_ready(F&&) {}
};
#ifdef GPUARCH_FAILTEST_SHOULD_FAIL
using RegisterFileSlot = ReadOnlyRF;
#else
using RegisterFileSlot = regfile::IdealRF;
#endif
using Variant = SM<frontend::FermiFrontend, sched::LRR, RegisterFileSlot, exec::SimdExec, mem::IdealMemory<10>>;

int main() { return Variant::variant_name().empty() ? 1 : 0; }
