#pragma once
// gpuarch::SM<Frontend, Scheduler, RegisterFile, Exec, L1>: one streaming multiprocessor, cycle by cycle.
//
// Pipeline (timing/interfaces.hpp has the vocabulary). Each cycle runs its stages back to front, so a stage
// sees what the stage after it did in the previous cycle:
//   1. completions: execution units and the L1 hand back finished instructions; results go to the register
//      file's write ports; control instructions resolve (fetch of their warp resumes, barriers arrive).
//   2. register file cycle: bank arbitration; finished writes release the scoreboard.
//   3. dispatch: collectors whose operands are read go to a free execution unit, or to the LSU (L1 slot).
//   4. L1 cycle: the LSU serves accesses, misses go to the interconnect.
//   5. issue: each scheduler picks a ready warp (Scheduler::select); up to dispatch_per_scheduler
//      consecutive independent instructions of it are issued (dual issue on Kepler).
//   6. fetch/decode: per scheduler one warp (round-robin) fetches up to fetch_per_warp instructions into its
//      instruction buffer; they can issue from the next cycle.
// Each stage is a type of its own, with its contract at the top of its header: pipeline::WritebackStage (1, 2),
// DispatchStage (3), IssueStage (5, with the scoreboard of timing/detail/scoreboard.hpp) and FetchStage (6), in
// include/gpuarch/pipeline/. The CTA table there (residency, barriers, warp exits) is shared with
// barrel::BarrelSM. This header holds the state the stages share, composes them and fixes the order above.
//
// Execution-driven: an instruction is executed functionally (func::) when it is fetched, in program order per
// warp, so timing sees real addresses, branch outcomes and values, and functional results never depend on
// timing. Fetch stops after a control instruction (branch, barrier, exit) until it resolves.
//
// Contract: deterministic (no host-time, address or hash-order dependence); zero virtual dispatch: every slot is
// a template argument and `component_types` lists them for the polymorphism check in tests.
#include <algorithm>
#include <array>
#include <concepts>
#include <bit>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <boost/mp11/list.hpp>

#include <gpuarch/core/cycle.hpp>
#include <gpuarch/core/error.hpp>
#include <gpuarch/core/stats.hpp>
#include <gpuarch/fetch/in_order.hpp>
#include <gpuarch/func/kernel_execution.hpp>
#include <gpuarch/ir/def_use.hpp>
#include <gpuarch/ir/op_class.hpp>
#include <gpuarch/mem/access.hpp>
#include <gpuarch/mem/queue.hpp>
#include <gpuarch/pipeline/cta_table.hpp>
#include <gpuarch/pipeline/dispatch_stage.hpp>
#include <gpuarch/pipeline/fetch_stage.hpp>
#include <gpuarch/pipeline/issue_stage.hpp>
#include <gpuarch/pipeline/pool_view.hpp>
#include <gpuarch/pipeline/state.hpp>
#include <gpuarch/pipeline/writeback_stage.hpp>
#include <gpuarch/timing/concepts.hpp>
#include <gpuarch/timing/cta_shape.hpp>
#include <gpuarch/timing/detail/record_pool.hpp>
#include <gpuarch/timing/detail/scoreboard.hpp>
#include <gpuarch/timing/fetch.hpp>
#include <gpuarch/timing/line_stats.hpp>
#include <gpuarch/timing/hooks.hpp>

namespace gpuarch {

namespace detail {
// Warps that fetch per scheduler per cycle: one (round-robin), unless the Frontend says otherwise (the Gong 2020
// Fig. 5.3 toy machine: "Each warp will fetch a new instruction every cycle"). At namespace scope so that the SM's
// static members can use it in their initializers.
template <class Frontend> constexpr unsigned fetch_warps_per_scheduler() {
    if constexpr (requires { Frontend::fetch_warps_per_scheduler; }) return Frontend::fetch_warps_per_scheduler;
    else return 1;
}
// The Frontend's per-opcode timing table (timing/opcode_timing.hpp; GPGPU-Sim-style frontends such as GTX480), or
// null: every op then takes its unit's latency and interval.
// The fetch policy a scheduler names (timing/fetch.hpp), or the in-order fetch.
template <class Scheduler> struct fetch_policy_of { using type = fetch::InOrder; };
template <class Scheduler>
    requires requires { typename Scheduler::fetch_policy; }
struct fetch_policy_of<Scheduler> {
    using type = typename Scheduler::fetch_policy;
};
template <class Frontend> constexpr const timing::OpcodeTimingTable* opcode_timing_of() {
    if constexpr (requires { Frontend::opcode_timing; }) return &Frontend::opcode_timing;
    else return nullptr;
}
} // namespace detail

template <class FrontendT, class SchedulerT, class RegisterFileT, class ExecT, class L1T> class SM {
    static_assert(timing::check_frontend<FrontendT>());
    static_assert(timing::check_scheduler<SchedulerT>());
    static_assert(timing::check_register_file<RegisterFileT>());
    static_assert(timing::check_exec<ExecT>());
    static_assert(timing::check_l1<L1T>());
    static_assert(timing::check_l1_interface<L1T, mem::WarpAccess, mem::MemPacket, mem::Downstream>());
    static_assert(timing::check_fetch_policy<typename detail::fetch_policy_of<SchedulerT>::type>());
    static_assert(!timing::ObservesLocality<SchedulerT> || timing::ReportsLocalityEvents<L1T>,
                  "the Scheduler observes locality events (on_locality_event), so the L1 must report them "
                  "(drain_locality_events, timing/hooks.hpp)");
    static_assert(FrontendT::max_threads <= FrontendT::max_warps * FrontendT::warp_width,
                  "the Frontend's max_threads must fit in max_warps warps of warp_width threads");
    static_assert(FrontendT::ibuffer_entries >= 1 && FrontendT::ibuffer_entries <= 8,
                  "the Frontend's ibuffer_entries must be between 1 and 8");

public:
    using Frontend = FrontendT;
    using Scheduler = SchedulerT;
    using RegisterFile = RegisterFileT;
    using Exec = ExecT;
    using L1 = L1T;
    // Whether the functional engine copies each instruction's result values: only for a register file or an
    // execution model that may read them (timing::IgnoresResultValues).
    static constexpr bool records_result_values =
        !(timing::IgnoresResultValues<RegisterFileT> && timing::IgnoresResultValues<ExecT>);
    // Named by the scheduler (timing/fetch.hpp); fetch::InOrder for every scheduler that names none.
    using FetchPolicy = typename detail::fetch_policy_of<SchedulerT>::type;
    using component_types = boost::mp11::mp_list<Frontend, Scheduler, RegisterFile, Exec, L1>;
    static constexpr unsigned warp_width = Frontend::warp_width;

    // "Kepler/GTO/IdealRF/SimdExec/L1<MSHR<32>>": the variant's label in tables.
    static std::string variant_name() {
        std::string n(Frontend::name);
        for (std::string_view part : {std::string_view(Scheduler::name), std::string_view(RegisterFile::name),
                                      std::string_view(Exec::name), std::string_view(L1::name)})
            (n += '/') += part;
        return n;
    }

    SM(std::uint32_t sm_id, const typename L1::Config& l1_config)
        : id_(sm_id), rf_(timing::RegisterFileConfig{Frontend::max_warps, Frontend::schedulers, warp_width}),
          exec_(timing::ExecConfig{std::span<const timing::UnitSpec>(Frontend::units), Frontend::schedulers,
                                   Frontend::shared_unit_partitioning, warp_width,
                                   detail::opcode_timing_of<Frontend>()}),
          l1_(l1_config, sm_id), warps_(Frontend::max_warps) {
        // Locality events only reach an observing scheduler (cycle_timing's drain): without one, the L1 need not
        // record them.
        if constexpr (!timing::ObservesLocality<Scheduler> && requires(L1 & l) { l.report_locality(false); })
            l1_.report_locality(false);
        for (unsigned s = 0; s < Frontend::schedulers; ++s) {
            const unsigned pool = pool_size(s);
            schedulers_.emplace_back(timing::SchedulerConfig{pool, s});
        }
        // Per-SM state a scheduler family shares across the SM's schedulers (Wang 2016 Sec. 4.4: OAWS keeps its
        // in-flight miss count, OCW counter and classifier once per SM).
        if constexpr (timing::SharesSmState<Scheduler>)
            for (auto& sched : schedulers_) sched.attach(sm_shared_, Frontend::schedulers);
        for (unsigned w = 0; w < Frontend::max_warps; ++w) {
            warps_[w].scheduler = w % Frontend::schedulers;
            warps_[w].pool_index = w / Frontend::schedulers;
        }
        // Here, where SM is complete: the hooks name its private record type.
        static_assert(in_order_fetch || timing::FetchMechanism<FetchMechanism, SM, InFlight>,
                      "the fetch policy's Mechanism<SM> must provide every hook listed in timing/fetch.hpp");
    }

    std::uint32_t id() const { return id_; }
    L1& l1() {
        wake();
        return l1_;
    }
    const L1& l1() const {
        settle_dormant();
        return l1_;
    }
    const RegisterFile& register_file() const {
        settle_dormant();
        return rf_;
    }
    const Exec& exec() const { return exec_; }

    // Binds a kernel launch; called before the first CTA of that launch arrives.
    void bind(func::KernelExecution& execution, const CtaShape& shape) {
        wake();
        execution_ = &execution;
        shape_ = shape;
        const auto& kernel = execution.kernel();
        unsigned extra_registers = 0; // a fetch policy that renames writes registers past the kernel's own
        if constexpr (!in_order_fetch) {
            fetch_mechanism_.bind(*this, kernel);
            extra_registers = fetch_mechanism_.extra_registers();
        }
        is_predicate_.assign(kernel.registers.size() + extra_registers, false);
        for (std::size_t r = 0; r < kernel.registers.size(); ++r)
            is_predicate_[r] = kernel.registers[r].type == ir::ScalarType::pred;
        scoreboard_.assign(Frontend::max_warps, kernel.registers.size() + extra_registers);
        issue_.on_launch();
        fetch_.on_launch(kernel);
        ++state_epoch_;
        touch_all();
        for (auto& sched : schedulers_)
            if constexpr (timing::ObservesKernelLaunch<Scheduler>) sched.on_kernel_launch();
    }
    // Per-line statistics for the bound kernel (timing/line_stats.hpp), after bind: on or off, from zero.
    void start_line_stats(bool on) {
        settle_dormant();
        lines_.start(on, execution_->kernel().code.size());
    }
    const std::vector<timing::LineCounters>& line_stats() {
        settle_dormant();
        issue_.charge_replayed(*this);
        return lines_.lines();
    }
    // The launch's locality hint (Gong 2020 Table 6.1), after bind and before the first CTA; schedulers that
    // group warps by it (sched::LocalityTwoLevel) take it through the optional on_launch_hint hook.
    void set_launch_hint(unsigned hint) {
        wake();
        for (auto& sched : schedulers_)
            if constexpr (timing::TakesLaunchHint<Scheduler>) sched.on_launch_hint(hint);
    }

    // Occupancy (CUDA occupancy rules): threads, warps, CTAs, registers and shared memory per SM.
    bool can_accept_cta() const { return ctas_.can_accept(shape_); }
    // Maximum CTAs of this shape one SM holds at once (0: the CTA does not fit at all).
    static unsigned max_resident_ctas(const CtaShape& s) {
        return timing::detail::Occupancy<Frontend>::max_resident(s);
    }

    // Starts CTA `linear_cta` on this SM. Precondition: can_accept_cta().
    void start_cta(std::uint64_t linear_cta, std::uint64_t launch_age) {
        wake();
        ++state_epoch_;
        const unsigned slot = ctas_.open(*execution_, linear_cta, id_);
        CtaSlot& cta = ctas_[slot];
        unsigned w = 0;
        for (unsigned k = 0; k < cta.live_warps; ++k) {
            // Warps of a CTA go to consecutive free slots, which spreads them over the schedulers' pools
            // (slot mod schedulers), as Gong 2020 Sec. 4.4.1 distributes a block's warps evenly over the pools.
            while (warps_[w].occupied) ++w;
            WarpState& ws = warps_[w];
            ws = WarpState{};
            ws.scheduler = w % Frontend::schedulers;
            ws.pool_index = w / Frontend::schedulers;
            ws.occupied = true;
            if constexpr (max_pool <= 64) occupied_slots_[ws.scheduler] |= std::uint64_t{1} << ws.pool_index;
            ws.cta_slot = slot;
            ws.warp_in_cta = k;
            ws.age = launch_age * 4096 + k;
            scoreboard_.clear(w);
            touch(w);
            cta.warp_slots.push_back(w);
            schedulers_[ws.scheduler].on_warp_start(ws.pool_index);
            // Optional: where the warp sits in the grid (CTA index, warp index in its CTA, warps in the CTA), for
            // schedulers that group warps by it (sched::LocalityTwoLevel, Gong 2020 Sec. 6.3.2).
            if constexpr (timing::ObservesWarpOrigin<Scheduler>)
                schedulers_[ws.scheduler].on_warp_origin(ws.pool_index, cta.state->id, k, cta.live_warps);
            if (cta.state->warp_finished(k)) ws.functional_done = true;
        }
        ctas_.admit(shape_);
        for (unsigned warp_slot : cta.warp_slots) maybe_finish_warp(warp_slot);
    }

    bool idle() const { return ctas_.resident() == 0; }
    unsigned resident_ctas() const { return ctas_.resident(); }
    // CTAs that finished since the last call (the dispatcher refills the SM).
    unsigned take_finished_ctas() { return ctas_.take_finished(); }

    // One core cycle. `down` is this SM's port into the interconnect. Equivalent to cycle_timing then
    // cycle_fetch; a dormant SM only counts the cycle (settle_dormant accounts for it).
    void cycle(core::Cycle now, mem::Downstream& down) {
        if constexpr (sleeps_when_idle) {
            if (dormant_) {
                if (now < wake_at_) { // counted here, accounted in bulk by settle_dormant()
                    ++dormant_owed_;
                    dormant_last_ = now;
                    return;
                }
                wake(); // a completion comes due in this cycle
            }
        }
        cycle_timing(now, down);
        cycle_fetch();
        // Only the callers of wake() end dormancy (start_cta, receive, bind, set_launch_hint, l1()) before wake_at_:
        // a dormant cycle changes no state dormant() or waits_on_l1() reads.
        if constexpr (sleeps_when_idle) {
            dormant_ = dormant();
            wake_at_ = never;
            stalled_on_l1_ = false;
            if constexpr (sleeps_on_stalled_l1)
                if (!dormant_ && waits_on_l1(now)) dormant_ = true;
        }
    }

    // The first cycle in which cycle() would do more than count a dormant cycle: wake_at_ while dormant (never for
    // an SM without work), else 0 (its next cycle runs). Read after cycle() or a wake. A caller may skip cycle() for
    // the cycles before it, if it hands them over with count_slept_cycles before anything else reaches the SM
    // (GPU::launch does, so that a sleeping SM costs it no visit per cycle).
    core::Cycle asleep_until() const {
        if constexpr (sleeps_when_idle) return dormant_ ? wake_at_ : 0;
        else return 0;
    }
    // What `n` calls of cycle() for the consecutive cycles ending at `last`, all before asleep_until(), would have
    // done: count them as dormant (settle_dormant accounts for them).
    void count_slept_cycles(std::uint64_t n, core::Cycle last) {
        if constexpr (sleeps_when_idle) {
            if (!dormant_ || last >= wake_at_)
                throw Error("SM " + std::to_string(id_) + ": cycles handed over as slept past its wake-up (cycle " +
                            std::to_string(last) + ")");
            dormant_owed_ += n;
            dormant_last_ = last;
        } else if (n != 0) {
            throw Error("SM " + std::to_string(id_) + " does not sleep; its cycles cannot be skipped");
        }
    }

    // Dormant: no resident CTA and nothing in flight in any stage; the issue stage about to replay its recorded quiet
    // cycle and the fetch stage about to find no warp (see skips_dormant_cycles), or, for the variants that skip
    // only vacant cycles, no warp at all (see skips_vacant_cycles).
    bool dormant() const {
        if constexpr (skips_dormant_cycles)
            return ctas_.resident() == 0 && !exec_.has_pending() && !rf_.has_pending() && l1_.quiet() &&
                   issue_.replays_next_cycle(*this) && fetch_.finds_no_warp(*this);
        else if constexpr (skips_vacant_cycles) // a warp is occupied only while its CTA is resident
            return ctas_.resident() == 0 && !exec_.has_pending() && !rf_.has_pending() && l1_.quiet();
        else return false;
    }
    // Whether the SM may sleep through the cycles after `now` until a response reaches its L1 (receive) or an exec
    // unit's or an L1 hit's completion comes due (wake_at_, set here): every one of those cycles would change nothing
    // but counters. The issue stage would replay its quiet cycle and the fetch stage find no warp, as in dormant();
    // no register write waits to be drained; and the L1 either
    //  - repeats its stall (L1Unit::repeats_stall), every instruction waiting for dispatch being a memory one, which
    //    the full LSU refuses (an ALU one would dispatch once its unit frees): settle_dormant then counts the L1's
    //    stalled_cycles (stalled_on_l1_). On syrk (GTX480, GTO) most LSU cycles are such a stall: a load whose set
    //    has every way reserved, retried in each cycle until a fill comes back. With MASCAR's re-execution queue the
    //    queue's head waiting for an MSHR repeats too (two thirds of MASCAR's SM-cycles on atax at its paper size).
    //  - or waits for responses with an empty LSU (L1Unit::waits_for_responses), no instruction waiting for its
    //    operands or for dispatch: settle_dormant counts its quiet_cycles, outstanding misses included. Every warp
    //    then waits on a load, a barrier or an exec result: the commonest state of a memory-bound kernel's SM.
    bool waits_on_l1(core::Cycle now) {
        if constexpr (sleeps_on_stalled_l1) {
            if (!issue_.replays_next_cycle(*this) || !fetch_.finds_no_warp(*this) || rf_.writes_pending() ||
                dispatch_.non_memory_waiting() != 0)
                return false;
            bool stalled = false;
            if (l1_.repeats_stall()) {
                if (rf_.has_pending() && !l1_.lsu_full()) return false;
                stalled = true;
            } else if constexpr (requires { l1_.waits_for_responses(); }) {
                if (rf_.has_pending() || !l1_.waits_for_responses()) return false;
            } else {
                return false;
            }
            wake_at_ = std::min({exec_.next_completion(), l1_.next_timed_completion(), issue_.replays_until(*this)});
            stalled_on_l1_ = stalled;
            return wake_at_ > now + 1;
        } else {
            (void)now;
            return false;
        }
    }
    // Accounts the cycles counted while dormant as cycle_timing and cycle_fetch would have, one by one: the register
    // file's and the L1's quiet paths, the issue stage's replay, count_cycle (the fetch stage, finding no warp,
    // changes nothing). Every public member that reads or changes state a dormant cycle changes calls it first.
    // const, as MemorySystem::catch_up: it changes nothing observable, a dormant SM's state being defined as the
    // settled one.
    void settle_dormant() const {
        if constexpr (sleeps_when_idle) {
            if (dormant_owed_ == 0) return;
            SM& self = const_cast<SM&>(*this); // every SM is created non-const; only the owed cycles are settled
            const std::uint64_t owed = std::exchange(self.dormant_owed_, 0);
            self.dormant_total_ += owed;
            // The owed cycles are consecutive and end at dormant_last_: a settle precedes every full cycle.
            self.rf_.quiet_cycle(dormant_last_);
            bool stalled = false;
            if constexpr (sleeps_on_stalled_l1) {
                stalled = stalled_on_l1_;
                if (stalled) {
                    self.l1_.stalled_cycles(owed, dormant_last_);
                    self.stalled_total_ += owed;
                } else if (self.ctas_.resident() != 0) {
                    self.waiting_total_ += owed;
                }
            }
            if (!stalled) self.l1_.quiet_cycles(owed, dormant_last_);
            if constexpr (skips_dormant_cycles) self.issue_.replay_quiet_cycles(self, owed, dormant_last_ + 1 - owed);
            else self.issue_.count_vacant_cycles(self, owed, dormant_last_);
            self.count_cycles(owed);
        }
    }
    // Ends dormancy: a CTA, a response, a new launch, a launch hint or a caller holding the L1 may change what
    // dormant() reads.
    void wake() {
        settle_dormant();
        dormant_ = false;
    }

    // Whether this variant skips the scan of its warp pools in cycles where nothing changed since a cycle without
    // issue and replays that cycle's statistics instead (see quiet_cycle_replay); results are the same either way.
    static constexpr bool replays_quiet_cycles() { return quiet_cycle_replay; }
    // Whether this variant, which does not replay quiet cycles, skips the cycles in which it holds no warp and has
    // nothing in flight (see skips_vacant_cycles).
    static constexpr bool skips_vacant() { return skips_vacant_cycles; }

    // The phases of a cycle, for GPU's parallel tick. cycle_timing (stages 1-5) reads and writes
    // only this SM's own state and its own `down` port, so the SMs of a GPU may run it concurrently on host
    // threads. cycle_fetch (stage 6) steps the functional engine; most steps touch only the stepping CTA
    // (pipeline/private_steps.hpp), the others the shared func::Device. The parallel tick
    // splits it: cycle_fetch_private runs the stage until its next step would touch shared state (on any
    // thread, concurrently with other SMs), and cycle_fetch_finish, called serially in SM index order, folds this
    // SM's instruction counts into the launch and runs the rest of the stage. Each SM takes exactly the steps and
    // fetch decisions of cycle_fetch, in the same order, and the shared steps of all SMs run in SM index order,
    // which is the order of SM-by-SM cycle() because private steps commute with every step of another CTA and
    // no timing phase reads what another SM's fetch writes.
    void cycle_timing(core::Cycle now, mem::Downstream& down) {
        wake(); // the parallel tick runs every SM's full cycle
        now_ = now;
        // 1. completions
        exec_.drain_completed(now, [this](std::uint64_t token) {
            ++state_epoch_;
            writeback_.on_exec_done(*this, token);
        });
        l1_.drain_completed([this, now](const mem::Completion& c) {
            ++state_epoch_;
            if (lines_.on() && c.kind == mem::WarpAccess::load &&
                (c.space == ir::StateSpace::global || c.space == ir::StateSpace::local)) [[unlikely]]
                lines_.load_done(c.pc, c.lines, c.misses, now - c.accepted_at);
            writeback_.notify_memory_feedback(*this, c);
            writeback_.on_memory_done(*this, c.token);
        });
        if constexpr (timing::ReportsMemoryIssue<L1>)
            l1_.drain_issued([this](const mem::Completion& c) { writeback_.notify_memory_issued(*this, c); });
        if constexpr (timing::ReportsLocalityEvents<L1>) {
            l1_.drain_locality_events([this](std::uint32_t warp, const timing::LocalityEvent& event) {
                if (warp >= warps_.size() || !warps_[warp].occupied) return;
                auto& sched = schedulers_[warps_[warp].scheduler];
                if constexpr (timing::ObservesLocality<Scheduler>)
                    sched.on_locality_event(warps_[warp].pool_index, event);
            });
        }
        // 2. register file
        rf_.cycle(now);
        rf_.drain_written([this](std::uint64_t token) {
            ++state_epoch_;
            writeback_.on_written(*this, token);
        });
        // 3. dispatch from operand collectors
        rf_.dispatch_ready([this](std::uint64_t token) {
            const bool dispatched = dispatch_.try_dispatch(*this, token);
            if (dispatched) ++state_epoch_;
            return dispatched;
        });
        // 4. LSU / L1
        l1_.cycle(now, down);
        // 5. issue
        issue_.run(*this, now);
    }
    void cycle_fetch() {
        // 6. fetch
        fetch_.run(*this);
        count_cycle();
    }
    // Steps this cycle's fetch stage may take at most: every scheduler's fetching warps, fetch_per_warp each.
    // The GPU lets SMs step privately only while the launch's instruction count cannot reach its limit within a
    // cycle (private steps check the limit against the count of the previous cycle).
    static constexpr unsigned max_fetch_steps_per_cycle() {
        return Frontend::schedulers * fetch_warps_per_scheduler() * Frontend::fetch_per_warp;
    }
    // The first part of cycle_fetch, after cycle_timing: runs the fetch stage up to its first step that touches
    // state shared with other SMs. Returns true when the stage completed (cycle_fetch_finish then only folds the
    // counts). Variants with a reordering fetch policy leave the whole stage to cycle_fetch_finish: the policy's
    // steps interleave with its own transitions, which this split does not model.
    bool cycle_fetch_private() {
        if constexpr (!in_order_fetch) {
            return false;
        } else {
            if (!fetch_.run_private(*this)) return false;
            count_cycle();
            return true;
        }
    }
    // The rest of cycle_fetch, serially in SM index order: folds the instructions this SM stepped privately into
    // the launch's count, then completes the stage (all of it when cycle_fetch_private did not run this cycle).
    void cycle_fetch_finish() {
        execution_->add_counts(fetch_.private_counts());
        if (fetch_.finish(*this)) count_cycle();
    }

    // A response from the memory system for this SM's L1.
    void receive(const mem::MemPacket& packet, core::Cycle now) {
        wake();
        l1_.receive(packet, now);
    }

    template <class V> void visit_stats(V& v) const {
        settle_dormant();
        v.counter("cycles", stats_.cycles, "core cycles simulated");
        v.counter("active_cycles", stats_.active_cycles, "cycles with at least one resident CTA");
        v.counter("resident_warp_cycles", stats_.resident_warp_cycles,
                  "sum over cycles of the warps of resident CTAs (achieved occupancy = this / active_cycles / "
                  "warps per SM)");
        v.counter("ready_warp_cycles", stats_.ready_warp_cycles,
                  "sum over scheduler-cycles of the warps whose next instruction could issue (the timeline's ready "
                  "warps)");
        v.counter("warp_instructions", stats_.warp_instructions, "warp instructions issued");
        v.counter("thread_instructions", stats_.thread_instructions, "thread instructions (active lanes) issued");
        v.counter("dual_issues", stats_.dual_issues, "cycles a scheduler issued a second instruction of its warp");
        v.counter("issue_slots", stats_.issue_slots, "scheduler-cycles x dispatch width");
        for (std::size_t k = 0; k < timing::issue_outcome_count; ++k)
            v.counter(std::string("stall.") + std::string(timing::name(static_cast<timing::IssueOutcome>(k))),
                      stats_.outcomes[k], "scheduler-cycles with this issue outcome");
        // The SM-wide cycle classes of Gong 2020 Fig. 1.2.
        v.counter("cycles_with_issue", stats_.cycle_class[0],
                  "cycles in which some scheduler issued (Gong 2020 Fig. 1.2)");
        v.counter("cycles_all_warps_on_memory", stats_.cycle_class[1],
                  "cycles without issue, every warp waiting on a long-latency memory operation");
        v.counter("cycles_stalled_otherwise", stats_.cycle_class[2],
                  "cycles without issue, some warp waiting on something other than a long-latency memory operation");
        v.counter("lsu.stalled_coalesce", stats_.lsu[1], "cycles the LSU served one of several accesses (LDST_COAL)");
        v.counter("lsu.stalled_mshr", stats_.lsu[2], "cycles the LSU replayed for lack of an MSHR (LDST_MSHR)");
        v.counter("lsu.stalled_icnt", stats_.lsu[3], "cycles the LSU waited on the miss queue (LDST_ICNT)");
        v.counter("ctas", stats_.ctas, "CTAs completed");
        v.counter("device_mallocs", stats_.device_mallocs, "device-side malloc calls issued (threads)");
        v.counter("device_frees", stats_.device_frees, "device-side free calls issued (threads)");
        v.counter("async_copies", stats_.async_copies, "cp.async warp instructions issued");
        v.nested("rf", rf_);
        v.nested("exec", exec_);
        v.nested("l1", l1_);
        for (unsigned s = 0; s < Frontend::schedulers; ++s)
            if constexpr (requires(V & vv) { schedulers_[s].visit_stats(vv); }) v.nested("sched", schedulers_[s]);
    }

    // A human-readable snapshot of every resident warp (for deadlock reports).
    // Where the lowest occupied, unfinished warp slot stands (CTA, thread, PC, PTX line), for a report that stops
    // a running launch; nullopt when no warp is running.
    std::optional<func::FaultSite> running_site() const {
        for (unsigned w = 0; w < warps_.size(); ++w) {
            const WarpState& ws = warps_[w];
            if (!ws.occupied || !ctas_[ws.cta_slot].active) continue;
            const func::CtaState& cta = *ctas_[ws.cta_slot].state;
            if (cta.warp_finished(ws.warp_in_cta)) continue;
            return execution_->warp_site(cta, ws.warp_in_cta);
        }
        return std::nullopt;
    }

    std::string describe_state() const {
        settle_dormant();
        std::string out = "SM " + std::to_string(id_) + ": " + std::to_string(ctas_.resident()) + " CTAs, LSU " +
                          std::string(mem::to_string(l1_.lsu_state())) + (l1_.can_accept() ? "" : " (full)") + "\n";
        for (unsigned w = 0; w < warps_.size(); ++w) {
            const WarpState& ws = warps_[w];
            if (!ws.occupied) continue;
            out += "  warp " + std::to_string(w) + " (CTA slot " + std::to_string(ws.cta_slot) + " warp " +
                   std::to_string(ws.warp_in_cta) + "): " + std::string(timing::name(issue_.blocker(*this, w))) +
                   ", in flight " + std::to_string(ws.in_flight) + ", ibuffer " + std::to_string(ws.ib_count) +
                   (ws.fetch_blocked ? ", fetch blocked" : "") + (ws.at_barrier ? ", at barrier" : "") +
                   (ws.functional_done ? ", done fetching" : "");
            if (ws.ib_count > 0) {
                const auto& rec = records_[ws.ibuffer[ws.ib_head]];
                out += ", head pc " + std::to_string(rec.result.pc) + " (PTX line " +
                       std::to_string(rec.result.instruction->line) + ")";
            }
            out += "\n";
        }
        for (std::size_t k = 0; k < timing::unit_kind_count; ++k)
            for (unsigned s = 0; s < Frontend::schedulers; ++s)
                if (dispatch_.pending(k, s) > 0)
                    out += "  scheduler " + std::to_string(s) + ": " + std::to_string(dispatch_.pending(k, s)) + " " +
                           std::string(timing::name(static_cast<timing::UnitKind>(k))) + " op(s) awaiting dispatch\n";
        return out;
    }

    // Scheduler s of this SM (its statistics, and any per-warp state it keeps for its fetch policy).
    const Scheduler& scheduler(unsigned s) const {
        settle_dormant();
        return schedulers_[s];
    }
    std::uint64_t cycles() const {
        settle_dormant();
        return stats_.cycles;
    }
    // Of cycles(), those the SM spent dormant (skips_dormant_cycles) or vacant (skips_vacant_cycles): a speed
    // figure, not a statistic, because the same run on a variant without the skip has the same statistics.
    std::uint64_t dormant_cycles() const {
        settle_dormant();
        return dormant_total_;
    }
    // Of dormant_cycles(), those the SM slept while its L1 repeated a stall (waits_on_l1), CTAs resident.
    std::uint64_t stalled_cycles_slept() const {
        settle_dormant();
        return stalled_total_;
    }
    // Of dormant_cycles(), those the SM slept with CTAs resident while its L1 waited for responses with an empty LSU
    // (waits_on_l1).
    std::uint64_t waiting_cycles_slept() const {
        settle_dormant();
        return waiting_total_;
    }
    // Cycles the issue stage replayed (slept ones included) in which a scheduler had withheld its ready warps
    // (timing::WithheldCycleHook): a speed figure, as dormant_cycles().
    std::uint64_t withheld_cycles_replayed() const {
        settle_dormant();
        return issue_.withheld_cycles_replayed();
    }
    std::uint64_t warp_instructions() const { return stats_.warp_instructions; }
    std::uint64_t thread_instructions() const { return stats_.thread_instructions; }

private:
    // ---------------------------------------------------------------------------------------------------
    // The parts. Each stage is a type of its own (include/gpuarch/pipeline/, contract at the top of each header)
    // that works on this SM's shared state below; the SM composes them and fixes the cycle order.
    template <class> friend class pipeline::FetchStage;
    template <class> friend class pipeline::IssueStage;
    template <class> friend class pipeline::DispatchStage;
    template <class> friend class pipeline::WritebackStage;
    template <class> friend struct pipeline::PoolView;

    // The fetch slot (timing/fetch.hpp). With fetch::InOrder none of the mechanism's hooks is compiled: every call
    // sits behind `if constexpr (!in_order_fetch)`, and the in-order code is what it is without a fetch slot.
    static constexpr bool in_order_fetch = FetchPolicy::in_order;
    // Whether the fetch slot changes warp state only through events that advance state_epoch_: in-order fetch, or
    // a fetch policy that states the quiet-cycle contract with this scheduler (timing::FollowsStateEpoch).
    static constexpr bool fetch_follows_epoch = in_order_fetch || timing::FollowsStateEpoch<FetchPolicy, SchedulerT>;
    struct NoFetchState {};
    template <class F> static auto fetch_record_type() {
        if constexpr (F::in_order) return std::type_identity<NoFetchState>{};
        else return std::type_identity<typename F::RecordState>{};
    }
    using FetchRecordState = typename decltype(fetch_record_type<FetchPolicy>())::type;
    using InFlight = pipeline::InFlight<FetchRecordState>;
    using WarpState = pipeline::WarpState;
    using CtaTable = pipeline::CtaTable<Frontend>;
    using CtaSlot = typename CtaTable::Slot;
    using RecordPool = timing::detail::RecordPool<InFlight>;
    using Hazard = timing::detail::Scoreboard::Hazard;
    static constexpr std::uint8_t hazard_unknown = pipeline::hazard_unknown;

    static constexpr unsigned pool_size(unsigned scheduler) {
        return (Frontend::max_warps - scheduler + Frontend::schedulers - 1) / Frontend::schedulers;
    }
    static constexpr unsigned slot_of(unsigned scheduler, unsigned pool_index) {
        return pool_index * Frontend::schedulers + scheduler;
    }
    // Pool slots of the largest pool (pool 0).
    static constexpr unsigned max_pool = (Frontend::max_warps + Frontend::schedulers - 1) / Frontend::schedulers;
    static constexpr unsigned fetch_warps_per_scheduler() { return detail::fetch_warps_per_scheduler<Frontend>(); }
    static std::size_t kind_index(timing::UnitKind k) { return static_cast<std::size_t>(k); }

    // A Scheduler that declares `scan_every_cycle` keeps the full per-cycle scans of the issue and fetch stages and no
    // quiet-cycle replay (the reference the fast paths are tested against, tests/pinned/quiet_cycles.cpp).
    static constexpr bool scans_every_cycle = timing::ScansEveryCycle<SchedulerT>;
    // Whether every warp's stall reason changes only through events that advance state_epoch_: a fetch slot that
    // follows the epoch (fetch_follows_epoch: a fetch policy changes warp state in its own transitions), no per-cycle
    // SIMD turn (Southern Islands), a register file that accepts every read (IdealRF: no per-cycle port state). Both
    // issue-stage shortcuts below rest on it.
    static constexpr bool stall_reasons_change_only_by_events =
        fetch_follows_epoch && Frontend::issue_rule != timing::IssueRule::one_per_type_round_robin &&
        timing::AcceptsEveryRead<RegisterFile> && !scans_every_cycle;
    // Quiet cycles. A cycle in which no scheduler issued leaves every warp's blocker() and every scheduler's outcome
    // unchanged until some event touches the SM's state: a completion, a write-back, a dispatch, an issue, a fetch, a
    // CTA start or a launch (each advances state_epoch_). Until then the ready warps stay the same (none, after a
    // const select, which picks a ready warp whenever there is one), and the cycle's statistics equal the last
    // cycle's: they are replayed without scanning the pools (IssueStage::replay_quiet_cycle). Only where that
    // argument holds: the stall reasons change only by events, and the scheduler's select is const or it declares one
    // of the contracts of timing/hooks.hpp (QuietWhenNothingReady, QuietCycleHook: its hook runs in each replayed
    // cycle); for those, only cycles in which no warp was ready are replayed. Pinned cycle counts and statistics
    // (tests/pinned) are unchanged.
    static constexpr bool quiet_cycle_replay =
        stall_reasons_change_only_by_events && timing::ReplaysQuietCycles<Scheduler, pipeline::PoolView<SM>>;
    // The register file's, the L1's and the exec unit's quiet-cycle contracts, which both skips below rest on.
    static constexpr bool stages_report_quiet = requires(RegisterFile & rf, const RegisterFile& crf, L1& l1,
                                                         const L1& cl1, const Exec& e, core::Cycle c, std::uint64_t n) {
        rf.quiet_cycle(c);
        { crf.has_pending() } -> std::convertible_to<bool>;
        { cl1.quiet() } -> std::convertible_to<bool>;
        l1.quiet_cycles(n, c);
        { e.has_pending() } -> std::convertible_to<bool>;
    };
    // Dormant cycles (dormant(), settle_dormant()): such a cycle changes only counters, those of the register
    // file's and the L1's quiet paths (their quiet-cycle contracts: IdealRF::quiet_cycle, L1Unit::quiet and
    // quiet_cycles), the issue stage's replay and count_cycle. The SMs a grid's tail leaves without work are dormant
    // in every cycle until the launch ends (atax on the GTX480: 12 of 15 SMs for most of the run), so they only count
    // those cycles and account for them in bulk when something reads or wakes them. For the variants whose every
    // stage states that contract: quiet-cycle replay, in-order fetch, and a register file, L1 and exec unit that
    // report pending work. Checked against the full scans, which never replay and so never skip, by
    // tests/timing/dormant_sms_test.cpp, tests/timing/quiet_replay_stateful_test.cpp, tests/pinned/quiet_cycles.cpp
    // and, for HAWS's fetch policy, tests/timing/quiet_replay_haws_test.cpp.
    static constexpr bool skips_dormant_cycles = quiet_cycle_replay && stages_report_quiet;
    // Vacant cycles: the variants without quiet-cycle replay whose register file, L1 and exec unit state the quiet
    // contracts (a reordering fetch policy without the quiet-cycle contract, with the ideal register file; a register
    // file with port limits states none) still skip the cycles of an SM that holds no warp and has nothing in
    // flight. Such a cycle changes only counters: each scheduler's select sees an empty pool (a const select, so it
    // changes nothing; the scheduler's outcome is idle, no warp ready), the fetch stage and a fetch policy's
    // transitions find no warp, and the register file and the L1 take their quiet paths.
    // IssueStage::count_vacant_cycles counts them. Not for the full scans (scan_every_cycle: the reference never
    // skips), nor for a SIMD turn (Southern Islands). Checked against the full scans by
    // tests/timing/vacant_sms_test.cpp.
    static constexpr bool skips_vacant_cycles = !skips_dormant_cycles && stages_report_quiet && !scans_every_cycle &&
                                                Frontend::issue_rule != timing::IssueRule::one_per_type_round_robin &&
                                                timing::ConstSelect<SchedulerT, pipeline::PoolView<SM>>;
    static constexpr bool sleeps_when_idle = skips_dormant_cycles || skips_vacant_cycles;
    // Stalled sleep (waits_on_l1): for the variants that skip dormant cycles and whose L1, exec unit and register file
    // say when their next cycle repeats a stall and when their next completion comes.
    static constexpr bool stages_report_stalls =
        requires(L1 & l1, const L1& cl1, const Exec& e, const RegisterFile& rf, std::uint64_t n, core::Cycle c) {
        { cl1.repeats_stall() } -> std::convertible_to<bool>;
        { cl1.lsu_full() } -> std::convertible_to<bool>;
        { cl1.next_timed_completion() } -> std::convertible_to<core::Cycle>;
        l1.stalled_cycles(n, c);
        { e.next_completion() } -> std::convertible_to<core::Cycle>;
        { rf.writes_pending() } -> std::convertible_to<bool>;
    };
    static constexpr bool sleeps_on_stalled_l1 = skips_dormant_cycles && stages_report_stalls;
    // Event-driven issue (IssueStage's IssueMasks): per scheduler, per warp slot. It does not need the scheduler's
    // cooperation (select is still asked every cycle), so it serves schedulers with state too. A fetch policy that
    // follows the epoch also touch()es every warp whose eligibility its transitions and fetches change
    // (timing::FollowsStateEpoch).
    static constexpr bool event_driven_issue = stall_reasons_change_only_by_events && max_pool <= 64;
    // Whether pool slot i of scheduler s holds a warp (WarpState::occupied). The full scans ask it of every slot in
    // every cycle: a bit of occupied_slots_ costs no visit to the warp's state (pools of at most 64 slots).
    bool slot_occupied(unsigned s, unsigned i) const {
        if constexpr (max_pool <= 64) return (occupied_slots_[s] >> i) & 1U;
        else return warps_[slot_of(s, i)].occupied;
    }
    // Calls f(w) for every occupied warp slot w in ascending order: what a loop over warps_ that skips the empty
    // slots visits, without visiting them (by occupied_slots_, pools of at most 64 slots). f must not change which
    // slots are occupied.
    template <class F> void for_each_occupied_warp(F&& f) const {
        if constexpr (max_pool <= 64) {
            std::uint64_t any_scheduler = 0;
            for (const std::uint64_t m : occupied_slots_) any_scheduler |= m;
            for (; any_scheduler != 0; any_scheduler &= any_scheduler - 1) {
                const auto i = static_cast<unsigned>(std::countr_zero(any_scheduler));
                for (unsigned s = 0; s < Frontend::schedulers; ++s)
                    if ((occupied_slots_[s] >> i) & 1U) f(slot_of(s, i));
            }
        } else {
            for (unsigned w = 0; w < warps_.size(); ++w)
                if (warps_[w].occupied) f(w);
        }
    }
    // Event-driven fetch (FetchStage's masks).
    static constexpr bool event_driven_fetch = fetch_follows_epoch && max_pool <= 64 && !scans_every_cycle &&
                                               detail::fetch_warps_per_scheduler<Frontend>() == 1;

    // ---------------------------------------------------------------------------------------------------
    // Shared bookkeeping, used by every stage.
    std::uint32_t allocate_record() {
        const std::uint32_t r = records_.allocate(warp_width);
        records_[r].async_counted = false;
        records_[r].result.record_values = records_result_values;
        return r;
    }
    void release_record(std::uint32_t r) { records_.release(r); }
    static std::uint64_t token_of(const InFlight& rec) { return RecordPool::token_of(rec); }
    // The live record a token names, or nullptr when that instruction already retired.
    InFlight* record(std::uint64_t token) { return records_.find(token); }
    // The record of an instruction that slot `slot` (its policy: Policy) reports on by token. The SM hands each
    // token to the register file and the L1 while the instruction is in flight, and they report it until it
    // retires, so a token that names no live record is the policy's bug: the SM stops with the policy's name
    // instead of reading a record that another instruction may now use. One compare per report, in every build
    // type. (Exec completions are not checked: a memory instruction's unit may finish after the L1 retired it.)
    template <class Policy>
    InFlight& reported_record(std::uint64_t token, std::string_view slot, std::string_view event) {
        InFlight* rec = records_.find(token);
        if (rec == nullptr) [[unlikely]]
            throw_stale_token(token, slot, Policy::name, event);
        return *rec;
    }
    [[noreturn]] void throw_stale_token(std::uint64_t token, std::string_view slot, std::string_view policy,
                                        std::string_view event) const {
        throw Error(std::string(slot) + " policy '" + std::string(policy) + "' of SM " + std::to_string(id_) + " " +
                    std::string(event) + " token " + std::to_string(token) + " at cycle " + std::to_string(now_) +
                    ", which names no instruction in flight; a slot reports only the tokens of instructions it holds");
    }

    Hazard hazard(unsigned w, const ir::Instruction& inst) const { return scoreboard_.hazard(w, inst); }
    // Warp w's head instruction's hazard, cached in its WarpState until the head or the scoreboard changes.
    Hazard head_hazard(unsigned w) const {
        const WarpState& ws = warps_[w];
        if (ws.head_hazard == hazard_unknown) {
            if constexpr (!in_order_fetch)
                if (const InFlight& head = records_[ws.ibuffer[ws.ib_head]]; fetch_mechanism_.overrides_hazard(head)) {
                    ws.head_hazard = static_cast<std::uint8_t>(fetch_mechanism_.head_hazard(*this, w, head));
                    return static_cast<Hazard>(ws.head_hazard);
                }
            ws.head_hazard = static_cast<std::uint8_t>(hazard(w, *records_[ws.ibuffer[ws.ib_head]].result.instruction));
        }
        return static_cast<Hazard>(ws.head_hazard);
    }
    bool head_blocked_by_long(unsigned w) const { return head_hazard(w) == Hazard::raw_long; }

    // Every event that can change warp w's issue or fetch eligibility calls this (event-driven issue and fetch).
    void touch(unsigned w) {
        if constexpr (event_driven_issue) issue_.mark_dirty(w);
        if constexpr (event_driven_fetch) fetch_.mark_dirty(w);
        if constexpr (requires { fetch_mechanism_.touched(w); }) fetch_mechanism_.touched(w);
    }
    void touch_cta(const CtaSlot& cta) {
        if constexpr (event_driven_issue || event_driven_fetch)
            for (unsigned w : cta.warp_slots) touch(w);
    }
    void touch_all() {
        if constexpr (event_driven_issue) issue_.mark_all_dirty();
        if constexpr (event_driven_fetch) fetch_.mark_all_dirty();
        if constexpr (requires { fetch_mechanism_.touched_all(); }) fetch_mechanism_.touched_all();
    }

    // The register an instruction's k-th destination is written to: its own, or where the fetch policy renamed it.
    static ir::RegId def_register(const InFlight& rec, unsigned k) {
        if constexpr (!in_order_fetch) return FetchMechanism::def_register(rec, k);
        else return rec.result.instruction->defs[k];
    }
    // A completing control instruction unblocks in-order fetch, unless the fetch policy says in-order fetch never
    // waited for it (an instruction the policy issued out of order, on its own copy of the SIMT stack).
    static bool fetch_resolves_control(const InFlight& rec) {
        if constexpr (!in_order_fetch) return FetchMechanism::resolves_control(rec);
        else return true;
    }

    // A warp of a CTA arrived at a CTA-wide barrier (WritebackStage::resolve_control).
    void arrive_at_barrier(unsigned w) {
        warps_[w].at_barrier = true;
        ctas_.arrive(warps_[w].cta_slot, [this](unsigned released) { release_from_barrier(released); });
    }
    void release_from_barrier(unsigned w) {
        if (warps_[w].occupied) warps_[w].at_barrier = false;
        touch(w);
    }
    // Warp w leaves once it has fetched its last instruction and nothing of it is in flight.
    void maybe_finish_warp(unsigned w) {
        WarpState& ws = warps_[w];
        if (!ws.occupied || !ws.functional_done || ws.in_flight > 0) return;
        ws.occupied = false;
        if constexpr (max_pool <= 64) occupied_slots_[ws.scheduler] &= ~(std::uint64_t{1} << ws.pool_index);
        touch(w);
        schedulers_[ws.scheduler].on_warp_exit(ws.pool_index);
        if (ctas_.warp_exited(ws.cta_slot, shape_, [this](unsigned released) { release_from_barrier(released); }))
            ++stats_.ctas;
    }
    // The end of every cycle's fetch stage (cycle_fetch and the parallel tick's two parts).
    void count_cycle() { count_cycles(1); }
    void count_cycles(std::uint64_t n) {
        stats_.cycles += n;
        if (ctas_.resident() > 0) stats_.active_cycles += n;
        stats_.resident_warp_cycles += n * ctas_.used_warps();
    }

    // ---------------------------------------------------------------------------------------------------
    std::uint32_t id_;
    RegisterFile rf_;
    Exec exec_;
    L1 l1_;
    struct NoSharedState {};
    template <class S> static auto shared_state_type() {
        if constexpr (requires { typename S::SmShared; }) return std::type_identity<typename S::SmShared>{};
        else return std::type_identity<NoSharedState>{};
    }
    using SmShared = typename decltype(shared_state_type<Scheduler>())::type;
    SmShared sm_shared_{};
    struct NoFetchMechanism {};
    template <class F> static auto fetch_mechanism_type() {
        if constexpr (F::in_order) return std::type_identity<NoFetchMechanism>{};
        else return std::type_identity<typename F::template Mechanism<SM>>{};
    }
    using FetchMechanism = typename decltype(fetch_mechanism_type<FetchPolicy>())::type;
    friend FetchMechanism; // it runs the fetch stage on this SM's warp, record and scoreboard state
    [[no_unique_address]] FetchMechanism fetch_mechanism_{};
    std::vector<Scheduler> schedulers_;
    std::vector<WarpState> warps_;
    std::array<std::uint64_t, Frontend::schedulers> occupied_slots_{}; // per scheduler: bit i, slot_occupied(s, i)
    CtaTable ctas_;
    RecordPool records_;
    timing::detail::Scoreboard scoreboard_;
    std::vector<bool> is_predicate_; // per register of the bound kernel (predicates live outside the banks)
    // Counts events that change warp state (see quiet_cycle_replay); the fetch and issue stages skip work while it
    // stands still.
    std::uint64_t state_epoch_ = 1;
    bool dormant_ = false; // dormant() held at the end of the last full cycle(), and nothing has woken the SM since
    std::uint64_t dormant_owed_ = 0; // dormant cycles not yet settled (settle_dormant)
    std::uint64_t dormant_total_ = 0; // dormant cycles settled, over the SM's life (dormant_cycles)
    core::Cycle dormant_last_ = 0; // the last of them
    static constexpr core::Cycle never = std::numeric_limits<core::Cycle>::max();
    core::Cycle wake_at_ = never; // a dormant SM runs its full cycle again from this cycle on (waits_on_l1)
    bool stalled_on_l1_ = false; // dormant by waits_on_l1: its L1 repeats a stall rather than idling
    std::uint64_t stalled_total_ = 0; // of dormant_total_, the cycles slept by waits_on_l1 (stalled_cycles_slept)
    std::uint64_t waiting_total_ = 0; // of dormant_total_, those slept waiting for responses (waiting_cycles_slept)
    pipeline::FetchStage<SM> fetch_;
    pipeline::IssueStage<SM> issue_;
    pipeline::DispatchStage<SM> dispatch_;
    [[no_unique_address]] pipeline::WritebackStage<SM> writeback_;
    func::KernelExecution* execution_ = nullptr;
    CtaShape shape_{};
    core::Cycle now_ = 0;
    pipeline::SmStats stats_;
    timing::LineStats lines_;
};

} // namespace gpuarch
