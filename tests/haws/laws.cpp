// Laws of HAWSScheduler (sched/haws.hpp): with no hints it is its base scheduler, cycle for cycle; it never picks a
// warp that is not ready; a full RCU stops hint-mode issue; a renamed result comes back through a register copy.
#include <doctest/doctest.h>

#include "../support/pool_view.hpp"
#include "corpus_runner.hpp"
#include "toy_common.hpp"

#include <array>
#include <string>

using namespace gpuarch;

namespace {
// Every statistic except the HAWS scheduler's own.
core::StatsTable without_haws(const core::StatsTable& t) {
    core::StatsTable out;
    for (const auto& e : t.entries()) {
        if (e.name.find(".haws.") != std::string::npos) continue;
        if (e.is_histogram) out.add_histogram(e.name, e.buckets, e.description);
        else out.add_counter(e.name, e.value, e.description);
    }
    return out;
}
} // namespace

TEST_CASE("HAWS with no hints issues exactly what its base scheduler issues, on every corpus kernel") {
    for (const auto& info : kernels::corpus_cases()) {
        INFO(info.name);
        const auto si_base = haws_test::run<haws_test::SiGto>(info.name, kernels::Size::small);
        const auto si_none = haws_test::run<haws_test::SiNoHints>(info.name, kernels::Size::small);
        REQUIRE(si_base.passed);
        REQUIRE(si_none.passed);
        CHECK(si_none.cycles == si_base.cycles);
        CHECK(si_none.warp_instructions == si_base.warp_instructions);
        CHECK(without_haws(si_none.stats) == si_base.stats);
        CHECK(si_none.stats.counter("sm.sched.haws.episodes") == 0);
        const auto k_base = haws_test::run<haws_test::KeplerLrr>(info.name, kernels::Size::small);
        const auto k_none = haws_test::run<haws_test::KeplerNoHints>(info.name, kernels::Size::small);
        CHECK(k_none.cycles == k_base.cycles);
        CHECK(without_haws(k_none.stats) == k_base.stats);
    }
}

TEST_CASE("HAWS never selects a warp that is not ready, and selects one whenever one is") {
    sched::HAWSScheduler<sched::RCU<8>, sched::GTO> haws(timing::SchedulerConfig{8, 0});
    sched::HAWSScheduler<sched::RCU<8>, sched::GTO, sched::HawsTrigger::long_latency_flag, sched::CompilerHints, false,
                         sched::HawsEntry::failed_issue>
        haws_failed_issue(timing::SchedulerConfig{8, 0});
    sched::GTO gto(timing::SchedulerConfig{8, 0});
    for (unsigned pattern = 0; pattern < 256; ++pattern) {
        test_support::PoolView view{{}, {100, 99, 98, 97, 96, 95, 94, 93}}; // readiness: the pattern's bits
        for (unsigned i = 0; i < 8; ++i) view.ready_.push_back((pattern >> i) & 1U);
        const unsigned pick = haws.select(view);
        if (pattern == 0) {
            CHECK(pick == timing::no_warp);
        } else {
            REQUIRE(pick < 8);
            CHECK(view.ready(pick));
        }
        CHECK(pick == gto.select(view)); // selection among ready warps is the base scheduler's
        // HawsEntry::failed_issue only watches the base: same pick; the warps it notes as failed attempts were
        // found not ready, and when none is ready GTO tried them all.
        for (unsigned i = 0; i < 8; ++i) haws_failed_issue.warp(i).failed_issue_at = ~core::Cycle{0};
        CHECK(haws_failed_issue.select(view) == pick);
        for (unsigned i = 0; i < 8; ++i) {
            const bool tried = haws_failed_issue.warp(i).failed_issue_at == view.now();
            if (tried) CHECK_FALSE(view.ready(i));
            if (pick == timing::no_warp) CHECK(tried);
        }
        if (pick != timing::no_warp) {
            haws.on_issue(pick, pattern);
            haws_failed_issue.on_issue(pick, pattern);
            gto.on_issue(pick, pattern);
        }
    }
}

TEST_CASE("a full RCU stops hint-mode issue: with one entry, each episode issues only I4") {
    using namespace haws_toy;
    const auto run = run_toy<TracedHAWS<Fig57Hints, sched::RCU<1>>, 19>();
    CHECK(run.stats.episodes == 4);
    CHECK(run.stats.hint_issued == 4);
    CHECK(run.stats.rcu_full == 4);
    CHECK(run.stats.returns_on_chain_end == 0);
    for (unsigned w = 0; w < 4; ++w) {
        CHECK(run.issue_cycle(w, pc_i4, sched::HawsIssueEvent::Kind::hinted) != 0);
        CHECK(run.issue_cycle(w, pc_i6, sched::HawsIssueEvent::Kind::hinted) == 0);
        // I6 then issues in order, after the stall point.
        CHECK(run.issue_cycle(w, pc_i6) > run.issue_cycle(w, pc_i3));
    }
    const auto full = run_toy<TracedHAWS<>, 19>();
    CHECK(run.out == full.out);
}

TEST_CASE("a renamed hint-mode result is copied back on return, bypassing execution, and the output is unchanged") {
    using namespace haws_toy;
    const auto plain = run_toy<TracedHAWS<>, 19>();
    const auto renamed = run_toy<TracedHAWS<RenamedI6Hints>, 19>();
    CHECK(renamed.stats.hint_issued == 8);
    CHECK(renamed.stats.copies == 4); // I6's result moves from the rename register to r5, once per warp
    CHECK(renamed.stats.skipped == 4); // I4's result is in place
    CHECK(plain.stats.copies == 0);
    CHECK(renamed.count(sched::HawsIssueEvent::Kind::copy) == 4);
    for (unsigned w = 0; w < 4; ++w) {
        // The copy issues in program order: after I5 (skipped in hint mode), before I7.
        const auto copy = renamed.issue_cycle(w, pc_i6, sched::HawsIssueEvent::Kind::copy);
        CHECK(copy > renamed.issue_cycle(w, pc_i5));
        CHECK(copy < renamed.issue_cycle(w, pc_i6 + 1));
    }
    // Copies are not program instructions: the warp-instruction count is the same.
    CHECK(renamed.result.warp_instructions == plain.result.warp_instructions);
    CHECK(renamed.out == plain.out);
}

TEST_CASE("the all-warps-stalled trigger enters hint mode only when every warp of the scheduler waits") {
    using namespace haws_toy;
    const auto per_warp = run_toy<TracedHAWS<>, 19>();
    const auto all = run_toy<TracedHAWS<Fig57Hints, sched::RCU<8>, sched::HawsTrigger::all_warps_stalled>, 19>();
    CHECK(all.out == per_warp.out);
    CHECK(all.stats.episodes == 4);
    // In the toy every warp stalls on I3 within four cycles, so both triggers issue the chain at the same cycles.
    CHECK(all.issue_cycle(0, pc_i4, sched::HawsIssueEvent::Kind::hinted) ==
          per_warp.issue_cycle(0, pc_i4, sched::HawsIssueEvent::Kind::hinted));
    // On a real kernel some warps still issue while others stall: fewer episodes start.
    const auto k_per_warp = haws_test::run<haws_test::SiHaws>("sgemm_naive", kernels::Size::small);
    const auto k_all = haws_test::run<haws_test::SiHawsAllStalled>("sgemm_naive", kernels::Size::small);
    CHECK(k_all.passed);
    CHECK(k_all.stats.counter("sm.sched.haws.episodes") > 0);
    CHECK(k_all.stats.counter("sm.sched.haws.episodes") < k_per_warp.stats.counter("sm.sched.haws.episodes"));
}
