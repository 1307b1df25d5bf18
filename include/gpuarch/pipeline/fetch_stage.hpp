#pragma once
// pipeline::FetchStage<Core>: stage 6 of SM's cycle, fetch and decode (sm.hpp has the cycle order).
//
// Contract. Per scheduler, round-robin over its pool, the first Core::fetch_warps_per_scheduler() warps that can
// fetch (occupied, not finished, no control instruction in flight, not at a barrier, room in the instruction
// buffer) each fetch up to Frontend::fetch_per_warp instructions. Fetching an instruction executes it
// functionally (func::KernelExecution::step), so timing sees real addresses and outcomes; the record it fills goes
// to the warp's instruction buffer and can issue from the next cycle. A warp stops fetching after a control
// instruction until it resolves (WritebackStage::resolve_control). Where the scheduler names a reordering fetch
// policy (timing/fetch.hpp), that policy's mechanism may own a warp's fetch; every hook call sits behind
// `if constexpr (!Core::in_order_fetch)`.
//
// Two optimisations keep the per-cycle cost down without changing a decision: a stage that found no warp to fetch
// is skipped until an event changes warp state (Core::state_epoch_), and with event_driven_fetch each scheduler
// keeps a mask of fetchable warps that only touched warps re-evaluate. For the GPU's parallel tick the stage runs
// in two parts (run_private, then finish), stopping before the first step that touches state shared between SMs.
#include <bit>
#include <cstdint>
#include <string>

#include <gpuarch/core/error.hpp>
#include <gpuarch/func/kernel_execution.hpp>
#include <gpuarch/ir/instruction.hpp>
#include <gpuarch/pipeline/private_steps.hpp>
#include <gpuarch/pipeline/state.hpp>

namespace gpuarch::pipeline {

template <class Core> class FetchStage {
public:
    using Frontend = typename Core::Frontend;
    using InFlight = typename Core::InFlight;
    using CtaSlot = typename Core::CtaSlot;
    using WarpState = typename Core::WarpState;
    using FetchRecordState = typename Core::FetchRecordState;

    // A new launch of `kernel`: a stage left half done by a launch that stopped on an error is abandoned.
    void on_launch(const ir::Kernel& kernel) {
        cursor_ = FetchCursor{};
        private_counts_ = func::StepCounts{};
        private_steps_.bind(kernel);
    }
    // Warp w's fetch eligibility may have changed (event_driven_fetch).
    void mark_dirty(unsigned w) {
        masks_[w % Frontend::schedulers].dirty |= std::uint64_t{1} << (w / Frontend::schedulers);
    }
    void mark_all_dirty() {
        for (auto& m : masks_) m.dirty = ~std::uint64_t{0};
    }

    // The parallel tick's first part: runs the stage up to its first step that touches state shared with other
    // SMs (PrivateSteps), counting its steps in private_counts(). Returns true when
    // the stage completed.
    bool run_private(Core& sm) {
        begin(sm);
        if (!resume<true>(sm)) return false;
        end(sm);
        cursor_.state = FetchCursor::State::done;
        return true;
    }
    // The second part, serially in SM index order: the rest of the stage, or all of it when run_private did not
    // run this cycle. Returns false when run_private had completed the stage already.
    bool finish(Core& sm) {
        if (cursor_.state == FetchCursor::State::done) {
            cursor_.state = FetchCursor::State::closed;
            return false;
        }
        if (cursor_.state == FetchCursor::State::closed) begin(sm);
        resume<false>(sm);
        end(sm);
        return true;
    }
    // Steps run_private took, not yet folded into the launch's counts (the SM folds them in finish's caller).
    func::StepCounts& private_counts() { return private_counts_; }

    // Where a fetch stage stands, so that it can stop before a shared step and resume there (the parallel tick):
    // the scheduler whose pool it scans, that scan's first pool slot (next_ when the scan began), the scan
    // position, the warps of that scheduler that fetched, and, when stopped inside a warp's fetch, its steps so far.
    struct FetchCursor {
        enum class State : std::uint8_t { closed, open, done }; // closed: not begun this cycle
        State state = State::closed;
        bool any_fetched = false;
        bool in_warp = false;
        std::uint64_t begin_epoch = 0; // the state epoch when the stage began (before a fetch policy's begin_stage)
        unsigned scheduler = 0, start = 0, k = 0, fetched = 0, step = 0;
    };

    // Whether run() would find no warp to fetch and change nothing: a stage that found none (and whose fetch policy's
    // begin_stage changed nothing) and no event changed warp state since (begin()'s skip; the cursor it leaves is
    // reset by the next begin()). For in-order fetch and for a fetch policy that states the quiet-cycle contract
    // (timing::FollowsStateEpoch); any other policy has transitions of its own and always runs.
    bool finds_no_warp(const Core& sm) const {
        if constexpr (Core::fetch_follows_epoch) return idle_epoch_ == sm.state_epoch_;
        else return false;
    }

    void run(Core& sm) {
        begin(sm);
        resume<false>(sm);
        end(sm);
    }

    void begin(Core& sm) {
        FetchCursor& f = cursor_;
        f = FetchCursor{};
        f.state = FetchCursor::State::open;
        f.start = next_[0];
        f.begin_epoch = sm.state_epoch_;
        // A fetch stage that found no warp to fetch finds none again until an event changes warp state (the
        // state_epoch_ argument of quiet_cycle_replay), and its fetch policy's begin_stage, which changed nothing
        // then, changes nothing again (timing::FollowsStateEpoch); a policy without that contract always runs.
        if (finds_no_warp(sm)) {
            f.scheduler = Frontend::schedulers;
            return;
        }
        if constexpr (!Core::in_order_fetch) sm.fetch_mechanism_.begin_stage(sm);
    }

    // Per scheduler, round-robin from next_, the first Core::fetch_warps_per_scheduler() warps that can fetch
    // fetch up to fetch_per_warp instructions each. StopAtShared: returns false, the cursor at the step, before a
    // step that touches state shared with other SMs; true once the scan is complete.
    template <bool StopAtShared> bool resume(Core& sm) {
        FetchCursor& f = cursor_;
        while (f.scheduler < Frontend::schedulers) {
            const unsigned s = f.scheduler;
            const unsigned pool = Core::pool_size(s);
            if constexpr (Core::event_driven_fetch) {
                // The scan's answer from the mask of warps can_fetch() accepts (kept up to date by touch(), as for
                // event-driven issue): the first fetchable slot at or after the scan's start, wrapping. A fetch
                // touches every warp whose eligibility it changes before the next scheduler's turn.
                if (!f.in_warp && f.fetched == 0) {
                    const int pick = first_fetchable(sm, s, f.start);
                    f.k = pick < 0 ? pool : (static_cast<unsigned>(pick) + pool - f.start) % pool;
                }
            }
            while (f.k < pool && f.fetched < Core::fetch_warps_per_scheduler()) {
                if constexpr (!Core::event_driven_fetch && Core::max_pool <= 64) {
                    // The scan skips empty slots (can_fetch is false for them) by the occupied mask, rotated so
                    // that bit k is the slot the scan visits k-th.
                    if (!f.in_warp) {
                        const std::uint64_t occupied = sm.occupied_slots_[s];
                        const std::uint64_t rotated =
                            (occupied >> f.start) |
                            (f.start == 0 ? 0 : (occupied & pipeline::low_bits(f.start)) << (pool - f.start));
                        const std::uint64_t ahead = rotated >> f.k;
                        if (ahead == 0) {
                            f.k = pool;
                            break;
                        }
                        f.k += static_cast<unsigned>(std::countr_zero(ahead));
                    }
                }
                const unsigned pi = f.start + f.k < pool ? f.start + f.k : f.start + f.k - pool; // f.start < pool
                const unsigned w = Core::slot_of(s, pi);
                if (!f.in_warp) {
                    if (!sm.slot_occupied(s, pi) || !can_fetch(sm, w)) { // can_fetch is false for an empty slot
                        ++f.k;
                        continue;
                    }
                    f.any_fetched = true;
                    f.in_warp = true;
                    f.step = 0;
                }
                if (!fetch_warp<StopAtShared>(sm, w, f.step)) return false;
                f.in_warp = false;
                next_[s] = (pi + 1) % pool;
                ++f.fetched;
                ++f.k;
            }
            ++f.scheduler;
            f.k = 0;
            f.fetched = 0;
            if (f.scheduler < Frontend::schedulers) f.start = next_[f.scheduler];
        }
        return true;
    }

    void end(Core& sm) {
        if (cursor_.any_fetched) ++sm.state_epoch_;
        else if (Core::in_order_fetch || cursor_.begin_epoch == sm.state_epoch_) idle_epoch_ = sm.state_epoch_;
        cursor_.state = FetchCursor::State::closed;
    }

    bool can_fetch(const Core& sm, unsigned w) const {
        const WarpState& ws = sm.warps_[w];
        if constexpr (!Core::in_order_fetch)
            if (ws.occupied && sm.fetch_mechanism_.owns_fetch(sm, w)) return sm.fetch_mechanism_.can_fetch(sm, w);
        if (!ws.occupied || ws.functional_done || ws.fetch_blocked || ws.at_barrier) return false;
        if (ws.ib_count >= Frontend::ibuffer_entries) return false;
        const CtaSlot& cta = sm.ctas_[ws.cta_slot];
        return !cta.state->warp_waiting(ws.warp_in_cta);
    }

    // event_driven_fetch: brings scheduler s's fetchable mask up to date and returns its first fetchable slot at or
    // after `start`, wrapping round (-1 when none).
    int first_fetchable(Core& sm, unsigned s, unsigned start) {
        FetchMask& m = masks_[s];
        for (std::uint64_t d = m.dirty & pipeline::low_bits(Core::pool_size(s)); d != 0; d &= d - 1) {
            const unsigned i = static_cast<unsigned>(std::countr_zero(d));
            const std::uint64_t bit = std::uint64_t{1} << i;
            m.fetchable = can_fetch(sm, Core::slot_of(s, i)) ? m.fetchable | bit : m.fetchable & ~bit;
        }
        m.dirty = 0;
        if (m.fetchable == 0) return -1;
        const std::uint64_t from_start = m.fetchable & ~pipeline::low_bits(start);
        return std::countr_zero(from_start != 0 ? from_start : m.fetchable);
    }

    // Warp w's fetch from its n-th instruction of this cycle on. StopAtShared: returns false, `n` at the step,
    // before a step that is not private to its CTA; such a stop happens only before a step, so resuming with the
    // same `n` continues exactly where the uninterrupted loop would be.
    template <bool StopAtShared> bool fetch_warp(Core& sm, unsigned w, unsigned& n) {
        if constexpr (!Core::in_order_fetch) {
            static_assert(!StopAtShared,
                          "a reordering fetch policy fetches only in the serial part (cycle_fetch_private)");
            if (sm.fetch_mechanism_.owns_fetch(sm, w)) {
                sm.fetch_mechanism_.fetch(sm, w);
                return true;
            }
        }
        sm.touch(w);
        WarpState& ws = sm.warps_[w];
        CtaSlot& cta = sm.ctas_[ws.cta_slot];
        for (; n < Frontend::fetch_per_warp && ws.ib_count < Frontend::ibuffer_entries; ++n) {
            if (cta.state->warp_waiting(ws.warp_in_cta) || cta.state->warp_finished(ws.warp_in_cta)) break;
            if constexpr (StopAtShared)
                if (!private_steps_.next_is_private(*cta.state, ws.warp_in_cta)) return false;
            const std::uint32_t r = sm.allocate_record();
            InFlight& rec = sm.records_[r];
            if constexpr (StopAtShared) sm.execution_->step(*cta.state, ws.warp_in_cta, rec.result, private_counts_);
            else sm.execution_->step(*cta.state, ws.warp_in_cta, rec.result);
            prepare_record(sm, w, rec);
            note_async_fetch(sm, w, rec);
            ws.push(r);
            ++ws.in_flight;
            // The step may have released a barrier the CTA's other warps wait at functionally (can_fetch, blocker).
            if (rec.result.barrier_released) sm.touch_cta(cta);
            if (rec.result.warp_finished) ws.functional_done = true;
            if (rec.is_control || ws.functional_done) {
                if (rec.is_control) ws.fetch_blocked = true;
                break;
            }
        }
        return true;
    }

    // Fills a record's timing view of the instruction the functional engine just executed into it.
    void prepare_record(const Core& sm, unsigned w, InFlight& rec) const {
        const ir::Instruction& inst = *rec.result.instruction;
        rec.alive = true;
        rec.warp = w;
        rec.unit = Frontend::unit_for(inst.op_class);
        // From the functional result, not the op class: a prefetch whose every lane is a no-op (shared memory, an
        // unmapped address) accesses nothing (func::KernelExecution::prefetch); for ld/st/atom/red the two agree.
        rec.is_memory = rec.result.is_memory;
        // A system op (vprintf, __assertfail, trap) is a call: the warp fetches past it only once it resolves.
        rec.is_control = inst.op_class == ir::OpClass::branch || inst.op_class == ir::OpClass::barrier ||
                         inst.op_class == ir::OpClass::control || inst.op_class == ir::OpClass::system;
        // The functional engine runs warps of the SM's width (GPU::launch; the records hold that many lanes), so no
        // executed lane lies at or above it.
        rec.active_lanes = static_cast<unsigned>(rec.result.executed.popcount_below(Core::warp_width));
        // A memory instruction whose guard is false on every lane accesses nothing: it passes through its
        // unit without visiting the L1.
        if (rec.active_lanes == 0) rec.is_memory = false;
        rec.space = rec.is_memory ? timed_space(rec.result) : rec.result.space;
        rec.long_latency = rec.is_memory && is_long_latency(inst, rec.space);
        rec.source_count = 0;
        for (unsigned k = 0; k < inst.num_uses && rec.source_count < rec.sources.size(); ++k) {
            const ir::RegId reg = inst.uses[k];
            if (sm.is_predicate_[reg]) continue;
            bool seen = false;
            for (unsigned j = 0; j < rec.source_count; ++j) seen = seen || rec.sources[j] == reg;
            if (!seen) rec.sources[rec.source_count++] = reg;
        }
        rec.fetch_state = FetchRecordState{};
    }

    // cp.async groups, kept in program order as the functional engine steps the warp: a cp.async joins
    // the open group, commit_group closes it, and wait_all closes it and waits for every group; a wait records
    // the oldest group that may stay pending (wait_group N: the newest N committed groups).
    void note_async_fetch(Core& sm, unsigned w, InFlight& rec) {
        WarpState& ws = sm.warps_[w];
        switch (rec.result.instruction->op) {
        case ir::Opcode::cp_async:
            rec.async_group = ws.async_open_group;
            rec.async_counted = true;
            if (!ws.async_pending.empty() && ws.async_pending.back().first == ws.async_open_group)
                ++ws.async_pending.back().second;
            else ws.async_pending.emplace_back(ws.async_open_group, 1U);
            break;
        case ir::Opcode::cp_async_commit_group: ++ws.async_open_group; break;
        case ir::Opcode::cp_async_wait_all:
            ++ws.async_open_group;
            rec.async_group = ws.async_open_group;
            rec.async_counted = true;
            break;
        case ir::Opcode::cp_async_wait_group: {
            const std::uint64_t n = rec.result.instruction->operands[0].imm_bits;
            rec.async_group = n >= ws.async_open_group ? 0U : ws.async_open_group - static_cast<std::uint32_t>(n);
            rec.async_counted = true;
            break;
        }
        default: break;
        }
    }

    static bool is_long_latency(const ir::Instruction& inst, ir::StateSpace space) {
        if (inst.num_defs == 0) return false;
        return space == ir::StateSpace::global || space == ir::StateSpace::local;
    }

    // A generic access is timed in the space its executed lanes reached (found by the differential fuzzer,
    // docs/differential_fuzzing.md: the L1 was handed StateSpace::generic and refused every generic ld/st/atom).
    // One warp access goes to one path of the L1, so lanes in different spaces are an error, as in the barrel core.
    static ir::StateSpace timed_space(const func::StepResult& result) {
        if (result.space != ir::StateSpace::generic) return result.space;
        ir::StateSpace space = ir::StateSpace::none;
        for (std::size_t lane : result.executed.set_lanes()) {
            const ir::StateSpace s = result.lane_spaces[lane];
            if (space == ir::StateSpace::none) space = s;
            else if (s != space)
                throw Error("a generic access at PC " + std::to_string(result.pc) + " (PTX line " +
                            std::to_string(result.instruction->line) +
                            ") reaches several state spaces within one "
                            "warp; the SM times one space per warp access");
        }
        return space;
    }

private:
    struct FetchMask {
        std::uint64_t dirty = ~std::uint64_t{0}; // slots whose can_fetch() must be re-evaluated
        std::uint64_t fetchable = 0;
    };
    std::array<unsigned, Frontend::schedulers> next_{}; // per scheduler, the pool slot its round-robin starts at
    // The state_epoch_ at which a stage last found nothing to fetch.
    std::uint64_t idle_epoch_ = 0;
    FetchCursor cursor_;
    func::StepCounts private_counts_;
    PrivateSteps private_steps_;
    std::array<FetchMask, Frontend::schedulers> masks_{};
};

} // namespace gpuarch::pipeline
