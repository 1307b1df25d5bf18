#pragma once
// Architectural state of a CTA being executed: its warps (registers, SIMT reconvergence stack, carry flags),
// shared memory, per-thread local memory and named barriers.
//
// SIMT stack contract (post-dominator reconvergence, Fung et al. MICRO 2007; Narasiman 2010 Sec. 2.3): the top
// entry is what the warp executes next (its pc and active mask). A divergent branch turns the top entry into the
// join entry (pc = the branch's reconvergence PC, all lanes) and pushes the fall-through entry and then the taken
// entry, both reconverging at that PC, so the taken path runs first. When the top entry already reconverges at
// that same PC (a loop whose exit branch diverges again each iteration), it becomes the fall-through entry
// instead and only the taken entry is pushed (as GPGPU-Sim does), so the depth is bounded by the nesting depth.
// An entry is popped when its pc reaches its reconvergence PC or when its lanes have all exited. The warp has
// finished when the stack is empty.
#include <array>
#include <cstdint>
#include <vector>

#include <gpuarch/core/lane_mask.hpp>
#include <gpuarch/func/dim3.hpp>
#include <gpuarch/ir/instruction.hpp>

namespace gpuarch::func {

struct SimtEntry {
    ir::Pc pc = 0;
    ir::Pc reconvergence_pc = ir::no_pc; // no_pc: the paths meet only when the threads exit
    core::WarpMask mask;
};

// Barrier ids 0..15 (PTX ISA, bar: "Operand a specifies a logical barrier resource ... in the range 0 through 15").
inline constexpr unsigned barrier_count = 16;

struct WarpState {
    unsigned index = 0; // warp number within the CTA
    unsigned width = 32; // lanes
    unsigned first_thread = 0; // linear thread index of lane 0 within the CTA
    core::WarpMask valid; // lanes that hold a launched thread
    core::WarpMask exited;
    std::vector<SimtEntry> stack;
    std::vector<std::uint64_t> regs; // regs[reg * width + lane], each value zero-extended to 64 bits
    std::vector<std::uint8_t> carry; // per-lane carry flag (CC.CF) of .cc / addc / subc / madc
    std::vector<std::uint32_t> tid_x, tid_y, tid_z;
    // Deterministic time base of %clock / %clock64 / %globaltimer: the number of warp-instructions this warp has
    // executed before the current one. A timing model may overwrite it with its cycle count before each step.
    std::uint64_t clock = 0;
    std::uint64_t executed = 0; // warp-instructions executed
    int barrier = -1; // id of the barrier the warp waits at, or -1
    // A bar.red waiting for its barrier: the destination and lanes to write when the barrier releases.
    ir::RegId reduction_dst = ir::no_reg;
    core::WarpMask reduction_lanes;
    // Per lane: the saved frames of the out-of-line (recursive) calls in progress, innermost last (see
    // KernelExecution's call/return); empty until the warp makes such a call.
    std::vector<std::vector<std::uint64_t>> call_stack;
    std::vector<std::uint32_t> call_depth; // per lane: calls in progress

    bool finished() const { return stack.empty(); }
    bool waiting() const { return barrier >= 0; }
    ir::Pc next_pc() const { return stack.empty() ? ir::no_pc : stack.back().pc; }
    core::WarpMask active_mask() const { return stack.empty() ? core::WarpMask{} : stack.back().mask; }
    std::uint64_t* row(ir::RegId reg) { return regs.data() + std::size_t{reg} * width; }
    const std::uint64_t* row(ir::RegId reg) const { return regs.data() + std::size_t{reg} * width; }
};

struct BarrierState {
    std::uint32_t arrived_warps = 0;
    std::uint32_t arrived_threads = 0;
    std::uint32_t expected_threads = 0; // 0: every non-exited warp of the CTA
    ir::BarrierMode reduction = ir::BarrierMode::none;
    std::uint32_t true_count = 0; // bar.red: lanes whose predicate was true
    std::uint32_t lane_count = 0; // bar.red: lanes that contributed
    ir::Pc pc = ir::no_pc; // where the first warp arrived (for deadlock messages)
};

class CtaState {
public:
    std::uint64_t linear_id = 0;
    Dim3 id;
    unsigned sm_id = 0; // value of %smid
    std::vector<WarpState> warps;
    std::vector<std::uint8_t> shared;
    std::vector<std::uint8_t> local; // local_frame_bytes per thread, thread-major
    std::uint64_t local_frame_bytes = 0;
    // The local frame of the CTA's linear thread `thread` (a call's .param arguments live in it too).
    std::uint8_t* local_frame(std::uint64_t thread) { return local.data() + thread * local_frame_bytes; }
    std::array<BarrierState, barrier_count> barriers{};
    unsigned live_warps = 0; // warps that have not finished
    // The functional engine's scratch rows (special-register operands, the sink `_`, shfl's copy of its source):
    // per CTA rather than per launch, so that steps of different CTAs touch disjoint memory and may run on
    // different host threads (pipeline/private_steps.hpp). No value in them outlives one step.
    std::array<std::vector<std::uint64_t>, 6> scratch; // [0..4]: special-register rows per source; [5]: sink
    std::vector<std::uint64_t> shuffle;
    // The lanes a guarded step executes: per CTA for the same reason, and kept across steps so that a step writes
    // only the words below the warp width (the words above stay zero, as a WarpMask of the warp requires).
    core::WarpMask guarded_lanes;

    bool finished() const { return live_warps == 0; }
    unsigned warp_count() const { return static_cast<unsigned>(warps.size()); }
    bool warp_finished(unsigned w) const { return warps[w].finished(); }
    bool warp_waiting(unsigned w) const { return warps[w].waiting(); }
    // The PC fetch sees for warp w (the SIMT-stack top), no_pc once it finished.
    ir::Pc next_pc(unsigned w) const { return warps[w].next_pc(); }
    // Whether warp w can execute its next instruction now.
    bool warp_ready(unsigned w) const { return !warps[w].finished() && !warps[w].waiting(); }
};

} // namespace gpuarch::func
