// expect: the fetch policy must say whether it is in order
// A scheduler that names a fetch policy (timing/fetch.hpp) which does not say whether it is in order is rejected by
// SM<...> with a sentence.
#include <gpuarch/exec/simd_exec.hpp>
#include <gpuarch/frontend/fermi.hpp>
#include <gpuarch/mem/ideal_memory.hpp>
#include <gpuarch/regfile/ideal_rf.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sm.hpp>

using namespace gpuarch;
struct UndecidedFetch {
    static constexpr std::string_view name = "UndecidedFetch";
};
struct LrrWithOwnFetch : sched::LRR {
    using sched::LRR::LRR;
#ifdef GPUARCH_FAILTEST_SHOULD_FAIL
    using fetch_policy = UndecidedFetch;
#else
    using fetch_policy = fetch::InOrder;
#endif
};
using Variant = SM<frontend::FermiFrontend, LrrWithOwnFetch, regfile::IdealRF, exec::SimdExec, mem::IdealMemory<10>>;

int main() { return Variant::variant_name().empty() ? 1 : 0; }
