#pragma once
// The analysis every parsed module goes through (ptx::parse calls it): operation class, def/use sets and the
// reconvergence PC of every branch.
// Contract: after analyse(kernel), for every instruction op_class == classify(inst) and defs/uses follow
// compute_def_use; for every `bra` reconvergence_pc is the first pc of the immediate post-dominator of its block
// towards the kernel's last block (the final ret), over the paths that reach it: paths on which threads leave
// the kernel earlier (ret, exit, guarded or not) do not count, because the threads on them just leave the warp.
// A branch from which the last block cannot be reached (or inside it) takes the immediate post-dominator towards
// the virtual exit instead. reconvergence_pc is no_pc where that is the virtual exit (the paths only meet when
// the threads exit) or where the branch sits in a region that cannot reach the exit (an infinite loop); for every
// other instruction it is no_pc. Running it twice gives the same result.
//
// Why not the plain post-dominator towards the virtual exit: an early exit on one side of a branch
// (`if (a) { if (b) return; } ... __syncthreads();`) made that the virtual exit, so the warp never reconverged
// and reached the barrier diverged, with part of its lanes (found by the differential fuzzer,
// docs/differential_fuzzing.md). Hardware reconverges such code after the if: exiting threads only leave the
// warp's active mask.
#include <gpuarch/ir/cfg.hpp>
#include <gpuarch/ir/def_use.hpp>
#include <gpuarch/ir/module.hpp>
#include <gpuarch/ir/op_class.hpp>

namespace gpuarch::ir {

inline void analyse(Kernel& kernel) {
    for (Instruction& inst : kernel.code) {
        inst.op_class = classify(inst);
        compute_def_use(inst);
        inst.reconvergence_pc = no_pc;
    }
    if (kernel.code.empty()) return;
    const Cfg cfg = build_cfg(kernel);
    const BlockId exit = cfg.exit_block();
    const BlockId final_block = cfg.block_of(static_cast<Pc>(kernel.code.size() - 1));
    const std::vector<BlockId> to_exit = immediate_post_dominators(cfg);
    const std::vector<BlockId> to_final = immediate_post_dominators(cfg, final_block);
    for (BlockId b = 0; b < exit; ++b) {
        Instruction& last = kernel.code[cfg.blocks[b].end - 1];
        if (last.op != Opcode::bra) continue;
        const BlockId join = b != final_block && to_final[b] != no_block ? to_final[b] : to_exit[b];
        last.reconvergence_pc = (join == no_block || join == exit) ? no_pc : cfg.blocks[join].begin;
    }
}

inline void analyse(Module& module) {
    for (Kernel& kernel : module.kernels) analyse(kernel);
}

} // namespace gpuarch::ir
