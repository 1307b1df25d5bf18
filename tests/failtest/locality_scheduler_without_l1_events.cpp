// expect: the Scheduler observes locality events \(on_locality_event\), so the L1 must report them
// CCWS learns from the L1's victim-tag hits (on_locality_event, timing/hooks.hpp). Composed with an L1 that reports
// none it would silently never throttle; SM<...> rejects the composition with a sentence instead.
#include <gpuarch/exec/simd_exec.hpp>
#include <gpuarch/frontend/fermi.hpp>
#include <gpuarch/mem/ideal_memory.hpp>
#include <gpuarch/mem/l1.hpp>
#include <gpuarch/regfile/ideal_rf.hpp>
#include <gpuarch/sched/ccws.hpp>
#include <gpuarch/sm.hpp>

using namespace gpuarch;
#ifdef GPUARCH_FAILTEST_SHOULD_FAIL
using L1Slot = mem::IdealMemory<10>;
#else
using L1Slot = mem::L1<mem::MSHR<32>>;
#endif
using Variant = SM<frontend::FermiFrontend, sched::CCWS<>, regfile::IdealRF, exec::SimdExec, L1Slot>;

int main() { return Variant::variant_name().empty() ? 1 : 0; }
