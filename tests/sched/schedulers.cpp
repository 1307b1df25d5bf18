#include <doctest/doctest.h>

#include "../support/pool_view.hpp"

#include <gpuarch/sched/gto.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sched/rcu.hpp>
#include <gpuarch/sched/two_level.hpp>
#include <gpuarch/sched/two_level_active.hpp>
#include <gpuarch/timing/hooks.hpp>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <random>
#include <string_view>
#include <utility>
#include <vector>

namespace {
using namespace gpuarch;
using View = test_support::PoolView; // {ready}, {age}, {long-latency}; every slot occupied

// A view that also offers its ready slots as one mask, as the SM's does.
struct MaskView : View {
    std::uint64_t ready_mask() const {
        std::uint64_t bits = 0;
        for (unsigned i = 0; i < pool_size() && i < 64; ++i)
            if (View::ready(i)) bits |= std::uint64_t{1} << i;
        return bits;
    }
};
// A view that also offers its waiting slots as one mask, as the SM's does under event-driven issue
// (PoolView::waiting_mask: empty, or waiting on a long-latency load; this view tells no barrier waits). It counts
// the times it is asked, so that a test can tell the scheduler took the mask.
struct WaitingMaskView : View {
    unsigned* asks = nullptr;
    std::uint64_t waiting_mask() const {
        ++*asks;
        std::uint64_t bits = 0;
        for (unsigned i = 0; i < pool_size() && i < 64; ++i)
            if (!View::occupied(i) || View::long_latency_pending(i)) bits |= std::uint64_t{1} << i;
        return bits;
    }
};
// A mask view that notes the slots it is asked (timing::NotesReadyAsks), as HAWS's view does.
struct NotingMaskView : MaskView {
    static constexpr bool notes_ready_asks = true;
    std::vector<unsigned>* asked = nullptr;
    bool ready(unsigned i) const {
        asked->push_back(i);
        return View::ready(i);
    }
};
} // namespace

TEST_CASE("LRR issues the next ready warp after the one that issued last") {
    sched::LRR s(timing::SchedulerConfig{4, 0});
    View v{{true, true, true, true}, {0, 1, 2, 3}, {}};
    std::vector<unsigned> order;
    for (int i = 0; i < 6; ++i) {
        const unsigned w = s.select(v);
        order.push_back(w);
        s.on_issue(w, 0);
    }
    CHECK(order == std::vector<unsigned>{0, 1, 2, 3, 0, 1});
    v.ready_ = {true, false, false, true};
    CHECK(s.select(v) == 3); // after warp 1: 2 is not ready, 3 is
}

// LRR's turn, against its definition on random pools: the slots (last + k) % n for k = 1, 2, ..., asked in that
// order up to the first ready one. The slots asked matter too: HAWS's view notes the warps its base found not ready.
TEST_CASE("LRR asks the slots in turn after the one that issued last, wrapping past the last slot") {
    struct AskingView : View {
        std::vector<unsigned>* asked = nullptr;
        bool ready(unsigned i) const {
            asked->push_back(i);
            return View::ready(i);
        }
    };
    test_support::SplitMix rng{2028};
    unsigned wrapped = 0, none = 0;
    for (const unsigned pool : {1U, 2U, 5U, 24U, 48U, 70U}) {
        CAPTURE(pool);
        sched::LRR s(timing::SchedulerConfig{pool, 0});
        unsigned last = pool - 1; // the first turn starts at slot 0
        for (int step = 0; step < 400; ++step) {
            std::vector<unsigned> asked, expected_asked;
            AskingView v{test_support::random_pool_view(rng, pool), &asked};
            unsigned expected = timing::no_warp;
            for (unsigned k = 1; k <= pool && expected == timing::no_warp; ++k) {
                const unsigned slot = (last + k) % pool;
                expected_asked.push_back(slot);
                if (v.View::ready(slot)) expected = slot;
            }
            REQUIRE(s.select(v) == expected);
            REQUIRE(asked == expected_asked);
            if (expected == timing::no_warp) {
                ++none;
                continue;
            }
            wrapped += expected < (last + 1) % pool ? 1 : 0;
            // The issued warp is drawn at random at times, so that scans start from every place in the turn.
            last = rng.below(3) == 0 ? rng.below(pool) : expected;
            s.on_issue(last, 0);
        }
    }
    CHECK(wrapped > 100);
    CHECK(none > 100);
}

// Through a view that offers its ready slots as a mask (the SM's), LRR reads the mask instead of asking slot by slot;
// its pick must be the one the asking turn finds. Through a view that also notes what it is asked
// (timing::NotesReadyAsks, as HAWS's view does), it must still ask the slots in turn, mask or not.
TEST_CASE("LRR picks from a view's ready mask the slot its turn would find, and asks in turn a view that notes asks") {
    static_assert(!timing::NotesReadyAsks<MaskView>);
    static_assert(timing::NotesReadyAsks<NotingMaskView>);
    test_support::SplitMix rng{2029};
    unsigned wrapped = 0;
    for (const unsigned pool : {1U, 2U, 5U, 24U, 48U, 63U, 64U, 70U}) {
        CAPTURE(pool);
        sched::LRR by_mask(timing::SchedulerConfig{pool, 0}), by_asking(timing::SchedulerConfig{pool, 0});
        sched::LRR noted(timing::SchedulerConfig{pool, 0});
        unsigned last = pool - 1;
        for (int step = 0; step < 400; ++step) {
            const View drawn = test_support::random_pool_view(rng, pool);
            const MaskView masked{drawn};
            std::vector<unsigned> asked, expected_asked;
            const NotingMaskView noting{{drawn}, &asked};
            unsigned expected = timing::no_warp;
            for (unsigned k = 1; k <= pool && expected == timing::no_warp; ++k) {
                expected_asked.push_back((last + k) % pool);
                if (drawn.ready((last + k) % pool)) expected = (last + k) % pool;
            }
            REQUIRE(by_asking.select(drawn) == expected);
            REQUIRE(by_mask.select(masked) == expected);
            REQUIRE(noted.select(noting) == expected);
            REQUIRE(asked == expected_asked);
            if (expected == timing::no_warp) continue;
            wrapped += expected < (last + 1) % pool ? 1 : 0;
            last = rng.below(3) == 0 ? rng.below(pool) : expected;
            for (sched::LRR* s : {&by_mask, &by_asking, &noted}) s->on_issue(last, 0);
        }
    }
    CHECK(wrapped > 100);
}

TEST_CASE("GTO keeps issuing the same warp until it stalls, then the oldest ready warp") {
    sched::GTO s(timing::SchedulerConfig{4, 0});
    View v{{true, true, true, true}, {30, 10, 20, 40}, {}};
    CHECK(s.select(v) == 1); // oldest
    s.on_issue(1, 0);
    v.ready_ = {true, true, true, true};
    CHECK(s.select(v) == 1); // greedy
    v.ready_ = {true, false, true, true};
    CHECK(s.select(v) == 2); // warp 1 stalled: oldest ready is warp 2 (age 20)
    s.on_issue(2, 1);
    v.ready_ = {true, true, true, true};
    CHECK(s.select(v) == 2); // now greedy on warp 2, even though warp 1 is older
}

TEST_CASE("TwoLevel stays in its fetch group until every warp of it stalls") {
    sched::TwoLevel<2> s(timing::SchedulerConfig{4, 0});
    View v{{true, true, true, true}, {0, 1, 2, 3}, {false, false, false, false}};
    std::vector<unsigned> order;
    for (int i = 0; i < 4; ++i) {
        const unsigned w = s.select(v);
        order.push_back(w);
        s.on_issue(w, 0);
    }
    CHECK(order == std::vector<unsigned>{0, 1, 0, 1}); // group {0,1} only
    v.ready_ = {false, false, true, true};
    v.long_latency_ = {true, true, false, false};
    CHECK(s.select(v) == 2); // group {0,1} waits on memory: switch to {2,3}
}

TEST_CASE("TwoLevel with one group covering the pool selects exactly like LRR") {
    sched::LRR lrr(timing::SchedulerConfig{6, 0});
    sched::TwoLevel<8> two(timing::SchedulerConfig{6, 0});
    std::uint64_t seed = 1;
    for (int i = 0; i < 500; ++i) {
        View v{{}, {0, 1, 2, 3, 4, 5}, {}};
        for (int k = 0; k < 6; ++k) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            v.ready_.push_back((seed >> 33) % 3 == 0);
        }
        const unsigned a = lrr.select(v), b = two.select(v);
        REQUIRE(a == b);
        if (a != timing::no_warp) {
            lrr.on_issue(a, 0);
            two.on_issue(b, 0);
        }
    }
}

namespace {
struct CounterVisitor {
    std::uint64_t demotions = 0, withheld = 0;
    void counter(std::string_view name, std::uint64_t value, std::string_view) {
        if (name == "two_level_demotions") demotions = value;
        if (name == "two_level_withheld_cycles") withheld = value;
    }
};
} // namespace

// GPGPU-Sim's two_level_active, traced by hand on 5 warps with an active pool of 2 (header of two_level_active.hpp).
// The SM replays a quiet cycle (no warp ready, nothing changed) through on_quiet_cycle instead of select
// (timing::QuietCycleHook); TwoLevelActive settles into an O(1) rotation there. Its pools, its counters and its next
// pick must be those of a select in every one of those cycles.
TEST_CASE("TwoLevelActive's quiet-cycle hook leaves the pools and counters of a select in each quiet cycle") {
    // 7 slots, active pool of 3: slots 1 and 4 stall on short hazards (they stay active once promoted), 0, 2, 5 wait
    // on loads, 3 and 6 are empty.
    const std::vector<bool> none(7, false);
    const std::vector<bool> long_latency{true, false, true, false, false, true, false};
    const std::vector<bool> occupied{true, true, true, false, true, true, false};
    const View quiet{none, {}, long_latency, occupied};
    const View after{std::vector<bool>(7, true), {}, none, std::vector<bool>(7, true)};
    for (unsigned cycles = 0; cycles < 12; ++cycles) {
        sched::TwoLevelActive<3> selected(timing::SchedulerConfig{7, 0}), hooked(timing::SchedulerConfig{7, 0});
        CHECK(selected.select(quiet) == timing::no_warp);
        CHECK(hooked.select(quiet) == timing::no_warp);
        for (unsigned c = 0; c < cycles; ++c) {
            CHECK(selected.select(quiet) == timing::no_warp);
            hooked.on_quiet_cycle(quiet);
        }
        INFO(cycles << " quiet cycles");
        CHECK(hooked.active_slots() == selected.active_slots());
        CHECK(hooked.pending_slots() == selected.pending_slots());
        CounterVisitor a, b;
        selected.visit_stats(a);
        hooked.visit_stats(b);
        CHECK(b.demotions == a.demotions);
        CHECK(hooked.select(after) == selected.select(after));
        CHECK(hooked.active_slots() == selected.active_slots());
    }
    // The rotation does happen: after the first select, slots 1 and 4 stay active and the third active place cycles
    // through the waiting and empty slots.
    sched::TwoLevelActive<3> s(timing::SchedulerConfig{7, 0});
    s.select(quiet);
    s.on_quiet_cycle(quiet);
    s.on_quiet_cycle(quiet);
    CHECK(s.active_slots().size() == 3);
    CHECK(s.active_slots()[0] == 1);
    CHECK(s.active_slots()[1] == 4);
}

// The SM replays a run of quiet cycles with one on_quiet_cycles call (timing::QuietCyclesHook): it must leave what as
// many on_quiet_cycle calls leave, whether the run starts before or inside the rotation, for short runs and for runs
// of many laps of it.
TEST_CASE("TwoLevelActive's run of quiet cycles equals as many single quiet cycles") {
    std::mt19937_64 rng(7);
    auto next = [&rng](unsigned below) { return static_cast<unsigned>(rng() % below); };
    for (int trial = 0; trial < 300; ++trial) {
        const unsigned slots = 1 + next(12);
        std::vector<bool> long_latency(slots), occupied(slots);
        for (unsigned k = 0; k < slots; ++k) {
            occupied[k] = next(4) != 0;
            long_latency[k] = next(3) != 0; // the others stall on short hazards: not ready, not waiting
        }
        const View quiet{std::vector<bool>(slots, false), {}, long_latency, occupied};
        const std::uint64_t run = trial % 10 == 0 ? 100000 + next(1000) : next(40);
        const unsigned warm_up = next(3); // quiet cycles before the run: it may start inside the rotation
        sched::TwoLevelActive<3> single(timing::SchedulerConfig{slots, 0}), batched(timing::SchedulerConfig{slots, 0});
        CHECK(single.select(quiet) == timing::no_warp);
        CHECK(batched.select(quiet) == timing::no_warp);
        for (unsigned c = 0; c < warm_up; ++c) {
            single.on_quiet_cycle(quiet);
            batched.on_quiet_cycle(quiet);
        }
        for (std::uint64_t c = 0; c < run; ++c) single.on_quiet_cycle(quiet);
        batched.on_quiet_cycles(quiet, run);
        INFO("trial " << trial << ", " << slots << " slots, run of " << run);
        CHECK(batched.active_slots() == single.active_slots());
        CHECK(batched.pending_slots() == single.pending_slots());
        CounterVisitor a, b;
        single.visit_stats(a);
        batched.visit_stats(b);
        CHECK(b.demotions == a.demotions);
        const View after{std::vector<bool>(slots, true), {}, std::vector<bool>(slots, false), occupied};
        CHECK(batched.select(after) == single.select(after));
    }
}

TEST_CASE("TwoLevelActive demotes waiting warps to the back of the pending queue and refills from its front") {
    sched::TwoLevelActive<2> s(timing::SchedulerConfig{5, 0});
    const auto step = [&](std::vector<bool> ready, std::vector<bool> long_latency, std::vector<bool> occupied = {}) {
        const View v{std::move(ready), {}, std::move(long_latency), std::move(occupied)};
        const unsigned w = s.select(v);
        if (w != timing::no_warp) s.on_issue(w, 0);
        return w;
    };
    const std::vector<bool> none(5, false);
    CHECK(step({true, true, true, true, true}, none) == 0); // active [0 1], pending [2 3 4]; rotate to [1 0]
    CHECK(step({true, true, true, true, true}, none) == 1); // rotate to [0 1]
    // Warp 0 waits on a load: demoted behind 4, warp 2 promoted. Active [1 2], pending [3 4 0].
    CHECK(step({false, true, true, true, true}, {true, false, false, false, false}) == 1);
    // Warp 1 waits too: active [2 3], pending [4 0 1].
    CHECK(step({false, false, true, true, true}, {true, true, false, false, false}) == 2);
    // Warps 2 and 3 stall on short hazards: they stay active, and the ready pending warp 4 does not issue.
    {
        const View v{{false, false, false, false, true}, {}, {true, true, false, false, false}, {}};
        CHECK(s.select(v) == timing::no_warp);
        CHECK(s.withholds(v, 4));
        CHECK_FALSE(s.withholds(v, 2));
    }
    // Warp 0's load returned, but it is pending: active warp 2 issues.
    CHECK(step({true, false, true, false, true}, {false, true, false, false, false}) == 2);
    // Warp 3 exits: its empty slot is demoted, and warp 4 is promoted. Active [2 4], pending [0 1 3].
    CHECK(step({true, true, false, false, true}, none, {true, true, true, false, true}) == 4);
    CounterVisitor c;
    s.visit_stats(c);
    CHECK(c.demotions == 2); // warps 0 and 1; the exited warp's slot is not counted
    CHECK(c.withheld == 1);
    CHECK(sched::TwoLevelActive<6>::name == "TwoLevelActive<6>");
}

// The header's contract restated with a plain vector and queue, nothing kept between cycles but the two pools: the
// scheduler (a fixed pool array, a ring for the pending queue, the rotation of quiet cycles) must pick, demote and
// order its pools as this does on random pools, through selects, issues, quiet cycles and runs of them.
TEST_CASE("TwoLevelActive picks and orders its pools as its contract, restated with a vector and a queue, does") {
    struct Reference {
        unsigned active_pool;
        std::vector<unsigned> active;
        std::deque<unsigned> pending;
        std::uint64_t demotions = 0;
        Reference(unsigned pool_size, unsigned active_pool_size) : active_pool(active_pool_size) {
            for (unsigned slot = 0; slot < pool_size; ++slot)
                (active.size() < active_pool ? active.push_back(slot) : pending.push_back(slot));
        }
        void refill(const View& v) {
            std::vector<unsigned> kept;
            for (unsigned slot : active) {
                if (!v.occupied(slot) || v.long_latency_pending(slot)) {
                    pending.push_back(slot);
                    if (v.occupied(slot)) ++demotions;
                } else {
                    kept.push_back(slot);
                }
            }
            active = kept;
            for (; active.size() < active_pool && !pending.empty(); pending.pop_front())
                active.push_back(pending.front());
        }
        unsigned select(const View& v) {
            refill(v);
            for (unsigned slot : active)
                if (v.ready(slot)) return slot;
            return timing::no_warp;
        }
        void on_issue(unsigned slot) {
            const auto at = std::find(active.begin(), active.end(), slot);
            std::rotate(active.begin(), at + 1, active.end());
        }
    };
    test_support::SplitMix rng(35);
    unsigned mask_asks = 0;
    for (int trial = 0; trial < 200; ++trial) {
        const unsigned slots = 1 + static_cast<unsigned>(rng.next() % 20);
        sched::TwoLevelActive<3> scheduler(timing::SchedulerConfig{slots, 0});
        // The same scheduler fed views that offer the waiting slots as a mask (WaitingMaskView), which its select
        // takes instead of asking every active slot: it must pick and order its pools as the one asking does.
        sched::TwoLevelActive<3> masked(timing::SchedulerConfig{slots, 0});
        Reference reference(slots, 3);
        for (int step = 0; step < 60; ++step) {
            View v = test_support::random_pool_view(rng, slots, false);
            const bool quiet = rng.next() % 3 == 0; // no warp ready: the SM may then replay quiet cycles
            if (quiet) v.ready_.assign(slots, false);
            const WaitingMaskView mv{v, &mask_asks};
            INFO("trial " << trial << ", " << slots << " slots, step " << step);
            const unsigned picked = scheduler.select(v);
            REQUIRE(picked == reference.select(v));
            REQUIRE(masked.select(mv) == picked);
            if (picked != timing::no_warp && rng.next() % 4 != 0) {
                scheduler.on_issue(picked, 0);
                masked.on_issue(picked, 0);
                reference.on_issue(picked);
            }
            for (unsigned slot = 0; slot < slots; ++slot)
                CHECK(scheduler.withholds(v, slot) ==
                      (std::find(reference.active.begin(), reference.active.end(), slot) == reference.active.end()));
            if (quiet) { // the cycles after it, while the view holds still: one at a time or as one run
                const std::uint64_t run = rng.next() % 4 == 0 ? 50 + rng.next() % 200 : rng.next() % 5;
                if (rng.next() % 2 == 0) {
                    scheduler.on_quiet_cycles(v, run);
                    masked.on_quiet_cycles(mv, run);
                } else {
                    for (std::uint64_t c = 0; c < run; ++c) {
                        scheduler.on_quiet_cycle(v);
                        masked.on_quiet_cycle(mv);
                    }
                }
                for (std::uint64_t c = 0; c < run; ++c) reference.refill(v);
            }
            REQUIRE(scheduler.active_slots() == reference.active);
            REQUIRE(masked.active_slots() == reference.active);
            const std::vector<unsigned> pending(reference.pending.begin(), reference.pending.end());
            REQUIRE(scheduler.pending_slots() == pending);
            REQUIRE(masked.pending_slots() == pending);
            CounterVisitor counters, masked_counters;
            scheduler.visit_stats(counters);
            masked.visit_stats(masked_counters);
            REQUIRE(counters.demotions == reference.demotions);
            REQUIRE(masked_counters.demotions == reference.demotions);
        }
    }
    CHECK(mask_asks == 200 * 60); // every select of `masked` took the mask
}

TEST_CASE("TwoLevelActive with every warp active and none waiting selects exactly like LRR") {
    sched::LRR lrr(timing::SchedulerConfig{6, 0});
    sched::TwoLevelActive<8> two(timing::SchedulerConfig{6, 0});
    std::uint64_t seed = 3;
    for (int i = 0; i < 500; ++i) {
        View v{{}, {}, {}};
        for (int k = 0; k < 6; ++k) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            v.ready_.push_back((seed >> 33) % 3 == 0);
        }
        const unsigned a = lrr.select(v), b = two.select(v);
        REQUIRE(a == b);
        if (a != timing::no_warp) {
            lrr.on_issue(a, 0);
            two.on_issue(b, 0);
        }
    }
}

TEST_CASE("the RCU keeps entries in increasing offset order and refuses when full") {
    sched::RCU<3> rcu;
    CHECK(rcu.insert(5, 10, 10, false));
    CHECK(rcu.insert(2, 11, 40, false));
    CHECK(rcu.insert(9, 12, 12, true));
    CHECK(rcu.full());
    CHECK_FALSE(rcu.insert(1, 13, 13, false));
    CHECK(rcu[0].offset == 2);
    CHECK(rcu[1].offset == 5);
    CHECK(rcu[2].offset == 9);
    CHECK(rcu.mark_ready(5));
    CHECK_FALSE(rcu.mark_ready(7));
    auto head = rcu.pop_head();
    REQUIRE(head);
    CHECK(head->offset == 2);
    CHECK(head->renamed == 40);
    CHECK(rcu[0].ready);
    CHECK(rcu.size() == 2);
}

TEST_CASE("an RCU of depth 8 is 224 bits per warp (Gong 2020 Sec. 5.5: 8 x 28 bits)") {
    CHECK(sched::RCU<8>::storage_bits == 224);
    CHECK(sched::RCU<8>::storage_bits * 40 == 8960); // 40 warps per SM
}
