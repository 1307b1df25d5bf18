#pragma once
// HAWS instruction hints (Gong 2020 Ch. 5, Sec. 5.3.1, Fig. 5.4): the output of the hint compiler pass
// (ir/hint_pass.hpp) and the input of sched::HAWSScheduler. This header is the contract between the two.
//
// Offsets are relative to the stall point that starts the chain ("the relative distance to the next
// out-of-order instruction, starting from the last stalled instruction (stall point)", Sec. 5.3.1), so an
// RCU entry can store just the offset. A chain is: stall point S carries the offset of the first independent
// instruction S+o1; that instruction carries o2 (S+o2 is the next), and so on; offset 0 ends the chain.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <gpuarch/ir/instruction.hpp>
#include <gpuarch/ir/module.hpp>

namespace gpuarch::ir {

// Format 1 (every non-branch instruction): 9-bit target offset, rename bit, destination (Gong 2020 Sec. 5.3.1).
struct Format1Hint {
    static constexpr unsigned offset_bits = 9; // Gong 2020 Sec. 5.3.1
    std::uint16_t target_offset = 0; // next chain instruction, from the stall point; 0 ends the chain
    bool rename = false; // the destination is renamed (WAR against a skipped instruction)
    RegId dst = no_reg; // the renamed destination (a register the kernel does not use)
};

// Format 2 (branches): type bit and two 11-bit offsets (Gong 2020 Sec. 5.3.1: "two more bits than format 1").
struct Format2Hint {
    static constexpr unsigned offset_bits = 11; // Gong 2020 Sec. 5.3.1
    // Gong 2020 Sec. 5.3.1: "0 indicating a conditional branch, and 1 indicating a direct branch". The offsets are
    // named by path, so a direct (unconditional) branch only has taken_offset (not_taken_offset is 0).
    bool type = false;
    std::uint16_t taken_offset = 0; // next chain instruction on the taken path; 0 ends it
    std::uint16_t not_taken_offset = 0; // next chain instruction on the fall-through path; 0 ends it
};

struct InstructionHint {
    enum class Format : std::uint8_t { none, format1, format2 };
    Format format = Format::none;
    Format1Hint f1{};
    Format2Hint f2{};
};

// Hints for one kernel, indexed by Pc (hint.size() == kernel.code.size()).
struct KernelHints {
    std::vector<InstructionHint> hint;
    std::vector<bool> stall_point; // the instruction first reads the result of a pending long-latency load
    std::vector<Pc> chain_start; // per pc: the stall point whose chain includes it (no_pc: none)
    std::vector<bool> long_latency; // per pc: a long-latency producer (global/local/generic ld, non-shared atom)
    // Registers numbered kernel.registers.size() ... + extra_registers - 1 are the rename targets: the timing
    // model's scoreboard and register file must size for them (the functional engine never sees them: it runs
    // in program order, where renaming changes no value).
    unsigned extra_registers = 0;

    // Hints for a kernel of `instructions` instructions with nothing set: no hint, stall point, chain or
    // long-latency producer (the starting point of the pass and of hand-written hint sources).
    static KernelHints none(std::size_t instructions) {
        KernelHints h;
        h.hint.assign(instructions, InstructionHint{});
        h.stall_point.assign(instructions, false);
        h.chain_start.assign(instructions, no_pc);
        h.long_latency.assign(instructions, false);
        return h;
    }
};

} // namespace gpuarch::ir
