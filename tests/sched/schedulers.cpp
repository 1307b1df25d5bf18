#include <doctest/doctest.h>

#include "../support/pool_view.hpp"

#include <gpuarch/sched/gto.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sched/rcu.hpp>
#include <gpuarch/sched/two_level.hpp>
#include <gpuarch/sched/two_level_active.hpp>

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace {
using namespace gpuarch;
using View = test_support::PoolView; // {ready}, {age}, {long-latency}; every slot occupied
} // namespace

TEST_CASE("LRR issues the next ready warp after the one that issued last") {
    sched::LRR s(timing::SchedulerConfig{4, 0});
    View v{{true, true, true, true}, {0, 1, 2, 3}, {}};
    std::vector<unsigned> order;
    for (int i = 0; i < 6; ++i) {
        const unsigned w = s.select(v);
        order.push_back(w);
        s.on_issue(w, 0);
    }
    CHECK(order == std::vector<unsigned>{0, 1, 2, 3, 0, 1});
    v.ready_ = {true, false, false, true};
    CHECK(s.select(v) == 3); // after warp 1: 2 is not ready, 3 is
}

TEST_CASE("GTO keeps issuing the same warp until it stalls, then the oldest ready warp") {
    sched::GTO s(timing::SchedulerConfig{4, 0});
    View v{{true, true, true, true}, {30, 10, 20, 40}, {}};
    CHECK(s.select(v) == 1); // oldest
    s.on_issue(1, 0);
    v.ready_ = {true, true, true, true};
    CHECK(s.select(v) == 1); // greedy
    v.ready_ = {true, false, true, true};
    CHECK(s.select(v) == 2); // warp 1 stalled: oldest ready is warp 2 (age 20)
    s.on_issue(2, 1);
    v.ready_ = {true, true, true, true};
    CHECK(s.select(v) == 2); // now greedy on warp 2, even though warp 1 is older
}

TEST_CASE("TwoLevel stays in its fetch group until every warp of it stalls") {
    sched::TwoLevel<2> s(timing::SchedulerConfig{4, 0});
    View v{{true, true, true, true}, {0, 1, 2, 3}, {false, false, false, false}};
    std::vector<unsigned> order;
    for (int i = 0; i < 4; ++i) {
        const unsigned w = s.select(v);
        order.push_back(w);
        s.on_issue(w, 0);
    }
    CHECK(order == std::vector<unsigned>{0, 1, 0, 1}); // group {0,1} only
    v.ready_ = {false, false, true, true};
    v.long_latency_ = {true, true, false, false};
    CHECK(s.select(v) == 2); // group {0,1} waits on memory: switch to {2,3}
}

TEST_CASE("TwoLevel with one group covering the pool selects exactly like LRR") {
    sched::LRR lrr(timing::SchedulerConfig{6, 0});
    sched::TwoLevel<8> two(timing::SchedulerConfig{6, 0});
    std::uint64_t seed = 1;
    for (int i = 0; i < 500; ++i) {
        View v{{}, {0, 1, 2, 3, 4, 5}, {}};
        for (int k = 0; k < 6; ++k) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            v.ready_.push_back((seed >> 33) % 3 == 0);
        }
        const unsigned a = lrr.select(v), b = two.select(v);
        REQUIRE(a == b);
        if (a != timing::no_warp) {
            lrr.on_issue(a, 0);
            two.on_issue(b, 0);
        }
    }
}

namespace {
struct CounterVisitor {
    std::uint64_t demotions = 0, withheld = 0;
    void counter(std::string_view name, std::uint64_t value, std::string_view) {
        if (name == "two_level_demotions") demotions = value;
        if (name == "two_level_withheld_cycles") withheld = value;
    }
};
} // namespace

// GPGPU-Sim's two_level_active, traced by hand on 5 warps with an active pool of 2 (header of two_level_active.hpp).
TEST_CASE("TwoLevelActive demotes waiting warps to the back of the pending queue and refills from its front") {
    sched::TwoLevelActive<2> s(timing::SchedulerConfig{5, 0});
    const auto step = [&](std::vector<bool> ready, std::vector<bool> long_latency, std::vector<bool> occupied = {}) {
        const View v{std::move(ready), {}, std::move(long_latency), std::move(occupied)};
        const unsigned w = s.select(v);
        if (w != timing::no_warp) s.on_issue(w, 0);
        return w;
    };
    const std::vector<bool> none(5, false);
    CHECK(step({true, true, true, true, true}, none) == 0); // active [0 1], pending [2 3 4]; rotate to [1 0]
    CHECK(step({true, true, true, true, true}, none) == 1); // rotate to [0 1]
    // Warp 0 waits on a load: demoted behind 4, warp 2 promoted. Active [1 2], pending [3 4 0].
    CHECK(step({false, true, true, true, true}, {true, false, false, false, false}) == 1);
    // Warp 1 waits too: active [2 3], pending [4 0 1].
    CHECK(step({false, false, true, true, true}, {true, true, false, false, false}) == 2);
    // Warps 2 and 3 stall on short hazards: they stay active, and the ready pending warp 4 does not issue.
    {
        const View v{{false, false, false, false, true}, {}, {true, true, false, false, false}, {}};
        CHECK(s.select(v) == timing::no_warp);
        CHECK(s.withholds(v, 4));
        CHECK_FALSE(s.withholds(v, 2));
    }
    // Warp 0's load returned, but it is pending: active warp 2 issues.
    CHECK(step({true, false, true, false, true}, {false, true, false, false, false}) == 2);
    // Warp 3 exits: its empty slot is demoted, and warp 4 is promoted. Active [2 4], pending [0 1 3].
    CHECK(step({true, true, false, false, true}, none, {true, true, true, false, true}) == 4);
    CounterVisitor c;
    s.visit_stats(c);
    CHECK(c.demotions == 2); // warps 0 and 1; the exited warp's slot is not counted
    CHECK(c.withheld == 1);
    CHECK(sched::TwoLevelActive<6>::name == "TwoLevelActive<6>");
}

TEST_CASE("TwoLevelActive with every warp active and none waiting selects exactly like LRR") {
    sched::LRR lrr(timing::SchedulerConfig{6, 0});
    sched::TwoLevelActive<8> two(timing::SchedulerConfig{6, 0});
    std::uint64_t seed = 3;
    for (int i = 0; i < 500; ++i) {
        View v{{}, {}, {}};
        for (int k = 0; k < 6; ++k) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            v.ready_.push_back((seed >> 33) % 3 == 0);
        }
        const unsigned a = lrr.select(v), b = two.select(v);
        REQUIRE(a == b);
        if (a != timing::no_warp) {
            lrr.on_issue(a, 0);
            two.on_issue(b, 0);
        }
    }
}

TEST_CASE("the RCU keeps entries in increasing offset order and refuses when full") {
    sched::RCU<3> rcu;
    CHECK(rcu.insert(5, 10, 10, false));
    CHECK(rcu.insert(2, 11, 40, false));
    CHECK(rcu.insert(9, 12, 12, true));
    CHECK(rcu.full());
    CHECK_FALSE(rcu.insert(1, 13, 13, false));
    CHECK(rcu[0].offset == 2);
    CHECK(rcu[1].offset == 5);
    CHECK(rcu[2].offset == 9);
    CHECK(rcu.mark_ready(5));
    CHECK_FALSE(rcu.mark_ready(7));
    auto head = rcu.pop_head();
    REQUIRE(head);
    CHECK(head->offset == 2);
    CHECK(head->renamed == 40);
    CHECK(rcu[0].ready);
    CHECK(rcu.size() == 2);
}

TEST_CASE("an RCU of depth 8 is 224 bits per warp (Gong 2020 Sec. 5.5: 8 x 28 bits)") {
    CHECK(sched::RCU<8>::storage_bits == 224);
    CHECK(sched::RCU<8>::storage_bits * 40 == 8960); // 40 warps per SM
}
