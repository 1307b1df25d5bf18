// Vacant SMs (sm.hpp, skips_vacant_cycles; issue 23): a variant without quiet-cycle replay (a reordering fetch
// policy that does not state the quiet-cycle contract, timing::FollowsStateEpoch) still skips the cycles of an SM that
// holds no warp and has nothing in flight, and counts them in bulk (IssueStage::count_vacant_cycles) when something
// reads or wakes it. The full scans (tests/support/full_scan.hpp) never skip a cycle: any difference in cycles or in
// any statistic is an error of the bulk counting.
#include <doctest/doctest.h>

#include "../support/full_scan.hpp"

#include <gpuarch/machines.hpp>
#include <gpuarch/sched/haws.hpp>

#include <cstdint>

using namespace gpuarch;

namespace {
// HAWS's fetch policy states the contract (its SMs replay quiet cycles and go dormant instead,
// tests/timing/quiet_replay_haws_test.cpp). The same policy without it stands for any reordering fetch policy that
// does not: its transitions may change warp state in any cycle, so only an SM without warps skips.
struct HintAssistedWithoutContract : fetch::HintAssisted {
    template <class Scheduler> static constexpr bool follows_state_epoch = false;
};
struct HawsWithoutContract : sched::HAWSScheduler<sched::RCU<8>> {
    using HAWSScheduler::HAWSScheduler;
    using fetch_policy = HintAssistedWithoutContract;
};

template <class Machine> void check_vacant_skip_matches_full_scan(const char* machine, const char* kernel) {
    static_assert(!Machine::template gpu<HawsWithoutContract>::SMType::replays_quiet_cycles() &&
                      Machine::template gpu<HawsWithoutContract>::SMType::skips_vacant(),
                  "HAWS without the quiet-cycle contract does not replay quiet cycles but skips vacant ones");
    static_assert(!Machine::template gpu<test_support::FullScan<HawsWithoutContract>>::SMType::skips_vacant(),
                  "scan_every_cycle turns the skip off");
    test_support::check_matches_full_scan<Machine, HawsWithoutContract>(machine, kernel);
}
} // namespace

TEST_CASE("quiet replay: vacant SMs give the full scan's cycles and statistics (GTX480 and Fermi: HAWS without "
          "the quiet-cycle contract)") {
    for (const char* kernel : test_support::quiet_replay_kernels) {
        check_vacant_skip_matches_full_scan<machines::GTX480>("gtx480", kernel);
        check_vacant_skip_matches_full_scan<machines::Fermi>("fermi", kernel);
    }
}

// atax (small) leaves 12 of 15 SMs without a warp: most SM-cycles must be skipped.
TEST_CASE("an SM that a small grid leaves without a warp skips most of the run without quiet-cycle replay (GTX480, "
          "atax)") {
    // Not a structured binding: clang 14 cannot capture one in INFO's lambda.
    const auto share = test_support::skipped_share_of_atax<HawsWithoutContract>();
    const std::uint64_t skipped = share.first, cycles = share.second;
    INFO(skipped << " skipped of " << cycles << " SM-cycles");
    CHECK(skipped > cycles / 2);
    CHECK(skipped < cycles);
}
