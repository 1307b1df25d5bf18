// L1 data cache behaviour: allocation policies (Wang 2016 Sec. 5, Fig. 14), LRU hit/miss sequences against a
// reference model, write-evict stores, shared-memory bank conflicts and the constant cache.
#include <list>
#include <map>
#include <random>

#include <doctest/doctest.h>

#include <gpuarch/mem/l1.hpp>

#include "mem_test_support.hpp"

using namespace gpuarch::mem;
using gpuarch::ir::StateSpace;
using memtest::Access;
using memtest::L1Bench;
using memtest::strided;

namespace {

// Loads `line` with one lane and returns the fill at the next cycle, so the line becomes resident.
template <class B> void load_and_fill(B& b, std::uint64_t token, std::uint64_t line) {
    Access a(token, {line});
    b.step(a);
    b.step();
    if (!b.done(token)) {
        b.respond(b.request_for(line), b.now);
        b.step();
    }
    REQUIRE(b.done(token));
}

} // namespace

TEST_CASE("allocate-on-fill keeps the victim line usable until the fill; allocate-on-miss evicts it at the miss") {
    // One set of two ways: lines X and Y resident (X least recently used), then a miss to Z is outstanding.
    constexpr std::uint64_t x = 0, y = 128, z = 256;
    SUBCASE("allocate-on-fill") {
        using OnFill = L1<Sets<1>, Ways<2>, MSHR<4>, AllocOnFill>;
        OnFill l1({}, 0);
        L1Bench<OnFill> b(l1);
        load_and_fill(b, 1, x);
        load_and_fill(b, 2, y);
        Access miss_z(3, {z}), load_x(4, {x});
        b.step(miss_z);
        b.step(load_x); // Z misses
        b.step(); // X still hits: its way was not taken by Z's miss
        b.step();
        CHECK(b.done(4));
        CHECK(b.completions.at(4).misses == 0);
        // At Z's fill the LRU line (Y: X was just touched) is replaced.
        b.respond(b.request_for(z), b.now);
        b.step();
        CHECK(l1.tags().probe(z).state == LineState::valid);
        CHECK(l1.tags().probe(x).state == LineState::valid);
        CHECK(l1.tags().probe(y).state == LineState::invalid);
    }
    SUBCASE("allocate-on-miss") {
        using OnMiss = L1<Sets<1>, Ways<2>, MSHR<4>, AllocOnMiss>;
        OnMiss l1({}, 0);
        L1Bench<OnMiss> b(l1);
        load_and_fill(b, 1, x);
        load_and_fill(b, 2, y);
        Access miss_z(3, {z}), load_x(4, {x});
        b.step(miss_z);
        b.step(load_x); // Z misses and reserves X's way (LRU) at once
        CHECK(l1.tags().probe(z).state == LineState::reserved);
        CHECK(l1.tags().probe(x).state == LineState::invalid);
        b.step(); // X misses now, and reserves Y's way
        b.step();
        CHECK_FALSE(b.done(4));
        CHECK(l1.tags().probe(y).state == LineState::invalid);
        const auto s = memtest::stats_of(l1);
        CHECK(s.counter("misses") == 4);
    }
}

TEST_CASE("allocate-on-miss reservations block further misses to a set even with free MSHR entries") {
    constexpr std::uint64_t z = 256, w = 384, v = 512;
    SUBCASE("allocate-on-miss: the third miss to a 2-way set replays (reservation failure)") {
        using OnMiss = L1<Sets<1>, Ways<2>, MSHR<8>, AllocOnMiss>;
        OnMiss l1({}, 0);
        L1Bench<OnMiss> b(l1);
        Access mz(1, {z}), mw(2, {w}), mv(3, {v});
        b.step(mz);
        b.step(mw);
        b.step(mv);
        b.step(); // v: both ways reserved
        b.step();
        CHECK(b.state_at(3) == LsuState::stalled_mshr);
        CHECK(b.state_at(4) == LsuState::stalled_mshr);
        CHECK(l1.view().mshr_free == 6);
        CHECK(memtest::stats_of(l1).counter("reservation_fail_cycles") == 2);
        b.respond(b.request_for(z), b.now); // a fill frees a way
        b.step();
        CHECK(b.state_at(5) == LsuState::busy);
    }
    SUBCASE("a stalled load is retried until a fill to its own set, whatever else changes") {
        // The L1 reuses a stalled load's outcome while its set, and what the stall reads of the MSHRs, are unchanged.
        // A fill to another set releases an MSHR entry but does not change the answer (nor, for this stall, the
        // memo); only the fill to its own set frees a way.
        using TwoSets = L1<Sets<2>, Ways<1>, MSHR<8>, AllocOnMiss, LinearIndex>;
        constexpr std::uint64_t a = 0, c = 128, b = 256; // a and b map to set 0, c to set 1
        TwoSets l1({}, 0);
        L1Bench<TwoSets> bench(l1);
        Access mc(1, {c}), ma(2, {a}), mb(3, {b});
        bench.step(mc);
        bench.step(ma);
        bench.step(mb); // b: set 0's only way is reserved for a
        const auto fails = [&] { return memtest::stats_of(l1).counter("reservation_fail_cycles"); };
        bench.step();
        const auto before_other_fill = fails();
        CHECK(before_other_fill >= 1);
        bench.respond(bench.request_for(c), bench.now); // set 1 fills: the MSHRs change, set 0 does not
        bench.step();
        bench.step();
        CHECK(fails() == before_other_fill + 2);
        CHECK(l1.tags().probe(c).state == LineState::valid);
        CHECK(l1.tags().probe(b).state == LineState::invalid);
        bench.respond(bench.request_for(a), bench.now); // set 0 fills: its way can be reserved again
        bench.step();
        CHECK(fails() == before_other_fill + 2);
        CHECK(l1.tags().probe(b).state == LineState::reserved);
    }
    SUBCASE("allocate-on-fill: the same misses all proceed") {
        using OnFill = L1<Sets<1>, Ways<2>, MSHR<8>, AllocOnFill>;
        OnFill l1({}, 0);
        L1Bench<OnFill> b(l1);
        Access mz(1, {z}), mw(2, {w}), mv(3, {v});
        b.step(mz);
        b.step(mw);
        b.step(mv);
        b.step();
        CHECK(b.state_at(3) == LsuState::busy);
        CHECK(l1.view().mshr_free == 5);
        CHECK(memtest::stats_of(l1).counter("reservation_fail_cycles") == 0);
    }
}

namespace {

// Reference: a map from set to lines in LRU order (front = most recent).
struct ReferenceLru {
    std::uint32_t ways;
    std::map<std::uint32_t, std::list<std::uint64_t>> sets;
    bool load(std::uint32_t set, std::uint64_t line) {
        auto& l = sets[set];
        for (auto it = l.begin(); it != l.end(); ++it) {
            if (*it == line) {
                l.erase(it);
                l.push_front(line);
                return true;
            }
        }
        l.push_front(line);
        if (l.size() > ways) l.pop_back();
        return false;
    }
    void store(std::uint32_t set, std::uint64_t line) { sets[set].remove(line); }
};

// Independent rendering of the Fermi set hash for 32 sets and 128-byte lines (GPGPU-Sim 3.x).
std::uint32_t fermi_set(std::uint64_t a) {
    std::uint32_t set = 0;
    const int upper[5] = {13, 14, 15, 17, 19};
    for (int i = 0; i < 5; ++i) {
        const std::uint64_t lower = (a >> (7 + i)) & 1;
        const std::uint64_t up = (a >> upper[i]) & 1;
        set |= static_cast<std::uint32_t>((lower ^ up) << i);
    }
    return set;
}

template <class L1T, class SetFn>
void check_against_reference(std::uint32_t ways, std::uint64_t span_lines, std::uint64_t line_stride, SetFn set_of,
                             std::uint32_t seed) {
    L1T l1({}, 0);
    L1Bench<L1T> b(l1);
    ReferenceLru ref{ways, {}};
    std::mt19937 rng(seed);
    std::uniform_int_distribution<std::uint64_t> pick(0, span_lines - 1);
    std::uniform_int_distribution<int> kind(0, 99);
    std::uint64_t hits_before = 0;
    for (std::uint64_t token = 1; token <= 3000; ++token) {
        const std::uint64_t line = pick(rng) * line_stride;
        const bool store = kind(rng) < 15;
        Access a(token, {line + 4 * (token % 32)}, StateSpace::global, store ? WarpAccess::store : WarpAccess::load);
        REQUIRE(b.step(a));
        b.step();
        b.step(); // a hit completes after the 1-cycle hit latency
        if (!b.done(token)) {
            b.respond(b.request_for(line), b.now);
            b.step();
        }
        REQUIRE(b.done(token));
        const std::uint64_t hits = memtest::stats_of(l1).counter("hits");
        if (store) {
            ref.store(set_of(line), line);
            CHECK(hits == hits_before);
        } else {
            const bool expected_hit = ref.load(set_of(line), line);
            INFO("token " << token << " line " << line);
            CHECK((hits == hits_before + 1) == expected_hit);
        }
        hits_before = hits;
    }
    // The trace exercises both outcomes (a model that always misses would not pass).
    const auto s = memtest::stats_of(l1);
    CHECK(s.counter("hits") > 300);
    CHECK(s.counter("misses") > 300);
}

} // namespace

TEST_CASE("L1 hits and misses match a map-based LRU model on a random trace (linear index)") {
    using Small = L1<Sets<4>, Ways<2>, MSHR<4>, AllocOnFill, LinearIndex>;
    check_against_reference<Small>(
        2, 24, 128, [](std::uint64_t line) { return static_cast<std::uint32_t>((line / 128) % 4); }, 12345);
}

TEST_CASE("L1 hits and misses match a map-based LRU model on a random trace (Fermi hashed index)") {
    using Hashed = L1<Sets<32>, Ways<2>, MSHR<4>, AllocOnFill, HashedIndex>;
    // 128 lines 33 lines apart, so the hash's upper bits (13-19) vary.
    check_against_reference<Hashed>(2, 128, 33 * 128, fermi_set, 777);
}

// Wang 2016 Sec. 5: with the Fermi hash, "each divergent load in ATAX generates 32 requests that are constantly
// mapped into 8 out of the 32 sets"; a column walk over 4 KB rows (1024 floats) does exactly that.
TEST_CASE("the Fermi hash maps a 4 KB column walk to 8 of 32 sets where linear indexing uses one") {
    const CacheGeometry linear{32, 8, 128, SetIndexing::linear};
    const CacheGeometry hashed{32, 8, 128, SetIndexing::fermi_hash};
    std::map<std::uint32_t, int> linear_sets, hashed_sets;
    for (std::uint64_t i = 0; i < 32; ++i) {
        ++linear_sets[linear.set_of(i * 4096)];
        ++hashed_sets[hashed.set_of(i * 4096)];
        CHECK(hashed.set_of(i * 4096) == fermi_set(i * 4096));
    }
    CHECK(linear_sets.size() == 1);
    CHECK(hashed_sets.size() == 8);
    CHECK_THROWS_AS(CacheGeometry({48, 8, 128, SetIndexing::fermi_hash}).validate("x"), gpuarch::Error);
}

TEST_CASE("global stores write through, evict a hit line and use no MSHR; local stores keep the line") {
    using Plain = L1<MSHR<2>>;
    Plain l1({}, 0);
    L1Bench<Plain> b(l1);
    load_and_fill(b, 1, 0x1000);
    load_and_fill(b, 2, 0x2000);
    Access st_global(3, strided(0x1000, 4), StateSpace::global, WarpAccess::store);
    Access st_local(4, strided(0x2000, 4, 8), StateSpace::local, WarpAccess::store);
    b.step(st_global);
    b.step(st_local);
    b.step();
    CHECK(b.done(3));
    CHECK(b.done(4));
    CHECK(l1.tags().probe(0x1000).state == LineState::invalid);
    CHECK(l1.tags().probe(0x2000).state == LineState::valid);
    CHECK(l1.view().mshr_free == 2);
    // Write packets carry the bytes of the sectors written: 128 B for a full warp, 32 B for 8 lanes.
    std::vector<MemPacket> writes;
    for (const auto& [t, p] : b.sent)
        if (p.kind == MemPacket::write) writes.push_back(p);
    REQUIRE(writes.size() == 2);
    CHECK(writes[0].bytes == 128);
    CHECK(writes[1].bytes == 32);
    CHECK(l1.outstanding_writes() == 2);
    for (const auto& w : writes) b.respond(w, b.now);
    b.step();
    CHECK(l1.outstanding_writes() == 0);
    CHECK(memtest::stats_of(l1).counter("write_evictions") == 1);
}

TEST_CASE("global atomics evict the line, go to the L2 and complete with their responses") {
    using Plain = L1<>;
    Plain l1({}, 0);
    L1Bench<Plain> b(l1);
    load_and_fill(b, 1, 0x3000);
    Access atom(2, std::vector<std::uint64_t>(32, 0x3000), StateSpace::global, WarpAccess::atomic);
    b.step(atom);
    b.step();
    CHECK(l1.tags().probe(0x3000).state == LineState::invalid);
    const MemPacket req = b.request_for(0x3000);
    CHECK(req.kind == MemPacket::atomic);
    CHECK(req.lanes == 32);
    // 32 lanes on one word: the packet carries the one 32-byte sector they touch (lanes x 4 bytes would exceed a
    // 64-byte line on Southern Islands and cross it).
    CHECK(req.bytes == 32);
    CHECK_FALSE(b.done(2));
    b.respond(req, b.now + 5);
    b.run_until(b.now + 6);
    CHECK(b.done(2));
}

TEST_CASE("loads that bypass the L1 go down as 32-byte sector requests") {
    using Bypass = L1<BypassL1ForGlobalLoads>;
    Bypass l1({}, 0);
    L1Bench<Bypass> b(l1);
    Access unit(1, strided(0x8000, 4));
    b.step(unit);
    for (int i = 0; i < 4; ++i) b.step();
    REQUIRE(b.sent.size() == 4);
    for (const auto& [t, p] : b.sent) {
        CHECK(p.bytes == 32);
        b.respond(p, b.now);
    }
    CHECK(l1.view().mshr_free == l1.view().mshr_total);
    b.step();
    CHECK(b.done(1));
    CHECK(l1.tags().probe(0x8000).state == LineState::invalid); // nothing was allocated
}

TEST_CASE("shared-memory conflict degrees for strided patterns") {
    SharedMemoryBanks fermi{}; // 32 banks x 4 B, a warp per cycle
    SharedMemoryBanks half{SharedMemoryConfig{16, 4, 16, 1}}; // compute capability 1.x: 16 banks per half-warp
    const auto degree = [](SharedMemoryBanks& banks, std::vector<std::uint64_t> addrs, std::uint32_t bytes = 4) {
        Access a(1, std::move(addrs), StateSpace::shared, WarpAccess::load, bytes);
        return banks.conflict_cycles(a.access);
    };
    CHECK(degree(fermi, strided(0, 4)) == 1); // stride 1 word
    CHECK(degree(fermi, strided(0, 8)) == 2); // stride 2 words: 2-way conflict
    CHECK(degree(fermi, strided(0, 12)) == 1); // odd stride: conflict free
    CHECK(degree(fermi, strided(0, 128)) == 32); // stride 32 words: every lane in bank 0
    CHECK(degree(fermi, std::vector<std::uint64_t>(32, 0x40)) == 1); // broadcast
    CHECK(degree(fermi, strided(0, 8), 8) == 2); // 64-bit words: two bank cycles
    CHECK(degree(half, strided(0, 4)) == 2); // two half-warps, conflict free each
    CHECK(degree(half, strided(0, 8)) == 4); // 2-way conflict in each half-warp
    CHECK(degree(half, strided(0, 64)) == 32); // stride 16 words: 16-way per half-warp
}

TEST_CASE("a shared access holds the LSU for its conflict degree") {
    using Plain = L1<>;
    Plain l1({}, 0);
    L1Bench<Plain> b(l1);
    Access conflict(1, strided(0, 128), StateSpace::shared);
    Access next(2, strided(0, 4), StateSpace::shared);
    b.step(conflict); // t0
    bool in = false;
    while (b.now < 40) in = b.step(in ? nullptr : &next.access) || in;
    for (memtest::Cycle t = 1; t <= 31; ++t) CHECK(b.state_at(t) == LsuState::stalled_coalesce);
    CHECK(b.state_at(32) == LsuState::busy);
    CHECK(b.done_at.at(1) == 33); // 32 bank cycles, then the 1-cycle shared latency
    CHECK(b.completions.at(2).accepted_at == 32);
    CHECK(b.done_at.at(2) == 34);
    CHECK(memtest::stats_of(l1).counter("shared_bank_cycles") == 33);
}

TEST_CASE("the constant cache broadcasts one address and serializes distinct addresses") {
    using Plain = L1<>;
    Plain l1({}, 0);
    L1Bench<Plain> b(l1);
    std::vector<std::uint64_t> four(32);
    for (std::size_t i = 0; i < 32; ++i) four[i] = 0x100 + 4 * (i % 4); // 4 distinct words of one 64 B line
    Access cold(1, four, StateSpace::constant);
    b.step(cold); // t0
    b.run_until(5); // t1 miss, t2..t4 merge into the same constant MSHR entry
    CHECK(b.state_at(1) == LsuState::stalled_coalesce);
    CHECK(b.state_at(3) == LsuState::stalled_coalesce);
    CHECK(b.state_at(4) == LsuState::busy);
    REQUIRE(b.sent.size() == 1);
    CHECK(b.sent[0].second.bytes == 64);
    b.respond(b.sent[0].second, 6);
    b.run_until(7);
    CHECK(b.done_at.at(1) == 6);
    Access warm(2, four, StateSpace::constant);
    Access broadcast(3, std::vector<std::uint64_t>(32, 0x104), StateSpace::constant);
    b.step(warm); // t7
    bool in = false;
    while (b.now < 20) in = b.step(in ? nullptr : &broadcast.access) || in;
    CHECK(b.done_at.at(2) == 12); // 4 cycles (t8..t11), hit latency 1
    CHECK(b.completions.at(3).accepted_at == 11);
    CHECK(b.done_at.at(3) == 13); // one cycle for the broadcast
    const auto s = memtest::stats_of(l1);
    CHECK(s.counter("constant_hits") == 5);
    CHECK(s.counter("constant_misses") == 4);
    CHECK(b.sent.size() == 1);
}

TEST_CASE("the L1 refuses what it cannot time with a sentence") {
    using Plain = L1<>;
    Plain l1({}, 0);
    Access generic(1, strided(0, 4), StateSpace::generic);
    CHECK_THROWS_WITH_AS(l1.accept(generic.access, 0), doctest::Contains("generic addresses must be resolved"),
                         gpuarch::Error);
    Plain l2({}, 0);
    Access store_const(2, strided(0, 4), StateSpace::constant, WarpAccess::store);
    CHECK_THROWS_AS(l2.accept(store_const.access, 0), gpuarch::Error);
    Plain l3({}, 0);
    Access a(3, strided(0, 4)), b2(4, strided(0, 4));
    l3.accept(a.access, 0);
    CHECK_FALSE(l3.can_accept());
    CHECK_THROWS_AS(l3.accept(b2.access, 0), gpuarch::Error);
    L1Config bad;
    bad.geometry.line_bytes = 96;
    CHECK_THROWS_AS(L1Unit(bad, 0), gpuarch::Error);
}
