// expect: the RegisterFile policy must provide `can_accept\(const OperandRead&\) const`
// A scheduler put in the register-file slot is rejected with a sentence naming the slot and the member.
#include <gpuarch/exec/simd_exec.hpp>
#include <gpuarch/frontend/kepler.hpp>
#include <gpuarch/mem/ideal_memory.hpp>
#include <gpuarch/regfile/ideal_rf.hpp>
#include <gpuarch/sched/gto.hpp>
#include <gpuarch/sm.hpp>

using namespace gpuarch;
#ifdef GPUARCH_FAILTEST_SHOULD_FAIL
using RegisterFileSlot = sched::GTO;
#else
using RegisterFileSlot = regfile::IdealRF;
#endif
using Variant = SM<frontend::KeplerFrontend, sched::GTO, RegisterFileSlot, exec::SimdExec, mem::IdealMemory<10>>;

int main() { return Variant::variant_name().empty() ? 1 : 0; }
