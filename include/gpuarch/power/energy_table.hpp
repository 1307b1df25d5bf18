#pragma once
// Per-event dynamic energies of a machine, each with where its number comes from (GPUWattch-style: energy =
// sum over events of count x energy per event; power/energy_report.hpp does the sum from a core::StatsTable).
//
// Sources. Radaideh 2020 gives no per-event energy (it measured with GPUWattch); it gives component shares:
// the register file "consumes more than 15% of the total dynamic power" and the execution units "about 20%"
// (Sec. 4.2, Sec. 4.5.2), the RF macros "about 70-75% of the total register file power" (Sec. 4.5.1), and the
// gating overhead "about 3% of the register file dynamic power" (Sec. 4.5). Where an energy follows from those
// shares it is marked [derived], with the arithmetic in docs/energy.md. Arithmetic, SRAM and DRAM energies are
// Horowitz, "Computing's energy problem", ISSCC 2014 (45 nm, close to Fermi's 40 nm), marked [Horowitz 2014];
// numbers no source gives are [documented default], each with its reasoning. Every field can be overridden:
// an EnergyTable is a plain struct.
#include <array>
#include <cstddef>
#include <string_view>

#include <gpuarch/timing/interfaces.hpp>

namespace gpuarch::power {

struct EnergyValue {
    double pj = 0; // picojoules per event
    std::string_view source; // where the number comes from
};

struct EnergyTable {
    std::string_view machine;
    unsigned warp_register_bytes = 128; // one full warp register (warp width x 4 bytes)
    unsigned noc_flit_bytes = 32; // the machine's interconnect flit

    // Register file, per 32-byte sub-bank slice moved (one byte plane of a 32-lane warp register).
    EnergyValue rf_read_slice, rf_write_slice;
    EnergyValue crossbar_slice; // bank-to-collector crossbar, per 32-byte slice
    EnergyValue collector_write_slice; // operand-collector buffer write, per 32-byte slice
    EnergyValue mask_buffer_access; // width / zero mask buffer, per access (coalescing and gating overhead)

    // Execution: per lane operation (one thread's operation on one lane), by unit kind.
    std::array<EnergyValue, timing::unit_kind_count> lane_op{};
    EnergyValue trivial_bypass_lane; // the result multiplexer of a bypassed trivial lane

    EnergyValue instruction; // fetch, decode, scoreboard and issue of one warp instruction
    EnergyValue l1_line_access; // one L1 data-cache line access (sm.l1.accesses)
    EnergyValue shared_bank_cycle; // one shared-memory cycle of all banks (sm.l1.shared_bank_cycles)
    EnergyValue constant_access; // one constant-cache warp access (sm.l1.constant_accesses)
    EnergyValue l2_request; // one L2 request (reads, writes, atomics)
    EnergyValue noc_byte; // one byte carried by the interconnect
    EnergyValue dram_byte; // one byte on the DRAM data bus
    EnergyValue sm_active_cycle; // runtime-proportional energy of an SM per active cycle

    EnergyValue& lane(timing::UnitKind k) { return lane_op[static_cast<std::size_t>(k)]; }
    const EnergyValue& lane(timing::UnitKind k) const { return lane_op[static_cast<std::size_t>(k)]; }
};

// Fermi (GF100, 40 nm), the machine of Radaideh 2020 Chapter 3 (Table 3.5).
inline EnergyTable fermi_energy_table() {
    using timing::UnitKind;
    EnergyTable t;
    t.machine = "Fermi (40 nm)";
    t.warp_register_bytes = 128;
    t.noc_flit_bytes = 32; // Wang 2016 Table 1, as mem/presets.hpp uses for Fermi
    // [Horowitz 2014] fp32 add 0.9 pJ + fp32 multiply 3.7 pJ: an SP lane is charged as one fused multiply-add.
    t.lane(UnitKind::sp) = {4.6, "[Horowitz 2014] fp32 add 0.9 pJ + fp32 mult 3.7 pJ (an SP lane as one FMA)"};
    t.lane(UnitKind::int_mul) = {3.1, "[Horowitz 2014] 32-bit integer multiply"};
    t.lane(UnitKind::dp) = {18.4, "[documented default] 4x the fp32 FMA: a 53-bit multiplier array is ~(53/24)^2 "
                                  "= 4.9x a 24-bit one"};
    t.lane(UnitKind::sfu) = {9.2, "[documented default] 2x the fp32 FMA: a quadratic-interpolation special "
                                  "function is two multiply-adds and a table read"};
    t.lane(UnitKind::ldst) = {0.2, "[Horowitz 2014] 64-bit address add, 2x the 32-bit add (0.1 pJ)"};
    t.lane(UnitKind::branch) = {0.1, "[Horowitz 2014] 32-bit add (compare)"};
    t.lane(UnitKind::scalar) = {0.1, "[Horowitz 2014] 32-bit add"};
    t.lane(UnitKind::lds) = {0.2, "[Horowitz 2014] 64-bit address add"};
    // [derived] RF/EX = 15%/20% = 0.75 for an FMA (3 reads + 1 write of 128 B = 16 slices; 32 lanes x 4.6 pJ),
    // RF macros 72.5% of RF: 0.75 x 147.2 x 0.725 / 16 = 5.0 pJ per slice; periphery 27.5% over 3 x 4 read
    // slices: 2.53 pJ per slice, split evenly between crossbar and collector write.
    t.rf_read_slice = {5.0, "[derived] Radaideh 2020 Secs. 4.2/4.5.1 shares: RF = 0.75 EX, macros 72.5% of RF"};
    t.rf_write_slice = {5.0, "[derived] as rf_read_slice (no source separates read and write energy)"};
    t.crossbar_slice = {1.25, "[derived] RF periphery 27.5% of RF, half crossbar"};
    t.collector_write_slice = {1.25, "[derived] RF periphery 27.5% of RF, half collector buffers"};
    t.mask_buffer_access = {0.8, "[derived] Radaideh 2020 Sec. 4.5: overhead about 3% of RF power; "
                                 "0.03 x 110.4 pJ per FMA / 4 accesses"};
    t.trivial_bypass_lane = {0.1, "[documented default] a 32-bit result multiplexer, as a 32-bit add"};
    t.instruction = {20.0, "[documented default] an 8 KB instruction-cache 64-bit read (10 pJ, Horowitz 2014) "
                           "plus as much again for decode, scoreboard and scheduler"};
    t.l1_line_access = {320.0, "[Horowitz 2014] 32 KB SRAM: 20 pJ per 64 bits, x16 for a 128-byte line"};
    t.shared_bank_cycle = {320.0, "[Horowitz 2014] 32 KB SRAM: 20 pJ per 64 bits, x16 for 32 banks x 4 bytes"};
    t.constant_access = {10.0, "[Horowitz 2014] 8 KB SRAM: 10 pJ per 64-bit broadcast read"};
    t.l2_request = {400.0, "[Horowitz 2014] 1 MB SRAM: 100 pJ per 64 bits, x4 for a 32-byte sector"};
    t.noc_byte = {16.0, "[documented default] 0.2 pJ per bit-mm of on-chip wire (the 28 nm GPU energy budget "
                        "tabulated in BMC Bioinformatics 2018, doi:10.1186/s12859-018-2389-6, Table 7) over 10 mm"};
    t.dram_byte = {160.0, "[Horowitz 2014] DRAM 1.3 nJ per 64-bit access (20 pJ/bit)"};
    t.sm_active_cycle = {0.0, "[documented default] not charged: no source gives the runtime-proportional "
                              "(clock, idle pipeline) energy per SM cycle; set it to study it"};
    return t;
}

} // namespace gpuarch::power
