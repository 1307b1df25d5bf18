#pragma once
// The HAWS hint compiler pass (Gong 2020 Ch. 5, Sec. 5.3.1-5.3.2): finds stall points, hint groups and, for each
// stall point, the chain of later instructions that do not depend on the pending long-latency load(s); encodes the
// chain as Format 1 / Format 2 hints (ir/hints.hpp) and renames destinations where a WAR/WAW against a skipped
// instruction would otherwise be violated. docs/hint_pass.md states every rule and every choice made where the
// thesis is silent; the rules are summarised here.
//
// Contract of compute_hints(kernel, options) (kernel analysed: op_class, defs/uses filled, as ptx::parse leaves it):
// - Long-latency producer: `ld` whose class is load_global/load_local/load_generic, and `atom` with a destination
//   outside shared memory (the SM's scoreboard, sm.hpp is_long_latency, flags exactly global/local results;
//   shared atomics are short-latency there, so they are here).
// - Stall point: an instruction that reads or overwrites (RAW or WAW, the two hazards the scoreboard stalls on) a
//   register a long-latency producer may still be writing on some path (forward may-dataflow over the CFG; the
//   producer counts as complete after the first instruction that waited for it). Predicates are registers.
// - Hint group of stall point S: the pcs after S up to the next stall point in pc order, cut at S + max_offset
//   (an RCU entry stores the offset from S in 9 bits, Gong 2020 Sec. 5.3.3, so no chain member can lie further).
// - Walking the group forward (paths merge conservatively at joins), an instruction is hinted when it is
//   independent (no source, guard or carry written by the pending producers or by a skipped instruction), the chain
//   on its path is shorter than max_chain_length, it is not a barrier/fence/bar.warp.sync/ret/exit/nanosleep, and,
//   if it accesses memory, it lies before every barrier/fence of the path and has no hazard (a store or atomic on
//   either side, in spaces that may alias) against a skipped or in-flight memory instruction. Anything not hinted
//   is skipped: its destinations become tainted. A skipped branch (or ret/exit) ends its path.
// - Rename: a hinted instruction whose destination an earlier skipped instruction (the stall point included) reads
//   (WAR) or writes (WAW), or a pending producer writes (WAW), gets a fresh register kernel.registers.size() + k;
//   an instruction that would need a rename but has several destinations, a guard, or writes the carry flag is
//   skipped instead (Format 1 holds one Dst; a guarded write would leave the fresh register undefined in off lanes).
// - Encoding (digest Sec. 2.2 inference, Gong 2020 Sec. 5.3.2 "adding corresponding hints to I3 and I4"): the stall
//   point carries the offset of the first chain instruction; each hinted instruction carries the offset, from S, of
//   the next one on its path; 0 ends a path. A hinted branch carries Format 2: type (true: unconditional, "1
//   indicating a direct branch", Sec. 5.3.1), the offset of the next chain instruction on the taken path (forward
//   targets inside the group only) and on the fall-through path. Offsets strictly increase along every path.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gpuarch/core/error.hpp>
#include <gpuarch/ir/cfg.hpp>
#include <gpuarch/ir/def_use.hpp>
#include <gpuarch/ir/hints.hpp>
#include <gpuarch/ir/instruction.hpp>
#include <gpuarch/ir/module.hpp>
#include <gpuarch/ir/printer.hpp>
#include <gpuarch/ir/types.hpp>

namespace gpuarch::ir {

struct HintPassOptions {
    // Instructions one episode can issue: the RCU depth, "We set the depth of the RCU to 8" (Gong 2020 Sec. 5.3.3).
    unsigned max_chain_length = 8;
    // Largest offset from the stall point: the 9-bit Format 1 target offset and RCU offset field (Gong 2020
    // Sec. 5.3.1, 5.3.3). Format 2's 11-bit offsets could reach further, but a chain member there could not be
    // recorded in the RCU, so the group is cut here.
    unsigned max_offset = (1U << Format1Hint::offset_bits) - 1U;
    // Hint independent branches (Format 2) and continue the chain on both paths; when false a branch ends the chain
    // (the thesis hints branches "if the branch is identified as independent", Sec. 5.3.2).
    bool follow_branches = true;
    // Rename destinations on WAR/WAW (Sec. 5.3.2); when false such instructions are skipped instead.
    bool rename = true;
    // Treat the long-latency loads/atomics still in flight at the stall point as memory instructions a hinted
    // store/atomic must not overtake (a WAR on memory with a queued load). The thesis only says "if a data hazard
    // could occur" (Sec. 5.3.2); this is the conservative reading.
    bool in_flight_memory_hazards = true;
};

namespace detail::hints {

// A set of small integers (registers, long-latency producer indices) as a bit vector.
struct BitSet {
    std::vector<std::uint64_t> words;
    BitSet() = default;
    explicit BitSet(std::size_t bits) : words((bits + 63) / 64, 0) {}
    bool test(std::size_t i) const { return (words[i / 64] >> (i % 64)) & 1U; }
    void set(std::size_t i) { words[i / 64] |= std::uint64_t{1} << (i % 64); }
    void reset(std::size_t i) { words[i / 64] &= ~(std::uint64_t{1} << (i % 64)); }
    bool merge(const BitSet& o) { // returns whether this changed
        bool changed = false;
        for (std::size_t k = 0; k < words.size(); ++k) {
            const std::uint64_t n = words[k] | o.words[k];
            changed = changed || n != words[k];
            words[k] = n;
        }
        return changed;
    }
    bool operator==(const BitSet&) const = default;
};

constexpr StateSpace effective_space(const Instruction& inst) {
    return inst.space == StateSpace::none ? StateSpace::generic : inst.space;
}

constexpr bool writes_memory(const Instruction& inst) {
    return inst.op == Opcode::st || inst.op == Opcode::atom || inst.op == Opcode::red;
}

// Two memory instructions may touch the same bytes: same state space, or either one generic (a generic address
// can point into global, shared or local memory).
constexpr bool may_alias(StateSpace a, StateSpace b) {
    return a == b || a == StateSpace::generic || b == StateSpace::generic;
}

struct MemAccess {
    StateSpace space = StateSpace::generic;
    bool writes = false;
    bool operator==(const MemAccess&) const = default;
};

// Whether a memory instruction must wait for an earlier one it is reordered past: a store/atomic on either side
// in spaces that may alias (two loads never conflict).
inline bool memory_hazard(const std::vector<MemAccess>& skipped, const Instruction& inst) {
    const MemAccess mine{effective_space(inst), writes_memory(inst)};
    for (const MemAccess& m : skipped)
        if ((m.writes || mine.writes) && may_alias(m.space, mine.space)) return true;
    return false;
}

// What is known on one path of a hint group when it reaches a pc.
struct PathState {
    BitSet tainted; // registers whose value is not available in hint mode (pending producers, skipped writes)
    BitSet skipped_reads; // registers a skipped instruction (stall point included) reads when it replays: WAR
    BitSet skipped_writes; // registers a skipped instruction or a pending producer writes later: WAW
    std::vector<MemAccess> skipped_memory;
    bool past_barrier = false;
    bool carry_written = false, carry_read = false; // by a skipped instruction
    unsigned hinted = 0; // chain instructions on this path so far

    void merge(const PathState& o) {
        tainted.merge(o.tainted);
        skipped_reads.merge(o.skipped_reads);
        skipped_writes.merge(o.skipped_writes);
        for (const MemAccess& m : o.skipped_memory)
            if (std::find(skipped_memory.begin(), skipped_memory.end(), m) == skipped_memory.end())
                skipped_memory.push_back(m);
        past_barrier = past_barrier || o.past_barrier;
        carry_written = carry_written || o.carry_written;
        carry_read = carry_read || o.carry_read;
        hinted = std::max(hinted, o.hinted);
    }
    void skip(const Instruction& inst) {
        for (unsigned k = 0; k < inst.num_defs; ++k) {
            tainted.set(inst.defs[k]);
            skipped_writes.set(inst.defs[k]);
        }
        for (unsigned k = 0; k < inst.num_uses; ++k) skipped_reads.set(inst.uses[k]);
        if (is_memory(inst.op_class)) {
            const MemAccess m{effective_space(inst), writes_memory(inst)};
            if (std::find(skipped_memory.begin(), skipped_memory.end(), m) == skipped_memory.end())
                skipped_memory.push_back(m);
        }
        carry_written = carry_written || writes_carry(inst);
        carry_read = carry_read || reads_carry(inst);
    }
};

constexpr bool is_fence_like(const Instruction& inst) {
    // A device-runtime call (printf, assert) or trap is ordered like a fence: its output and fault order follow it.
    return inst.op_class == OpClass::barrier || inst.op_class == OpClass::system || inst.op == Opcode::bar_warp_sync ||
           inst.op == Opcode::membar || inst.op == Opcode::fence;
}
constexpr bool ends_thread(const Instruction& inst) { return inst.op == Opcode::ret || inst.op == Opcode::exit; }
constexpr bool is_conditional(const Instruction& inst) { return inst.guard.reg != no_reg; }
inline Pc branch_target(const Instruction& inst) {
    return inst.num_operands > 0 && inst.operands[0].kind == OperandKind::label ? inst.operands[0].target : no_pc;
}

} // namespace detail::hints

// Whether an instruction's result arrives after a long (memory-system) latency: the producers a stall point waits
// for (see the contract at the top).
constexpr bool is_long_latency_producer(const Instruction& inst) {
    if (inst.op == Opcode::ld)
        return inst.op_class == OpClass::load_global || inst.op_class == OpClass::load_local ||
               inst.op_class == OpClass::load_generic;
    if (inst.op == Opcode::atom) return inst.num_defs > 0 && inst.space != StateSpace::shared;
    return false;
}

inline KernelHints compute_hints(const Kernel& kernel, const HintPassOptions& options = {}) {
    using namespace detail::hints;
    if (options.max_chain_length == 0) throw Error("hint pass: max_chain_length must be at least 1");
    if (options.max_offset == 0 || options.max_offset > (1U << Format2Hint::offset_bits) - 1U)
        throw Error("hint pass: max_offset must be in 1 .. 2047 (the 11-bit Format 2 offset)");
    const auto& code = kernel.code;
    const Pc size = static_cast<Pc>(code.size());
    const std::size_t regs = kernel.registers.size();
    for (const Instruction& inst : code) {
        for (unsigned k = 0; k < inst.num_defs; ++k)
            if (inst.defs[k] >= regs)
                throw Error("hint pass: kernel '" + kernel.name + "' uses an undeclared register");
        for (unsigned k = 0; k < inst.num_uses; ++k)
            if (inst.uses[k] >= regs)
                throw Error("hint pass: kernel '" + kernel.name + "' uses an undeclared register");
    }

    KernelHints out = KernelHints::none(size);
    if (size == 0) return out;

    // 1. Long-latency producers, numbered.
    std::vector<Pc> producers;
    std::vector<std::uint32_t> producer_index(size, UINT32_MAX);
    for (Pc pc = 0; pc < size; ++pc)
        if (is_long_latency_producer(code[pc])) {
            producer_index[pc] = static_cast<std::uint32_t>(producers.size());
            producers.push_back(pc);
            out.long_latency[pc] = true;
        }
    const std::size_t np = producers.size();

    // 2. In-flight producers before every pc (may-dataflow to a fixpoint over the CFG).
    const auto touches = [&](const Instruction& inst, std::size_t p) {
        const Instruction& prod = code[producers[p]];
        for (unsigned a = 0; a < prod.num_defs; ++a) {
            for (unsigned k = 0; k < inst.num_uses; ++k)
                if (inst.uses[k] == prod.defs[a]) return true;
            for (unsigned k = 0; k < inst.num_defs; ++k)
                if (inst.defs[k] == prod.defs[a]) return true;
        }
        return false;
    };
    // Applies one instruction to the in-flight set; returns whether it waited for a producer (a stall point).
    const auto transfer = [&](Pc pc, BitSet& in_flight) {
        bool waited = false;
        for (std::size_t p = 0; p < np; ++p)
            if (in_flight.test(p) && touches(code[pc], p)) {
                waited = true;
                in_flight.reset(p);
            }
        if (producer_index[pc] != UINT32_MAX) in_flight.set(producer_index[pc]);
        return waited;
    };
    const Cfg cfg = build_cfg(kernel);
    const BlockId exit = cfg.exit_block();
    std::vector<BitSet> block_in(cfg.blocks.size(), BitSet(np));
    for (bool changed = true; changed;) {
        changed = false;
        for (BlockId b = 0; b < exit; ++b) {
            BitSet state = block_in[b];
            for (Pc pc = cfg.blocks[b].begin; pc < cfg.blocks[b].end; ++pc) transfer(pc, state);
            for (BlockId s : cfg.blocks[b].successors)
                if (s != exit) changed = block_in[s].merge(state) || changed;
        }
    }
    std::vector<BitSet> in_flight_at(size, BitSet(np));
    for (BlockId b = 0; b < exit; ++b) {
        BitSet state = block_in[b];
        for (Pc pc = cfg.blocks[b].begin; pc < cfg.blocks[b].end; ++pc) {
            in_flight_at[pc] = state;
            out.stall_point[pc] = transfer(pc, state);
        }
    }

    // 3. One chain per stall point.
    unsigned max_renames = 0;
    for (Pc s = 0; s < size; ++s) {
        if (!out.stall_point[s]) continue;
        const Instruction& stall = code[s];
        InstructionHint& sh = out.hint[s];
        if (stall.op == Opcode::bra) {
            // A branch that waits for the load: everything after it is control dependent on the pending value.
            sh.format = InstructionHint::Format::format2;
            sh.f2.type = !is_conditional(stall);
            continue;
        }
        sh.format = InstructionHint::Format::format1;
        sh.f1.dst = stall.num_defs > 0 ? stall.defs[0] : no_reg;
        if (ends_thread(stall)) continue;

        Pc end = std::min<Pc>(size, s + options.max_offset + 1);
        for (Pc p = s + 1; p < end; ++p)
            if (out.stall_point[p]) {
                end = p;
                break;
            }

        PathState start{BitSet(regs), BitSet(regs), BitSet(regs), {}, false, false, false, 0};
        for (std::size_t p = 0; p < np; ++p) {
            if (!in_flight_at[s].test(p)) continue;
            const Instruction& prod = code[producers[p]];
            for (unsigned k = 0; k < prod.num_defs; ++k) {
                start.tainted.set(prod.defs[k]);
                start.skipped_writes.set(prod.defs[k]);
            }
            if (options.in_flight_memory_hazards) {
                const MemAccess m{effective_space(prod), writes_memory(prod)};
                if (std::find(start.skipped_memory.begin(), start.skipped_memory.end(), m) ==
                    start.skipped_memory.end())
                    start.skipped_memory.push_back(m);
            }
        }
        start.skip(stall);
        start.past_barrier = is_fence_like(stall);

        const std::size_t span = end > s + 1 ? end - s - 1 : 0;
        std::vector<std::optional<PathState>> state(span);
        std::vector<bool> hinted(span, false), kills(span, false);
        std::vector<RegId> renamed(span, no_reg);
        const auto reach = [&](Pc to, const PathState& st) {
            if (to <= s || to >= end) return;
            auto& slot = state[to - s - 1];
            if (slot) slot->merge(st);
            else slot = st;
        };
        if (span > 0) state[0] = std::move(start);
        unsigned renames = 0;
        for (Pc p = s + 1; p < end; ++p) {
            const std::size_t i = p - s - 1;
            if (!state[i]) continue; // not reachable from the stall point inside the group
            PathState st = std::move(*state[i]);
            const Instruction& inst = code[p];
            const bool full = st.hinted >= options.max_chain_length;
            bool independent = !(reads_carry(inst) && st.carry_written);
            for (unsigned k = 0; k < inst.num_uses && independent; ++k) independent = !st.tainted.test(inst.uses[k]);

            if (ends_thread(inst)) {
                kills[i] = true;
                continue;
            }
            if (inst.op == Opcode::bra) {
                if (!options.follow_branches || !independent || full) {
                    kills[i] = true; // a skipped branch: the path it leads to is unknown in hint mode
                    continue;
                }
                hinted[i] = true;
                ++st.hinted;
                const Pc target = branch_target(inst);
                if (target != no_pc && target > p) reach(target, st);
                if (is_conditional(inst)) reach(p + 1, st);
                continue;
            }
            bool take = independent && !full && !is_fence_like(inst) && inst.op != Opcode::nanosleep;
            if (take && is_memory(inst.op_class)) take = !st.past_barrier && !memory_hazard(st.skipped_memory, inst);
            if (take && writes_carry(inst)) take = !st.carry_read && !st.carry_written; // the carry cannot be renamed
            bool needs_rename = false;
            for (unsigned k = 0; k < inst.num_defs; ++k)
                needs_rename =
                    needs_rename || st.skipped_reads.test(inst.defs[k]) || st.skipped_writes.test(inst.defs[k]);
            if (take && needs_rename)
                take = options.rename && inst.num_defs == 1 && !is_conditional(inst) && !writes_carry(inst);
            if (take) {
                hinted[i] = true;
                ++st.hinted;
                for (unsigned k = 0; k < inst.num_defs; ++k) st.tainted.reset(inst.defs[k]);
                if (needs_rename) renamed[i] = static_cast<RegId>(regs + renames++);
            } else {
                st.skip(inst);
                if (is_fence_like(inst)) st.past_barrier = true;
            }
            reach(p + 1, st);
        }
        max_renames = std::max(max_renames, renames);

        // Next chain member on the path that falls through from pc `from`: the first hinted pc, passing over skipped
        // instructions that do not end the path.
        const auto next_from = [&](Pc from) -> std::uint16_t {
            for (Pc q = from; q < end; ++q) {
                const std::size_t i = q - s - 1;
                if (!state[i] && !hinted[i]) return 0;
                if (hinted[i]) return static_cast<std::uint16_t>(q - s);
                if (kills[i]) return 0;
            }
            return 0;
        };
        // Backwards, so every successor is final; a hinted branch with nothing after it on either path is dropped
        // (it would only occupy an RCU entry), which makes it a path end.
        for (Pc p = end; p-- > s + 1;) {
            const std::size_t i = p - s - 1;
            if (!hinted[i]) continue;
            const Instruction& inst = code[p];
            InstructionHint& h = out.hint[p];
            if (inst.op == Opcode::bra) {
                const Pc target = branch_target(inst);
                const std::uint16_t taken = target != no_pc && target > p ? next_from(target) : 0;
                const std::uint16_t fall = is_conditional(inst) ? next_from(p + 1) : 0;
                if (taken == 0 && fall == 0) {
                    hinted[i] = false;
                    kills[i] = true;
                    continue;
                }
                h.format = InstructionHint::Format::format2;
                h.f2.type = !is_conditional(inst);
                h.f2.taken_offset = taken;
                h.f2.not_taken_offset = fall;
            } else {
                h.format = InstructionHint::Format::format1;
                h.f1.target_offset = next_from(p + 1);
                h.f1.rename = renamed[i] != no_reg;
                h.f1.dst = renamed[i] != no_reg ? renamed[i] : (inst.num_defs > 0 ? inst.defs[0] : no_reg);
            }
            out.chain_start[p] = s;
        }
        sh.f1.target_offset = next_from(s + 1);
    }
    out.extra_registers = max_renames;
    return out;
}

// The kernel as PTX with each instruction's hint in a comment: stall points, chain members (offset from their
// stall point), next offsets, renames (fresh registers print as %hawsN, N counted from the kernel's register count)
// and the Format 2 offsets of hinted branches.
inline std::string print_hints(const Kernel& kernel, const KernelHints& hints, const Module* module = nullptr) {
    if (hints.hint.size() != kernel.code.size()) throw Error("print_hints: hints do not belong to this kernel");
    const auto reg_name = [&](RegId r) {
        if (r == no_reg) return std::string("-");
        if (r < kernel.registers.size()) return kernel.registers[r].name;
        return "%haws" + std::to_string(r - kernel.registers.size());
    };
    std::vector<std::pair<std::string, Pc>> labels = kernel.labels;
    std::sort(labels.begin(), labels.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    std::string out = ".entry " + kernel.name + "  // HAWS hints: " + std::to_string(hints.extra_registers) +
                      " rename register(s)\n{\n";
    std::size_t next_label = 0;
    for (Pc pc = 0; pc < kernel.code.size(); ++pc) {
        while (next_label < labels.size() && labels[next_label].second == pc) out += labels[next_label++].first + ":\n";
        std::string line = "\t/*" + std::to_string(pc) + "*/ " + to_string(kernel.code[pc], kernel, module);
        std::string note;
        const InstructionHint& h = hints.hint[pc];
        if (hints.long_latency.size() == kernel.code.size() && hints.long_latency[pc]) note += "long-latency";
        if (hints.stall_point[pc] || hints.chain_start[pc] != no_pc)
            if (!note.empty()) note += ' ';
        if (hints.stall_point[pc]) {
            note += "STALL POINT";
            if (h.format == InstructionHint::Format::format1)
                note += h.f1.target_offset ? " first +" + std::to_string(h.f1.target_offset) : " (no chain)";
            else note += " (branch: no chain)";
        } else if (hints.chain_start[pc] != no_pc) {
            note += "hint S" + std::to_string(hints.chain_start[pc]) + "+" + std::to_string(pc - hints.chain_start[pc]);
            if (h.format == InstructionHint::Format::format1) {
                note +=
                    " F1 next " + (h.f1.target_offset ? "+" + std::to_string(h.f1.target_offset) : std::string("end"));
                if (h.f1.rename) note += " rename " + reg_name(kernel.code[pc].defs[0]) + "->" + reg_name(h.f1.dst);
            } else {
                note += std::string(" F2 ") + (h.f2.type ? "direct" : "conditional") + " taken " +
                        (h.f2.taken_offset ? "+" + std::to_string(h.f2.taken_offset) : std::string("end")) + " fall " +
                        (h.f2.not_taken_offset ? "+" + std::to_string(h.f2.not_taken_offset) : std::string("end"));
            }
        }
        if (!note.empty()) {
            if (line.size() < 56) line.append(56 - line.size(), ' ');
            line += " // " + note;
        }
        out += line + "\n";
    }
    out += "}\n";
    return out;
}

} // namespace gpuarch::ir
