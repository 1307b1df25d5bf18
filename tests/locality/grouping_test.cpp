// sched::LocalityTwoLevel in isolation: the warp groups of each launch hint on a small grid (Gong 2020 Sec. 6.3.2),
// the two-level selection (round-robin inside the active group, round-robin switch when the group is stalled), the
// scheduler laws for every hint, and hint 0 deciding exactly as loose round-robin.
#include <doctest/doctest.h>

#include "../support/pool_view.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

#include <gpuarch/core/dim3.hpp>

#include <gpuarch/sched/locality_two_level.hpp>
#include <gpuarch/sched/lrr.hpp>

using namespace gpuarch;

namespace {

// Ages are the slot indices (slot 0 the oldest).
using View = test_support::PoolView;
static_assert(timing::Scheduler<sched::LocalityTwoLevel<>>);

View all_ready(unsigned n) {
    return View{std::vector<bool>(n, true), {}, std::vector<bool>(n, false), std::vector<bool>(n, true)};
}

// A pool of 8 slots holding a 2 x 2 grid of 2-warp CTAs: slots 0,1 = block (0,0) warps 0,1; 2,3 = block (1,0);
// 4,5 = block (0,1); 6,7 = block (1,1).
sched::LocalityTwoLevel<> pool_with_hint(unsigned hint) {
    sched::LocalityTwoLevel<> s(timing::SchedulerConfig{8, 0});
    s.on_kernel_launch();
    s.on_launch_hint(hint);
    const core::Dim3 blocks[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
    for (unsigned slot = 0; slot < 8; ++slot) {
        s.on_warp_start(slot);
        s.on_warp_origin(slot, blocks[slot / 2], slot % 2, 2);
    }
    return s;
}

std::vector<unsigned> groups(const sched::LocalityTwoLevel<>& s) {
    std::vector<unsigned> g;
    for (unsigned slot = 0; slot < 8; ++slot) g.push_back(s.group_of(slot));
    return g;
}

using test_support::SplitMix;

View random_view(SplitMix& rng, unsigned pool) {
    return test_support::random_pool_view(rng, pool, /*draw_ages=*/false);
}

} // namespace

std::uint64_t groups_formed(const sched::LocalityTwoLevel<>& s) {
    struct Visitor {
        std::uint64_t value = 0;
        void counter(std::string_view name, std::uint64_t v, std::string_view) {
            if (name == "locality_groups_formed") value = v;
        }
    } visitor;
    s.visit_stats(visitor);
    return visitor.value;
}

TEST_CASE("hint 1 groups the same warp index of blocks with the same blockIdx.y") {
    // (y=0, warp 0): slots 0, 2; (y=0, warp 1): 1, 3; (y=1, warp 0): 4, 6; (y=1, warp 1): 5, 7.
    const sched::LocalityTwoLevel<> s = pool_with_hint(1);
    CHECK(groups(s) == std::vector<unsigned>{0, 1, 0, 1, 2, 3, 2, 3});
    CHECK(groups_formed(s) == 4);
}

TEST_CASE("hint 2 groups warps of one blockIdx.x, pairing the last warp of a block with the first of the next row") {
    // Column x = 0: rows block(0,0).w0 = 0, .w1 = 1, block(0,1).w0 = 2, .w1 = 3 -> pairs {0}, {1, 2}, {3}.
    // "warp 1 from the block(0,0) and warp 0 from the block(0,1) will be in the same group": slots 1 and 4.
    const sched::LocalityTwoLevel<> s = pool_with_hint(2);
    CHECK(groups(s) == std::vector<unsigned>{0, 1, 2, 3, 1, 4, 3, 5});
    CHECK(groups_formed(s) == 6);
}

TEST_CASE("hint 3 deals warps round-robin into RoundRobinGroups groups; hint 0 is one group") {
    CHECK(groups(pool_with_hint(3)) == std::vector<unsigned>{0, 1, 2, 3, 0, 1, 2, 3});
    CHECK(groups(pool_with_hint(0)) == std::vector<unsigned>(8, 0));
    sched::LocalityTwoLevel<> s(timing::SchedulerConfig{8, 0});
    CHECK_THROWS_AS(s.on_launch_hint(4), Error);
}

TEST_CASE("two-level selection: round-robin inside the active group, switch round-robin when it stalls") {
    sched::LocalityTwoLevel<> s = pool_with_hint(1); // groups {0,2} {1,3} {4,6} {5,7}
    View v = all_ready(8);
    const auto issue = [&] {
        const unsigned pick = s.select(v);
        if (pick != timing::no_warp) s.on_issue(pick, 0);
        return pick;
    };
    CHECK(issue() == 0);
    CHECK(issue() == 2);
    CHECK(issue() == 0); // stays in group 0 while it has a ready warp
    v.ready_[0] = v.ready_[2] = false;
    v.long_latency_[0] = v.long_latency_[2] = true;
    CHECK(issue() == 1); // group 0 stalled on memory: next group (1)
    CHECK(issue() == 3);
    v.ready_[1] = v.ready_[3] = false;
    v.ready_[4] = v.ready_[6] = false;
    CHECK(issue() == 5); // group 2 has nothing ready either: group 3
    CHECK(issue() == 7);
    v.ready_.assign(8, false);
    CHECK(issue() == timing::no_warp);
    v.ready_[2] = true;
    CHECK(issue() == 2); // wraps around to group 0
    std::uint64_t on_stall = 0, premature = 0;
    struct Visitor {
        std::uint64_t *stall, *early;
        void counter(std::string_view name, std::uint64_t value, std::string_view) {
            if (name == "group_switches_on_stall") *stall = value;
            if (name == "group_switches_premature") *early = value;
        }
    } visitor{&on_stall, &premature};
    s.visit_stats(visitor);
    CHECK(on_stall == 1); // group 0 -> 1: both warps waited on memory
    CHECK(premature == 2); // group 1 -> 3 and group 3 -> 0: not memory stalls
}

TEST_CASE_TEMPLATE("laws: only ready warps, idle only when none is ready, for every hint", Hint,
                   std::integral_constant<unsigned, 0>, std::integral_constant<unsigned, 1>,
                   std::integral_constant<unsigned, 2>, std::integral_constant<unsigned, 3>) {
    for (unsigned pool : {1U, 5U, 16U}) {
        SplitMix rng{pool * 7 + Hint::value};
        sched::LocalityTwoLevel<> s(timing::SchedulerConfig{pool, 0});
        s.on_kernel_launch();
        s.on_launch_hint(Hint::value);
        for (unsigned slot = 0; slot < pool; ++slot) {
            s.on_warp_start(slot);
            s.on_warp_origin(slot, core::Dim3{slot % 3, slot / 5, 0}, slot % 4, 4);
        }
        for (int step = 0; step < 2000; ++step) {
            const View view = random_view(rng, pool);
            const unsigned pick = s.select(view);
            bool any_ready = false;
            for (unsigned i = 0; i < pool; ++i) any_ready = any_ready || view.ready(i);
            if (pick == timing::no_warp) {
                REQUIRE_FALSE(any_ready);
            } else {
                REQUIRE(pick < pool);
                REQUIRE(view.ready(pick));
                s.on_issue(pick, static_cast<core::Cycle>(step));
            }
        }
    }
}

TEST_CASE("hint 0 decides exactly as loose round-robin") {
    for (unsigned pool : {1U, 6U, 16U}) {
        SplitMix rng{pool};
        sched::LocalityTwoLevel<> s(timing::SchedulerConfig{pool, 0});
        sched::LRR lrr(timing::SchedulerConfig{pool, 0});
        s.on_kernel_launch();
        s.on_launch_hint(0);
        for (unsigned slot = 0; slot < pool; ++slot) {
            s.on_warp_start(slot);
            s.on_warp_origin(slot, core::Dim3{slot, 0, 0}, 0, 1);
            lrr.on_warp_start(slot);
        }
        for (int step = 0; step < 3000; ++step) {
            const View view = random_view(rng, pool);
            const unsigned a = s.select(view), b = lrr.select(view);
            REQUIRE(a == b);
            if (a != timing::no_warp) {
                s.on_issue(a, 0);
                lrr.on_issue(b, 0);
            }
        }
    }
}
