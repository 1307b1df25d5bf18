// Partition skipping (MemorySystemConfig::skip_idle, issues 4, 11 and 23): a partition whose next event is more than
// a cycle away (a delay line's head, a DRAM command or completion; with nothing in flight, the next request) is not
// ticked until then, and its L2 and DRAM cycles are counted when it is ticked again or a statistic is read. The
// reference is the same memory system ticking every partition every cycle: bursts of reads, writes and atomics
// separated by idle gaps must give the same deliveries (cycle, SM, packet) and the same statistics at every
// snapshot, under every memory preset (their clock ratios differ; GTX480's DRAM has bank groups; Narasiman's has no
// L2 and a FCFS channel), at heavy and at light traffic (light traffic leaves partitions waiting on timers while
// their requests are in flight), and when a few SMs' response ports hold back every partition (partitions then wait
// for room in their own port into the response network).
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <doctest/doctest.h>

#include <gpuarch/core/stats.hpp>
#include <gpuarch/mem/memory_system.hpp>
#include <gpuarch/mem/presets.hpp>

using namespace gpuarch::mem;
using gpuarch::core::Cycle;
using gpuarch::core::StatsTable;

namespace {

struct Trace {
    std::vector<std::tuple<Cycle, std::uint32_t, std::uint64_t, int>> delivered; // cycle, SM, id, kind
    std::vector<StatsTable> snapshots;
    Cycle end = 0;
    std::uint64_t cycles_with_all_asleep = 0;
    std::uint64_t timed_waits = 0; // partition-cycles not ticked while the partition had work in flight
    std::uint64_t output_waits = 0; // of those, partition-cycles waiting for room in the response port
};

// The traffic drive() offers: random sectors from every SM, or whole lines from SMs 0 and 1 only, over 64 lines that
// soon hit in the L2, so that those SMs' response ports, one flit per cycle each, hold back every partition.
enum class Traffic { random_sectors, two_sms_hot_lines };

// Bursts of random traffic (each SM sends with probability 1/send_one_in per cycle, to random 32-byte sectors of a 4 MB
// range) separated by gaps of 100-3000 idle cycles (plus `longer_gaps`), then a drain. The same seed gives the same
// offers; whether an offer is taken depends on the memory system's back-pressure, which must itself be identical.
// With `warm_every`, every so many cycles the L2 is warmed (MemorySystem::warm, as sampled timing does between
// detailed CTAs) with a megabyte of other lines: it evicts the hot lines, so that a head request waiting for room in
// its response port, a hit, becomes a miss, which need not wait.
Trace drive(MemorySystemConfig config, bool skip_idle, std::uint32_t seed, std::uint32_t send_one_in, Cycle longer_gaps,
            Traffic traffic = Traffic::random_sectors, Cycle warm_every = 0) {
    config.skip_idle = skip_idle;
    MemorySystem memory(config);
    std::mt19937 rng(seed);
    Trace t;
    std::uint64_t next_id = 1;
    Cycle now = 0;
    auto tick = [&] {
        if (warm_every != 0 && now % warm_every == 0)
            for (std::uint64_t k = 0; k < 8192; ++k)
                memory.warm((8u << 20) + (now / warm_every % 4 << 20) + k * 128, k % 3 == 0);
        memory.cycle(now, [&](std::uint32_t sm, const MemPacket& p) {
            t.delivered.emplace_back(now, sm, p.id, static_cast<int>(p.kind));
        });
        if (memory.awake_partitions() == 0) ++t.cycles_with_all_asleep;
        t.timed_waits += memory.timed_waits();
        t.output_waits += memory.output_waits();
        if (now % 997 == 0) {
            StatsTable s;
            s.collect("mem", memory);
            t.snapshots.push_back(std::move(s));
        }
        ++now;
    };
    for (int burst = 0; burst < 12; ++burst) {
        const Cycle length = 50 + rng() % 350;
        for (Cycle c = 0; c < length; ++c) {
            for (std::uint32_t sm = 0; sm < config.sms; ++sm) {
                const std::uint32_t r = rng();
                if (r % send_one_in != 0) continue;
                MemPacket p;
                p.address = (rng() % (4u << 20)) & ~std::uint64_t{31};
                p.bytes = 32;
                const std::uint32_t kind = (r >> 8) % 8;
                p.kind = kind < 5 ? MemPacket::read : kind < 7 ? MemPacket::write : MemPacket::atomic;
                if (traffic == Traffic::two_sms_hot_lines) {
                    if (sm >= 2) continue;
                    p.address = (rng() % 64) * 128;
                    p.bytes = 128;
                    p.kind = MemPacket::read;
                }
                p.lanes = p.kind == MemPacket::atomic ? 1 + (r >> 16) % 32 : 0;
                p.sm = sm;
                p.id = next_id++;
                if (memory.downstream(sm).can_send()) memory.downstream(sm).send(p);
            }
            tick();
        }
        const Cycle gap = 100 + rng() % 2900 + longer_gaps;
        for (Cycle c = 0; c < gap; ++c) tick();
    }
    // A partition that waits for an event that never comes would hold its work forever: fail rather than hang.
    for (Cycle drain = 0; !memory.idle(); ++drain) {
        REQUIRE(drain < 1000000);
        tick();
    }
    for (int c = 0; c < 500; ++c) tick(); // idle cycles after the drain still count in every domain
    StatsTable s;
    s.collect("mem", memory);
    t.snapshots.push_back(std::move(s));
    t.end = now;
    return t;
}

void check_same(const std::string& name, const MemorySystemConfig& config, std::uint32_t send_one_in = 4,
                Cycle longer_gaps = 0, Traffic traffic = Traffic::random_sectors, Cycle warm_every = 0) {
    for (std::uint32_t seed : {1u, 2u, 3u}) {
        INFO(name << ", seed " << seed);
        const Trace skipped = drive(config, true, seed, send_one_in, longer_gaps, traffic, warm_every);
        const Trace ticked = drive(config, false, seed, send_one_in, longer_gaps, traffic, warm_every);
        REQUIRE(ticked.delivered.size() > 100); // Narasiman's light traffic delivers the fewest
        CHECK(skipped.end == ticked.end);
        CHECK(skipped.delivered == ticked.delivered);
        REQUIRE(skipped.snapshots.size() == ticked.snapshots.size());
        for (std::size_t i = 0; i < skipped.snapshots.size(); ++i) {
            INFO("snapshot " << i);
            CHECK(skipped.snapshots[i] == ticked.snapshots[i]);
        }
        // The skip was exercised: the gaps put every partition to sleep, and partitions waited for timers with
        // requests in flight; ticking never does either.
        CHECK(skipped.cycles_with_all_asleep > 1000);
        CHECK(skipped.timed_waits > 1000);
        CHECK(ticked.cycles_with_all_asleep == 0);
        CHECK(ticked.timed_waits == 0);
        CHECK(ticked.output_waits == 0);
        if (traffic == Traffic::two_sms_hot_lines) CHECK(skipped.output_waits > 1000);
    }
}

} // namespace

TEST_CASE("skipping idle partitions gives the per-cycle deliveries and statistics (every memory preset)") {
    check_same("fermi", presets::fermi_memory(15));
    check_same("kepler", presets::kepler_memory(14));
    check_same("southern_islands", presets::southern_islands_memory(32));
    check_same("gtx480", presets::gtx480_memory(15));
    // Light traffic: most partition-cycles are spent waiting for a delay line or the DRAM.
    check_same("fermi, light traffic", presets::fermi_memory(15), 60);
    check_same("gtx480, light traffic", presets::gtx480_memory(15), 60);
    // One slow channel (100-300 cycles per access): lighter traffic and longer gaps, so that it drains in them.
    check_same("narasiman (no L2)", presets::narasiman_memory(4), 16, 20000);
}

TEST_CASE("partitions held back by full response ports wait for room and give the per-cycle results") {
    check_same("fermi, two SMs' ports", presets::fermi_memory(15), 1, 0, Traffic::two_sms_hot_lines);
    check_same("gtx480, two SMs' ports", presets::gtx480_memory(15), 1, 0, Traffic::two_sms_hot_lines);
    check_same("kepler, two SMs' ports", presets::kepler_memory(14), 1, 0, Traffic::two_sms_hot_lines);
    // No L2: a DRAM completion waits for room (MemoryPartition::pass_back). Fermi's channels, fast enough to fill the
    // ports (Narasiman's one slow channel never does).
    MemorySystemConfig no_l2 = presets::fermi_memory(15);
    no_l2.partition.l2.enabled = false;
    check_same("fermi without an L2, two SMs' ports", no_l2, 1, 0, Traffic::two_sms_hot_lines);
    // Warming while partitions wait: it wakes them (a waiting hit may have become a miss).
    check_same("fermi, two SMs' ports, warmed", presets::fermi_memory(15), 1, 0, Traffic::two_sms_hot_lines, 97);
}

TEST_CASE("a sleeping partition's cycle counters are brought up to date when read") {
    MemorySystem memory(presets::fermi_memory(2));
    for (Cycle now = 0; now < 1400; ++now) memory.cycle(now, [](std::uint32_t, const MemPacket&) {});
    CHECK(memory.awake_partitions() == 0);
    // 1400 core cycles at 1400 MHz: 1400 L2 cycles per slice; DRAM at 924 MHz: 924 cycles per channel.
    CHECK(memory.partition(0).stats().l2_cycles == 1400);
    CHECK(memory.partition(3).dram().stats().cycles == 924);
    CHECK(memory.l2_stats().l2_cycles == 1400 * 6);
    CHECK(memory.dram_stats().cycles == 924 * 6);
}
