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
#include <gpuarch/func/kernel_execution.hpp>
#include <gpuarch/ir/def_use.hpp>
#include <gpuarch/ir/op_class.hpp>
#include <gpuarch/mem/access.hpp>
#include <gpuarch/mem/queue.hpp>
#include <gpuarch/timing/concepts.hpp>

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
template <class Frontend>
constexpr const timing::OpcodeTimingTable* opcode_timing_of() {
    if constexpr (requires { Frontend::opcode_timing; }) return &Frontend::opcode_timing;
    else return nullptr;
}
} // namespace detail

// What occupancy needs to know about a kernel launch (per CTA).
struct CtaShape {
    unsigned threads = 0;
    unsigned warps = 0;
    unsigned registers = 0;       // per CTA, after allocation granularity
    unsigned shared_bytes = 0;    // static + dynamic
};

template <class FrontendT, class SchedulerT, class RegisterFileT, class ExecT, class L1T>
class SM {
    static_assert(timing::check_frontend<FrontendT>());
    static_assert(timing::check_scheduler<SchedulerT>());
    static_assert(timing::check_register_file<RegisterFileT>());
    static_assert(timing::check_exec<ExecT>());
    static_assert(timing::check_l1<L1T>());
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
        if constexpr (requires(Scheduler& sched, SmShared& shared) { sched.attach(shared, 1U); })
            for (auto& sched : schedulers_) sched.attach(sm_shared_, Frontend::schedulers);
        for (unsigned w = 0; w < Frontend::max_warps; ++w) {
            warps_[w].scheduler = w % Frontend::schedulers;
            warps_[w].pool_index = w / Frontend::schedulers;
        }
        for (std::size_t k = 0; k < timing::unit_kind_count; ++k)
            for (unsigned s = 0; s < Frontend::schedulers; ++s) unit_capacity_[k][s] = count_units(k);
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
        if constexpr (hint_assisted) haws_bind(kernel);
        // Rename targets of hint mode are registers past the kernel's own (ir/hints.hpp): the scoreboard covers them.
        reg_words_ = (kernel.registers.size() + haws_extra_registers() + 63) / 64;
        is_predicate_.assign(kernel.registers.size() + haws_extra_registers(), false);
        for (std::size_t r = 0; r < kernel.registers.size(); ++r)
            is_predicate_[r] = kernel.registers[r].type == ir::ScalarType::pred;
        pending_.assign(std::size_t(Frontend::max_warps) * reg_words_, 0);
        pending_long_.assign(std::size_t(Frontend::max_warps) * reg_words_, 0);
        quiet_.valid = false;
        ++state_epoch_;
        touch_all();
        fetch_cursor_ = FetchCursor{}; // a launch that stopped on an error may have left a stage half done
        private_counts_ = func::StepCounts{};
        for (auto& sched : schedulers_)
            if constexpr (requires { sched.on_kernel_launch(); }) sched.on_kernel_launch();
    }
    // The launch's locality hint (Gong 2020 Table 6.1), after bind and before the first CTA; schedulers that
    // group warps by it (sched::LocalityTwoLevel) take it through the optional on_launch_hint hook.
    void set_launch_hint(unsigned hint) {
        for (auto& sched : schedulers_)
            if constexpr (requires { sched.on_launch_hint(hint); }) sched.on_launch_hint(hint);
    }

    // Occupancy (CUDA occupancy rules): threads, warps, CTAs, registers and shared memory per SM.
    bool can_accept_cta() const {
        return resident_ctas_ < Frontend::max_ctas && used_warps_ + shape_.warps <= Frontend::max_warps &&
               used_threads_ + shape_.threads <= Frontend::max_threads &&
               used_registers_ + shape_.registers <= Frontend::max_registers &&
               used_shared_ + shape_.shared_bytes <= Frontend::max_shared_bytes;
    }
    // Maximum CTAs of this shape one SM holds at once (0: the CTA does not fit at all).
    static unsigned max_resident_ctas(const CtaShape& s) {
        unsigned n = Frontend::max_ctas;
        auto limit = [&n](unsigned used, unsigned cap) {
            if (used != 0) n = std::min(n, cap / used);
        };
        limit(s.warps, Frontend::max_warps);
        limit(s.threads, Frontend::max_threads);
        limit(s.registers, Frontend::max_registers);
        limit(s.shared_bytes, Frontend::max_shared_bytes);
        return n;
    }

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
            clear_scoreboard(w);
            touch(w);
            cta.warp_slots.push_back(w);
            schedulers_[ws.scheduler].on_warp_start(ws.pool_index);
            // Optional: where the warp sits in the grid (CTA index, warp index in its CTA, warps in the CTA), for
            // schedulers that group warps by it (sched::LocalityTwoLevel, Gong 2020 Sec. 6.3.2).
            if constexpr (requires(Scheduler& sched) { sched.on_warp_origin(0U, cta.state->id, 0U, 0U); })
                schedulers_[ws.scheduler].on_warp_origin(ws.pool_index, cta.state->id, k, cta.live_warps);
            if (cta.state->warp_finished(k)) ws.functional_done = true;
        }
        ++resident_ctas_;
        used_warps_ += shape_.warps;
        used_threads_ += shape_.threads;
        used_registers_ += shape_.registers;
        used_shared_ += shape_.shared_bytes;
        for (unsigned k = 0; k < cta.live_warps; ++k) maybe_finish_warp(cta.warp_slots[k]);
    }

    bool idle() const { return resident_ctas_ == 0; }
    unsigned resident_ctas() const { return resident_ctas_; }
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

    // The phases of a cycle, for GPU's parallel tick (issue 11). cycle_timing (stages 1-5) reads and writes
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
        if constexpr (requires { l1_.drain_issued([](const mem::Completion&) {}); })
            l1_.drain_issued([this](const mem::Completion& c) { notify_memory_issued(c); });
        if constexpr (requires { l1_.drain_locality_events([](std::uint32_t, const timing::LocalityEvent&) {}); }) {
            l1_.drain_locality_events([this](std::uint32_t warp, const timing::LocalityEvent& event) {
                if (warp >= warps_.size() || !warps_[warp].occupied) return;
                auto& sched = schedulers_[warps_[warp].scheduler];
                if constexpr (requires { sched.on_locality_event(0U, event); })
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
        if (resident_ctas_ > 0) ++stats_.active_cycles;
        stats_.resident_warp_cycles += used_warps_;
    }
    // Steps this cycle's fetch stage may take at most: every scheduler's fetching warps, fetch_per_warp each.
    // The GPU lets SMs step privately only while the launch's instruction count cannot reach its limit within a
    // cycle (private steps check the limit against the count of the previous cycle).
    static constexpr unsigned max_fetch_steps_per_cycle() {
        return Frontend::schedulers * fetch_warps_per_scheduler() * Frontend::fetch_per_warp;
    }
    // The first part of cycle_fetch, after cycle_timing: runs the fetch stage up to its first step that touches
    // state shared with other SMs. Returns true when the stage completed (cycle_fetch_finish then only folds the
    // counts). Hint-assisted variants (HAWS) leave the whole stage to cycle_fetch_finish: their run-ahead window
    // interleaves steps with hint-mode transitions that this split does not model.
    bool cycle_fetch_private() {
        if constexpr (hint_assisted) {
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
        v.counter("gong.issued", stats_.gong[0], "cycles with an issue (Gong 2020 Fig. 1.2)");
        v.counter("gong.long_latency_stall", stats_.gong[1],
                  "cycles without issue, every warp waiting on a long-latency memory operation");
        v.counter("gong.mixed_stall", stats_.gong[2], "cycles without issue for any other mix of reasons");
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
        std::string out = "SM " + std::to_string(id_) + ": " + std::to_string(resident_ctas_) + " CTAs, LSU " +
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

    // Scheduler s of this SM (its statistics and, for HAWS, its hint-mode state).
    const Scheduler& scheduler(unsigned s) const { return schedulers_[s]; }
    std::uint64_t cycles() const { return stats_.cycles; }
    std::uint64_t warp_instructions() const { return stats_.warp_instructions; }
    std::uint64_t thread_instructions() const { return stats_.thread_instructions; }

private:
    // ---------------------------------------------------------------------------------------------------
    // Hint-assisted warp scheduling (Gong 2020 Ch. 5, sched/haws.hpp): a scheduler that declares `hint_assisted`
    // gets the hint-mode mechanism (the haws_ functions below). For every other scheduler these state types are
    // empty and every haws_ call sits behind `if constexpr (hint_assisted)`, so its code is what it was without.
    static constexpr bool hint_assisted = requires { SchedulerT::hint_assisted; };
    struct NoHawsState {};
    template <class S>
    static auto haws_record_type() {
        if constexpr (requires { S::hint_assisted; }) return std::type_identity<typename S::RecordState>{};
        else return std::type_identity<NoHawsState>{};
    }
    template <class S>
    static auto haws_sm_type() {
        if constexpr (requires { S::hint_assisted; }) return std::type_identity<typename S::SmState>{};
        else return std::type_identity<NoHawsState>{};
    }
    template <class S>
    static auto haws_window_entry_type() {
        if constexpr (requires { S::hint_assisted; }) return std::type_identity<typename S::WindowEntry>{};
        else return std::type_identity<NoHawsState>{};
    }
    using HawsRecord = typename decltype(haws_record_type<SchedulerT>())::type;
    using HawsWindowEntry = typename decltype(haws_window_entry_type<SchedulerT>())::type;
    using HawsSm = typename decltype(haws_sm_type<SchedulerT>())::type;

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
        [[no_unique_address]] HawsRecord haws{}; // hint mode (HAWS schedulers only)
        // issue 20, cp.async: a cp.async's group, or a wait's threshold (every group below it must be complete);
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
        // issue 20, cp.async groups (PTX ISA 9.0, Sec. 9.7.9.25.3): async_open_group counts the commits fetched so
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
        std::array<std::uint64_t, 3> gong{};
        std::array<std::uint64_t, 4> lsu{};
        // issue 20: device-side malloc/free calls (threads) and cp.async warp instructions issued
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
        timing::L1View l1() const {
            const auto v = sm->l1_.view();
            timing::L1View out{v.mshr_total, v.mshr_free, v.lsu_queue_depth, v.lsu_blocked};
            if constexpr (requires { v.miss_queue_total; v.miss_queue_free; }) {
                out.miss_queue_total = v.miss_queue_total;
                out.miss_queue_free = v.miss_queue_free;
            }
            return out;
        }
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
        if (!free_records_.empty()) {
            const std::uint32_t r = free_records_.back();
            free_records_.pop_back();
            ++records_[r].generation;
            records_[r].async_counted = false;
            return r;
        }
        records_.emplace_back(warp_width);
        records_.back().index = static_cast<std::uint32_t>(records_.size() - 1);
        return records_.back().index;
    }
    void release_record(std::uint32_t r) {
        records_[r].alive = false;
        free_records_.push_back(r);
    }

    std::uint64_t* pending_of(unsigned w) { return pending_.data() + std::size_t(w) * reg_words_; }
    const std::uint64_t* pending_of(unsigned w) const { return pending_.data() + std::size_t(w) * reg_words_; }
    std::uint64_t* long_of(unsigned w) { return pending_long_.data() + std::size_t(w) * reg_words_; }
    const std::uint64_t* long_of(unsigned w) const { return pending_long_.data() + std::size_t(w) * reg_words_; }
    static bool test_bit(const std::uint64_t* bits, ir::RegId r) { return (bits[r / 64] >> (r % 64)) & 1U; }
    static void set_bit(std::uint64_t* bits, ir::RegId r) { bits[r / 64] |= std::uint64_t{1} << (r % 64); }
    static void clear_bit(std::uint64_t* bits, ir::RegId r) { bits[r / 64] &= ~(std::uint64_t{1} << (r % 64)); }
    void clear_scoreboard(unsigned w) {
        for (std::size_t i = 0; i < reg_words_; ++i) pending_of(w)[i] = long_of(w)[i] = 0;
    }

    enum class Hazard : std::uint8_t { none, raw_long, raw_other };
    Hazard hazard(unsigned w, const ir::Instruction& inst) const {
        const std::uint64_t* p = pending_of(w);
        const std::uint64_t* l = long_of(w);
        Hazard h = Hazard::none;
        for (unsigned k = 0; k < inst.num_uses; ++k) {
            const ir::RegId r = inst.uses[k];
            if (test_bit(p, r)) {
                if (test_bit(l, r)) return Hazard::raw_long;
                h = Hazard::raw_other;
            }
        }
        for (unsigned k = 0; k < inst.num_defs; ++k)
            if (test_bit(p, inst.defs[k])) return test_bit(l, inst.defs[k]) ? Hazard::raw_long : Hazard::raw_other;
        return h;
    }
    Hazard head_hazard(unsigned w) const {
        const WarpState& ws = warps_[w];
        if (ws.head_hazard == hazard_unknown) {
            if constexpr (hint_assisted)
                if (records_[ws.ibuffer[ws.ib_head]].haws.hinted) {
                    ws.head_hazard = static_cast<std::uint8_t>(haws_hazard(w, records_[ws.ibuffer[ws.ib_head]]));
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
        if constexpr (hint_assisted) haws_transitions();
        FetchCursor& f = fetch_cursor_;
        f = FetchCursor{};
        f.state = FetchCursor::State::open;
        f.start = fetch_next_[0];
        // A fetch stage that found no warp to fetch finds none again until an event changes warp state (the
        // state_epoch_ argument of quiet_cycle_replay); hint mode has its own transitions and always scans.
        if constexpr (!hint_assisted)
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
        if (resident_ctas_ > 0) ++stats_.active_cycles;
        stats_.resident_warp_cycles += used_warps_;
    }
    static constexpr unsigned fetch_warps_per_scheduler() { return detail::fetch_warps_per_scheduler<Frontend>(); }
    bool can_fetch(unsigned w) const {
        const WarpState& ws = warps_[w];
        if constexpr (hint_assisted)
            if (ws.occupied && haws_owns_fetch(w)) return haws_can_fetch(w);
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
        if constexpr (hint_assisted) {
            static_assert(!StopAtShared, "hint-assisted variants fetch only in the serial part (cycle_fetch_private)");
            if (haws_owns_fetch(w)) {
                haws_fetch(w);
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
        rec.haws = HawsRecord{};
    }
    // issue 20, cp.async groups, kept in program order as the functional engine steps the warp: a cp.async joins
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
            if constexpr (hint_assisted)
                if (ws.occupied && haws_owns_fetch(w)) return haws_empty_blocker(w);
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
            if constexpr (requires { rf_.conflicted_last_cycle(scheduler); }) {
                if (rf_.conflicted_last_cycle(scheduler)) return timing::IssueOutcome::bank_conflict;
            } else if constexpr (requires { rf_.conflicted_last_cycle(); }) {
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
    static std::uint64_t token_of(const InFlight& rec) { return (std::uint64_t{rec.generation} << 32) | rec.index; }
    // The live record a token names, or nullptr when that instruction already retired.
    InFlight* record(std::uint64_t token) {
        InFlight& rec = records_[static_cast<std::uint32_t>(token)];
        return rec.alive && rec.generation == static_cast<std::uint32_t>(token >> 32) ? &rec : nullptr;
    }

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
            quiet_.gong = any_issued ? 0 : any_warp && all_long ? 1 : any_warp ? 2 : 3;
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
        if (any_issued) ++stats_.gong[0];
        else if (any_warp && all_long) ++stats_.gong[1];
        else if (any_warp) ++stats_.gong[2];
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
            if (pick != timing::no_warp) issued = issue_warp(s, pick, now);
        }
        if constexpr (Frontend::issue_rule != timing::IssueRule::one_per_type_round_robin)
            if (issued == 0) classify();
        const timing::IssueOutcome outcome = issued > 0 ? timing::IssueOutcome::issued : best;
        ++stats_.outcomes[static_cast<std::size_t>(outcome)];
        if constexpr (quiet_cycle_replay) quiet_.outcome[s] = outcome;
        return issued;
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
    // Event-driven issue (issue 4 speed). Instead of asking every warp of a pool why it cannot issue in every
    // cycle, each scheduler keeps its pool partitioned by warp_blocker(), the part of a warp's stall reason that
    // only the warp's own events change: `warp_code_[w]` and one bit mask per reason. Every event that can change
    // warp w's warp_blocker() calls touch(w) (fetch, issue, write-back, control resolution, barrier release, CTA
    // start and warp exit; a functional barrier release touches the whole CTA), which marks it dirty; an issue step
    // re-evaluates only the dirty warps, then checks the structural limits (resources_block, which change every
    // cycle) of the warps whose own state lets them issue. Statistics and picks equal the full scan's:
    // tests/pinned/quiet_cycles.cpp compares full statistics tables against a scheduler that disables this.
    // Only where quiet_cycle_replay holds (no hint mode, whose warp state changes in its own transitions; no SIMD
    // turn) and pools have at most 64 slots.
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
        static_assert(requires { RegisterFile::accepts_every_read; });
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
        if (pick != timing::no_warp) issued = issue_warp(s, pick, now);
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

    // Quiet cycles (issue 4 speed). A cycle in which no scheduler issued leaves every warp's blocker() and every
    // scheduler's outcome unchanged until some event touches the SM's state: a completion, a write-back, a
    // dispatch, an issue, a fetch, a CTA start or a launch (each advances state_epoch_). Until then no warp is
    // ready, so a scheduler
    // that obeys the readiness law picks none, and the cycle's statistics equal the last cycle's: they are replayed
    // without scanning the pools. Only where that argument holds: a const select (no state to advance), a register
    // file that accepts every read (IdealRF: no per-cycle port state), no per-cycle SIMD turn (Southern Islands)
    // and no hint mode. Pinned cycle counts and statistics (tests/pinned) are unchanged by it.
    static constexpr bool quiet_cycle_replay =
        !hint_assisted && Frontend::issue_rule != timing::IssueRule::one_per_type_round_robin &&
        requires(const Scheduler& sched, const PoolView& view) { sched.select(view); } &&
        requires { RegisterFile::accepts_every_read; };
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
        if (quiet_.gong < 3) ++stats_.gong[quiet_.gong];
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
        if constexpr (hint_assisted)
            if (records_[warps_[w].ibuffer[warps_[w].ib_head]].haws.copy) return haws_issue_copy(w);
        touch(w);
        WarpState& ws = warps_[w];
        InFlight& rec = records_[ws.pop_head()];
        const ir::Instruction& inst = *rec.result.instruction;
        for (unsigned k = 0; k < inst.num_defs; ++k) {
            set_bit(pending_of(w), def_register(rec, k));
            if (rec.long_latency) {
                set_bit(long_of(w), def_register(rec, k));
                ++ws.long_pending;
            }
        }
        rf_.accept(operand_read(rec), now_);
        ++pending_dispatch_[kind_index(rec.unit)][s];
        ++stats_.warp_instructions;
        stats_.thread_instructions += rec.active_lanes;
        switch (inst.op) { // issue 20
        case ir::Opcode::device_malloc: stats_.device_mallocs += rec.active_lanes; break;
        case ir::Opcode::device_free: stats_.device_frees += rec.active_lanes; break;
        case ir::Opcode::cp_async: ++stats_.async_copies; break;
        default: break;
        }
        if constexpr (hint_assisted) haws_after_issue(w, rec);
    }
    // The register an instruction's k-th destination is written to: its own, or its rename target in hint mode.
    static ir::RegId def_register(const InFlight& rec, unsigned k) {
        if constexpr (hint_assisted)
            if (k == 0 && rec.haws.renamed_to != ir::no_reg) return rec.haws.renamed_to;
        return rec.result.instruction->defs[k];
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
        if constexpr (requires(Scheduler& sched, const timing::MemoryFeedback& fb) { sched.on_memory_complete(0U, fb); }) {
            const InFlight* rec = record(c.token);
            if (rec == nullptr) return;
            const WarpState& ws = warps_[rec->warp];
            schedulers_[ws.scheduler].on_memory_complete(ws.pool_index, feedback(c, *rec));
        }
    }
    // Every access of the instruction left the LSU (Wang 2016 Sec. 4.2: Miss_inflight drops when a load retires
    // from the memory pipeline): the scheduler's optional on_memory_issued.
    void notify_memory_issued(const mem::Completion& c) {
        if constexpr (requires(Scheduler& sched, const timing::MemoryFeedback& fb) { sched.on_memory_issued(0U, fb); }) {
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
        if (rec.async_counted) { // issue 20: a cp.async leaves its group; a wait holds until its groups are done
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
        // A branch issued in hint mode runs on the SIMT-stack copy: in-order fetch never waited for it.
        if (rec.is_control && !haws_hinted(rec)) resolve_control(rec);
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
            clear_bit(pending_of(rec.warp), def_register(rec, k));
            if (rec.long_latency) {
                clear_bit(long_of(rec.warp), def_register(rec, k));
                --ws.long_pending;
            }
        }
        retire(token);
    }
    void retire(std::uint64_t token) {
        InFlight& rec = *record(token);
        const unsigned w = rec.warp;
        if constexpr (hint_assisted) haws_on_retire(rec);
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
        --resident_ctas_;
        used_warps_ -= shape_.warps;
        used_threads_ -= shape_.threads;
        used_registers_ -= shape_.registers;
        used_shared_ -= shape_.shared_bytes;
        ++finished_ctas_;
        ++stats_.ctas;
    }

    // ---------------------------------------------------------------------------------------------------
    // Hint mode (Gong 2020 Ch. 5; sched/haws.hpp, docs/haws.md). Compiled only for hint_assisted schedulers.
    //
    // Model: functional execution stays in program order. When a warp enters hint mode, its fetched instructions go
    // back into a per-warp run-ahead window (records already executed, not yet fetched in order); hint-mode fetch
    // moves only the chain's instructions, one at a time, from the window into the instruction buffer, stepping the
    // functional engine ahead (in program order) when the next chain instruction is not in the window yet. In-order
    // fetch then drains the window: instructions issued in hint mode are skipped, or become a register copy when
    // their result was renamed (Sec. 5.3.4, Fig. 5.8).
    static bool haws_hinted(const InFlight& rec) {
        if constexpr (hint_assisted) return rec.haws.hinted;
        else return false;
    }
    unsigned haws_extra_registers() const {
        if constexpr (hint_assisted) return haws_.hints.extra_registers;
        else return 0;
    }
    auto& haws_warp(unsigned w) { return schedulers_[warps_[w].scheduler].warp(warps_[w].pool_index); }
    const auto& haws_warp(unsigned w) const { return schedulers_[warps_[w].scheduler].warp(warps_[w].pool_index); }
    auto& haws_stats(unsigned w) { return schedulers_[warps_[w].scheduler].stats(); }

    void haws_bind(const ir::Kernel& kernel) {
        // Hints depend only on the kernel: computed once per kernel, not per launch.
        if (haws_.kernel == &kernel && haws_.kernel_code_size == kernel.code.size() && haws_.kernel_name == kernel.name)
            return;
        haws_.hints = Scheduler::Hints::hints(kernel);
        if (haws_.hints.hint.size() != kernel.code.size())
            throw Error("HAWS: the hint source gave " + std::to_string(haws_.hints.hint.size()) + " hints for kernel '" +
                        kernel.name + "' of " + std::to_string(kernel.code.size()) + " instructions");
        haws_.kernel = &kernel;
        haws_.kernel_code_size = kernel.code.size();
        haws_.kernel_name = kernel.name;
        haws_.copies.clear();
    }

    // In hint mode, or while in-order fetch drains the window, fetch belongs to the hint-mode logic.
    bool haws_owns_fetch(unsigned w) const {
        const auto& hw = haws_warp(w);
        return hw.hint_mode || !hw.window.empty();
    }
    bool haws_can_fetch(unsigned w) const {
        const WarpState& ws = warps_[w];
        const auto& hw = haws_warp(w);
        // Sec. 5.3.3: one hinted instruction at a time; a full RCU stops hint-mode issue.
        if (hw.hint_mode) return ws.ib_count == 0 && hw.next_offset != 0 && !hw.rcu.full();
        return !ws.fetch_blocked && !ws.at_barrier && ws.ib_count < Frontend::ibuffer_entries;
    }
    timing::IssueOutcome haws_empty_blocker(unsigned w) const {
        const WarpState& ws = warps_[w];
        if (haws_warp(w).hint_mode) return timing::IssueOutcome::raw_long_latency; // the warp waits on its stall point
        return ws.fetch_blocked ? timing::IssueOutcome::raw_other : timing::IssueOutcome::ibuffer_empty;
    }
    void haws_fetch(unsigned w) {
        if (haws_warp(w).hint_mode) haws_fetch_hinted(w);
        else haws_fetch_window(w);
    }

    // The stall point still waits on its long-latency load (the scoreboard's long-latency flag, Sec. 5.3.3).
    bool haws_stall_waiting(unsigned w) const {
        return hazard(w, *records_[haws_warp(w).stall_record].result.instruction) == Hazard::raw_long;
    }
    // RAW check of a hinted instruction: the scoreboard and the earlier RCU entries (Sec. 5.3.3), sources read
    // through the rename tables. Not issuable at all once the stall point's load is back (the warp returns).
    Hazard haws_hazard(unsigned w, const InFlight& rec) const {
        const auto& hw = haws_warp(w);
        if (!haws_stall_waiting(w)) return Hazard::raw_other;
        const ir::Instruction& inst = *rec.result.instruction;
        const std::uint64_t* p = pending_of(w);
        const std::uint64_t* l = long_of(w);
        Hazard h = Hazard::none;
        for (unsigned k = 0; k < inst.num_uses; ++k) {
            const ir::RegId r = haws_lookup(hw, inst.uses[k]);
            if (test_bit(p, r) || hw.rcu.pending_write(r)) {
                if (test_bit(l, r)) return Hazard::raw_long;
                h = Hazard::raw_other;
            }
        }
        for (unsigned k = 0; k < inst.num_defs; ++k) {
            const ir::RegId r = def_register(rec, k);
            if (test_bit(p, r)) return test_bit(l, r) ? Hazard::raw_long : Hazard::raw_other;
        }
        return h;
    }
    template <class HW>
    ir::RegId haws_lookup(const HW& hw, ir::RegId r) const {
        return r < is_predicate_.size() && is_predicate_[r] ? hw.scalar_renames.lookup(r) : hw.vector_renames.lookup(r);
    }

    // Start of the fetch stage: warps enter and leave hint mode.
    void haws_transitions() {
        for (unsigned w = 0; w < warps_.size(); ++w) {
            if (!warps_[w].occupied) continue;
            if (haws_warp(w).hint_mode) haws_maybe_return(w);
            else haws_maybe_enter(w);
        }
    }
    void haws_maybe_enter(unsigned w) {
        WarpState& ws = warps_[w];
        if (ws.ib_count == 0 || ws.at_barrier) return;
        const std::uint32_t r = ws.ibuffer[ws.ib_head];
        const InFlight& rec = records_[r];
        if (rec.haws.copy || head_hazard(w) != Hazard::raw_long) return;
        // A register copy of the previous episode still waiting behind the stall point: that episode is not over.
        for (unsigned k = 1; k < ws.ib_count; ++k)
            if (records_[ws.ibuffer[(ws.ib_head + k) % ws.ibuffer.size()]].haws.copy) return;
        auto& hw = haws_warp(w);
        // One episode per dynamic stall point, and only once the previous episode's results were all consumed.
        if (token_of(rec) == hw.stall_token || !hw.rcu.empty()) return;
        // HawsEntry::failed_issue (Sec. 5.2): the flag is set only by this cycle's failed issue attempt.
        if constexpr (Scheduler::enter_on_failed_issue)
            if (hw.failed_issue_at != now_) return;
        const ir::Pc pc = rec.result.pc;
        const std::uint16_t first = Scheduler::next_offset(haws_.hints.hint[pc], pc, rec.result.next_pc);
        if (first == 0 || first >= Scheduler::window_limit) {
            // A long-latency stall with nothing to run: the thesis's switches include these (Fig. 5.13).
            hw.stall_token = token_of(rec);
            ++haws_stats(w).stalls_without_chain;
            return;
        }
        if constexpr (Scheduler::trigger_all_stalled) {
            const unsigned s = ws.scheduler;
            for (unsigned i = 0; i < pool_size(s); ++i) {
                const unsigned v = slot_of(s, i);
                if (warps_[v].occupied && !haws_warp(v).hint_mode &&
                    blocker(v) != timing::IssueOutcome::raw_long_latency)
                    return;
            }
        }
        auto& st = haws_stats(w);
        hw.stall_token = token_of(rec);
        if (!hw.stack_copy.take(ctas_[ws.cta_slot].state->warps[ws.warp_in_cta].stack)) {
            ++st.simt_copy_overflows;
            return;
        }
        st.simt_entries_copied += hw.stack_copy.size();
        // The fetch buffer's instructions (the stall point first) go back to the window, in program order.
        for (unsigned k = ws.ib_count; k-- > 0;) {
            const std::uint32_t q = ws.ibuffer[(ws.ib_head + k) % ws.ibuffer.size()];
            typename Scheduler::WindowEntry e;
            e.record = q;
            e.pc = records_[q].result.pc;
            hw.window.push_front(e);
            if (records_[q].result.warp_finished) {
                ws.functional_done = false;
                hw.window_done = true;
            }
        }
        ws.ib_count = 0;
        ws.ib_head = 0;
        ws.fetch_blocked = false; // a control instruction that was in the buffer is no longer fetched
        ws.head_hazard = hazard_unknown;
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
    void haws_maybe_return(unsigned w) {
        WarpState& ws = warps_[w];
        auto& hw = haws_warp(w);
        auto& st = haws_stats(w);
        const bool staged = ws.ib_count > 0;
        if (!haws_stall_waiting(w)) {
            // Sec. 5.3.4 / Fig. 5.3 Exp. 2: the flag cleared; flush the fetch buffer, re-fetch the stall point.
            ++st.returns_on_flag;
            if (staged) {
                haws_unstage(w);
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
        ws.head_hazard = hazard_unknown;
        schedulers_[ws.scheduler].end_episode(ws.pool_index, hw);
    }
    // Puts the staged (fetched, not issued) hinted instruction back into the window.
    void haws_unstage(unsigned w) {
        WarpState& ws = warps_[w];
        auto& hw = haws_warp(w);
        const std::uint32_t r = ws.ibuffer[ws.ib_head];
        InFlight& rec = records_[r];
        for (auto& e : hw.window)
            if (e.staged && e.record == r) e.staged = false;
        prepare_record(w, rec); // back to its in-order view (sources not renamed)
        ws.ib_count = 0;
        ws.ib_head = 0;
        ws.head_hazard = hazard_unknown;
    }

    // Steps warp w's functional engine one instruction ahead into its window. False when it cannot (barrier, exit,
    // window limit): the functional engine cannot run past a CTA barrier before every warp arrives.
    bool haws_run_ahead(unsigned w) {
        WarpState& ws = warps_[w];
        CtaSlot& cta = ctas_[ws.cta_slot];
        auto& hw = haws_warp(w);
        if (hw.window_done || hw.window.size() >= Scheduler::window_limit) return false;
        if (cta.state->warp_waiting(ws.warp_in_cta) || cta.state->warp_finished(ws.warp_in_cta)) return false;
        const std::uint32_t r = allocate_record();
        InFlight& rec = records_[r];
        execution_->step(*cta.state, ws.warp_in_cta, rec.result);
        prepare_record(w, rec);
        note_async_fetch(w, rec);
        ++ws.in_flight;
        ++haws_stats(w).run_ahead_steps;
        if (rec.result.warp_finished) hw.window_done = true;
        typename Scheduler::WindowEntry e;
        e.record = r;
        e.pc = rec.result.pc;
        hw.window.push_back(e);
        return true;
    }

    // Hint-mode fetch: the next chain instruction, and only it (Sec. 5.3.3).
    void haws_fetch_hinted(unsigned w) {
        WarpState& ws = warps_[w];
        auto& hw = haws_warp(w);
        auto& st = haws_stats(w);
        const ir::Pc target = hw.stall_pc + hw.next_offset;
        std::size_t idx = hw.scan_from;
        for (;; ++idx) {
            if (idx == hw.window.size() && !haws_run_ahead(w)) {
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
        typename Scheduler::WindowEntry& e = hw.window[idx];
        InFlight& rec = records_[e.record];
        const auto& h = haws_.hints.hint[target];
        const ir::RegId renamed = Scheduler::rename_target(h);
        if (!haws_chain_member_ok(w, idx, rec, renamed)) {
            hw.next_offset = 0;
            ++st.chain_guard_stops;
            return;
        }
        rec.haws.hinted = true;
        rec.haws.offset = hw.next_offset;
        rec.haws.episode = hw.episode;
        rec.haws.renamed_to = renamed;
        for (unsigned j = 0; j < rec.source_count; ++j) rec.sources[j] = haws_lookup(hw, rec.sources[j]);
        e.staged = true;
        ws.ib_head = 0;
        ws.ibuffer[0] = e.record;
        ws.ib_count = 1;
        ws.head_hazard = hazard_unknown;
        hw.scan_from = idx + 1;
        hw.last_offset = hw.next_offset;
        const std::uint16_t next = Scheduler::next_offset(h, target, rec.result.next_pc);
        // Offsets strictly increase along a chain and fit the RCU's 9-bit offset field (Sec. 5.3.3).
        hw.next_offset = next > hw.last_offset && next < Scheduler::window_limit ? next : 0;
    }
    // A chain instruction must not depend on, nor (unless renamed) overwrite what is read or written by, an
    // instruction hint mode skips; and never be a barrier or exit. The hint pass guarantees this; the check keeps a
    // wrong hint from reordering dependent instructions (the chain is cut instead).
    bool haws_chain_member_ok(unsigned w, std::size_t idx, const InFlight& rec, ir::RegId renamed) const {
        const auto& hw = haws_warp(w);
        const ir::Instruction& inst = *rec.result.instruction;
        if (inst.op_class == ir::OpClass::barrier || inst.op_class == ir::OpClass::control ||
            inst.op_class == ir::OpClass::system)
            return false;
        if (renamed != ir::no_reg && (inst.num_defs != 1 || renamed < execution_->kernel().registers.size()))
            return false;
        for (std::size_t j = 0; j < idx; ++j) {
            const auto& s = hw.window[j];
            if (s.hint_issued || s.staged) continue;
            const ir::Instruction& o = *records_[s.record].result.instruction;
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

    // After every issue: statistics, and for a hinted instruction its RCU entry and rename mapping (Sec. 5.3.3).
    void haws_after_issue(unsigned w, InFlight& rec) {
        auto& sched = schedulers_[warps_[w].scheduler];
        auto& st = sched.stats();
        const bool alu = !rec.is_memory && !rec.is_control;
        if (alu) ++st.total_alu;
        if (rec.long_latency) ++st.total_memory;
        if (!rec.haws.hinted) {
            sched.record_issue(warps_[w].pool_index, rec.result.pc, now_, Scheduler::IssueEvent::Kind::in_order);
            return;
        }
        auto& hw = haws_warp(w);
        const ir::Instruction& inst = *rec.result.instruction;
        const ir::RegId dst = inst.num_defs > 0 ? inst.defs[0] : ir::no_reg;
        const ir::RegId renamed = rec.haws.renamed_to != ir::no_reg ? rec.haws.renamed_to : dst;
        if (!hw.rcu.insert(rec.haws.offset, dst, renamed, rec.is_control))
            throw Error("HAWS: a hinted instruction issued with its RCU full or its offset taken (internal error)");
        if (renamed != dst) {
            auto& table = is_predicate_[dst] ? hw.scalar_renames : hw.vector_renames;
            if (!table.map(dst, renamed)) throw Error("HAWS: rename table full (internal error: it is RCU-sized)");
        }
        for (auto& e : hw.window)
            if (e.staged && e.record == rec.index) {
                e.staged = false;
                e.hint_issued = true;
                e.record = Scheduler::WindowEntry::no_record; // the record now belongs to the pipeline
                e.dst = dst;
                e.renamed = renamed;
                e.executed = rec.result.executed;
                e.active_lanes = rec.active_lanes;
            }
        ++hw.episode_issued;
        ++st.hint_issued;
        if (alu) ++st.hint_alu;
        if (rec.long_latency) ++st.hint_memory;
        sched.record_issue(warps_[w].pool_index, rec.result.pc, now_, Scheduler::IssueEvent::Kind::hinted);
    }
    // A hinted instruction's result is written: its RCU entry becomes ready (if its episode's RCU still holds it).
    void haws_on_retire(const InFlight& rec) {
        if (!rec.haws.hinted) return;
        auto& hw = haws_warp(rec.warp);
        if (hw.episode == rec.haws.episode) hw.rcu.mark_ready(rec.haws.offset);
    }

    // In-order fetch after hint mode: the window in program order (Fig. 5.8).
    void haws_fetch_window(unsigned w) {
        WarpState& ws = warps_[w];
        auto& hw = haws_warp(w);
        auto& st = haws_stats(w);
        unsigned fetched = 0;
        while (fetched < Frontend::fetch_per_warp && ws.ib_count < Frontend::ibuffer_entries && !hw.window.empty()) {
            const typename Scheduler::WindowEntry e = hw.window.front();
            if (e.hint_issued) {
                // Fig. 5.8: the pc matches the RCU head; results in the original register are skipped, renamed
                // ones are copied back by an instruction that bypasses execution.
                const auto* head = hw.rcu.head();
                if (head == nullptr || head->offset != e.pc - hw.stall_pc)
                    throw Error("HAWS: in-order fetch met a hint-issued instruction that is not the RCU head "
                                "(internal error)");
                hw.rcu.pop_head();
                hw.window.pop_front();
                if (e.renamed == e.dst) {
                    ++st.skipped;
                    continue;
                }
                haws_push_copy(w, e);
                ++st.copies;
                ++fetched;
                continue;
            }
            hw.window.pop_front();
            InFlight& rec = records_[e.record];
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
    const ir::Instruction& haws_copy_instruction(ir::RegId dst, ir::RegId renamed) {
        for (const ir::Instruction& c : haws_.copies)
            if (c.defs[0] == dst && c.uses[0] == renamed) return c;
        ir::Instruction c;
        c.op = ir::Opcode::mov;
        c.op_class = ir::OpClass::int_alu;
        c.type = execution_->kernel().registers[dst].type;
        c.num_defs = 1;
        c.defs[0] = dst;
        c.num_uses = 1;
        c.uses[0] = renamed;
        return haws_.copies.emplace_back(c);
    }
    void haws_push_copy(unsigned w, const HawsWindowEntry& e) {
        WarpState& ws = warps_[w];
        const std::uint32_t r = allocate_record();
        InFlight& rec = records_[r];
        func::StepResult& res = rec.result;
        res.pc = e.pc;
        res.instruction = &haws_copy_instruction(e.dst, e.renamed);
        res.active = res.executed = e.executed;
        res.is_branch = res.diverged = false;
        res.next_pc = e.pc + 1;
        res.is_memory = res.is_load = res.is_store = res.is_atomic = false;
        res.space = ir::StateSpace::none;
        res.access_bytes = 0;
        res.has_value = false;
        res.value_reg = ir::no_reg;
        res.warp_finished = res.barrier_wait = res.barrier_released = false;
        prepare_record(w, rec);
        rec.haws.copy = true;
        ws.push(r);
        ++ws.in_flight;
    }
    // Issue of a register copy: it takes the issue slot and the scoreboard, then goes straight to the register
    // file's write port (Sec. 5.3.4: "it will bypass the execution stage and update the register file").
    void haws_issue_copy(unsigned w) {
        WarpState& ws = warps_[w];
        InFlight& rec = records_[ws.pop_head()];
        set_bit(pending_of(w), rec.result.instruction->defs[0]);
        auto& sched = schedulers_[ws.scheduler];
        sched.record_issue(ws.pool_index, rec.result.pc, now_, Scheduler::IssueEvent::Kind::copy);
        complete(token_of(rec));
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
    [[no_unique_address]] HawsSm haws_{}; // hint mode: the bound kernel's hints (HAWS schedulers only)
    std::vector<Scheduler> schedulers_;
    std::vector<unsigned> fetch_next_;
    std::vector<WarpState> warps_;
    std::vector<CtaSlot> ctas_;
    // In-flight records keep their address for life (references are held across allocations). Each lives in its
    // own heap block behind an index vector: one load per access, where std::deque of these large records paid a
    // block computation on every access (15% of host time on Kepler sgemm_tiled, issue 4).
    class RecordStore {
    public:
        InFlight& operator[](std::size_t i) { return *items_[i]; }
        const InFlight& operator[](std::size_t i) const { return *items_[i]; }
        InFlight& emplace_back(unsigned width) { return *items_.emplace_back(std::make_unique<InFlight>(width)); }
        InFlight& back() { return *items_.back(); }
        std::size_t size() const { return items_.size(); }

    private:
        std::vector<std::unique_ptr<InFlight>> items_;
    };
    RecordStore records_;
    std::vector<std::uint32_t> free_records_;
    std::vector<std::uint64_t> pending_, pending_long_;
    std::vector<bool> is_predicate_; // per register of the bound kernel (predicates live outside the banks)
    std::size_t reg_words_ = 0;
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
        std::uint8_t gong = 3;
        std::array<timing::IssueOutcome, Frontend::schedulers> outcome{};
    };
    QuietCycle quiet_;
    // Event-driven issue and fetch (see IssueMasks): per scheduler, per warp slot.
    // A Scheduler that declares `scan_every_cycle` keeps the full per-cycle scans of the issue and fetch stages (the
    // reference the event-driven stages are tested against, tests/pinned/quiet_cycles.cpp).
    static constexpr bool scans_every_cycle = requires { SchedulerT::scan_every_cycle; };
    static constexpr bool event_driven_issue = quiet_cycle_replay && max_pool <= 64 && !scans_every_cycle;
    static constexpr bool event_driven_fetch = !hint_assisted && max_pool <= 64 && !scans_every_cycle &&
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
    unsigned resident_ctas_ = 0, used_warps_ = 0, used_threads_ = 0, used_registers_ = 0, used_shared_ = 0;
    unsigned finished_ctas_ = 0;
    core::Cycle now_ = 0;
    Stats stats_;
};

} // namespace gpuarch
