// What the L1 tells schedulers (LSU exits for OAWS, locality events for CCWS) and MASCAR's re-execution queue.
#include <doctest/doctest.h>

#include <gpuarch/mem/l1.hpp>

#include "mem_test_support.hpp"

#include <map>
#include <tuple>
#include <vector>

using namespace gpuarch::mem;
using gpuarch::timing::LocalityEvent;
using memtest::Access;
using memtest::Cycle;
using memtest::strided;

namespace {

// L1Bench that also drains the scheduler feedback after every cycle, as the SM does.
template <class L1T> struct FeedbackBench : memtest::L1Bench<L1T> {
    using Base = memtest::L1Bench<L1T>;
    std::map<std::uint64_t, Cycle> issued_at;
    std::map<std::uint64_t, Completion> issued;
    std::vector<std::tuple<Cycle, std::uint32_t, LocalityEvent::Kind, std::uint64_t>> events;

    explicit FeedbackBench(L1T& l) : Base(l) {}
    bool step(const WarpAccess* a = nullptr) {
        const Cycle t = this->now;
        const bool accepted = Base::step(a);
        this->l1.drain_issued([&](const Completion& c) {
            issued_at[c.token] = t;
            issued[c.token] = c;
        });
        this->l1.drain_locality_events(
            [&](std::uint32_t warp, const LocalityEvent& e) { events.emplace_back(t, warp, e.kind, e.line); });
        return accepted;
    }
    bool step(const Access& a) { return step(&a.access); }
    void run_until(Cycle t) {
        while (this->now < t) step();
    }
};

std::vector<std::uint64_t> one_line(std::uint64_t line) { return strided(line, 4); }
// Lanes 8k..8k+7 read line k.
std::vector<std::uint64_t> lines_of(std::initializer_list<std::uint64_t> lines) {
    std::vector<std::uint64_t> out;
    for (std::uint64_t l : lines)
        for (int i = 0; i < 8; ++i) out.push_back(l + 4 * i);
    return out;
}

} // namespace

TEST_CASE("the L1 reports a miss to the warp that missed and a replaced line to the warp whose miss brought it in") {
    using OneLineL1 = L1<MSHR<4>, Sets<1>, Ways<1>, LineBytes<128>, MissQueue<16>>;
    OneLineL1 l1({}, 0);
    FeedbackBench<OneLineL1> b(l1);
    Access a(1, one_line(0x1000), gpuarch::ir::StateSpace::global, WarpAccess::load, 4, 3);
    Access c(2, one_line(0x2000), gpuarch::ir::StateSpace::global, WarpAccess::load, 4, 5);
    Access hit(3, one_line(0x2000), gpuarch::ir::StateSpace::global, WarpAccess::load, 4, 7);
    REQUIRE(b.step(a)); // t0
    b.step(); // t1: warp 3 misses on 0x1000
    b.respond(b.request_for(0x1000), 2);
    REQUIRE(b.step(c)); // t2: the fill installs 0x1000 (nothing replaced)
    b.step(); // t3: warp 5 misses on 0x2000
    b.respond(b.request_for(0x2000), 4);
    REQUIRE(b.step(hit)); // t4: the fill of 0x2000 replaces 0x1000, which warp 3 brought in
    b.run_until(7); // t5: warp 7 hits: no event
    using E = std::tuple<Cycle, std::uint32_t, LocalityEvent::Kind, std::uint64_t>;
    CHECK(b.events == std::vector<E>{E{1, 3, LocalityEvent::miss, 0x1000}, E{3, 5, LocalityEvent::miss, 0x2000},
                                     E{4, 3, LocalityEvent::eviction, 0x1000}});
}

TEST_CASE("the L1 reports a load's exit from the LSU when its last access is served, before its data returns") {
    using SmallL1 = L1<MSHR<8>, MissQueue<16>>;
    SmallL1 l1({}, 0);
    FeedbackBench<SmallL1> b(l1);
    Access d(5, lines_of({0x30000, 0x30080, 0x30100}));
    REQUIRE(b.step(d)); // t0
    b.run_until(4); // t1..t3: one access per cycle
    CHECK(b.issued_at.at(5) == 3);
    CHECK(b.issued.at(5).misses == 3);
    CHECK(b.issued.at(5).lines == 3);
    CHECK_FALSE(b.done(5));
    for (std::uint64_t line : {0x30000, 0x30080, 0x30100}) b.respond(b.request_for(line), 10);
    b.run_until(12);
    CHECK(b.done_at.at(5) == 10);
}

TEST_CASE("an undrained report is kept through one cycle and dropped at the next") {
    using SmallL1 = L1<MSHR<8>, MissQueue<16>>;
    SmallL1 l1({}, 0);
    memtest::L1Bench<SmallL1> b(l1); // never drains the feedback
    Access d(5, one_line(0x30000));
    REQUIRE(b.step(d)); // t0
    b.step(); // t1: miss event, exit report
    b.step(); // t2: kept
    int events = 0, exits = 0;
    l1.drain_locality_events([&](std::uint32_t, const LocalityEvent&) { ++events; });
    l1.drain_issued([&](const Completion&) { ++exits; });
    CHECK(events == 1);
    CHECK(exits == 1);
    Access e(6, one_line(0x40000));
    REQUIRE(b.step(e)); // t3
    b.step(); // t4: a new miss and exit
    b.step(); // t5
    b.step(); // t6: dropped
    events = exits = 0;
    l1.drain_locality_events([&](std::uint32_t, const LocalityEvent&) { ++events; });
    l1.drain_issued([&](const Completion&) { ++exits; });
    CHECK(events == 0);
    CHECK(exits == 0);
}

TEST_CASE("with a re-execution queue a stalled load steps aside and the hit behind it is served at once") {
    using ReexecL1 = L1<MSHR<2>, MissQueue<16>, LsuQueue<2>, ReexecutionQueue<8>>;
    static_assert(ReexecL1::reexecution_entries == 8);
    ReexecL1 l1({}, 0);
    FeedbackBench<ReexecL1> b(l1);
    Access warm(1, one_line(0x20000));
    Access d(5, lines_of({0x30000, 0x30080, 0x30100, 0x30180}), gpuarch::ir::StateSpace::global, WarpAccess::load, 4,
             0);
    Access h(6, one_line(0x20000), gpuarch::ir::StateSpace::global, WarpAccess::load, 4, 1);
    REQUIRE(b.step(warm)); // t0
    b.step(); // t1: line H misses
    b.respond(b.request_for(0x20000), 2);
    REQUIRE(b.step(d)); // t2: H filled; D accepted
    REQUIRE(b.step(h)); // t3: D0 takes entry 0; the hit load H2 enters the LSU behind D
    b.step(); // t4: D1 takes entry 1
    b.step(); // t5: D2 finds no entry: D2 and D3 move to the re-execution queue
    CHECK(b.state_at(5) == LsuState::stalled_mshr);
    b.step(); // t6: the queue waits (no entry free); the LSU serves the hit
    CHECK(b.state_at(6) == LsuState::busy);
    b.run_until(10);
    CHECK(b.done_at.at(6) == 7); // not occluded by D
    CHECK_FALSE(b.issued_at.count(5));
    b.respond(b.request_for(0x30000), 10);
    b.step(); // t10: the fill frees entry 0; D2 takes it from the queue
    b.step(); // t11: the queue waits again
    b.respond(b.request_for(0x30080), 12);
    b.run_until(14); // t12: D3 takes entry 1: D's last access is served
    CHECK(b.issued_at.at(5) == 12);
    CHECK(b.issued.at(5).misses == 4);
    b.respond(b.request_for(0x30100), 20);
    b.respond(b.request_for(0x30180), 20);
    b.run_until(22);
    CHECK(b.done_at.at(5) == 20);
    const auto s = memtest::stats_of(l1);
    CHECK(s.counter("reexec_loads") == 1);
    CHECK(s.counter("reexec_accesses") == 2);
    CHECK(s.counter("reexec_replay_cycles") == 5); // t6..t9 and t11
    CHECK(s.counter("ldst_mshr_cycles") == 1); // only t5: the LSU did not replay
    CHECK(l1.idle());
}

TEST_CASE("the re-execution queue holds one instruction per warp: that warp's next stalled load stays in the LSU") {
    using ReexecL1 = L1<MSHR<2>, MissQueue<16>, LsuQueue<2>, ReexecutionQueue<8>>;
    ReexecL1 l1({}, 0);
    FeedbackBench<ReexecL1> b(l1);
    Access d(5, lines_of({0x30000, 0x30080, 0x30100}), gpuarch::ir::StateSpace::global, WarpAccess::load, 4, 0);
    Access e(6, lines_of({0x40000, 0x40080, 0x40100}), gpuarch::ir::StateSpace::global, WarpAccess::load, 4, 0);
    REQUIRE(b.step(d)); // t0
    REQUIRE(b.step(e)); // t1: D0
    b.step(); // t2: D1
    b.step(); // t3: D2 stalls: to the queue
    b.step(); // t4: E0 stalls; warp 0 already has D queued: E replays in the LSU
    CHECK(b.state_at(4) == LsuState::stalled_mshr);
    const auto s = memtest::stats_of(l1);
    CHECK(s.counter("reexec_loads") == 1);
    CHECK(s.counter("reexec_full_cycles") == 1);
}

TEST_CASE("a warp whose load has left the re-execution queue may send its next stalled load there") {
    using ReexecL1 = L1<MSHR<2>, MissQueue<16>, LsuQueue<2>, ReexecutionQueue<8>>;
    ReexecL1 l1({}, 0);
    FeedbackBench<ReexecL1> b(l1);
    Access d(5, lines_of({0x30000, 0x30080, 0x30100, 0x30180}), gpuarch::ir::StateSpace::global, WarpAccess::load, 4,
             0);
    Access e(6, lines_of({0x40000, 0x40080}), gpuarch::ir::StateSpace::global, WarpAccess::load, 4, 0);
    REQUIRE(b.step(d)); // t0
    b.step(); // t1: D0
    b.step(); // t2: D1
    b.step(); // t3: D2 stalls: D2 and D3 to the queue
    b.respond(b.request_for(0x30000), 4);
    b.run_until(6); // t4: the fill frees entry 0 and D2 takes it from the queue; t5: D3 waits there
    CHECK(memtest::stats_of(l1).counter("reexec_accesses") == 1);
    REQUIRE(b.step(e)); // t6
    b.run_until(9); // t7, t8: E0 finds no entry; warp 0 still has D3 queued: E replays in the LSU
    CHECK(memtest::stats_of(l1).counter("reexec_loads") == 1);
    CHECK(memtest::stats_of(l1).counter("reexec_full_cycles") == 2);
    b.respond(b.request_for(0x30080), 9);
    b.run_until(12); // t9: D3 takes the freed entry, the queue is empty; t10: E0 finds no entry and steps aside
    const auto s = memtest::stats_of(l1);
    CHECK(s.counter("reexec_accesses") == 2);
    CHECK(s.counter("reexec_loads") == 2);
    CHECK(s.counter("reexec_full_cycles") == 2);
}

TEST_CASE("an L1 without a re-execution queue keeps replaying in the LSU and reports no queue statistics") {
    using PlainL1 = L1<MSHR<2>, MissQueue<16>>;
    static_assert(PlainL1::reexecution_entries == 0);
    PlainL1 l1({}, 0);
    const auto s = memtest::stats_of(l1);
    CHECK_FALSE(s.contains("reexec_loads"));
    CHECK(PlainL1::name == "L1<MSHR<2>,MissQueue<16>>");
}
