#pragma once
// Architecture parameter sets for the three NVIDIA generations Lai studies: GT200 (GTX280),
// Fermi GF110 (GTX580) and Kepler GK104 (GTX680).
//
// Source: Junjie Lai, "Throughput-Oriented Analytical Models for Performance Estimation on
// Programmable Hardware Accelerators", PhD thesis, Universite de Rennes 1, 2013 (HAL
// tel-00908579); cited below as "Lai 2013".
//
// Contract: every field of Lai 2013 Table 1.1 is present and kept verbatim in `nominal`
// (a "?" in the table sets the matching *_uncertain flag, "unknown" is an empty optional).
// Values the thesis *measured* with microbenchmarks live apart in `measured`, so a model
// always says which of the two it uses. All throughputs are thread instructions per
// shader cycle per SM (Lai 2013 Sec. 1.1.2: "all throughput data is calculated with the
// shader clock"); on Kepler the shader clock is the core clock.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gpuarch::model {

// Width of the shared-memory load used in an SGEMM main loop (LDS, LDS.64, LDS.128).
enum class LdsWidth : std::uint8_t { b32 = 32, b64 = 64, b128 = 128 };

constexpr int lds_bits(LdsWidth w) { return static_cast<int>(w); }

constexpr std::string_view lds_name(LdsWidth w) {
    switch (w) {
    case LdsWidth::b32: return "LDS";
    case LdsWidth::b64: return "LDS.64";
    case LdsWidth::b128: return "LDS.128";
    }
    return "?";
}

// Where in the thesis a mixed FFMA/LDS.X throughput was printed. The thesis prints two
// different values for the same Fermi LDS.64 6:1 point (Sec. 4.3.2: 30.4; Sec. 4.3.5: 30.8),
// so the provenance is part of the data.
enum class MixSource : std::uint8_t {
    microbenchmark_sec_4_3_2, // Lai 2013 Sec. 4.3.2, Fermi mixes at B_R = 6
    bound_sec_4_3_5, // Lai 2013 Sec. 4.3.5, the values inside the printed bounds
};

// One point of the F_T curve (Lai 2013 Eq. 4.9): the measured throughput of an FFMA/LDS.X
// instruction mix. The full curves (Fig. 4.2, 4.4) are not in the text; only these points are.
struct MixThroughput {
    LdsWidth width = LdsWidth::b64;
    int ffma_per_lds = 0; // mix ratio FFMA:LDS.X
    int register_blocking = 0; // B_R the ratio corresponds to
    double thread_instr_per_cycle = 0.0; // per shader cycle per SM
    MixSource source = MixSource::bound_sec_4_3_5;
};

// Lai 2013 Table 1.1, verbatim.
struct Table11 {
    double core_clock_mhz = 0.0;
    double shader_clock_mhz = 0.0;
    double global_bandwidth_gbs = 0.0;
    int warp_schedulers_per_sm = 0;
    int dispatch_units_per_sm = 0;
    double issue_tp = 0.0; // thread-instruction issuing throughput
    bool issue_tp_uncertain = false; // printed "128?"
    int sp_per_sm = 0;
    double sp_tp = 0.0; // SP thread-instruction processing throughput (FMAD/FFMA)
    bool sp_tp_uncertain = false; // printed "192?"
    std::optional<int> ldst_units_per_sm; // empty = printed "unknown"
    std::optional<double> lds_tp; // shared-memory (LDS) instruction throughput
    int shared_memory_bytes_per_sm = 0;
    int registers_per_sm = 0; // 32-bit registers
    double peak_gflops = 0.0; // theoretical single-precision peak
};

// Shared-memory load throughput as measured: `ops_per_cycle` operations of `op_bits` each.
struct LdsMeasured {
    double ops_per_cycle = 0.0;
    int op_bits = 32;
    constexpr double bytes_per_cycle() const { return ops_per_cycle * op_bits / 8.0; }
};

inline constexpr std::size_t max_mix_points = 4;

struct Measured {
    // Clock the thesis divided by to turn measured rates into per-cycle throughputs.
    double measurement_clock_mhz = 0.0;
    std::optional<double> issue_cap; // dual-issue-free math issue ceiling
    std::optional<double> ffma_repeated_source; // FFMA with repeated source registers
    std::optional<double> ffma_nvcc; // FFMA R9,R8,R9,R5 compiled by nvcc
    std::optional<LdsMeasured> lds;
    std::optional<double> lds128_thread_instr; // LDS.128 thread instructions per cycle
    std::array<MixThroughput, max_mix_points> mixes{};
    std::size_t mix_count = 0;
};

// Chip organisation facts the thesis states outside Table 1.1.
struct Topology {
    int sm_count = 0;
    std::optional<int> sms_per_tpc; // GT200 thread processing cluster
    std::optional<int> memory_channels; // GT200 global-memory partitions
    std::optional<int> memory_channel_bytes; // partition (channel) width
    std::optional<int> shared_banks;
    std::optional<int> shared_bank_bytes;
    std::optional<int> shared_conflict_threads; // threads per conflict group (half-warp)
    int warp_size = 32;
    int max_registers_per_thread = 0; // R_Max
    // Flops per SM per shader cycle beyond the SPs' FMAD/FFMA: GT200 dual-issues FMUL to the SFUs.
    double extra_flops_per_sm_cycle = 0.0;
};

struct ArchParams {
    std::string_view name;
    std::string_view board;
    Table11 nominal;
    Measured measured;
    Topology topology;

    // Theoretical peak recomputed from the organisation: SPs issue one FMAD/FFMA (2 flops) per
    // cycle, plus GT200's dual-issued SFU multiplies (Lai 2013 Sec. 4.3.2).
    constexpr double computed_peak_gflops() const {
        const double per_sm = nominal.sp_tp * 2.0 + topology.extra_flops_per_sm_cycle;
        return per_sm * topology.sm_count * nominal.shader_clock_mhz / 1000.0;
    }

    constexpr const MixThroughput* find_mix(LdsWidth width, MixSource source) const {
        for (std::size_t i = 0; i < measured.mix_count; ++i) {
            const auto& m = measured.mixes[i];
            if (m.width == width && m.source == source) return &measured.mixes[i];
        }
        return nullptr;
    }
};

// Which printed F_T numerator to take when both sections give one.
enum class MixReading : std::uint8_t {
    // Default: the value inside the bound the thesis prints (Sec. 4.3.5), else the Sec. 4.3.2
    // microbenchmark. Reproduces 82.5 %, 54.6 %, 57.6 % and ~71 %.
    as_used_in_bound,
    // Only the Sec. 4.3.2 microbenchmarks (Fermi LDS.64 -> 30.4 instead of 30.8).
    microbenchmark_only,
};

// The measured FFMA/LDS.X mix throughput for `width`, or nullptr when the thesis gives none.
constexpr const MixThroughput* mix_throughput(const ArchParams& arch, LdsWidth width,
                                              MixReading reading = MixReading::as_used_in_bound) {
    if (reading == MixReading::as_used_in_bound) {
        if (const auto* m = arch.find_mix(width, MixSource::bound_sec_4_3_5)) return m;
    }
    return arch.find_mix(width, MixSource::microbenchmark_sec_4_3_2);
}

// ---------------------------------------------------------------------------------------
// GT200 / GeForce GTX280
constexpr ArchParams gt200_gtx280() {
    ArchParams a{};
    a.name = "GT200";
    a.board = "GTX280";
    // Lai 2013 Table 1.1, GT200 column.
    a.nominal.core_clock_mhz = 602;
    a.nominal.shader_clock_mhz = 1296;
    a.nominal.global_bandwidth_gbs = 141.7;
    a.nominal.warp_schedulers_per_sm = 1;
    a.nominal.dispatch_units_per_sm = 1;
    a.nominal.issue_tp = 16;
    a.nominal.sp_per_sm = 8;
    a.nominal.sp_tp = 8;
    a.nominal.ldst_units_per_sm = std::nullopt; // "unknown"
    a.nominal.lds_tp = std::nullopt; // "unknown"
    a.nominal.shared_memory_bytes_per_sm = 16 * 1024;
    a.nominal.registers_per_sm = 16 * 1024;
    a.nominal.peak_gflops = 933;
    // GT200 has no microbenchmarked throughputs in the thesis; TEG (Ch. 3) works at the
    // shader clock, which is the clock the thesis measures with.
    a.measured.measurement_clock_mhz = 1296;
    // Lai 2013 Sec. 1.1.2: 10 TPCs x 3 SMs; Sec. 3.2.3.5: 8 partitions of 256 B.
    a.topology.sm_count = 30;
    a.topology.sms_per_tpc = 3;
    a.topology.memory_channels = 8;
    a.topology.memory_channel_bytes = 256;
    // Lai 2013 Sec. 3.2.3.3: 16 banks of 4 bytes, conflicts evaluated per half-warp.
    a.topology.shared_banks = 16;
    a.topology.shared_bank_bytes = 4;
    a.topology.shared_conflict_threads = 16;
    a.topology.max_registers_per_thread = 127; // Lai 2013 Sec. 4.2
    // Lai 2013 Sec. 4.3.2: peak = SPs + SFUs (dual issue). The SFU share, 8 FMUL per cycle,
    // follows from Table 3.1: FMUL issues every 2 cycles (16 per cycle) of which 8 are SP.
    a.topology.extra_flops_per_sm_cycle = 8;
    return a;
}

// ---------------------------------------------------------------------------------------
// Fermi GF110 / GeForce GTX580
constexpr ArchParams fermi_gtx580() {
    ArchParams a{};
    a.name = "Fermi GF110";
    a.board = "GTX580";
    // Lai 2013 Table 1.1, Fermi column.
    a.nominal.core_clock_mhz = 772;
    a.nominal.shader_clock_mhz = 1544;
    a.nominal.global_bandwidth_gbs = 192.4;
    a.nominal.warp_schedulers_per_sm = 2;
    a.nominal.dispatch_units_per_sm = 2;
    a.nominal.issue_tp = 32;
    a.nominal.sp_per_sm = 32;
    a.nominal.sp_tp = 32;
    a.nominal.ldst_units_per_sm = 16;
    a.nominal.lds_tp = 16;
    a.nominal.shared_memory_bytes_per_sm = 48 * 1024;
    a.nominal.registers_per_sm = 32 * 1024;
    a.nominal.peak_gflops = 1581;
    a.measured.measurement_clock_mhz = 1544;
    // Lai 2013 Sec. 4.3.1: LDS peaks at 16 32-bit operations per shader clock per SM; LDS.128
    // runs at 2 thread instructions per shader cycle (2-way bank conflict).
    a.measured.lds = LdsMeasured{16.0, 32};
    a.measured.lds128_thread_instr = 2.0;
    // Lai 2013 Sec. 4.3.2: FFMA/LDS.X mixes at B_R = 6 (3:1, 6:1, 12:1).
    a.measured.mixes[0] = {LdsWidth::b32, 3, 6, 31.3, MixSource::microbenchmark_sec_4_3_2};
    a.measured.mixes[1] = {LdsWidth::b64, 6, 6, 30.4, MixSource::microbenchmark_sec_4_3_2};
    a.measured.mixes[2] = {LdsWidth::b128, 12, 6, 24.5, MixSource::microbenchmark_sec_4_3_2};
    // Lai 2013 Sec. 4.3.5: the LDS.64 value inside the printed 82.5 % bound.
    a.measured.mixes[3] = {LdsWidth::b64, 6, 6, 30.8, MixSource::bound_sec_4_3_5};
    a.measured.mix_count = 4;
    // Lai 2013 Sec. 1.1.2: 4 GPCs, 16 SMs.
    a.topology.sm_count = 16;
    a.topology.max_registers_per_thread = 63; // Lai 2013 Sec. 4.2 (6-bit register fields)
    return a;
}

// ---------------------------------------------------------------------------------------
// Kepler GK104 / GeForce GTX680
constexpr ArchParams kepler_gtx680() {
    ArchParams a{};
    a.name = "Kepler GK104";
    a.board = "GTX680";
    // Lai 2013 Table 1.1, Kepler column ("128?" and "192?" are uncertain in the original).
    a.nominal.core_clock_mhz = 1006;
    a.nominal.shader_clock_mhz = 1006;
    a.nominal.global_bandwidth_gbs = 192.26;
    a.nominal.warp_schedulers_per_sm = 4;
    a.nominal.dispatch_units_per_sm = 8;
    a.nominal.issue_tp = 128;
    a.nominal.issue_tp_uncertain = true;
    a.nominal.sp_per_sm = 192;
    a.nominal.sp_tp = 192;
    a.nominal.sp_tp_uncertain = true;
    a.nominal.ldst_units_per_sm = 32;
    a.nominal.lds_tp = 32;
    a.nominal.shared_memory_bytes_per_sm = 48 * 1024;
    a.nominal.registers_per_sm = 64 * 1024;
    a.nominal.peak_gflops = 3090;
    // Lai 2013 Sec. 4.2.3: "All throughput data is calculated by boost clock of 1058MHz",
    // because the real shader clock could not be read during execution.
    a.measured.measurement_clock_mhz = 1058;
    // Lai 2013 Sec. 4.2.3 / Table 4.1: the schedulers issue at most ~132 thread instructions
    // per cycle (FFMA R0,R1,R4,R5 = 132.0); FFMA with repeated sources approaches ~178; the
    // same FFMA compiled by nvcc measures 129.2.
    a.measured.issue_cap = 132.0;
    a.measured.ffma_repeated_source = 178.0;
    a.measured.ffma_nvcc = 129.2;
    // Lai 2013 Sec. 4.3.1: LDS measured at 33.1 64-bit operations per shader clock per SM.
    a.measured.lds = LdsMeasured{33.1, 64};
    // Lai 2013 Sec. 4.3.5: the mix throughputs inside the printed 54.6 % and 57.6 % bounds.
    a.measured.mixes[0] = {LdsWidth::b64, 6, 6, 122.4, MixSource::bound_sec_4_3_5};
    a.measured.mixes[1] = {LdsWidth::b128, 12, 6, 119.9, MixSource::bound_sec_4_3_5};
    a.measured.mix_count = 2;
    // Lai 2013 Sec. 1.1.2: 1536 SPs, 192 per SMX -> 8 SMX.
    a.topology.sm_count = 1536 / 192;
    a.topology.max_registers_per_thread = 63; // Lai 2013 Sec. 4.2
    return a;
}

} // namespace gpuarch::model
