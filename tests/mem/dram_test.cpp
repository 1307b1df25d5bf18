// DRAM channel: row-hit / row-closed / row-conflict latencies (Narasiman 2010 Table 1, Wang 2016 Table 1
// GDDR5 timings) and FR-FCFS vs FCFS scheduling.
#include <map>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

#include <gpuarch/mem/dram.hpp>
#include <gpuarch/mem/presets.hpp>

using namespace gpuarch::mem;
using gpuarch::core::Cycle;

namespace {

struct DramBench {
    DramChannel channel;
    Cycle now = 0;
    std::map<std::uint64_t, Cycle> done;
    explicit DramBench(const DramConfig& c) : channel(c) {}
    // Pushed now, the request is first considered in the next cycle.
    void read(std::uint64_t tag, std::uint64_t address, std::uint32_t bytes = 128) {
        channel.push(DramRequest{address, bytes, false, true, tag});
    }
    void write(std::uint64_t tag, std::uint64_t address, std::uint32_t bytes = 128) {
        channel.push(DramRequest{address, bytes, true, true, tag});
    }
    void run_until(Cycle t) {
        while (now < t) {
            ++now;
            channel.cycle(now);
            while (channel.has_completed()) {
                done[channel.completed().tag] = now;
                channel.pop_completed();
            }
        }
    }
};

std::uint64_t address(const DramConfig& c, std::uint32_t bank, std::uint64_t row, std::uint64_t column = 0) {
    return (row * c.banks + bank) * c.row_bytes + column;
}

DramConfig narasiman() { return presets::narasiman_memory().partition.dram; }
DramConfig gddr5() { return presets::fermi_memory().partition.dram; }

} // namespace

TEST_CASE("Narasiman 2010 Table 1: 100-cycle row hit and 300-cycle row conflict with open-row FCFS") {
    const DramConfig c = narasiman();
    REQUIRE(c.scheduler == DramScheduler::fcfs);
    DramBench b(c);
    b.read(1, address(c, 0, 0));
    b.run_until(300);
    CHECK(b.done.at(1) == 1 + 200); // closed row: ACT + tRCD, then tCL + transfer
    b.read(2, address(c, 0, 0, 256));
    b.run_until(600);
    CHECK(b.done.at(2) == 301 + 100); // row hit
    b.read(3, address(c, 0, 1));
    b.run_until(1000);
    CHECK(b.done.at(3) == 601 + 300); // row conflict: PRE, ACT, CAS
    const auto s = b.channel.stats();
    CHECK(s.reads == 3);
    CHECK(s.row_hits == 1);
    CHECK(s.activates == 2);
    CHECK(s.precharges == 1);
}

TEST_CASE("FR-FCFS serves a younger row hit before an older row conflict; FCFS does not") {
    for (DramScheduler policy : {DramScheduler::fr_fcfs, DramScheduler::fcfs}) {
        DramConfig c = narasiman();
        c.scheduler = policy;
        DramBench b(c);
        b.read(1, address(c, 0, 0)); // opens row 0 of bank 0
        b.run_until(300);
        b.read(2, address(c, 0, 1)); // older: conflict
        b.read(3, address(c, 0, 0, 128)); // younger: hit on the open row
        b.run_until(1000);
        if (policy == DramScheduler::fr_fcfs) {
            CHECK(b.done.at(3) == 301 + 100);
            CHECK(b.done.at(2) == 302 + 300); // PRE right after the hit's CAS
            CHECK(b.channel.stats().row_hits == 1);
        } else {
            CHECK(b.done.at(2) == 301 + 300);
            CHECK(b.done.at(3) == 502 + 300); // now a conflict itself
            CHECK(b.channel.stats().row_hits == 0);
        }
    }
}

TEST_CASE("FR-FCFS does not close a row that a queued request still hits") {
    DramConfig c = narasiman();
    c.scheduler = DramScheduler::fr_fcfs;
    DramBench b(c);
    b.read(1, address(c, 0, 0));
    b.run_until(300);
    b.read(2, address(c, 0, 1));
    b.read(3, address(c, 0, 0, 128));
    b.read(4, address(c, 0, 0, 256));
    b.run_until(1200);
    CHECK(b.done.at(3) < b.done.at(2));
    CHECK(b.done.at(4) < b.done.at(2));
    CHECK(b.channel.stats().row_hits == 2);
}

TEST_CASE("GDDR5 timings of Wang 2016 Table 1: closed, hit and conflict latencies in DRAM cycles") {
    const DramConfig c = gddr5(); // tCL=12 tRP=12 tRC=40 tRAS=28 tRCD=12 tRRD=6; 128 B = 4 bus cycles
    REQUIRE(c.timing.tCL == 12);
    DramBench b(c);
    b.read(1, address(c, 0, 0));
    b.run_until(100);
    CHECK(b.done.at(1) == 1 + 12 + 12 + 4); // tRCD + tCL + burst
    b.read(2, address(c, 0, 0, 128));
    b.run_until(200);
    CHECK(b.done.at(2) == 101 + 12 + 4); // tCL + burst
    b.read(3, address(c, 0, 1));
    b.run_until(300);
    CHECK(b.done.at(3) == 201 + 12 + 12 + 12 + 4); // tRP + tRCD + tCL + burst
}

TEST_CASE("GDDR5: tRAS and tRC hold back a conflict right after an activate; tRRD spaces activates") {
    const DramConfig c = gddr5();
    {
        DramBench b(c);
        b.read(1, address(c, 0, 0));
        b.read(2, address(c, 0, 1));
        b.run_until(200);
        CHECK(b.done.at(1) == 29);
        // PRE waits for tRAS (ACT at 1 -> 29), ACT for tRC (1 -> 41), CAS at 53.
        CHECK(b.done.at(2) == 53 + 12 + 4);
    }
    {
        DramBench b(c);
        b.read(1, address(c, 0, 0));
        b.read(2, address(c, 1, 0));
        b.run_until(200);
        CHECK(b.done.at(1) == 29);
        CHECK(b.done.at(2) == 7 + 12 + 12 + 4); // second ACT at 1 + tRRD
    }
}

TEST_CASE("GDDR5: a read after a write to the open row waits tCDLR after the write data") {
    const DramConfig c = gddr5();
    DramBench b(c);
    b.write(1, address(c, 0, 0));
    b.read(2, address(c, 0, 0, 128));
    b.run_until(200);
    CHECK(b.done.at(1) == 13 + 4 + 4); // WR at 13, tWL = 4, burst 4
    CHECK(b.done.at(2) == (21 + 5) + 12 + 4); // RD at write-data end + tCDLR
    CHECK(b.channel.stats().writes == 1);
}

TEST_CASE("the request queue is bounded") {
    DramConfig c = gddr5();
    c.queue_capacity = 4;
    DramChannel ch(c);
    for (int i = 0; i < 4; ++i) ch.push(DramRequest{std::uint64_t(i) * 128, 128, false, true, 0});
    CHECK_FALSE(ch.can_accept());
    CHECK_THROWS_AS(ch.push(DramRequest{}), gpuarch::Error);
}

TEST_CASE("a GPGPU-Sim address mapping picks bank and row bits; the GTX480's spreads a row over bank pairs") {
    constexpr DramAddressBits bits = dram_address_bits("0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS");
    static_assert(bits.bank_mask == ((1ULL << 8) | (7ULL << 13)));
    static_assert(bits.row_mask == (0xFFFULL << 16));
    static_assert(extract_bits(1ULL << 8, bits.bank_mask) == 1);
    static_assert(extract_bits(1ULL << 13, bits.bank_mask) == 2);
    static_assert(extract_bits(1ULL << 15, bits.bank_mask) == 8);
    static_assert(extract_bits(3ULL << 16, bits.row_mask) == 3);
    CHECK_THROWS_AS(dram_address_bits("RRX"), gpuarch::Error);
    DramConfig wrong = presets::gtx480_memory().partition.dram;
    wrong.banks = 8; // four bank bits select 16 banks
    CHECK_THROWS_WITH_AS(wrong.validate(), doctest::Contains("4 bank bits do not select 8 banks"), gpuarch::Error);

    // Addresses 0 and 256 share a row under row interleaving but sit in banks 0 and 1 under the GTX480 mapping:
    // each needs its own ACT (the second tRRD after the first), and both CAS commands then find open rows.
    const DramConfig c = presets::gtx480_memory().partition.dram;
    DramBench b(c);
    b.read(1, 0);
    b.read(2, 256);
    b.run_until(200);
    CHECK(b.done.at(1) == 13 + 12 + 4); // ACT 1, CAS 1 + tRCD, data tCL later for 4 cycles
    CHECK(b.done.at(2) == 7 + 12 + 12 + 4); // ACT 1 + tRRD
    CHECK(b.channel.stats().activates == 2);
}

// The channel splits addresses with BitGather: it must pack exactly the bits extract_bits packs, for masks of one
// run, of the most runs a 64-bit mask can have, of all 64 bits, and for random masks.
TEST_CASE("BitGather packs a mask's bits as extract_bits does") {
    std::uint64_t state = 0x243F6A8885A308D3ULL;
    auto next = [&state] {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state;
    };
    std::vector<std::uint64_t> masks{0,
                                     1,
                                     1ULL << 63,
                                     ~0ULL,
                                     0x5555555555555555ULL,
                                     0xAAAAAAAAAAAAAAAAULL,
                                     0xFFFULL << 16,
                                     (1ULL << 8) | (7ULL << 13)};
    for (int i = 0; i < 200; ++i) masks.push_back(next() & next());
    for (const std::uint64_t mask : masks) {
        CAPTURE(mask);
        const BitGather gather(mask);
        for (int k = 0; k < 50; ++k) {
            const std::uint64_t value = next();
            REQUIRE(gather(value) == extract_bits(value, mask));
        }
        REQUIRE(gather(~0ULL) == extract_bits(~0ULL, mask));
    }
    static_assert(BitGather((1ULL << 8) | (7ULL << 13))(1ULL << 15) == 8);
}

TEST_CASE("bank groups: CAS commands to one group are tCCDL apart, to different groups tCCD") {
    const DramConfig c = presets::gtx480_memory().partition.dram;
    REQUIRE(c.bank_groups == 4);
    REQUIRE(c.timing.tCCDL == 3);
    REQUIRE(c.timing.tCCD == 2);
    // One-burst (32-byte) row hits to two banks whose rows are already open; bank b is in group b mod 4.
    const auto gap = [&](std::uint64_t second_bank_address) {
        DramBench b(c);
        b.read(1, 0);
        b.read(2, second_bank_address);
        b.run_until(100);
        b.read(3, 32, 32);
        b.read(4, second_bank_address + 32, 32);
        b.run_until(200);
        return b.done.at(4) - b.done.at(3);
    };
    CHECK(gap(1ULL << 14) == 3); // bank 4: group 0, as bank 0
    CHECK(gap(1ULL << 8) == 2); // bank 1: group 1
}

TEST_CASE("a full return queue holds back the CAS commands that would respond") {
    DramConfig c = presets::gtx480_memory().partition.dram;
    CHECK(c.return_queue_capacity() == 116); // -gpgpu_dram_return_queue_size 116
    c.return_queue = 2;
    DramChannel ch(c);
    for (std::uint64_t i = 0; i < 4; ++i) ch.push(DramRequest{i * 32, 32, false, true, i});
    Cycle now = 0;
    while (now < 200) ch.cycle(++now);
    CHECK(ch.stats().reads == 2);
    ch.pop_completed();
    ch.pop_completed();
    while (now < 400) ch.cycle(++now);
    CHECK(ch.stats().reads == 4);
}

// DramConfig::bank_filtered_scan is speed only: on random request streams (reads and writes, some without a
// response, a small return queue that fills, row hits and conflicts over few rows) the filtered FR-FCFS issues
// every command in the same cycle as the plain two scans, so every completion and statistic agrees.
TEST_CASE("FR-FCFS: the bank-filtered scan chooses what the plain scan chooses") {
    // The third configuration has more banks than the filtered scan's 64-bit bank sets hold: it takes the plain
    // scans (under UBSan, a bank set indexed past bit 63 would stop the test).
    for (const int configuration : {0, 1, 2}) {
        const bool gtx480 = configuration == 1;
        DramConfig base = gtx480 ? presets::gtx480_memory().partition.dram : DramConfig{};
        if (configuration == 2) base.banks = 128;
        base.return_queue = 6;
        for (std::uint64_t seed = 1; seed <= 6; ++seed) {
            CAPTURE(configuration);
            CAPTURE(seed);
            DramConfig plain = base, filtered = base;
            plain.bank_filtered_scan = false;
            DramChannel a(plain), b(filtered);
            std::uint64_t state = seed * 0x9E3779B97F4A7C15ULL;
            auto next = [&state] {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                return state;
            };
            std::vector<std::pair<Cycle, std::uint64_t>> done_a, done_b;
            std::uint64_t tag = 0;
            std::uint64_t full_cycles = 0, active_cycles = 0, occupancy = 0; // b's queue counts, cycle by cycle
            for (Cycle now = 1; now <= 20000; ++now) {
                const std::uint64_t r = next();
                // Bursts of arrivals, then quiet stretches, so that the queue both fills and drains.
                const bool arriving = (now / 500) % 3 != 2;
                if (arriving && r % 3 != 0 && a.can_accept()) {
                    REQUIRE(b.can_accept());
                    const std::uint64_t row = (r >> 8) % 4, bank = (r >> 16) % base.banks, column = (r >> 24) % 16;
                    const std::uint64_t addr = gtx480
                                                   ? (r >> 20) % (1ULL << 24) & ~std::uint64_t{31}
                                                   : address(base, static_cast<std::uint32_t>(bank), row, column * 32);
                    const DramRequest req{addr, (r >> 40) % 2 == 0 ? 32U : 128U, (r >> 44) % 4 == 0, (r >> 48) % 8 != 0,
                                          tag++};
                    a.push(req);
                    b.push(req);
                }
                // Each cycle counts the queues it begins with (after this cycle's arrivals), also when the channel
                // adds those counts up lazily, at its next change of the queues (checked after every change below).
                full_cycles += b.can_accept() ? 0 : 1;
                active_cycles += b.idle() ? 0 : 1;
                occupancy += b.queued();
                a.cycle(now);
                b.cycle(now);
                // The owner takes completions only in some cycles, so the return queue fills at times.
                if ((r >> 52) % 4 != 0) {
                    while (a.has_completed()) {
                        done_a.emplace_back(now, a.completed().tag);
                        a.pop_completed();
                    }
                    while (b.has_completed()) {
                        done_b.emplace_back(now, b.completed().tag);
                        b.pop_completed();
                    }
                }
                const auto counted = b.stats();
                CHECK(counted.queue_full_cycles == full_cycles);
                CHECK(counted.active_cycles == active_cycles);
                CHECK(counted.queue_occupancy == occupancy);
            }
            CHECK(done_a.size() > 1000);
            CHECK(done_a == done_b);
            const auto sa = a.stats(), sb = b.stats();
            CHECK(sa.activates > 100);
            CHECK(sa.precharges > 100);
            CHECK(sa.queue_full_cycles > 0);
            CHECK(sa.activates == sb.activates);
            CHECK(sa.precharges == sb.precharges);
            CHECK(sa.row_hits == sb.row_hits);
            CHECK(sa.read_latency == sb.read_latency);
            CHECK(sa.bus_busy_cycles == sb.bus_busy_cycles);
            CHECK(sa.queue_occupancy == sb.queue_occupancy);
            CHECK(sa.queue_full_cycles == sb.queue_full_cycles);
            CHECK(sa.active_cycles == sb.active_cycles);
        }
    }
}
