#pragma once
// The analysis every parsed module goes through (ptx::parse calls it): operation class, def/use sets and the
// reconvergence PC of every branch.
// Contract: after analyse(kernel), for every instruction op_class == classify(inst) and defs/uses follow
// compute_def_use; for every `bra` reconvergence_pc is the first pc of the immediate post-dominator of its block
// (no_pc when that is the virtual exit, i.e. the paths only meet when the threads exit, or when the branch sits
// in a region that cannot reach the exit); for every other instruction reconvergence_pc is no_pc.
// Running it twice gives the same result.
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
    const std::vector<BlockId> ipdom = immediate_post_dominators(cfg);
    const BlockId exit = cfg.exit_block();
    for (BlockId b = 0; b < exit; ++b) {
        Instruction& last = kernel.code[cfg.blocks[b].end - 1];
        if (last.op != Opcode::bra) continue;
        const BlockId join = ipdom[b];
        last.reconvergence_pc = (join == no_block || join == exit) ? no_pc : cfg.blocks[join].begin;
    }
}

inline void analyse(Module& module) {
    for (Kernel& kernel : module.kernels) analyse(kernel);
}

} // namespace gpuarch::ir
