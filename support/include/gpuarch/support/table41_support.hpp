#pragma once
// Runs the Lai 2013 Table 4.1 microbenchmarks (kernels/calibration/kepler_table41.ptx) on the GK104-like SM and
// measures the steady-state math throughput the way Lai reports it: math thread-instructions per cycle per SM.
//
// Method. Lai ran 40960 blocks of 1024 threads, so start-up and the last wave vanish in the average. We keep
// the per-thread work fixed and difference two grid sizes past the start-up transient:
//   rate = (math thread-instructions of G2 - G1 blocks) / (cycles(G2) - cycles(G1)).
// The transient matters under GTO: greedy-then-oldest runs the oldest few warps of each scheduler and starves
// the rest, and it takes a few block waves before the warps of the resident blocks are spread evenly in age
// (docs/calibration.md shows the convergence). The loop overhead (decrement, compare, branch) is counted in
// the cycles but not in the math instructions, as Lai's rate counts only the math instructions.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <gpuarch/exec/simd_exec.hpp>
#include <gpuarch/frontend/kepler_gk104.hpp>
#include <gpuarch/func/device.hpp>
#include <gpuarch/func/module.hpp>
#include <gpuarch/gpu.hpp>
#include <gpuarch/mem/ideal_memory.hpp>
#include <gpuarch/regfile/kepler_banked_rf.hpp>
#include <gpuarch/sched/gto.hpp>

#ifndef GPUARCH_KERNELS_DIR
#define GPUARCH_KERNELS_DIR "kernels"
#endif

namespace gpuarch::calibration_test {

// The SM the calibration runs on: GK104 frontend, GTO, Lai's register banks, ideal memory (the streams touch
// memory once, for the loop count).
template <class RegisterFile = regfile::KeplerBankedRF, class Scheduler = sched::GTO>
using GK104SM = SM<frontend::KeplerGK104Frontend, Scheduler, RegisterFile, exec::SimdExec, mem::IdealMemory<20>>;

// One row of Lai 2013 Table 4.1 (thread-instructions per shader cycle per SM, GTX680, assembly approach).
struct Table41Row {
    std::string_view entry; // kernel in kepler_table41.ptx
    std::string_view sass; // the instruction as Lai prints it
    std::vector<unsigned> sources; // source registers of the first of the four instructions per round
    double measured;
    bool integer_multiply; // bound by the integer-multiply unit, not by the banks
};

// Lai 2013 Table 4.1, every row, in the thesis's order (left column "dest = source", right column "other").
inline const std::vector<Table41Row>& table_4_1() {
    static const std::vector<Table41Row> rows = {
        {"fadd_r0_r1_r0", "FADD R0, R1, R0", {1, 0}, 128.7, false},
        {"fadd_r0_r1_r2", "FADD R0, R1, R2", {1, 2}, 132.0, false},
        {"fadd_r0_r1_r3", "FADD R0, R1, R3", {1, 3}, 66.2, false},
        {"fmul_r0_r1_r0", "FMUL R0, R1, R0", {1, 0}, 129.0, false},
        {"fmul_r0_r1_r2", "FMUL R0, R1, R2", {1, 2}, 132.0, false},
        {"fmul_r0_r1_r3", "FMUL R0, R1, R3", {1, 3}, 66.2, false},
        {"ffma_r0_r1_r4_r0", "FFMA R0, R1, R4, R0", {1, 4, 0}, 129.0, false},
        {"ffma_r0_r1_r4_r5", "FFMA R0, R1, R4, R5", {1, 4, 5}, 132.0, false},
        {"ffma_r0_r1_r3_r5", "FFMA R0, R1, R3, R5", {1, 3, 5}, 66.2, false},
        {"ffma_r0_r1_r3_r9", "FFMA R0, R1, R3, R9", {1, 3, 9}, 44.2, false},
        {"iadd_r0_r1_r0", "IADD R0, R1, R0", {1, 0}, 128.7, false},
        {"iadd_r0_r1_r2", "IADD R0, R1, R2", {1, 2}, 132.4, false},
        {"iadd_r0_r1_r3", "IADD R0, R1, R3", {1, 3}, 66.2, false},
        {"imul_r0_r1_r0", "IMUL R0, R1, R0", {1, 0}, 33.2, true},
        {"imul_r0_r1_r2", "IMUL R0, R1, R2", {1, 2}, 33.2, true},
        {"imul_r0_r1_r3", "IMUL R0, R1, R3", {1, 3}, 33.2, true},
        {"imad_r0_r1_r4_r0", "IMAD R0, R1, R4, R0", {1, 4, 0}, 33.2, true},
        {"imad_r0_r1_r4_r5", "IMAD R0, R1, R4, R5", {1, 4, 5}, 33.1, true},
        {"imad_r0_r1_r3_r5", "IMAD R0, R1, R3, R5", {1, 3, 5}, 33.2, true},
        {"imad_r0_r1_r3_r9", "IMAD R0, R1, R3, R9", {1, 3, 9}, 26.5, true},
    };
    return rows;
}

inline std::string table41_ptx_path() { return std::string(GPUARCH_KERNELS_DIR) + "/calibration/kepler_table41.ptx"; }

inline const func::Module& table41_module() {
    static const func::Module module = func::Module::from_file(table41_ptx_path());
    return module;
}

// Kernel shape (kernels/calibration/README.md): 1024 threads per block (Lai's set-up), 256 math instructions
// per loop iteration. Every kernel keeps its registers below R32, so 32 registers per thread let two blocks
// (2048 threads, the GK104 maximum) reside, as Lai's <= 32-register assembly kernels would.
inline constexpr unsigned threads_per_block = 1024;
inline constexpr unsigned math_per_iteration = 256;
inline constexpr unsigned registers_per_thread = 32;

struct MeasurePlan {
    unsigned iterations = 4; // 1024 math instructions per thread
    unsigned blocks_before = 8; // past the GTO start-up transient
    unsigned blocks_after = 10; // one more wave of two resident blocks
};

struct Measurement {
    double math_per_cycle = 0.0; // Lai's metric: math thread-instructions per cycle per SM
    double ipc = 0.0; // every thread-instruction (loop overhead included), same window
    std::uint64_t cycles_before = 0, cycles_after = 0;
    std::uint64_t dual_issues = 0; // in the larger launch
    std::uint64_t bank_conflict_cycles = 0;
};

template <class SMType> LaunchResult run_table41_kernel(std::string_view entry, unsigned blocks, unsigned iterations) {
    func::Device device;
    GPU<SMType, 1> gpu;
    TimingOptions options;
    options.registers_per_thread = registers_per_thread;
    return gpu.launch(device, table41_module(), entry, func::LaunchConfig{{blocks, 1, 1}, {threads_per_block, 1, 1}, 0},
                      func::Args(iterations), options);
}

template <class SMType = GK104SM<>> Measurement measure(std::string_view entry, MeasurePlan plan = {}) {
    const LaunchResult before = run_table41_kernel<SMType>(entry, plan.blocks_before, plan.iterations);
    const LaunchResult after = run_table41_kernel<SMType>(entry, plan.blocks_after, plan.iterations);
    Measurement m;
    m.cycles_before = before.cycles;
    m.cycles_after = after.cycles;
    const double cycles = static_cast<double>(after.cycles - before.cycles);
    const double math =
        double(plan.blocks_after - plan.blocks_before) * threads_per_block * plan.iterations * math_per_iteration;
    m.math_per_cycle = math / cycles;
    m.ipc = static_cast<double>(after.thread_instructions - before.thread_instructions) / cycles;
    m.dual_issues = after.stats.counter("sm.dual_issues");
    if (after.stats.contains("sm.rf.bank_conflict_cycles"))
        m.bank_conflict_cycles = after.stats.counter("sm.rf.bank_conflict_cycles");
    return m;
}

inline double relative_error(double simulated, double measured) { return (simulated - measured) / measured; }

} // namespace gpuarch::calibration_test
