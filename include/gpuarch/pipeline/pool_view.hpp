#pragma once
// pipeline::PoolView<Core>: what one of SM's schedulers sees of its warp pool in an issue step (the
// timing::SchedulerView concept, with the PreviewsInstructions and ReportsBarrierWaits hooks of timing/hooks.hpp).
// Readiness is IssueStage's: computed on first use in a cycle, or precomputed as a mask by event-driven issue.
#include <bit>
#include <cstdint>

#include <gpuarch/core/cycle.hpp>
#include <gpuarch/ir/instruction.hpp>
#include <gpuarch/timing/interfaces.hpp>

namespace gpuarch::pipeline {

template <class Core> struct PoolView {
    const Core* sm;
    unsigned scheduler;
    std::uint8_t* ready_flags; // per pool slot: 0 not yet known, 1 ready, 2 not ready
    unsigned pool;
    std::uint64_t ready_bits = 0; // event_driven_issue: bit i set when slot i is ready (computed before select)
    unsigned pool_size() const { return pool; }
    bool occupied(unsigned i) const { return sm->slot_occupied(scheduler, i); }
    // Computed on first use in a cycle: a greedy scheduler that finds its warp ready looks at no other.
    bool ready(unsigned i) const {
        if constexpr (Core::event_driven_issue) return (ready_bits >> i) & 1U;
        std::uint8_t& flag = ready_flags[i];
        if (flag == 0) {
            flag = sm->slot_occupied(scheduler, i) &&
                           sm->issue_.pool_outcome(*sm, scheduler, i) == timing::IssueOutcome::issued
                       ? 1
                       : 2;
        }
        return flag == 1;
    }
    // Every ready slot at once, bit i for slot i (pools of at most 64 slots): schedulers that scan for a ready
    // warp may iterate these bits instead of asking ready() of every slot.
    std::uint64_t ready_mask() const {
        if constexpr (Core::event_driven_issue) return ready_bits;
        std::uint64_t bits = 0;
        if constexpr (Core::max_pool <= 64) {
            for (std::uint64_t m = sm->occupied_slots_[scheduler]; m != 0; m &= m - 1) // an empty slot is never ready
                if (const auto i = static_cast<unsigned>(std::countr_zero(m)); ready(i)) bits |= std::uint64_t{1} << i;
        } else {
            for (unsigned i = 0; i < pool && i < 64; ++i)
                if (ready(i)) bits |= std::uint64_t{1} << i;
        }
        return bits;
    }
    std::uint64_t age(unsigned i) const { return sm->warps_[sm->slot_of(scheduler, i)].age; }
    // Every slot i for which !occupied(i) || long_latency_pending(i) || waiting_at_barrier(i), bit i for slot i: the
    // warps a two-level scheduler moves out of its active pool, in one read instead of three queries per slot. Under
    // event-driven issue with in-order fetch only, and current while the scheduler selects (the issue step brings the
    // masks it comes from up to date before it calls select).
    std::uint64_t waiting_mask() const requires(Core::event_driven_issue && Core::in_order_fetch) {
        return sm->issue_.waiting_slots(*sm, scheduler);
    }
    bool long_latency_pending(unsigned i) const {
        const auto& w = sm->warps_[sm->slot_of(scheduler, i)];
        return w.occupied && w.long_pending > 0 && w.ib_count > 0 &&
               sm->head_blocked_by_long(sm->slot_of(scheduler, i));
    }
    // The decoded instruction a warp would issue next (nullptr when its instruction buffer is empty), and how
    // many lanes execute it; OAWS predicts a load's misses from these (Wang 2016 Sec. 4.1). Under event-driven
    // issue, a ready warp's lanes, PC and op class come from what IssueStage keeps of its head instruction.
    const ir::Instruction* next_instruction(unsigned i) const {
        const auto& w = sm->warps_[sm->slot_of(scheduler, i)];
        return w.occupied && w.ib_count > 0 ? sm->records_[w.ibuffer[w.ib_head]].result.instruction : nullptr;
    }
    // The op class of a ready slot's next instruction. Precondition: ready(i).
    ir::OpClass ready_next_class(unsigned i) const requires Core::event_driven_issue {
        return sm->issue_.head_preview(sm->slot_of(scheduler, i)).op_class;
    }
    unsigned next_active_lanes(unsigned i) const {
        if constexpr (Core::event_driven_issue)
            if (ready(i)) return sm->issue_.head_preview(sm->slot_of(scheduler, i)).active_lanes;
        const auto& w = sm->warps_[sm->slot_of(scheduler, i)];
        return w.occupied && w.ib_count > 0 ? sm->records_[w.ibuffer[w.ib_head]].active_lanes : 0;
    }
    ir::Pc next_pc(unsigned i) const {
        if constexpr (Core::event_driven_issue)
            if (ready(i)) return sm->issue_.head_preview(sm->slot_of(scheduler, i)).pc;
        const auto& w = sm->warps_[sm->slot_of(scheduler, i)];
        return w.occupied && w.ib_count > 0 ? sm->records_[w.ibuffer[w.ib_head]].result.pc : ir::no_pc;
    }
    // The warp's next instruction is blocked only by a structural limit of the LSU (it would issue if the
    // memory pipeline had room).
    bool blocked_by_memory_pipeline(unsigned i) const {
        return sm->warps_[sm->slot_of(scheduler, i)].occupied &&
               sm->issue_.pool_outcome(*sm, scheduler, i) == timing::IssueOutcome::memory_pipeline;
    }
    unsigned warp_width() const { return Core::warp_width; }
    // The warp waits at a CTA barrier (a warp limiter must not count it, or the CTA deadlocks).
    bool waiting_at_barrier(unsigned i) const {
        const unsigned w = sm->slot_of(scheduler, i);
        return sm->warps_[w].occupied && sm->issue_.pool_outcome(*sm, scheduler, i) == timing::IssueOutcome::barrier;
    }
    timing::L1View l1() const { return sm->l1_.view(); }
    core::Cycle now() const { return sm->now_; }
    // The SM's state epoch (under event-driven issue only, where every warp's stall reason changes only by events
    // that advance it): while it is unchanged, every warp's occupancy, age and head instruction (next_pc,
    // next_active_lanes, next_instruction) are unchanged too. A scheduler may reuse a decision it took at the same
    // epoch over the same ready_mask(), when nothing else it reads changed (timing::ShowsStateEpoch).
    std::uint64_t state_epoch() const requires Core::event_driven_issue { return sm->state_epoch_; }
};

} // namespace gpuarch::pipeline
