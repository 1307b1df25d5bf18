// Static OAWS (Wang 2016 Sec. 4.1-4.2) against hand-set views: Eq. 1, the SMR prediction, Miss_inflight.
#include <doctest/doctest.h>

#include <gpuarch/sched/gto.hpp>
#include <gpuarch/sched/oaws.hpp>

#include "../sched/memory_view.hpp"

using namespace gpuarch;
using schedtest::divergent;
using schedtest::MemView;

namespace {
constexpr ir::Pc div_pc = 7;
constexpr ir::Pc coh_pc = 9;

// A scheduler whose DLC knows div_pc as divergent (one load of 32 lines reported as served).
template <class S> S trained(unsigned pool) {
    S s(timing::SchedulerConfig{pool, 0});
    schedtest::start(s, pool);
    s.on_memory_issued(0, divergent(div_pc, 32, 8, 32));
    REQUIRE(s.dlc().contains(div_pc));
    return s;
}
} // namespace

TEST_CASE("static OAWS, SMR 50%: 32 active threads and 32 MSHRs allow at most two divergent loads in flight") {
    auto s = trained<sched::OAWSStatic<50>>(4);
    MemView v = MemView::of(4);
    for (unsigned w = 0; w < 4; ++w) v.load(w, div_pc);

    CHECK(s.select(v) == 0); // 16 <= 32 - 0
    s.on_issue(0, 0);
    CHECK(s.miss_inflight() == 16);
    v.warps[0].ready = false;
    CHECK(s.select(v) == 1); // 16 <= 32 - 16
    s.on_issue(1, 1);
    CHECK(s.miss_inflight() == 32);
    v.warps[1].ready = false;
    CHECK(s.select(v) == timing::no_warp); // a third: 16 > 32 - 32
    CHECK(s.withholds(v, 2));
    CHECK(s.withholds(v, 3));

    // Warp 0's load leaves the LSU: its prediction is released (Sec. 4.2) and one more divergent load qualifies.
    s.on_memory_issued(0, divergent(div_pc, 32, 8, 20));
    CHECK(s.miss_inflight() == 16);
    CHECK(s.select(v) == 2);
}

TEST_CASE("static OAWS: with fewer than 16 free entries no 32-thread divergent load qualifies, a coherent load does") {
    auto s = trained<sched::OAWSStatic<50>>(3);
    MemView v = MemView::of(3);
    v.load(0, div_pc).load(1, coh_pc);
    v.store(2);
    v.l1_.mshr_free = 15;
    CHECK(s.withholds(v, 0)); // 16 > 15
    CHECK_FALSE(s.withholds(v, 1)); // coherent: 1 <= 15
    CHECK_FALSE(s.withholds(v, 2)); // a store needs no MSHR
    CHECK(s.select(v) == 1);
    v.l1_.mshr_free = 16;
    CHECK_FALSE(s.withholds(v, 0));
    // A warp with 10 active threads is predicted ceil(10 x 50%) = 5.
    v.l1_.mshr_free = 5;
    v.warps[0].lanes = 10;
    CHECK_FALSE(s.withholds(v, 0));
    v.l1_.mshr_free = 4;
    CHECK(s.withholds(v, 0));
    // A full MSHR holds back even a coherent load.
    v.l1_.mshr_free = 0;
    CHECK(s.withholds(v, 1));
    CHECK_FALSE(s.withholds(v, 2));
}

TEST_CASE("static OAWS predicts a divergent PC as coherent until the DLC has seen it served") {
    sched::OAWSStatic<50> s(timing::SchedulerConfig{2, 0});
    schedtest::start(s, 2);
    MemView v = MemView::of(2);
    v.load(0, div_pc);
    v.l1_.mshr_free = 1;
    CHECK_FALSE(s.withholds(v, 0)); // unknown PC: predicted 1 miss
    s.on_memory_issued(1, divergent(div_pc, 32, 8, 32));
    CHECK(s.withholds(v, 0)); // now 16 > 1
    // Coherent loads are never inserted (Sec. 4.2).
    s.on_memory_issued(1, divergent(coh_pc, 2, 2, 2));
    CHECK_FALSE(s.dlc().contains(coh_pc));
}

TEST_CASE("static OAWS caps a prediction at the MSHR capacity, so a load issues once every entry is free") {
    auto s = trained<sched::OAWSStatic<100>>(1);
    MemView v = MemView::of(1);
    v.load(0, div_pc);
    v.l1_ = timing::L1View{8, 8, 0, false};
    CHECK(s.select(v) == 0); // 32 x 100% capped at 8 <= 8
    v.l1_.mshr_free = 7;
    CHECK(s.select(v) == timing::no_warp);
}

TEST_CASE("while the SM reports no LSU exits, OAWS counts against the MSHR capacity and releases at completion") {
    sched::OAWSStatic<50> s(timing::SchedulerConfig{3, 0});
    schedtest::start(s, 3);
    s.on_memory_complete(2, divergent(div_pc, 32, 8, 32)); // trains the DLC at completion
    REQUIRE(s.dlc().contains(div_pc));
    MemView v = MemView::of(3);
    v.load(0, div_pc).load(1, div_pc);
    v.warps[2].ready = false;
    v.l1_.mshr_free = 0; // the live count is not used: the loads in flight hold these entries
    CHECK(s.select(v) == 0);
    s.on_issue(0, 0);
    CHECK(s.miss_inflight() == 16);
    v.warps[0].ready = false;
    CHECK(s.select(v) == 1); // 16 <= 32 - 16
    s.on_issue(1, 1);
    s.on_memory_complete(0, divergent(div_pc, 32, 8, 5));
    CHECK(s.miss_inflight() == 16);
    s.on_memory_complete(1, divergent(div_pc, 32, 8, 5));
    CHECK(s.miss_inflight() == 0);
}

TEST_CASE("budget accounting: an LSU exit does not release Miss_inflight and the free count is not read") {
    constexpr sched::OawsKnobs knobs = [] {
        sched::OawsKnobs k;
        k.accounting = sched::MissAccounting::budget;
        return k;
    }();
    auto s = trained<sched::OAWSStatic<50, knobs>>(2);
    MemView v = MemView::of(2);
    v.load(0, div_pc);
    v.l1_.mshr_free = 0;
    CHECK(s.select(v) == 0); // 16 <= 32 - 0
    s.on_issue(0, 0);
    s.on_memory_issued(0, divergent(div_pc, 32, 8, 10));
    CHECK(s.miss_inflight() == 16);
    s.on_memory_complete(0, divergent(div_pc, 32, 8, 10));
    CHECK(s.miss_inflight() == 0);
}

TEST_CASE("OAWS prioritizes greedily then by age among the qualified warps") {
    auto s = trained<sched::OAWSStatic<50>>(3);
    MemView v = MemView::of(3);
    v.warps[0].age = 30;
    v.warps[1].age = 10;
    v.warps[2].age = 20;
    v.load(1, div_pc);
    v.l1_.mshr_free = 4; // warp 1 (oldest) is disqualified
    CHECK(s.select(v) == 2);
    s.on_issue(2, 0);
    v.l1_.mshr_free = 32;
    CHECK(s.select(v) == 2); // greedy on warp 2 while it is ready
    v.warps[2].ready = false;
    CHECK(s.select(v) == 1); // then the oldest qualified
}

TEST_CASE("SMR 0 disables OAWS: every ready warp qualifies even with no MSHR free") {
    sched::OAWSStatic<0> s(timing::SchedulerConfig{2, 0});
    schedtest::start(s, 2);
    s.on_memory_issued(0, divergent(div_pc, 32, 8, 32));
    MemView v = MemView::of(2);
    v.load(0, div_pc).load(1, coh_pc);
    v.l1_.mshr_free = 0;
    CHECK_FALSE(s.withholds(v, 0));
    CHECK_FALSE(s.withholds(v, 1));
    CHECK(s.select(v) == 0);
}

TEST_CASE("OAWS counts predicted against actual misses and misses by the warp's age rank at issue") {
    auto s = trained<sched::OAWSStatic<50>>(2);
    MemView v = MemView::of(2);
    v.load(1, div_pc);
    v.warps[0].ready = false;
    CHECK(s.select(v) == 1);
    s.on_issue(1, 0);
    s.on_memory_issued(1, divergent(div_pc, 32, 8, 20));
    s.on_memory_complete(1, divergent(div_pc, 32, 8, 20));
    core::StatsTable t;
    t.collect("", s);
    CHECK(t.counter("oaws_loads_tracked") == 1);
    CHECK(t.counter("oaws_predicted_misses") == 16);
    CHECK(t.counter("oaws_actual_misses") == 20);
    CHECK(t.counter("oaws_underpredicted_loads") == 1);
    CHECK(t.histogram("oaws_misses_by_age_rank")[1] == 20); // warp 1 is the second oldest
    CHECK(t.histogram("oaws_loads_by_age_rank")[1] == 1);
    CHECK(t.counter("dlc_insertions") == 1);
}

TEST_CASE("schedulers attached to one SmShared share Miss_inflight, the DLC and an SM-wide age rank") {
    using S = sched::OAWSDynamic<>;
    S::SmShared shared;
    S a(timing::SchedulerConfig{2, 0}), b(timing::SchedulerConfig{2, 1});
    a.attach(shared, 2);
    b.attach(shared, 2);
    CHECK(a.ocw().ocw() == 2); // Wang 2016: OCW starts at 2 per SM
    CHECK(a.ocw().ocw_max() == 4);
    schedtest::start(a, 2);
    schedtest::start(b, 2);
    a.on_memory_issued(0, divergent(div_pc, 32, 8, 32));
    CHECK(b.dlc().contains(div_pc)); // one DLC per SM
    // Ages: scheduler a holds the SM's oldest and third-oldest warps, b the second and fourth.
    MemView va = MemView::of(2), vb = MemView::of(2);
    va.warps[0].age = 1;
    va.warps[1].age = 3;
    vb.warps[0].age = 2;
    vb.warps[1].age = 4;
    for (unsigned w = 0; w < 2; ++w) {
        va.load(w, div_pc);
        vb.load(w, div_pc);
    }
    va.l1_.mshr_free = vb.l1_.mshr_free = 32;
    // OCW = 2: SM ranks 0 and 1 are locality warps (predicted 0), ranks 2 and 3 thrashing (16 + rank).
    (void)a.select(va);
    (void)b.select(vb);
    CHECK_FALSE(a.withholds(va, 0));
    CHECK_FALSE(b.withholds(vb, 0));
    va.l1_.mshr_free = 18;
    CHECK_FALSE(a.withholds(va, 1)); // 16 + 2 <= 18
    va.l1_.mshr_free = 17;
    CHECK(a.withholds(va, 1));
    vb.l1_.mshr_free = 19;
    CHECK_FALSE(b.withholds(vb, 1)); // 16 + 3 <= 19
    vb.l1_.mshr_free = 18;
    CHECK(b.withholds(vb, 1));
    // Scheduler a issues a thrashing load: b sees the shared Miss_inflight.
    va.l1_.mshr_free = 32;
    va.warps[0].ready = false;
    CHECK(a.select(va) == 1);
    a.on_issue(1, 0);
    CHECK(b.miss_inflight() == 18);
    vb.l1_.mshr_free = 32;
    CHECK(b.withholds(vb, 1)); // 19 > 32 - 18
}

// The SM replays a run of quiet cycles as two cycles one by one, every scheduler in each, then one on_quiet_cycles
// call per scheduler (IssueStage::replay_quiet_cycles, timing::QuietCyclesHook). With the SM-wide age ranks that
// attached schedulers share, that must leave both schedulers as a run replayed cycle by cycle does.
TEST_CASE("attached OAWS schedulers: a run of quiet cycles replayed in one call per scheduler equals one by one") {
    using S = sched::OAWSDynamic<>;
    for (const std::uint64_t run : {1, 2, 3, 4, 17, 1000}) {
        CAPTURE(run);
        S::SmShared shared_single, shared_batched;
        S a1(timing::SchedulerConfig{2, 0}), b1(timing::SchedulerConfig{2, 1});
        S a2(timing::SchedulerConfig{2, 0}), b2(timing::SchedulerConfig{2, 1});
        a1.attach(shared_single, 2);
        b1.attach(shared_single, 2);
        a2.attach(shared_batched, 2);
        b2.attach(shared_batched, 2);
        for (S* s : {&a1, &b1, &a2, &b2}) schedtest::start(*s, 2); // the ranks are stale: the first cycle rebuilds them
        MemView va = MemView::of(2), vb = MemView::of(2);
        va.warps[0].age = 1;
        va.warps[1].age = 4;
        vb.warps[0].age = 2;
        vb.warps[1].age = 3;
        for (unsigned w = 0; w < 2; ++w) {
            va.load(w, div_pc).warps[w].ready = false;
            vb.load(w, div_pc).warps[w].ready = false;
        }
        for (std::uint64_t c = 0; c < run; ++c) {
            a1.on_quiet_cycle(va);
            b1.on_quiet_cycle(vb);
        }
        const std::uint64_t single = std::min<std::uint64_t>(run, 2);
        for (std::uint64_t c = 0; c < single; ++c) {
            a2.on_quiet_cycle(va);
            b2.on_quiet_cycle(vb);
        }
        a2.on_quiet_cycles(va, run - single);
        b2.on_quiet_cycles(vb, run - single);
        core::StatsTable ta1, tb1, ta2, tb2;
        ta1.collect("", a1);
        tb1.collect("", b1);
        ta2.collect("", a2);
        tb2.collect("", b2);
        CHECK(ta2.histogram("oaws_ocw_cycles") == ta1.histogram("oaws_ocw_cycles"));
        CHECK(tb2.histogram("oaws_ocw_cycles") == tb1.histogram("oaws_ocw_cycles"));
        CHECK(ta1.histogram("oaws_ocw_cycles")[2] == run); // OCW 2 in every replayed cycle
        // Ranks and picks afterwards: every warp ready, a tight MSHR budget that only locality warps pass.
        for (MemView* v : {&va, &vb}) {
            for (auto& w : v->warps) w.ready = true;
            v->l1_.mshr_free = 17;
        }
        CHECK(a2.select(va) == a1.select(va));
        CHECK(b2.select(vb) == b1.select(vb));
        for (unsigned w = 0; w < 2; ++w) {
            CHECK(a2.withholds(va, w) == a1.withholds(va, w));
            CHECK(b2.withholds(vb, w) == b1.withholds(vb, w));
        }
    }
}

// A select that withheld every ready warp is repeated (sched::WithheldSelect) while the MSHR budget stays below the
// smallest prediction among the withheld warps: any such budget withholds the same warps. The same test tells the SM
// whether it may replay the cycle (timing::WithheldCycleHook), and a replay counts what the repeated selects count.
TEST_CASE("static OAWS repeats a withheld select while the budget stays below the smallest withheld prediction") {
    auto s = trained<sched::OAWSStatic<50>>(3);
    auto v = schedtest::EpochMemView::of(3);
    v.load(0, div_pc).load(1, div_pc);
    v.warps[1].lanes = 20; // predicted ceil(20 x 50%) = 10; warp 0, 32 threads, 16
    v.warps[2].ready = false;
    v.l1_.mshr_free = 9; // the budget (no load in flight)
    CHECK(s.select(v) == timing::no_warp);
    const std::uint64_t repeated = s.withheld_selects_repeated();
    v.l1_.mshr_free = 3; // the budget falls
    CHECK(s.repeats_withheld(v));
    CHECK(s.select(v) == timing::no_warp);
    v.l1_.mshr_free = 9; // and rises again, still below 10
    CHECK(s.select(v) == timing::no_warp);
    CHECK(s.withheld_selects_repeated() == repeated + 2);

    core::StatsTable before;
    before.collect("", s);
    s.on_withheld_cycles(v, 5);
    core::StatsTable after;
    after.collect("", s);
    CHECK(after.counter("oaws_withheld_cycles") == before.counter("oaws_withheld_cycles") + 5);
    CHECK(after.counter("oaws_disqualified_warp_cycles") == before.counter("oaws_disqualified_warp_cycles") + 10);
    CHECK(s.withheld_selects_repeated() == repeated + 7);

    v.l1_.mshr_free = 10; // 10 <= 10: warp 1 qualifies
    CHECK_FALSE(s.repeats_withheld(v));
    CHECK(s.select(v) == 1u);
    CHECK(s.withheld_selects_repeated() == repeated + 7);
}
