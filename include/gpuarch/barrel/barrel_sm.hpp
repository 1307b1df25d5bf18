#pragma once
// barrel::BarrelSM<Frontend, Scheduler, RegisterFile, L1>: the strict barrel-processing GPU core of Narasiman et
// al. 2010 (Sec. 2.1), with large warps and dynamic sub-warping when the frontend's warps are wider than its SIMD
// lanes (Sec. 3.1). It offers gpuarch::SM's interface, so `GPU<BarrelSM<...>, N>` runs kernels unchanged.
//
// Pipeline (Sec. 2.1, Table 1, Sec. 6.3): fetch (1-wide: one (large) warp per cycle, chosen by the Scheduler),
// decode, then the back end's stages (Narasiman2010Core: register read, execute, execute, memory, writeback). Each
// stage holds one (sub-)warp; a stage passes its occupant on at the end of a cycle when the next stage is free, so
// a stall holds everything behind it (in-order).
//   * Strict barrel processing (Sec. 2.1): "once a warp is selected in the fetch stage, it cannot be selected
//     again until the warp completes execution"; there is no scoreboard. A warp fetched in cycle t can be fetched
//     again in cycle t + pipeline_depth at the earliest.
//   * Sub-warping (Sec. 3.1.1): in the decode cycle and every cycle after it, the decode stage forms one sub-warp
//     of the large warp from its copy of the active mask (Frontend::Former) and passes it to register read. While
//     bits remain in the copy the decode stage keeps the warp and the fetch stage stalls ("a stall signal is sent
//     to the fetch stage"): fetch selects a warp only in a cycle at whose end decode takes it, so the Scheduler
//     chooses when the warp really moves on (what makes TwoLevel<2> over large warps differ from round-robin).
//     A large warp is fetchable again only when *all* its sub-warps completed (Sec. 3.1.1,
//     "Barrel Processing in the Large Warp Microarchitecture").
//   * Branches (Sec. 3.1.1): execution-driven, the functional engine resolves a branch and updates the large
//     warp's PDOM stack when the warp is fetched. The timing consequence the paper describes is modelled: the
//     taken / not-taken threads of each sub-warp are buffered as the sub-warp completes, and only after the last
//     sub-warp does the warp become fetchable again; the buffered masks are checked against the functional
//     outcome (divergence decided on the whole large warp).
//   * Memory (Sec. 2.2): the memory stage hands the sub-warp's access to the L1 in the cycle it enters it; the
//     single-ported D-cache serves one line per cycle, so an access of k lines holds the stage k cycles
//     ("serialized resulting in stalls in the pipeline"). A sub-warp that missed ("the entire warp stalls and is
//     put aside") leaves the pipeline and completes when its data returns; its warp stays unfetchable until then.
//     Stores complete when their last line leaves the memory stage; global atomics wait for their response.
//     Thread-private data (.local, and the .param frames of calls) lives in the on-chip private memory of Table 1
//     ("128KB, 32-banked private memory (128 bytes per thread)", one bank per lane, Sec. 2.2) when the kernel's
//     per-thread .local frame fits: one cycle in the memory stage, no L1 access. A larger frame goes through the L1.
//   * Register file (Fig. 6): read once per sub-warp in the register-read stage (RegisterFile::read returns the
//     cycles), written at writeback (or when put-aside data returns).
//
// Statistics (visit_stats): FU-utilization histogram (cycles with k active lanes in the first execute stage,
// k = 0..simd_width; Fig. 1/10), retired sub-warps and their active threads (Table 2's average active threads per
// retired warp), sub-warps per large-warp instruction, fetch stalls from sub-warping vs from a stalled back end,
// jump-optimization cycles saved, row-wise sub-warps, deferred and divergent branches, sub-warps put aside; the
// Scheduler's own statistics (TwoLevel: fetch-group switches on stalls vs premature) nest under "sched".
//
// Contract: deterministic; zero virtual dispatch; functional results are those of func:: at the frontend's warp
// width (the same on every variant).
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <boost/mp11/list.hpp>

#include <gpuarch/barrel/concepts.hpp>
#include <gpuarch/core/cycle.hpp>
#include <gpuarch/core/error.hpp>
#include <gpuarch/core/lane_mask.hpp>
#include <gpuarch/core/stats.hpp>
#include <gpuarch/frontend/large_warp.hpp>
#include <gpuarch/func/kernel_execution.hpp>
#include <gpuarch/ir/module.hpp>
#include <gpuarch/ir/op_class.hpp>
#include <gpuarch/mem/access.hpp>
#include <gpuarch/mem/queue.hpp>
#include <gpuarch/pipeline/cta_table.hpp>
#include <gpuarch/regfile/per_lane_banked_rf.hpp>
#include <gpuarch/timing/concepts.hpp>
#include <gpuarch/timing/cta_shape.hpp>
#include <gpuarch/timing/detail/record_pool.hpp>

namespace gpuarch::barrel {

template <class FrontendT, class SchedulerT, class RegisterFileT, class L1T> class BarrelSM {
    static_assert(check_frontend<FrontendT>());
    static_assert(timing::check_scheduler<SchedulerT>());
    static_assert(check_register_file<RegisterFileT>());
    static_assert(timing::check_l1<L1T>());

public:
    using Frontend = FrontendT;
    using Scheduler = SchedulerT;
    using RegisterFile = RegisterFileT;
    using L1 = L1T;
    using component_types = boost::mp11::mp_list<Frontend, Scheduler, RegisterFile, L1>;
    static constexpr unsigned warp_width = Frontend::warp_width;
    static constexpr unsigned simd_width = Frontend::simd_width;
    static constexpr unsigned rows = Frontend::rows;

    // "LWM256/TwoLevel<2>/PerLaneBankedRF/L1<...>": the variant's label in tables.
    static std::string variant_name() {
        std::string n(Frontend::name);
        for (std::string_view part :
             {std::string_view(Scheduler::name), std::string_view(RegisterFile::name), std::string_view(L1::name)})
            (n += '/') += part;
        return n;
    }

    BarrelSM(std::uint32_t sm_id, const typename L1::Config& l1_config)
        : id_(sm_id),
          rf_(regfile::LaneBankConfig{simd_width, Frontend::max_warps, rows, Frontend::register_file_bytes}),
          l1_(l1_config, sm_id), scheduler_(timing::SchedulerConfig{Frontend::max_warps, 0}),
          ready_(Frontend::max_warps, 0), fu_lanes_(simd_width + 1), subwarps_per_instruction_(rows + 1) {
        warps_.reserve(Frontend::max_warps);
        for (unsigned w = 0; w < Frontend::max_warps; ++w) warps_.emplace_back(warp_width);
        backend_.fill(none);
    }
    BarrelSM(const BarrelSM&) = delete;
    BarrelSM& operator=(const BarrelSM&) = delete;

    std::uint32_t id() const { return id_; }
    L1& l1() { return l1_; }
    const L1& l1() const { return l1_; }
    const RegisterFile& register_file() const { return rf_; }
    const Scheduler& scheduler() const { return scheduler_; }

    // Binds a kernel launch; called before the first CTA of that launch arrives.
    void bind(func::KernelExecution& execution, const CtaShape& shape) {
        if (execution.warp_width() != warp_width)
            throw Error("a " + std::string(Frontend::name) + " core executes " + std::to_string(warp_width) +
                        "-thread warps, but the launch was prepared for " + std::to_string(execution.warp_width()));
        execution_ = &execution;
        shape_ = shape;
        // The per-thread .local frame (what ptxas reports as local memory); the .param slots of inlined calls are
        // thread-private too but live in registers once ptxas has compiled the calls, so they do not count.
        local_frame_bytes_ = 0;
        for (const ir::Symbol& symbol : execution.kernel().symbols)
            if (symbol.space == ir::StateSpace::local) local_frame_bytes_ += symbol.size_bytes;
    }

    // Occupancy: threads, (large) warps, CTAs, registers and shared memory per core.
    bool can_accept_cta() const { return ctas_.can_accept(shape_); }
    static unsigned max_resident_ctas(const CtaShape& s) {
        return timing::detail::Occupancy<Frontend>::max_resident(s);
    }

    // Starts CTA `linear_cta` on this core. Precondition: can_accept_cta().
    void start_cta(std::uint64_t linear_cta, std::uint64_t launch_age) {
        const unsigned slot = ctas_.open(*execution_, linear_cta, id_);
        CtaSlot& cta = ctas_[slot];
        unsigned w = 0;
        for (unsigned k = 0; k < cta.live_warps; ++k) {
            // A CTA's warps take consecutive free slots, so a fetch group (consecutive slots) holds neighbours.
            while (warps_[w].occupied) ++w;
            WarpState& ws = warps_[w];
            ws.reset();
            ws.occupied = true;
            ws.cta_slot = slot;
            ws.warp_in_cta = k;
            ws.age = launch_age * 4096 + k;
            cta.warp_slots.push_back(w);
            scheduler_.on_warp_start(w);
            if (cta.state->warp_finished(k)) ws.functional_done = true;
        }
        ctas_.admit(shape_);
        for (unsigned warp_slot : cta.warp_slots) maybe_finish_warp(warp_slot);
    }

    bool idle() const { return ctas_.resident() == 0; }
    unsigned resident_ctas() const { return ctas_.resident(); }
    unsigned take_finished_ctas() { return ctas_.take_finished(); }

    // One core cycle. `down` is this core's port into the interconnect.
    void cycle(core::Cycle now, mem::Downstream& down) {
        now_ = now;
        // Data for sub-warps that were put aside has returned: they complete (write back) now.
        l1_.drain_completed([this](const mem::Completion& c) { on_memory_complete(c); });
        // The memory stage's sub-warp accesses the D-cache in this cycle (single-cycle, Table 1).
        memory_stage_access();
        l1_.cycle(now, down);
        l1_.drain_issued([this](const mem::Completion& c) { on_memory_issued(c); });
        if (backend_[Frontend::register_read_stage] != none) {
            Record& rec = records_[backend_[Frontend::register_read_stage]];
            if (rec.read_left > 0) --rec.read_left;
        }
        form_subwarp();
        compute_ready();
        if (ctas_.resident() > 0) {
            ++stats_.active_cycles;
            count_fu_lanes();
        }
        advance();
        fetch();
        ++stats_.cycles;
    }

    void receive(const mem::MemPacket& packet, core::Cycle now) { l1_.receive(packet, now); }

    template <class V> void visit_stats(V& v) const {
        v.counter("cycles", stats_.cycles, "core cycles simulated");
        v.counter("active_cycles", stats_.active_cycles, "cycles with at least one resident CTA");
        v.counter("warp_instructions", stats_.subwarps, "(sub-)warps issued into the SIMD back end");
        v.counter("thread_instructions", stats_.thread_instructions, "thread instructions (active threads) executed");
        v.counter("large_warp_instructions", stats_.fetched, "instructions fetched (one per (large) warp instruction)");
        v.counter("retired_subwarps", stats_.retired_subwarps, "(sub-)warps that completed");
        v.counter("retired_active_lanes", stats_.retired_lanes,
                  "active lanes of completed (sub-)warps (/ retired_subwarps = Table 2's active threads per warp)");
        v.histogram("fu_active_lanes", fu_lanes_.buckets(),
                    "bucket k: active cycles with k lanes starting work in the execute stage (Fig. 1/10)");
        v.histogram("subwarps_per_instruction", subwarps_per_instruction_.buckets(),
                    "bucket k: (large) warp instructions cut into k sub-warps");
        v.counter("fetch.idle_cycles", stats_.fetch_idle, "active cycles no warp was ready to fetch");
        v.counter("fetch.subwarping_stall_cycles", stats_.fetch_subwarping_stall,
                  "cycles the sub-warping logic's stall signal kept fetch from fetching (Sec. 3.1.1)");
        v.counter("fetch.backend_stall_cycles", stats_.fetch_backend_stall,
                  "cycles a warp was ready but a stalled back end kept decode busy");
        v.counter("jump.single_subwarp", stats_.jumps, "unconditional jumps sent as one sub-warp (Sec. 3.1.2)");
        v.counter("jump.cycles_saved", stats_.jump_cycles_saved,
                  "sub-warping cycles the jump optimization saved (packed sub-warps - 1, per jump)");
        v.counter("row_wise.instructions", stats_.row_wise, "global-memory instructions cut row-wise (Sec. 3.1.2)");
        v.counter("row_wise.extra_subwarps", stats_.row_wise_extra,
                  "sub-warps row-wise cutting made beyond what packing would have made");
        v.counter("branches", stats_.branches, "branch instructions");
        v.counter("branches.deferred", stats_.deferred_branches,
                  "branches resolved over several sub-warps (outcome buffered until the last, Sec. 3.1.1)");
        v.counter("branches.divergent", stats_.divergent_branches, "branches whose (large) warp diverged");
        v.counter("memory.subwarps", stats_.memory_subwarps, "memory (sub-)warps that accessed the L1");
        v.counter("memory.put_aside", stats_.aside, "memory (sub-)warps that missed and left the pipeline (Sec. 2.2)");
        v.counter("memory.private_accesses", stats_.private_accesses,
                  "(sub-)warp accesses served by the on-chip private memory (Table 1)");
        v.counter("memory.stage_stall_cycles", stats_.memory_stall,
                  "cycles the memory stage held its sub-warp (multi-line accesses, a busy LSU)");
        v.counter("ctas", stats_.ctas, "CTAs completed");
        v.nested("rf", rf_);
        v.nested("l1", l1_);
        if constexpr (requires(V & vv) { scheduler_.visit_stats(vv); }) v.nested("sched", scheduler_);
    }

    // Where the lowest occupied, unfinished warp slot stands (CTA, thread, PC, PTX line), for a report that stops
    // a running launch (GPU::launch's max_cycles and livelock limits); nullopt when no warp is running. The same
    // contract as SM::running_site.
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

    // A human-readable snapshot of every resident warp (for deadlock reports).
    std::string describe_state() const {
        std::string out = "barrel core " + std::to_string(id_) + ": " + std::to_string(ctas_.resident()) +
                          " CTAs, LSU " + std::string(mem::to_string(l1_.lsu_state())) +
                          (l1_.can_accept() ? "" : " (full)") + ", decode " +
                          (decode_.busy ? "warp " + std::to_string(decode_.warp) : std::string("empty")) + "\n";
        for (unsigned w = 0; w < warps_.size(); ++w) {
            const WarpState& ws = warps_[w];
            if (!ws.occupied) continue;
            out += "  warp " + std::to_string(w) + " (CTA slot " + std::to_string(ws.cta_slot) + " warp " +
                   std::to_string(ws.warp_in_cta) + "): " + (ws.in_pipeline ? "in pipeline" : "fetchable") +
                   ", sub-warps outstanding " + std::to_string(ws.outstanding) + ", put aside " +
                   std::to_string(ws.aside) + (ws.at_barrier ? ", at barrier" : "") +
                   (ws.functional_done ? ", done fetching" : "");
            if (ws.result.instruction != nullptr)
                out += ", last pc " + std::to_string(ws.result.pc) + " (PTX line " +
                       std::to_string(ws.result.instruction->line) + ")";
            out += "\n";
        }
        return out;
    }

    std::uint64_t cycles() const { return stats_.cycles; }
    std::uint64_t warp_instructions() const { return stats_.subwarps; }
    std::uint64_t thread_instructions() const { return stats_.thread_instructions; }

private:
    static constexpr std::uint32_t none = ~std::uint32_t{0};
    static constexpr unsigned rr_stage = Frontend::register_read_stage;
    static constexpr unsigned ex_stage = Frontend::execute_stage;
    static constexpr unsigned mem_stage = Frontend::memory_stage;
    static constexpr unsigned wb_stage = Frontend::writeback_stage;
    using Former = typename Frontend::Former;
    using SubWarpT = frontend::SubWarp<simd_width>;

    struct WarpState {
        explicit WarpState(unsigned width) : result(width) {}
        void reset() {
            occupied = functional_done = at_barrier = in_pipeline = forming_done = false;
            cta_slot = warp_in_cta = 0;
            age = 0;
            outstanding = aside = subwarps = 0;
            result.instruction = nullptr;
            covered = taken_seen = not_taken_seen = core::WarpMask{};
        }
        bool occupied = false;
        bool functional_done = false; // its last instruction has been fetched
        bool at_barrier = false;
        bool in_pipeline = false; // fetched and not all sub-warps completed (not fetchable: barrel)
        bool forming_done = false; // decode has formed the last sub-warp of the current instruction
        unsigned cta_slot = 0, warp_in_cta = 0;
        std::uint64_t age = 0;
        unsigned outstanding = 0; // sub-warps formed and not completed
        unsigned aside = 0; // of those, put aside waiting for memory
        unsigned subwarps = 0; // sub-warps formed for the current instruction
        func::StepResult result; // the one instruction in flight
        ir::StateSpace space = ir::StateSpace::none; // its memory space (generic resolved by the first lane)
        // Threads of the current instruction whose sub-warp completed, and the temporary active-mask buffers of a
        // branch (Sec. 3.1.1): taken and not-taken threads so far.
        core::WarpMask covered, taken_seen, not_taken_seen;
    };

    using CtaTable = pipeline::CtaTable<Frontend>;
    using CtaSlot = typename CtaTable::Slot;

    // One sub-warp travelling through the back end.
    struct Record {
        std::uint32_t index = 0;
        std::uint32_t generation = 0; // the L1 token is (generation << 32) | index: a late completion for a
            // record already reused is ignored
        bool alive = false;
        std::uint32_t warp = 0;
        SubWarpT sw;
        std::array<std::uint16_t, simd_width> rows{}; // row per lane, no_row for idle lanes (register file)
        unsigned active_lanes = 0; // lanes whose thread executes (guard true)
        bool is_memory = false, sent = false, memory_done = false, needs_aside = false, data_back = false;
        bool aside = false, counted_ex = false;
        unsigned read_left = 0; // register-read cycles still needed
    };

    struct DecodeStage {
        bool busy = false;
        std::uint32_t warp = 0;
        Former former;
        std::uint32_t formed = none; // the sub-warp formed this cycle, waiting for the register-read stage
    };

    struct Stats {
        std::uint64_t cycles = 0, active_cycles = 0, subwarps = 0, thread_instructions = 0, fetched = 0;
        std::uint64_t retired_subwarps = 0, retired_lanes = 0;
        std::uint64_t fetch_idle = 0, fetch_subwarping_stall = 0, fetch_backend_stall = 0;
        std::uint64_t jumps = 0, jump_cycles_saved = 0, row_wise = 0, row_wise_extra = 0;
        std::uint64_t branches = 0, deferred_branches = 0, divergent_branches = 0;
        std::uint64_t memory_subwarps = 0, private_accesses = 0, aside = 0, memory_stall = 0, ctas = 0;
    };

    // What the scheduler sees: fetchability precomputed for this cycle. Pool slot i is warp slot i.
    struct PoolView {
        const BarrelSM* sm;
        unsigned pool_size() const { return Frontend::max_warps; }
        bool occupied(unsigned i) const { return sm->warps_[i].occupied; }
        bool ready(unsigned i) const { return sm->ready_[i] != 0; }
        std::uint64_t age(unsigned i) const { return sm->warps_[i].age; }
        // Some sub-warp of it was put aside waiting for memory.
        bool long_latency_pending(unsigned i) const { return sm->warps_[i].occupied && sm->warps_[i].aside > 0; }
        unsigned warp_width() const { return BarrelSM::warp_width; }
        timing::L1View l1() const { return sm->l1_.view(); }
        core::Cycle now() const { return sm->now_; }
    };

    // ---------------------------------------------------------------------------------------------------
    // The record pool is SM's (timing/detail/record_pool.hpp): a late L1 completion for a reused record is ignored.
    std::uint32_t allocate_record() { return records_.allocate(); }
    static std::uint64_t token_of(const Record& rec) { return timing::detail::RecordPool<Record>::token_of(rec); }
    Record* record(std::uint64_t token) { return records_.find(token); }

    // ---------------------------------------------------------------------------------------------------
    // Which warps may be fetched this cycle (as the cycle began: a warp whose last sub-warp leaves writeback at
    // the end of this cycle is fetchable from the next).
    void compute_ready() {
        any_ready_ = false;
        for (unsigned w = 0; w < Frontend::max_warps; ++w) {
            ready_[w] = fetchable(w) ? 1 : 0;
            any_ready_ = any_ready_ || ready_[w] != 0;
        }
    }
    // Fetch: one warp per cycle (Table 1), only when decode takes it at the end of this cycle. While decode still
    // has bits in its copy of the active mask, the stall signal keeps fetch from selecting at all (Sec. 3.1.1), so
    // the scheduler chooses when the warp can really move on.
    void fetch() {
        if (decode_.busy) {
            if (decode_.former.busy()) ++stats_.fetch_subwarping_stall;
            else if (any_ready_) ++stats_.fetch_backend_stall;
            return;
        }
        if (!any_ready_) {
            if (ctas_.resident() > 0) ++stats_.fetch_idle;
            return;
        }
        const unsigned pick = scheduler_.select(PoolView{this});
        if (pick == timing::no_warp) return;
        if (pick >= Frontend::max_warps || ready_[pick] == 0)
            throw Error("scheduler " + std::string(Scheduler::name) + " picked warp slot " + std::to_string(pick) +
                        ", which cannot be fetched");
        fetch_warp(pick);
        scheduler_.on_issue(pick, now_);
        start_decode(pick);
    }
    bool fetchable(unsigned w) const {
        const WarpState& ws = warps_[w];
        if (!ws.occupied || ws.functional_done || ws.in_pipeline || ws.at_barrier) return false;
        return !ctas_[ws.cta_slot].state->warp_waiting(ws.warp_in_cta);
    }
    void fetch_warp(unsigned w) {
        WarpState& ws = warps_[w];
        CtaSlot& cta = ctas_[ws.cta_slot];
        execution_->step(*cta.state, ws.warp_in_cta, ws.result);
        ws.in_pipeline = true;
        ws.forming_done = false;
        ws.outstanding = ws.aside = ws.subwarps = 0;
        ws.covered = ws.taken_seen = ws.not_taken_seen = core::WarpMask{};
        ws.space = first_lane_space(ws.result);
        if (ws.result.warp_finished) ws.functional_done = true;
        if (ws.result.is_branch) ++stats_.branches;
        ++stats_.fetched;
    }
    static ir::StateSpace first_lane_space(const func::StepResult& r) {
        if (!r.is_memory || r.space != ir::StateSpace::generic) return r.space;
        const std::size_t lane = r.executed.find_first();
        return lane < r.lane_spaces.size() ? r.lane_spaces[lane] : ir::StateSpace::generic;
    }

    // Decode takes the fetched warp (at the end of the fetch cycle): the active mask is copied into the sub-warping
    // logic (Sec. 3.3).
    void start_decode(std::uint32_t w) {
        WarpState& ws = warps_[w];
        const func::StepResult& r = ws.result;
        const frontend::SubWarpMode mode = Frontend::mode_for(*r.instruction, ws.space);
        decode_.busy = true;
        decode_.warp = w;
        decode_.former.start_flat(r.active, mode);
        if (mode == frontend::SubWarpMode::single) {
            ++stats_.jumps;
            stats_.jump_cycles_saved += Former::count_flat(r.active, frontend::SubWarpMode::packed) - 1;
        } else if (mode == frontend::SubWarpMode::row_wise) {
            ++stats_.row_wise;
            stats_.row_wise_extra += Former::count_flat(r.active, frontend::SubWarpMode::row_wise) -
                                     Former::count_flat(r.active, frontend::SubWarpMode::packed);
        }
    }

    // Decode forms one sub-warp per cycle while bits remain in its copy of the active mask.
    void form_subwarp() {
        if (!decode_.busy || decode_.formed != none || !decode_.former.busy()) return;
        const std::uint32_t r = allocate_record();
        Record& rec = records_[r];
        WarpState& ws = warps_[decode_.warp];
        const func::StepResult& result = ws.result;
        rec.alive = true;
        rec.warp = decode_.warp;
        rec.sw = decode_.former.next();
        rec.rows.fill(RegisterFile::no_row);
        rec.active_lanes = 0;
        for (std::size_t lane : rec.sw.lanes.set_lanes()) {
            rec.rows[lane] = rec.sw.row[lane];
            if (result.executed.test(rec.sw.thread(lane))) ++rec.active_lanes;
        }
        rec.is_memory = result.is_memory;
        rec.sent = rec.memory_done = rec.needs_aside = rec.data_back = rec.aside = rec.counted_ex = false;
        rec.read_left = 0;
        ++ws.outstanding;
        ++ws.subwarps;
        if (!decode_.former.busy()) {
            ws.forming_done = true;
            subwarps_per_instruction_.add(ws.subwarps);
        }
        decode_.formed = r;
        ++stats_.subwarps;
        stats_.thread_instructions += rec.sw.whole_warp ? result.executed.popcount() : rec.active_lanes;
    }

    // The memory stage gives its sub-warp's access to the L1: the lanes of the sub-warp whose thread executes, with
    // that thread's address (a sub-warp is a SIMD-width access, whichever rows its threads came from).
    void memory_stage_access() {
        const std::uint32_t r = backend_[mem_stage];
        if (r == none) return;
        Record& rec = records_[r];
        if (!rec.is_memory || rec.sent) return;
        const WarpState& ws = warps_[rec.warp];
        const func::StepResult& result = ws.result;
        mem::WarpAccess access;
        access.warp = rec.warp;
        access.token = token_of(rec);
        access.pc = result.pc;
        access.space = result.space;
        const ir::Instruction& inst = *result.instruction;
        access.kind = inst.op == ir::Opcode::st                                     ? mem::WarpAccess::store
                      : (inst.op == ir::Opcode::atom || inst.op == ir::Opcode::red) ? mem::WarpAccess::atomic
                                                                                    : mem::WarpAccess::load;
        access.access_bytes = result.access_bytes;
        access.width = simd_width;
        access.prefetch = ir::prefetch_level(inst);
        access.coherent = ir::needs_coherent_load(inst);
        access.texture = inst.op_class == ir::OpClass::texture;
        bool first = true;
        for (std::size_t lane : rec.sw.lanes.set_lanes()) {
            const std::size_t t = rec.sw.thread(lane);
            if (!result.accessed.test(t)) continue; // executed, less a prefetch's no-op lanes
            access.active.set(lane);
            addresses_[lane] = result.addresses[t];
            if (result.space == ir::StateSpace::generic) {
                if (first) access.space = result.lane_spaces[t];
                else if (result.lane_spaces[t] != access.space)
                    throw Error("a generic access at PC " + std::to_string(result.pc) + " (PTX line " +
                                std::to_string(inst.line) +
                                ") reaches several state spaces within one sub-warp; the "
                                "barrel core times one space per sub-warp access");
            }
            first = false;
        }
        if (access.active.none()) { // every thread of this sub-warp has a false guard: nothing to access
            rec.sent = rec.memory_done = true;
            return;
        }
        if (in_private_memory(access)) {
            rec.sent = rec.memory_done = true;
            ++stats_.private_accesses;
            return;
        }
        if (!l1_.can_accept()) return;
        access.addresses = addresses_.data();
        l1_.accept(access, now_);
        rec.sent = true;
        ++stats_.memory_subwarps;
    }
    // Thread-private data of a kernel whose per-thread .local frame fits the private memory (Table 1): .local, and
    // the .param frames of calls (func::call_param_base and above).
    bool in_private_memory(const mem::WarpAccess& access) const {
        if (Frontend::private_memory_bytes_per_thread == 0 ||
            local_frame_bytes_ > Frontend::private_memory_bytes_per_thread)
            return false;
        if (access.space == ir::StateSpace::local) return true;
        if (access.space != ir::StateSpace::param) return false;
        bool frame = true;
        for (std::size_t lane : access.active.set_lanes()) frame = frame && addresses_[lane] >= func::call_param_base;
        return frame;
    }
    // Every access of a sub-warp has been served: a hit (or a store) moves on, a miss is put aside.
    void on_memory_issued(const mem::Completion& c) {
        Record* rec = record(c.token);
        if (rec == nullptr) return;
        rec->memory_done = true;
        rec->needs_aside = c.misses > 0 || (c.kind == mem::WarpAccess::atomic && c.space != ir::StateSpace::shared);
    }
    void on_memory_complete(const mem::Completion& c) {
        Record* rec = record(c.token);
        if (rec == nullptr) return; // a hit: its sub-warp went on through the pipeline and may have retired
        if (rec->aside) {
            retire(*rec);
            return;
        }
        rec->data_back = true; // the data came back before the sub-warp left the memory stage
    }

    // ---------------------------------------------------------------------------------------------------
    // FU utilization: the lanes of the sub-warp that starts work in the (first) execute stage this cycle.
    void count_fu_lanes() {
        unsigned lanes = 0;
        if (backend_[ex_stage] != none) {
            Record& rec = records_[backend_[ex_stage]];
            if (!rec.counted_ex) {
                rec.counted_ex = true;
                lanes = rec.active_lanes;
            }
        }
        fu_lanes_.add(lanes);
    }

    // End of the cycle: every stage passes its occupant on if the next stage is free, from the back.
    void advance() {
        if (backend_[wb_stage] != none) {
            const std::uint32_t r = backend_[wb_stage];
            backend_[wb_stage] = none;
            retire(records_[r]);
        }
        for (unsigned s = wb_stage; s-- > 0;) {
            const std::uint32_t r = backend_[s];
            if (r == none) continue;
            Record& rec = records_[r];
            if (s == rr_stage && rec.read_left > 0) continue;
            if (s == mem_stage && rec.is_memory) {
                if (!rec.memory_done) {
                    ++stats_.memory_stall;
                    continue;
                }
                if (rec.needs_aside && !rec.data_back) {
                    rec.aside = true;
                    ++warps_[rec.warp].aside;
                    ++stats_.aside;
                    backend_[s] = none;
                    continue;
                }
            }
            if (backend_[s + 1] != none) continue;
            backend_[s + 1] = r;
            backend_[s] = none;
        }
        if (decode_.formed != none && backend_[0] == none) {
            Record& rec = records_[decode_.formed];
            backend_[0] = decode_.formed;
            decode_.formed = none;
            rec.read_left = rf_.read(rec.warp, std::span<const std::uint16_t>(rec.rows),
                                     source_registers(*warps_[rec.warp].result.instruction));
        }
        if (decode_.busy && decode_.formed == none && !decode_.former.busy()) decode_.busy = false;
    }
    static unsigned source_registers(const ir::Instruction& inst) { return inst.num_uses; }

    // A sub-warp completes: results to the register file, its threads into the branch buffers.
    void retire(Record& rec) {
        WarpState& ws = warps_[rec.warp];
        const func::StepResult& result = ws.result;
        if (result.instruction->num_defs > 0)
            rf_.write(rec.warp, std::span<const std::uint16_t>(rec.rows), result.instruction->num_defs);
        core::WarpMask threads;
        if (rec.sw.whole_warp) {
            threads = result.active;
        } else {
            for (std::size_t lane : rec.sw.lanes.set_lanes()) threads.set(rec.sw.thread(lane));
        }
        if ((ws.covered & threads).any())
            throw Error("internal error: a thread of warp slot " + std::to_string(rec.warp) +
                        " was placed in two sub-warps of one instruction");
        ws.covered |= threads;
        if (result.is_branch) {
            ws.taken_seen |= threads & result.taken;
            ws.not_taken_seen |= threads & result.active & ~result.taken;
        }
        if (rec.aside) --ws.aside;
        --ws.outstanding;
        ++stats_.retired_subwarps;
        stats_.retired_lanes += rec.active_lanes;
        const unsigned w = rec.warp;
        records_.release(rec.index);
        if (ws.forming_done && ws.outstanding == 0) finish_instruction(w);
    }

    // The last sub-warp of an instruction completed: the (large) warp's PC and mask take effect (Sec. 3.1.1) and it
    // may be fetched again.
    void finish_instruction(unsigned w) {
        WarpState& ws = warps_[w];
        const func::StepResult& result = ws.result;
        if (ws.covered != result.active)
            throw Error("internal error: the sub-warps of warp slot " + std::to_string(w) + " at PC " +
                        std::to_string(result.pc) + " did not cover its active threads exactly once");
        if (result.is_branch) {
            const bool diverged = ws.taken_seen.any() && ws.not_taken_seen.any();
            if (diverged != result.diverged)
                throw Error("internal error: the buffered branch outcome of warp slot " + std::to_string(w) +
                            " disagrees with the functional engine");
            if (ws.subwarps > 1) ++stats_.deferred_branches;
            if (diverged) ++stats_.divergent_branches;
        }
        ws.in_pipeline = false;
        const ir::Instruction& inst = *result.instruction;
        if (inst.op == ir::Opcode::bar && inst.barrier != ir::BarrierMode::arrive && result.executed.any()) {
            ws.at_barrier = true;
            ctas_.arrive(ws.cta_slot, [this](unsigned released) { release_from_barrier(released); });
        }
        maybe_finish_warp(w);
    }
    void release_from_barrier(unsigned w) {
        if (warps_[w].occupied) warps_[w].at_barrier = false;
    }
    // Warp w leaves once it has fetched its last instruction and none of its sub-warps is in the pipeline.
    void maybe_finish_warp(unsigned w) {
        WarpState& ws = warps_[w];
        if (!ws.occupied || !ws.functional_done || ws.in_pipeline) return;
        ws.occupied = false;
        scheduler_.on_warp_exit(w);
        if (ctas_.warp_exited(ws.cta_slot, shape_, [this](unsigned released) { release_from_barrier(released); }))
            ++stats_.ctas;
    }

    // ---------------------------------------------------------------------------------------------------
    std::uint32_t id_;
    RegisterFile rf_;
    L1 l1_;
    Scheduler scheduler_;
    std::vector<WarpState> warps_;
    CtaTable ctas_; // CTA residency, barriers and occupancy, shared with SM
    std::vector<std::uint8_t> ready_;
    timing::detail::RecordPool<Record> records_;
    bool any_ready_ = false;
    DecodeStage decode_;
    std::array<std::uint32_t, Frontend::backend_stages> backend_{};
    std::array<std::uint64_t, simd_width> addresses_{};
    func::KernelExecution* execution_ = nullptr;
    CtaShape shape_{};
    std::uint64_t local_frame_bytes_ = 0;
    core::Cycle now_ = 0;
    Stats stats_;
    core::Histogram fu_lanes_;
    core::Histogram subwarps_per_instruction_;
};

} // namespace gpuarch::barrel
