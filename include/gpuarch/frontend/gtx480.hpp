#pragma once
// GTX480Frontend: the GTX 480 (GF100, compute capability 2.0) as GPGPU-Sim's tested configuration describes it
// (configs/tested-cfgs/SM2_GTX480/gpgpusim.config in the public gpgpu-sim_distribution repository; "GPGPU-Sim
// GTX480" below). Unlike FermiFrontend, whose latencies come from NVIDIA's documents, every number here is that
// file's, so gpuarch's results can be set beside GPGPU-Sim's. docs/gtx480.md lists what gpuarch models
// differently.
#include <array>
#include <string_view>

#include <gpuarch/ir/types.hpp>
#include <gpuarch/timing/interfaces.hpp>
#include <gpuarch/timing/opcode_timing.hpp>

namespace gpuarch::frontend {

struct GTX480Frontend {
    static constexpr std::string_view name = "GTX480";
    // GPGPU-Sim GTX480: -gpgpu_shader_core_pipeline 1536:32 (1536 threads, 32-thread warps, so 48 warps).
    static constexpr unsigned warp_width = 32;
    static constexpr unsigned max_threads = 1536;
    static constexpr unsigned max_warps = 48;
    static constexpr unsigned max_ctas = 8; // -gpgpu_shader_cta 8
    static constexpr unsigned max_registers = 32768; // -gpgpu_shader_registers 32768
    static constexpr unsigned max_shared_bytes = 49152; // -gpgpu_shmem_size 49152
    // CUDA occupancy calculator, compute capability 2.x: registers are allocated per warp in units of 64.
    static constexpr unsigned register_allocation_unit = 64;
    static constexpr unsigned schedulers = 2; // -gpgpu_num_sched_per_core 2
    static constexpr unsigned dispatch_per_scheduler = 1; // -gpgpu_max_insn_issue_per_warp 1
    static constexpr timing::IssueRule issue_rule = timing::IssueRule::per_scheduler;
    // GPGPU-Sim's instruction buffer holds two decoded instructions per warp and fetch decodes one per warp per
    // cycle (its shader_core_ctx::decode).
    static constexpr unsigned ibuffer_entries = 2;
    static constexpr unsigned fetch_per_warp = 1;

    // -ptx_opcode_latency_{int,fp,dp} and -ptx_opcode_initiation_{int,fp,dp}, columns ADD, MAX, MUL, MAD, DIV(,
    // SHFL): int 4,13,4,5,145,32 / 1,2,2,1,8,4; fp 4,13,4,5,39 / 1,2,1,1,4; dp 8,19,8,8,330 / 8,16,8,8,130. The SFU
    // entry is GPGPU-Sim's default (-ptx_opcode_latency_sfu 8, -ptx_opcode_initiation_sfu 8), which the GTX480
    // file does not override.
    static constexpr timing::OpcodeTimingTable opcode_timing{
        .integer = {{{4, 1}, {13, 2}, {4, 2}, {5, 1}, {145, 8}, {32, 4}}},
        .fp32 = {{{4, 1}, {13, 2}, {4, 1}, {5, 1}, {39, 4}}},
        .fp64 = {{{8, 8}, {19, 16}, {8, 8}, {8, 8}, {330, 130}}},
        .sfu = {8, 8},
        .other = {1, 1},
    };

    // -gpgpu_pipeline_widths 2,0,0,1,1,2,0,0,1,1,2 with -gpgpu_num_sp_units 2, -gpgpu_num_sfu_units 1,
    // -gpgpu_num_dp_units 0: two SP units, one SFU and one LD/ST unit, each taking a whole warp (GPGPU-Sim runs
    // the core clock at 700 MHz, half the shader clock, "so a warp executes in a single cycle"). Both schedulers
    // issue to any free unit (GPGPU-Sim's units are shared by the core's schedulers). The latencies below are the
    // fall-back for ops the table does not list; the table times every arithmetic op.
    static constexpr auto units = std::array{
        timing::UnitSpec{timing::UnitKind::sp, 2, 32, 1, 1, true},
        timing::UnitSpec{timing::UnitKind::sfu, 1, 32, 8, 8, true},
        timing::UnitSpec{timing::UnitKind::ldst, 1, 32, 1, 1, true},
    };
    static constexpr timing::SharedUnitPartitioning shared_unit_partitioning =
        timing::SharedUnitPartitioning::lowest_index;

    static constexpr timing::UnitKind unit_for(ir::OpClass c) {
        using ir::OpClass;
        switch (c) {
        // "For Fermi, DP unit = 0, DP inst is executed on SFU" (the configuration's comment).
        case OpClass::fp64: return timing::UnitKind::sfu;
        case OpClass::sfu: return timing::UnitKind::sfu;
        // "For Fermi, INT unit = 0, INT inst is executed on SP". GPGPU-Sim sends integer div/rem to the SFU; here
        // they run on an SP unit with the table's latency and interval (docs/gtx480.md).
        default: return ir::is_memory(c) ? timing::UnitKind::ldst : timing::UnitKind::sp;
        }
    }
};

} // namespace gpuarch::frontend
