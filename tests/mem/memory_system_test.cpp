// The shared memory system end to end: L1 -> request crossbar -> L2 slice -> DRAM -> response crossbar -> L1.
#include <map>
#include <memory>
#include <random>
#include <vector>

#include <doctest/doctest.h>

#include <gpuarch/mem/l1.hpp>
#include <gpuarch/mem/memory_system.hpp>
#include <gpuarch/mem/presets.hpp>

#include "mem_test_support.hpp"

using namespace gpuarch::mem;
using gpuarch::core::Cycle;
using memtest::Access;
using memtest::strided;

namespace {

// N L1s on one memory system, driven per core cycle as a GPU would: the memory system first (responses go to
// the L1s), then each L1's cycle, its completions, and at most one new instruction per L1.
template <class L1T> struct Gpu {
    MemorySystem memory;
    std::vector<L1T> l1s;
    Cycle now = 0;
    std::map<std::uint64_t, Cycle> done;

    Gpu(const MemorySystemConfig& m, const L1Config& l1) : memory(m) {
        l1s.reserve(m.sms);
        for (std::uint32_t sm = 0; sm < m.sms; ++sm) l1s.emplace_back(l1, sm);
    }
    // offers[sm] is accepted when that L1 can take it; returns which were accepted.
    std::vector<bool> step(const std::vector<const WarpAccess*>& offers = {}) {
        memory.cycle(now, [this](std::uint32_t sm, const MemPacket& p) { l1s[sm].receive(p, now); });
        std::vector<bool> accepted(l1s.size(), false);
        for (std::uint32_t sm = 0; sm < l1s.size(); ++sm) {
            l1s[sm].cycle(now, memory.downstream(sm));
            l1s[sm].drain_completed([this](const Completion& c) { done[c.token] = now; });
            if (sm < offers.size() && offers[sm] != nullptr && l1s[sm].can_accept()) {
                l1s[sm].accept(*offers[sm], now);
                accepted[sm] = true;
            }
        }
        ++now;
        return accepted;
    }
    void offer(std::uint32_t sm, const WarpAccess& a) {
        std::vector<const WarpAccess*> offers(l1s.size(), nullptr);
        offers[sm] = &a;
        while (!step(offers)[sm]) {}
    }
    void run_until(Cycle t) {
        while (now < t) step();
    }
    bool idle() const {
        for (const auto& l : l1s)
            if (!l.idle()) return false;
        return memory.idle();
    }
};

MemorySystemConfig small_system(std::uint32_t sms) {
    MemorySystemConfig m;
    m.sms = sms;
    m.partitions = 1;
    m.clocks = ClockConfig{gpuarch::core::ClockMHz{1000}, gpuarch::core::ClockMHz{1000}, gpuarch::core::ClockMHz{1000},
                           gpuarch::core::ClockMHz{1000}};
    m.request_network.latency = 2;
    m.response_network.latency = 2;
    m.partition.l2_latency = 10;
    m.partition.dram_latency = 5;
    m.partition.dram.banks = 4;
    m.partition.dram.bus_bytes_per_cycle = 128;
    DramTiming t{};
    t.tCL = 4;
    t.tRCD = 3;
    t.tRP = 2;
    t.tRAS = 0;
    t.tRC = 0;
    t.tRRD = 0;
    t.tWL = 2;
    t.tCCD = 1;
    t.tRTP = 0;
    m.partition.dram.timing = t;
    return m;
}

} // namespace

TEST_CASE("an L2 miss and an L2 hit take the exact sum of their hops") {
    Gpu<L1<>> gpu(small_system(2), L1<>::Config{});
    Access first(1, strided(0x4000, 4)), second(2, strided(0x4000, 4));
    gpu.offer(0, first.access); // accepted at t0
    gpu.run_until(40);
    // t1 L1 miss; t2 request crossbar (arrives after 2 cycles); t4 enters the 10-cycle L2 delay; t14 L2 miss,
    // 5-cycle DRAM delay; DRAM ACT, CAS after tRCD=3, data after tCL=4 + 1 transfer cycle; t28 L2 fill;
    // t29 response crossbar, 5 flits + 2 cycles; t35 the L1 receives the line.
    CHECK(gpu.done.at(1) == 35);
    gpu.offer(1, second.access); // accepted at t40 by SM 1: the line is now in the L2
    gpu.run_until(80);
    CHECK(gpu.done.at(2) == 40 + 21);
    const auto s = memtest::stats_of(gpu.memory);
    CHECK(s.counter("l2_read_misses") == 1);
    CHECK(s.counter("l2_read_hits") == 1);
    CHECK(s.counter("dram_reads") == 1);
    CHECK(s.counter("dram_bytes") == 128);
    CHECK(s.counter("responses_delivered") == 2);
    CHECK(gpu.idle());
}

TEST_CASE("requests to one line from two SMs merge in the L2 MSHR and both are answered by one DRAM read") {
    Gpu<L1<>> gpu(small_system(2), L1<>::Config{});
    Access a(1, strided(0x8000, 4)), b(2, strided(0x8000, 4));
    gpu.step({&a.access, &b.access}); // both accepted at t0
    gpu.run_until(60);
    // SM 1's request crosses one cycle after SM 0's (round-robin on the partition's port) and merges; the two
    // responses leave the partition's port 5 cycles apart (5 flits each).
    CHECK(gpu.done.at(1) == 35);
    CHECK(gpu.done.at(2) == 40);
    const auto s = memtest::stats_of(gpu.memory);
    CHECK(s.counter("dram_reads") == 1);
    CHECK(s.counter("l2_mshr_merges") == 1);
    CHECK(s.counter("l2_read_misses") == 2);
}

TEST_CASE("dirty L2 victims are written back to DRAM") {
    MemorySystemConfig m = small_system(1);
    m.partition.l2.geometry = CacheGeometry{1, 2, 128, SetIndexing::linear}; // one set of two lines
    Gpu<L1<>> gpu(m, L1<>::Config{});
    Access w1(1, strided(0x0000, 4), gpuarch::ir::StateSpace::global, WarpAccess::store);
    Access w2(2, strided(0x1000, 4), gpuarch::ir::StateSpace::global, WarpAccess::store);
    Access w3(3, strided(0x2000, 4), gpuarch::ir::StateSpace::global, WarpAccess::store);
    gpu.offer(0, w1.access);
    gpu.offer(0, w2.access);
    gpu.offer(0, w3.access);
    gpu.run_until(200);
    const auto s = memtest::stats_of(gpu.memory);
    CHECK(s.counter("l2_writes") == 3);
    CHECK(s.counter("l2_write_misses") == 3);
    CHECK(s.counter("l2_writebacks") == 1);
    CHECK(s.counter("dram_writes") == 1);
    CHECK(s.counter("dram_reads") == 0); // writes allocate without fetching
    CHECK(gpu.l1s[0].outstanding_writes() == 0); // every write was acknowledged
    CHECK(gpu.idle());
}

TEST_CASE("a miss the L2 refuses (no MSHR entry, no merge slot) is retried until a fill frees the entry") {
    // One MSHR entry holding one request. SM 0's miss to A takes it (L2 cycle 14, filled in 28). SM 1's request,
    // one cycle behind on the port, is refused from cycle 15 to 27 and served in 29, the cycle after the fill:
    //  - to another line (B): no entry is free; it misses then, and its DRAM read follows;
    //  - to A: it cannot merge; it hits then.
    // The retries take serve()'s remembered refusal (l2.hpp); these cycles are those of the slice that searched its
    // tags and MSHRs again in every retry.
    MemorySystemConfig m = small_system(2);
    m.partition.l2.mshr_entries = 1;
    m.partition.l2.mshr_max_requests = 1;
    for (const std::uint64_t second : {std::uint64_t{0x9000}, std::uint64_t{0x8000}}) {
        CAPTURE(second);
        Gpu<L1<>> gpu(m, L1<>::Config{});
        Access a(1, strided(0x8000, 4)), b(2, strided(second, 4));
        gpu.step({&a.access, &b.access}); // both accepted at t0
        gpu.run_until(200);
        REQUIRE(gpu.idle());
        CHECK(gpu.done.at(1) == 35); // as alone (the first test)
        const auto s = memtest::stats_of(gpu.memory);
        CHECK(s.counter("l2_stalled_cycles") == 13);
        if (second == 0x9000) {
            CHECK(gpu.done.at(2) == 50);
            CHECK(s.counter("dram_reads") == 2);
            CHECK(s.counter("l2_read_misses") == 2);
        } else {
            CHECK(gpu.done.at(2) == 40); // a hit, behind SM 0's five-flit response on the port
            CHECK(s.counter("dram_reads") == 1);
            CHECK(s.counter("l2_read_hits") == 1);
        }
    }
}

TEST_CASE("atomics execute at the L2: a miss fetches the line, each lane costs an L2 cycle") {
    Gpu<L1<>> gpu(small_system(1), L1<>::Config{});
    Access a1(1, std::vector<std::uint64_t>(32, 0x6000), gpuarch::ir::StateSpace::global, WarpAccess::atomic);
    Access a2(2, std::vector<std::uint64_t>(32, 0x6000), gpuarch::ir::StateSpace::global, WarpAccess::atomic);
    gpu.offer(0, a1.access);
    gpu.run_until(100);
    REQUIRE(gpu.done.count(1));
    const Cycle first = gpu.done.at(1);
    gpu.offer(0, a2.access);
    const Cycle issued = gpu.now - 1;
    gpu.run_until(200);
    REQUIRE(gpu.done.count(2));
    const auto s = memtest::stats_of(gpu.memory);
    CHECK(s.counter("l2_atomics") == 2);
    CHECK(s.counter("l2_atomic_hits") == 1);
    CHECK(s.counter("l2_atomic_busy_cycles") >= 31);
    CHECK(s.counter("dram_reads") == 1);
    CHECK(gpu.done.at(2) - issued < first); // the second one hits the L2
    CHECK(gpu.idle());
}

TEST_CASE("a saturated memory system back-pressures the L1s (LDST_ICNT) and still completes every load") {
    MemorySystemConfig m = small_system(4);
    m.partition.dram.queue_capacity = 2;
    m.request_network.input_capacity = 2;
    m.request_network.output_capacity = 2;
    m.partition.delay_slack = 1;
    m.partition.l2.mshr_entries = 2;
    using Wide = L1<MSHR<32>, MissQueue<2>>;
    Gpu<Wide> gpu(m, Wide::Config{});
    std::vector<std::unique_ptr<Access>> loads;
    std::uint64_t token = 1;
    for (int round = 0; round < 4; ++round) {
        std::vector<const WarpAccess*> offers;
        for (std::uint32_t sm = 0; sm < 4; ++sm) {
            loads.push_back(std::make_unique<Access>(token++, strided(0x1000000 * (sm + 1) + round * 0x80, 4096)));
            offers.push_back(&loads.back()->access);
        }
        std::vector<bool> in(4, false);
        while (!(in[0] && in[1] && in[2] && in[3])) {
            std::vector<const WarpAccess*> o(4, nullptr);
            for (std::uint32_t sm = 0; sm < 4; ++sm) o[sm] = in[sm] ? nullptr : offers[sm];
            const auto got = gpu.step(o);
            for (std::uint32_t sm = 0; sm < 4; ++sm) in[sm] = in[sm] || got[sm];
        }
    }
    while (!gpu.idle() && gpu.now < 200000) gpu.step();
    CHECK(gpu.idle());
    CHECK(gpu.done.size() == 16);
    std::uint64_t icnt_stalls = 0;
    for (const auto& l : gpu.l1s) icnt_stalls += memtest::stats_of(l).counter("ldst_icnt_cycles");
    CHECK(icnt_stalls > 0);
    const auto s = memtest::stats_of(gpu.memory);
    CHECK(s.counter("icnt_request_blocked") > 0);
    CHECK(s.counter("dram_reads") == 16 * 32);
}

namespace {

gpuarch::core::StatsTable random_run(std::uint32_t seed) {
    MemorySystemConfig m = presets::fermi_memory(4);
    Gpu<presets::FermiL1> gpu(m, presets::fermi_l1());
    std::mt19937 rng(seed);
    std::uniform_int_distribution<std::uint64_t> line(0, 255);
    std::uniform_int_distribution<int> pattern(0, 3);
    std::vector<std::unique_ptr<Access>> keep;
    std::vector<const WarpAccess*> offers(4, nullptr);
    std::uint64_t token = 1;
    while (gpu.now < 3000) {
        for (std::uint32_t sm = 0; sm < 4; ++sm) {
            if (offers[sm] != nullptr) continue;
            const int p = pattern(rng);
            const std::uint64_t base = line(rng) * 128;
            const auto kind = p == 3 ? WarpAccess::store : WarpAccess::load;
            keep.push_back(std::make_unique<Access>(token++, strided(base, p == 1 ? 4096 : (p == 2 ? 8 : 4)),
                                                    gpuarch::ir::StateSpace::global, kind));
            offers[sm] = &keep.back()->access;
        }
        const auto accepted = gpu.step(offers);
        for (std::uint32_t sm = 0; sm < 4; ++sm)
            if (accepted[sm]) offers[sm] = nullptr;
    }
    while (!gpu.idle() && gpu.now < 500000) gpu.step();
    REQUIRE(gpu.idle());
    gpuarch::core::StatsTable t;
    t.collect("memory", gpu.memory);
    for (std::uint32_t sm = 0; sm < 4; ++sm) t.collect("l1", gpu.l1s[sm]);
    t.add_counter("finish_cycle", gpu.now);
    return t;
}

} // namespace

TEST_CASE("the memory system is deterministic: the same traffic gives identical statistics") {
    const auto a = random_run(42);
    const auto b = random_run(42);
    CHECK(a == b);
    CHECK(a.counter("memory.l2_reads") > 0);
    CHECK(a.counter("memory.dram_row_hits") > 0);
    CHECK(a.counter("l1.hits") > 0);
    const auto c = random_run(43);
    CHECK_FALSE(a == c);
}

TEST_CASE("Fermi preset: an L2 hit takes at least the 120-cycle minimum L2 latency, a miss adds DRAM") {
    Gpu<presets::FermiL1> gpu(presets::fermi_memory(2), presets::fermi_l1());
    Access first(1, strided(0x40000, 4)), second(2, strided(0x40000, 4));
    gpu.offer(0, first.access);
    gpu.run_until(2000);
    REQUIRE(gpu.done.count(1));
    const Cycle miss = gpu.done.at(1) - 0;
    gpu.offer(1, second.access);
    const Cycle start = gpu.now - 1;
    gpu.run_until(4000);
    REQUIRE(gpu.done.count(2));
    const Cycle hit = gpu.done.at(2) - start;
    CHECK(hit >= 120);
    CHECK(hit < 140);
    CHECK(miss >= 120 + 100);
    CHECK(miss < hit + 100 + 80);
}

// The map shifts and masks by the interleaving (a power of two) instead of dividing by it; it must agree with the
// definition, chunk = address / interleave, on any address.
TEST_CASE("the address map agrees with its definition by division on random addresses") {
    std::uint64_t state = 0x9E3779B97F4A7C15ULL;
    for (const std::uint32_t partitions : {1U, 2U, 6U, 8U, 12U, 16U}) {
        for (const std::uint32_t interleave : {128U, 256U, 4096U}) {
            const AddressMap map(partitions, interleave);
            for (int k = 0; k < 2000; ++k) {
                state = state * 6364136223846793005ULL + 1442695040888963407ULL;
                const std::uint64_t address = state >> (k % 3 == 0 ? 0 : 24); // full 64-bit and 40-bit addresses
                const std::uint64_t chunk = address / interleave;
                CHECK(map.partition_of(address) == chunk % partitions);
                CHECK(map.local_address(address) == (chunk / partitions) * interleave + address % interleave);
            }
        }
    }
}

TEST_CASE("addresses interleave over partitions in 256-byte chunks") {
    const AddressMap map(6, 256);
    CHECK(map.partition_of(0) == 0);
    CHECK(map.partition_of(255) == 0);
    CHECK(map.partition_of(256) == 1);
    CHECK(map.partition_of(6 * 256) == 0);
    CHECK(map.local_address(6 * 256 + 17) == 256 + 17);
    CHECK(map.local_address(256 + 17) == 17);
    CHECK_THROWS_AS(AddressMap(6, 100), gpuarch::Error);
    MemorySystemConfig bad = presets::fermi_memory();
    bad.interleave_bytes = 64;
    CHECK_THROWS_AS(MemorySystem{bad}, gpuarch::Error);
}
