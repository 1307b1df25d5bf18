#pragma once
// Control-flow graph of a kernel (after inlining) with a virtual exit block.
// Contract:
// - A block is a maximal run [begin, end) of instructions entered only at `begin` and left only after `end - 1`.
//   Leaders are pc 0, every branch target, and the instruction after a bra, ret or exit.
// - blocks.back() is the virtual exit (begin == end == code.size()); `ret`/`exit` (a thread leaving) and falling
//   off the end of the code lead to it. A guarded ret/exit/bra also falls through to the next block.
// - successors/predecessors are block ids, without duplicates, successors in the order (taken target,
//   fall-through).
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gpuarch/core/error.hpp>
#include <gpuarch/ir/module.hpp>

namespace gpuarch::ir {

using BlockId = std::uint32_t;
inline constexpr BlockId no_block = std::numeric_limits<BlockId>::max();

struct BasicBlock {
    Pc begin = 0, end = 0;
    std::vector<BlockId> successors, predecessors;
};

struct Cfg {
    std::vector<BasicBlock> blocks; // blocks.back() is the virtual exit
    std::vector<BlockId> block_of_pc; // indexed by Pc

    BlockId exit_block() const { return static_cast<BlockId>(blocks.size() - 1); }
    BlockId block_of(Pc pc) const { return block_of_pc.at(pc); }
};

namespace detail {
inline void add_edge(Cfg& cfg, BlockId from, BlockId to) {
    auto& succ = cfg.blocks[from].successors;
    for (BlockId s : succ)
        if (s == to) return;
    succ.push_back(to);
    cfg.blocks[to].predecessors.push_back(from);
}
} // namespace detail

inline Cfg build_cfg(const Kernel& kernel) {
    const auto& code = kernel.code;
    const Pc size = static_cast<Pc>(code.size());
    const auto target_of = [&](Pc pc) {
        const Instruction& inst = code[pc];
        if (inst.num_operands < 1 || inst.operands[0].kind != OperandKind::label || inst.operands[0].target >= size)
            throw Error("kernel '" + kernel.name + "': branch at pc " + std::to_string(pc) + " (PTX line " +
                        std::to_string(inst.line) + ") has no valid target");
        return inst.operands[0].target;
    };
    std::vector<bool> leader(size + 1, false);
    leader[0] = true;
    for (Pc pc = 0; pc < size; ++pc) {
        const Opcode op = code[pc].op;
        if (op == Opcode::bra) leader[target_of(pc)] = true;
        if (op == Opcode::bra || op == Opcode::ret || op == Opcode::exit) leader[pc + 1] = true;
    }
    Cfg cfg;
    cfg.block_of_pc.assign(size, no_block);
    for (Pc pc = 0; pc < size; ++pc) {
        if (leader[pc]) cfg.blocks.push_back(BasicBlock{pc, pc, {}, {}});
        cfg.blocks.back().end = pc + 1;
        cfg.block_of_pc[pc] = static_cast<BlockId>(cfg.blocks.size() - 1);
    }
    cfg.blocks.push_back(BasicBlock{size, size, {}, {}});
    const BlockId exit = cfg.exit_block();
    for (BlockId b = 0; b < exit; ++b) {
        const Pc last = cfg.blocks[b].end - 1;
        const Instruction& inst = code[last];
        const bool guarded = inst.guard.reg != no_reg;
        const BlockId fall = last + 1 < size ? cfg.block_of_pc[last + 1] : exit;
        switch (inst.op) {
        case Opcode::bra:
            detail::add_edge(cfg, b, cfg.block_of_pc[target_of(last)]);
            if (guarded) detail::add_edge(cfg, b, fall);
            break;
        case Opcode::ret:
        case Opcode::exit:
            detail::add_edge(cfg, b, exit);
            if (guarded) detail::add_edge(cfg, b, fall);
            break;
        default: detail::add_edge(cfg, b, fall); break;
        }
    }
    return cfg;
}

// Immediate post-dominator of every block (Cooper, Harvey & Kennedy 2001, "A Simple, Fast Dominance Algorithm",
// run on the reverse CFG rooted at `root`, the virtual exit unless given). The root's entry is itself; a block from
// which the root is unreachable (an infinite loop; with another root, also a block whose paths all leave the
// kernel elsewhere) gets no_block. Successors that cannot reach the root are ignored.
inline std::vector<BlockId> immediate_post_dominators(const Cfg& cfg, BlockId root = no_block) {
    const BlockId n = static_cast<BlockId>(cfg.blocks.size());
    if (root == no_block) root = cfg.exit_block();
    // Post-order of the reverse CFG (edges block -> predecessor), iterative DFS from the exit.
    std::vector<BlockId> order;
    order.reserve(n);
    std::vector<std::uint32_t> number(n, no_block);
    std::vector<bool> seen(n, false);
    std::vector<std::pair<BlockId, std::size_t>> stack;
    stack.emplace_back(root, 0);
    seen[root] = true;
    while (!stack.empty()) {
        auto& [block, next] = stack.back();
        const auto& preds = cfg.blocks[block].predecessors;
        if (next < preds.size()) {
            const BlockId p = preds[next++];
            if (!seen[p]) {
                seen[p] = true;
                stack.emplace_back(p, 0);
            }
        } else {
            number[block] = static_cast<std::uint32_t>(order.size());
            order.push_back(block);
            stack.pop_back();
        }
    }
    std::vector<BlockId> ipdom(n, no_block);
    ipdom[root] = root;
    const auto intersect = [&](BlockId a, BlockId b) {
        while (a != b) {
            while (number[a] < number[b]) a = ipdom[a];
            while (number[b] < number[a]) b = ipdom[b];
        }
        return a;
    };
    bool changed = true;
    while (changed) {
        changed = false;
        // Reverse post-order, skipping the root (the last element of the post-order).
        for (std::size_t i = order.size() - 1; i-- > 0;) {
            const BlockId b = order[i];
            BlockId candidate = no_block;
            for (BlockId s : cfg.blocks[b].successors) {
                if (ipdom[s] == no_block) continue; // not processed yet, or cannot reach the exit
                candidate = candidate == no_block ? s : intersect(s, candidate);
            }
            if (candidate != no_block && ipdom[b] != candidate) {
                ipdom[b] = candidate;
                changed = true;
            }
        }
    }
    return ipdom;
}

// True when every path from block `b` to the exit passes through `a` (a block post-dominates itself).
inline bool post_dominates(const std::vector<BlockId>& ipdom, BlockId a, BlockId b) {
    if (ipdom[b] == no_block) return false;
    while (true) {
        if (a == b) return true;
        const BlockId up = ipdom[b];
        if (up == b || up == no_block) return false;
        b = up;
    }
}

} // namespace gpuarch::ir
