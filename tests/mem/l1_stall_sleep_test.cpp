// The L1's contract for an SM that sleeps through a repeated stall (SM::waits_on_l1): while repeats_stall() holds,
// no response arrives and no hit completion comes due (next_timed_completion), k calls of cycle() change exactly
// what one stalled_cycles(k, last) does, and send, complete and report nothing. Checked on random load streams over
// a few lines of a small allocate-on-miss and allocate-on-fill L1 (MSHRs full, no merge slot, every way reserved),
// and of one with MASCAR's re-execution queue (its head waiting for an MSHR or retrying, the LSU head refused by the
// queue), with responses after random delays and a network that refuses packets now and then: at every cycle where
// repeats_stall() holds, a copy of the L1 takes the bulk call while the original runs the same cycles one by one.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include <doctest/doctest.h>

#include <gpuarch/mem/l1.hpp>

#include "../support/same_statistics.hpp"
#include "mem_test_support.hpp"

using namespace gpuarch::mem;
using memtest::Access;
using memtest::L1Bench;
using memtest::stats_of;
using gpuarch::test_support::check_same_statistics;

namespace {

template <class L1T> struct StallLaw {
    std::uint64_t stalls = 0; // cycles at which repeats_stall() held
    std::uint64_t slept = 0; // cycles compared by the bulk call
    std::uint64_t hit_pending = 0; // stalls with a hit waiting to complete (next_timed_completion bounds the sleep)
    // Stretches slept, by what repeated (told apart by the counters they moved): the LSU head's stall alone (with a
    // re-execution queue, one that refuses the load: it does not fit); the re-execution queue's head waiting for an
    // MSHR with the LSU empty, or with the LSU head's load stalled and refused by the queue; the queue's head
    // retrying a load that stalls.
    std::uint64_t stretches = 0, lsu_head = 0, queue_waits = 0, queue_waits_lsu_head = 0, queue_retries = 0;
};

// The counters that tell the repeated stalls apart: the re-execution queue's replay cycles and refusals (an L1
// without the queue reports neither) and the LSU's cycles stalled for an MSHR, a merge slot or a way.
struct StallCounters {
    std::uint64_t replays = 0, refusals = 0, lsu_stalled = 0;
};
template <class L1T> StallCounters stall_counters(const L1T& l1) {
    const auto stats = stats_of(l1);
    const bool queue = stats.contains("reexec_replay_cycles");
    return {queue ? stats.counter("reexec_replay_cycles") : 0, queue ? stats.counter("reexec_full_cycles") : 0,
            stats.counter("ldst_mshr_cycles")};
}

template <class L1T> StallLaw<L1T> check_stall_law(std::uint32_t seed) {
    L1T l1({}, 0);
    L1Bench<L1T> b(l1, 1);
    std::mt19937 rng(seed);
    std::vector<std::unique_ptr<Access>> accesses;
    StallLaw<L1T> law;
    std::uint64_t token = 1;
    std::size_t sent_seen = 0;
    for (int step = 0; step < 3000; ++step) {
        // A load of 1 to 4 lanes over 12 lines that fall into the L1's two sets.
        std::unique_ptr<Access> next;
        if (rng() % 4 != 0) {
            std::vector<std::uint64_t> addresses;
            const unsigned lanes = 1 + rng() % 4;
            for (unsigned i = 0; i < lanes; ++i) addresses.push_back(std::uint64_t{rng() % 12} * 128 + 4 * i);
            // From three warps: the re-execution queue takes one load per warp (divert_to_reexecution).
            next = std::make_unique<Access>(token, addresses, gpuarch::ir::StateSpace::global, WarpAccess::load, 4,
                                            static_cast<std::uint32_t>(rng() % 3));
        }
        b.hold_down = rng() % 2 == 0; // the network refuses packets now and then: the miss queue fills
        if (b.step(next ? &next->access : nullptr)) {
            ++token;
            accesses.push_back(std::move(next));
        }
        // Every request sent gets its response after 3 to 40 cycles (the L2 and DRAM are not modelled here).
        for (; sent_seen < b.sent.size(); ++sent_seen) b.respond(b.sent[sent_seen].second, b.now + 3 + rng() % 38);
        if (!l1.repeats_stall()) continue;
        ++law.stalls;
        // The cycles b.now .. b.now + k - 1 may be slept: none receives a response or completes a hit.
        gpuarch::core::Cycle limit = l1.next_timed_completion();
        if (limit != std::numeric_limits<gpuarch::core::Cycle>::max()) ++law.hit_pending;
        if (!b.scheduled.empty()) limit = std::min(limit, b.scheduled.begin()->first);
        if (limit <= b.now) continue; // a response or a completion in the very next cycle: nothing to sleep
        const std::uint64_t k = std::min<std::uint64_t>(limit - b.now, 1 + rng() % 30);
        L1T bulk = l1;
        bulk.stalled_cycles(k, b.now + k - 1);
        const std::size_t sent_before = b.sent.size() + b.down.size(), completed_before = b.completions.size();
        const StallCounters before = stall_counters(l1);
        b.hold_down = false; // the port's packets, sent before, are recorded now; the L1 must send no more
        for (std::uint64_t i = 0; i < k; ++i) b.step();
        law.slept += k;
        ++law.stretches;
        INFO("seed " << seed << ", cycles " << b.now - k << " to " << b.now - 1);
        const StallCounters after = stall_counters(l1);
        const std::uint64_t replays = after.replays - before.replays, refusals = after.refusals - before.refusals,
                            lsu_stalled = after.lsu_stalled - before.lsu_stalled;
        if (replays == 0 && (refusals == 0 || refusals == k) && lsu_stalled == k) ++law.lsu_head;
        else if (replays == k && refusals == 0 && lsu_stalled == 0) ++law.queue_waits;
        else if (replays == k && refusals == k && lsu_stalled == k) ++law.queue_waits_lsu_head;
        else if (replays == k && refusals == 0 && lsu_stalled == k) ++law.queue_retries;
        else FAIL_CHECK("a slept stretch moved the counters of no repeated stall");
        CHECK(b.sent.size() == sent_before);
        CHECK(b.completions.size() == completed_before);
        CHECK(l1.repeats_stall());
        CHECK(bulk.lsu_state() == l1.lsu_state());
        CHECK(bulk.can_accept() == l1.can_accept());
        check_same_statistics(l1, bulk);
        // The stalled load's occlusion, reported when it completes, must be the same: run both to the end.
        L1Bench<L1T> bulk_bench(bulk);
        bulk_bench.now = b.now;
        bulk_bench.scheduled = b.scheduled;
        L1T original = l1;
        L1Bench<L1T> original_bench(original);
        original_bench.now = b.now;
        original_bench.scheduled = b.scheduled;
        for (int i = 0; i < 200; ++i) {
            bulk_bench.step();
            original_bench.step();
            for (std::size_t s = original_bench.sent.size();
                 s-- > 0 && original_bench.sent[s].first + 1 == original_bench.now;) {
                const auto delay = 3 + (original_bench.sent[s].second.address / 128) % 7;
                original_bench.respond(original_bench.sent[s].second, original_bench.now + delay);
                bulk_bench.respond(original_bench.sent[s].second, original_bench.now + delay);
            }
        }
        CHECK(bulk_bench.done_at == original_bench.done_at);
        for (const auto& [t, c_orig] : original_bench.completions)
            CHECK(bulk_bench.completions.at(t).occlusion_cycles == c_orig.occlusion_cycles);
    }
    return law;
}

} // namespace

TEST_CASE("L1 stalled sleep: k stalled cycles equal one stalled_cycles(k) and change nothing else") {
    for (std::uint32_t seed = 1; seed <= 6; ++seed) {
        const auto on_miss =
            check_stall_law<L1<Sets<2>, Ways<2>, MSHR<3>, Merges<2>, HitLatency<6>, AllocOnMiss>>(seed);
        const auto on_fill =
            check_stall_law<L1<Sets<2>, Ways<2>, MSHR<2>, Merges<2>, HitLatency<6>, AllocOnFill>>(seed);
        INFO("seed " << seed << ": allocate-on-miss " << on_miss.stalls << " stalls (" << on_miss.hit_pending
                     << " with a hit pending), " << on_miss.slept << " cycles slept; allocate-on-fill "
                     << on_fill.stalls << " (" << on_fill.hit_pending << "), " << on_fill.slept);
        // The streams must reach the stall often, and with hits waiting to complete.
        CHECK(on_miss.stalls > 100);
        CHECK(on_fill.stalls > 100);
        CHECK(on_miss.hit_pending > 10);
        CHECK(on_fill.hit_pending > 10);
        // Without a re-execution queue only the LSU head's stall repeats.
        CHECK(on_miss.lsu_head + on_fill.lsu_head == on_miss.stretches + on_fill.stretches);
    }
}

// MASCAR's re-execution queue (Sethia 2015 Sec. 4.2; l1.reexecution_entries, set for MASCAR): the stalls it adds
// repeat as well, its head waiting for an MSHR or retrying a load the stall memo answers.
TEST_CASE("L1 stalled sleep with a re-execution queue: k stalled cycles equal one stalled_cycles(k)") {
    for (std::uint32_t seed = 1; seed <= 6; ++seed) {
        const auto law =
            check_stall_law<L1<Sets<2>, Ways<2>, MSHR<3>, Merges<2>, HitLatency<6>, AllocOnMiss, ReexecutionQueue<2>>>(
                seed);
        INFO("seed " << seed << ": " << law.stalls << " stalls (" << law.hit_pending << " with a hit pending), "
                     << law.slept << " cycles slept in " << law.stretches << " stretches: " << law.lsu_head
                     << " the LSU head's stall alone, " << law.queue_waits << " the queue's head waiting, "
                     << law.queue_waits_lsu_head << " waiting with the LSU head refused, " << law.queue_retries
                     << " retrying");
        CHECK(law.stalls > 100);
        CHECK(law.hit_pending > 10);
        // Each repeated stall occurs; the LSU head's alone with the queue empty and a load of three or four lines,
        // which the queue's two entries cannot take.
        CHECK(law.lsu_head > 0);
        CHECK(law.queue_waits > 0);
        CHECK(law.queue_waits_lsu_head > 0);
        CHECK(law.queue_retries > 0);
    }
}
