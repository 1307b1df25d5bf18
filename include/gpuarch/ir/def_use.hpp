#pragma once
// Which registers an instruction writes (defs) and reads (uses).
// Contract:
// - operands[0] is the destination exactly when has_destination() is true; every other operand is a source.
// - defs: the destination register, the second destination of `d|p` (setp, shfl, match.all), and every element of
//   a vector destination (ld.v4, mov unpacking); the sink `_` and sink vector elements define nothing.
// - uses: source registers in operand order, elements of vector sources, the base register of every address
//   operand (for st/red the address is a source too), then the guard predicate. A register appears at most once
//   in each list (they are sets; `add %r1, %r2, %r2` uses %r2 once), so a register file model counts distinct
//   reads.
// - The carry flag written by `.cc` and read by addc/subc/madc is not a register and is in neither list; timing
//   models that need the dependence ask writes_carry()/reads_carry().
// - A predicated instruction whose guard is false leaves its destination unchanged; the destination is still only
//   a def (not a use), as in a scoreboard.
#include <array>
#include <cstddef>
#include <cstdint>

#include <gpuarch/core/error.hpp>
#include <gpuarch/ir/instruction.hpp>
#include <gpuarch/ir/types.hpp>

namespace gpuarch::ir {

constexpr bool has_destination(const Instruction& inst) {
    switch (inst.op) {
    case Opcode::st:
    case Opcode::red:
    case Opcode::bar_warp_sync:
    case Opcode::membar:
    case Opcode::fence:
    case Opcode::bra:
    case Opcode::call:
    case Opcode::ret:
    case Opcode::exit:
    case Opcode::nanosleep:
    case Opcode::trap:
    // vprintf and __assertfail read their arguments from, and vprintf writes its result to, call-sequence .param
    // storage (per-thread memory, like st.param/ld.param around them), so they define and use no register; the
    // st.param before and the ld.param after carry the register dependences.
    case Opcode::vprintf:
    case Opcode::assertfail:
    // A prefetch only moves a line into a cache: its address operand is a source.
    case Opcode::prefetch:
    case Opcode::prefetchu:
    // sust stores its data vector at texel coordinates of a surface object: every operand is a source.
    case Opcode::sust:
    // malloc and free use .param storage as vprintf does; cp.async writes shared memory, not a register
    // (both its addresses and its src-size or ignore-src operand are sources); commit and wait name no register.
    case Opcode::device_malloc:
    case Opcode::device_free:
    case Opcode::cp_async:
    case Opcode::cp_async_commit_group:
    case Opcode::cp_async_wait_group:
    case Opcode::cp_async_wait_all: return false;
    case Opcode::bar:
        return inst.barrier == BarrierMode::red_popc || inst.barrier == BarrierMode::red_and ||
               inst.barrier == BarrierMode::red_or;
    default: return true;
    }
}

constexpr bool writes_carry(const Instruction& inst) { return inst.carry_out; }
constexpr bool reads_carry(const Instruction& inst) {
    return inst.op == Opcode::addc || inst.op == Opcode::subc || inst.op == Opcode::madc;
}

namespace detail {

template <std::size_t N> constexpr void add_unique(std::array<RegId, N>& list, std::uint8_t& count, RegId reg) {
    if (reg == no_reg) return;
    for (std::uint8_t i = 0; i < count; ++i)
        if (list[i] == reg) return;
    if (count == N)
        throw Error("internal error: an instruction has more distinct registers than ir::Instruction holds");
    list[count++] = reg;
}

} // namespace detail

// Fills inst.defs/num_defs and inst.uses/num_uses from the operands and guard.
constexpr void compute_def_use(Instruction& inst) {
    inst.num_defs = 0;
    inst.num_uses = 0;
    inst.defs.fill(no_reg);
    inst.uses.fill(no_reg);
    const bool dest = has_destination(inst);
    for (std::uint8_t i = 0; i < inst.num_operands; ++i) {
        const Operand& op = inst.operands[i];
        const bool is_def = dest && i == 0;
        switch (op.kind) {
        case OperandKind::reg:
            if (is_def) {
                detail::add_unique(inst.defs, inst.num_defs, op.reg);
                detail::add_unique(inst.defs, inst.num_defs, op.reg2);
            } else {
                detail::add_unique(inst.uses, inst.num_uses, op.reg);
            }
            break;
        case OperandKind::vector:
            for (std::uint8_t e = 0; e < op.vector_count; ++e) {
                if (is_def) detail::add_unique(inst.defs, inst.num_defs, op.vector[e]);
                else detail::add_unique(inst.uses, inst.num_uses, op.vector[e]);
            }
            break;
        case OperandKind::address: detail::add_unique(inst.uses, inst.num_uses, op.reg); break;
        default: break;
        }
    }
    detail::add_unique(inst.uses, inst.num_uses, inst.guard.reg);
}

} // namespace gpuarch::ir
