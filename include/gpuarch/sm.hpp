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
//
// Execution-driven: an instruction is executed functionally (func::) when it is fetched, in program order per
// warp, so timing sees real addresses, branch outcomes and values, and functional results never depend on
// timing. Fetch stops after a control instruction (branch, barrier, exit) until it resolves.
//
// Contract: deterministic (no host-time, address or hash-order dependence); zero virtual dispatch: every slot is
// a template argument and `component_types` lists them for the polymorphism check in tests.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
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
#include <gpuarch/timing/concepts.hpp>
#include <gpuarch/timing/cta_shape.hpp>
#include <gpuarch/timing/detail/occupancy.hpp>
#include <gpuarch/timing/detail/record_pool.hpp>
#include <gpuarch/timing/detail/scoreboard.hpp>
#include <gpuarch/timing/fetch.hpp>
#include <gpuarch/timing/hooks.hpp>

namespace gpuarch {

namespace detail {
// Warps that fetch per scheduler per cycle: one (round-robin), unless the Frontend says otherwise (the Gong 2020
// Fig. 5.3 toy machine: "Each warp will fetch a new instruction every cycle"). At namespace scope so that the SM's
// static members can use it in their initializers.
template <class Frontend>
constexpr unsigned fetch_warps_per_scheduler() {
    if constexpr (requires { Frontend::fetch_warps_per_scheduler; }) return Frontend::fetch_warps_per_scheduler;
    else return 1;
}
// The Frontend's per-opcode timing table (timing/opcode_timing.hpp; GPGPU-Sim-style frontends such as GTX480), or
// null: every op then takes its unit's latency and interval.
// The fetch policy a scheduler names (timing/fetch.hpp), or the in-order fetch.
template <class Scheduler>
struct fetch_policy_of {
    using type = fetch::InOrder;
};
template <class Scheduler>
    requires requires { typename Scheduler::fetch_policy; }
struct fetch_policy_of<Scheduler> {
    using type = typename Scheduler::fetch_policy;
};
template <class Frontend>
constexpr const timing::OpcodeTimingTable* opcode_timing_of() {
    if constexpr (requires { Frontend::opcode_timing; }) return &Frontend::opcode_timing;
    else return nullptr;
}
} // namespace detail


template <class FrontendT, class SchedulerT, class RegisterFileT, class ExecT, class L1T>
class SM {
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
                                   Frontend::shared_unit_partitioning, warp_width, detail::opcode_timing_of<Frontend>()}),
          l1_(l1_config, sm_id), warps_(Frontend::max_warps), ctas_(Frontend::max_ctas) {
        for (unsigned s = 0; s < Frontend::schedulers; ++s) {
            const unsigned pool = pool_size(s);
            schedulers_.emplace_back(timing::SchedulerConfig{pool, s});
            fetch_next_.push_back(0);
        }
        // Per-SM state a scheduler family shares across the SM's schedulers (Wang 2016 Sec. 4.4: OAWS keeps its
        // in-flight miss count, OCW counter and classifier once per SM).
        if constexpr (timing::SharesSmState<Scheduler>)
            for (auto& sched : schedulers_) sched.attach(sm_shared_, Frontend::schedulers);
        for (unsigned w = 0; w < Frontend::max_warps; ++w) {
            warps_[w].scheduler = w % Frontend::schedulers;
            warps_[w].pool_index = w / Frontend::schedulers;
        }
        for (std::size_t k = 0; k < timing::unit_kind_count; ++k)
            for (unsigned s = 0; s < Frontend::schedulers; ++s) unit_capacity_[k][s] = count_units(k);
        // Here, where SM is complete: the hooks name its private record type.
        static_assert(in_order_fetch || timing::FetchMechanism<FetchMechanism, SM, InFlight>,
                      "the fetch policy's Mechanism<SM> must provide every hook listed in timing/fetch.hpp");
    }

    std::uint32_t id() const { return id_; }
    L1& l1() { return l1_; }
    const L1& l1() const { return l1_; }
    const RegisterFile& register_file() const { return rf_; }
    const Exec& exec() const { return exec_; }

    // Binds a kernel launch; called before the first CTA of that launch arrives.
    void bind(func::KernelExecution& execution, const CtaShape& shape) {
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
        quiet_.valid = false;
        ++state_epoch_;
        touch_all();
        fetch_cursor_ = FetchCursor{}; // a launch that stopped on an error may have left a stage half done
        private_counts_ = func::StepCounts{};
        for (auto& sched : schedulers_)
            if constexpr (timing::ObservesKernelLaunch<Scheduler>) sched.on_kernel_launch();
    }
    // The launch's locality hint (Gong 2020 Table 6.1), after bind and before the first CTA; schedulers that
    // group warps by it (sched::LocalityTwoLevel) take it through the optional on_launch_hint hook.
    void set_launch_hint(unsigned hint) {
        for (auto& sched : schedulers_)
            if constexpr (timing::TakesLaunchHint<Scheduler>) sched.on_launch_hint(hint);
    }

    // Occupancy (CUDA occupancy rules): threads, warps, CTAs, registers and shared memory per SM.
    bool can_accept_cta() const {
        return occupancy_.can_accept(shape_);
    }
    // Maximum CTAs of this shape one SM holds at once (0: the CTA does not fit at all).
    static unsigned max_resident_ctas(const CtaShape& s) { return timing::detail::Occupancy<Frontend>::max_resident(s); }

    // Starts CTA `linear_cta` on this SM. Precondition: can_accept_cta().
    void start_cta(std::uint64_t linear_cta, std::uint64_t launch_age) {
        ++state_epoch_;
        unsigned slot = 0;
        while (ctas_[slot].active) ++slot;
        CtaSlot& cta = ctas_[slot];
        cta.active = true;
        // A slot keeps its CtaState between CTAs so the next one reuses its buffers (no allocation per CTA).
        if (!cta.state) cta.state = std::make_unique<func::CtaState>();
        execution_->start_cta(*cta.state, linear_cta, id_);
        cta.live_warps = static_cast<unsigned>(cta.state->warp_count());
        cta.arrived = 0;
        cta.warp_slots.clear();
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
        occupancy_.add(shape_);
        for (unsigned k = 0; k < cta.live_warps; ++k) maybe_finish_warp(cta.warp_slots[k]);
    }

    bool idle() const { return occupancy_.resident_ctas() == 0; }
    unsigned resident_ctas() const { return occupancy_.resident_ctas(); }
    // CTAs that finished since the last call (the dispatcher refills the SM).
    unsigned take_finished_ctas() {
        const unsigned n = finished_ctas_;
        finished_ctas_ = 0;
        return n;
    }

    // One core cycle. `down` is this SM's port into the interconnect. Equivalent to cycle_timing then
    // cycle_fetch.
    void cycle(core::Cycle now, mem::Downstream& down) {
        cycle_timing(now, down);
        cycle_fetch();
    }

    // Whether this variant skips the scan of its warp pools in cycles where nothing changed since a cycle without
    // issue and replays that cycle's statistics instead (see quiet_cycle_replay); results are the same either way.
    static constexpr bool replays_quiet_cycles() { return quiet_cycle_replay; }

    // The phases of a cycle, for GPU's parallel tick. cycle_timing (stages 1-5) reads and writes
    // only this SM's own state and its own `down` port, so the SMs of a GPU may run it concurrently on host
    // threads. cycle_fetch (stage 6) steps the functional engine; most steps touch only the stepping CTA
    // (func::KernelExecution::next_step_is_private), the others the shared func::Device. The parallel tick
    // splits it: cycle_fetch_private runs the stage until its next step would touch shared state (on any
    // thread, concurrently with other SMs), and cycle_fetch_finish, called serially in SM index order, folds this
    // SM's instruction counts into the launch and runs the rest of the stage. Each SM takes exactly the steps and
    // fetch decisions of cycle_fetch, in the same order, and the shared steps of all SMs run in SM index order,
    // which is the order of SM-by-SM cycle() because private steps commute with every step of another CTA and
    // no timing phase reads what another SM's fetch writes.
    void cycle_timing(core::Cycle now, mem::Downstream& down) {
        now_ = now;
        // 1. completions
        exec_.drain_completed(now, [this](std::uint64_t token) {
            ++state_epoch_;
            on_exec_done(token);
        });
        l1_.drain_completed([this](const mem::Completion& c) {
            ++state_epoch_;
            notify_memory_feedback(c);
            on_memory_done(c.token);
        });
        if constexpr (timing::ReportsMemoryIssue<L1>)
            l1_.drain_issued([this](const mem::Completion& c) { notify_memory_issued(c); });
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
            on_written(token);
        });
        // 3. dispatch from operand collectors
        rf_.dispatch_ready([this](std::uint64_t token) {
            const bool dispatched = try_dispatch(token);
            if (dispatched) ++state_epoch_;
            return dispatched;
        });
        // 4. LSU / L1
        l1_.cycle(now, down);
        // 5. issue
        issue(now);
    }
    void cycle_fetch() {
        // 6. fetch
        fetch();
        ++stats_.cycles;
        if (occupancy_.resident_ctas() > 0) ++stats_.active_cycles;
        stats_.resident_warp_cycles += occupancy_.used_warps();
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
            fetch_begin();
            if (!fetch_run<true>()) return false;
            cycle_fetch_end();
            fetch_cursor_.state = FetchCursor::State::done;
            return true;
        }
    }
    // The rest of cycle_fetch, serially in SM index order: folds the instructions this SM stepped privately into
    // the launch's count, then completes the stage (all of it when cycle_fetch_private did not run this cycle).
    void cycle_fetch_finish() {
        execution_->add_counts(private_counts_);
        if (fetch_cursor_.state == FetchCursor::State::done) {
            fetch_cursor_.state = FetchCursor::State::closed;
            return;
        }
        if (fetch_cursor_.state == FetchCursor::State::closed) fetch_begin();
        fetch_run<false>();
        cycle_fetch_end();
    }

    // A response from the memory system for this SM's L1.
    void receive(const mem::MemPacket& packet, core::Cycle now) { l1_.receive(packet, now); }

    template <class V>
    void visit_stats(V& v) const {
        v.counter("cycles", stats_.cycles, "core cycles simulated");
        v.counter("active_cycles", stats_.active_cycles, "cycles with at least one resident CTA");
        v.counter("resident_warp_cycles", stats_.resident_warp_cycles,
                  "sum over cycles of the warps of resident CTAs (achieved occupancy = this / active_cycles / "
                  "warps per SM)");
        v.counter("warp_instructions", stats_.warp_instructions, "warp instructions issued");
        v.counter("thread_instructions", stats_.thread_instructions, "thread instructions (active lanes) issued");
        v.counter("dual_issues", stats_.dual_issues, "cycles a scheduler issued a second instruction of its warp");
        v.counter("issue_slots", stats_.issue_slots, "scheduler-cycles x dispatch width");
        for (std::size_t k = 0; k < timing::issue_outcome_count; ++k)
            v.counter(std::string("stall.") + std::string(timing::name(static_cast<timing::IssueOutcome>(k))),
                      stats_.outcomes[k], "scheduler-cycles with this issue outcome");
        // The SM-wide cycle classes of Gong 2020 Fig. 1.2.
        v.counter("cycles_with_issue", stats_.cycle_class[0], "cycles in which some scheduler issued (Gong 2020 Fig. 1.2)");
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
            if constexpr (requires(V& vv) { schedulers_[s].visit_stats(vv); }) v.nested("sched", schedulers_[s]);
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
        std::string out = "SM " + std::to_string(id_) + ": " + std::to_string(occupancy_.resident_ctas()) + " CTAs, LSU " +
                          std::string(mem::to_string(l1_.lsu_state())) + (l1_.can_accept() ? "" : " (full)") + "\n";
        for (unsigned w = 0; w < warps_.size(); ++w) {
            const WarpState& ws = warps_[w];
            if (!ws.occupied) continue;
            out += "  warp " + std::to_string(w) + " (CTA slot " + std::to_string(ws.cta_slot) + " warp " +
                   std::to_string(ws.warp_in_cta) + "): " + std::string(timing::name(blocker(w))) +
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
                if (pending_dispatch_[k][s] > 0)
                    out += "  scheduler " + std::to_string(s) + ": " + std::to_string(pending_dispatch_[k][s]) + " " +
                           std::string(timing::name(static_cast<timing::UnitKind>(k))) + " op(s) awaiting dispatch\n";
        return out;
    }

    // Scheduler s of this SM (its statistics, and any per-warp state it keeps for its fetch policy).
    const Scheduler& scheduler(unsigned s) const { return schedulers_[s]; }
    std::uint64_t cycles() const { return stats_.cycles; }
    std::uint64_t warp_instructions() const { return stats_.warp_instructions; }
    std::uint64_t thread_instructions() const { return stats_.thread_instructions; }

private:
    // ---------------------------------------------------------------------------------------------------
    // The fetch slot (timing/fetch.hpp). With fetch::InOrder none of the mechanism's hooks is compiled: every call
    // sits behind `if constexpr (!in_order_fetch)`, and the in-order code is what it is without a fetch slot.
    static constexpr bool in_order_fetch = FetchPolicy::in_order;
    struct NoFetchState {};
    template <class F>
    static auto fetch_record_type() {
        if constexpr (F::in_order) return std::type_identity<NoFetchState>{};
        else return std::type_identity<typename F::RecordState>{};
    }
    using FetchRecordState = typename decltype(fetch_record_type<FetchPolicy>())::type;

    struct InFlight {
        explicit InFlight(unsigned width) : result(width) {}
        func::StepResult result;
        std::uint32_t index = 0;      // position in records_
        std::uint32_t generation = 0; // bumped on every reuse: the token is (generation << 32) | index, so a late
                                      // notification for a retired instruction (an execution-unit completion of a
                                      // load the L1 already finished) can never touch the record's next user
        std::uint32_t warp = 0;
        timing::UnitKind unit = timing::UnitKind::sp;
        // The state space the L1 times a memory instruction in: its own, or for a generic access the space every
        // executed lane's address fell in (StepResult::lane_spaces).
        ir::StateSpace space = ir::StateSpace::none;
        bool is_memory = false, is_control = false, long_latency = false, alive = false;
        unsigned active_lanes = 0;
        std::uint8_t source_count = 0;         // distinct non-predicate source registers, found once at fetch
        std::array<ir::RegId, 12> sources{};
        [[no_unique_address]] FetchRecordState fetch_state{}; // the fetch policy's marks (none for in-order fetch)
        // cp.async: a cp.async's group, or a wait's threshold (every group below it must be complete);
        // async_counted while the record still has to be accounted for at completion (note_async_fetch).
        std::uint32_t async_group = 0;
        bool async_counted = false;
    };

    struct WarpState {
        bool occupied = false;
        bool functional_done = false; // the warp's last instruction has been fetched
        bool fetch_blocked = false;   // a control instruction is in flight
        bool at_barrier = false;
        unsigned scheduler = 0, pool_index = 0, cta_slot = 0, warp_in_cta = 0;
        std::uint64_t age = 0;
        unsigned in_flight = 0;       // fetched or issued, not yet retired
        std::array<std::uint32_t, 8> ibuffer{};
        unsigned ib_head = 0, ib_count = 0;
        unsigned long_pending = 0;    // destination registers of pending long-latency loads
        // The head instruction's scoreboard hazard, valid until the head or this warp's scoreboard changes
        // (both change only through this warp's own fetch, issue and write-back, which reset it).
        mutable std::uint8_t head_hazard = hazard_unknown;
        // cp.async groups (PTX ISA 9.0, Sec. 9.7.9.25.3): async_open_group counts the commits fetched so
        // far, so it names the group the next cp.async joins; async_pending holds (group, copies in flight) for
        // every group with copies in flight, oldest first. A wait that completes before its groups do is parked
        // in async_waiting_token until they have (async_copy_done).
        std::uint32_t async_open_group = 0;
        std::vector<std::pair<std::uint32_t, std::uint32_t>> async_pending;
        bool async_waiting = false;
        std::uint64_t async_waiting_token = 0;

        // Appends record r to the instruction buffer; a first entry becomes the head, whose hazard is not known yet.
        void push(std::uint32_t r) {
            ibuffer[(ib_head + ib_count) % ibuffer.size()] = r;
            if (ib_count == 0) head_hazard = hazard_unknown;
            ++ib_count;
        }
        // Removes and returns the head record; the next entry, if any, becomes the head.
        std::uint32_t pop_head() {
            const std::uint32_t r = ibuffer[ib_head];
            ib_head = (ib_head + 1) % ibuffer.size();
            --ib_count;
            head_hazard = hazard_unknown;
            return r;
        }
    };
    static constexpr std::uint8_t hazard_unknown = 0xff;

    struct CtaSlot {
        bool active = false;
        std::unique_ptr<func::CtaState> state;
        std::vector<unsigned> warp_slots;
        unsigned live_warps = 0, arrived = 0;
    };

    struct Stats {
        std::uint64_t cycles = 0, active_cycles = 0, warp_instructions = 0, thread_instructions = 0;
        std::uint64_t dual_issues = 0, issue_slots = 0, ctas = 0, resident_warp_cycles = 0;
        std::array<std::uint64_t, timing::issue_outcome_count> outcomes{};
        std::array<std::uint64_t, 3> cycle_class{}; // Gong 2020 Fig. 1.2: issued, all on memory, otherwise
        std::array<std::uint64_t, 4> lsu{};
        // device-side malloc/free calls (threads) and cp.async warp instructions issued
        std::uint64_t device_mallocs = 0, device_frees = 0, async_copies = 0;
    };

    // What the scheduler sees: readiness precomputed for this cycle.
    struct PoolView {
        const SM* sm;
        unsigned scheduler;
        std::uint8_t* ready_flags; // per pool slot: 0 not yet known, 1 ready, 2 not ready
        unsigned pool;
        std::uint64_t ready_bits = 0; // event_driven_issue: bit i set when slot i is ready (computed before select)
        unsigned pool_size() const { return pool; }
        bool occupied(unsigned i) const { return sm->warps_[sm->slot_of(scheduler, i)].occupied; }
        // Computed on first use in a cycle: a greedy scheduler that finds its warp ready looks at no other.
        bool ready(unsigned i) const {
            if constexpr (event_driven_issue) return (ready_bits >> i) & 1U;
            std::uint8_t& flag = ready_flags[i];
            if (flag == 0) {
                const unsigned w = sm->slot_of(scheduler, i);
                flag = sm->warps_[w].occupied && sm->pool_outcome(scheduler, i) == timing::IssueOutcome::issued ? 1 : 2;
            }
            return flag == 1;
        }
        // Every ready slot at once, bit i for slot i (pools of at most 64 slots): schedulers that scan for a ready
        // warp may iterate these bits instead of asking ready() of every slot.
        std::uint64_t ready_mask() const {
            if constexpr (event_driven_issue) return ready_bits;
            std::uint64_t bits = 0;
            for (unsigned i = 0; i < pool && i < 64; ++i)
                if (ready(i)) bits |= std::uint64_t{1} << i;
            return bits;
        }
        std::uint64_t age(unsigned i) const { return sm->warps_[sm->slot_of(scheduler, i)].age; }
        bool long_latency_pending(unsigned i) const {
            const auto& w = sm->warps_[sm->slot_of(scheduler, i)];
            return w.occupied && w.long_pending > 0 && w.ib_count > 0 && sm->head_blocked_by_long(sm->slot_of(scheduler, i));
        }
        // The decoded instruction a warp would issue next (nullptr when its instruction buffer is empty), and how
        // many lanes execute it; OAWS predicts a load's misses from these (Wang 2016 Sec. 4.1).
        const ir::Instruction* next_instruction(unsigned i) const {
            const auto& w = sm->warps_[sm->slot_of(scheduler, i)];
            return w.occupied && w.ib_count > 0 ? sm->records_[w.ibuffer[w.ib_head]].result.instruction : nullptr;
        }
        unsigned next_active_lanes(unsigned i) const {
            const auto& w = sm->warps_[sm->slot_of(scheduler, i)];
            return w.occupied && w.ib_count > 0 ? sm->records_[w.ibuffer[w.ib_head]].active_lanes : 0;
        }
        ir::Pc next_pc(unsigned i) const {
            const auto& w = sm->warps_[sm->slot_of(scheduler, i)];
            return w.occupied && w.ib_count > 0 ? sm->records_[w.ibuffer[w.ib_head]].result.pc : ir::no_pc;
        }
        // The warp's next instruction is blocked only by a structural limit of the LSU (it would issue if the
        // memory pipeline had room).
        bool blocked_by_memory_pipeline(unsigned i) const {
            return sm->warps_[sm->slot_of(scheduler, i)].occupied &&
                   sm->pool_outcome(scheduler, i) == timing::IssueOutcome::memory_pipeline;
        }
        unsigned warp_width() const { return SM::warp_width; }
        // The warp waits at a CTA barrier (a warp limiter must not count it, or the CTA deadlocks).
        bool waiting_at_barrier(unsigned i) const {
            const unsigned w = sm->slot_of(scheduler, i);
            return sm->warps_[w].occupied && sm->pool_outcome(scheduler, i) == timing::IssueOutcome::barrier;
        }
        timing::L1View l1() const { return sm->l1_.view(); }
        core::Cycle now() const { return sm->now_; }
    };

    // ---------------------------------------------------------------------------------------------------
    static constexpr unsigned pool_size(unsigned scheduler) {
        return (Frontend::max_warps - scheduler + Frontend::schedulers - 1) / Frontend::schedulers;
    }
    static constexpr unsigned slot_of(unsigned scheduler, unsigned pool_index) {
        return pool_index * Frontend::schedulers + scheduler;
    }
    // Pool slots of the largest pool (pool 0).
    static constexpr unsigned max_pool = (Frontend::max_warps + Frontend::schedulers - 1) / Frontend::schedulers;
    // Units of `kind` a scheduler may dispatch to: its private ones plus every shared one (under even
    // partitioning, its slice of each).
    static constexpr unsigned count_units(std::size_t kind) {
        unsigned n = 0;
        for (const auto& u : Frontend::units)
            if (static_cast<std::size_t>(u.kind) == kind) n += u.count;
        return n;
    }


    std::uint32_t allocate_record() {
        const std::uint32_t r = records_.allocate(warp_width);
        records_[r].async_counted = false;
        return r;
    }
    void release_record(std::uint32_t r) { records_.release(r); }

    using Hazard = timing::detail::Scoreboard::Hazard;
    Hazard hazard(unsigned w, const ir::Instruction& inst) const { return scoreboard_.hazard(w, inst); }
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

    // ---------------------------------------------------------------------------------------------------
    void fetch() {
        fetch_begin();
        fetch_run<false>();
        fetch_end();
    }
    // Where a fetch stage stands, so that it can stop before a shared step and resume there (the parallel tick):
    // the scheduler whose pool it scans, that scan's first pool slot (fetch_next_ when the scan began), the scan
    // position, the warps of that scheduler that fetched, and, when stopped inside a warp's fetch, its steps so far.
    struct FetchCursor {
        enum class State : std::uint8_t { closed, open, done }; // closed: not begun this cycle
        State state = State::closed;
        bool any_fetched = false;
        bool in_warp = false;
        unsigned scheduler = 0, start = 0, k = 0, fetched = 0, step = 0;
    };
    void fetch_begin() {
        if constexpr (!in_order_fetch) fetch_mechanism_.begin_stage(*this);
        FetchCursor& f = fetch_cursor_;
        f = FetchCursor{};
        f.state = FetchCursor::State::open;
        f.start = fetch_next_[0];
        // A fetch stage that found no warp to fetch finds none again until an event changes warp state (the
        // state_epoch_ argument of quiet_cycle_replay); a fetch policy has its own transitions and always scans.
        if constexpr (in_order_fetch)
            if (fetch_idle_epoch_ == state_epoch_) f.scheduler = Frontend::schedulers;
    }
    // Per scheduler, round-robin from fetch_next_, the first fetch_warps_per_scheduler() warps that can fetch
    // fetch up to fetch_per_warp instructions each. StopAtShared: returns false, the cursor at the step, before a
    // step that touches state shared with other SMs; true once the scan is complete.
    template <bool StopAtShared>
    bool fetch_run() {
        FetchCursor& f = fetch_cursor_;
        while (f.scheduler < Frontend::schedulers) {
            const unsigned s = f.scheduler;
            const unsigned pool = pool_size(s);
            if constexpr (event_driven_fetch) {
                // The scan's answer from the mask of warps can_fetch() accepts (kept up to date by touch(), as for
                // event-driven issue): the first fetchable slot at or after the scan's start, wrapping. A fetch
                // touches every warp whose eligibility it changes before the next scheduler's turn.
                if (!f.in_warp && f.fetched == 0) {
                    const int pick = first_fetchable(s, f.start);
                    f.k = pick < 0 ? pool : (static_cast<unsigned>(pick) + pool - f.start) % pool;
                }
            }
            while (f.k < pool && f.fetched < fetch_warps_per_scheduler()) {
                const unsigned pi = (f.start + f.k) % pool;
                const unsigned w = slot_of(s, pi);
                if (!f.in_warp) {
                    if (!can_fetch(w)) {
                        ++f.k;
                        continue;
                    }
                    f.any_fetched = true;
                    f.in_warp = true;
                    f.step = 0;
                }
                if (!fetch_warp<StopAtShared>(w, f.step)) return false;
                f.in_warp = false;
                fetch_next_[s] = (pi + 1) % pool;
                ++f.fetched;
                ++f.k;
            }
            ++f.scheduler;
            f.k = 0;
            f.fetched = 0;
            if (f.scheduler < Frontend::schedulers) f.start = fetch_next_[f.scheduler];
        }
        return true;
    }
    void fetch_end() {
        if (fetch_cursor_.any_fetched) ++state_epoch_;
        else fetch_idle_epoch_ = state_epoch_;
        fetch_cursor_.state = FetchCursor::State::closed;
    }
    // cycle_fetch's bookkeeping after a stage that ran in parts.
    void cycle_fetch_end() {
        fetch_end();
        ++stats_.cycles;
        if (occupancy_.resident_ctas() > 0) ++stats_.active_cycles;
        stats_.resident_warp_cycles += occupancy_.used_warps();
    }
    static constexpr unsigned fetch_warps_per_scheduler() { return detail::fetch_warps_per_scheduler<Frontend>(); }
    bool can_fetch(unsigned w) const {
        const WarpState& ws = warps_[w];
        if constexpr (!in_order_fetch)
            if (ws.occupied && fetch_mechanism_.owns_fetch(*this, w)) return fetch_mechanism_.can_fetch(*this, w);
        if (!ws.occupied || ws.functional_done || ws.fetch_blocked || ws.at_barrier) return false;
        if (ws.ib_count >= Frontend::ibuffer_entries) return false;
        const CtaSlot& cta = ctas_[ws.cta_slot];
        return !cta.state->warp_waiting(ws.warp_in_cta);
    }
    // event_driven_fetch: brings scheduler s's fetchable mask up to date and returns its first fetchable slot at or
    // after `start`, wrapping round (-1 when none).
    int first_fetchable(unsigned s, unsigned start) {
        FetchMask& m = fetch_masks_[s];
        for (std::uint64_t d = m.dirty & low_bits(pool_size(s)); d != 0; d &= d - 1) {
            const unsigned i = static_cast<unsigned>(std::countr_zero(d));
            const std::uint64_t bit = std::uint64_t{1} << i;
            m.fetchable = can_fetch(slot_of(s, i)) ? m.fetchable | bit : m.fetchable & ~bit;
        }
        m.dirty = 0;
        if (m.fetchable == 0) return -1;
        const std::uint64_t from_start = m.fetchable & ~low_bits(start);
        return std::countr_zero(from_start != 0 ? from_start : m.fetchable);
    }
    // Warp w's fetch from its n-th instruction of this cycle on. StopAtShared: returns false, `n` at the step,
    // before a step that is not private to its CTA; such a stop happens only before a step, so resuming with the
    // same `n` continues exactly where the uninterrupted loop would be.
    template <bool StopAtShared>
    bool fetch_warp(unsigned w, unsigned& n) {
        if constexpr (!in_order_fetch) {
            static_assert(!StopAtShared, "a reordering fetch policy fetches only in the serial part (cycle_fetch_private)");
            if (fetch_mechanism_.owns_fetch(*this, w)) {
                fetch_mechanism_.fetch(*this, w);
                return true;
            }
        }
        touch(w);
        WarpState& ws = warps_[w];
        CtaSlot& cta = ctas_[ws.cta_slot];
        for (; n < Frontend::fetch_per_warp && ws.ib_count < Frontend::ibuffer_entries; ++n) {
            if (cta.state->warp_waiting(ws.warp_in_cta) || cta.state->warp_finished(ws.warp_in_cta)) break;
            if constexpr (StopAtShared)
                if (!execution_->next_step_is_private(*cta.state, ws.warp_in_cta)) return false;
            const std::uint32_t r = allocate_record();
            InFlight& rec = records_[r];
            if constexpr (StopAtShared) execution_->step(*cta.state, ws.warp_in_cta, rec.result, private_counts_);
            else execution_->step(*cta.state, ws.warp_in_cta, rec.result);
            prepare_record(w, rec);
            note_async_fetch(w, rec);
            ws.push(r);
            ++ws.in_flight;
            // The step may have released a barrier the CTA's other warps wait at functionally (can_fetch, blocker).
            if (rec.result.barrier_released) touch_cta(cta);
            if (rec.result.warp_finished) ws.functional_done = true;
            if (rec.is_control || ws.functional_done) {
                if (rec.is_control) ws.fetch_blocked = true;
                break;
            }
        }
        return true;
    }
    // Fills a record's timing view of the instruction the functional engine just executed into it.
    void prepare_record(unsigned w, InFlight& rec) const {
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
        rec.active_lanes = static_cast<unsigned>(rec.result.executed.popcount());
        // A memory instruction whose guard is false on every lane accesses nothing: it passes through its
        // unit without visiting the L1.
        if (rec.active_lanes == 0) rec.is_memory = false;
        rec.space = rec.is_memory ? timed_space(rec.result) : rec.result.space;
        rec.long_latency = rec.is_memory && is_long_latency(inst, rec.space);
        rec.source_count = 0;
        for (unsigned k = 0; k < inst.num_uses && rec.source_count < rec.sources.size(); ++k) {
            const ir::RegId reg = inst.uses[k];
            if (is_predicate_[reg]) continue;
            bool seen = false;
            for (unsigned j = 0; j < rec.source_count; ++j) seen = seen || rec.sources[j] == reg;
            if (!seen) rec.sources[rec.source_count++] = reg;
        }
        rec.fetch_state = FetchRecordState{};
    }
    // cp.async groups, kept in program order as the functional engine steps the warp: a cp.async joins
    // the open group, commit_group closes it, and wait_all closes it and waits for every group; a wait records
    // the oldest group that may stay pending (wait_group N: the newest N committed groups).
    void note_async_fetch(unsigned w, InFlight& rec) {
        WarpState& ws = warps_[w];
        switch (rec.result.instruction->op) {
        case ir::Opcode::cp_async:
            rec.async_group = ws.async_open_group;
            rec.async_counted = true;
            if (!ws.async_pending.empty() && ws.async_pending.back().first == ws.async_open_group)
                ++ws.async_pending.back().second;
            else
                ws.async_pending.emplace_back(ws.async_open_group, 1U);
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
    // Every group older than `threshold` has completed.
    bool async_groups_done(unsigned w, std::uint32_t threshold) const {
        const WarpState& ws = warps_[w];
        return ws.async_pending.empty() || ws.async_pending.front().first >= threshold;
    }
    // A cp.async of `group` completed: a parked wait whose groups are now complete completes too.
    void async_copy_done(unsigned w, std::uint32_t group) {
        WarpState& ws = warps_[w];
        for (auto it = ws.async_pending.begin(); it != ws.async_pending.end(); ++it) {
            if (it->first != group) continue;
            if (--it->second == 0) ws.async_pending.erase(it);
            break;
        }
        if (!ws.async_waiting) return;
        const InFlight* wait = record(ws.async_waiting_token);
        if (wait != nullptr && !async_groups_done(w, wait->async_group)) return;
        ws.async_waiting = false;
        if (wait != nullptr) complete(ws.async_waiting_token);
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
                            std::to_string(result.instruction->line) + ") reaches several state spaces within one "
                            "warp; the SM times one space per warp access");
        }
        return space;
    }

    // ---------------------------------------------------------------------------------------------------
    // Why warp w cannot issue its head instruction now (IssueOutcome::issued when it can).
    timing::IssueOutcome blocker(unsigned w) const {
        const timing::IssueOutcome local = warp_blocker(w);
        if (local != timing::IssueOutcome::issued) return local;
        const WarpState& ws = warps_[w];
        return resources_block(ws.scheduler, records_[ws.ibuffer[ws.ib_head]]);
    }
    // The part of blocker() that depends only on warp w's own state (barrier, instruction buffer, scoreboard,
    // its CTA's functional barrier): `issued` when only the structural limits of resources_block() remain.
    // It changes only through events that touch(w) (see event_driven_issue).
    timing::IssueOutcome warp_blocker(unsigned w) const {
        const WarpState& ws = warps_[w];
        if (ws.at_barrier) return timing::IssueOutcome::barrier;
        if (ws.ib_count == 0) {
            if constexpr (!in_order_fetch)
                if (ws.occupied && fetch_mechanism_.owns_fetch(*this, w)) return fetch_mechanism_.empty_blocker(*this, w);
            if (ws.occupied && (ws.functional_done || ws.fetch_blocked)) return timing::IssueOutcome::raw_other;
            if (ws.occupied && ctas_[ws.cta_slot].state->warp_waiting(ws.warp_in_cta))
                return timing::IssueOutcome::barrier;
            return timing::IssueOutcome::ibuffer_empty;
        }
        switch (head_hazard(w)) { // cached per warp: most stalled warps stop here without touching their record
        case Hazard::raw_long: return timing::IssueOutcome::raw_long_latency;
        case Hazard::raw_other: return timing::IssueOutcome::raw_other;
        case Hazard::none: break;
        }
        return timing::IssueOutcome::issued;
    }
    // blocker() of pool slot i of the scheduler now issuing, computed once between two issues: the stall
    // classification and the scheduler's readiness queries share it. issue_scheduler() clears it on entry and
    // after every issue, the only state changes inside a scheduler's issue step.
    timing::IssueOutcome pool_outcome(unsigned scheduler, unsigned i) const {
        if constexpr (event_driven_issue) {
            // Kept up to date by refresh_issue_masks() and the candidates' resource check of this issue step.
            const auto local = static_cast<timing::IssueOutcome>(warp_code_[slot_of(scheduler, i)]);
            if (local != timing::IssueOutcome::issued) return local;
            if ((ready_now_ >> i) & 1U) return local;
            // Not ready: the pipeline register in front of its head instruction's unit is full.
            return warp_unit_key_[slot_of(scheduler, i)] % 2 == 1 ? timing::IssueOutcome::memory_pipeline
                                                                   : timing::IssueOutcome::structural;
        }
        std::uint8_t& code = outcome_cache_[i];
        if (code == 0) code = static_cast<std::uint8_t>(blocker(slot_of(scheduler, i))) + 1;
        return static_cast<timing::IssueOutcome>(code - 1);
    }
    // Structural limits at issue: one instruction waiting for dispatch per unit the scheduler may use (the
    // pipeline register in front of each unit), and a free operand collector.
    timing::IssueOutcome resources_block(unsigned scheduler, const InFlight& rec) const {
        if (pending_dispatch_[kind_index(rec.unit)][scheduler] >= unit_capacity_[kind_index(rec.unit)][scheduler])
            return rec.is_memory ? timing::IssueOutcome::memory_pipeline : timing::IssueOutcome::structural;
        timing::OperandRead read = operand_read(rec);
        if (!rf_.can_accept(read)) {
            if constexpr (timing::ReportsBankConflictsPerScheduler<RegisterFile>) {
                if (rf_.conflicted_last_cycle(scheduler)) return timing::IssueOutcome::bank_conflict;
            } else if constexpr (timing::ReportsBankConflicts<RegisterFile>) {
                if (rf_.conflicted_last_cycle()) return timing::IssueOutcome::bank_conflict;
            }
            return timing::IssueOutcome::structural;
        }
        return timing::IssueOutcome::issued;
    }
    static std::size_t kind_index(timing::UnitKind k) { return static_cast<std::size_t>(k); }

    timing::OperandRead operand_read(const InFlight& rec) const {
        timing::OperandRead read;
        read.token = token_of(rec);
        read.warp = rec.warp;
        read.scheduler = warps_[rec.warp].scheduler;
        read.instruction = rec.result.instruction;
        read.active = rec.result.executed;
        read.source_count = rec.source_count;
        read.sources = rec.sources;
        return read;
    }
    static std::uint64_t token_of(const InFlight& rec) { return RecordPool::token_of(rec); }
    // The live record a token names, or nullptr when that instruction already retired.
    InFlight* record(std::uint64_t token) { return records_.find(token); }

    void issue(core::Cycle now) {
        if constexpr (quiet_cycle_replay) {
            if (quiet_.valid && quiet_.epoch == state_epoch_) {
                replay_quiet_cycle();
                return;
            }
        }
        bool any_issued = false;
        bool all_long = true; // every occupied warp of the SM waits on a long-latency load
        bool any_warp = false;
        for (unsigned s = 0; s < Frontend::schedulers; ++s) {
            if constexpr (Frontend::issue_rule == timing::IssueRule::one_per_type_round_robin)
                if (now % Frontend::schedulers != s) continue; // not this SIMD's turn
            const unsigned issued = issue_scheduler(s, now, all_long, any_warp);
            any_issued = any_issued || issued > 0;
        }
        if (any_issued) ++state_epoch_; // an issue changes warp state (the fetch stage's skip reads this too)
        if constexpr (quiet_cycle_replay) {
            quiet_.valid = !any_issued;
            quiet_.cycle_class = any_issued ? 0 : any_warp && all_long ? 1 : any_warp ? 2 : 3;
            quiet_.epoch = state_epoch_;
        }
        if constexpr (Frontend::issue_rule == timing::IssueRule::one_per_type_round_robin) {
            // The SIMDs whose turn it was not still count for the Gong classification of a cycle without issue.
            for (unsigned s = 0; s < Frontend::schedulers && !any_issued; ++s) {
                if (now % Frontend::schedulers == s) continue;
                for (unsigned i = 0; i < pool_size(s); ++i) {
                    const unsigned w = slot_of(s, i);
                    if (!warps_[w].occupied) continue;
                    any_warp = true;
                    if (blocker(w) != timing::IssueOutcome::raw_long_latency) all_long = false;
                }
            }
        }
        if (any_issued) ++stats_.cycle_class[0];
        else if (any_warp && all_long) ++stats_.cycle_class[1];
        else if (any_warp) ++stats_.cycle_class[2];
        count_lsu_state();
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

    unsigned issue_scheduler(unsigned s, core::Cycle now, bool& all_long, bool& any_warp) {
        if constexpr (event_driven_issue) return issue_scheduler_from_masks(s, now, all_long, any_warp);
        const unsigned pool = pool_size(s);
        std::fill_n(ready_flags_.begin(), pool, std::uint8_t{0});
        std::fill_n(outcome_cache_.begin(), pool, std::uint8_t{0});
        timing::IssueOutcome best = timing::IssueOutcome::idle;
        auto rank = [](timing::IssueOutcome o) { return stall_rank(o); };
        // The outcome of a scheduler that issues nothing: the reason of its warp closest to issuing. Also feeds
        // the SM-wide Gong classification.
        auto classify = [&] {
            for (unsigned i = 0; i < pool; ++i) {
                const unsigned w = slot_of(s, i);
                if (!warps_[w].occupied) continue;
                any_warp = true;
                const timing::IssueOutcome o = pool_outcome(s, i);
                if (o != timing::IssueOutcome::raw_long_latency) all_long = false;
                if (rank(o) > rank(best)) best = o;
            }
        };
        if constexpr (Frontend::issue_rule == timing::IssueRule::one_per_type_round_robin) {
            classify();
            for (unsigned i = 0; i < pool; ++i) {
                const unsigned w = slot_of(s, i);
                ready_flags_[i] = warps_[w].occupied && pool_outcome(s, i) == timing::IssueOutcome::issued ? 1 : 2;
            }
        }
        stats_.issue_slots += Frontend::dispatch_per_scheduler;
        unsigned issued = 0;
        PoolView view{this, s, ready_flags_.data(), pool};
        if constexpr (Frontend::issue_rule == timing::IssueRule::one_per_type_round_robin) {
            // Up to one instruction per type, each from a different wavefront.
            std::array<bool, 5> type_used{};
            for (unsigned n = 0; n < Frontend::dispatch_per_scheduler; ++n) {
                for (unsigned i = 0; i < pool; ++i) {
                    if (ready_flags_[i] != 1) continue;
                    const WarpState& ws = warps_[slot_of(s, i)];
                    if (type_used[si_type(records_[ws.ibuffer[ws.ib_head]].unit)]) ready_flags_[i] = 2;
                }
                const unsigned pick = schedulers_[s].select(view);
                if (pick == timing::no_warp) break;
                if (pick >= pool || ready_flags_[pick] != 1) [[unlikely]]
                    throw_bad_pick(s, pick);
                const unsigned w = slot_of(s, pick);
                type_used[si_type(records_[warps_[w].ibuffer[warps_[w].ib_head]].unit)] = true;
                issue_head(w, s, now);
                schedulers_[s].on_issue(pick, now);
                std::fill_n(outcome_cache_.begin(), pool, std::uint8_t{0});
                ready_flags_[pick] = 2;
                ++issued;
            }
        } else {
            const unsigned pick = schedulers_[s].select(view);
            if (pick != timing::no_warp) {
                if (pick >= pool || !view.ready(pick)) [[unlikely]]
                    throw_bad_pick(s, pick);
                issued = issue_warp(s, pick, now);
            }
        }
        if constexpr (Frontend::issue_rule != timing::IssueRule::one_per_type_round_robin)
            if (issued == 0) classify();
        const timing::IssueOutcome outcome = issued > 0 ? timing::IssueOutcome::issued : best;
        ++stats_.outcomes[static_cast<std::size_t>(outcome)];
        if constexpr (quiet_cycle_replay) quiet_.outcome[s] = outcome;
        return issued;
    }

    // The Scheduler contract (timing/concepts.hpp): select returns a ready pool slot or no_warp. A slot outside the
    // pool would index past it, a slot that is not ready would issue a stalled warp; either is the policy's bug, so
    // the SM stops with the policy's name instead of running on. Checked in every build type (a thrown Error, not an
    // assert), so that the sanitizer build runs the same test.
    [[noreturn]] void throw_bad_pick(unsigned s, unsigned pick) const {
        const bool outside = pick >= pool_size(s);
        throw Error("scheduler policy '" + std::string(Scheduler::name) + "' (scheduler " + std::to_string(s) +
                    " of SM " + std::to_string(id_) + ") picked pool slot " + std::to_string(pick) + ", which is " +
                    (outside ? "outside its pool of " + std::to_string(pool_size(s)) + " slots" : "not ready") +
                    " at cycle " + std::to_string(now_) + "; select must return a ready slot or no_warp");
    }

    // Issues the picked warp's head instruction and, where the frontend allows, the next ones: dual issue takes the
    // next instruction of the same warp, if decoded, independent of the first and free of hazards and structural
    // limits (Gong 2020 Sec. 2.2: "two independent instructions"). Returns instructions issued.
    unsigned issue_warp(unsigned s, unsigned pick, core::Cycle now) {
        const unsigned w = slot_of(s, pick);
        const InFlight* first = &records_[warps_[w].ibuffer[warps_[w].ib_head]];
        issue_head(w, s, now);
        schedulers_[s].on_issue(pick, now);
        unsigned issued = 1;
        while (issued < Frontend::dispatch_per_scheduler && warps_[w].ib_count > 0 && !first->is_control) {
            const InFlight& next = records_[warps_[w].ibuffer[warps_[w].ib_head]];
            if (blocker(w) != timing::IssueOutcome::issued) break;
            if (depends_on(*next.result.instruction, *first->result.instruction)) break;
            first = &next;
            issue_head(w, s, now);
            ++issued;
            ++stats_.dual_issues;
        }
        return issued;
    }

    // ---------------------------------------------------------------------------------------------------
    // Event-driven issue. Instead of asking every warp of a pool why it cannot issue in every
    // cycle, each scheduler keeps its pool partitioned by warp_blocker(), the part of a warp's stall reason that
    // only the warp's own events change: `warp_code_[w]` and one bit mask per reason. Every event that can change
    // warp w's warp_blocker() calls touch(w) (fetch, issue, write-back, control resolution, barrier release, CTA
    // start and warp exit; a functional barrier release touches the whole CTA), which marks it dirty; an issue step
    // re-evaluates only the dirty warps, then checks the structural limits (resources_block, which change every
    // cycle) of the warps whose own state lets them issue. Statistics and picks equal the full scan's:
    // tests/pinned/quiet_cycles.cpp compares full statistics tables against a scheduler that disables this.
    // Only where quiet_cycle_replay holds (in-order fetch: a fetch policy changes warp state in its own transitions;
    // no SIMD turn) and pools have at most 64 slots.
    static constexpr std::size_t unit_keys = timing::unit_kind_count * 2;
    static_assert(unit_keys <= 32, "IssueMasks::units_used holds one bit per unit key");
    static std::size_t unit_key(const InFlight& rec) { return kind_index(rec.unit) * 2 + (rec.is_memory ? 1 : 0); }
    static constexpr std::uint8_t no_unit_key = 0xff;
    struct IssueMasks {
        std::uint64_t dirty = ~std::uint64_t{0}; // slots whose warp_code_ must be re-evaluated
        std::array<std::uint64_t, timing::issue_outcome_count> by_code{}; // slots per warp_blocker() (idle: empty)
        // The slots of by_code[issued] by their head instruction's unit_key(): resources_block() depends on the
        // head only through its unit and is_memory (the register file accepts every read here).
        std::array<std::uint64_t, unit_keys> by_unit{};
        std::uint32_t units_used = 0; // bit k set when by_unit[k] is not empty
    };
    void touch(unsigned w) {
        if constexpr (event_driven_issue || event_driven_fetch) {
            const std::uint64_t bit = std::uint64_t{1} << (w / Frontend::schedulers);
            if constexpr (event_driven_issue) issue_masks_[w % Frontend::schedulers].dirty |= bit;
            if constexpr (event_driven_fetch) fetch_masks_[w % Frontend::schedulers].dirty |= bit;
        }
    }
    void touch_cta(const CtaSlot& cta) {
        if constexpr (event_driven_issue || event_driven_fetch)
            for (unsigned w : cta.warp_slots) touch(w);
    }
    void touch_all() {
        if constexpr (event_driven_issue)
            for (auto& m : issue_masks_) m.dirty = ~std::uint64_t{0};
        if constexpr (event_driven_fetch)
            for (auto& m : fetch_masks_) m.dirty = ~std::uint64_t{0};
    }
    void refresh_issue_masks(unsigned s) {
        IssueMasks& m = issue_masks_[s];
        const unsigned pool = pool_size(s);
        for (std::uint64_t d = m.dirty & low_bits(pool); d != 0; d &= d - 1) {
            const unsigned i = static_cast<unsigned>(std::countr_zero(d));
            const unsigned w = slot_of(s, i);
            const std::uint64_t bit = std::uint64_t{1} << i;
            m.by_code[warp_code_[w]] &= ~bit;
            if (const std::uint8_t old = warp_unit_key_[w]; old != no_unit_key)
                if ((m.by_unit[old] &= ~bit) == 0) m.units_used &= ~(std::uint32_t{1} << old);
            const timing::IssueOutcome code = warps_[w].occupied ? warp_blocker(w) : timing::IssueOutcome::idle;
            warp_code_[w] = static_cast<std::uint8_t>(code);
            warp_unit_key_[w] = no_unit_key;
            if (code != timing::IssueOutcome::idle) m.by_code[static_cast<std::size_t>(code)] |= bit;
            if (code == timing::IssueOutcome::issued) {
                const WarpState& ws = warps_[w];
                warp_unit_key_[w] = static_cast<std::uint8_t>(unit_key(records_[ws.ibuffer[ws.ib_head]]));
                m.by_unit[warp_unit_key_[w]] |= bit;
                m.units_used |= std::uint32_t{1} << warp_unit_key_[w];
            }
        }
        m.dirty = 0;
    }
    static constexpr std::uint64_t low_bits(unsigned n) {
        return n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
    }
    unsigned issue_scheduler_from_masks(unsigned s, core::Cycle now, bool& all_long, bool& any_warp) {
        refresh_issue_masks(s);
        const IssueMasks& m = issue_masks_[s];
        auto mask_of = [&m](timing::IssueOutcome o) { return m.by_code[static_cast<std::size_t>(o)]; };
        // Warps whose own state lets them issue: ready unless the pipeline register in front of their unit is full
        // (resources_block() with a register file that accepts every read), decided once per unit.
        static_assert(timing::AcceptsEveryRead<RegisterFile>);
        std::uint64_t ready = 0;
        timing::IssueOutcome best_structural = timing::IssueOutcome::idle;
        for (std::uint32_t keys = m.units_used; keys != 0; keys &= keys - 1) {
            const auto key = static_cast<std::size_t>(std::countr_zero(keys));
            const std::size_t kind = key / 2;
            if (pending_dispatch_[kind][s] < unit_capacity_[kind][s]) {
                ready |= m.by_unit[key];
                continue;
            }
            const timing::IssueOutcome o =
                key % 2 == 1 ? timing::IssueOutcome::memory_pipeline : timing::IssueOutcome::structural;
            if (stall_rank(o) > stall_rank(best_structural)) best_structural = o;
        }
        stats_.issue_slots += Frontend::dispatch_per_scheduler;
        ready_now_ = ready;
        PoolView view{this, s, ready_flags_.data(), pool_size(s), ready};
        const unsigned pick = schedulers_[s].select(view);
        unsigned issued = 0;
        if (pick != timing::no_warp) {
            if (pick >= pool_size(s) || ((ready >> pick) & 1U) == 0) [[unlikely]]
                throw_bad_pick(s, pick);
            issued = issue_warp(s, pick, now);
        }
        timing::IssueOutcome outcome = timing::IssueOutcome::issued;
        if (issued == 0) {
            // The full scan's classification, from the masks: the highest-ranked reason among occupied warps.
            const std::uint64_t occupied = mask_of(timing::IssueOutcome::issued) |
                                           mask_of(timing::IssueOutcome::raw_other) |
                                           mask_of(timing::IssueOutcome::ibuffer_empty) |
                                           mask_of(timing::IssueOutcome::barrier) |
                                           mask_of(timing::IssueOutcome::raw_long_latency);
            if (occupied != 0) any_warp = true;
            if ((occupied & ~mask_of(timing::IssueOutcome::raw_long_latency)) != 0) all_long = false;
            if (ready != 0) outcome = timing::IssueOutcome::issued; // a select that broke work conservation
            else if (mask_of(timing::IssueOutcome::issued) != 0) outcome = best_structural;
            else if (mask_of(timing::IssueOutcome::raw_other) != 0) outcome = timing::IssueOutcome::raw_other;
            else if (mask_of(timing::IssueOutcome::ibuffer_empty) != 0) outcome = timing::IssueOutcome::ibuffer_empty;
            else if (mask_of(timing::IssueOutcome::barrier) != 0) outcome = timing::IssueOutcome::barrier;
            else if (mask_of(timing::IssueOutcome::raw_long_latency) != 0) outcome = timing::IssueOutcome::raw_long_latency;
            else outcome = timing::IssueOutcome::idle;
        }
        ++stats_.outcomes[static_cast<std::size_t>(outcome)];
        quiet_.outcome[s] = outcome;
        return issued;
    }

    // Quiet cycles. A cycle in which no scheduler issued leaves every warp's blocker() and every
    // scheduler's outcome unchanged until some event touches the SM's state: a completion, a write-back, a
    // dispatch, an issue, a fetch, a CTA start or a launch (each advances state_epoch_). Until then no warp is
    // ready, so a scheduler
    // that obeys the readiness law picks none, and the cycle's statistics equal the last cycle's: they are replayed
    // without scanning the pools. Only where that argument holds: a const select (no state to advance), a register
    // file that accepts every read (IdealRF: no per-cycle port state), no per-cycle SIMD turn (Southern Islands)
    // and in-order fetch. Pinned cycle counts and statistics (tests/pinned) are unchanged by it.
    static constexpr bool quiet_cycle_replay =
        in_order_fetch && Frontend::issue_rule != timing::IssueRule::one_per_type_round_robin &&
        timing::ReplaysQuietCycles<Scheduler, PoolView> && timing::AcceptsEveryRead<RegisterFile>;
    void count_lsu_state() {
        switch (l1_.lsu_state()) {
        case mem::LsuState::stalled_coalesce: ++stats_.lsu[1]; break;
        case mem::LsuState::stalled_mshr: ++stats_.lsu[2]; break;
        case mem::LsuState::stalled_icnt: ++stats_.lsu[3]; break;
        default: break;
        }
    }
    void replay_quiet_cycle() {
        for (unsigned s = 0; s < Frontend::schedulers; ++s) {
            stats_.issue_slots += Frontend::dispatch_per_scheduler;
            ++stats_.outcomes[static_cast<std::size_t>(quiet_.outcome[s])];
        }
        if (quiet_.cycle_class < 3) ++stats_.cycle_class[quiet_.cycle_class];
        count_lsu_state();
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

    void issue_head(unsigned w, unsigned s, core::Cycle) {
        if constexpr (!in_order_fetch)
            if (fetch_mechanism_.issue_instead(*this, w)) return;
        touch(w);
        WarpState& ws = warps_[w];
        InFlight& rec = records_[ws.pop_head()];
        const ir::Instruction& inst = *rec.result.instruction;
        for (unsigned k = 0; k < inst.num_defs; ++k) {
            scoreboard_.reserve(w, def_register(rec, k), rec.long_latency);
            if (rec.long_latency) ++ws.long_pending;
        }
        rf_.accept(operand_read(rec), now_);
        ++pending_dispatch_[kind_index(rec.unit)][s];
        ++stats_.warp_instructions;
        stats_.thread_instructions += rec.active_lanes;
        switch (inst.op) { // device-heap calls and cp.async
        case ir::Opcode::device_malloc: stats_.device_mallocs += rec.active_lanes; break;
        case ir::Opcode::device_free: stats_.device_frees += rec.active_lanes; break;
        case ir::Opcode::cp_async: ++stats_.async_copies; break;
        default: break;
        }
        if constexpr (!in_order_fetch) fetch_mechanism_.after_issue(*this, w, rec);
    }
    // The register an instruction's k-th destination is written to: its own, or where the fetch policy renamed it.
    static ir::RegId def_register(const InFlight& rec, unsigned k) {
        if constexpr (!in_order_fetch) return FetchMechanism::def_register(rec, k);
        else return rec.result.instruction->defs[k];
    }

    // ---------------------------------------------------------------------------------------------------
    bool try_dispatch(std::uint64_t token) {
        InFlight& rec = *record(token);
        const unsigned s = warps_[rec.warp].scheduler;
        if (!exec_.can_dispatch(rec.unit, s, now_)) return false;
        if (rec.is_memory) {
            if (!l1_.can_accept()) return false;
            const ir::Instruction& inst = *rec.result.instruction;
            mem::WarpAccess access;
            access.warp = rec.warp;
            access.token = token;
            access.pc = rec.result.pc;
            access.space = rec.space;
            access.kind = inst.op == ir::Opcode::st ? mem::WarpAccess::store
                          : (inst.op == ir::Opcode::atom || inst.op == ir::Opcode::red) ? mem::WarpAccess::atomic
                                                                                          : mem::WarpAccess::load;
            access.access_bytes = rec.result.access_bytes;
            access.width = warp_width;
            access.active = rec.result.accessed;
            access.prefetch = ir::prefetch_level(inst);
            access.coherent = ir::needs_coherent_load(inst);
            access.texture = inst.op_class == ir::OpClass::texture;
            access.addresses = rec.result.addresses.data();
            l1_.accept(access, now_);
        }
        timing::ExecOp op;
        op.token = token;
        op.warp = rec.warp;
        op.unit = rec.unit;
        op.active_lanes = rec.active_lanes;
        op.warp_width = warp_width;
        op.op_class = rec.result.instruction->op_class;
        op.instruction = rec.result.instruction;
        op.active = rec.result.executed;
        op.values = rec.result.has_value ? rec.result.values.data() : nullptr;
        exec_.dispatch(op, s, now_);
        --pending_dispatch_[kind_index(rec.unit)][s];
        return true;
    }

    void on_exec_done(std::uint64_t token) {
        const InFlight* rec = record(token);
        if (rec == nullptr || rec->is_memory) return; // memory instructions complete through the L1
        complete(token);
    }
    void on_memory_done(std::uint64_t token) { complete(token); }
    timing::MemoryFeedback feedback(const mem::Completion& c, const InFlight& rec) const {
        timing::MemoryFeedback fb;
        fb.pc = c.pc;
        fb.is_load = c.kind == mem::WarpAccess::load;
        fb.active_lanes = rec.active_lanes;
        fb.lines = c.lines;
        fb.sets = c.sets;
        fb.misses = c.misses;
        fb.coherent = c.coherent;
        fb.occlusion_cycles = c.occlusion_cycles;
        return fb;
    }
    // Data returned: the scheduler's optional on_memory_complete (OAWS's classifier trains on it).
    void notify_memory_feedback(const mem::Completion& c) {
        if constexpr (timing::ObservesMemoryCompletion<Scheduler>) {
            const InFlight* rec = record(c.token);
            if (rec == nullptr) return;
            const WarpState& ws = warps_[rec->warp];
            schedulers_[ws.scheduler].on_memory_complete(ws.pool_index, feedback(c, *rec));
        }
    }
    // Every access of the instruction left the LSU (Wang 2016 Sec. 4.2: Miss_inflight drops when a load retires
    // from the memory pipeline): the scheduler's optional on_memory_issued.
    void notify_memory_issued(const mem::Completion& c) {
        if constexpr (timing::ObservesMemoryIssue<Scheduler>) {
            const InFlight* rec = record(c.token);
            if (rec == nullptr) return;
            const WarpState& ws = warps_[rec->warp];
            schedulers_[ws.scheduler].on_memory_issued(ws.pool_index, feedback(c, *rec));
        }
    }

    // Result ready: write destinations (through the register file) or retire directly.
    void complete(std::uint64_t token) {
        InFlight& rec = *record(token);
        const ir::Instruction& inst = *rec.result.instruction;
        if (rec.async_counted) { // a cp.async leaves its group; a wait holds until its groups are done
            rec.async_counted = false;
            if (inst.op == ir::Opcode::cp_async) {
                async_copy_done(rec.warp, rec.async_group);
            } else if (!async_groups_done(rec.warp, rec.async_group)) {
                WarpState& ws = warps_[rec.warp];
                ws.async_waiting = true;
                ws.async_waiting_token = token;
                return;
            }
        }
        if (rec.is_control && fetch_resolves_control(rec)) resolve_control(rec);
        if (inst.num_defs == 0) {
            retire(token);
            return;
        }
        timing::RegisterWrite write;
        write.token = token;
        write.warp = rec.warp;
        write.from_memory = rec.is_memory;
        write.instruction = &inst;
        write.active = rec.result.executed;
        if (rec.result.has_value) {
            write.values = rec.result.values.data();
            write.value_bytes = static_cast<std::uint8_t>(
                ir::size_bytes(execution_->kernel().registers[rec.result.value_reg].type) > 4 ? 8 : 4);
        }
        for (unsigned k = 0; k < inst.num_defs && write.dest_count < write.dests.size(); ++k) {
            if (is_predicate_[inst.defs[k]]) continue;
            write.dests[write.dest_count++] = def_register(rec, k);
        }
        if (write.dest_count == 0) {
            on_written(token);
            return;
        }
        rf_.write(write, now_);
    }
    void on_written(std::uint64_t token) {
        InFlight& rec = *record(token);
        const ir::Instruction& inst = *rec.result.instruction;
        WarpState& ws = warps_[rec.warp];
        ws.head_hazard = hazard_unknown;
        touch(rec.warp);
        for (unsigned k = 0; k < inst.num_defs; ++k) {
            scoreboard_.release(rec.warp, def_register(rec, k), rec.long_latency);
            if (rec.long_latency) --ws.long_pending;
        }
        retire(token);
    }
    void retire(std::uint64_t token) {
        InFlight& rec = *record(token);
        const unsigned w = rec.warp;
        if constexpr (!in_order_fetch) fetch_mechanism_.on_retire(*this, rec);
        --warps_[w].in_flight;
        release_record(rec.index);
        maybe_finish_warp(w);
    }

    void resolve_control(const InFlight& rec) {
        WarpState& ws = warps_[rec.warp];
        ws.fetch_blocked = false;
        touch(rec.warp);
        const ir::Instruction& inst = *rec.result.instruction;
        if (inst.op == ir::Opcode::bar && inst.barrier != ir::BarrierMode::arrive) {
            CtaSlot& cta = ctas_[ws.cta_slot];
            ws.at_barrier = true;
            ++cta.arrived;
            release_barrier_if_complete(cta);
        }
    }
    void release_barrier_if_complete(CtaSlot& cta) {
        if (cta.arrived == 0 || cta.arrived < cta.live_warps) return;
        cta.arrived = 0;
        for (unsigned w : cta.warp_slots)
            if (warps_[w].occupied) warps_[w].at_barrier = false;
        touch_cta(cta);
    }

    void maybe_finish_warp(unsigned w) {
        WarpState& ws = warps_[w];
        if (!ws.occupied || !ws.functional_done || ws.in_flight > 0) return;
        ws.occupied = false;
        touch(w);
        schedulers_[ws.scheduler].on_warp_exit(ws.pool_index);
        CtaSlot& cta = ctas_[ws.cta_slot];
        --cta.live_warps;
        if (cta.live_warps > 0) {
            release_barrier_if_complete(cta);
            return;
        }
        cta.active = false;
        occupancy_.remove(shape_);
        ++finished_ctas_;
        ++stats_.ctas;
    }

    // A completing control instruction unblocks in-order fetch, unless the fetch policy says in-order fetch never
    // waited for it (an instruction the policy issued out of order, on its own copy of the SIMT stack).
    static bool fetch_resolves_control(const InFlight& rec) {
        if constexpr (!in_order_fetch) return FetchMechanism::resolves_control(rec);
        else return true;
    }

    // ---------------------------------------------------------------------------------------------------
    std::uint32_t id_;
    RegisterFile rf_;
    Exec exec_;
    L1 l1_;
    struct NoSharedState {};
    template <class S>
    static auto shared_state_type() {
        if constexpr (requires { typename S::SmShared; }) return std::type_identity<typename S::SmShared>{};
        else return std::type_identity<NoSharedState>{};
    }
    using SmShared = typename decltype(shared_state_type<Scheduler>())::type;
    SmShared sm_shared_{};
    struct NoFetchMechanism {};
    template <class F>
    static auto fetch_mechanism_type() {
        if constexpr (F::in_order) return std::type_identity<NoFetchMechanism>{};
        else return std::type_identity<typename F::template Mechanism<SM>>{};
    }
    using FetchMechanism = typename decltype(fetch_mechanism_type<FetchPolicy>())::type;
    friend FetchMechanism; // it runs the fetch stage on this SM's warp, record and scoreboard state
    [[no_unique_address]] FetchMechanism fetch_mechanism_{};
    std::vector<Scheduler> schedulers_;
    std::vector<unsigned> fetch_next_;
    std::vector<WarpState> warps_;
    std::vector<CtaSlot> ctas_;
    using RecordPool = timing::detail::RecordPool<InFlight>;
    RecordPool records_;
    timing::detail::Scoreboard scoreboard_;
    std::vector<bool> is_predicate_; // per register of the bound kernel (predicates live outside the banks)
    // Counts events that change warp state (see quiet_cycle_replay). replay_quiet_cycle(): whether the last issue
    // stage issued nothing (valid), at which epoch, each scheduler's outcome and the Gong class then (0 issued,
    // 1 long-latency, 2 mixed, 3 no warp). fetch_idle_epoch_: the epoch at which a fetch stage last found nothing.
    std::uint64_t state_epoch_ = 1;
    std::uint64_t fetch_idle_epoch_ = 0;
    FetchCursor fetch_cursor_;
    func::StepCounts private_counts_; // steps of cycle_fetch_private not yet folded into the launch
    struct QuietCycle {
        bool valid = false;
        std::uint64_t epoch = 0;
        std::uint8_t cycle_class = 3;
        std::array<timing::IssueOutcome, Frontend::schedulers> outcome{};
    };
    QuietCycle quiet_;
    // Event-driven issue and fetch (see IssueMasks): per scheduler, per warp slot.
    // A Scheduler that declares `scan_every_cycle` keeps the full per-cycle scans of the issue and fetch stages (the
    // reference the event-driven stages are tested against, tests/pinned/quiet_cycles.cpp).
    static constexpr bool scans_every_cycle = timing::ScansEveryCycle<SchedulerT>;
    static constexpr bool event_driven_issue = quiet_cycle_replay && max_pool <= 64 && !scans_every_cycle;
    static constexpr bool event_driven_fetch = in_order_fetch && max_pool <= 64 && !scans_every_cycle &&
                                               detail::fetch_warps_per_scheduler<Frontend>() == 1;
    struct FetchMask {
        std::uint64_t dirty = ~std::uint64_t{0}; // slots whose can_fetch() must be re-evaluated
        std::uint64_t fetchable = 0;
    };
    std::array<IssueMasks, Frontend::schedulers> issue_masks_{};
    std::uint64_t ready_now_ = 0; // the ready slots of the scheduler now issuing
    std::array<FetchMask, Frontend::schedulers> fetch_masks_{};
    static constexpr std::array<std::uint8_t, Frontend::max_warps> per_warp(std::uint8_t value) {
        std::array<std::uint8_t, Frontend::max_warps> values{};
        values.fill(value);
        return values;
    }
    // warp_blocker() of each warp, idle if unoccupied; unit_key() of a candidate's head instruction.
    std::array<std::uint8_t, Frontend::max_warps> warp_code_ =
        per_warp(static_cast<std::uint8_t>(timing::IssueOutcome::idle));
    std::array<std::uint8_t, Frontend::max_warps> warp_unit_key_ = per_warp(no_unit_key);
    // Per pool slot of the scheduler now issuing.
    mutable std::array<std::uint8_t, max_pool> ready_flags_{};
    mutable std::array<std::uint8_t, max_pool> outcome_cache_{}; // pool_outcome(): IssueOutcome + 1, 0 unknown
    std::array<std::array<unsigned, Frontend::schedulers>, timing::unit_kind_count> unit_capacity_{};
    std::array<std::array<unsigned, Frontend::schedulers>, timing::unit_kind_count> pending_dispatch_{};
    func::KernelExecution* execution_ = nullptr;
    CtaShape shape_{};
    timing::detail::Occupancy<Frontend> occupancy_;
    unsigned finished_ctas_ = 0;
    core::Cycle now_ = 0;
    Stats stats_;
};

} // namespace gpuarch
