// The OCW estimation logic (Wang 2016 Sec. 4.3.1, Fig. 7) fed by hand, and dynamic OAWS's locality/thrashing
// prediction (Sec. 4.3.2).
#include <doctest/doctest.h>

#include <gpuarch/core/stats.hpp>
#include <gpuarch/sched/oaws.hpp>

#include "../sched/memory_view.hpp"

using namespace gpuarch;
using schedtest::divergent;
using schedtest::MemView;

namespace {
sched::OcwCounter wang_counter(sched::OcwCheck check = sched::OcwCheck::before_update) {
    return sched::OcwCounter(2, 48, 2, 128, 255, check); // Wang 2016: OCW in [2, 48] from 2, CNT from 128, Cmax 255
}
} // namespace

TEST_CASE("OCW: fully cached loads count CNT up to Cmax, and the next one raises OCW and resets CNT (Fig. 7 A, B)") {
    auto c = wang_counter();
    CHECK(c.ocw() == 2);
    CHECK(c.cnt() == 128);
    for (int i = 0; i < 127; ++i) c.fully_cached();
    CHECK(c.cnt() == 255);
    CHECK(c.ocw() == 2);
    c.fully_cached();
    CHECK(c.ocw() == 3);
    CHECK(c.cnt() == 0);
    for (int i = 0; i < 255; ++i) c.fully_cached();
    CHECK(c.ocw() == 3);
    c.fully_cached();
    CHECK(c.ocw() == 4); // a further 256 fully cached loads per step
    CHECK(c.increments() == 2);
}

TEST_CASE("OCW: partially cached loads count CNT down by Delta, and at zero OCW falls and CNT resets to Cmax (C, E)") {
    auto c = wang_counter();
    for (int i = 0; i < 128; ++i) c.fully_cached(); // OCW 3, CNT 0
    REQUIRE(c.ocw() == 3);
    c.partially_cached(1); // CNT is 0: OCW 3 -> 2, CNT = Cmax
    CHECK(c.ocw() == 2);
    CHECK(c.cnt() == 255);
    c.partially_cached(1);
    CHECK(c.cnt() == 254);
    c.partially_cached(300); // a Delta beyond CNT stops at zero
    CHECK(c.cnt() == 0);
    CHECK(c.decrements() == 1);
}

TEST_CASE("OCW corner cases (Fig. 7 D): at OCW = 2 a zero CNT stays, at OCW = Wmax a saturated CNT stays") {
    auto low = wang_counter();
    for (int i = 0; i < 128; ++i) low.partially_cached(1);
    CHECK(low.cnt() == 0);
    low.partially_cached(1);
    low.partially_cached(64);
    CHECK(low.ocw() == 2);
    CHECK(low.cnt() == 0);
    low.fully_cached();
    CHECK(low.cnt() == 1);

    sched::OcwCounter high(2, 3, 3, 255, 255, sched::OcwCheck::before_update);
    high.fully_cached();
    high.fully_cached();
    CHECK(high.ocw() == 3);
    CHECK(high.cnt() == 255);
    high.partially_cached(1);
    CHECK(high.cnt() == 254);
}

TEST_CASE("OCW Delta = CNT/2 rounds up, so CNT reaches zero: 128 takes eight partially cached loads") {
    sched::OcwCounter d(2, 48, 4, 128, 255, sched::OcwCheck::before_update);
    std::vector<std::uint32_t> seen;
    while (d.cnt() > 0) {
        d.partially_cached(d.half());
        seen.push_back(d.cnt());
    }
    CHECK(seen == std::vector<std::uint32_t>{64, 32, 16, 8, 4, 2, 1, 0});
    d.partially_cached(d.half());
    CHECK(d.ocw() == 3);
    CHECK(d.cnt() == 255);
}

TEST_CASE("OCW with the tests after the update: the saturating load itself raises OCW") {
    auto c = wang_counter(sched::OcwCheck::after_update);
    for (int i = 0; i < 126; ++i) c.fully_cached();
    CHECK(c.cnt() == 254);
    c.fully_cached(); // reaches Cmax: OCW 3, CNT 0 at once
    CHECK(c.ocw() == 3);
    CHECK(c.cnt() == 0);
    c.partially_cached(1); // CNT stays 0 -> OCW 2, CNT = Cmax at once
    CHECK(c.ocw() == 2);
    CHECK(c.cnt() == 255);
    for (int i = 0; i < 255; ++i) c.partially_cached(1);
    CHECK(c.ocw() == 2); // at the minimum a zero CNT stays
    CHECK(c.cnt() == 0);
}

TEST_CASE("dynamic OAWS: locality warps (age rank below OCW) are predicted 0, thrashing warps active/2 + rank") {
    sched::OAWSDynamic<> s(timing::SchedulerConfig{4, 0});
    schedtest::start(s, 4);
    CHECK(s.ocw().ocw() == 1); // one per scheduler when the SM does not share the state
    CHECK(s.ocw().ocw_max() == 4);
    s.on_memory_issued(0, divergent(7, 32, 32, 1));
    MemView v = MemView::of(4);
    for (unsigned w = 0; w < 4; ++w) v.load(w, 7);
    v.l1_.mshr_free = 0;
    (void)s.select(v);
    CHECK_FALSE(s.withholds(v, 0)); // rank 0 < OCW 1: never excluded, even with no free entry
    CHECK(s.withholds(v, 1));
    v.l1_.mshr_free = 17;
    CHECK_FALSE(s.withholds(v, 1)); // 16 + 1
    v.l1_.mshr_free = 18;
    CHECK(s.withholds(v, 3)); // 16 + 3 > 18
    v.warps[3].lanes = 4;
    CHECK_FALSE(s.withholds(v, 3)); // 2 + 3
    // A thrashing warp's coherent load is predicted 1.
    v.load(2, 9);
    v.l1_.mshr_free = 1;
    CHECK_FALSE(s.withholds(v, 2));
    v.l1_.mshr_free = 0;
    CHECK(s.withholds(v, 2));
}

TEST_CASE("dynamic OAWS: 128 fully cached divergent loads make one more warp a locality warp") {
    sched::OAWSDynamic<> s(timing::SchedulerConfig{4, 0});
    schedtest::start(s, 4);
    for (int i = 0; i < 127; ++i) s.on_memory_issued(0, divergent(7, 32, 32, 0));
    CHECK(s.ocw().cnt() == 255);
    CHECK(s.ocw().ocw() == 1);
    s.on_memory_issued(0, divergent(7, 32, 32, 0));
    CHECK(s.ocw().ocw() == 2);
    MemView v = MemView::of(4);
    for (unsigned w = 0; w < 4; ++w) v.load(w, 7);
    v.l1_.mshr_free = 0;
    (void)s.select(v);
    CHECK_FALSE(s.withholds(v, 1)); // rank 1 < OCW 2
    CHECK(s.withholds(v, 2));
    // Coherent loads do not train OCW.
    for (int i = 0; i < 300; ++i) s.on_memory_issued(0, divergent(9, 1, 1, 1));
    CHECK(s.ocw().ocw() == 2);
}

TEST_CASE("dynamic OAWS picks Delta per load: CNT/2 for associativity-sensitive loads (#acc > 1.5 x #sets), else 1") {
    sched::OAWSDynamic<> s(timing::SchedulerConfig{4, 0});
    schedtest::start(s, 4);
    // pc 7: 32 lines over 32 sets (spread); pc 8: 32 lines over 8 sets (ATAX-like, Wang 2016 Sec. 5.1).
    s.on_memory_issued(0, divergent(7, 32, 32, 3));
    CHECK(s.ocw().cnt() == 127); // Delta 1
    s.on_memory_issued(0, divergent(8, 32, 8, 3));
    CHECK(s.ocw().cnt() == 63); // Delta = ceil(127 / 2) = 64
    CHECK(s.dlc().associativity_sensitive(8));
    CHECK_FALSE(s.dlc().associativity_sensitive(7));
}

TEST_CASE("dynamic OAWS with Delta fixed at 1 ignores associativity") {
    constexpr sched::OawsKnobs knobs = [] {
        sched::OawsKnobs k;
        k.delta = sched::OcwDelta::one;
        k.label = {'O', 'A', 'W', 'S', 'D', 'y', 'n', 'a', 'm', 'i', 'c', '-', 'd', '1'};
        return k;
    }();
    sched::OAWSDynamic<knobs> s(timing::SchedulerConfig{4, 0});
    CHECK(sched::OAWSDynamic<knobs>::name == "OAWSDynamic-d1");
    schedtest::start(s, 4);
    s.on_memory_issued(0, divergent(8, 32, 8, 3));
    s.on_memory_issued(0, divergent(8, 32, 8, 3));
    CHECK(s.ocw().cnt() == 126);
}

TEST_CASE("dynamic OAWS repeats a select that withheld every ready warp only while nothing it reads changed") {
    sched::OAWSDynamic<> s(timing::SchedulerConfig{4, 0});
    schedtest::start(s, 4);
    s.on_memory_issued(0, divergent(7, 32, 32, 1)); // pc 7 is divergent; OCW stays 1
    auto v = schedtest::EpochMemView::of(4);
    for (unsigned w = 0; w < 4; ++w) v.load(w, 7);
    v.l1_.mshr_free = 0;
    v.warps[0].ready = false; // the locality warp (rank 0 < OCW 1) would always qualify
    // Warps 1-3 are thrashing warps predicted 16 + rank: none fits a budget of 0.
    CHECK(s.select(v) == timing::no_warp);
    CHECK(s.withheld_selects_repeated() == 0);
    CHECK(s.select(v) == timing::no_warp);
    CHECK(s.withheld_selects_repeated() == 1);
    core::StatsTable stats;
    stats.collect("", s);
    CHECK(stats.counter("oaws_withheld_cycles") == 2); // a repeated select counts as the first did
    CHECK(stats.counter("oaws_disqualified_warp_cycles") == 6);
    std::uint64_t repeats = 1;
    // Each of what a select reads, changed alone, makes the next select ask again.
    SUBCASE("the ready mask") {
        v.warps[0].ready = true;
        CHECK(s.select(v) == 0u);
    }
    SUBCASE("a head instruction, at a new state epoch") {
        v.compute(2);
        ++v.epoch;
        CHECK(s.select(v) == 2u);
    }
    SUBCASE("the MSHR budget") {
        v.l1_.mshr_free = 17; // warp 1: 16 + 1
        CHECK(s.select(v) == 1u);
    }
    SUBCASE("the OCW (training)") {
        for (int i = 0; i < 129; ++i) s.on_memory_issued(0, divergent(7, 32, 32, 0)); // CNT 127 to 255, then OCW
        REQUIRE(s.ocw().ocw() == 2); // warp 1 is now a locality warp, predicted 0
        CHECK(s.select(v) == 1u);
    }
    SUBCASE("the DLC (cleared at a launch)") {
        v.l1_.mshr_free = 1; // a budget still below every withheld prediction (17): the same select, repeated
        CHECK(s.select(v) == timing::no_warp);
        ++repeats;
        s.on_kernel_launch(); // pc 7 is not in the DLC any more: a coherent load, predicted 1
        CHECK(s.select(v) == 1u);
    }
    SUBCASE("the age ranks") {
        s.on_warp_exit(0);
        v.warps[0].occupied = false; // warp 1 is now the oldest: rank 0, a locality warp
        CHECK(s.select(v) == 1u);
    }
    CHECK(s.withheld_selects_repeated() == repeats);
}
