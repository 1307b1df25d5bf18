#pragma once
// What executing one warp-instruction produced, for a timing model.
// Contract: a StepResult is a self-contained value: its per-lane buffers are sized to the warp width when it is
// constructed and are only overwritten (never reallocated) by KernelExecution::step, so a timing model may keep a
// few per warp (running the functional engine ahead) without any allocation per step. Per-lane entries are
// meaningful only for lanes set in `executed`.
#include <cstdint>
#include <vector>

#include <gpuarch/core/lane_mask.hpp>
#include <gpuarch/ir/instruction.hpp>

namespace gpuarch::func {

struct StepResult {
    explicit StepResult(unsigned warp_width = 32)
        : addresses(warp_width, 0), lane_spaces(warp_width, ir::StateSpace::none), values(warp_width, 0) {}

    unsigned width() const { return static_cast<unsigned>(values.size()); }

    ir::Pc pc = ir::no_pc;
    const ir::Instruction* instruction = nullptr;
    core::WarpMask active; // SIMT-stack top mask when the instruction issued (before its guard)
    core::WarpMask executed; // lanes whose guard predicate was true (== active when unguarded)

    // Branches (bra): lanes that jump to the target, and where the paths meet again (no_pc: at thread exit).
    bool is_branch = false;
    bool diverged = false;
    core::WarpMask taken;
    ir::Pc reconvergence_pc = ir::no_pc;
    ir::Pc next_pc = ir::no_pc; // SIMT-stack top after the step (no_pc when the warp finished)

    // Memory instructions (ld, st, atom, red): per-lane address in the space the lane accessed (a generic
    // access reports the space its address fell in, and the address within that space: a device address for
    // global, a byte offset into the CTA's shared memory, the thread's local segment, the constant bank or the
    // parameter buffer), and the bytes each lane accessed (element size x vector width).
    bool is_memory = false;
    bool is_load = false, is_store = false, is_atomic = false;
    ir::StateSpace space = ir::StateSpace::none; // the instruction's space (generic when it had none)
    std::uint32_t access_bytes = 0;
    std::vector<std::uint64_t> addresses;
    std::vector<ir::StateSpace> lane_spaces;
    // The lanes that access memory: `executed` for ld/st/atom/red; for a prefetch, the executed lanes less those
    // whose prefetch is a no-op (KernelExecution::prefetch). Meaningful only when is_memory.
    core::WarpMask accessed;

    // The first destination register's new value per executed lane (zero-extended to 64 bits). Recorded only while
    // record_values is true (the caller's choice: a timing model whose consumers never read the values turns it
    // off, timing::IgnoresResultValues); has_value is false for every step otherwise.
    bool record_values = true;
    bool has_value = false;
    ir::RegId value_reg = ir::no_reg;
    std::vector<std::uint64_t> values;

    bool warp_finished = false; // the warp's last threads exited with this instruction
    bool barrier_wait = false; // the warp now waits at a barrier
    bool barrier_released = false; // this instruction completed a barrier (its waiting warps may run again)
};

// Instructions counted by steps that ran concurrently with other callers' steps (KernelExecution::step with a
// StepCounts), until the caller folds them into the launch's totals (KernelExecution::add_counts).
struct StepCounts {
    std::uint64_t warp_instructions = 0;
    std::uint64_t thread_instructions = 0;
};

} // namespace gpuarch::func
