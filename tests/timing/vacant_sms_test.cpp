// Vacant SMs (sm.hpp, skips_vacant_cycles; issue 23): a variant without quiet-cycle replay (HAWS, whose fetch policy
// changes warp state in its own transitions) still skips the cycles of an SM that holds no warp and has nothing in
// flight, and counts them in bulk (IssueStage::count_vacant_cycles) when something reads or wakes it. The full scans
// (tests/support/full_scan.hpp) never skip a cycle: any difference in cycles or in any statistic is an error of the
// bulk counting.
#include <doctest/doctest.h>

#include "../support/full_scan.hpp"

#include <gpuarch/machines.hpp>
#include <gpuarch/sched/haws.hpp>

using namespace gpuarch;

namespace {
using Haws = sched::HAWSScheduler<sched::RCU<8>>; // the registry's "haws"

template <class Machine> void check_vacant_skip_matches_full_scan(const char* machine, const char* kernel) {
    static_assert(!Machine::template gpu<Haws>::SMType::replays_quiet_cycles() &&
                      Machine::template gpu<Haws>::SMType::skips_vacant(),
                  "the shipped HAWS variant does not replay quiet cycles but skips vacant ones");
    static_assert(!Machine::template gpu<test_support::FullScan<Haws>>::SMType::skips_vacant(),
                  "scan_every_cycle turns the skip off");
    test_support::check_matches_full_scan<Machine, Haws>(machine, kernel);
}
} // namespace

TEST_CASE("quiet replay: vacant SMs give the full scan's cycles and statistics (GTX480 and Fermi: HAWS)") {
    for (const char* kernel : test_support::quiet_replay_kernels) {
        check_vacant_skip_matches_full_scan<machines::GTX480>("gtx480", kernel);
        check_vacant_skip_matches_full_scan<machines::Fermi>("fermi", kernel);
    }
}

// atax (small) leaves 12 of 15 SMs without a warp: most SM-cycles must be skipped.
TEST_CASE("an SM that a small grid leaves without a warp skips most of the run under HAWS (GTX480, atax)") {
    const auto [skipped, cycles] = test_support::skipped_share_of_atax<Haws>();
    INFO(skipped << " skipped of " << cycles << " SM-cycles");
    CHECK(skipped > cycles / 2);
    CHECK(skipped < cycles);
}
