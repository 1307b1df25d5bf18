#pragma once
// fetch::HintAssisted: the fetch-slot policy of hint-assisted warp scheduling (Gong 2020 Ch. 5; docs/haws.md).
//
// A warp that stalls on a long-latency load (its "stall point") switches to hint mode: the fetch stage follows the
// compiler's hint chain (ir/hints.hpp) and fetches only the instructions the chain names, one at a time, while the
// load is outstanding ("HAWS will not attempt to access any instruction that is not pointed to by a hint", Sec.
// 5.3.3). Results go to the per-warp Result Collection Unit (sched/rcu.hpp), renamed destinations through a scalar
// and a vector rename table. When the long-latency flag clears, or the chain ends, or the RCU is full, the warp
// returns to in-order fetch at the stall point; in-order fetch skips the instructions already executed and issues
// a register copy (bypassing execution) for the renamed ones (Sec. 5.3.4, Fig. 5.8).
//
// Model: functional execution stays in program order. When a warp enters hint mode, its fetched instructions go
// back into a per-warp run-ahead window (records already executed, not yet fetched in order); hint-mode fetch
// moves only the chain's instructions, one at a time, from the window into the instruction buffer, stepping the
// functional engine ahead (in program order) when the next chain instruction is not in the window yet. In-order
// fetch then drains the window: instructions issued in hint mode are skipped, or become a register copy when
// their result was renamed.
//
// Division of labour. This header holds the mechanism (Mechanism<Core>, run by the SM through the fetch slot's
// hooks, timing/fetch.hpp) and the per-warp state it works on (HintWarp: window, RCU, rename tables, SIMT-stack
// copy). The scheduler that names this policy (sched::HAWSScheduler) stores one HintWarp per pool slot, because
// its selection reads them too, and keeps the statistics; it must model HintScheduler below.
#include <array>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include <gpuarch/core/cycle.hpp>
#include <gpuarch/core/error.hpp>
#include <gpuarch/core/lane_mask.hpp>
#include <gpuarch/func/step_result.hpp>
#include <gpuarch/func/warp_state.hpp>
#include <gpuarch/ir/hints.hpp>
#include <gpuarch/ir/instruction.hpp>
#include <gpuarch/ir/module.hpp>
#include <gpuarch/timing/fetch.hpp>
#include <gpuarch/timing/interfaces.hpp>

namespace gpuarch::fetch {

// A register rename table (Sec. 5.3.3): original -> most recently associated renamed register. Sized to the RCU.
template <unsigned Entries> class RenameTable {
public:
    static constexpr unsigned entries = Entries;
    // Records orig -> renamed, replacing an older mapping of orig. False when a new mapping does not fit.
    bool map(ir::RegId orig, ir::RegId renamed) {
        for (unsigned i = 0; i < size_; ++i)
            if (table_[i].orig == orig) {
                table_[i].renamed = renamed;
                return true;
            }
        if (size_ == Entries) return false;
        table_[size_++] = Mapping{orig, renamed};
        return true;
    }
    // The register holding orig's latest value (orig itself when it is not renamed).
    ir::RegId lookup(ir::RegId orig) const {
        for (unsigned i = 0; i < size_; ++i)
            if (table_[i].orig == orig) return table_[i].renamed;
        return orig;
    }
    unsigned size() const { return size_; }
    void clear() { size_ = 0; }

private:
    struct Mapping {
        ir::RegId orig = ir::no_reg, renamed = ir::no_reg;
    };
    std::array<Mapping, Entries> table_{};
    unsigned size_ = 0;
};

// The duplicated SIMT stack (Sec. 5.3.3: "We copy the data from the original SIMT stack every time hint mode is
// triggered"). Holds at most Entries entries (Sec. 5.3.6: eight); a deeper stack cannot be copied, and the warp
// then does not enter hint mode.
template <unsigned Entries> class SimtStackCopy {
public:
    static constexpr unsigned entries = Entries;
    bool take(const std::vector<func::SimtEntry>& stack) {
        if (stack.size() > Entries) return false;
        for (std::size_t i = 0; i < stack.size(); ++i) copy_[i] = stack[i];
        size_ = static_cast<unsigned>(stack.size());
        return true;
    }
    unsigned size() const { return size_; }
    const func::SimtEntry& operator[](unsigned i) const { return copy_[i]; }

private:
    std::array<func::SimtEntry, Entries> copy_{};
    unsigned size_ = 0;
};

// One instruction of a warp's run-ahead window: functionally executed (in program order), not yet fetched in order.
struct WindowEntry {
    static constexpr std::uint32_t no_record = 0xffffffffU;
    std::uint32_t record = no_record; // the SM's record while this instruction has not been issued in hint mode
    ir::Pc pc = ir::no_pc;
    bool staged = false; // in the fetch buffer as a hinted instruction
    bool hint_issued = false; // issued in hint mode (its RCU entry decides skip or copy on return)
    ir::RegId dst = ir::no_reg; // hint-issued: the original destination
    ir::RegId renamed = ir::no_reg; // hint-issued: the register the result went to (== dst when not renamed)
    core::WarpMask executed; // hint-issued: its lanes (a copy moves the same lanes)
    unsigned active_lanes = 0;
};

// Per in-flight instruction: what hint mode did to it (the SM keeps one in every record, timing/fetch.hpp).
struct HintRecordState {
    bool hinted = false; // issued (or staged to issue) in hint mode
    bool copy = false; // a register copy issued on return to in-order (bypasses execution)
    std::uint16_t offset = 0; // hinted: distance from the stall point (its RCU entry)
    std::uint32_t episode = 0; // hinted: the warp's episode that issued it
    ir::RegId renamed_to = ir::no_reg; // hinted: defs[0] is written to this register instead
};

// Per-warp hint-mode state.
template <class Rcu> struct HintWarp {
    bool hint_mode = false; // Sec. 5.3.3: "the warp state flag bit"
    ir::Pc stall_pc = ir::no_pc;
    std::uint64_t stall_token = ~std::uint64_t{0}; // the dynamic stall point of the current or last episode
    std::uint32_t stall_record = WindowEntry::no_record;
    std::uint16_t next_offset = 0; // of the next chain instruction to fetch; 0: the chain ended
    std::uint16_t last_offset = 0; // of the last chain instruction fetched
    std::size_t scan_from = 0; // window index after the last chain instruction
    bool window_done = false; // the run-ahead executed the warp's last instruction
    unsigned episode_issued = 0;
    std::uint32_t episode = 0; // episodes entered so far
    core::Cycle failed_issue_at = ~core::Cycle{0}; // HawsEntry::failed_issue: last cycle the base found it not ready
    core::Cycle issued_at = ~core::Cycle{0}; // HawsEntry::failed_issue: last cycle it issued
    std::deque<WindowEntry> window;
    Rcu rcu;
    RenameTable<Rcu::depth> scalar_renames, vector_renames; // Sec. 5.3.6: scalar and vector tables, RCU-sized
    SimtStackCopy<8> stack_copy; // Sec. 5.3.6: eight entries
};

// Hint-mode statistics, kept by the scheduler (per scheduler, printed under its `haws.` counters).
struct HintStats {
    std::uint64_t episodes = 0; // switches to hint mode
    std::uint64_t stalls_without_chain = 0; // long-latency stalls at an instruction that carries no hint
    std::uint64_t hint_issued = 0; // instructions issued in hint mode
    std::uint64_t hint_alu = 0, hint_memory = 0; // of which ALU / long-latency memory
    std::uint64_t total_alu = 0, total_memory = 0; // every issued ALU / long-latency memory instruction
    std::uint64_t copies = 0; // register copies issued on return (renamed results)
    std::uint64_t skipped = 0; // in-order fetches skipped on return (results in place)
    std::uint64_t rcu_full = 0; // episodes stopped because the RCU was full
    std::uint64_t flushed = 0; // hinted instructions fetched but flushed on return
    std::uint64_t returns_on_flag = 0; // episodes ended by the long-latency flag clearing
    std::uint64_t returns_on_chain_end = 0; // episodes ended because the chain had no further instruction
    std::uint64_t chain_guard_stops = 0; // chains cut because a hinted instruction depended on a skipped one
    std::uint64_t run_ahead_steps = 0; // instructions executed functionally ahead of in-order fetch
    std::uint64_t run_ahead_blocked = 0; // chains cut at a barrier, the warp's exit or the window limit
    std::uint64_t simt_entries_copied = 0;
    std::uint64_t simt_copy_overflows = 0; // stall points where the SIMT stack was deeper than its copy
    std::vector<std::uint64_t> per_episode; // histogram: episodes that issued k instructions
};

// An issue as the mechanism reports it to the scheduler (record_issue): tests print Fig. 5.3 timelines from it.
struct HintIssueEvent {
    core::Cycle cycle = 0;
    unsigned slot = 0; // pool slot of the warp
    ir::Pc pc = ir::no_pc;
    enum class Kind : std::uint8_t { in_order, hinted, copy } kind = Kind::in_order;
};

// What the mechanism needs of the scheduler that names this fetch policy: per pool slot a HintWarp, the statistics,
// the two episode and issue notifications, and the hint-mode parameters (where hints come from, how a hint names
// the next chain instruction and a rename target, the run-ahead bound, the entry trigger).
template <class S>
concept HintScheduler = requires(S s, const S cs, unsigned slot, ir::Pc pc, core::Cycle now, const ir::Kernel& kernel,
                                 const ir::InstructionHint& hint) {
    s.warp(slot).hint_mode;
    cs.warp(slot).window;
    { s.stats() } -> std::same_as<HintStats&>;
    s.end_episode(slot, cs.warp(slot));
    s.record_issue(slot, pc, now, HintIssueEvent::Kind::hinted);
    { S::Hints::hints(kernel) } -> std::convertible_to<ir::KernelHints>;
    { S::next_offset(hint, pc, pc) } -> std::convertible_to<std::uint16_t>;
    { S::rename_target(hint) } -> std::convertible_to<ir::RegId>;
    { S::window_limit } -> std::convertible_to<unsigned>;
    { S::trigger_all_stalled } -> std::convertible_to<bool>;
    { S::enter_on_failed_issue } -> std::convertible_to<bool>;
};

struct HintAssisted {
    static constexpr std::string_view name = "hint-assisted";
    // The fetch stage is this policy's (timing/fetch.hpp): the SM's own in-order fetch runs only where
    // owns_fetch() says no.
    static constexpr bool in_order = false;
    using RecordState = HintRecordState;
    // The quiet-cycle contract (timing/fetch.hpp, FollowsStateEpoch): every transition advances the SM's state epoch
    // and touches its warp (transition() below), and every decision reads the warp's buffer, scoreboard, RCU and
    // hint-mode state, which only epoch-advancing events change. Not with HawsEntry::failed_issue, whose entry reads
    // whether this cycle's issue stage tried the warp (failed_issue_at == now): a cycle-numbered fact.
    template <class Scheduler> static constexpr bool follows_state_epoch = !Scheduler::enter_on_failed_issue;

    // Run by SM `Core` (a friend of it: the mechanism reads and rewrites the core's warp, record and scoreboard
    // state, which is what fetch-stage hardware does). One per SM; holds the bound kernel's hints and the
    // register-copy instructions.
    template <class Core> class Mechanism {
        using Scheduler = typename Core::Scheduler;
        using Hazard = typename Core::Hazard;
        static_assert(HintScheduler<Scheduler>,
                      "a scheduler whose fetch_policy is fetch::HintAssisted must model fetch::HintScheduler: "
                      "warp(slot) returning a HintWarp, stats(), end_episode, record_issue, Hints, next_offset, "
                      "rename_target, window_limit, trigger_all_stalled and enter_on_failed_issue");

    public:
        void bind(Core&, const ir::Kernel& kernel) {
            // Hints depend only on the kernel: computed once per kernel, not per launch.
            if (state_.kernel == &kernel && state_.kernel_code_size == kernel.code.size() &&
                state_.kernel_name == kernel.name)
                return;
            state_.hints = Scheduler::Hints::hints(kernel);
            if (state_.hints.hint.size() != kernel.code.size())
                throw gpuarch::Error("HAWS: the hint source gave " + std::to_string(state_.hints.hint.size()) +
                                     " hints for kernel '" + kernel.name + "' of " +
                                     std::to_string(kernel.code.size()) + " instructions");
            state_.kernel = &kernel;
            state_.kernel_code_size = kernel.code.size();
            state_.kernel_name = kernel.name;
            state_.copies.clear();
        }

        // In hint mode, or while in-order fetch drains the window, fetch belongs to the hint-mode logic.
        bool owns_fetch(const Core& sm, unsigned w) const {
            const auto& hw = warp_of(sm, w);
            return hw.hint_mode || !hw.window.empty();
        }
        bool can_fetch(const Core& sm, unsigned w) const {
            const typename Core::WarpState& ws = sm.warps_[w];
            const auto& hw = warp_of(sm, w);
            // Sec. 5.3.3: one hinted instruction at a time; a full RCU stops hint-mode issue.
            if (hw.hint_mode) return ws.ib_count == 0 && hw.next_offset != 0 && !hw.rcu.full();
            return !ws.fetch_blocked && !ws.at_barrier && ws.ib_count < Core::Frontend::ibuffer_entries;
        }
        timing::IssueOutcome empty_blocker(const Core& sm, unsigned w) const {
            const typename Core::WarpState& ws = sm.warps_[w];
            if (warp_of(sm, w).hint_mode)
                return timing::IssueOutcome::raw_long_latency; // the warp waits on its stall point
            return ws.fetch_blocked ? timing::IssueOutcome::raw_other : timing::IssueOutcome::ibuffer_empty;
        }
        void fetch(Core& sm, unsigned w) {
            sm.touch(w); // what w fetches changes its eligibility (the fetch stage advances the epoch itself)
            if (warp_of(sm, w).hint_mode) fetch_hinted(sm, w);
            else fetch_window(sm, w);
        }

        // After every issue: statistics, and for a hinted instruction its RCU entry and rename mapping (Sec. 5.3.3).
        void after_issue(Core& sm, unsigned w, typename Core::InFlight& rec) {
            auto& sched = sm.schedulers_[sm.warps_[w].scheduler];
            auto& st = sched.stats();
            const bool alu = !rec.is_memory && !rec.is_control;
            if (alu) ++st.total_alu;
            if (rec.long_latency) ++st.total_memory;
            if (!rec.fetch_state.hinted) {
                sched.record_issue(sm.warps_[w].pool_index, rec.result.pc, sm.now_, HintIssueEvent::Kind::in_order);
                return;
            }
            auto& hw = warp_of(sm, w);
            const ir::Instruction& inst = *rec.result.instruction;
            const ir::RegId dst = inst.num_defs > 0 ? inst.defs[0] : ir::no_reg;
            const ir::RegId renamed = rec.fetch_state.renamed_to != ir::no_reg ? rec.fetch_state.renamed_to : dst;
            if (!hw.rcu.insert(rec.fetch_state.offset, dst, renamed, rec.is_control))
                throw gpuarch::Error(
                    "HAWS: a hinted instruction issued with its RCU full or its offset taken (internal error)");
            if (renamed != dst) {
                auto& table = sm.is_predicate_[dst] ? hw.scalar_renames : hw.vector_renames;
                if (!table.map(dst, renamed))
                    throw gpuarch::Error("HAWS: rename table full (internal error: it is RCU-sized)");
            }
            for (auto& e : hw.window)
                if (e.staged && e.record == rec.index) {
                    e.staged = false;
                    e.hint_issued = true;
                    e.record = WindowEntry::no_record; // the record now belongs to the pipeline
                    e.dst = dst;
                    e.renamed = renamed;
                    e.executed = rec.result.executed;
                    e.active_lanes = rec.active_lanes;
                }
            ++hw.episode_issued;
            ++st.hint_issued;
            if (alu) ++st.hint_alu;
            if (rec.long_latency) ++st.hint_memory;
            sched.record_issue(sm.warps_[w].pool_index, rec.result.pc, sm.now_, HintIssueEvent::Kind::hinted);
        }
        // A hinted instruction's result is written: its RCU entry becomes ready (if its episode's RCU still holds it).
        void on_retire(Core& sm, const typename Core::InFlight& rec) {
            if (!rec.fetch_state.hinted) return;
            auto& hw = warp_of(sm, rec.warp);
            if (hw.episode == rec.fetch_state.episode) hw.rcu.mark_ready(rec.fetch_state.offset);
        }

        // Rename targets of hint mode are registers past the kernel's own (ir/hints.hpp): the scoreboard covers them.
        unsigned extra_registers() const { return state_.hints.extra_registers; }
        // A branch issued in hint mode runs on the SIMT-stack copy: in-order fetch never waited for it.
        static bool resolves_control(const typename Core::InFlight& rec) { return !rec.fetch_state.hinted; }
        // The register an instruction's k-th destination is written to: its own, or its rename target in hint mode.
        static ir::RegId def_register(const typename Core::InFlight& rec, unsigned k) {
            if (k == 0 && rec.fetch_state.renamed_to != ir::no_reg) return rec.fetch_state.renamed_to;
            return rec.result.instruction->defs[k];
        }
        // Whether the head's scoreboard check is this policy's (an instruction hint mode staged) or the core's.
        bool overrides_hazard(const typename Core::InFlight& rec) const { return rec.fetch_state.hinted; }
        Hazard head_hazard(const Core& sm, unsigned w, const typename Core::InFlight& rec) const {
            return hint_hazard(sm, w, rec);
        }
        // A register copy issues here instead of through the core's issue path (true when it did).
        bool issue_instead(Core& sm, unsigned w) {
            const auto& ws = sm.warps_[w];
            if (!sm.records_[ws.ibuffer[ws.ib_head]].fetch_state.copy) return false;
            issue_copy(sm, w);
            return true;
        }
        // Start of the fetch stage: warps enter and leave hint mode.
        void begin_stage(Core& sm) { transitions(sm); }
        // The SM reports every touch of a warp (SM::touch, touch_all): transitions() visits only those warps where
        // visits_touched_only() says it may.
        void touched(unsigned w) {
            if constexpr (visits_touched_only()) touched_[w / 64] |= std::uint64_t{1} << (w % 64);
        }
        void touched_all() {
            if constexpr (visits_touched_only()) touched_.fill(~std::uint64_t{0});
        }

    private:
        static auto& warp_of(Core& sm, unsigned w) {
            return sm.schedulers_[sm.warps_[w].scheduler].warp(sm.warps_[w].pool_index);
        }
        static const auto& warp_of(const Core& sm, unsigned w) {
            return sm.schedulers_[sm.warps_[w].scheduler].warp(sm.warps_[w].pool_index);
        }
        static HintStats& stats_of(Core& sm, unsigned w) { return sm.schedulers_[sm.warps_[w].scheduler].stats(); }

        struct KernelState {
            const ir::Kernel* kernel = nullptr;
            std::size_t kernel_code_size = 0;
            std::string kernel_name;
            ir::KernelHints hints;
            std::deque<ir::Instruction> copies; // the register copies (mov dst, renamed); a deque keeps them in place
        };
        KernelState state_;

        // The stall point still waits on its long-latency load (the scoreboard's long-latency flag, Sec. 5.3.3).
        bool stall_waiting(const Core& sm, unsigned w) const {
            return sm.hazard(w, *sm.records_[warp_of(sm, w).stall_record].result.instruction) == Hazard::raw_long;
        }
        // RAW check of a hinted instruction: the scoreboard and the earlier RCU entries (Sec. 5.3.3), sources read
        // through the rename tables. Not issuable at all once the stall point's load is back (the warp returns).
        Hazard hint_hazard(const Core& sm, unsigned w, const typename Core::InFlight& rec) const {
            const auto& hw = warp_of(sm, w);
            if (!stall_waiting(sm, w)) return Hazard::raw_other;
            const ir::Instruction& inst = *rec.result.instruction;
            Hazard h = Hazard::none;
            for (unsigned k = 0; k < inst.num_uses; ++k) {
                const ir::RegId r = lookup(sm, hw, inst.uses[k]);
                if (sm.scoreboard_.pending(w, r) || hw.rcu.pending_write(r)) {
                    if (sm.scoreboard_.long_latency(w, r)) return Hazard::raw_long;
                    h = Hazard::raw_other;
                }
            }
            for (unsigned k = 0; k < inst.num_defs; ++k) {
                const ir::RegId r = def_register(rec, k);
                if (sm.scoreboard_.pending(w, r))
                    return sm.scoreboard_.long_latency(w, r) ? Hazard::raw_long : Hazard::raw_other;
            }
            return h;
        }
        template <class HW> ir::RegId lookup(const Core& sm, const HW& hw, ir::RegId r) const {
            return r < sm.is_predicate_.size() && sm.is_predicate_[r] ? hw.scalar_renames.lookup(r)
                                                                      : hw.vector_renames.lookup(r);
        }

        // Every transition of warp w: the SM's state epoch moves and w's issue and fetch eligibility are re-evaluated
        // (the quiet-cycle contract, follows_state_epoch; event-driven issue and fetch).
        static void transition(Core& sm, unsigned w) {
            ++sm.state_epoch_;
            sm.touch(w);
        }

        // Start of the fetch stage: warps enter and leave hint mode, in ascending warp slot order.
        void transitions(Core& sm) {
            if constexpr (visits_touched_only()) {
                for (unsigned k = 0; k < touched_.size(); ++k) {
                    // Ascending order within the word even if a visit touches a warp: a bit at or below the last one
                    // visited waits for the next stage, as the full visit, which reaches each warp once, would.
                    std::uint64_t visited = 0;
                    for (std::uint64_t m; (m = touched_[k] & ~visited) != 0;) {
                        const std::uint64_t bit = m & (~m + 1);
                        visited = bit | (bit - 1);
                        touched_[k] &= ~bit;
                        const unsigned w = k * 64 + static_cast<unsigned>(std::countr_zero(bit));
                        if (w >= sm.warps_.size() || !sm.warps_[w].occupied) continue;
                        visit(sm, w);
                    }
                }
            } else {
                sm.for_each_occupied_warp([&](unsigned w) { visit(sm, w); });
            }
        }
        void visit(Core& sm, unsigned w) {
            const auto& hw = warp_of(sm, w);
            if (hw.hint_mode) maybe_return(sm, w);
            else if (may_enter(sm, w, hw)) maybe_enter(sm, w);
        }
        // Whether transitions() visits only the warps touched since their last visit. A visit that changed nothing
        // gives the same answer until something it reads changes. Out of hint mode (maybe_enter): the warp's fetch
        // buffer, barrier flag, head record, the scoreboard entries of its head (the cached head hazard), its RCU and
        // its stall token. In hint mode (maybe_return): the scoreboard entries of its stall point, its fetch buffer
        // (a staged chain instruction), its chain (next_offset, which only the mechanism's fetch moves) and whether
        // its RCU is full (only a hinted issue fills it). Every change to those touches the warp: fetch (the
        // mechanism's too), issue (which fills the RCU), write-back, barrier release, CTA start and exit (the SM's
        // event-driven issue rests on the same touches, and is on only where they are complete:
        // Core::event_driven_issue), and a visit that changes anything (transition).
        // Not with an entry that reads the cycle number (HawsEntry::failed_issue) or other warps' state
        // (HawsTrigger::all_warps_stalled): those visit every occupied warp in every stage.
        static constexpr bool visits_touched_only() {
            return Core::event_driven_issue && !Scheduler::enter_on_failed_issue && !Scheduler::trigger_all_stalled &&
                   Core::Frontend::max_warps <= 64 * std::tuple_size_v<decltype(touched_)>;
        }
        // Warp slots touched since their last visit (bit w % 64 of word w / 64).
        std::array<std::uint64_t, 8> touched_{};
        // maybe_enter's first tests, the cheapest, inline in the visit of every occupied warp in every fetch stage:
        // a head to stall on that is not a register copy, at a stall point that has not had its episode, no results
        // of the previous episode left to consume, and a head hazard that is not known to be other than raw_long.
        // Each test only returns, so their order is free; a warp waiting at a stall point it already took stops here
        // until its load returns.
        template <class HW> static bool may_enter(const Core& sm, unsigned w, const HW& hw) {
            const typename Core::WarpState& ws = sm.warps_[w];
            if (ws.ib_count == 0 || ws.at_barrier) return false;
            // The head's hazard when the SM has it cached (Core::head_hazard): a head that does not wait on a
            // long-latency load cannot enter (maybe_enter's first test), and most visits end here.
            if (ws.head_hazard != Core::hazard_unknown && ws.head_hazard != static_cast<std::uint8_t>(Hazard::raw_long))
                return false;
            const typename Core::InFlight& rec = sm.records_[ws.ibuffer[ws.ib_head]];
            return !rec.fetch_state.copy && Core::token_of(rec) != hw.stall_token && hw.rcu.empty();
        }
        // The rest of the entry tests, then the entry (after may_enter).
        [[gnu::noinline]] void maybe_enter(Core& sm, unsigned w) {
            typename Core::WarpState& ws = sm.warps_[w];
            const std::uint32_t r = ws.ibuffer[ws.ib_head];
            const typename Core::InFlight& rec = sm.records_[r];
            auto& hw = warp_of(sm, w);
            if (sm.head_hazard(w) != Hazard::raw_long) return;
            // A register copy of the previous episode still waiting behind the stall point: that episode is not over.
            for (unsigned k = 1; k < ws.ib_count; ++k)
                if (sm.records_[ws.ibuffer[(ws.ib_head + k) % ws.ibuffer.size()]].fetch_state.copy) return;
            // HawsEntry::failed_issue (Sec. 5.2): the flag is set only by this cycle's failed issue attempt.
            if constexpr (Scheduler::enter_on_failed_issue)
                if (hw.failed_issue_at != sm.now_) return;
            const ir::Pc pc = rec.result.pc;
            const std::uint16_t first = Scheduler::next_offset(state_.hints.hint[pc], pc, rec.result.next_pc);
            if (first == 0 || first >= Scheduler::window_limit) {
                // A long-latency stall with nothing to run: the thesis's switches include these (Fig. 5.13).
                hw.stall_token = Core::token_of(rec);
                ++stats_of(sm, w).stalls_without_chain;
                transition(sm, w);
                return;
            }
            if constexpr (Scheduler::trigger_all_stalled) {
                const unsigned s = ws.scheduler;
                for (unsigned i = 0; i < Core::pool_size(s); ++i) {
                    const unsigned v = Core::slot_of(s, i);
                    if (sm.warps_[v].occupied && !warp_of(sm, v).hint_mode &&
                        sm.issue_.blocker(sm, v) != timing::IssueOutcome::raw_long_latency)
                        return;
                }
            }
            auto& st = stats_of(sm, w);
            hw.stall_token = Core::token_of(rec);
            transition(sm, w); // whether or not the warp enters
            if (!hw.stack_copy.take(sm.ctas_[ws.cta_slot].state->warps[ws.warp_in_cta].stack)) {
                ++st.simt_copy_overflows;
                return;
            }
            st.simt_entries_copied += hw.stack_copy.size();
            // The fetch buffer's instructions (the stall point first) go back to the window, in program order.
            for (unsigned k = ws.ib_count; k-- > 0;) {
                const std::uint32_t q = ws.ibuffer[(ws.ib_head + k) % ws.ibuffer.size()];
                WindowEntry e;
                e.record = q;
                e.pc = sm.records_[q].result.pc;
                hw.window.push_front(e);
                if (sm.records_[q].result.warp_finished) {
                    ws.functional_done = false;
                    hw.window_done = true;
                }
            }
            ws.ib_count = 0;
            ws.ib_head = 0;
            ws.fetch_blocked = false; // a control instruction that was in the buffer is no longer fetched
            ws.head_hazard = Core::hazard_unknown;
            hw.hint_mode = true;
            hw.stall_pc = pc;
            hw.stall_record = r;
            hw.next_offset = first;
            hw.last_offset = 0;
            hw.scan_from = 1;
            hw.episode_issued = 0;
            ++hw.episode;
            hw.scalar_renames.clear();
            hw.vector_renames.clear();
            ++st.episodes;
        }
        void maybe_return(Core& sm, unsigned w) {
            typename Core::WarpState& ws = sm.warps_[w];
            auto& hw = warp_of(sm, w);
            auto& st = stats_of(sm, w);
            const bool staged = ws.ib_count > 0;
            if (!stall_waiting(sm, w)) {
                // Sec. 5.3.4 / Fig. 5.3 Exp. 2: the flag cleared; flush the fetch buffer, re-fetch the stall point.
                ++st.returns_on_flag;
                if (staged) {
                    unstage(sm, w);
                    ++st.flushed;
                }
            } else if (staged || (hw.next_offset != 0 && !hw.rcu.full())) {
                return; // the chain goes on
            } else if (hw.next_offset != 0) {
                ++st.rcu_full;
            } else {
                ++st.returns_on_chain_end; // Fig. 5.3 Exp. 1: "HAWS will go back to the original stall point"
            }
            hw.hint_mode = false;
            ws.head_hazard = Core::hazard_unknown;
            transition(sm, w);
            sm.schedulers_[ws.scheduler].end_episode(ws.pool_index, hw);
        }
        // Puts the staged (fetched, not issued) hinted instruction back into the window.
        void unstage(Core& sm, unsigned w) {
            typename Core::WarpState& ws = sm.warps_[w];
            auto& hw = warp_of(sm, w);
            const std::uint32_t r = ws.ibuffer[ws.ib_head];
            typename Core::InFlight& rec = sm.records_[r];
            for (auto& e : hw.window)
                if (e.staged && e.record == r) e.staged = false;
            sm.fetch_.prepare_record(sm, w, rec); // back to its in-order view (sources not renamed)
            ws.ib_count = 0;
            ws.ib_head = 0;
            ws.head_hazard = Core::hazard_unknown;
        }

        // Steps warp w's functional engine one instruction ahead into its window. False when it cannot (barrier, exit,
        // window limit): the functional engine cannot run past a CTA barrier before every warp arrives.
        bool run_ahead(Core& sm, unsigned w) {
            typename Core::WarpState& ws = sm.warps_[w];
            typename Core::CtaSlot& cta = sm.ctas_[ws.cta_slot];
            auto& hw = warp_of(sm, w);
            if (hw.window_done || hw.window.size() >= Scheduler::window_limit) return false;
            if (cta.state->warp_waiting(ws.warp_in_cta) || cta.state->warp_finished(ws.warp_in_cta)) return false;
            const std::uint32_t r = sm.allocate_record();
            typename Core::InFlight& rec = sm.records_[r];
            sm.execution_->step(*cta.state, ws.warp_in_cta, rec.result);
            sm.fetch_.prepare_record(sm, w, rec);
            sm.fetch_.note_async_fetch(sm, w, rec);
            ++ws.in_flight;
            ++stats_of(sm, w).run_ahead_steps;
            // The step may have released a barrier the CTA's other warps wait at functionally (as in-order fetch).
            if (rec.result.barrier_released) sm.touch_cta(cta);
            if (rec.result.warp_finished) hw.window_done = true;
            WindowEntry e;
            e.record = r;
            e.pc = rec.result.pc;
            hw.window.push_back(e);
            return true;
        }

        // Hint-mode fetch: the next chain instruction, and only it (Sec. 5.3.3).
        void fetch_hinted(Core& sm, unsigned w) {
            typename Core::WarpState& ws = sm.warps_[w];
            auto& hw = warp_of(sm, w);
            auto& st = stats_of(sm, w);
            const ir::Pc target = hw.stall_pc + hw.next_offset;
            std::size_t idx = hw.scan_from;
            for (;; ++idx) {
                if (idx == hw.window.size() && !run_ahead(sm, w)) {
                    hw.next_offset = 0;
                    ++st.run_ahead_blocked;
                    return;
                }
                const ir::Pc pc = hw.window[idx].pc;
                if (pc == target) break;
                // The executed path left the chain's range (a skipped branch went elsewhere): the chain ends.
                if (pc <= hw.stall_pc || pc > target) {
                    hw.next_offset = 0;
                    ++st.chain_guard_stops;
                    return;
                }
            }
            WindowEntry& e = hw.window[idx];
            typename Core::InFlight& rec = sm.records_[e.record];
            const auto& h = state_.hints.hint[target];
            const ir::RegId renamed = Scheduler::rename_target(h);
            if (!chain_member_ok(sm, w, idx, rec, renamed)) {
                hw.next_offset = 0;
                ++st.chain_guard_stops;
                return;
            }
            rec.fetch_state.hinted = true;
            rec.fetch_state.offset = hw.next_offset;
            rec.fetch_state.episode = hw.episode;
            rec.fetch_state.renamed_to = renamed;
            for (unsigned j = 0; j < rec.source_count; ++j) rec.sources[j] = lookup(sm, hw, rec.sources[j]);
            e.staged = true;
            ws.ib_head = 0;
            ws.ibuffer[0] = e.record;
            ws.ib_count = 1;
            ws.head_hazard = Core::hazard_unknown;
            hw.scan_from = idx + 1;
            hw.last_offset = hw.next_offset;
            const std::uint16_t next = Scheduler::next_offset(h, target, rec.result.next_pc);
            // Offsets strictly increase along a chain and fit the RCU's 9-bit offset field (Sec. 5.3.3).
            hw.next_offset = next > hw.last_offset && next < Scheduler::window_limit ? next : 0;
        }
        // A chain instruction must not depend on, nor (unless renamed) overwrite what is read or written by, an
        // instruction hint mode skips; and never be a barrier or exit. The hint pass guarantees this; the check keeps a
        // wrong hint from reordering dependent instructions (the chain is cut instead).
        bool chain_member_ok(const Core& sm, unsigned w, std::size_t idx, const typename Core::InFlight& rec,
                             ir::RegId renamed) const {
            const auto& hw = warp_of(sm, w);
            const ir::Instruction& inst = *rec.result.instruction;
            if (inst.op_class == ir::OpClass::barrier || inst.op_class == ir::OpClass::control ||
                inst.op_class == ir::OpClass::system)
                return false;
            if (renamed != ir::no_reg && (inst.num_defs != 1 || renamed < sm.execution_->kernel().registers.size()))
                return false;
            for (std::size_t j = 0; j < idx; ++j) {
                const auto& s = hw.window[j];
                if (s.hint_issued || s.staged) continue;
                const ir::Instruction& o = *sm.records_[s.record].result.instruction;
                for (unsigned d = 0; d < o.num_defs; ++d) {
                    for (unsigned u = 0; u < inst.num_uses; ++u)
                        if (inst.uses[u] == o.defs[d]) return false; // RAW on a skipped instruction
                    if (renamed == ir::no_reg)
                        for (unsigned k = 0; k < inst.num_defs; ++k)
                            if (inst.defs[k] == o.defs[d]) return false; // WAW
                }
                if (renamed == ir::no_reg)
                    for (unsigned u = 0; u < o.num_uses; ++u)
                        for (unsigned k = 0; k < inst.num_defs; ++k)
                            if (inst.defs[k] == o.uses[u]) return false; // WAR
            }
            return true;
        }

        // In-order fetch after hint mode: the window in program order (Fig. 5.8).
        void fetch_window(Core& sm, unsigned w) {
            typename Core::WarpState& ws = sm.warps_[w];
            auto& hw = warp_of(sm, w);
            auto& st = stats_of(sm, w);
            unsigned fetched = 0;
            while (fetched < Core::Frontend::fetch_per_warp && ws.ib_count < Core::Frontend::ibuffer_entries &&
                   !hw.window.empty()) {
                const WindowEntry e = hw.window.front();
                if (e.hint_issued) {
                    // Fig. 5.8: the pc matches the RCU head; results in the original register are skipped, renamed
                    // ones are copied back by an instruction that bypasses execution.
                    const auto* head = hw.rcu.head();
                    if (head == nullptr || head->offset != e.pc - hw.stall_pc)
                        throw gpuarch::Error(
                            "HAWS: in-order fetch met a hint-issued instruction that is not the RCU head "
                            "(internal error)");
                    hw.rcu.pop_head();
                    hw.window.pop_front();
                    if (e.renamed == e.dst) {
                        ++st.skipped;
                        continue;
                    }
                    push_copy(sm, w, e);
                    ++st.copies;
                    ++fetched;
                    continue;
                }
                hw.window.pop_front();
                typename Core::InFlight& rec = sm.records_[e.record];
                ws.push(e.record);
                ++fetched;
                if (rec.result.warp_finished) ws.functional_done = true;
                if (rec.is_control || ws.functional_done) {
                    if (rec.is_control) ws.fetch_blocked = true;
                    break;
                }
            }
            if (hw.window.empty() && hw.window_done) ws.functional_done = true;
        }
        // The register copy `mov dst, renamed` for a renamed hint-mode result (Sec. 5.3.4).
        const ir::Instruction& copy_instruction(Core& sm, ir::RegId dst, ir::RegId renamed) {
            for (const ir::Instruction& c : state_.copies)
                if (c.defs[0] == dst && c.uses[0] == renamed) return c;
            ir::Instruction c;
            c.op = ir::Opcode::mov;
            c.op_class = ir::OpClass::int_alu;
            c.type = sm.execution_->kernel().registers[dst].type;
            c.num_defs = 1;
            c.defs[0] = dst;
            c.num_uses = 1;
            c.uses[0] = renamed;
            return state_.copies.emplace_back(c);
        }
        void push_copy(Core& sm, unsigned w, const WindowEntry& e) {
            typename Core::WarpState& ws = sm.warps_[w];
            const std::uint32_t r = sm.allocate_record();
            typename Core::InFlight& rec = sm.records_[r];
            func::StepResult& res = rec.result;
            res.pc = e.pc;
            res.instruction = &copy_instruction(sm, e.dst, e.renamed);
            res.active = res.executed = e.executed;
            res.is_branch = res.diverged = false;
            res.next_pc = e.pc + 1;
            res.is_memory = res.is_load = res.is_store = res.is_atomic = false;
            res.space = ir::StateSpace::none;
            res.access_bytes = 0;
            res.has_value = false;
            res.value_reg = ir::no_reg;
            res.warp_finished = res.barrier_wait = res.barrier_released = false;
            sm.fetch_.prepare_record(sm, w, rec);
            rec.fetch_state.copy = true;
            ws.push(r);
            ++ws.in_flight;
        }
        // Issue of a register copy: it takes the issue slot and the scoreboard, then goes straight to the register
        // file's write port (Sec. 5.3.4: "it will bypass the execution stage and update the register file").
        void issue_copy(Core& sm, unsigned w) {
            typename Core::WarpState& ws = sm.warps_[w];
            typename Core::InFlight& rec = sm.records_[ws.pop_head()];
            sm.scoreboard_.reserve(w, rec.result.instruction->defs[0], false);
            auto& sched = sm.schedulers_[ws.scheduler];
            sched.record_issue(ws.pool_index, rec.result.pc, sm.now_, HintIssueEvent::Kind::copy);
            sm.writeback_.complete(sm, Core::token_of(rec));
        }
    };
};

} // namespace gpuarch::fetch
