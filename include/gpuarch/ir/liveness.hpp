#pragma once
// Registers a kernel may read before writing them: live on entry to the kernel (backward liveness over the CFG).
// Contract:
// - A register is in the result when some path from pc 0 reads it (ir::Instruction::uses, guard included) before
//   an unguarded instruction on that path writes it (ir::Instruction::defs). A guarded write does not count as a
//   write: its guard may be false for the thread. Per-thread paths are CFG paths, so a write on one side of a
//   divergent branch does not cover the threads that took the other side.
// - The value source of every shfl is in the result too: shfl reads that register in every lane of its 32-lane
//   group, including lanes that do not execute it and may never have written it (a partial warp's missing lanes,
//   lanes that exited, lanes on the other side of a branch), so its initial value can be observed through another
//   lane. (Found by the differential fuzzer, docs/differential_fuzzing.md: such a read returned what the buffer's
//   previous CTA had left, which differed between the functional launch and each timed SM.)
// - Every other register is written by every thread before that thread reads it: its initial value is never
//   observed. func::KernelExecution zeroes only the registers in the result when it starts a CTA (host speed:
//   a CTA's register rows were a memset of up to hundreds of kilobytes).
// - The carry flag is not a register (ir/def_use.hpp) and is not covered here.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <gpuarch/ir/cfg.hpp>
#include <gpuarch/ir/module.hpp>

namespace gpuarch::ir {

inline std::vector<RegId> registers_live_at_entry(const Kernel& kernel) {
    const std::size_t registers = kernel.registers.size();
    if (kernel.code.empty() || registers == 0) return {};
    const Cfg cfg = build_cfg(kernel);
    const std::size_t words = (registers + 63) / 64;
    const std::size_t blocks = cfg.blocks.size();
    auto test = [](const std::uint64_t* bits, RegId r) { return (bits[r / 64] >> (r % 64)) & 1U; };
    auto set = [](std::uint64_t* bits, RegId r) { bits[r / 64] |= std::uint64_t{1} << (r % 64); };
    // Per block: the registers read before any unguarded write in the block (upward-exposed uses), and the registers
    // every thread that runs the whole block writes.
    std::vector<std::uint64_t> exposed(blocks * words, 0), killed(blocks * words, 0);
    for (std::size_t b = 0; b < blocks; ++b) {
        std::uint64_t* use = exposed.data() + b * words;
        std::uint64_t* def = killed.data() + b * words;
        for (Pc pc = cfg.blocks[b].begin; pc < cfg.blocks[b].end; ++pc) {
            const Instruction& inst = kernel.code[pc];
            for (unsigned k = 0; k < inst.num_uses; ++k)
                if (inst.uses[k] < registers && !test(def, inst.uses[k])) set(use, inst.uses[k]);
            if (inst.guard.reg != no_reg) continue;
            for (unsigned k = 0; k < inst.num_defs; ++k)
                if (inst.defs[k] < registers) set(def, inst.defs[k]);
        }
    }
    // live_in(b) = exposed(b) | (live_out(b) & ~killed(b)); live_out(b) = union of live_in over successors.
    std::vector<std::uint64_t> live_in(blocks * words, 0);
    std::vector<std::uint64_t> out(words);
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t b = blocks; b-- > 0;) {
            std::fill(out.begin(), out.end(), 0);
            for (BlockId s : cfg.blocks[b].successors)
                for (std::size_t i = 0; i < words; ++i) out[i] |= live_in[s * words + i];
            for (std::size_t i = 0; i < words; ++i) {
                const std::uint64_t in = exposed[b * words + i] | (out[i] & ~killed[b * words + i]);
                if (in != live_in[b * words + i]) {
                    live_in[b * words + i] = in;
                    changed = true;
                }
            }
        }
    }
    const BlockId entry = cfg.block_of(0);
    std::uint64_t* at_entry = live_in.data() + std::size_t{entry} * words;
    for (const Instruction& inst : kernel.code)
        if (inst.op == Opcode::shfl && inst.num_operands > 1 && inst.operands[1].kind == OperandKind::reg &&
            inst.operands[1].reg < registers)
            set(at_entry, inst.operands[1].reg);
    std::vector<RegId> result;
    for (RegId r = 0; r < registers; ++r)
        if (test(at_entry, r)) result.push_back(r);
    return result;
}

} // namespace gpuarch::ir
