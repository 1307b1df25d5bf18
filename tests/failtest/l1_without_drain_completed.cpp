// expect: the L1 policy must provide `accept\(access, cycle\)`, `cycle\(cycle, downstream\)`, `receive\(packet, cycle\)`, `drain_completed\(done\)` and `lsu_state\(\)`
// An L1 with can_accept() and view() but nothing that completes an access is rejected by SM<...> with a sentence,
// not deep inside the SM.
#include <gpuarch/exec/simd_exec.hpp>
#include <gpuarch/frontend/fermi.hpp>
#include <gpuarch/mem/ideal_memory.hpp>
#include <gpuarch/regfile/ideal_rf.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sm.hpp>

using namespace gpuarch;
struct ViewOnlyL1 {
    static constexpr std::string_view name = "ViewOnlyL1";
    struct Config {};
    ViewOnlyL1(const Config&, std::uint32_t) {}
    bool can_accept() const { return true; }
    mem::L1View view() const { return {}; }
};
#ifdef GPUARCH_FAILTEST_SHOULD_FAIL
using L1Slot = ViewOnlyL1;
#else
using L1Slot = mem::IdealMemory<10>;
#endif
using Variant = SM<frontend::FermiFrontend, sched::LRR, regfile::IdealRF, exec::SimdExec, L1Slot>;

int main() { return Variant::variant_name().empty() ? 1 : 0; }
