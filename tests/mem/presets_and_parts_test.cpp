// Machine presets against their sources, L1 knobs and names, IdealMemory, clock-domain crossing, the
// cross-SM duplicate MSHR tracker (Gong 2020 Sec. 6.1), and the bounded queue's erase and find_if.
#include <algorithm>
#include <deque>
#include <random>

#include <doctest/doctest.h>

#include <gpuarch/mem/clock.hpp>
#include <gpuarch/mem/duplicate_tracker.hpp>
#include <gpuarch/mem/ideal_memory.hpp>
#include <gpuarch/mem/l1.hpp>
#include <gpuarch/mem/presets.hpp>
#include <gpuarch/mem/queue.hpp>
#include <gpuarch/timing/concepts.hpp>

#include "mem_test_support.hpp"

using namespace gpuarch::mem;
using memtest::Access;
using memtest::strided;

static_assert(gpuarch::timing::check_l1<L1<MSHR<32>>>());
static_assert(gpuarch::timing::check_l1<IdealMemory<10>>());
static_assert(gpuarch::timing::check_l1<presets::FermiL1>());

TEST_CASE("L1 names list the knobs they were given") {
    CHECK(L1<MSHR<32>>::name == "L1<MSHR<32>>");
    CHECK(L1<MSHR<32>, Merges<8>, Sets<32>, Ways<8>, LineBytes<128>, AllocOnFill, HashedIndex>::name ==
          "L1<MSHR<32>,Merges<8>,Sets<32>,Ways<8>,LineBytes<128>,AllocOnFill,HashedIndex>");
    CHECK(IdealMemory<200>::name == "IdealMemory<200>");
}

TEST_CASE("an L1's Config defaults to its knobs and takes a preset's values") {
    using K = L1<MSHR<16>, Merges<4>, Sets<64>, Ways<4>, LineBytes<64>, AllocOnMiss, MissQueue<3>, HitLatency<5>>;
    const K::Config c;
    CHECK(c.mshr_entries == 16);
    CHECK(c.mshr_max_requests == 4);
    CHECK(c.geometry.sets == 64);
    CHECK(c.geometry.ways == 4);
    CHECK(c.geometry.line_bytes == 64);
    CHECK(c.allocation == AllocationPolicy::on_miss);
    CHECK(c.miss_queue == 3);
    CHECK(c.hit_latency == 5);
    CHECK(c.geometry.indexing == SetIndexing::linear); // omitted knob: default
    const L1<>::Config d;
    CHECK(d.mshr_entries == 32);
    CHECK(d.geometry.size_bytes() == 32 * 1024);
    const K::Config from_preset = presets::fermi_l1();
    CHECK(from_preset.mshr_entries == 32);
    K l1(from_preset, 3);
    CHECK(l1.view().mshr_total == 32);
    CHECK(l1.sm() == 3);
}

TEST_CASE("Fermi preset matches Wang 2016 Table 1 and Sec. 2.1") {
    const L1Config l1 = presets::fermi_l1();
    CHECK(l1.geometry.size_bytes() == 32 * 1024);
    CHECK(l1.geometry.line_bytes == 128);
    CHECK(l1.geometry.ways == 8);
    CHECK(l1.geometry.sets == 32);
    CHECK(l1.geometry.indexing == SetIndexing::fermi_hash);
    CHECK(l1.allocation == AllocationPolicy::on_fill);
    CHECK(l1.mshr_entries == 32);
    CHECK(l1.shared.banks == 32);
    CHECK(l1.constant.geometry.size_bytes() == 8 * 1024);
    CHECK(l1.constant.geometry.line_bytes == 64);
    const MemorySystemConfig m = presets::fermi_memory();
    CHECK(m.sms == 30);
    CHECK(m.partitions == 6);
    CHECK(m.partition.l2.geometry.size_bytes() * m.partitions == 768 * 1024);
    CHECK(m.partition.l2.geometry.line_bytes == 128);
    CHECK(m.partition.l2.geometry.ways == 16);
    CHECK(m.partition.l2_latency == 120);
    CHECK(m.partition.dram_latency == 100);
    CHECK(m.partition.dram.scheduler == DramScheduler::fr_fcfs);
    CHECK(m.partition.dram.queue_capacity == 32);
    const DramTiming& t = m.partition.dram.timing;
    CHECK(m.partition.dram.banks == 16);
    CHECK(t.tCL == 12);
    CHECK(t.tRP == 12);
    CHECK(t.tRC == 40);
    CHECK(t.tRAS == 28);
    CHECK(t.tRCD == 12);
    CHECK(t.tRRD == 6);
    CHECK(t.tCDLR == 5);
    CHECK(t.tWR == 12);
    CHECK(m.clocks.core.value == 1400.0);
    CHECK(m.clocks.icnt.value == 1400.0);
    CHECK(m.request_network.flit_bytes == 32);
}

TEST_CASE("GTX480 preset matches GPGPU-Sim's SM2_GTX480/gpgpusim.config") {
    static_assert(gpuarch::timing::check_l1<presets::GTX480L1>());
    // -gpgpu_cache:dl1 N:32:128:4,L:L:m:N:H,S:64:8,8; -gpgpu_l1_latency 35; -gpgpu_flush_l1_cache 1
    const L1Config l1 = presets::gtx480_l1();
    CHECK(l1.geometry.sets == 32);
    CHECK(l1.geometry.line_bytes == 128);
    CHECK(l1.geometry.ways == 4);
    CHECK(l1.geometry.size_bytes() == 16 * 1024);
    CHECK(l1.geometry.indexing == SetIndexing::fermi_hash);
    CHECK(l1.allocation == AllocationPolicy::on_miss);
    CHECK(l1.mshr_entries == 64);
    CHECK(l1.mshr_max_requests == 8);
    CHECK(l1.miss_queue == 8);
    CHECK(l1.hit_latency == 35);
    CHECK(l1.flush_between_kernels);
    // -gpgpu_shmem_num_banks 32, -gpgpu_smem_latency 26, -gpgpu_const_cache:l1 N:64:64:2
    CHECK(l1.shared.banks == 32);
    CHECK(l1.shared.latency == 26);
    CHECK(l1.constant.geometry.sets == 64);
    CHECK(l1.constant.geometry.line_bytes == 64);
    CHECK(l1.constant.geometry.ways == 2);
    const MemorySystemConfig m = presets::gtx480_memory();
    CHECK(m.sms == 15); // -gpgpu_n_clusters 15
    CHECK(m.partitions == 6); // -gpgpu_n_mem 6
    CHECK(m.interleave_bytes == 256); // dramid@8
    // -gpgpu_cache:dl2 S:64:128:8 per sub-partition, 2 sub-partitions per channel: 786 KB
    CHECK(m.partition.l2.geometry.size_bytes() * m.partitions == 12 * 64 * 128 * 8);
    CHECK(m.partition.l2.geometry.ways == 8);
    CHECK(m.partition.l2.geometry.line_bytes == 128);
    CHECK(m.partition.l2_latency == 120); // -gpgpu_l2_rop_latency 120
    CHECK(m.partition.dram_latency == 100); // -dram_latency 100
    const DramConfig& d = m.partition.dram;
    CHECK(d.scheduler == DramScheduler::fr_fcfs); // -gpgpu_dram_scheduler 1
    CHECK(d.queue_capacity == 64); // -gpgpu_frfcfs_dram_sched_queue_size 64
    CHECK(d.return_queue_capacity() == 116); // -gpgpu_dram_return_queue_size 116
    CHECK(d.bus_bytes_per_cycle == 32); // 2 chips x 4 B x QDR
    // nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12:nbkgrp=4:CCDL=3:RTPL=2
    CHECK(d.banks == 16);
    CHECK(d.bank_groups == 4);
    const DramTiming& t = d.timing;
    CHECK(t.tCCD == 2);
    CHECK(t.tRRD == 6);
    CHECK(t.tRCD == 12);
    CHECK(t.tRAS == 28);
    CHECK(t.tRP == 12);
    CHECK(t.tRC == 40);
    CHECK(t.tCL == 12);
    CHECK(t.tWL == 4);
    CHECK(t.tCDLR == 5);
    CHECK(t.tWR == 12);
    CHECK(t.tCCDL == 3);
    CHECK(t.tRTP == 2);
    CHECK(d.address_bits.bank_mask == ((1ULL << 8) | (7ULL << 13)));
    CHECK(d.address_bits.row_mask == (0xFFFULL << 16));
    CHECK(m.request_network.flit_bytes == 40); // -icnt_flit_size 40
    // -gpgpu_clock_domains 700.0:700.0:700.0:924.0
    CHECK(m.clocks.core.value == 700.0);
    CHECK(m.clocks.icnt.value == 700.0);
    CHECK(m.clocks.l2.value == 700.0);
    CHECK(m.clocks.dram.value == 924.0);
}

TEST_CASE("Kepler preset matches Gong 2020 Tables 4.1 and 6.3") {
    const L1Config l1 = presets::kepler_l1();
    CHECK(l1.geometry.size_bytes() == 16 * 1024);
    CHECK(l1.geometry.ways == 4);
    CHECK(l1.geometry.line_bytes == 128);
    CHECK(l1.mshr_entries == 16);
    CHECK(l1.mshr_max_requests == 8);
    const MemorySystemConfig m = presets::kepler_memory();
    CHECK(m.sms == 14);
    CHECK(m.partition.l2.geometry.size_bytes() * m.partitions == 1536 * 1024);
    CHECK(m.partition.l2.geometry.ways == 16);
    CHECK(m.partition.l2.geometry.line_bytes == 128);
    CHECK(m.clocks.core.value == 732.0);
}

TEST_CASE("Southern Islands preset matches Gong 2020 Table 5.2") {
    const L1Config l1 = presets::southern_islands_l1();
    CHECK(l1.geometry.size_bytes() == 16 * 1024);
    CHECK(l1.geometry.sets == 64);
    CHECK(l1.geometry.ways == 4);
    CHECK(l1.geometry.line_bytes == 64);
    const MemorySystemConfig m = presets::southern_islands_memory();
    CHECK(m.sms == 32);
    CHECK(m.partition.l2.geometry.size_bytes() == 128 * 1024);
    CHECK(m.partition.l2.geometry.sets == 128);
    CHECK(m.partition.l2.geometry.ways == 16);
    CHECK(m.partition.l2.geometry.line_bytes == 64);
    CHECK(m.clocks.core.value == 1000.0);
}

TEST_CASE("Narasiman preset matches Narasiman 2010 Table 1, latencies measured on the DRAM channel") {
    const L1Config l1 = presets::narasiman_l1();
    CHECK(l1.geometry.size_bytes() == 32 * 1024);
    CHECK(l1.geometry.ways == 4);
    CHECK(l1.geometry.line_bytes == 128);
    CHECK(l1.hit_latency == 1);
    const MemorySystemConfig m = presets::narasiman_memory();
    CHECK_FALSE(m.partition.l2.enabled);
    CHECK(m.partition.dram.banks == 8);
    CHECK(m.partition.dram.row_bytes == 4096);
    CHECK(m.partition.dram.scheduler == DramScheduler::fcfs);
    DramChannel ch(m.partition.dram);
    const std::uint64_t row_stride = std::uint64_t{m.partition.dram.banks} * m.partition.dram.row_bytes;
    ch.push(DramRequest{0, 128, false, true, 1});
    gpuarch::core::Cycle t = 0, first = 0;
    while (first == 0) {
        ch.cycle(++t);
        if (ch.has_completed()) {
            first = t;
            ch.pop_completed();
        }
    }
    ch.push(DramRequest{128, 128, false, true, 2}); // same row: hit
    const gpuarch::core::Cycle hit_start = t + 1;
    gpuarch::core::Cycle hit = 0;
    while (hit == 0) {
        ch.cycle(++t);
        if (ch.has_completed()) {
            hit = t - hit_start;
            ch.pop_completed();
        }
    }
    ch.push(DramRequest{row_stride, 128, false, true, 3}); // same bank, other row: conflict
    const gpuarch::core::Cycle conflict_start = t + 1;
    gpuarch::core::Cycle conflict = 0;
    while (conflict == 0) {
        ch.cycle(++t);
        if (ch.has_completed()) {
            conflict = t - conflict_start;
            ch.pop_completed();
        }
    }
    CHECK(hit == 100);
    CHECK(conflict == 300);
    MemorySystem memory(m); // the preset builds
    CHECK(memory.idle());
}

TEST_CASE("IdealMemory completes every instruction after exactly its latency, one accepted per cycle") {
    IdealMemory<7> ideal({}, 0);
    Downstream down(1);
    Access a(1, strided(0, 4096)), b(2, strided(0, 4), gpuarch::ir::StateSpace::shared);
    std::map<std::uint64_t, gpuarch::core::Cycle> done;
    for (gpuarch::core::Cycle t = 0; t < 20; ++t) {
        ideal.cycle(t, down);
        ideal.drain_completed([&](const Completion& c) { done[c.token] = t; });
        if (t == 2) {
            REQUIRE(ideal.can_accept());
            ideal.accept(a.access, t);
            CHECK_FALSE(ideal.can_accept());
            CHECK_THROWS_AS(ideal.accept(b.access, t), gpuarch::Error);
        }
        if (t == 3) ideal.accept(b.access, t);
    }
    CHECK(done.at(1) == 9);
    CHECK(done.at(2) == 10);
    CHECK(down.empty());
    CHECK(ideal.idle());
    CHECK_THROWS_AS(ideal.receive(MemPacket{}, 0), gpuarch::Error);
}

TEST_CASE("clock domains tick by a deterministic fractional accumulator") {
    ClockDomain dram(gpuarch::core::ClockMHz{924.0}, gpuarch::core::ClockMHz{1400.0});
    std::uint64_t ticks = 0;
    std::uint32_t most = 0;
    for (int i = 0; i < 1400; ++i) {
        const std::uint32_t k = dram.advance();
        ticks += k;
        most = std::max(most, k);
    }
    CHECK(ticks == 924);
    CHECK(most == 1);
    ClockDomain fast(gpuarch::core::ClockMHz{2800.0}, gpuarch::core::ClockMHz{1400.0});
    CHECK(fast.advance() == 2);
    ClockDomain same(gpuarch::core::ClockMHz{732.0}, gpuarch::core::ClockMHz{732.0});
    for (int i = 0; i < 10; ++i) CHECK(same.advance() == 1);
    CHECK_THROWS_AS(ClockDomain(gpuarch::core::ClockMHz{0.0}, gpuarch::core::ClockMHz{1.0}), gpuarch::Error);
}

TEST_CASE("a duplicate MSHR allocation is one of a line another SM allocated within 2000 cycles") {
    DuplicateMshrTracker t; // Gong 2020 Sec. 6.1: 2000-cycle window
    CHECK(t.window() == 2000);
    CHECK_FALSE(t.record(0, 0x1000, 0));
    CHECK(t.record(1, 0x1000, 1500)); // another SM, within the window
    CHECK_FALSE(t.record(1, 0x1000, 2100)); // SM 0's allocation is 2100 cycles old; SM 1's own does not count
    CHECK(t.record(0, 0x1000, 2200)); // SM 1 allocated it 100 cycles ago
    CHECK_FALSE(t.record(2, 0x1000, 4201)); // 2001 cycles after the latest allocation
    CHECK_FALSE(t.record(3, 0x2000, 4202));
    CHECK(t.allocations() == 6);
    CHECK(t.duplicates() == 2);
}

TEST_CASE("the tracker keeps working across many lines (its table grows and drops stale lines)") {
    DuplicateMshrTracker t(100, 16);
    std::uint64_t dup = 0;
    for (std::uint64_t i = 0; i < 20000; ++i) {
        dup += t.record(0, i * 128, i) ? 1 : 0;
        dup += t.record(1, i * 128, i + 1) ? 1 : 0;
    }
    CHECK(dup == 20000);
    CHECK_FALSE(t.record(1, 0, 50000));
}

TEST_CASE("L1s report their MSHR allocations to a shared tracker") {
    DuplicateMshrTracker tracker;
    L1Config c;
    c.duplicate_tracker = &tracker;
    L1<> sm0(c, 0), sm1(c, 1);
    memtest::L1Bench<L1<>> b0(sm0), b1(sm1);
    Access a(1, strided(0x9000, 4)), b(2, strided(0x9000, 4)), other(3, strided(0xA000, 4));
    b0.step(a);
    b0.step();
    b1.step(b);
    b1.step(other);
    b1.step();
    CHECK(tracker.allocations() == 3);
    CHECK(tracker.duplicates() == 1);
}

TEST_CASE("statistics are declared with names a table can read") {
    L1<> l1({}, 0);
    const auto s = memtest::stats_of(l1);
    for (const char* name :
         {"hits", "misses", "mshr_merges", "mshr_full_cycles", "miss_queue_full_cycles", "ldst_coal_cycles",
          "ldst_mshr_cycles", "ldst_icnt_cycles", "coherent_load_occlusion_cycles", "divergent_load_access_cycles",
          "fully_cached_divergent_loads"})
        CHECK(s.contains(name));
    CHECK(s.histogram("mshr_occupancy").size() == 33);
    MemorySystem m(presets::fermi_memory(2));
    const auto ms = memtest::stats_of(m);
    for (const char* name : {"l2_read_hits", "l2_read_misses", "dram_row_hits", "dram_bytes", "icnt_request_flits"})
        CHECK(ms.contains(name));
}

TEST_CASE("a bounded queue's erase keeps order from either side and find_if finds the first match, across the wrap") {
    // Against std::deque, with the head walking round the ring (pushes and pops between the erases). As many pushes
    // as removals, so the queues fill, and erases from near the front find the front run wrapped.
    std::mt19937_64 rng(5);
    for (const std::size_t capacity : {1, 2, 3, 8, 64}) {
        BoundedQueue<std::uint64_t> q(capacity);
        std::deque<std::uint64_t> reference;
        std::uint64_t next = 0;
        for (int step = 0; step < 4000; ++step) {
            const auto draw = rng() % 4; // push half the time, pop or erase a quarter each
            const unsigned action = draw < 2 ? 0 : static_cast<unsigned>(draw - 1);
            if (action == 0 && !q.full()) {
                q.push(next);
                reference.push_back(next++);
            } else if (action == 1 && !q.empty()) {
                q.pop();
                reference.pop_front();
            } else if (!q.empty()) {
                const std::size_t i = rng() % q.size();
                q.erase(i);
                reference.erase(reference.begin() + static_cast<std::ptrdiff_t>(i));
            }
            REQUIRE(q.size() == reference.size());
            for (std::size_t k = 0; k < q.size(); ++k) REQUIRE(q[k] == reference[k]);
            // The first element of a random residue class (none, at times): its index from the front.
            const std::uint64_t modulus = 1 + rng() % 5, residue = rng() % 6;
            auto matches = [&](std::uint64_t v) { return v % modulus == residue; };
            const auto expected = std::find_if(reference.begin(), reference.end(), matches) - reference.begin();
            REQUIRE(q.find_if(matches) == static_cast<std::size_t>(expected));
        }
    }
}
