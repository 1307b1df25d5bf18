// Quiet-cycle replay for the schedulers with state (issue 23): CCWS, MASCAR, OAWS and TwoLevelActive through
// timing::QuietCycleHook, and SWL (quiet_replay_throttling_test.cpp). Each must give exactly the cycles and
// statistics of the same scheduler asked every cycle through the full scans (tests/support/full_scan.hpp), on Fermi
// (Wang 2016's machine) and GTX480 (hashed L1 set index, allocate on miss, per-kernel L1 flush). These runs are
// CTest's timing.quiet_replay (label slow), like the pinned quiet-cycle checks of tests/pinned/quiet_cycles.cpp.
// Three units: this one (Fermi: OAWS, CCWS), quiet_replay_throttling_test.cpp (Fermi: MASCAR, SWL, TwoLevelActive)
// and quiet_replay_stateful_gtx480_test.cpp (GTX480, and the withheld-select checks). As one unit their 22 GPU
// variants needed 1.8 GiB to compile, over the 1.5 GiB a unit may take.
#include <doctest/doctest.h>

#include "../support/full_scan.hpp"

#include <gpuarch/machines.hpp>
#include <gpuarch/sched/ccws.hpp>
#include <gpuarch/sched/oaws.hpp>
#include <gpuarch/sched/swl.hpp>

using namespace gpuarch;

namespace {
using FermiView = pipeline::PoolView<typename machines::Fermi::template gpu<sched::CCWS<>>::SMType>;
static_assert(timing::QuietCycleHook<sched::CCWS<>, FermiView>, "CCWS replays quiet cycles through its hook");
using FermiSwlView = pipeline::PoolView<typename machines::Fermi::template gpu<sched::SWL<2>>::SMType>;
static_assert(timing::QuietCycleHook<sched::SWL<2>, FermiSwlView>, "SWL replays quiet cycles through its hook");
} // namespace

TEST_CASE("quiet replay: the schedulers with state give the full scan's cycles and statistics (Fermi: "
          "OAWS, CCWS)") {
    test_support::check_replay_on_kernels<machines::Fermi, sched::OAWSDynamic<>, sched::OAWSStatic<50>, sched::CCWS<>>(
        "fermi");
}
