// Laws every Scheduler obeys (timing/concepts.hpp), run over every model of the slot.
#include <doctest/doctest.h>

#include "../support/pool_view.hpp"

#include <gpuarch/sched/ccws.hpp>
#include <gpuarch/sched/gto.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sched/mascar.hpp>
#include <gpuarch/sched/oaws.hpp>
#include <gpuarch/sched/two_level.hpp>

namespace {
using namespace gpuarch;
using test_support::PoolView;
using test_support::random_pool_view;
using test_support::SplitMix;
} // namespace

// The memory-aware schedulers are here too: on a view that shows no instructions (as this one) they see no memory
// instruction to hold back and are work-conserving. SWL<K> withholds warps regardless, so it and the throttling
// behaviour of the others are checked by the throttler laws in throttling_laws.cpp.
#define GPUARCH_ALL_SCHEDULERS sched::LRR, sched::GTO, sched::TwoLevel<1>, sched::TwoLevel<2>, sched::TwoLevel<8>, \
                               sched::TwoLevel<64>, sched::OAWSStatic<50>, sched::OAWSStatic<0>, sched::OAWSDynamic<>, \
                               sched::CCWS<>, sched::MASCAR<>

TEST_CASE_TEMPLATE("a scheduler only ever selects a ready warp, and idles only when none is ready", S,
                   GPUARCH_ALL_SCHEDULERS) {
    static_assert(timing::check_scheduler<S>());
    for (unsigned pool : {1U, 5U, 16U, 48U}) {
        SplitMix rng{pool};
        S s(timing::SchedulerConfig{pool, 0});
        for (unsigned slot = 0; slot < pool; ++slot) s.on_warp_start(slot);
        for (int step = 0; step < 2000; ++step) {
            const PoolView view = random_pool_view(rng, pool);
            const unsigned pick = s.select(view);
            bool any_ready = false;
            for (unsigned i = 0; i < pool; ++i) any_ready = any_ready || view.ready(i);
            if (pick == timing::no_warp) {
                REQUIRE_FALSE(any_ready); // work-conserving
            } else {
                REQUIRE(pick < pool);
                REQUIRE(view.ready(pick)); // never a warp that is not ready
                s.on_issue(pick, static_cast<core::Cycle>(step));
            }
        }
    }
}

TEST_CASE_TEMPLATE("a scheduler is a deterministic function of its history and the view", S, GPUARCH_ALL_SCHEDULERS) {
    SplitMix rng_a{7}, rng_b{7};
    S a(timing::SchedulerConfig{24, 0}), b(timing::SchedulerConfig{24, 0});
    for (int step = 0; step < 1000; ++step) {
        const PoolView va = random_pool_view(rng_a, 24), vb = random_pool_view(rng_b, 24);
        const unsigned pa = a.select(va), pb = b.select(vb);
        REQUIRE(pa == pb);
        if (pa != timing::no_warp) {
            a.on_issue(pa, 0);
            b.on_issue(pb, 0);
        }
    }
}
