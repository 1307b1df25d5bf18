// Quiet-cycle replay for the throttling schedulers with state on Fermi: MASCAR and TwoLevelActive through
// timing::QuietCycleHook, SWL through timing::QuietWhenNothingReady, against the same scheduler asked every cycle
// through the full scans (tests/support/full_scan.hpp). Part of CTest's timing.quiet_replay (label slow); the other
// schedulers' comparisons are in quiet_replay_stateful_test.cpp, which says why they are three units.
#include <doctest/doctest.h>

#include "../support/full_scan.hpp"

#include <gpuarch/machines.hpp>
#include <gpuarch/sched/mascar.hpp>
#include <gpuarch/sched/swl.hpp>
#include <gpuarch/sched/two_level_active.hpp>

using namespace gpuarch;

TEST_CASE("quiet replay: the schedulers with state give the full scan's cycles and statistics (Fermi: "
          "MASCAR, SWL, TwoLevelActive)") {
    test_support::check_replay_on_kernels<machines::Fermi, sched::MASCAR<>, sched::SWL<2>, sched::TwoLevelActive<6>>(
        "fermi");
}
