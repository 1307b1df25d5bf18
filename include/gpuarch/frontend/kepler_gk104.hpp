#pragma once
// KeplerGK104Frontend: a GK104 / GeForce GTX 680-like SMX (compute capability 3.0), the chip Lai 2013 measured
// in Table 4.1. It differs from KeplerFrontend (GK110 / K20X, Gong 2020) only where GK104 differs; everything
// else is taken from KeplerFrontend so each number keeps one home.
//
// What the SMX issues per cycle is *not* capped here: 4 schedulers x 2 dispatch units and 6 SP groups of 32
// lanes would allow 192 thread-instructions per cycle. Lai's measured ~132 ceiling for the Table 4.1 streams
// comes from the register file (regfile/kepler_banked_rf.hpp: one read per bank per cycle, so a stream that
// reads the same banks every instruction runs one instruction per cycle per scheduler = 128 per SMX).
// docs/calibration.md gives the derivation and the comparison with every Table 4.1 row.
#include <array>
#include <string_view>

#include <gpuarch/frontend/kepler.hpp>
#include <gpuarch/ir/types.hpp>
#include <gpuarch/timing/interfaces.hpp>

namespace gpuarch::frontend {

struct KeplerGK104Frontend {
    static constexpr std::string_view name = "Kepler GK104";
    static constexpr unsigned warp_width = 32;
    // Lai 2013 Table 1.1, Kepler GTX680 column: 4 warp schedulers and 8 dispatch units per SM.
    static constexpr unsigned schedulers = 4;
    static constexpr unsigned dispatch_per_scheduler = 2;
    static constexpr timing::IssueRule issue_rule = timing::IssueRule::per_scheduler;
    // Compute capability 3.0 occupancy limits (CUDA C Programming Guide, technical specifications): 64 warps,
    // 16 blocks, 2048 threads per SM. Lai 2013 Table 1.1: 64K 32-bit registers and 48 KB shared memory per SM.
    static constexpr unsigned max_warps = 64;
    static constexpr unsigned max_ctas = 16;
    static constexpr unsigned max_threads = 2048;
    static constexpr unsigned max_registers = 64 * 1024;
    static constexpr unsigned max_shared_bytes = 48 * 1024;
    // Lai 2013 Sec. 4.2: a GK104 thread addresses at most 63 registers (6-bit register fields).
    static constexpr unsigned max_registers_per_thread = 63;
    static constexpr unsigned register_allocation_unit = KeplerFrontend::register_allocation_unit;
    static constexpr unsigned ibuffer_entries = KeplerFrontend::ibuffer_entries;
    static constexpr unsigned fetch_per_warp = KeplerFrontend::fetch_per_warp;
    static constexpr unsigned alu_latency = KeplerFrontend::alu_latency;
    static constexpr unsigned sfu_latency = KeplerFrontend::sfu_latency;
    static constexpr unsigned dp_latency = KeplerFrontend::dp_latency;
    // Unit mix per SMX, 32-lane groups unless stated. CUDA C Programming Guide, "Throughput of Native Arithmetic
    // Instructions", compute capability 3.0, results per clock per SM: FP32 add/mul/mad 192 (Lai 2013 Table 1.1:
    // 192 SPs, i.e. 6 groups, split 4 private + 2 shared as in KeplerFrontend); FP64 8 (GK104 differs from GK110
    // here: one shared 8-lane unit); 32-bit integer multiply/multiply-add 32 (one shared IMU); transcendentals 32
    // (one shared SFU). Lai 2013 Table 1.1: 32 LD/ST units (one shared 32-lane LSU).
    // Not modelled: the guide's 160/clock cap on 32-bit integer add, compare and logic (5 of the 6 SP groups).
    // No Table 4.1 stream reaches it (IADD measures 132.4 < 160), so no measurement calibrates such a rule.
    static constexpr auto units = std::array{
        timing::UnitSpec{timing::UnitKind::sp, 1, 32, alu_latency, 1, false},
        timing::UnitSpec{timing::UnitKind::sp, 2, 32, alu_latency, 1, true},
        timing::UnitSpec{timing::UnitKind::branch, 1, 32, alu_latency, 1, false},
        timing::UnitSpec{timing::UnitKind::dp, 1, 8, dp_latency, 1, true},
        timing::UnitSpec{timing::UnitKind::int_mul, 1, 32, alu_latency, 1, true},
        timing::UnitSpec{timing::UnitKind::sfu, 1, 32, sfu_latency, 1, true},
        timing::UnitSpec{timing::UnitKind::ldst, 1, 32, 1, 1, true},
    };
    // Gong 2020 Sec. 4.4.2: shared units split evenly among the schedulers (KeplerFrontend's default).
    static constexpr timing::SharedUnitPartitioning shared_unit_partitioning = timing::SharedUnitPartitioning::even;

    static constexpr timing::UnitKind unit_for(ir::OpClass c) { return KeplerFrontend::unit_for(c); }
};

} // namespace gpuarch::frontend
