// The L1's stall memo (L1Unit::stall_answers) only ever answers what a fresh search of the tags and the MSHRs would
// find for a retried load. Checked by running two copies of an L1 on the same random stream, one of which forgets
// the memo before every cycle (forget_stall_memo), and requiring the same LSU state, packets, completions and
// statistics in every cycle. The streams reach each kind of stall (no MSHR, no merge slot, every way reserved) with
// responses arriving in between, for fills of the stalled load's own set and of the other set, with and without
// MASCAR's re-execution queue (whose replays share the L1 port, the memo and the MSHRs with the LSU head).
#include <cstdint>
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

struct StallCounts {
    std::uint64_t no_way = 0, mshr_full = 0, merge_full = 0;
};

template <class L1T> StallCounts check_memo(std::uint32_t seed) {
    L1T kept({}, 0), forgetting({}, 0);
    L1Bench<L1T> a(kept, 1), b(forgetting, 1);
    std::mt19937 rng(seed);
    std::vector<std::unique_ptr<Access>> accesses;
    std::uint64_t token = 1;
    std::size_t answered = 0;
    for (int step = 0; step < 4000; ++step) {
        // Loads of 1 to 6 lanes over 10 lines in the L1's two sets, now and then a store (which evicts its line).
        std::unique_ptr<Access> next;
        if (rng() % 3 != 0) {
            std::vector<std::uint64_t> addresses;
            const unsigned lanes = 1 + rng() % 6;
            for (unsigned i = 0; i < lanes; ++i) addresses.push_back(std::uint64_t{rng() % 10} * 128 + 4 * i);
            const auto kind = rng() % 8 == 0 ? WarpAccess::store : WarpAccess::load;
            next = std::make_unique<Access>(token, addresses, gpuarch::ir::StateSpace::global, kind, 4,
                                            static_cast<std::uint32_t>(rng() % 4));
        }
        a.hold_down = b.hold_down = rng() % 3 == 0; // a network that refuses packets now and then
        forgetting.forget_stall_memo();
        const bool accepted_a = a.step(next ? &next->access : nullptr);
        const bool accepted_b = b.step(next ? &next->access : nullptr);
        INFO("seed " << seed << ", cycle " << a.now - 1);
        REQUIRE(accepted_a == accepted_b);
        if (accepted_a) {
            ++token;
            accesses.push_back(std::move(next));
        }
        REQUIRE(a.states.back() == b.states.back());
        REQUIRE(a.sent.size() == b.sent.size());
        REQUIRE(a.completions.size() == b.completions.size());
        // Every request gets its response after 2 to 30 cycles, the same in both.
        for (; answered < a.sent.size(); ++answered) {
            REQUIRE(a.sent[answered].second.address == b.sent[answered].second.address);
            REQUIRE(a.sent[answered].second.id == b.sent[answered].second.id);
            const auto at = a.now + 2 + rng() % 29;
            a.respond(a.sent[answered].second, at);
            b.respond(b.sent[answered].second, at);
        }
        if (step % 97 == 0 || step == 3999) {
            check_same_statistics(kept, forgetting);
        }
    }
    for (const auto& [t, c] : a.completions) {
        CHECK(b.completions.at(t).occlusion_cycles == c.occlusion_cycles);
        CHECK(b.done_at.at(t) == a.done_at.at(t));
    }
    const auto s = stats_of(kept);
    return {s.counter("reservation_fail_cycles"), s.counter("mshr_full_stall_cycles"),
            s.counter("merge_full_stall_cycles")};
}

} // namespace

TEST_CASE("the L1's stall memo answers as a fresh search would, in every cycle") {
    for (std::uint32_t seed = 1; seed <= 5; ++seed) {
        const auto plain = check_memo<L1<Sets<2>, Ways<2>, MSHR<3>, Merges<2>, HitLatency<4>, AllocOnMiss>>(seed);
        const auto roomy = check_memo<L1<Sets<2>, Ways<2>, MSHR<6>, Merges<3>, HitLatency<4>, AllocOnMiss>>(seed);
        const auto reexec = check_memo<
            L1<Sets<2>, Ways<2>, MSHR<4>, Merges<2>, LsuQueue<2>, ReexecutionQueue<6>, HitLatency<4>, AllocOnMiss>>(
            seed);
        // A queue too short for most stalled loads: the LSU head often stays, retrying its line, while the queue's
        // earlier entries take the port and allocate MSHRs in between.
        const auto short_queue = check_memo<
            L1<Sets<2>, Ways<2>, MSHR<3>, Merges<2>, LsuQueue<2>, ReexecutionQueue<2>, HitLatency<4>, AllocOnMiss>>(
            seed);
        INFO("seed " << seed);
        // Each kind of stall must occur often (seeds 1 to 5 give 133 to 2,046 cycles of each where checked).
        CHECK(plain.no_way > 300);
        CHECK(plain.mshr_full > 300);
        CHECK(plain.merge_full > 50);
        CHECK(roomy.no_way > 1000);
        CHECK(reexec.no_way > 500);
        CHECK(reexec.mshr_full > 200);
        CHECK(reexec.merge_full > 50);
        CHECK(short_queue.no_way > 500);
        CHECK(short_queue.mshr_full > 500);
        CHECK(short_queue.merge_full > 50);
    }
}
