#pragma once
// pipeline::WritebackStage<Core>: stages 1 and 2 of SM's cycle, completion and write-back (sm.hpp has the order).
//
// Contract. An execution unit or the L1 reports an instruction complete by its token; a token whose record has
// retired is ignored (RecordPool generations). A completing instruction resolves its control effect (fetch of its
// warp resumes; a barrier arrives at the CTA), writes its destinations through the register file, and once they
// are written releases them in the scoreboard and retires: the record returns to the pool and the warp may finish.
// cp.async groups hold a wait until every group it waits for has completed. The scheduler's optional memory hooks
// (timing/hooks.hpp: ObservesMemoryCompletion, ObservesMemoryIssue) are called from here.
#include <cstdint>

#include <gpuarch/ir/instruction.hpp>
#include <gpuarch/mem/access.hpp>
#include <gpuarch/pipeline/state.hpp>
#include <gpuarch/timing/hooks.hpp>
#include <gpuarch/timing/interfaces.hpp>

namespace gpuarch::pipeline {

template <class Core> class WritebackStage {
public:
    using Scheduler = typename Core::Scheduler;
    using InFlight = typename Core::InFlight;
    using WarpState = typename Core::WarpState;

    void on_exec_done(Core& sm, std::uint64_t token) {
        const InFlight* rec = sm.record(token);
        if (rec == nullptr || rec->is_memory) return; // memory instructions complete through the L1
        complete(sm, token);
    }

    void on_memory_done(Core& sm, std::uint64_t token) {
        sm.template reported_record<typename Core::L1>(token, "L1", "reported complete");
        complete(sm, token);
    }

    static timing::MemoryFeedback feedback(const mem::Completion& c, const InFlight& rec) {
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
    void notify_memory_feedback(Core& sm, const mem::Completion& c) {
        if constexpr (timing::ObservesMemoryCompletion<Scheduler>) {
            const InFlight* rec = sm.record(c.token);
            if (rec == nullptr) return;
            const WarpState& ws = sm.warps_[rec->warp];
            sm.schedulers_[ws.scheduler].on_memory_complete(ws.pool_index, feedback(c, *rec));
        }
    }

    // Every access of the instruction left the LSU (Wang 2016 Sec. 4.2: Miss_inflight drops when a load retires
    // from the memory pipeline): the scheduler's optional on_memory_issued.
    void notify_memory_issued(Core& sm, const mem::Completion& c) {
        if constexpr (timing::ObservesMemoryIssue<Scheduler>) {
            const InFlight* rec = sm.record(c.token);
            if (rec == nullptr) return;
            const WarpState& ws = sm.warps_[rec->warp];
            sm.schedulers_[ws.scheduler].on_memory_issued(ws.pool_index, feedback(c, *rec));
        }
    }

    // Result ready: write destinations (through the register file) or retire directly.
    void complete(Core& sm, std::uint64_t token) {
        InFlight& rec = *sm.record(token);
        const ir::Instruction& inst = *rec.result.instruction;
        if (rec.async_counted) { // a cp.async leaves its group; a wait holds until its groups are done
            rec.async_counted = false;
            if (inst.op == ir::Opcode::cp_async) {
                async_copy_done(sm, rec.warp, rec.async_group);
            } else if (!async_groups_done(sm, rec.warp, rec.async_group)) {
                WarpState& ws = sm.warps_[rec.warp];
                ws.async_waiting = true;
                ws.async_waiting_token = token;
                return;
            }
        }
        if (rec.is_control && Core::fetch_resolves_control(rec)) resolve_control(sm, rec);
        if (inst.num_defs == 0) {
            retire(sm, token);
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
                ir::size_bytes(sm.execution_->kernel().registers[rec.result.value_reg].type) > 4 ? 8 : 4);
        }
        for (unsigned k = 0; k < inst.num_defs && write.dest_count < write.dests.size(); ++k) {
            if (sm.is_predicate_[inst.defs[k]]) continue;
            write.dests[write.dest_count++] = Core::def_register(rec, k);
        }
        if (write.dest_count == 0) {
            on_written(sm, token);
            return;
        }
        sm.rf_.write(write, sm.now_);
    }

    void on_written(Core& sm, std::uint64_t token) {
        InFlight& rec =
            sm.template reported_record<typename Core::RegisterFile>(token, "register file", "reported written");
        const ir::Instruction& inst = *rec.result.instruction;
        WarpState& ws = sm.warps_[rec.warp];
        ws.head_hazard = Core::hazard_unknown;
        sm.touch(rec.warp);
        for (unsigned k = 0; k < inst.num_defs; ++k) {
            sm.scoreboard_.release(rec.warp, Core::def_register(rec, k), rec.long_latency);
            if (rec.long_latency) --ws.long_pending;
        }
        retire(sm, token);
    }

    void retire(Core& sm, std::uint64_t token) {
        InFlight& rec = *sm.record(token);
        const unsigned w = rec.warp;
        if constexpr (!Core::in_order_fetch) sm.fetch_mechanism_.on_retire(sm, rec);
        --sm.warps_[w].in_flight;
        sm.release_record(rec.index);
        sm.maybe_finish_warp(w);
    }

    void resolve_control(Core& sm, const InFlight& rec) {
        sm.warps_[rec.warp].fetch_blocked = false;
        sm.touch(rec.warp);
        const ir::Instruction& inst = *rec.result.instruction;
        if (inst.op == ir::Opcode::bar && inst.barrier != ir::BarrierMode::arrive) sm.arrive_at_barrier(rec.warp);
    }

    // Every group older than `threshold` has completed.
    bool async_groups_done(const Core& sm, unsigned w, std::uint32_t threshold) const {
        const WarpState& ws = sm.warps_[w];
        return ws.async_pending.empty() || ws.async_pending.front().first >= threshold;
    }

    // A cp.async of `group` completed: a parked wait whose groups are now complete completes too.
    void async_copy_done(Core& sm, unsigned w, std::uint32_t group) {
        WarpState& ws = sm.warps_[w];
        for (auto it = ws.async_pending.begin(); it != ws.async_pending.end(); ++it) {
            if (it->first != group) continue;
            if (--it->second == 0) ws.async_pending.erase(it);
            break;
        }
        if (!ws.async_waiting) return;
        const InFlight* wait = sm.record(ws.async_waiting_token);
        if (wait != nullptr && !async_groups_done(sm, w, wait->async_group)) return;
        ws.async_waiting = false;
        if (wait != nullptr) complete(sm, ws.async_waiting_token);
    }
};

} // namespace gpuarch::pipeline
