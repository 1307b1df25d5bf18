#pragma once
// What the timing slots exchange. The SM passes these between slots; no slot includes another.
//
// The pipeline (per SM, per cycle, drained back to front so each stage sees last cycle's results):
//   fetch/decode -> instruction buffer -> scoreboard -> Scheduler::select -> RegisterFile (operand collect)
//   -> Exec unit or L1 slot (LSU) -> RegisterFile write -> scoreboard release.
#include <array>
#include <cstdint>
#include <limits>
#include <string_view>

#include <gpuarch/core/cycle.hpp>
#include <gpuarch/core/lane_mask.hpp>
#include <gpuarch/ir/instruction.hpp>

namespace gpuarch::timing {

// An SM-local warp slot index (0 .. Frontend::max_warps - 1).
using WarpSlot = std::uint32_t;
inline constexpr WarpSlot no_warp = std::numeric_limits<WarpSlot>::max();

// Functional-unit kinds. A frontend lists which it has, how many, how wide and how fast.
enum class UnitKind : std::uint8_t {
    sp, // single-precision / integer ALU lanes (SI: a SIMD16 vector ALU)
    int_mul, // integer multiply (Kepler IMU); frontends without it map int_mul to sp
    dp, // double precision
    sfu, // special functions (rcp, sqrt, sin, ...)
    ldst, // load/store: hands the access to the L1 slot
    branch, // branch / barrier / control (Kepler BRU; SI branch unit)
    scalar, // SI scalar ALU
    lds, // SI local data share (shared memory) port; Fermi/Kepler send shared accesses to ldst
};
inline constexpr std::size_t unit_kind_count = 8;

constexpr std::string_view name(UnitKind k) {
    constexpr std::array<std::string_view, unit_kind_count> names{"sp",   "int_mul", "dp",     "sfu",
                                                                  "ldst", "branch",  "scalar", "lds"};
    return names[static_cast<std::size_t>(k)];
}

// One group of identical units.
// Contract: a warp instruction of W active-or-not lanes on a unit of `lanes` lanes occupies the unit's issue
// port for ceil(W / lanes) * initiation_interval cycles and writes back `latency` cycles after dispatch.
struct UnitSpec {
    UnitKind kind = UnitKind::sp;
    unsigned count = 1; // units of this kind per scheduler (private) or per SM (shared)
    unsigned lanes = 32;
    unsigned latency = 1;
    unsigned initiation_interval = 1;
    bool shared = false; // shared among the SM's schedulers (Kepler, Gong 2020 Sec. 4.4.2)
};

// How shared units are split among schedulers (Gong 2020, Sec. 4.4.2).
enum class SharedUnitPartitioning : std::uint8_t {
    even, // each scheduler owns count / schedulers of the shared units
    lowest_index, // any scheduler may take any free shared unit; lower-index schedulers ask first
};

// How instructions leave the schedulers each cycle.
enum class IssueRule : std::uint8_t {
    // Each scheduler issues from one warp per cycle, up to `dispatch_per_scheduler` consecutive independent
    // instructions of it (Fermi: 1; Kepler: 2).
    per_scheduler,
    // Southern Islands: one SIMD's wavefronts are considered per cycle, round-robin over SIMDs, and up to one
    // instruction of each type (vector ALU, scalar ALU, vector memory, LDS, branch) issues, each from a different
    // wavefront (Gong 2020, Sec. 5.2 / Table 5.2).
    one_per_type_round_robin,
};

// An instruction leaving a scheduler, on its way through operand collection.
struct IssuedInstruction {
    std::uint64_t token = 0; // unique per dynamic instruction in this SM
    WarpSlot warp = no_warp;
    unsigned scheduler = 0;
    ir::Pc pc = ir::no_pc;
    const ir::Instruction* instruction = nullptr;
    UnitKind unit = UnitKind::sp;
    unsigned active_lanes = 0; // lanes that execute (after the guard predicate)
    core::Cycle issue_cycle = 0;
};

// A request to the register file to read an instruction's source operands.
struct OperandRead {
    std::uint64_t token = 0;
    WarpSlot warp = no_warp;
    unsigned scheduler = 0;
    std::uint8_t source_count = 0;
    std::array<ir::RegId, 12> sources{}; // distinct registers read (predicates excluded: they live in a
        // separate predicate file on these machines)
    const ir::Instruction* instruction = nullptr;
    core::WarpMask active; // lanes that execute (inactive-lane gating, Radaideh 2020 Ch. 4)
};

// A request to write an instruction's destination registers.
struct RegisterWrite {
    std::uint64_t token = 0;
    WarpSlot warp = no_warp;
    std::uint8_t dest_count = 0;
    std::array<ir::RegId, 8> dests{};
    bool from_memory = false; // LSU fill (priority below execution-unit writes in CARF)
    const ir::Instruction* instruction = nullptr;
    core::WarpMask active; // lanes whose values are written
    // The first destination's new value per lane (valid for `active` lanes; null when the instruction's result
    // has no per-lane value, e.g. a predicate); `value_bytes` is its register width (4 or 8). Register files that
    // detect operand widths or zeros (CoalescingRF, zero gating) read it; it stays valid until drain_written.
    const std::uint64_t* values = nullptr;
    std::uint8_t value_bytes = 4;
};

// An instruction handed to an execution unit.
struct ExecOp {
    std::uint64_t token = 0;
    WarpSlot warp = no_warp;
    UnitKind unit = UnitKind::sp;
    unsigned unit_index = 0; // which unit of that kind (chosen by the SM)
    unsigned active_lanes = 0;
    unsigned warp_width = 32;
    ir::OpClass op_class = ir::OpClass::int_alu;
    const ir::Instruction* instruction = nullptr;
    core::WarpMask active; // lanes that execute
    // Per-lane result of the first destination (null when none), valid until the op completes. Every
    // instruction, loads included, passes through Exec::dispatch, so an Exec policy that tracks register
    // zero-ness (ZeroGatedExec) sees every register write here.
    const std::uint64_t* values = nullptr;
};

// What the LSU did this cycle, for stall breakdowns (Wang 2016 Sec. 3.1, Fig. 2):
//   idle              no memory instruction in the LSU;
//   busy              it served an access and the instruction at its head is finished with the LSU;
//   stalled_coalesce  it served one access of an instruction that has more (LDST_COAL);
//   stalled_mshr      the head access missed and found no MSHR entry / merge slot / line to reserve (LDST_MSHR);
//   stalled_icnt      the head access needs the miss queue, which is full although MSHRs are free (LDST_ICNT).
enum class LsuState : std::uint8_t { idle, busy, stalled_coalesce, stalled_mshr, stalled_icnt };

constexpr std::string_view to_string(LsuState s) {
    switch (s) {
    case LsuState::idle: return "idle";
    case LsuState::busy: return "busy";
    case LsuState::stalled_coalesce: return "stalled_coalesce";
    case LsuState::stalled_mshr: return "stalled_mshr";
    case LsuState::stalled_icnt: return "stalled_icnt";
    }
    return "?";
}

// What a scheduler may ask about the L1 (OAWS reads Avail_mshr from it, MASCAR its saturation test); the L1 slot's
// view() returns it and the SM hands it on unchanged.
struct L1View {
    std::uint32_t mshr_total = 0;
    std::uint32_t mshr_free = 0;
    std::uint32_t lsu_queue_depth = 0; // memory instructions inside the LSU (including the one being served)
    bool lsu_blocked = false; // the LSU cannot accept another memory instruction now
    std::uint32_t miss_queue_total = 0; // the L1's memory-port queue (MASCAR's saturation test, Wang 2016 Sec. 5)
    std::uint32_t miss_queue_free = 0;
    LsuState lsu_state = LsuState::idle;
};

// What a scheduler learns when one of its warps' memory instructions finishes in the L1 (OAWS's divergent-load
// classifier trains on it, Wang 2016 Sec. 4.2). Delivered through an optional `on_memory_complete(slot, fb)`.
struct MemoryFeedback {
    ir::Pc pc = ir::no_pc;
    bool is_load = true;
    unsigned active_lanes = 0;
    unsigned lines = 0; // coalesced cache lines (accesses)
    unsigned sets = 0; // distinct L1 sets touched
    unsigned misses = 0; // accesses that missed in the L1
    bool coherent = true;
    core::Cycle occlusion_cycles = 0;
};

// L1 locality events for schedulers that track lost locality (CCWS, Rogers et al. MICRO 2012): a miss by a warp,
// and the eviction of a line a warp had brought in. Delivered through an optional
// `on_locality_event(slot, event)` when the L1 provides `drain_locality_events`.
struct LocalityEvent {
    enum Kind : std::uint8_t { miss, eviction } kind = miss;
    std::uint64_t line = 0; // line address
};

// Why a scheduler did not issue this cycle (or that it did). One per scheduler per cycle.
enum class IssueOutcome : std::uint8_t {
    issued,
    idle, // no warp assigned
    ibuffer_empty, // warps exist but none has a decoded instruction
    raw_long_latency, // best warp waits on a register a pending global/local load writes
    raw_other, // best warp waits on another pending register
    structural, // a unit or operand collector is busy
    bank_conflict, // operands held up by register-bank conflicts
    barrier, // every waiting warp is at a barrier
    memory_pipeline, // the LSU cannot accept another instruction
};
inline constexpr std::size_t issue_outcome_count = 9;
constexpr std::string_view name(IssueOutcome o) {
    constexpr std::array<std::string_view, issue_outcome_count> names{
        "issued",     "idle",          "ibuffer_empty", "raw_long_latency", "raw_other",
        "structural", "bank_conflict", "barrier",       "memory_pipeline"};
    return names[static_cast<std::size_t>(o)];
}

} // namespace gpuarch::timing
