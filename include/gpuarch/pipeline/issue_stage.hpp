#pragma once
// pipeline::IssueStage<Core>: stage 5 of SM's cycle, issue (sm.hpp has the cycle order).
//
// Contract. Each scheduler (one per SIMD turn on Southern Islands) asks its policy to select() one ready pool slot
// through a PoolView; the stage checks the pick (a slot outside the pool or not ready is the policy's bug and
// throws gpuarch::Error naming it), then issues the warp's head instruction: it reserves the destinations in the
// scoreboard, hands the operand read to the register file and takes a place in front of the instruction's unit
// (DispatchStage). Where the frontend allows, the next independent instruction of the same warp issues too (dual
// issue). A scheduler that issues nothing records why: the reason of its warp closest to issuing (stall_rank).
// Each cycle also counts the SM-wide class of Gong 2020 Fig. 1.2 and the LSU's state.
//
// A warp's reason not to issue is blocker(w): warp_blocker(w), what only the warp's own events change (barrier,
// instruction buffer, scoreboard), then resources_block, the structural limits that change every cycle. Two
// optimisations give the same picks and statistics as the full scan (tests/pinned/quiet_cycles.cpp): event-driven
// issue (IssueMasks) and quiet-cycle replay (Core::quiet_cycle_replay).
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <string>

#include <gpuarch/core/cycle.hpp>
#include <gpuarch/core/error.hpp>
#include <gpuarch/core/lane_mask.hpp>
#include <gpuarch/ir/instruction.hpp>
#include <gpuarch/mem/access.hpp>
#include <gpuarch/pipeline/pool_view.hpp>
#include <gpuarch/pipeline/state.hpp>
#include <gpuarch/timing/hooks.hpp>
#include <gpuarch/timing/interfaces.hpp>

namespace gpuarch::pipeline {

template <class Core> class IssueStage {
public:
    using Frontend = typename Core::Frontend;
    using Scheduler = typename Core::Scheduler;
    using RegisterFile = typename Core::RegisterFile;
    using InFlight = typename Core::InFlight;
    using Hazard = typename Core::Hazard;
    using PoolView = pipeline::PoolView<Core>;

    // Warp w's warp_blocker() may have changed (event-driven issue).
    void mark_dirty(unsigned w) {
        issue_masks_[w % Frontend::schedulers].dirty |= std::uint64_t{1} << (w / Frontend::schedulers);
    }
    void mark_all_dirty() {
        for (auto& m : issue_masks_) m.dirty = ~std::uint64_t{0};
    }
    // A new launch: the last cycle without issue says nothing about the next one.
    void on_launch() {
        quiet_.valid = false;
        quiet_.uncharged = 0; // what a launch stopped by an error left uncharged belongs to no line of the next
    }

    // Whether run() would replay its recorded quiet cycle now: nothing changed since a cycle without issue, and
    // every scheduler that withheld its ready warps then would withhold them again (withheld_replay).
    bool replays_next_cycle(const Core& sm) const {
        if constexpr (Core::quiet_cycle_replay) {
            if (!quiet_.valid || quiet_.epoch != sm.state_epoch_) return false;
            if constexpr (withheld_replay)
                if (ready_seen_) // some scheduler withheld ready warps in the recorded cycle
                    for (unsigned s = 0; s < Frontend::schedulers; ++s)
                        if (quiet_.ready_mask[s] != 0 && !sm.schedulers_[s].repeats_withheld(withheld_view(sm, s)))
                            return false;
            return true;
        } else {
            return false;
        }
    }

    // The first cycle from which replays_next_cycle may stop holding with nothing else changing: a scheduler that
    // withheld its ready warps in the recorded cycle may say when its repeat ends on its own (CCWS, whose scores
    // decay: timing::WithheldCycleHook). No such cycle (the largest) otherwise. An SM sleeps no further.
    core::Cycle replays_until(const Core& sm) const {
        core::Cycle until = std::numeric_limits<core::Cycle>::max();
        if constexpr (Core::quiet_cycle_replay && withheld_replay && timing::WithheldUntilHook<Scheduler, PoolView>) {
            if (ready_seen_)
                for (unsigned s = 0; s < Frontend::schedulers; ++s)
                    if (quiet_.ready_mask[s] != 0)
                        until = std::min(until, sm.schedulers_[s].withheld_until(withheld_view(sm, s)));
        } else {
            (void)sm;
        }
        return until;
    }

    void run(Core& sm, core::Cycle now) {
        if constexpr (Core::quiet_cycle_replay) {
            if (replays_next_cycle(sm)) {
                replay_quiet_cycle(sm);
                return;
            }
        }
        if constexpr (Core::quiet_cycle_replay) charge_replayed(sm);
        bool any_issued = false;
        bool all_long = true; // every occupied warp of the SM waits on a long-latency load
        bool any_warp = false;
        ready_seen_ = false;
        for (unsigned s = 0; s < Frontend::schedulers; ++s) {
            if constexpr (Frontend::issue_rule == timing::IssueRule::one_per_type_round_robin)
                if (now % Frontend::schedulers != s) continue; // not this SIMD's turn
            const unsigned issued = issue_scheduler(sm, s, now, all_long, any_warp);
            any_issued = any_issued || issued > 0;
        }
        if (any_issued) ++sm.state_epoch_; // an issue changes warp state (the fetch stage's skip reads this too)
        if constexpr (Core::quiet_cycle_replay) {
            // A const select picks a ready warp whenever there is one, so a cycle without issue had none. A
            // scheduler with state may withhold ready warps: its quiet-cycle contract covers only views with none
            // ready, its withheld-cycle contract (withheld_replay) those too.
            quiet_.valid = !any_issued && (const_select || !ready_seen_ || withheld_replay);
            quiet_.cycle_class = any_issued ? 0 : any_warp && all_long ? 1 : any_warp ? 2 : 3;
            quiet_.epoch = sm.state_epoch_;
        }
        if constexpr (Frontend::issue_rule == timing::IssueRule::one_per_type_round_robin) {
            // The SIMDs whose turn it was not still count for the Gong classification of a cycle without issue.
            for (unsigned s = 0; s < Frontend::schedulers && !any_issued; ++s) {
                if (now % Frontend::schedulers == s) continue;
                for (unsigned i = 0; i < Core::pool_size(s); ++i) {
                    if (!sm.slot_occupied(s, i)) continue;
                    any_warp = true;
                    if (blocker(sm, Core::slot_of(s, i)) != timing::IssueOutcome::raw_long_latency) all_long = false;
                }
            }
        }
        if (any_issued) ++sm.stats_.cycle_class[0];
        else if (any_warp && all_long) ++sm.stats_.cycle_class[1];
        else if (any_warp) ++sm.stats_.cycle_class[2];
        count_lsu_state(sm);
    }

    // Issues up to the scheduler's width this cycle; records its outcome. Returns instructions issued.
    // The outcome a scheduler reports when nothing issues is the reason of its warp closest to issuing: the
    // highest rank among its warps' reasons.
    static constexpr int stall_rank(timing::IssueOutcome o) {
        switch (o) {
        case timing::IssueOutcome::issued: return 9;
        case timing::IssueOutcome::memory_pipeline: return 8;
        case timing::IssueOutcome::bank_conflict: return 7;
        case timing::IssueOutcome::structural: return 6;
        case timing::IssueOutcome::raw_other: return 5;
        case timing::IssueOutcome::ibuffer_empty: return 4;
        case timing::IssueOutcome::barrier: return 3;
        case timing::IssueOutcome::raw_long_latency: return 2;
        case timing::IssueOutcome::idle: return 1;
        }
        return 0;
    }

    unsigned issue_scheduler(Core& sm, unsigned s, core::Cycle now, bool& all_long, bool& any_warp) {
        if constexpr (Core::event_driven_issue) return issue_scheduler_from_masks(sm, s, now, all_long, any_warp);
        const unsigned pool = Core::pool_size(s);
        std::fill_n(ready_flags_.begin(), pool, std::uint8_t{0});
        std::fill_n(outcome_cache_.begin(), pool, std::uint8_t{0});
        timing::IssueOutcome best = timing::IssueOutcome::idle;
        unsigned best_slot = 0; // the lowest pool slot whose reason is `best` (per-line statistics)
        unsigned first_pick = no_slot; // the first pool slot that issued (per-line statistics)
        unsigned ready_warps = 0; // warps whose next instruction could issue this cycle, before any issues
        first_issued_pc_ = ir::no_pc;
        auto rank = [](timing::IssueOutcome o) { return stall_rank(o); };
        // The outcome of a scheduler that issues nothing: the reason of its warp closest to issuing. Also feeds
        // the SM-wide Gong classification.
        auto classify = [&] {
            auto classify_slot = [&](unsigned i) {
                any_warp = true;
                const timing::IssueOutcome o = pool_outcome(sm, s, i);
                if (o != timing::IssueOutcome::raw_long_latency) all_long = false;
                if (o == timing::IssueOutcome::issued) ready_seen_ = true;
                if (rank(o) > rank(best)) {
                    best = o;
                    best_slot = i;
                }
            };
            // The occupied slots, ascending, as the lowest slot of the best reason counts.
            if constexpr (Core::max_pool <= 64) {
                for (std::uint64_t m = sm.occupied_slots_[s]; m != 0; m &= m - 1)
                    classify_slot(static_cast<unsigned>(std::countr_zero(m)));
            } else {
                for (unsigned i = 0; i < pool; ++i)
                    if (sm.slot_occupied(s, i)) classify_slot(i);
            }
        };
        if constexpr (Frontend::issue_rule == timing::IssueRule::one_per_type_round_robin) {
            classify();
            for (unsigned i = 0; i < pool; ++i) {
                ready_flags_[i] =
                    sm.slot_occupied(s, i) && pool_outcome(sm, s, i) == timing::IssueOutcome::issued ? 1 : 2;
                ready_warps += ready_flags_[i] == 1 ? 1U : 0U;
            }
        }
        sm.stats_.issue_slots += Frontend::dispatch_per_scheduler;
        unsigned issued = 0;
        PoolView view{&sm, s, ready_flags_.data(), pool};
        if constexpr (Frontend::issue_rule == timing::IssueRule::one_per_type_round_robin) {
            // Up to one instruction per type, each from a different wavefront. An issue takes an operand collector or
            // register-file bank slots, so after one the others that were ready are asked again (pool_outcome, whose
            // cache the issue cleared): a register file that accepts only so many reads per cycle (BankedRF,
            // CoalescingRF) would otherwise be handed a read it refuses.
            std::array<bool, 5> type_used{};
            for (unsigned n = 0; n < Frontend::dispatch_per_scheduler; ++n) {
                for (unsigned i = 0; i < pool; ++i) {
                    if (ready_flags_[i] != 1) continue;
                    const WarpState& ws = sm.warps_[Core::slot_of(s, i)];
                    if (type_used[si_type(sm.records_[ws.ibuffer[ws.ib_head]].unit)] ||
                        (n > 0 && pool_outcome(sm, s, i) != timing::IssueOutcome::issued))
                        ready_flags_[i] = 2;
                }
                const unsigned pick = sm.schedulers_[s].select(view);
                if (pick == timing::no_warp) break;
                if (pick >= pool || ready_flags_[pick] != 1) [[unlikely]]
                    throw_bad_pick(sm, s, pick);
                const unsigned w = Core::slot_of(s, pick);
                if (first_pick == no_slot) first_pick = pick;
                type_used[si_type(sm.records_[sm.warps_[w].ibuffer[sm.warps_[w].ib_head]].unit)] = true;
                issue_head(sm, w, s, now);
                sm.schedulers_[s].on_issue(pick, now);
                std::fill_n(outcome_cache_.begin(), pool, std::uint8_t{0});
                ready_flags_[pick] = 2;
                ++issued;
            }
        } else {
            // Every slot's readiness, asked before select (whose own questions then hit outcome_cache_).
            if constexpr (Core::max_pool <= 64) {
                for (std::uint64_t m = sm.occupied_slots_[s]; m != 0; m &= m - 1) // an empty slot is never ready
                    ready_warps += view.ready(static_cast<unsigned>(std::countr_zero(m))) ? 1U : 0U;
            } else {
                for (unsigned i = 0; i < pool; ++i) ready_warps += view.ready(i) ? 1U : 0U;
            }
            const unsigned pick = sm.schedulers_[s].select(view);
            if (pick != timing::no_warp) {
                if (pick >= pool || !view.ready(pick)) [[unlikely]]
                    throw_bad_pick(sm, s, pick);
                issued = issue_warp(sm, s, pick, now);
                first_pick = pick;
            }
        }
        if constexpr (Frontend::issue_rule != timing::IssueRule::one_per_type_round_robin)
            if (issued == 0) classify();
        const timing::IssueOutcome outcome = issued > 0 ? timing::IssueOutcome::issued : best;
        ++sm.stats_.outcomes[static_cast<std::size_t>(outcome)];
        sm.stats_.ready_warp_cycles += ready_warps;
        if (sm.lines_.on()) [[unlikely]]
            charge_line(sm, s, outcome,
                        issued > 0                              ? first_pick
                        : outcome == timing::IssueOutcome::idle ? no_slot
                                                                : best_slot);
        if constexpr (Core::quiet_cycle_replay) {
            quiet_.outcome[s] = outcome;
            quiet_.ready_warps[s] = static_cast<std::uint8_t>(ready_warps);
        }
        return issued;
    }

    // The Scheduler contract (timing/concepts.hpp): select returns a ready pool slot or no_warp. A slot outside the
    // pool would index past it, a slot that is not ready would issue a stalled warp; either is the policy's bug, so
    // the SM stops with the policy's name instead of running on. Checked in every build type (a thrown Error, not an
    // assert), so that the sanitizer build runs the same test.
    [[noreturn]] void throw_bad_pick(const Core& sm, unsigned s, unsigned pick) const {
        const bool outside = pick >= Core::pool_size(s);
        throw Error("scheduler policy '" + std::string(Scheduler::name) + "' (scheduler " + std::to_string(s) +
                    " of SM " + std::to_string(sm.id_) + ") picked pool slot " + std::to_string(pick) + ", which is " +
                    (outside ? "outside its pool of " + std::to_string(Core::pool_size(s)) + " slots" : "not ready") +
                    " at cycle " + std::to_string(sm.now_) + "; select must return a ready slot or no_warp");
    }

    // Issues the picked warp's head instruction and, where the frontend allows, the next ones: dual issue takes the
    // next instruction of the same warp, if decoded, independent of the first and free of hazards and structural
    // limits (Gong 2020 Sec. 2.2: "two independent instructions"). Returns instructions issued.
    unsigned issue_warp(Core& sm, unsigned s, unsigned pick, core::Cycle now) {
        const unsigned w = Core::slot_of(s, pick);
        const InFlight* first = &sm.records_[sm.warps_[w].ibuffer[sm.warps_[w].ib_head]];
        issue_head(sm, w, s, now);
        sm.schedulers_[s].on_issue(pick, now);
        unsigned issued = 1;
        while (issued < Frontend::dispatch_per_scheduler && sm.warps_[w].ib_count > 0 && !first->is_control) {
            const InFlight& next = sm.records_[sm.warps_[w].ibuffer[sm.warps_[w].ib_head]];
            if (blocker(sm, w) != timing::IssueOutcome::issued) break;
            if (depends_on(*next.result.instruction, *first->result.instruction)) break;
            first = &next;
            issue_head(sm, w, s, now);
            ++issued;
            ++sm.stats_.dual_issues;
        }
        return issued;
    }

    void issue_head(Core& sm, unsigned w, unsigned s, core::Cycle) {
        sm.touch(w);
        if constexpr (!Core::in_order_fetch)
            if (sm.fetch_mechanism_.issue_instead(sm, w)) return;
        WarpState& ws = sm.warps_[w];
        InFlight& rec = sm.records_[ws.pop_head()];
        const ir::Instruction& inst = *rec.result.instruction;
        for (unsigned k = 0; k < inst.num_defs; ++k) {
            sm.scoreboard_.reserve(w, Core::def_register(rec, k), rec.long_latency);
            if (rec.long_latency) ++ws.long_pending;
        }
        sm.rf_.accept(sm.dispatch_.operand_read(sm, rec), sm.now_);
        sm.dispatch_.reserve(rec, s);
        ++sm.stats_.warp_instructions;
        sm.stats_.thread_instructions += rec.active_lanes;
        if (sm.lines_.on()) [[unlikely]] {
            sm.lines_.issued(rec.result.pc, rec.active_lanes);
            ws.last_issued_pc = rec.result.pc;
            if (first_issued_pc_ == ir::no_pc) first_issued_pc_ = rec.result.pc;
        }
        switch (inst.op) { // device-heap calls and cp.async
        case ir::Opcode::device_malloc: sm.stats_.device_mallocs += rec.active_lanes; break;
        case ir::Opcode::device_free: sm.stats_.device_frees += rec.active_lanes; break;
        case ir::Opcode::cp_async: ++sm.stats_.async_copies; break;
        default: break;
        }
        if constexpr (!Core::in_order_fetch) sm.fetch_mechanism_.after_issue(sm, w, rec);
    }

    // Event-driven issue. Instead of asking every warp of a pool why it cannot issue in every
    // cycle, each scheduler keeps its pool partitioned by warp_blocker(), the part of a warp's stall reason that
    // only the warp's own events change: `warp_code_[w]` and one bit mask per reason. Every event that can change
    // warp w's warp_blocker() calls touch(w) (fetch, issue, write-back, control resolution, barrier release, CTA
    // start and warp exit; a functional barrier release touches the whole CTA), which marks it dirty; an issue step
    // re-evaluates only the dirty warps, then checks the structural limits (resources_block, which change every
    // cycle) of the warps whose own state lets them issue. Statistics and picks equal the full scan's:
    // tests/pinned/quiet_cycles.cpp compares full statistics tables against a scheduler that disables this.
    // Only where Core::event_driven_issue holds: in-order fetch or a fetch policy that touches the warps its
    // transitions change (timing::FollowsStateEpoch), no SIMD turn, a register file that accepts every read, pools of
    // at most 64 slots. The scheduler is asked every cycle either way, so schedulers with state use it too.
    static constexpr std::size_t unit_keys = timing::unit_kind_count * 2;
    static_assert(unit_keys <= 32, "IssueMasks::units_used holds one bit per unit key");
    static std::size_t unit_key(const InFlight& rec) {
        return Core::kind_index(rec.unit) * 2 + (rec.is_memory ? 1 : 0);
    }
    static constexpr std::uint8_t no_unit_key = 0xff;

    struct IssueMasks {
        std::uint64_t dirty = ~std::uint64_t{0}; // slots whose warp_code_ must be re-evaluated
        std::array<std::uint64_t, timing::issue_outcome_count> by_code{}; // slots per warp_blocker() (idle: empty)
        // The slots of by_code[issued] by their head instruction's unit_key(): resources_block() depends on the
        // head only through its unit and is_memory (the register file accepts every read here).
        std::array<std::uint64_t, unit_keys> by_unit{};
        std::uint32_t units_used = 0; // bit k set when by_unit[k] is not empty
    };

    void refresh_masks(Core& sm, unsigned s) {
        IssueMasks& m = issue_masks_[s];
        const unsigned pool = Core::pool_size(s);
        for (std::uint64_t d = m.dirty & pipeline::low_bits(pool); d != 0; d &= d - 1) {
            const unsigned i = static_cast<unsigned>(std::countr_zero(d));
            const unsigned w = Core::slot_of(s, i);
            const std::uint64_t bit = std::uint64_t{1} << i;
            m.by_code[warp_code_[w]] &= ~bit;
            if (const std::uint8_t old = warp_unit_key_[w]; old != no_unit_key)
                if ((m.by_unit[old] &= ~bit) == 0) m.units_used &= ~(std::uint32_t{1} << old);
            const timing::IssueOutcome code = sm.warps_[w].occupied ? warp_blocker(sm, w) : timing::IssueOutcome::idle;
            warp_code_[w] = static_cast<std::uint8_t>(code);
            warp_unit_key_[w] = no_unit_key;
            if (code != timing::IssueOutcome::idle) m.by_code[static_cast<std::size_t>(code)] |= bit;
            if (code == timing::IssueOutcome::issued) {
                const WarpState& ws = sm.warps_[w];
                const InFlight& head = sm.records_[ws.ibuffer[ws.ib_head]];
                warp_unit_key_[w] = static_cast<std::uint8_t>(unit_key(head));
                warp_head_[w] = HeadPreview{head.result.pc, head.active_lanes, head.result.instruction->op_class};
                m.by_unit[warp_unit_key_[w]] |= bit;
                m.units_used |= std::uint32_t{1} << warp_unit_key_[w];
            }
        }
        m.dirty = 0;
    }

    unsigned issue_scheduler_from_masks(Core& sm, unsigned s, core::Cycle now, bool& all_long, bool& any_warp) {
        refresh_masks(sm, s);
        const IssueMasks& m = issue_masks_[s];
        auto mask_of = [&m](timing::IssueOutcome o) { return m.by_code[static_cast<std::size_t>(o)]; };
        // Warps whose own state lets them issue: ready unless the pipeline register in front of their unit is full
        // (resources_block() with a register file that accepts every read), decided once per unit.
        static_assert(timing::AcceptsEveryRead<RegisterFile>);
        std::uint64_t ready = 0;
        timing::IssueOutcome best_structural = timing::IssueOutcome::idle;
        std::uint64_t structural_warps = 0; // the warps best_structural holds up (per-line statistics)
        first_issued_pc_ = ir::no_pc;
        for (std::uint32_t keys = m.units_used; keys != 0; keys &= keys - 1) {
            const auto key = static_cast<std::size_t>(std::countr_zero(keys));
            const std::size_t kind = key / 2;
            if (sm.dispatch_.has_room(kind, s)) {
                ready |= m.by_unit[key];
                continue;
            }
            const timing::IssueOutcome o =
                key % 2 == 1 ? timing::IssueOutcome::memory_pipeline : timing::IssueOutcome::structural;
            if (stall_rank(o) > stall_rank(best_structural)) {
                best_structural = o;
                structural_warps = m.by_unit[key];
            } else if (o == best_structural) {
                structural_warps |= m.by_unit[key];
            }
        }
        sm.stats_.issue_slots += Frontend::dispatch_per_scheduler;
        ready_now_ = ready;
        if (ready != 0) ready_seen_ = true;
        PoolView view{&sm, s, ready_flags_.data(), Core::pool_size(s), ready};
        const unsigned pick = sm.schedulers_[s].select(view);
        unsigned issued = 0;
        if (pick != timing::no_warp) {
            if (pick >= Core::pool_size(s) || ((ready >> pick) & 1U) == 0) [[unlikely]]
                throw_bad_pick(sm, s, pick);
            issued = issue_warp(sm, s, pick, now);
        }
        timing::IssueOutcome outcome = timing::IssueOutcome::issued;
        if (issued == 0) {
            // The full scan's classification, from the masks: the highest-ranked reason among occupied warps.
            const std::uint64_t occupied =
                mask_of(timing::IssueOutcome::issued) | mask_of(timing::IssueOutcome::raw_other) |
                mask_of(timing::IssueOutcome::ibuffer_empty) | mask_of(timing::IssueOutcome::barrier) |
                mask_of(timing::IssueOutcome::raw_long_latency);
            if (occupied != 0) any_warp = true;
            if ((occupied & ~mask_of(timing::IssueOutcome::raw_long_latency)) != 0) all_long = false;
            if (ready != 0) outcome = timing::IssueOutcome::issued; // a select that broke work conservation
            else if (mask_of(timing::IssueOutcome::issued) != 0) outcome = best_structural;
            else if (mask_of(timing::IssueOutcome::raw_other) != 0) outcome = timing::IssueOutcome::raw_other;
            else if (mask_of(timing::IssueOutcome::ibuffer_empty) != 0) outcome = timing::IssueOutcome::ibuffer_empty;
            else if (mask_of(timing::IssueOutcome::barrier) != 0) outcome = timing::IssueOutcome::barrier;
            else if (mask_of(timing::IssueOutcome::raw_long_latency) != 0)
                outcome = timing::IssueOutcome::raw_long_latency;
            else outcome = timing::IssueOutcome::idle;
        }
        ++sm.stats_.outcomes[static_cast<std::size_t>(outcome)];
        const auto ready_warps = core::count_bits(ready);
        sm.stats_.ready_warp_cycles += ready_warps;
        if (sm.lines_.on()) [[unlikely]] {
            // The warps whose reason the outcome is: the lowest pool slot among them is charged, as the full scan
            // charges the first slot it finds with the winning reason.
            std::uint64_t charged = 0;
            if (issued > 0) charged = std::uint64_t{1} << pick;
            else if (outcome == timing::IssueOutcome::issued) charged = ready;
            else if (outcome == best_structural && issued == 0 && mask_of(timing::IssueOutcome::issued) != 0)
                charged = structural_warps;
            else if (outcome != timing::IssueOutcome::idle) charged = mask_of(outcome);
            charge_line(sm, s, outcome, charged == 0 ? no_slot : static_cast<unsigned>(std::countr_zero(charged)));
        }
        quiet_.outcome[s] = outcome;
        quiet_.ready_warps[s] = static_cast<std::uint8_t>(ready_warps);
        quiet_.ready_mask[s] = ready;
        return issued;
    }

    static constexpr unsigned no_slot = ~0U;
    // Per-line statistics (timing/line_stats.hpp): charges scheduler s's cycle to the first instruction it issued,
    // else to the head instruction of the warp in pool slot `slot` (no_slot: no warp, nothing charged).
    void charge_line(Core& sm, unsigned s, timing::IssueOutcome outcome, unsigned slot) {
        ir::Pc pc = ir::no_pc;
        if (outcome == timing::IssueOutcome::issued && first_issued_pc_ != ir::no_pc) {
            pc = first_issued_pc_;
        } else if (slot != no_slot) {
            const WarpState& ws = sm.warps_[Core::slot_of(s, slot)];
            pc = ws.ib_count > 0 ? sm.records_[ws.ibuffer[ws.ib_head]].result.pc : ws.last_issued_pc;
        }
        if (pc != ir::no_pc) sm.lines_.charge(pc, outcome);
        quiet_.line_pc[s] = pc;
    }

    // `count` replayed cycles, the cycles first_now, first_now + 1, ...: one in a quiet cycle (replay_quiet_cycle),
    // all a dormant SM owes at once (SM::settle_dormant). The quiet hook of a scheduler with state runs once per
    // cycle and scheduler, in cycle order, with the view's now() that cycle's (CCWS decays by it); no hook reads the
    // statistics counted here. Leaves sm.now_ at the last cycle.
    void replay_quiet_cycles(Core& sm, std::uint64_t count, core::Cycle first_now) {
        for (unsigned s = 0; s < Frontend::schedulers; ++s) {
            sm.stats_.issue_slots += count * Frontend::dispatch_per_scheduler;
            sm.stats_.outcomes[static_cast<std::size_t>(quiet_.outcome[s])] += count;
            sm.stats_.ready_warp_cycles += count * quiet_.ready_warps[s];
        }
        if constexpr (timing::QuietCycleHook<Scheduler, PoolView>) {
            // No warp is ready in a replayed cycle of a scheduler with state: the view says so without asking. A
            // view writes a flag only where it is 0 (not yet known), so one fill serves every cycle and scheduler.
            // (Under event-driven issue the views read their ready bits instead.)
            if constexpr (!Core::event_driven_issue)
                std::fill(ready_flags_.begin(), ready_flags_.end(), std::uint8_t{2});
            // With the run hook, two cycles one by one, every scheduler in each, settle what an SM's schedulers
            // share (OAWS's SM-wide age ranks: the first round may change them, the second brings every scheduler
            // up to date); the rest of the run is one call per scheduler (its contract: as that many single quiet
            // cycles, ending now), in which no scheduler changes what the others read.
            // Scheduler s's part of `n` replayed cycles: its withheld-cycle hook where it withheld ready warps in the
            // recorded cycle (withheld_replay), else its quiet-cycle hook, the run hook when `run` says so.
            auto replay = [&](unsigned s, [[maybe_unused]] std::uint64_t n, [[maybe_unused]] bool run) {
                if constexpr (withheld_replay)
                    if (quiet_.ready_mask[s] != 0) {
                        sm.schedulers_[s].on_withheld_cycles(withheld_view(sm, s), n);
                        return;
                    }
                const PoolView view{&sm, s, ready_flags_.data(), Core::pool_size(s), 0};
                if constexpr (timing::QuietCyclesHook<Scheduler, PoolView>)
                    if (run) {
                        sm.schedulers_[s].on_quiet_cycles(view, n);
                        return;
                    }
                sm.schedulers_[s].on_quiet_cycle(view);
            };
            const std::uint64_t single =
                timing::QuietCyclesHook<Scheduler, PoolView> ? std::min<std::uint64_t>(count, 2) : count;
            for (std::uint64_t k = 0; k < single; ++k) {
                sm.now_ = first_now + k;
                for (unsigned s = 0; s < Frontend::schedulers; ++s) replay(s, 1, false);
            }
            if (count > single) { // only with the run hook
                sm.now_ = first_now + count - 1;
                for (unsigned s = 0; s < Frontend::schedulers; ++s) replay(s, count - single, true);
            }
            if constexpr (withheld_replay)
                if (ready_seen_) withheld_replayed_ += count;
        }
        sm.now_ = first_now + count - 1;
        if (quiet_.cycle_class < 3) sm.stats_.cycle_class[quiet_.cycle_class] += count;
        // Per-line statistics: a replayed cycle charges what the recorded one charged, counted here and added in
        // one step when the quiet cycles end (charge_replayed).
        if (sm.lines_.on()) quiet_.uncharged += count;
        count_lsu_state(sm, count);
    }

    void replay_quiet_cycle(Core& sm) { replay_quiet_cycles(sm, 1, sm.now_); }
    // Replayed cycles (slept ones included) in which some scheduler withheld ready warps: a host-time figure, not a
    // statistic of the simulated machine.
    std::uint64_t withheld_cycles_replayed() const { return withheld_replayed_; }

    // `count` cycles of an SM that holds no warp (SM::skips_vacant_cycles), the last at `last`: what as many run()
    // calls count there. Every scheduler's outcome is idle with no warp ready, no Gong cycle class applies (no
    // warp), and the per-line statistics charge nothing (no instruction).
    void count_vacant_cycles(Core& sm, std::uint64_t count, core::Cycle last) {
        for (unsigned s = 0; s < Frontend::schedulers; ++s) {
            sm.stats_.issue_slots += count * Frontend::dispatch_per_scheduler;
            sm.stats_.outcomes[static_cast<std::size_t>(timing::IssueOutcome::idle)] += count;
        }
        sm.now_ = last;
        count_lsu_state(sm, count);
    }

    // Adds the replayed cycles not yet charged to the instructions the recorded quiet cycle charged. Before the
    // next cycle that is not replayed, and before a launch's per-line statistics are read (SM::line_stats).
    void charge_replayed(Core& sm) {
        if (quiet_.uncharged == 0) return;
        for (unsigned s = 0; s < Frontend::schedulers; ++s)
            if (quiet_.line_pc[s] != ir::no_pc)
                sm.lines_.charge(quiet_.line_pc[s], quiet_.outcome[s], quiet_.uncharged);
        quiet_.uncharged = 0;
    }

    void count_lsu_state(Core& sm, std::uint64_t cycles = 1) {
        switch (sm.l1_.lsu_state()) {
        case mem::LsuState::stalled_coalesce: sm.stats_.lsu[1] += cycles; break;
        case mem::LsuState::stalled_mshr: sm.stats_.lsu[2] += cycles; break;
        case mem::LsuState::stalled_icnt: sm.stats_.lsu[3] += cycles; break;
        default: break;
        }
    }

    // Why warp w cannot issue its head instruction now (IssueOutcome::issued when it can).
    timing::IssueOutcome blocker(const Core& sm, unsigned w) const {
        const timing::IssueOutcome local = warp_blocker(sm, w);
        if (local != timing::IssueOutcome::issued) return local;
        const WarpState& ws = sm.warps_[w];
        return resources_block(sm, ws.scheduler, sm.records_[ws.ibuffer[ws.ib_head]]);
    }

    // The part of blocker() that depends only on warp w's own state (barrier, instruction buffer, scoreboard,
    // its CTA's functional barrier): `issued` when only the structural limits of resources_block() remain.
    // It changes only through events that touch(w) (see event_driven_issue).
    timing::IssueOutcome warp_blocker(const Core& sm, unsigned w) const {
        const WarpState& ws = sm.warps_[w];
        if (ws.at_barrier) return timing::IssueOutcome::barrier;
        if (ws.ib_count == 0) {
            if constexpr (!Core::in_order_fetch)
                if (ws.occupied && sm.fetch_mechanism_.owns_fetch(sm, w))
                    return sm.fetch_mechanism_.empty_blocker(sm, w);
            if (ws.occupied && (ws.functional_done || ws.fetch_blocked)) return timing::IssueOutcome::raw_other;
            if (ws.occupied && sm.ctas_[ws.cta_slot].state->warp_waiting(ws.warp_in_cta))
                return timing::IssueOutcome::barrier;
            return timing::IssueOutcome::ibuffer_empty;
        }
        switch (sm.head_hazard(w)) { // cached per warp: most stalled warps stop here without touching their record
        case Hazard::raw_long: return timing::IssueOutcome::raw_long_latency;
        case Hazard::raw_other: return timing::IssueOutcome::raw_other;
        case Hazard::none: break;
        }
        return timing::IssueOutcome::issued;
    }

    // What memory-aware schedulers read of a ready warp's next instruction (PoolView's previews), kept here so
    // that they need not read its decoded record.
    struct HeadPreview {
        ir::Pc pc = ir::no_pc;
        unsigned active_lanes = 0;
        ir::OpClass op_class = ir::OpClass::nop;
    };
    // Warp w's head instruction; valid while the event-driven masks let w issue (warp_code_ is `issued`), which
    // every ready warp's is.
    const HeadPreview& head_preview(unsigned w) const { return warp_head_[w]; }
    // Scheduler s's pool slots that are empty, wait at a barrier or whose head instruction waits on a long-latency
    // load (PoolView::waiting_mask), from the masks refresh_masks() brought up to date at the start of this issue
    // step. With in-order fetch a warp's code is raw_long_latency exactly when PoolView::long_latency_pending holds
    // and it waits at no barrier (warp_blocker: a head instruction whose hazard is raw_long), and barrier exactly
    // when PoolView::waiting_at_barrier holds.
    std::uint64_t waiting_slots(const Core& sm, unsigned s) const
        requires(Core::event_driven_issue && Core::in_order_fetch)
    {
        const IssueMasks& m = issue_masks_[s];
        return pipeline::low_bits(Core::pool_size(s)) &
               (~sm.occupied_slots_[s] | m.by_code[static_cast<std::size_t>(timing::IssueOutcome::raw_long_latency)] |
                m.by_code[static_cast<std::size_t>(timing::IssueOutcome::barrier)]);
    }
    // blocker() of pool slot i of the scheduler now issuing, computed once between two issues: the stall
    // classification and the scheduler's readiness queries share it. issue_scheduler() clears it on entry and
    // after every issue, the only state changes inside a scheduler's issue step.
    timing::IssueOutcome pool_outcome(const Core& sm, unsigned scheduler, unsigned i) const {
        if constexpr (Core::event_driven_issue) {
            // Kept up to date by refresh_masks() and the candidates' resource check of this issue step.
            const auto local = static_cast<timing::IssueOutcome>(warp_code_[Core::slot_of(scheduler, i)]);
            if (local != timing::IssueOutcome::issued) return local;
            if ((ready_now_ >> i) & 1U) return local;
            // Not ready: the pipeline register in front of its head instruction's unit is full.
            return warp_unit_key_[Core::slot_of(scheduler, i)] % 2 == 1 ? timing::IssueOutcome::memory_pipeline
                                                                        : timing::IssueOutcome::structural;
        }
        std::uint8_t& code = outcome_cache_[i];
        if (code == 0) code = static_cast<std::uint8_t>(blocker(sm, Core::slot_of(scheduler, i))) + 1;
        return static_cast<timing::IssueOutcome>(code - 1);
    }

    // Structural limits at issue: one instruction waiting for dispatch per unit the scheduler may use (the
    // pipeline register in front of each unit), and a free operand collector.
    timing::IssueOutcome resources_block(const Core& sm, unsigned scheduler, const InFlight& rec) const {
        if (!sm.dispatch_.has_room(Core::kind_index(rec.unit), scheduler))
            return rec.is_memory ? timing::IssueOutcome::memory_pipeline : timing::IssueOutcome::structural;
        timing::OperandRead read = sm.dispatch_.operand_read(sm, rec);
        if (!sm.rf_.can_accept(read)) {
            if constexpr (timing::ReportsBankConflictsPerScheduler<RegisterFile>) {
                if (sm.rf_.conflicted_last_cycle(scheduler)) return timing::IssueOutcome::bank_conflict;
            } else if constexpr (timing::ReportsBankConflicts<RegisterFile>) {
                if (sm.rf_.conflicted_last_cycle()) return timing::IssueOutcome::bank_conflict;
            }
            return timing::IssueOutcome::structural;
        }
        return timing::IssueOutcome::issued;
    }

    static std::size_t si_type(timing::UnitKind k) {
        switch (k) {
        case timing::UnitKind::scalar: return 1;
        case timing::UnitKind::ldst: return 2;
        case timing::UnitKind::lds: return 3;
        case timing::UnitKind::branch: return 4;
        default: return 0; // vector ALU (sp, sfu, dp, int_mul)
        }
    }

    static bool depends_on(const ir::Instruction& later, const ir::Instruction& earlier) {
        for (unsigned d = 0; d < earlier.num_defs; ++d) {
            for (unsigned u = 0; u < later.num_uses; ++u)
                if (later.uses[u] == earlier.defs[d]) return true;
            for (unsigned u = 0; u < later.num_defs; ++u)
                if (later.defs[u] == earlier.defs[d]) return true;
        }
        return false;
    }

private:
    // replay_quiet_cycle(): whether the last issue stage issued nothing (valid), at which state_epoch_, each
    // scheduler's outcome and the Gong class then (0 issued, 1 long-latency, 2 mixed, 3 no warp).
    struct QuietCycle {
        bool valid = false;
        std::uint64_t epoch = 0;
        std::uint8_t cycle_class = 3;
        std::array<timing::IssueOutcome, Frontend::schedulers> outcome{};
        std::array<std::uint8_t, Frontend::schedulers> ready_warps{}; // a replayed cycle repeats the recorded one
        std::array<std::uint64_t, Frontend::schedulers> ready_mask{}; // event-driven issue: the ready slots
        std::array<ir::Pc, Frontend::schedulers> line_pc{}; // the instruction charged (per-line statistics)
        std::uint64_t uncharged = 0; // replayed cycles not yet charged to line_pc (charge_replayed)
    };
    static constexpr std::array<std::uint8_t, Frontend::max_warps> per_warp(std::uint8_t value) {
        std::array<std::uint8_t, Frontend::max_warps> values{};
        values.fill(value);
        return values;
    }
    static constexpr unsigned max_pool = (Frontend::max_warps + Frontend::schedulers - 1) / Frontend::schedulers;

    QuietCycle quiet_;
    // Whether some scheduler's view had a ready warp in this cycle (a stateful scheduler's cycle is replayed only
    // when none had, or under withheld_replay). Replays leave it alone, so while quiet_ is valid it describes the
    // recorded cycle: a replayed one in which some scheduler withheld its ready warps.
    bool ready_seen_ = false;
    static constexpr bool const_select = timing::ConstSelect<Scheduler, PoolView>;
    // Withheld-cycle replay: a cycle in which a scheduler with state withheld every ready warp (timing::
    // WithheldCycleHook) is replayed like a quiet cycle while every such scheduler says it would repeat it. Only
    // under event-driven issue, whose views show the state epoch and keep each scheduler's ready mask.
    static constexpr bool withheld_replay =
        Core::event_driven_issue && timing::WithheldCycleHook<Scheduler, PoolView> && !const_select;
    // The view scheduler s had in the recorded cycle: its ready slots, as the state epoch says they still are.
    PoolView withheld_view(const Core& sm, unsigned s) const {
        return PoolView{&sm, s, ready_flags_.data(), Core::pool_size(s), quiet_.ready_mask[s]};
    }
    std::uint64_t withheld_replayed_ = 0; // replayed cycles in which some scheduler withheld ready warps
    std::array<IssueMasks, Frontend::schedulers> issue_masks_{};
    std::uint64_t ready_now_ = 0; // the ready slots of the scheduler now issuing
    ir::Pc first_issued_pc_ = ir::no_pc; // the first instruction the scheduler now issuing issued (per-line statistics)
    // warp_blocker() of each warp, idle if unoccupied; unit_key() of a candidate's head instruction.
    std::array<std::uint8_t, Frontend::max_warps> warp_code_ =
        per_warp(static_cast<std::uint8_t>(timing::IssueOutcome::idle));
    std::array<std::uint8_t, Frontend::max_warps> warp_unit_key_ = per_warp(no_unit_key);
    // What a candidate's head instruction is, set with its unit key: valid while warp_code_ is `issued`.
    std::array<HeadPreview, Frontend::max_warps> warp_head_{};
    // Per pool slot of the scheduler now issuing.
    mutable std::array<std::uint8_t, max_pool> ready_flags_{};
    mutable std::array<std::uint8_t, max_pool> outcome_cache_{}; // pool_outcome(): IssueOutcome + 1, 0 unknown
};

} // namespace gpuarch::pipeline
