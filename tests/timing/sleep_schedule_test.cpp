// GPU::launch's sleeping SMs (gpu.hpp, detail::SleepSchedule): the SMs visited in each cycle, and the cycles handed
// to each sleeper when it wakes, must be exactly what a visit of every SM in every cycle would have counted. A
// reference model visits every SM in every cycle and counts each cycle an SM spends asleep; the schedule must visit
// the same SMs in the same order and hand over the same counts, ending at the same cycles.
#include <doctest/doctest.h>

#include <gpuarch/gpu.hpp>

#include <cstdint>
#include <random>
#include <vector>

using namespace gpuarch;

namespace {

template <unsigned N> void check_against_every_cycle_model(std::uint32_t seed) {
    std::mt19937 rng(seed);
    detail::SleepSchedule<N> schedule;
    // The model: each SM's wake-up cycle (0: awake) and the cycles it skipped since it fell asleep.
    std::vector<core::Cycle> until(N, 0);
    std::vector<std::uint64_t> skipped(N, 0);
    std::vector<core::Cycle> last_skipped(N, 0);
    std::uint64_t handed_cycles = 0, expected_cycles = 0;
    auto expect_hand_over = [&](unsigned i) {
        expected_cycles += skipped[i];
        skipped[i] = 0;
        until[i] = 0;
    };
    auto hand = [&](unsigned i, std::uint64_t n, core::Cycle last) {
        REQUIRE(i < N);
        CHECK(n == skipped[i]);
        CHECK(last == last_skipped[i]);
        handed_cycles += n;
    };
    for (core::Cycle now = 0; now < 20000; ++now) {
        // Before the visits: sleepers whose time has come wake (and get their cycles).
        schedule.wake_due(now, hand);
        schedule.wake_due(now, hand); // a second call in the same cycle changes nothing
        for (unsigned i = 0; i < N; ++i)
            if (until[i] != 0 && until[i] <= now) expect_hand_over(i);
        // The visits, in index order: exactly the awake SMs.
        std::vector<unsigned> visited;
        detail::SleepSchedule<N>::for_each(schedule.awake_set(), [&](unsigned i) { visited.push_back(i); });
        std::vector<unsigned> expected;
        for (unsigned i = 0; i < N; ++i) {
            if (until[i] == 0) expected.push_back(i);
            else {
                ++skipped[i];
                last_skipped[i] = now;
            }
        }
        REQUIRE(visited == expected);
        // Each visited SM answers: mostly stay awake, sometimes sleep for a while, sometimes "until the next cycle"
        // (which is no sleep), sometimes for good (an SM without work).
        for (unsigned i : visited) {
            const unsigned r = rng() % 10;
            core::Cycle answer = 0;
            if (r == 0) answer = now + 1;
            else if (r <= 3) answer = now + 2 + rng() % 50;
            else if (r == 4) answer = detail::SleepSchedule<N>::never;
            schedule.after_visit(i, now, answer);
            if (answer > now + 1) until[i] = answer;
        }
        // Something reaches a few SMs in the middle of the cycle (responses): they wake with this cycle skipped.
        if (rng() % 3 == 0) {
            const unsigned i = rng() % N;
            schedule.wake(i, now + 1, hand);
            if (until[i] != 0) expect_hand_over(i);
            CHECK(schedule.awake(i));
        }
        // Now and then everything is read (a dispatch, a statistics read): every sleeper wakes.
        if (rng() % 500 == 0) {
            schedule.wake_all(now + 1, hand);
            for (unsigned i = 0; i < N; ++i)
                if (until[i] != 0) expect_hand_over(i);
        }
    }
    schedule.wake_all(20000, hand);
    for (unsigned i = 0; i < N; ++i)
        if (until[i] != 0) expect_hand_over(i);
    CHECK(handed_cycles == expected_cycles);
    CHECK(handed_cycles > 0);
}

} // namespace

TEST_CASE("sleeping SMs: the schedule visits and hands over what a visit of every SM in every cycle counts") {
    check_against_every_cycle_model<1>(1);
    check_against_every_cycle_model<15>(2);
    check_against_every_cycle_model<64>(3);
    check_against_every_cycle_model<100>(4); // more SMs than one mask word
}

TEST_CASE("sleeping SMs: an SM woken before its cycle has nothing to hand over") {
    detail::SleepSchedule<4> schedule;
    unsigned calls = 0;
    auto hand = [&](unsigned, std::uint64_t, core::Cycle) { ++calls; };
    schedule.after_visit(2, 10, 30); // asleep from cycle 11
    CHECK_FALSE(schedule.awake(2));
    schedule.wake(2, 11, hand); // reached before its first skipped cycle ticked
    CHECK(schedule.awake(2));
    CHECK(calls == 0);
    schedule.after_visit(2, 10, 11); // asleep until its next cycle: no sleep
    CHECK(schedule.awake(2));
}
