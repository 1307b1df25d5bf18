// Memory occlusion (Wang 2016 Sec. 2.2, Fig. 1), MSHR merging and release, LSU stall classification.
#include <doctest/doctest.h>

#include <gpuarch/mem/l1.hpp>

#include "mem_test_support.hpp"

using namespace gpuarch::mem;
using memtest::Access;
using memtest::L1Bench;
using memtest::strided;

namespace {

// Lane i of a coherent load reads line + 4i (one 128-byte line).
std::vector<std::uint64_t> one_line(std::uint64_t line) { return strided(line, 4); }
// Lanes 8k..8k+7 read line k of `lines` (4 lines -> 4 coalesced accesses).
std::vector<std::uint64_t> four_lines(const std::uint64_t (&lines)[4]) {
    std::vector<std::uint64_t> a(32);
    for (std::size_t i = 0; i < 32; ++i) a[i] = lines[i / 8] + (i % 8) * 4;
    return a;
}

constexpr std::uint64_t line_h = 0x20000, line_a = 0x10000, line_b = 0x10080, line_c = 0x10100;
constexpr std::uint64_t lines_d[4] = {0x30000, 0x30080, 0x30100, 0x30180};

// Runs the Fig. 1 scenario on an L1 with 4 MSHR entries; returns the bench for inspection.
template <class L1T> void run_figure_1(L1T& l1, L1Bench<L1T>& b, Access& hit_load) {
    Access warm(1, one_line(line_h)), a(2, one_line(line_a)), bb(3, one_line(line_b)), c(4, one_line(line_c));
    Access d(5, four_lines(lines_d));
    REQUIRE(b.step(warm)); // t0: warm-up load of line H accepted
    b.step(); // t1: H misses, MSHR entry 0
    b.respond(b.request_for(line_h), 2);
    REQUIRE(b.step(a)); // t2: H filled (entry 0 free); A accepted
    REQUIRE(b.step(bb)); // t3: A allocates; B accepted
    REQUIRE(b.step(c)); // t4: B allocates: 2 of 4 entries busy (A, B)
    b.step(); // t5: the coherent load C misses and proceeds at once
    CHECK(b.state_at(5) == LsuState::busy);
    CHECK(l1.view().mshr_free == 1);
    b.respond(b.request_for(line_c), 6);
    REQUIRE(b.step(d)); // t6: C's fill returns, C completes; D accepted
    CHECK(b.done_at.at(4) == 6);
    CHECK(l1.view().mshr_free == 2);
    // From t7 on the hit load H2 (line H is resident) is offered every cycle until the LSU takes it.
    bool hit_in = false;
    const auto offer = [&] { hit_in = b.step(hit_in ? nullptr : &hit_load.access) || hit_in; };
    while (b.now < 20) offer(); // t7: D0 takes an entry
    b.respond(b.request_for(line_a), 20); // A's fill returns at t20
    b.respond(b.request_for(line_b), 25); // B's fill returns at t25
    while (b.now < 30) offer();
    b.respond(b.request_for(lines_d[0]), 30);
    b.respond(b.request_for(lines_d[1]), 30);
    b.respond(b.request_for(lines_d[2]), 31);
    b.respond(b.request_for(lines_d[3]), 31);
    b.run_until(33);
}

} // namespace

TEST_CASE("Wang 2016 Fig. 1: a divergent load occludes the LSU until the first fill frees an MSHR entry") {
    using Fig1L1 = L1<MSHR<4>, Sets<32>, Ways<8>, LineBytes<128>, MissQueue<16>, HitLatency<1>, LsuQueue<2>>;
    Fig1L1 l1({}, 0);
    L1Bench<Fig1L1> b(l1);
    Access hit_load(6, one_line(line_h));
    run_figure_1(l1, b, hit_load);

    // The divergent load D (4 lines, 2 free entries): D0 at t7, D1 at t8, then D2 replays until A's fill frees
    // an entry at t20, D3 replays until B's fill at t25.
    for (memtest::Cycle t = 7; t <= 8; ++t) CHECK(b.state_at(t) == LsuState::stalled_coalesce);
    for (memtest::Cycle t = 9; t <= 19; ++t) CHECK(b.state_at(t) == LsuState::stalled_mshr);
    CHECK(b.state_at(20) == LsuState::stalled_coalesce);
    for (memtest::Cycle t = 21; t <= 24; ++t) CHECK(b.state_at(t) == LsuState::stalled_mshr);
    CHECK(b.state_at(25) == LsuState::busy);
    // The requests for D2 and D3 leave exactly when their entries are taken.
    std::map<std::uint64_t, memtest::Cycle> sent_at;
    for (const auto& [t, p] : b.sent) sent_at[p.address] = t;
    CHECK(sent_at.at(lines_d[0]) == 7);
    CHECK(sent_at.at(lines_d[1]) == 8);
    CHECK(sent_at.at(lines_d[2]) == 20);
    CHECK(sent_at.at(lines_d[3]) == 25);

    // The following hit (line H is resident) was accepted at t7 but is served only at t26: occluded 18 cycles.
    CHECK(b.state_at(26) == LsuState::busy);
    REQUIRE(b.done(6));
    CHECK(b.done_at.at(6) == 27);
    CHECK(b.completions.at(6).accepted_at == 7);
    CHECK(b.completions.at(6).occlusion_cycles == 18);
    CHECK(b.completions.at(6).misses == 0);

    // D completes with its last fill; its 15 replay cycles are its occlusion time.
    CHECK(b.done_at.at(5) == 31);
    const Completion& d = b.completions.at(5);
    CHECK(d.lines == 4);
    CHECK(d.sets == 4);
    CHECK_FALSE(d.coherent);
    CHECK(d.misses == 4);
    CHECK(d.occlusion_cycles == 15);

    const auto s = memtest::stats_of(l1);
    CHECK(s.counter("ldst_mshr_cycles") == 15);
    CHECK(s.counter("mshr_full_stall_cycles") == 15);
    CHECK(s.counter("ldst_coal_cycles") == 3);
    CHECK(s.counter("ldst_icnt_cycles") == 0);
    CHECK(s.counter("coherent_loads") == 5);
    CHECK(s.counter("divergent_loads") == 1);
    CHECK(s.counter("fully_cached_coherent_loads") == 1);
    CHECK(s.counter("fully_cached_divergent_loads") == 0);
    CHECK(s.counter("divergent_load_occlusion_cycles") == 15);
    CHECK(s.counter("divergent_load_access_cycles") == 31 - 7 - 15);
    CHECK(l1.idle());
}

TEST_CASE("with a one-instruction LSU the occluded hit cannot even enter until the divergent load leaves") {
    using Fig1L1 = L1<MSHR<4>, MissQueue<16>, LsuQueue<1>>;
    Fig1L1 l1({}, 0);
    L1Bench<Fig1L1> b(l1);
    Access hit_load(6, one_line(line_h));
    run_figure_1(l1, b, hit_load);
    CHECK(b.completions.at(6).accepted_at == 25);
    CHECK(b.done_at.at(6) == 27);
    CHECK(b.completions.at(6).occlusion_cycles == 0);
    CHECK(b.done_at.at(5) == 31);
}

TEST_CASE("MSHR entries merge up to their request cap, replay when full, and release on the fill") {
    using MergeL1 = L1<MSHR<2>, Merges<3>>;
    MergeL1 l1({}, 0);
    L1Bench<MergeL1> b(l1);
    Access w0(10, strided(0x4000, 4)), w1(11, strided(0x4000, 4)), w2(12, strided(0x4000, 4)),
        w3(13, strided(0x4000, 4));
    b.step(w0); // t0
    b.step(w1); // t1: w0 allocates entry 0
    b.step(w2); // t2: w1 merges (2 requests)
    b.step(w3); // t3: w2 merges (3 requests)
    b.step(); // t4: w3 finds the entry full
    b.step(); // t5: replay
    CHECK(b.state_at(1) == LsuState::busy);
    CHECK(b.state_at(2) == LsuState::busy);
    CHECK(b.state_at(3) == LsuState::busy);
    CHECK(b.state_at(4) == LsuState::stalled_mshr);
    CHECK(b.state_at(5) == LsuState::stalled_mshr);
    CHECK(l1.view().mshr_free == 1);
    REQUIRE(b.sent.size() == 1); // one line request for four warps
    b.respond(b.sent[0].second, 6);
    b.run_until(9);
    CHECK(b.done_at.at(10) == 6);
    CHECK(b.done_at.at(11) == 6);
    CHECK(b.done_at.at(12) == 6);
    CHECK(b.done_at.at(13) == 7); // replayed at t6, hits the freshly filled line
    CHECK(b.sent.size() == 1);
    CHECK(l1.view().mshr_free == 2);
    const auto s = memtest::stats_of(l1);
    CHECK(s.counter("misses") == 1);
    CHECK(s.counter("mshr_merges") == 2);
    CHECK(s.counter("hits") == 1);
    CHECK(s.counter("merge_full_stall_cycles") == 2);
    CHECK(s.counter("ldst_mshr_cycles") == 2);
    const auto& per_entry = s.histogram("mshr_requests_per_entry");
    REQUIRE(per_entry.size() == 4);
    CHECK(per_entry[3] == 1);
    CHECK(per_entry[1] == 0);
    CHECK(l1.idle());
}

TEST_CASE("a full miss queue stalls the head access as LDST_ICNT while MSHR entries are free") {
    using SmallQueueL1 = L1<MSHR<8>, MissQueue<1>>;
    SmallQueueL1 l1({}, 0);
    gpuarch::mem::Downstream blocked(1);
    blocked.send(MemPacket{}); // the interconnect port is full and never drains in this test
    Access d(1, four_lines(lines_d));
    l1.cycle(0, blocked);
    l1.accept(d.access, 0);
    l1.cycle(1, blocked); // D0 fills the one-slot miss queue
    CHECK(l1.lsu_state() == LsuState::stalled_coalesce);
    l1.cycle(2, blocked); // D1 has an MSHR but no miss-queue slot
    CHECK(l1.lsu_state() == LsuState::stalled_icnt);
    CHECK(l1.view().mshr_free == 7);
    CHECK(l1.view().miss_queue_free == 0);
    CHECK(l1.view().lsu_blocked);
    blocked.pop(); // the port drains one packet
    l1.cycle(3, blocked); // the head still sees a full queue this cycle, then the queue drains into the port
    CHECK(l1.lsu_state() == LsuState::stalled_icnt);
    l1.cycle(4, blocked);
    CHECK(l1.lsu_state() == LsuState::stalled_coalesce);
    const auto s = memtest::stats_of(l1);
    CHECK(s.counter("ldst_icnt_cycles") == 2);
    CHECK(s.counter("miss_queue_full_cycles") >= 2);
}

TEST_CASE("MSHR occupancy is sampled every cycle into a histogram") {
    using SmallL1 = L1<MSHR<2>>;
    SmallL1 l1({}, 0);
    L1Bench<SmallL1> b(l1);
    Access x(1, strided(0x1000, 4)), y(2, strided(0x2000, 4));
    b.step(x); // t0: 0 busy
    b.step(y); // t1: 1 busy
    b.step(); // t2: 2 busy
    b.step(); // t3: 2 busy
    const auto s = memtest::stats_of(l1);
    const auto& h = s.histogram("mshr_occupancy");
    REQUIRE(h.size() == 3);
    CHECK(h[0] == 1);
    CHECK(h[1] == 1);
    CHECK(h[2] == 2);
    CHECK(s.counter("mshr_full_cycles") == 2);
}
