#pragma once
// FermiFrontend: a GF100/GF110-like SM (GTX 480/580, compute capability 2.x).
#include <array>
#include <string_view>

#include <gpuarch/ir/types.hpp>
#include <gpuarch/timing/interfaces.hpp>

namespace gpuarch::frontend {

struct FermiFrontend {
    static constexpr std::string_view name = "Fermi";
    static constexpr unsigned warp_width = 32;
    // NVIDIA Fermi whitepaper (2009): "dual warp scheduler ... issues one instruction from each warp to a group of
    // sixteen cores, sixteen load/store units, or four SFUs"; Gong 2020 Table 2.2 (2 schedulers, 2 dispatch).
    static constexpr unsigned schedulers = 2;
    static constexpr unsigned dispatch_per_scheduler = 1;
    static constexpr timing::IssueRule issue_rule = timing::IssueRule::per_scheduler;
    // Occupancy limits, CUDA C Programming Guide, compute capability 2.x table: 48 warps, 8 CTAs,
    // 1536 threads, 32K 32-bit registers, 48 KB shared memory per SM.
    static constexpr unsigned max_warps = 48;
    static constexpr unsigned max_ctas = 8;
    static constexpr unsigned max_threads = 1536;
    static constexpr unsigned max_registers = 32768;
    static constexpr unsigned max_shared_bytes = 48 * 1024;
    // Register allocation granularity per warp (CUDA occupancy calculator, cc 2.x: 64 registers per warp unit).
    static constexpr unsigned register_allocation_unit = 64;
    // Documented default (not in the papers): a 2-entry instruction buffer per warp and one instruction fetched
    // per warp per cycle, as in GPGPU-Sim's GTX 480 configuration.
    static constexpr unsigned ibuffer_entries = 2;
    static constexpr unsigned fetch_per_warp = 1;
    // Dependent-issue latency: "about 22 clock cycles for devices of compute capability 2.x" (CUDA C
    // Programming Guide, Sec. 5.2.3, Multiprocessor Level). SFU and DP latencies are documented defaults.
    static constexpr unsigned alu_latency = 22;
    static constexpr unsigned sfu_latency = 28;
    static constexpr unsigned dp_latency = 22;
    static constexpr auto units = std::array{
        // One 16-lane SP group per scheduler: a 32-thread warp occupies it 2 cycles (Gong 2020 Sec. 2.2: "an
        // FP32 instruction takes 2 cycles to issue" on Fermi).
        timing::UnitSpec{timing::UnitKind::sp, 1, 16, alu_latency, 1, false},
        // GF100 double precision runs at half the SP rate on the combined SP groups: modelled as one shared
        // 16-lane unit (Fermi whitepaper: 16 DP FMA per clock per SM).
        timing::UnitSpec{timing::UnitKind::dp, 1, 16, dp_latency, 1, true},
        // Four SFUs shared by the SM: a warp occupies them 8 cycles.
        timing::UnitSpec{timing::UnitKind::sfu, 1, 4, sfu_latency, 1, true},
        // Sixteen LD/ST units shared by the SM; the access itself is timed by the L1 slot.
        timing::UnitSpec{timing::UnitKind::ldst, 1, 16, 1, 1, true},
    };
    static constexpr timing::SharedUnitPartitioning shared_unit_partitioning =
        timing::SharedUnitPartitioning::lowest_index;

    static constexpr timing::UnitKind unit_for(ir::OpClass c) {
        using ir::OpClass;
        switch (c) {
        case OpClass::fp64: return timing::UnitKind::dp;
        case OpClass::sfu: return timing::UnitKind::sfu;
        // Branches, control and system ops (vprintf, __assertfail, trap) issue to the SP group like ALU ops; the
        // device runtime's own instructions are not modelled (docs/ptx.md, "Device-side printf, assert, trap").
        default: return ir::is_memory(c) ? timing::UnitKind::ldst : timing::UnitKind::sp;
        }
    }
};

} // namespace gpuarch::frontend
