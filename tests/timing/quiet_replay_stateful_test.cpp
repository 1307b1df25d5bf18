// Quiet-cycle replay for the schedulers with state (issue 23): CCWS, MASCAR, OAWS and TwoLevelActive through
// timing::QuietCycleHook, SWL through timing::QuietWhenNothingReady. Each must give exactly the cycles and
// statistics of the same scheduler asked every cycle through the full scans (tests/support/full_scan.hpp), on Fermi
// (Wang 2016's machine) and GTX480 (hashed L1 set index, allocate on miss, per-kernel L1 flush). These runs are
// CTest's timing.quiet_replay (label slow), like the pinned quiet-cycle checks of tests/pinned/quiet_cycles.cpp.
#include <doctest/doctest.h>

#include "../support/full_scan.hpp"

#include <gpuarch/machines.hpp>
#include <gpuarch/sched/ccws.hpp>
#include <gpuarch/sched/mascar.hpp>
#include <gpuarch/sched/oaws.hpp>
#include <gpuarch/sched/swl.hpp>
#include <gpuarch/sched/two_level_active.hpp>

using namespace gpuarch;
using gpuarch::test_support::check_replay_matches_full_scan;

namespace {
using FermiView = pipeline::PoolView<typename machines::Fermi::template gpu<sched::CCWS<>>::SMType>;
static_assert(timing::QuietCycleHook<sched::CCWS<>, FermiView>, "CCWS replays quiet cycles through its hook");
static_assert(timing::QuietWhenNothingReady<sched::SWL<2>>,
              "SWL declares that a select on nothing ready changes nothing");
} // namespace

TEST_CASE("quiet replay: the schedulers with state give the full scan's cycles and statistics (Fermi: "
          "OAWS, CCWS, MASCAR, SWL, TwoLevelActive)") {
    for (const char* kernel : test_support::quiet_replay_kernels) {
        check_replay_matches_full_scan<machines::Fermi, sched::OAWSDynamic<>>("fermi", kernel);
        check_replay_matches_full_scan<machines::Fermi, sched::OAWSStatic<50>>("fermi", kernel);
        check_replay_matches_full_scan<machines::Fermi, sched::CCWS<>>("fermi", kernel);
        check_replay_matches_full_scan<machines::Fermi, sched::MASCAR<>>("fermi", kernel);
        check_replay_matches_full_scan<machines::Fermi, sched::SWL<2>>("fermi", kernel);
        check_replay_matches_full_scan<machines::Fermi, sched::TwoLevelActive<6>>("fermi", kernel);
    }
}

TEST_CASE("quiet replay: the schedulers with state give the full scan's cycles and statistics (GTX480: "
          "CCWS, MASCAR, TwoLevelActive)") {
    for (const char* kernel : test_support::quiet_replay_kernels) {
        check_replay_matches_full_scan<machines::GTX480, sched::CCWS<>>("gtx480", kernel);
        check_replay_matches_full_scan<machines::GTX480, sched::MASCAR<>>("gtx480", kernel);
        check_replay_matches_full_scan<machines::GTX480, sched::TwoLevelActive<6>>("gtx480", kernel);
    }
}
