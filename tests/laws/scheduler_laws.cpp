// Laws every Scheduler obeys (timing/concepts.hpp), run over every model of the slot, on a view that previews
// instructions and reports barrier waits as the SM's does (timing/hooks.hpp), so the memory-aware schedulers run
// their own policy here, not a fallback.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "../support/pool_view.hpp"

#include <gpuarch/ir/instruction.hpp>
#include <gpuarch/sched/ccws.hpp>
#include <gpuarch/sched/gto.hpp>
#include <gpuarch/sched/haws.hpp>
#include <gpuarch/sched/locality_two_level.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sched/mascar.hpp>
#include <gpuarch/sched/oaws.hpp>
#include <gpuarch/sched/swl.hpp>
#include <gpuarch/sched/two_level.hpp>
#include <gpuarch/sched/two_level_active.hpp>
#include <gpuarch/timing/hooks.hpp>

namespace {
using namespace gpuarch;
using test_support::random_pool_view;
using test_support::SplitMix;

// The instructions a warp may have next: a global load (the memory-aware schedulers hold these back), a global
// store, a shared-memory load and an ALU op.
const std::array<ir::Instruction, 4>& next_instructions() {
    static const std::array<ir::Instruction, 4> insts = [] {
        std::array<ir::Instruction, 4> a{};
        a[0].op = ir::Opcode::ld;
        a[0].op_class = ir::OpClass::load_global;
        a[1].op = ir::Opcode::st;
        a[1].op_class = ir::OpClass::store_global;
        a[2].op = ir::Opcode::ld;
        a[2].op_class = ir::OpClass::load_shared;
        a[3].op = ir::Opcode::add;
        a[3].op_class = ir::OpClass::int_alu;
        return a;
    }();
    return insts;
}

// test_support::PoolView plus what the SM's view also shows: each warp's next instruction, its lanes and PC, barrier
// waits, and an L1 whose MSHRs and miss queue are drawn at random.
struct PreviewView : test_support::PoolView {
    std::vector<const ir::Instruction*> next_;
    std::vector<unsigned> lanes_;
    std::vector<bool> barrier_;
    timing::L1View l1_{};
    core::Cycle now_ = 0;
    const ir::Instruction* next_instruction(unsigned i) const { return next_[i]; }
    unsigned next_active_lanes(unsigned i) const { return lanes_[i]; }
    ir::Pc next_pc(unsigned i) const { return next_[i] == nullptr ? ir::no_pc : static_cast<ir::Pc>(i * 8); }
    bool waiting_at_barrier(unsigned i) const { return barrier_[i]; }
    timing::L1View l1() const { return l1_; }
    core::Cycle now() const { return now_; }
};
static_assert(timing::PreviewsInstructions<PreviewView>);
static_assert(timing::ReportsBarrierWaits<PreviewView>);

PreviewView random_preview_view(SplitMix& rng, unsigned pool, core::Cycle now) {
    PreviewView v;
    static_cast<test_support::PoolView&>(v) = random_pool_view(rng, pool);
    for (unsigned i = 0; i < pool; ++i) {
        const bool occupied = v.occupied(i);
        v.next_.push_back(occupied && rng.next() % 8 != 0 ? &next_instructions()[rng.next() % 4] : nullptr);
        v.lanes_.push_back(v.next_.back() == nullptr ? 0 : 1 + static_cast<unsigned>(rng.next() % 32));
        v.barrier_.push_back(occupied && !v.ready(i) && rng.next() % 5 == 0);
    }
    v.l1_.mshr_total = 32;
    v.l1_.mshr_free = static_cast<unsigned>(rng.next() % 33);
    v.l1_.miss_queue_total = 8;
    v.l1_.miss_queue_free = static_cast<unsigned>(rng.next() % 9);
    v.l1_.lsu_queue_depth = static_cast<unsigned>(rng.next() % 4);
    v.now_ = now;
    return v;
}

// Runs `steps` selections of scheduler S on random views of `pool` slots and calls check(view, pick) for each.
template <class S, class Check> void run_scheduler(unsigned pool, std::uint64_t seed, int steps, Check&& check) {
    SplitMix rng{seed};
    S s(timing::SchedulerConfig{pool, 0});
    for (unsigned slot = 0; slot < pool; ++slot) s.on_warp_start(slot);
    for (int step = 0; step < steps; ++step) {
        const PreviewView view = random_preview_view(rng, pool, static_cast<core::Cycle>(step));
        const unsigned pick = s.select(view);
        check(view, pick);
        if (pick != timing::no_warp && pick < pool) s.on_issue(pick, static_cast<core::Cycle>(step));
    }
}

} // namespace

// Every model of the slot. The throttlers (SWL, CCWS, OAWS, MASCAR) and TwoLevelActive (GPGPU-Sim's pending pool)
// withhold ready warps by design; what they may withhold is checked by the throttler laws (throttling_laws.cpp).
#define GPUARCH_ALL_SCHEDULERS                                                                                         \
    sched::LRR, sched::GTO, sched::TwoLevel<1>, sched::TwoLevel<2>, sched::TwoLevel<8>, sched::TwoLevel<64>,           \
        sched::TwoLevelActive<6>, sched::LocalityTwoLevel<>, sched::SWL<2>, sched::OAWSStatic<50>,                     \
        sched::OAWSStatic<0>, sched::OAWSDynamic<>, sched::CCWS<>, sched::MASCAR<>,                                    \
        sched::HAWSScheduler<sched::RCU<8>>
#define GPUARCH_WORK_CONSERVING_SCHEDULERS                                                                             \
    sched::LRR, sched::GTO, sched::TwoLevel<1>, sched::TwoLevel<2>, sched::TwoLevel<8>, sched::TwoLevel<64>,           \
        sched::LocalityTwoLevel<>, sched::HAWSScheduler<sched::RCU<8>>

TEST_CASE_TEMPLATE("a scheduler only ever selects a ready warp of its pool", S, GPUARCH_ALL_SCHEDULERS) {
    static_assert(timing::check_scheduler<S>());
    for (unsigned pool : {1U, 5U, 16U, 48U})
        run_scheduler<S>(pool, pool, 2000, [pool](const PreviewView& view, unsigned pick) {
            if (pick == timing::no_warp) return;
            REQUIRE(pick < pool);
            REQUIRE(view.ready(pick));
        });
}

TEST_CASE_TEMPLATE("a work-conserving scheduler idles only when no warp is ready", S,
                   GPUARCH_WORK_CONSERVING_SCHEDULERS) {
    for (unsigned pool : {1U, 5U, 16U, 48U})
        run_scheduler<S>(pool, 100 + pool, 2000, [pool](const PreviewView& view, unsigned pick) {
            if (pick != timing::no_warp) return;
            for (unsigned i = 0; i < pool; ++i) REQUIRE_FALSE(view.ready(i));
        });
}

TEST_CASE_TEMPLATE("a scheduler is a deterministic function of its history and the view", S, GPUARCH_ALL_SCHEDULERS) {
    std::vector<unsigned> first, second;
    run_scheduler<S>(24, 7, 1000, [&first](const PreviewView&, unsigned pick) { first.push_back(pick); });
    run_scheduler<S>(24, 7, 1000, [&second](const PreviewView&, unsigned pick) { second.push_back(pick); });
    CHECK(first == second);
}
