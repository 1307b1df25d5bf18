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
    void reserve(std::size_t kind, unsigned s) { ++pending_[kind][s]; }
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
        return true;
    }

private:
    std::array<std::array<unsigned, Frontend::schedulers>, timing::unit_kind_count> capacity_{};
    std::array<std::array<unsigned, Frontend::schedulers>, timing::unit_kind_count> pending_{};
};

} // namespace gpuarch::pipeline
