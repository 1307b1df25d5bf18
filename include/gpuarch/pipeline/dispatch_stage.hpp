#pragma once
// pipeline::DispatchStage<Core>: stage 3 of SM's cycle, operand collection and dispatch (sm.hpp has the order).
//
// Contract. An issued instruction holds a place in the pipeline register in front of its unit kind (one per unit
// the scheduler may use: reserve at issue, released at dispatch) while the register file reads its operands.
// Once read, it dispatches when the execution unit accepts it and, for a memory instruction, when the L1 accepts
// its warp access too; otherwise it waits and the register file offers it again next cycle.
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <gpuarch/ir/instruction.hpp>
#include <gpuarch/ir/op_class.hpp>
#include <gpuarch/mem/access.hpp>
#include <gpuarch/pipeline/state.hpp>
#include <gpuarch/timing/interfaces.hpp>

namespace gpuarch::pipeline {

template <class Core> class DispatchStage {
public:
    using Frontend = typename Core::Frontend;
    using InFlight = typename Core::InFlight;

    DispatchStage() {
        for (std::size_t k = 0; k < timing::unit_kind_count; ++k)
            for (unsigned s = 0; s < Frontend::schedulers; ++s) capacity_[k][s] = count_units(k);
    }
    // Scheduler s may issue one more instruction for units of `kind`.
    bool has_room(std::size_t kind, unsigned s) const { return pending_[kind][s] < capacity_[kind][s]; }
    // At issue: record `rec` of scheduler s takes its place in front of its unit kind, and the register file will
    // offer its token for dispatch.
    void reserve(const InFlight& rec, unsigned s) {
        ++pending_[Core::kind_index(rec.unit)][s];
        if (rec.index >= waiting_.size()) waiting_.resize(rec.index + 1);
        waiting_[rec.index] = Waiting{Core::token_of(rec), rec.unit, static_cast<std::uint8_t>(s), rec.is_memory, true};
        if (!rec.is_memory) ++non_memory_waiting_;
    }
    // Reserved instructions not yet dispatched that access no memory: these dispatch when their unit frees, whatever
    // the L1 does (the SM's stalled sleep needs none of them).
    unsigned non_memory_waiting() const { return non_memory_waiting_; }
    // Instructions of scheduler s waiting to dispatch to units of `kind` (the deadlock report shows them).
    unsigned pending(std::size_t kind, unsigned s) const { return pending_[kind][s]; }

    // Units of `kind` a scheduler may dispatch to: its private ones plus every shared one (under even
    // partitioning, its slice of each).
    static constexpr unsigned count_units(std::size_t kind) {
        unsigned n = 0;
        for (const auto& u : Frontend::units)
            if (static_cast<std::size_t>(u.kind) == kind) n += u.count;
        return n;
    }

    timing::OperandRead operand_read(const Core& sm, const InFlight& rec) const {
        timing::OperandRead read;
        read.token = Core::token_of(rec);
        read.warp = rec.warp;
        read.scheduler = sm.warps_[rec.warp].scheduler;
        read.instruction = rec.result.instruction;
        read.active = rec.result.executed;
        read.source_count = rec.source_count;
        read.sources = rec.sources;
        return read;
    }

    bool try_dispatch(Core& sm, std::uint64_t token) {
        // An instruction whose unit or L1 is busy is offered again every cycle until it dispatches: decided from
        // the compact copy of what reserve() saw, without a visit to its record (a cache miss per offer, 13% of
        // host time on memory-bound GTX480 runs). A token reserve() did not see, or one already dispatched, takes
        // the record's path, which stops the run on a stale token.
        const auto index = static_cast<std::uint32_t>(token);
        if (index < waiting_.size() && waiting_[index].live && waiting_[index].token == token) {
            const Waiting& w = waiting_[index];
            // Both are queries; the L1's, the one that mostly fails, goes first.
            if (w.is_memory && !sm.l1_.can_accept()) return false;
            if (!sm.exec_.can_dispatch(w.unit, w.scheduler, sm.now_)) return false;
        }
        return dispatch(sm, token, index);
    }

private:
    // try_dispatch's part past the refusals, out of line: most offers are refused, and with this inlined into it every
    // refusal saved and restored the registers the dispatch needs (separating them took 1.5% off the host
    // instructions of memory-bound GTX480 runs).
    [[gnu::noinline]] bool dispatch(Core& sm, std::uint64_t token, std::uint32_t index) {
        InFlight& rec =
            sm.template reported_record<typename Core::RegisterFile>(token, "register file", "offered for dispatch");
        const unsigned s = sm.warps_[rec.warp].scheduler;
        if (!sm.exec_.can_dispatch(rec.unit, s, sm.now_)) return false;
        if (rec.is_memory) {
            if (!sm.l1_.can_accept()) return false;
            const ir::Instruction& inst = *rec.result.instruction;
            mem::WarpAccess access;
            access.warp = rec.warp;
            access.token = token;
            access.pc = rec.result.pc;
            access.space = rec.space;
            access.kind = inst.op == ir::Opcode::st                                     ? mem::WarpAccess::store
                          : (inst.op == ir::Opcode::atom || inst.op == ir::Opcode::red) ? mem::WarpAccess::atomic
                                                                                        : mem::WarpAccess::load;
            access.access_bytes = rec.result.access_bytes;
            access.width = Core::warp_width;
            access.active = rec.result.accessed;
            access.prefetch = ir::prefetch_level(inst);
            access.coherent = ir::needs_coherent_load(inst);
            access.texture = inst.op_class == ir::OpClass::texture;
            access.addresses = rec.result.addresses.data();
            sm.l1_.accept(access, sm.now_);
        }
        timing::ExecOp op;
        op.token = token;
        op.warp = rec.warp;
        op.unit = rec.unit;
        op.active_lanes = rec.active_lanes;
        op.warp_width = Core::warp_width;
        op.op_class = rec.result.instruction->op_class;
        op.instruction = rec.result.instruction;
        op.active = rec.result.executed;
        op.values = rec.result.has_value ? rec.result.values.data() : nullptr;
        sm.exec_.dispatch(op, s, sm.now_);
        --pending_[Core::kind_index(rec.unit)][s];
        if (index < waiting_.size()) {
            if (waiting_[index].live && !waiting_[index].is_memory) --non_memory_waiting_;
            waiting_[index].live = false;
        }
        return true;
    }

    // What reserve() saw of each record waiting for dispatch, indexed by record index (RecordPool), so that a
    // blocked offer costs no visit to the record.
    struct Waiting {
        std::uint64_t token = 0;
        timing::UnitKind unit = timing::UnitKind::sp;
        std::uint8_t scheduler = 0;
        bool is_memory = false;
        bool live = false; // reserved and not yet dispatched
    };
    std::vector<Waiting> waiting_;
    unsigned non_memory_waiting_ = 0; // live entries of waiting_ with is_memory false
    std::array<std::array<unsigned, Frontend::schedulers>, timing::unit_kind_count> capacity_{};
    std::array<std::array<unsigned, Frontend::schedulers>, timing::unit_kind_count> pending_{};
};

} // namespace gpuarch::pipeline
