#pragma once
// Narasiman2010Core: the baseline GPU core of Narasiman et al., "Improving GPU Performance via Large Warps and
// Two-Level Warp Scheduling", TR-HPS-2010-006 (2010), Table 1, as the constants a barrel-processing core
// (barrel::BarrelSM) and its large-warp frontend (LargeWarpFrontend) read. Every number that comes from the paper
// lives here with its citation; numbers the paper does not give are marked "documented choice" and explained in
// docs/large_warps.md. The memory side of Table 1 (32 KB 4-way 128 B single-cycle D-cache, 8 DRAM banks, 100/300
// cycle row hit/conflict, FCFS open row) is mem::presets::NarasimanL1 / narasiman_l1() / narasiman_memory(); the
// whole machine is barrel::Narasiman2010 (barrel/narasiman_machine.hpp).
#include <string_view>

namespace gpuarch::frontend {

struct Narasiman2010Core {
    static constexpr std::string_view name = "Narasiman2010";

    // Table 1, "Scalar frontend": "1-wide fetch and decode stages, round-robin warp scheduling policy".
    static constexpr unsigned fetch_width = 1;
    static constexpr unsigned fetch_stages = 1;
    static constexpr unsigned decode_stages = 1;
    // Table 1, "SIMD backend": "In order, 5 stages, 32 parallel SIMD lanes".
    static constexpr unsigned backend_stages = 5;
    static constexpr unsigned simd_width = 32;
    // Sec. 6.3: "we model a simple 7-stage pipeline" = fetch + decode + the 5 back-end stages.
    static constexpr unsigned pipeline_depth = fetch_stages + decode_stages + backend_stages;
    static_assert(pipeline_depth == 7, "Narasiman 2010 Sec. 6.3: a 7-stage pipeline");

    // Documented choice: Table 1 does not name the five back-end stages. We use register read, execute, execute,
    // memory (the single-cycle D-cache), writeback. Under strict barrel processing (no forwarding, no scoreboard)
    // only the position of the memory stage matters: it is where a load finds out that it missed.
    static constexpr unsigned register_read_stage = 0;
    static constexpr unsigned execute_stage = 1;
    static constexpr unsigned memory_stage = 3;
    static constexpr unsigned writeback_stage = backend_stages - 1;

    // Table 1: "64KB register file (16 32-bit registers per thread, 1024 concurrently executing threads)".
    static constexpr unsigned max_threads = 1024;
    static constexpr unsigned register_file_bytes = 64 * 1024;
    static constexpr unsigned registers_per_thread = 16;
    static_assert(register_file_bytes == max_threads * registers_per_thread * 4, "Table 1: 1024 x 16 x 4 B = 64 KB");
    // Table 1: "4KB single-ported instruction cache" (not modelled: instruction fetch always hits) and
    // "128KB, 32-banked private memory (128 bytes per thread)".
    static constexpr unsigned icache_bytes = 4 * 1024;
    static constexpr unsigned private_memory_bytes = 128 * 1024;
    static constexpr unsigned private_memory_bytes_per_thread = private_memory_bytes / max_threads;
    static_assert(private_memory_bytes_per_thread == 128, "Table 1: 128 bytes of private memory per thread");

    // Documented choice: occupancy. The paper keeps all 1024 threads resident in every configuration (Sec. 5:
    // "a single GPU core concurrently executing 1024 threads"); its x86 kernels fit in 16 registers per thread.
    // The corpus PTX needs 8..55 registers per thread (ptxas), so registers must not cut occupancy below 1024
    // threads: the occupancy limit allows the PTX maximum of 255 registers per thread. The register file's
    // storage is still modelled as Table 1's 64 KB (regfile::PerLaneBankedRF).
    static constexpr unsigned occupancy_registers = max_threads * 255;
    static constexpr unsigned register_allocation_unit = 1;
    // Documented choice: the x86 workloads have no CTAs or shared memory. A CTA needs at least one warp, so the
    // CTA limit is the warp-slot count; CUDA shared memory gets the capacity of the on-chip private memory.
    static constexpr unsigned max_shared_bytes = private_memory_bytes;
};

} // namespace gpuarch::frontend
