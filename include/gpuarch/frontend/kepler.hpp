#pragma once
// KeplerFrontend: a GK110 / Tesla K20X-like SMX, as modelled in Multi2Sim Kepler (Gong 2020, Chapter 4).
#include <array>
#include <string_view>

#include <gpuarch/ir/types.hpp>
#include <gpuarch/timing/interfaces.hpp>

namespace gpuarch::frontend {

template <timing::SharedUnitPartitioning Partitioning = timing::SharedUnitPartitioning::even> struct KeplerFrontendT {
    static constexpr std::string_view name =
        Partitioning == timing::SharedUnitPartitioning::even ? "Kepler" : "Kepler(lowest-index)";
    static constexpr unsigned warp_width = 32; // Gong 2020 Table 4.1
    // Gong 2020 Sec. 4.4.1: "four warp schedulers and eight instruction dispatch units"; each scheduler issues
    // two independent instructions of one warp per cycle (Sec. 2.2).
    static constexpr unsigned schedulers = 4;
    static constexpr unsigned dispatch_per_scheduler = 2;
    static constexpr timing::IssueRule issue_rule = timing::IssueRule::per_scheduler;
    // Gong 2020 Table 4.1: 64 warps, 16 thread blocks, 2048 threads, 65536 registers per SM. Shared memory is
    // 16 KB in Table 4.1 (the 16 KB L1 / 48 KB shared split); 48 KB is the K20X maximum and the default here so
    // that kernels written for 48 KB launch; Table 4.1's split is the Kepler memory preset's L1 size.
    static constexpr unsigned max_warps = 64;
    static constexpr unsigned max_ctas = 16;
    static constexpr unsigned max_threads = 2048;
    static constexpr unsigned max_registers = 65536;
    static constexpr unsigned max_shared_bytes = 48 * 1024;
    // CUDA occupancy calculator, cc 3.x: registers are allocated per warp in units of 256.
    static constexpr unsigned register_allocation_unit = 256;
    // Gong 2020 Sec. 4.4.1: "we fetch a maximum of 2 instructions per warp, per cycle".
    static constexpr unsigned ibuffer_entries = 2;
    static constexpr unsigned fetch_per_warp = 2;
    // Gong 2020 Sec. 4.4.1 gives no unit latencies. Dependent-issue latency "about 11 clock cycles for devices of
    // compute capability 3.x" (CUDA C Programming Guide, Sec. 5.2.3); SFU and DP are documented defaults.
    static constexpr unsigned alu_latency = 11;
    static constexpr unsigned sfu_latency = 18;
    static constexpr unsigned dp_latency = 11;
    // Gong 2020 Table 4.1: 6 SPU, 4 BRU, 2 DPU, 1 IMU, 1 SFU, 1 LSU per SM, 32 lanes each. The private/shared split
    // of the SPUs is not stated; 4 private (one per scheduler) + 2 shared follows the digest's reading. DPUs,
    // SFU, IMU and LSU are shared (Sec. 4.4.2); the BRUs are private, one per scheduler.
    static constexpr auto units = std::array{
        timing::UnitSpec{timing::UnitKind::sp, 1, 32, alu_latency, 1, false},
        timing::UnitSpec{timing::UnitKind::sp, 2, 32, alu_latency, 1, true},
        timing::UnitSpec{timing::UnitKind::branch, 1, 32, alu_latency, 1, false},
        timing::UnitSpec{timing::UnitKind::dp, 2, 32, dp_latency, 1, true},
        timing::UnitSpec{timing::UnitKind::int_mul, 1, 32, alu_latency, 1, true},
        timing::UnitSpec{timing::UnitKind::sfu, 1, 32, sfu_latency, 1, true},
        timing::UnitSpec{timing::UnitKind::ldst, 1, 32, 1, 1, true},
    };
    // Gong 2020 Sec. 4.4.2 compares even partitioning of shared units with "lowest index" priority.
    static constexpr timing::SharedUnitPartitioning shared_unit_partitioning = Partitioning;

    static constexpr timing::UnitKind unit_for(ir::OpClass c) {
        using ir::OpClass;
        switch (c) {
        case OpClass::fp64: return timing::UnitKind::dp;
        case OpClass::sfu: return timing::UnitKind::sfu;
        case OpClass::int_mul: return timing::UnitKind::int_mul;
        // system (vprintf, __assertfail, trap): a call into the device runtime is a branch-unit op here; the
        // runtime routine's own instructions are not modelled (docs/ptx.md, "Device-side printf, assert, trap").
        case OpClass::branch:
        case OpClass::barrier:
        case OpClass::control:
        case OpClass::system: return timing::UnitKind::branch;
        default: return ir::is_memory(c) ? timing::UnitKind::ldst : timing::UnitKind::sp;
        }
    }
};

using KeplerFrontend = KeplerFrontendT<>;

} // namespace gpuarch::frontend
