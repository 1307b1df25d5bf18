// The Divergent Load Classifier (Wang 2016 Sec. 4.2, 4.4).
#include <doctest/doctest.h>

#include <gpuarch/sched/divergent_load_classifier.hpp>
#include <gpuarch/sched/oaws.hpp>

#include "../sched/memory_view.hpp"

using namespace gpuarch;

TEST_CASE("the DLC inserts a divergent PC with #inst 1 and accumulates #inst, #acc and #sets on later loads") {
    sched::DivergentLoadClassifier<32> dlc;
    CHECK_FALSE(dlc.contains(5));
    CHECK(dlc.record(5, 32, 8));
    const auto* e = dlc.find(5);
    REQUIRE(e != nullptr);
    CHECK(e->inst == 1);
    CHECK(e->acc == 32);
    CHECK(e->sets == 8);
    dlc.record(5, 16, 16);
    CHECK(e->inst == 2);
    CHECK(e->acc == 48);
    CHECK(e->sets == 24);
    CHECK(dlc.size() == 1); // no duplicate records of one PC
}

TEST_CASE("the DLC halves #inst, #acc and #sets together when a 10-bit field would overflow, keeping #acc/#sets") {
    sched::DivergentLoadClassifier<4> dlc(sched::DlcEviction::zero_inst, 0);
    for (int i = 0; i < 31; ++i) dlc.record(1, 32, 8); // #acc 992
    const auto* e = dlc.find(1);
    CHECK(e->acc == 992);
    dlc.record(1, 32, 8); // 1024 > 1023: halve, then add
    CHECK(e->acc == 496 + 32);
    CHECK(e->sets == 124 + 8);
    CHECK(e->inst == 16 + 1);
    CHECK(dlc.associativity_sensitive(1)); // 528 > 1.5 x 132
}

TEST_CASE("a full DLC evicts an entry whose #inst decayed to 0, and otherwise leaves the new PC out") {
    sched::DivergentLoadClassifier<2> dlc(sched::DlcEviction::zero_inst, 0);
    dlc.record(1, 32, 8);
    dlc.record(2, 32, 8);
    CHECK_FALSE(dlc.record(3, 32, 8)); // both entries live: rejected
    CHECK_FALSE(dlc.contains(3));
    dlc.decay(); // #inst of both: 1 -> 0
    CHECK(dlc.record(3, 32, 8));
    CHECK(dlc.contains(3));
    CHECK_FALSE(dlc.contains(1)); // the lowest-index zero entry went
    CHECK(dlc.contains(2));
    core::StatsTable t;
    t.collect("", dlc);
    CHECK(t.counter("dlc_rejections") == 1);
    CHECK(t.counter("dlc_evictions") == 1);
}

TEST_CASE("the DLC decays every #inst once per decay period of recorded loads") {
    sched::DivergentLoadClassifier<4> dlc(sched::DlcEviction::zero_inst, 4);
    dlc.record(1, 32, 8);
    dlc.record(1, 32, 8);
    dlc.record(1, 32, 8);
    CHECK(dlc.find(1)->inst == 3);
    dlc.record(1, 32, 8); // the 4th record decays first (3 -> 2), then counts (3)
    CHECK(dlc.find(1)->inst == 3);
}

TEST_CASE("an LRU DLC evicts the least recently recorded PC") {
    sched::DivergentLoadClassifier<2> dlc(sched::DlcEviction::lru, 0);
    dlc.record(1, 32, 8);
    dlc.record(2, 32, 8);
    dlc.record(1, 32, 8);
    CHECK(dlc.record(3, 32, 8));
    CHECK(dlc.contains(1));
    CHECK_FALSE(dlc.contains(2));
}

TEST_CASE("OAWS clears its DLC at a kernel launch") {
    sched::OAWSStatic<50> s(timing::SchedulerConfig{2, 0});
    s.on_kernel_launch();
    schedtest::start(s, 2);
    s.on_memory_issued(0, schedtest::divergent(3, 32, 8, 32));
    CHECK(s.dlc().contains(3));
    // Every warp exits and a new launch starts: with the launch notification the warp start does not clear again.
    s.on_warp_exit(0);
    s.on_warp_exit(1);
    s.on_warp_start(0);
    CHECK(s.dlc().contains(3));
    s.on_kernel_launch();
    CHECK_FALSE(s.dlc().contains(3));
}

TEST_CASE("without launch notifications OAWS clears its DLC when a warp starts after every warp had exited") {
    sched::OAWSStatic<50> s(timing::SchedulerConfig{2, 0});
    schedtest::start(s, 2);
    s.on_memory_issued(0, schedtest::divergent(3, 32, 8, 32));
    s.on_warp_exit(0);
    s.on_warp_start(0); // warp 1 still lives: same launch
    CHECK(s.dlc().contains(3));
    s.on_warp_exit(0);
    s.on_warp_exit(1);
    s.on_warp_start(1);
    CHECK_FALSE(s.dlc().contains(3));
}

// find() answers from a compact copy of the valid entries' PCs (OAWS asks it for every ready warp in every cycle):
// on random records, evictions, decays and clears it must name exactly the valid entry of the table that holds the
// PC, for both eviction policies and a small table that fills.
TEST_CASE("the DLC finds exactly the valid entry that holds a PC, through evictions, decays and clears") {
    for (const auto eviction : {sched::DlcEviction::zero_inst, sched::DlcEviction::lru}) {
        sched::DivergentLoadClassifier<4> dlc(eviction, 3);
        std::uint32_t state = 12345;
        auto next = [&state] { return state = state * 1103515245U + 12345U; };
        unsigned hits = 0;
        for (int step = 0; step < 20000; ++step) {
            const ir::Pc pc = (next() >> 8) % 9;
            if ((next() >> 8) % 500 == 0) dlc.clear();
            else dlc.record(pc, 1 + (next() >> 8) % 40, 1 + (next() >> 8) % 8);
            for (ir::Pc probe = 0; probe < 10; ++probe) {
                const sched::DivergentLoadClassifier<4>::Entry* expected = nullptr;
                for (const auto& e : dlc.table())
                    if (e.valid && e.pc == probe) {
                        expected = &e;
                        break;
                    }
                REQUIRE(dlc.find(probe) == expected);
                CHECK(dlc.contains(probe) == (expected != nullptr));
                hits += expected != nullptr ? 1U : 0U;
            }
            CHECK_FALSE(dlc.contains(ir::no_pc));
        }
        CHECK(hits > 10000);
    }
}
