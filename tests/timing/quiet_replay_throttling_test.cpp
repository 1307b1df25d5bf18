// Quiet-cycle replay for the throttling schedulers with state on Fermi: MASCAR, TwoLevelActive and SWL through
// timing::QuietCycleHook, SWL also through timing::WithheldCycleHook, against the same scheduler asked every cycle
// through the full scans (tests/support/full_scan.hpp). Part of CTest's timing.quiet_replay (label slow); the other
// schedulers' comparisons are in quiet_replay_stateful_test.cpp, which says why they are three units.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

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

namespace {
using FermiSwl = machines::Fermi::template gpu<sched::SWL<2>>;
static_assert(timing::WithheldCycleHook<sched::SWL<2>, pipeline::PoolView<typename FermiSwl::SMType>>,
              "SWL replays the cycles in which it withheld every ready warp");
} // namespace

// Withheld-cycle replay (timing::WithheldCycleHook): SWL<2> lets two warps per scheduler issue, and in most cycles of
// these kernels the ready warps are all outside them. Those cycles are replayed, or slept where the L1 repeats a
// stall, with the full scan's cycles and statistics (the case above); each replayed cycle is one in which a scheduler
// of the SM withheld, so they cannot outnumber the withheld selects.
TEST_CASE("quiet replay: SWL replays the cycles in which it withheld every ready warp (Fermi)") {
    for (const char* kernel : {"sgemm_tiled", "atax"}) {
        const auto gpu = test_support::gtx480_after<sched::SWL<2>, machines::Fermi>(kernel);
        std::uint64_t replayed = 0, withheld = 0;
        for (unsigned i = 0; i < machines::Fermi::sms; ++i) {
            replayed += gpu->sm(i).withheld_cycles_replayed();
            for (unsigned s = 0; s < FermiSwl::SMType::Frontend::schedulers; ++s) {
                core::StatsTable table;
                table.collect("", gpu->sm(i).scheduler(s));
                withheld += table.counter("swl_withheld_cycles");
            }
        }
        INFO(std::string(kernel) << ": withheld selects " << withheld << ", withheld cycles replayed " << replayed);
        CHECK(replayed > 0);
        CHECK(replayed <= withheld);
    }
}
