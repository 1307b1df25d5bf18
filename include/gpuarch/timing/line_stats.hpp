#pragma once
// Per-PTX-line statistics (docs/timeline.md): what each instruction of a kernel cost, counted by the SM when a launch
// asks for them (TimingOptions::line_stats).
//
// Contract. Indexed by PC (ir::Kernel::code). Over a launch's lines, warp and thread instructions sum to the
// launch's `sm.warp_instructions` and `sm.thread_instructions`, and `cycles[o]` to `sm.stall.<o>` for every
// outcome but `idle` (a scheduler-cycle with no warp has no instruction to charge). A scheduler-cycle is charged
// to one instruction: the first it issued, else the head instruction of the warp whose stall reason the
// scheduler reported (its lowest pool slot with that reason); a warp with no decoded instruction (an empty
// instruction buffer, a barrier) is charged at the last instruction it issued, or at the kernel's first before it
// issued any. Counting is off unless asked for, and then costs a few additions per scheduler-cycle.
#include <array>
#include <cstdint>
#include <vector>

#include <gpuarch/ir/instruction.hpp>
#include <gpuarch/timing/interfaces.hpp>

namespace gpuarch::timing {

struct LineCounters {
    std::uint64_t warp_instructions = 0, thread_instructions = 0;
    std::array<std::uint64_t, issue_outcome_count> cycles{}; // scheduler-cycles charged here, by IssueOutcome
    // Loads of global or local memory (through the L1 data cache) that completed: their coalesced accesses, how
    // many of those missed, and the cycles from the L1's acceptance to completion, summed.
    std::uint64_t loads = 0, load_accesses = 0, load_misses = 0, load_latency_cycles = 0;

    LineCounters& operator+=(const LineCounters& o) {
        warp_instructions += o.warp_instructions;
        thread_instructions += o.thread_instructions;
        for (std::size_t k = 0; k < cycles.size(); ++k) cycles[k] += o.cycles[k];
        loads += o.loads;
        load_accesses += o.load_accesses;
        load_misses += o.load_misses;
        load_latency_cycles += o.load_latency_cycles;
        return *this;
    }
    bool operator==(const LineCounters&) const = default;
};

// One SM's per-line counters for the bound kernel; empty (and every call a no-op) while off.
class LineStats {
public:
    bool on() const { return on_; }
    // Before a launch: whether to count, and the kernel's instruction count. Counters start from zero.
    void start(bool on, std::size_t instructions) {
        on_ = on;
        lines_.assign(on ? instructions : 0, LineCounters{});
    }
    void issued(ir::Pc pc, unsigned active_lanes) {
        if (pc >= lines_.size()) return;
        ++lines_[pc].warp_instructions;
        lines_[pc].thread_instructions += active_lanes;
    }
    void charge(ir::Pc pc, IssueOutcome outcome, std::uint64_t cycles = 1) {
        if (pc < lines_.size()) lines_[pc].cycles[static_cast<std::size_t>(outcome)] += cycles;
    }
    void load_done(ir::Pc pc, std::uint64_t accesses, std::uint64_t misses, std::uint64_t latency) {
        if (pc >= lines_.size()) return;
        LineCounters& l = lines_[pc];
        ++l.loads;
        l.load_accesses += accesses;
        l.load_misses += misses;
        l.load_latency_cycles += latency;
    }
    const std::vector<LineCounters>& lines() const { return lines_; }

private:
    bool on_ = false;
    std::vector<LineCounters> lines_;
};

} // namespace gpuarch::timing
