// The RegisterFile laws (timing/concepts.hpp) for the sub-banked policies, under random traffic: every accepted
// read is offered, a collector is offered only after its reads (never before accept + 2 when it has sources),
// offers follow acceptance, every write completes.
#include <doctest/doctest.h>

#include "../support/split_mix.hpp"

#include <gpuarch/regfile/coalescing_rf.hpp>
#include <gpuarch/regfile/corf.hpp>
#include <gpuarch/regfile/zero_gated_rf.hpp>

#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace {
using namespace gpuarch;

using test_support::SplitMix;

std::uint64_t random_value(SplitMix& rng) {
    switch (rng.next() % 5) {
    case 0: return 0;
    case 1: return rng.next() % 256;
    case 2: return static_cast<std::uint32_t>(-static_cast<std::int32_t>(rng.next() % 1000));
    case 3: return rng.next() % 70000;
    default: return rng.next();
    }
}

template <class RF> void run_laws(std::uint64_t seed, unsigned width) {
    SplitMix rng{seed};
    const unsigned warps = 12;
    RF rf(timing::RegisterFileConfig{warps, 2, width});
    std::map<std::uint64_t, core::Cycle> accepted; // token -> cycle
    std::map<std::uint64_t, unsigned> sources; // token -> source count
    std::set<std::uint64_t> dispatched, writes_pending;
    std::vector<std::vector<std::uint64_t>> buffers; // value buffers stay valid until written
    std::uint64_t next_token = 1;
    core::Cycle now = 0;
    const core::Cycle traffic_until = 400;
    bool laws_hold = true;
    for (; now < traffic_until + 400; ++now) {
        rf.cycle(now);
        rf.drain_written([&](std::uint64_t t) {
            if (writes_pending.erase(t) != 1) laws_hold = false; // completes once, only if written
        });
        rf.dispatch_ready([&](std::uint64_t t) {
            auto it = accepted.find(t);
            if (it == accepted.end() || dispatched.count(t) != 0) {
                laws_hold = false;
                return false;
            }
            const core::Cycle earliest = it->second + (sources[t] > 0 ? 2 : 1);
            if (now < earliest) laws_hold = false;
            if (rng.next() % 3 == 0) return false; // the execution side refuses sometimes
            dispatched.insert(t);
            return true;
        });
        if (now >= traffic_until) continue;
        for (int k = 0; k < 2; ++k) {
            timing::OperandRead read;
            read.token = next_token++;
            read.warp = static_cast<unsigned>(rng.next() % warps);
            read.source_count = static_cast<std::uint8_t>(rng.next() % 4);
            for (unsigned s = 0; s < read.source_count; ++s) read.sources[s] = static_cast<ir::RegId>(rng.next() % 16);
            read.active = core::WarpMask::first(width);
            if (rng.next() % 4 == 0) read.active = core::WarpMask::first(rng.next() % width);
            if (!rf.can_accept(read)) continue;
            rf.accept(read, now);
            accepted[read.token] = now;
            sources[read.token] = read.source_count;
        }
        if (rng.next() % 2 == 0) {
            timing::RegisterWrite w;
            w.token = next_token++;
            w.warp = static_cast<unsigned>(rng.next() % warps);
            w.dest_count = static_cast<std::uint8_t>(1 + rng.next() % 2);
            for (unsigned d = 0; d < w.dest_count; ++d) w.dests[d] = static_cast<ir::RegId>(rng.next() % 16);
            w.value_bytes = rng.next() % 4 == 0 ? 8 : 4;
            w.from_memory = rng.next() % 3 == 0;
            w.active = core::WarpMask::first(rng.next() % 2 ? width : 1 + rng.next() % width);
            buffers.emplace_back(width);
            for (auto& v : buffers.back()) v = random_value(rng) | (w.value_bytes == 8 ? random_value(rng) << 32 : 0);
            w.values = buffers.back().data();
            writes_pending.insert(w.token);
            rf.write(w, now);
        }
    }
    CHECK(laws_hold);
    CHECK(dispatched.size() == accepted.size()); // every accepted read was offered (and eventually taken)
    CHECK(writes_pending.empty()); // every write completed
    core::StatsTable t;
    t.collect("rf", rf);
    CHECK(t.counter("rf.granted_reads") == t.counter("rf.logical_reads"));
    CHECK(t.counter("rf.granted_writes") == t.counter("rf.logical_writes"));
}
} // namespace

#define GPUARCH_SUB_BANKED_RFS                                                                                         \
    regfile::CoalescingRF<>, regfile::CoalescingRF<4, regfile::Sub4, regfile::WidLayout, regfile::WrAlignment>,        \
        regfile::CoalescingRF<4, regfile::Sub4, regfile::WidLayout, regfile::IdealAlignment>,                          \
        regfile::CoalescingRF<4, regfile::Sub4, regfile::WshiftLayout, regfile::UpperBoundAlignment, 2>,               \
        regfile::CoalescingRF<8, regfile::Sub4, regfile::WshiftLayout, regfile::RegAlignment, 8,                       \
                              regfile::CrossLaneZeroGating>,                                                           \
        regfile::WwfaRF<>, regfile::CORF<>, regfile::ZeroGatedRF<16, 16>

TEST_CASE_TEMPLATE("sub-banked register files obey the RegisterFile laws under random traffic", RF,
                   GPUARCH_SUB_BANKED_RFS) {
    static_assert(timing::check_register_file<RF>());
    for (std::uint64_t seed : {1ULL, 2ULL, 3ULL}) {
        run_laws<RF>(seed, 32);
        run_laws<RF>(seed + 10, 64); // Southern Islands wavefronts
    }
}
