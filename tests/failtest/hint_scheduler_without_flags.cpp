// expect: must model fetch::HintScheduler: warp\(slot\) returning a HintWarp, hint_flags\(\)
// A scheduler that names fetch::HintAssisted as its fetch policy but keeps no HintModeFlags (the two bits per slot
// the mechanism reads in every fetch and issue step: fetch/hint_assisted.hpp) is rejected by SM<...> with a sentence.
#include <gpuarch/exec/simd_exec.hpp>
#include <gpuarch/frontend/fermi.hpp>
#include <gpuarch/mem/ideal_memory.hpp>
#include <gpuarch/regfile/ideal_rf.hpp>
#include <gpuarch/sched/haws.hpp>
#include <gpuarch/sm.hpp>

using namespace gpuarch;
struct HawsWithoutFlags : sched::HAWSScheduler<> {
    using sched::HAWSScheduler<>::HAWSScheduler;
#ifdef GPUARCH_FAILTEST_SHOULD_FAIL
    void hint_flags() = delete;
    void hint_flags() const = delete;
#endif
};
using Variant = SM<frontend::FermiFrontend, HawsWithoutFlags, regfile::IdealRF, exec::SimdExec, mem::IdealMemory<10>>;

int main() { return Variant::variant_name().empty() ? 1 : 0; }
