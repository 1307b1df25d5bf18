// SWL, CCWS and MASCAR against hand-set views.
#include <doctest/doctest.h>

#include <random>

#include <gpuarch/core/stats.hpp>
#include <gpuarch/sched/ccws.hpp>
#include <gpuarch/sched/mascar.hpp>
#include <gpuarch/sched/swl.hpp>

#include "../support/same_statistics.hpp"
#include "memory_view.hpp"

using namespace gpuarch;
using schedtest::MemView;

// ------------------------------------------------------------------------------------------------- SWL
TEST_CASE("SWL<2> issues only from its two oldest warps, greedy then oldest among them") {
    sched::SWL<2> s(timing::SchedulerConfig{4, 0});
    schedtest::start(s, 4);
    MemView v = MemView::of(4);
    v.warps[0].age = 40;
    v.warps[1].age = 10;
    v.warps[2].age = 30;
    v.warps[3].age = 20; // the two oldest: warps 1 and 3
    CHECK(s.select(v) == 1);
    s.on_issue(1, 0);
    CHECK(s.select(v) == 1); // greedy
    v.warps[1].ready = false;
    CHECK(s.select(v) == 3);
    v.warps[3].ready = false;
    CHECK(s.select(v) == timing::no_warp); // warps 0 and 2 are ready but outside the limit
    CHECK(s.withholds(v, 0));
    CHECK(s.withholds(v, 2));
    CHECK_FALSE(s.withholds(v, 1));
    // Warp 1 exits: warp 2 (the next oldest) enters the limit.
    v.warps[1].occupied = false;
    s.on_warp_exit(1);
    CHECK(s.select(v) == 2);
}

TEST_CASE("SWL does not count a warp waiting at a barrier against its limit when the view shows barriers") {
    sched::SWL<1> s(timing::SchedulerConfig{3, 0});
    schedtest::start(s, 3);
    schedtest::BarrierMemView v;
    v.warps = MemView::of(3).warps;
    v.warps[0].ready = false;
    v.warps[0].at_barrier = true;
    CHECK(s.select(v) == 1); // warp 0 waits at the barrier: warp 1 takes the single slot
    CHECK(s.withholds(v, 2));
}

TEST_CASE("without barrier visibility SWL lifts its limit after a long starvation, until a limited warp is ready") {
    sched::SWL<1, 100> s(timing::SchedulerConfig{2, 0});
    schedtest::start(s, 2);
    MemView v = MemView::of(2);
    v.warps[0].ready = false; // the admitted warp cannot issue (e.g. it waits at a barrier for warp 1)
    for (core::Cycle t = 0; t < 100; ++t) {
        v.now_ = t;
        CHECK(s.select(v) == timing::no_warp);
    }
    v.now_ = 100;
    CHECK(s.select(v) == 1);
    v.warps[0].ready = true;
    v.now_ = 101;
    CHECK(s.select(v) == 0);
    v.warps[0].ready = false;
    v.now_ = 102;
    CHECK(s.select(v) == timing::no_warp); // the guard starts over
    core::StatsTable t;
    t.collect("", s);
    CHECK(t.counter("swl_guard_cycles") == 1);
    CHECK(t.counter("swl_withheld_cycles") == 102);
}

namespace {
// The SM's view as SWL's withheld-cycle contract needs it: barrier waits, the state epoch and the ready mask.
struct EpochBarrierView : schedtest::EpochMemView {
    bool waiting_at_barrier(unsigned i) const { return warps[i].at_barrier; }
};
} // namespace

TEST_CASE("SWL repeats a select that withheld every ready warp only while the epoch and the ready mask stand") {
    sched::SWL<2> s(timing::SchedulerConfig{4, 0});
    schedtest::start(s, 4);
    EpochBarrierView v;
    static_cast<schedtest::EpochMemView&>(v) = schedtest::EpochMemView::of(4);
    static_assert(timing::WithheldCycleHook<sched::SWL<2>, EpochBarrierView>);
    v.warps[0].ready = false;
    v.warps[1].ready = false; // the two oldest (ages 10 and 20) wait; 2 and 3 are ready outside the limit
    CHECK(s.select(v) == timing::no_warp);
    CHECK(s.repeats_withheld(v));
    // What n repeats count is what n selects count.
    sched::SWL<2> asked = s;
    s.on_withheld_cycles(v, 5);
    for (int k = 0; k < 5; ++k) CHECK(asked.select(v) == timing::no_warp);
    test_support::check_same_statistics(s, asked);
    CHECK(s.withheld_selects_repeated() == 5);
    // A changed ready mask, a new epoch (an admitted warp's head changed), and a select that issued each end it.
    v.warps[3].ready = false;
    CHECK_FALSE(s.repeats_withheld(v));
    v.warps[3].ready = true;
    CHECK(s.repeats_withheld(v));
    ++v.epoch;
    CHECK_FALSE(s.repeats_withheld(v));
    CHECK(s.select(v) == timing::no_warp);
    CHECK(s.repeats_withheld(v));
    v.warps[1].ready = true;
    ++v.epoch;
    CHECK(s.select(v) == 1);
    CHECK_FALSE(s.repeats_withheld(v));
    // Without barrier visibility the starvation guard reads the cycle number: never a repeat.
    sched::SWL<2> guarded(timing::SchedulerConfig{4, 0});
    schedtest::start(guarded, 4);
    auto plain = schedtest::EpochMemView::of(4);
    plain.warps[0].ready = false;
    plain.warps[1].ready = false;
    CHECK(guarded.select(plain) == timing::no_warp);
    CHECK_FALSE(guarded.repeats_withheld(plain));
}

// ------------------------------------------------------------------------------------------------ CCWS
namespace {
// Four warps with a load each, stacked once (4 active warps: cutoff 400), then `instructions` issues.
void start_four_loading(sched::CCWS<8, 16, 8, 100>& s, MemView& v, int instructions) {
    schedtest::start(s, 4);
    for (unsigned w = 0; w < 4; ++w) v.load(w, 1);
    (void)s.select(v);
    for (int i = 0; i < instructions; ++i) s.on_issue(0, 0);
}
using test_support::check_same_statistics;
// Warp `warp` lost `line` to an eviction and misses on it again: one VTA hit.
void lose_and_miss(sched::CCWS<8, 16, 8, 100>& s, unsigned warp, std::uint64_t line) {
    s.on_locality_event(warp, timing::LocalityEvent{timing::LocalityEvent::eviction, line});
    s.on_locality_event(warp, timing::LocalityEvent{timing::LocalityEvent::miss, line});
}
} // namespace

TEST_CASE("a victim tag array keeps 16 tags in two 8-way LRU sets and gives up a tag on a hit") {
    sched::VictimTagArray<16, 8> vta;
    for (std::uint64_t k = 0; k < 8; ++k) vta.insert(k * 256); // all in set 0 (line number even)
    CHECK(vta.contains(0));
    vta.insert(8 * 256); // set 0 full: the least recently inserted (line 0) goes
    CHECK_FALSE(vta.contains(0));
    CHECK(vta.contains(256));
    vta.insert(128); // set 1
    CHECK(vta.contains(128));
    CHECK(vta.take(128));
    CHECK_FALSE(vta.contains(128));
    CHECK_FALSE(vta.take(128));
}

TEST_CASE("CCWS: without lost locality every warp keeps its base score and nothing is throttled") {
    sched::CCWS<> s(timing::SchedulerConfig{4, 0});
    schedtest::start(s, 4);
    MemView v = MemView::of(4);
    for (unsigned w = 0; w < 4; ++w) v.load(w, 1);
    // Misses without a prior eviction are not VTA hits.
    timing::LocalityEvent miss{timing::LocalityEvent::miss, 0x1000};
    s.on_locality_event(2, miss);
    CHECK(s.vta_hits() == 0);
    (void)s.select(v);
    for (unsigned w = 0; w < 4; ++w) CHECK_FALSE(s.withholds(v, w));
}

TEST_CASE("CCWS: a VTA hit raises the warp's score by Eq. 1 and stacks the youngest warps above the cutoff") {
    sched::CCWS<8, 16, 8, 100> s(timing::SchedulerConfig{4, 0});
    MemView v = MemView::of(4);
    start_four_loading(s, v, 100); // 100 instructions
    lose_and_miss(s, 2, 0x1000);
    CHECK(s.vta_hits() == 1);
    // Eq. 1: 1 hit / 100 instructions x K_THROTTLE 8 x cutoff 400 = 32.
    CHECK(s.score(2) == 132);
    // Stack: warp 2 (132), then warps 0, 1, 3 by age (100 each): 132, 232, 332, 432 > 400: warp 3 may not load.
    (void)s.select(v);
    CHECK_FALSE(s.withholds(v, 2));
    CHECK_FALSE(s.withholds(v, 0));
    CHECK_FALSE(s.withholds(v, 1));
    CHECK(s.withholds(v, 3));
    // Only loads are throttled: warp 3 may issue a computation.
    v.compute(3);
    CHECK_FALSE(s.withholds(v, 3));
    v.load(3, 1);
    // Scores fall one point per cycle back to the base: after 32 cycles nothing is throttled.
    v.now_ = 31;
    (void)s.select(v);
    CHECK(s.score(2) == 101);
    CHECK(s.withholds(v, 3));
    v.now_ = 32;
    (void)s.select(v);
    CHECK(s.score(2) == 100);
    CHECK_FALSE(s.withholds(v, 3));
}

TEST_CASE("CCWS: as a score decays the warps allowed loads grow from the top of the stack, without a re-sort") {
    sched::CCWS<8, 16, 8, 100> s(timing::SchedulerConfig{4, 0});
    MemView v = MemView::of(4);
    start_four_loading(s, v, 16); // 16 instructions
    lose_and_miss(s, 2, 0x1000);
    CHECK(s.score(2) == 300); // Eq. 1: 1 hit / 16 instructions x 8 x 400 = 200
    // Stack: warp 2 (300), then warps 0, 1, 3 by age: 300, 400, 500, 600: warps 1 and 3 may not load.
    (void)s.select(v);
    CHECK_FALSE(s.withholds(v, 2));
    CHECK_FALSE(s.withholds(v, 0));
    CHECK(s.withholds(v, 1));
    CHECK(s.withholds(v, 3));
    // 99 cycles later: 201, 301, 401: unchanged.
    v.now_ = 99;
    (void)s.select(v);
    CHECK(s.score(2) == 201);
    CHECK(s.withholds(v, 1));
    CHECK(s.withholds(v, 3));
    // One more: 200, 300, 400, 500: warp 1 may load again, warp 3 still may not (the stack's order is unchanged).
    v.now_ = 100;
    (void)s.select(v);
    CHECK(s.score(2) == 200);
    CHECK_FALSE(s.withholds(v, 1));
    CHECK(s.withholds(v, 3));
    CHECK_FALSE(s.withholds(v, 0));
    CHECK_FALSE(s.withholds(v, 2));
}

TEST_CASE("CCWS: a score that decays to the base ties with the older warps there, and the stack is re-sorted") {
    sched::CCWS<8, 16, 8, 100> s(timing::SchedulerConfig{4, 0});
    MemView v = MemView::of(4);
    start_four_loading(s, v, 160); // 160 instructions
    lose_and_miss(s, 2, 0x1000); // Eq. 1: 1 hit / 160 x 8 x 400 = 20: 120
    lose_and_miss(s, 3, 0x2000); // 2 hits / 160 x 8 x 400 = 40: 140
    // Stack: warp 3 (140), warp 2 (120), then warps 0 and 1: 140, 260, 360, 460: warp 1 may not load.
    (void)s.select(v);
    CHECK(s.withholds(v, 1));
    CHECK_FALSE(s.withholds(v, 2));
    // 19 cycles later: 121, 101: the same stack.
    v.now_ = 19;
    (void)s.select(v);
    CHECK(s.withholds(v, 1));
    CHECK_FALSE(s.withholds(v, 2));
    // One more: warp 2 is at the base, where the older warps 0 and 1 come first: 120, 220, 320, 420.
    v.now_ = 20;
    (void)s.select(v);
    CHECK(s.score(2) == 100);
    CHECK(s.score(3) == 120);
    CHECK_FALSE(s.withholds(v, 1));
    CHECK(s.withholds(v, 2));
}

TEST_CASE("CCWS: the warp stacked first keeps its loads even when its score alone exceeds the cutoff") {
    sched::CCWS<8, 16, 8, 100> s(timing::SchedulerConfig{2, 0});
    schedtest::start(s, 2);
    MemView v = MemView::of(2);
    v.load(0, 1).load(1, 1);
    (void)s.select(v); // cutoff 200
    s.on_issue(0, 0); // 1 instruction
    lose_and_miss(s, 1, 0x80);
    CHECK(s.score(1) == 100 + 1 * 8 * 200);
    (void)s.select(v);
    CHECK_FALSE(s.withholds(v, 1)); // the most lost locality: exclusively prioritized for loads
    CHECK(s.withholds(v, 0));
    CHECK(s.select(v) == 1);
}

// A CCWS keeps its stack while only decays short of the one that changes the warps allowed loads happened
// (decay_until_prefix_grows). Against one that stacks again in every cycle (forget_stack), on random VTA hits over
// random decays, issues and load/compute mixes: the same picks, the same withheld warps and the same statistics.
TEST_CASE("CCWS: a stack kept across decays gives what stacking again in every cycle gives") {
    for (std::uint32_t seed = 1; seed <= 4; ++seed) {
        std::mt19937 rng(seed);
        const unsigned warps = 8;
        sched::CCWS<8, 16, 8, 100> kept(timing::SchedulerConfig{warps, 0}), fresh(timing::SchedulerConfig{warps, 0});
        schedtest::start(kept, warps);
        schedtest::start(fresh, warps);
        MemView v = MemView::of(warps);
        std::uint64_t line = 0x1000;
        unsigned throttled_selects = 0;
        for (int cycle = 0; cycle < 4000; ++cycle) {
            v.now_ += 1 + rng() % 3;
            for (unsigned w = 0; w < warps; ++w) {
                if (rng() % 4 == 0) v.compute(w);
                else v.load(w, 1);
                v.warps[w].ready = rng() % 3 != 0;
            }
            if (rng() % 16 == 0) { // a VTA hit: the warp lost a line and misses on it again
                const unsigned w = rng() % warps;
                line += 128;
                for (auto* s : {&kept, &fresh}) lose_and_miss(*s, w, line);
            }
            fresh.forget_stack();
            const unsigned pick = kept.select(v);
            INFO("seed " << seed << ", cycle " << cycle);
            REQUIRE(pick == fresh.select(v));
            if (pick != timing::no_warp) {
                kept.on_issue(pick, v.now_);
                fresh.on_issue(pick, v.now_);
            }
            bool any_withheld = false;
            for (unsigned w = 0; w < warps; ++w) {
                fresh.forget_stack();
                const bool withheld = kept.withholds(v, w);
                CHECK(withheld == fresh.withholds(v, w));
                any_withheld = any_withheld || withheld;
            }
            throttled_selects += any_withheld ? 1 : 0;
        }
        check_same_statistics(kept, fresh);
        INFO("seed " << seed << ": VTA hits " << kept.vta_hits() << ", cycles with a warp withheld "
                     << throttled_selects);
        // The streams must throttle often: scores well above the base, decaying across many cycles.
        CHECK(throttled_selects > 1000);
    }
}

// CCWS's withheld-cycle contract (timing::WithheldCycleHook): a select that withheld every ready warp repeats while
// the epoch, the ready mask and the warps allowed loads are unchanged and the decay has not reached the stack's next
// change (withheld_until). One CCWS selects in every cycle; its twin, as the SM does, after a cycle whose select it
// would repeat sleeps until withheld_until (or until the view changes) and counts the slept cycles one by one with
// on_withheld_cycles. Over random stretches of unchanged views, VTA hits and decays: the same picks and statistics.
TEST_CASE("CCWS: withheld cycles replayed until withheld_until give what a select in every cycle gives") {
    for (std::uint32_t seed = 1; seed <= 4; ++seed) {
        std::mt19937 rng(seed);
        const unsigned warps = 8;
        sched::CCWS<8, 16, 8, 100> every(timing::SchedulerConfig{warps, 0}), sleeper(timing::SchedulerConfig{warps, 0});
        schedtest::start(every, warps);
        schedtest::start(sleeper, warps);
        auto v = schedtest::EpochMemView::of(warps);
        std::uint64_t line = 0x1000, replayed = 0, ended_by_decay = 0;
        core::Cycle sleep_until = 0;
        for (int stretch = 0; stretch < 600; ++stretch) {
            // A change at the stretch's start wakes the sleeper: new heads and ready warps, or a VTA hit.
            if (rng() % 2 != 0) {
                for (unsigned w = 0; w < warps; ++w) {
                    if (rng() % 4 == 0) v.compute(w);
                    else v.load(w, 1);
                    v.warps[w].ready = rng() % 4 == 0;
                }
                ++v.epoch;
            } else {
                const unsigned w = rng() % warps;
                line += 128;
                for (auto* s : {&every, &sleeper}) lose_and_miss(*s, w, line);
            }
            sleep_until = 0;
            const unsigned length = 1 + rng() % 60;
            for (unsigned k = 0; k < length; ++k) {
                ++v.now_;
                const unsigned pick = every.select(v);
                INFO("seed " << seed << ", stretch " << stretch << ", cycle " << v.now_);
                if (v.now_ < sleep_until) {
                    REQUIRE(pick == timing::no_warp);
                    sleeper.on_withheld_cycles(v, 1);
                    ++replayed;
                    continue;
                }
                if (sleep_until != 0 && v.now_ == sleep_until) ++ended_by_decay;
                sleep_until = 0;
                REQUIRE(pick == sleeper.select(v));
                if (pick != timing::no_warp) {
                    every.on_issue(pick, v.now_);
                    sleeper.on_issue(pick, v.now_);
                    ++v.epoch; // an issue changes the issuing warp's head
                } else if (v.ready_mask() != 0 && sleeper.repeats_withheld(v)) { // as the SM asks it
                    sleep_until = sleeper.withheld_until(v);
                    REQUIRE(sleep_until > v.now_);
                }
            }
        }
        check_same_statistics(every, sleeper);
        INFO("seed " << seed << ": " << replayed << " cycles replayed, " << ended_by_decay
                     << " sleeps ended by the decay");
        CHECK(replayed > 1000);
        CHECK(ended_by_decay > 20);
    }
}

// ---------------------------------------------------------------------------------------------- MASCAR
TEST_CASE("MASCAR, memory not saturated: memory instructions of every warp go before computation") {
    sched::MASCAR<> s(timing::SchedulerConfig{3, 0});
    schedtest::start(s, 3);
    MemView v = MemView::of(3);
    v.store(2);
    CHECK(s.select(v) == 2); // the only memory instruction, although warp 0 is older
    CHECK_FALSE(s.memory_priority_mode());
    v.compute(2);
    CHECK(s.select(v) == 0);
}

TEST_CASE("MASCAR, saturated (one free MSHR entry): only the owner warp issues memory; others compute") {
    sched::MASCAR<> s(timing::SchedulerConfig{3, 0});
    schedtest::start(s, 3);
    MemView v = MemView::of(3);
    v.load(0, 1).load(1, 1);
    v.l1_.mshr_free = 1; // Wang 2016 Sec. 5: "MSHR has only 1 entry"
    CHECK(s.select(v) == 0); // warp 0 (oldest with a memory instruction) becomes the owner
    CHECK(s.memory_priority_mode());
    CHECK(s.owner() == 0);
    s.on_issue(0, 0);
    v.compute(0);
    CHECK(s.select(v) == 0); // the owner keeps issuing (greedy) while it can
    v.warps[0].ready = false;
    CHECK(s.select(v) == 2); // warp 1's load waits; warp 2 computes
    CHECK(s.withholds(v, 1));
    v.warps[2].ready = false;
    CHECK(s.select(v) == timing::no_warp);
    // The owner reaches an instruction that depends on its own pending load: ownership moves on.
    v.warps[0].long_latency = true;
    CHECK(s.select(v) == 1);
    CHECK(s.owner() == 1);
    // Saturation clears: equal-priority mode again.
    v.l1_.mshr_free = 8;
    v.warps[2].ready = true;
    CHECK(s.select(v) == 1);
    CHECK_FALSE(s.memory_priority_mode());
    core::StatsTable t;
    t.collect("", s);
    CHECK(t.counter("mascar_owner_switches") == 2);
    CHECK(t.counter("mascar_withheld_cycles") == 1);
}

TEST_CASE("MASCAR also saturates when the memory port has only one free slot, not when the view hides the port") {
    sched::MASCAR<> s(timing::SchedulerConfig{2, 0});
    schedtest::start(s, 2);
    MemView v = MemView::of(2);
    v.load(0, 1).load(1, 1);
    v.l1_.miss_queue_total = 8;
    v.l1_.miss_queue_free = 1; // Wang 2016 Sec. 5: "the queue inside memory port has only 1 slot"
    (void)s.select(v);
    CHECK(s.memory_priority_mode());
    v.l1_.miss_queue_free = 2;
    (void)s.select(v);
    CHECK_FALSE(s.memory_priority_mode());
    v.l1_.miss_queue_total = 0; // no port information: the MSHR test alone
    v.l1_.miss_queue_free = 0;
    (void)s.select(v);
    CHECK_FALSE(s.memory_priority_mode());
}

// The SM replays a run of quiet cycles with one on_quiet_cycles call (timing::QuietCyclesHook): it must leave the mode,
// the owner and every counter as that many on_quiet_cycle calls leave them, in either mode and from any owner.
TEST_CASE("MASCAR's run of quiet cycles equals as many single quiet cycles") {
    std::mt19937_64 rng(11);
    auto next = [&rng](unsigned below) { return static_cast<unsigned>(rng() % below); };
    for (int trial = 0; trial < 200; ++trial) {
        const unsigned n = 1 + next(6);
        sched::MASCAR<> single(timing::SchedulerConfig{n, 0}), batched(timing::SchedulerConfig{n, 0});
        schedtest::start(single, n);
        schedtest::start(batched, n);
        MemView v = MemView::of(n);
        for (unsigned w = 0; w < n; ++w)
            if (next(2) == 0) v.load(w, w + 1);
        v.l1_.mshr_free = next(3); // saturated at 0 or 1
        // A select that may pick an owner, with every warp ready; then the warps stall (some on their loads).
        const unsigned first = single.select(v);
        CHECK(batched.select(v) == first);
        if (first != timing::no_warp) {
            single.on_issue(first, 0);
            batched.on_issue(first, 0);
        }
        for (auto& w : v.warps) {
            w.ready = false;
            w.long_latency = next(2) == 0;
        }
        if (next(3) == 0) v.l1_.mshr_free = 8 - v.l1_.mshr_free; // the L1 may have drained meanwhile
        const std::uint64_t run = next(5) == 0 ? 0 : 1 + next(50);
        for (std::uint64_t c = 0; c < run; ++c) single.on_quiet_cycle(v);
        batched.on_quiet_cycles(v, run);
        INFO("trial " << trial << ", run of " << run);
        CHECK(batched.memory_priority_mode() == single.memory_priority_mode());
        CHECK(batched.owner() == single.owner());
        core::StatsTable a, b;
        a.collect("", single);
        b.collect("", batched);
        for (const char* name :
             {"mascar_ep_cycles", "mascar_mp_cycles", "mascar_owner_switches", "mascar_withheld_cycles"})
            CHECK(b.counter(name) == a.counter(name));
        for (auto& w : v.warps) w.ready = true;
        CHECK(batched.select(v) == single.select(v));
    }
}

TEST_CASE("CCWS repeats a select that withheld every ready warp only while nothing it reads changed") {
    sched::CCWS<8, 16, 8, 100> s(timing::SchedulerConfig{4, 0});
    auto v = schedtest::EpochMemView::of(4);
    start_four_loading(s, v, 16);
    lose_and_miss(s, 2, 0x1000); // stack 300, 400, 500, 600: warps 1 and 3 may not load
    v.warps[0].ready = false;
    v.warps[2].ready = false;
    CHECK(s.select(v) == timing::no_warp);
    const std::uint64_t repeated = s.withheld_selects_repeated();
    CHECK(s.select(v) == timing::no_warp);
    CHECK(s.withheld_selects_repeated() == repeated + 1);
    SUBCASE("the ready mask") {
        v.warps[0].ready = true;
        CHECK(s.select(v) == 0u);
    }
    SUBCASE("a head instruction, at a new state epoch") {
        v.compute(3);
        ++v.epoch;
        CHECK(s.select(v) == 3u);
    }
    SUBCASE("which warps may load (a score decayed)") {
        v.now_ = 100; // 200, 300, 400, 500: warp 1 may load again
        CHECK(s.select(v) == 1u);
    }
    CHECK(s.withheld_selects_repeated() == repeated + 1);
}

// The record OAWS and CCWS share (sched::WithheldSelect): it answers only for the select it remembered, with the
// same epoch, ready mask and inputs, and counts as reused only the repeats in which some warp was ready.
TEST_CASE("a remembered withheld select repeats only while its epoch, ready mask and inputs are unchanged") {
    auto v = schedtest::EpochMemView::of(4);
    sched::WithheldSelect<int, unsigned> record;
    CHECK(record.repeat(v, 7) == nullptr); // nothing remembered yet
    record.remember(v, timing::no_warp, 7, 4U);
    const unsigned* outcome = record.repeat(v, 7);
    REQUIRE(outcome != nullptr);
    CHECK(*outcome == 4U);
    CHECK(record.repeated() == 1);
    CHECK(record.repeat(v, 8) == nullptr); // another input
    ++v.epoch;
    CHECK(record.repeat(v, 7) == nullptr); // a new epoch
    record.remember(v, timing::no_warp, 7, 4U);
    v.warps[2].ready = false;
    CHECK(record.repeat(v, 7) == nullptr); // another ready mask
    record.remember(v, 1, 7, 0U); // a select that picked a warp is not kept
    CHECK(record.repeat(v, 7) == nullptr);
    CHECK(record.repeated() == 1);

    // With no warp ready the answer repeats, but no ready warp was withheld: not a reused withheld select.
    for (auto& w : v.warps) w.ready = false;
    record.remember(v, timing::no_warp, 7, 0U);
    CHECK(record.repeat(v, 7) != nullptr);
    CHECK(record.repeated() == 1);
    record.forget();
    CHECK(record.repeat(v, 7) == nullptr);

    // A pool wider than the 64-bit ready mask is never kept.
    auto wide = schedtest::EpochMemView::of(65);
    for (auto& w : wide.warps) w.ready = false;
    record.remember(wide, timing::no_warp, 7, 0U);
    CHECK(record.repeat(wide, 7) == nullptr);
}
