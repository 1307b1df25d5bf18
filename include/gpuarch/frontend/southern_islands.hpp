#pragma once
// SouthernIslandsFrontend: an AMD Radeon HD 7970 (GCN 1.0) compute unit, as configured in Gong 2020 Table 5.2.
#include <array>
#include <string_view>

#include <gpuarch/ir/types.hpp>
#include <gpuarch/timing/interfaces.hpp>

namespace gpuarch::frontend {

struct SouthernIslandsFrontend {
    static constexpr std::string_view name = "SouthernIslands";
    static constexpr unsigned warp_width = 64; // 64-wide wavefronts (GCN)
    // Gong 2020 Table 5.2: 4 SIMT units of 16 lanes per CU. Each SIMD holds its own wavefronts (10 of the 40).
    static constexpr unsigned schedulers = 4;
    // Up to one instruction per type (vector ALU, scalar ALU, vector memory, LDS, branch), each from a different
    // wavefront of the SIMD whose turn it is (AMD GCN architecture whitepaper, 2012).
    static constexpr unsigned dispatch_per_scheduler = 5;
    static constexpr timing::IssueRule issue_rule = timing::IssueRule::one_per_type_round_robin;
    static constexpr unsigned max_warps = 40; // Gong 2020 Table 5.2
    static constexpr unsigned max_ctas = 16; // documented default: GCN's 16 work-groups per CU
    static constexpr unsigned max_threads = 40 * 64;
    static constexpr unsigned max_registers = 65536; // Gong 2020 Table 5.2: 65536 vector registers per CU
    static constexpr unsigned max_shared_bytes = 64 * 1024; // Gong 2020 Table 5.2: 64 KB LDS
    static constexpr unsigned register_allocation_unit = 256; // documented default (4 VGPRs x 64 lanes)
    static constexpr unsigned ibuffer_entries = 2; // documented default
    static constexpr unsigned fetch_per_warp = 1;
    // A vector instruction occupies its SIMD16 for 4 cycles (64 lanes / 16); the next instruction of the same
    // wavefront can issue on the SIMD's next turn, so dependent vector ops issue back to back every 4 cycles.
    static constexpr unsigned valu_latency = 4;
    static constexpr unsigned sfu_latency = 16; // transcendental ops at quarter rate (GCN whitepaper)
    static constexpr unsigned dp_latency = 16; // Tahiti: double precision at 1/4 rate
    static constexpr auto units = std::array{
        timing::UnitSpec{timing::UnitKind::sp, 1, 16, valu_latency, 1, false},
        timing::UnitSpec{timing::UnitKind::sfu, 1, 4, sfu_latency, 1, false},
        timing::UnitSpec{timing::UnitKind::dp, 1, 4, dp_latency, 1, false},
        timing::UnitSpec{timing::UnitKind::scalar, 1, 64, 1, 1, true},
        timing::UnitSpec{timing::UnitKind::branch, 1, 64, 1, 1, true},
        timing::UnitSpec{timing::UnitKind::ldst, 1, 64, 1, 1, true},
        timing::UnitSpec{timing::UnitKind::lds, 1, 64, 1, 1, true},
    };
    static constexpr timing::SharedUnitPartitioning shared_unit_partitioning =
        timing::SharedUnitPartitioning::lowest_index;

    // PTX does not separate scalar from vector work; every per-thread ALU op runs on the SIMD. (Routing uniform
    // operations to the scalar ALU would need a uniformity analysis; it is not modelled.)
    static constexpr timing::UnitKind unit_for(ir::OpClass c) {
        using ir::OpClass;
        switch (c) {
        case OpClass::fp64: return timing::UnitKind::dp;
        case OpClass::sfu: return timing::UnitKind::sfu;
        // system (vprintf, __assertfail, trap): a call into the device runtime is a branch-unit op here; the
        // runtime routine's own instructions are not modelled (docs/ptx.md, "Device-side printf, assert, trap").
        case OpClass::branch:
        case OpClass::barrier:
        case OpClass::control:
        case OpClass::system: return timing::UnitKind::branch;
        case OpClass::load_shared:
        case OpClass::store_shared:
        case OpClass::atomic_shared: return timing::UnitKind::lds;
        default: return ir::is_memory(c) ? timing::UnitKind::ldst : timing::UnitKind::sp;
        }
    }
};

} // namespace gpuarch::frontend
