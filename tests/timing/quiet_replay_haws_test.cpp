// Quiet-cycle replay under HAWS (issue 23): the hint-assisted fetch policy states the quiet-cycle contract
// (timing::FollowsStateEpoch: every transition advances the SM's state epoch, and no decision reads the cycle
// number), so an SM under HAWS replays its quiet cycles, skips the fetch stages that would find nothing, and sleeps
// when dormant or stalled on its L1, as under in-order fetch. Each variant must give exactly the cycles and statistics
// (HAWS's episode, copy and chain counters included) of the same scheduler asked every cycle through the full scans
// (tests/support/full_scan.hpp). Part of CTest's timing.quiet_replay (label slow).
#include <doctest/doctest.h>

#include "../support/full_scan.hpp"

#include <gpuarch/machines.hpp>
#include <gpuarch/sched/haws.hpp>

#include <cstdint>

using namespace gpuarch;
using gpuarch::test_support::check_replay_matches_full_scan;

namespace {
using Haws = sched::HAWSScheduler<sched::RCU<8>>;
using HawsAllStalled = sched::HAWSScheduler<sched::RCU<8>, sched::GTO, sched::HawsTrigger::all_warps_stalled>;
using HawsFailedIssue = sched::HAWSScheduler<sched::RCU<8>, sched::GTO, sched::HawsTrigger::long_latency_flag,
                                             sched::CompilerHints, false, sched::HawsEntry::failed_issue>;
template <class Machine, class S> using SMOf = typename Machine::template gpu<S>::SMType;

static_assert(SMOf<machines::GTX480, Haws>::replays_quiet_cycles(),
              "HAWS's fetch policy states the quiet-cycle contract, so its SM replays quiet cycles");
static_assert(!SMOf<machines::GTX480, Haws>::skips_vacant(),
              "an SM under HAWS skips dormant cycles, which include the vacant ones");
// Entry on a failed issue attempt reads this cycle's issue stage (failed_issue_at == now): no contract, no replay.
static_assert(!timing::FollowsStateEpoch<fetch::HintAssisted, HawsFailedIssue>);
static_assert(!SMOf<machines::GTX480, HawsFailedIssue>::replays_quiet_cycles());
static_assert(timing::FollowsStateEpoch<fetch::HintAssisted, Haws>);
} // namespace

TEST_CASE("quiet replay: HAWS gives the full scan's cycles and statistics (GTX480 and Fermi)") {
    for (const char* kernel : test_support::quiet_replay_kernels) {
        check_replay_matches_full_scan<machines::GTX480, Haws>("gtx480", kernel);
        check_replay_matches_full_scan<machines::GTX480, HawsAllStalled>("gtx480", kernel);
        check_replay_matches_full_scan<machines::Fermi, Haws>("fermi", kernel);
    }
}

// The runs above exercise the transitions: warps enter hint mode and come back on the flag or at the chain's end.
TEST_CASE("quiet replay: HAWS enters hint mode on the replay kernels, and its SMs sleep") {
    std::uint64_t episodes = 0, returns = 0;
    for (const char* kernel : {"atax", "kmeans_assign", "sgemm_tiled"}) {
        using Gpu = machines::GTX480::gpu<Haws>;
        const auto run =
            examples::run_on_gpu<machines::GTX480, Gpu>("gtx480", "shipped", kernel, kernels::Size::small, {});
        REQUIRE(run.passed);
        episodes += run.stats.counter("sm.sched.haws.episodes");
        returns += run.stats.counter("sm.sched.haws.returns_on_flag") +
                   run.stats.counter("sm.sched.haws.returns_on_chain_end");
    }
    CHECK(episodes > 0);
    CHECK(returns > 0);
    const auto skipped = test_support::skipped_cycles_on_gtx480<Haws>("atax");
    CHECK(skipped.skipped > 0);
}
