#pragma once
// SGEMM performance upper bound on Fermi and Kepler (Lai 2013 Ch. 4, Eq. 4.1 to 4.11; also
// Lai & Seznec, CGO 2013).
//
// The model starts from an optimistic machine (no bank conflicts, coalesced accesses,
// auxiliary instructions ignored, caches contribute nothing) and imposes three constraints:
// registers and threads (Eq. 4.1-4.5), shared memory (Eq. 4.6), and the FFMA/LDS.X
// instruction mix at its measured throughput (Eq. 4.9-4.10). The bound is the smaller of the
// memory-bandwidth bound (Eq. 4.8) and the SM-throughput bound (Eq. 4.10), Eq. 4.11.
//
// Knobs (everything the thesis leaves open or prints inconsistently):
//  - TileForm: the A/B sub-matrix size term. Default sqrt(T_B)*B_R*L, the only form that
//    reproduces the thesis's own numbers (12 prefetch registers, L = 8, 16, 24, ...); the
//    form printed in Eq. 4.4-4.6 and the one in the Sec. 4.3.4 prose are selectable.
//  - shared_element_bytes: Eq. 4.6 compares an element count with Sh_SM in bytes; we
//    multiply by sizeof(float) = 4. Set 1 for the equation exactly as printed.
//  - the F_T numerator (mix_tp) is a plain number: a measured point of Fig. 4.2/4.4, or any
//    value a user measured. `sgemm_inputs` fills it from ArchParams with a MixReading knob.

#include <cstdint>
#include <optional>
#include <stdexcept>

#include "gpuarch/model/arch_params.hpp"
#include "gpuarch/model/detail/cx_math.hpp"

namespace gpuarch::model {

enum class TileForm : std::uint8_t {
    // sqrt(T_B) * B_R * L. Lai 2013 French resume (Eq. 2-3 there); consistent with Sec. 4.4.2
    // (12 prefetch registers at T_B 256, B_R 6, L 16) and Sec. 4.3.5 (L = 8, 16, 24, ...).
    sqrt_tb_times_br_times_l,
    // sqrt(T_B * B_R * L): Eq. 4.4, 4.5, 4.6 exactly as printed.
    printed_sqrt_tb_br_l,
    // sqrt(T_B * B_R^2 * L): the Sec. 4.3.4 prose ("the size of a sub-matrix for A or B").
    prose_sqrt_tb_br2_l,
};

// Elements of the A (or B) sub-matrix a block stages in shared memory per stride.
constexpr double tile_elements(int t_b, int b_r, int l, TileForm form = TileForm::sqrt_tb_times_br_times_l) {
    if (t_b <= 0 || b_r <= 0 || l <= 0) throw std::invalid_argument("sgemm: T_B, B_R and L must be positive");
    switch (form) {
    case TileForm::sqrt_tb_times_br_times_l: return detail::cx_sqrt(t_b) * b_r * l;
    case TileForm::printed_sqrt_tb_br_l: return detail::cx_sqrt(static_cast<double>(t_b) * b_r * l);
    case TileForm::prose_sqrt_tb_br2_l: return detail::cx_sqrt(static_cast<double>(t_b) * b_r * b_r * l);
    }
    throw std::invalid_argument("sgemm: unknown TileForm");
}

// Eq. 4.4: every thread of the block loads the same number of elements (tile % T_B == 0).
// A tile that is not a whole number of elements never satisfies it.
constexpr bool equal_load(int t_b, int b_r, int l, TileForm form = TileForm::sqrt_tb_times_br_times_l) {
    const double tile = tile_elements(t_b, b_r, l, form);
    if (!detail::is_integral_value(tile)) return false;
    const auto whole = static_cast<long long>(detail::cx_round(tile));
    return whole % t_b == 0;
}

// Smallest L >= 1 satisfying Eq. 4.4 at or after `from`, or 0 when none up to `limit`.
constexpr int next_valid_stride(int t_b, int b_r, int from = 1, int limit = 4096,
                                TileForm form = TileForm::sqrt_tb_times_br_times_l) {
    for (int l = from < 1 ? 1 : from; l <= limit; ++l) {
        if (equal_load(t_b, b_r, l, form)) return l;
    }
    return 0;
}

// Eq. 4.5 second term: registers per thread that hold prefetched A and B elements.
constexpr double prefetch_registers(int t_b, int b_r, int l, TileForm form = TileForm::sqrt_tb_times_br_times_l) {
    return 2.0 * tile_elements(t_b, b_r, l, form) / t_b;
}

// F_I: LDS.X instructions per 32-bit element loaded (1, 0.5, 0.25). The thesis calls F_I
// "the ratio of FFMA instructions" but gives F_I = 0.5 for LDS.64; only this reading makes
// Eq. 4.10 produce its 75 % / 85.7 % / 92.3 % (Lai 2013 Sec. 4.3.2).
constexpr double instruction_factor(LdsWidth w) { return 32.0 / lds_bits(w); }

// Eq. 4.10 first factor: fraction of FFMA among FFMA + LDS.X in the main loop. Per k step a
// thread issues B_R^2 FFMA and loads B_R elements of A and B_R of B.
constexpr double ffma_fraction(int b_r, double f_i) {
    if (b_r <= 0 || !(f_i > 0.0)) throw std::invalid_argument("sgemm: B_R and F_I must be positive");
    const double c = static_cast<double>(b_r) * b_r;
    return c / (c + b_r * 2.0 * f_i);
}

// Eq. 4.3 (loose): B_R^2 + B_R + 1 < R_T. Returns the left-hand side.
constexpr int loose_register_need(int b_r) { return b_r * b_r + b_r + 1; }

constexpr int max_register_blocking_loose(int r_t) {
    int best = 0;
    for (int b = 1; loose_register_need(b) < r_t; ++b) best = b;
    return best;
}

// Eq. 4.5 (strict) left-hand side: B_R^2 + 2*tile/T_B + B_R + 1 + R_addr.
constexpr double strict_register_need(int b_r, int t_b, int l, int r_addr,
                                      TileForm form = TileForm::sqrt_tb_times_br_times_l) {
    return static_cast<double>(b_r) * b_r + prefetch_registers(t_b, b_r, l, form) + b_r + 1 + r_addr;
}

// Registers are whole: a fractional prefetch term (printed TileForm) rounds up.
constexpr bool strict_ok(int b_r, int t_b, int l, int r_addr, int r_t,
                         TileForm form = TileForm::sqrt_tb_times_br_times_l) {
    return detail::cx_ceil(strict_register_need(b_r, t_b, l, r_addr, form) - 1e-9) <= r_t;
}

// Largest B_R meeting Eq. 4.4 and Eq. 4.5 at the given T_B, L, R_addr, R_T; 0 if none.
constexpr int max_register_blocking_strict(int t_b, int l, int r_addr, int r_t,
                                           TileForm form = TileForm::sqrt_tb_times_br_times_l) {
    int best = 0;
    for (int b = 1; static_cast<double>(b) * b < r_t; ++b) {
        if (equal_load(t_b, b, l, form) && strict_ok(b, t_b, l, r_addr, r_t, form)) best = b;
    }
    return best;
}

// Eq. 4.2 with whole blocks: the largest multiple of T_B with T_SM * R_T <= R_SM.
constexpr int max_active_threads(int r_sm, int r_t, int t_b) {
    if (r_t <= 0 || t_b <= 0) throw std::invalid_argument("sgemm: R_T and T_B must be positive");
    return (r_sm / r_t) / t_b * t_b;
}

// Eq. 4.7: B_Sh = sqrt(T_B * B_R^2), the C tile edge per block.
constexpr double shared_blocking_factor(int t_b, int b_r) {
    return detail::cx_sqrt(static_cast<double>(t_b) * b_r * b_r);
}

// Eq. 4.8: flops per byte of global traffic: 2*B_Sh^2 flops per 2*B_Sh*4 bytes.
constexpr double memory_bound_flop_per_byte(double b_sh) { return (2.0 * b_sh * b_sh) / (2.0 * b_sh * 4.0); }

// Lai 2013 Sec. 4.4.2: the Fermi register allocation at B_R = 6 (no spills, 32-bit addressing).
struct RegisterBudget {
    int c_accumulators = 0; // B_R^2
    double prefetch = 0.0; // 2*tile/T_B
    int a_column = 0; // B_R registers for A
    int b_row = 0; // LDS.X width / 32 registers for B (2 with LDS.64)
    int global_pointers = 2; // Sec. 4.4.2 item 4
    int loop_end = 1; // Sec. 4.4.2 item 5 (kept in R1, the unused stack pointer)
    int shared_pointers_prefetch = 2; // Sec. 4.4.2 item 6
    int shared_pointers_main = 2; // Sec. 4.4.2 item 7

    constexpr double total() const {
        return c_accumulators + prefetch + a_column + b_row + global_pointers + loop_end + shared_pointers_prefetch +
               shared_pointers_main;
    }
    // The R_addr that makes Eq. 4.5 (B_R^2 + prefetch + B_R + 1 + R_addr) equal this budget.
    constexpr double r_addr_equivalent() const { return total() - (c_accumulators + prefetch + a_column + 1); }
};

constexpr RegisterBudget lai_register_budget(int b_r, int t_b, int l, LdsWidth lds,
                                             TileForm form = TileForm::sqrt_tb_times_br_times_l) {
    RegisterBudget r{};
    r.c_accumulators = b_r * b_r;
    r.prefetch = prefetch_registers(t_b, b_r, l, form);
    r.a_column = b_r;
    r.b_row = lds_bits(lds) / 32;
    return r;
}

struct SgemmInputs {
    // Implementation parameters (Lai 2013 Table 4.2).
    int b_r = 6;
    int t_b = 256;
    int l = 16;
    int r_t = 63;
    int r_addr = 8; // Sec. 4.4.2 budget: 1 extra B register (LDS.64) + 2 + 1 + 2 + 2
    LdsWidth lds = LdsWidth::b64;
    // Hardware parameters (Lai 2013 Table 4.2).
    int r_max = 63;
    int r_sm = 0;
    int sh_sm_bytes = 0;
    double sp_tp = 0.0; // #SP_TP, the F_T denominator
    double p_theoretical_gflops = 0.0;
    double bandwidth_gbs = 0.0;
    // F_T numerator: measured FFMA/LDS.X mix throughput. Empty: the SM bound is not computable.
    std::optional<double> mix_tp;
    // Knobs.
    TileForm tile_form = TileForm::sqrt_tb_times_br_times_l;
    int shared_element_bytes = 4;
};

enum class Limiter : std::uint8_t { sm_throughput, memory_bandwidth, sm_bound_unknown };

struct SgemmBound {
    // Eq. 4.1, 4.2
    bool r_t_within_max = false;
    int t_sm = 0;
    int blk = 0;
    // Eq. 4.3
    int loose_need = 0;
    bool loose_ok = false;
    // Eq. 4.4
    double tile_elements = 0.0;
    bool equal_load_ok = false;
    // Eq. 4.5
    double prefetch_registers = 0.0;
    double strict_need = 0.0;
    bool strict_ok = false;
    // Eq. 4.6
    double shared_bytes = 0.0;
    bool shared_ok = false;
    // Eq. 4.7, 4.8
    double b_sh = 0.0;
    double flop_per_byte = 0.0;
    double p_mem_gflops = 0.0;
    // Eq. 4.10
    double f_i = 0.0;
    double ffma_fraction = 0.0;
    std::optional<double> f_t;
    std::optional<double> p_sm_gflops;
    // Eq. 4.11
    std::optional<double> p_potential_gflops;
    Limiter limiter = Limiter::sm_bound_unknown;
    double p_theoretical_gflops = 0.0;

    constexpr bool feasible() const {
        return r_t_within_max && t_sm > 0 && loose_ok && equal_load_ok && strict_ok && shared_ok;
    }
    // Eq. 4.10 / P_theoretical: the SM bound as a fraction of peak.
    constexpr std::optional<double> sm_fraction() const {
        if (!p_sm_gflops) return std::nullopt;
        return *p_sm_gflops / p_theoretical_gflops;
    }
    constexpr std::optional<double> potential_fraction() const {
        if (!p_potential_gflops) return std::nullopt;
        return *p_potential_gflops / p_theoretical_gflops;
    }
};

constexpr SgemmBound sgemm_upper_bound(const SgemmInputs& in) {
    if (in.b_r <= 0 || in.t_b <= 0 || in.l <= 0 || in.r_t <= 0) {
        throw std::invalid_argument("sgemm: B_R, T_B, L and R_T must be positive");
    }
    if (!(in.sp_tp > 0.0) || !(in.p_theoretical_gflops > 0.0) || !(in.bandwidth_gbs > 0.0)) {
        throw std::invalid_argument("sgemm: SP throughput, peak and bandwidth must be positive");
    }
    SgemmBound b{};
    b.p_theoretical_gflops = in.p_theoretical_gflops;
    b.r_t_within_max = in.r_t <= in.r_max; // Eq. 4.1
    b.t_sm = max_active_threads(in.r_sm, in.r_t, in.t_b); // Eq. 4.2
    b.blk = b.t_sm / in.t_b;
    b.loose_need = loose_register_need(in.b_r); // Eq. 4.3
    b.loose_ok = b.loose_need < in.r_t;
    b.tile_elements = tile_elements(in.t_b, in.b_r, in.l, in.tile_form); // Eq. 4.4
    b.equal_load_ok = equal_load(in.t_b, in.b_r, in.l, in.tile_form);
    b.prefetch_registers = prefetch_registers(in.t_b, in.b_r, in.l, in.tile_form); // Eq. 4.5
    b.strict_need = strict_register_need(in.b_r, in.t_b, in.l, in.r_addr, in.tile_form);
    b.strict_ok = strict_ok(in.b_r, in.t_b, in.l, in.r_addr, in.r_t, in.tile_form);
    b.shared_bytes = b.blk * 2.0 * b.tile_elements * in.shared_element_bytes; // Eq. 4.6
    b.shared_ok = b.shared_bytes <= in.sh_sm_bytes;
    b.b_sh = shared_blocking_factor(in.t_b, in.b_r); // Eq. 4.7
    b.flop_per_byte = memory_bound_flop_per_byte(b.b_sh); // Eq. 4.8
    b.p_mem_gflops = b.flop_per_byte * in.bandwidth_gbs;
    b.f_i = instruction_factor(in.lds);
    b.ffma_fraction = ffma_fraction(in.b_r, b.f_i);
    if (in.mix_tp) {
        b.f_t = *in.mix_tp / in.sp_tp; // Eq. 4.9 as used
        b.p_sm_gflops = b.ffma_fraction * *b.f_t * in.p_theoretical_gflops; // Eq. 4.10
        const bool mem_limits = b.p_mem_gflops < *b.p_sm_gflops; // Eq. 4.11
        b.p_potential_gflops = mem_limits ? b.p_mem_gflops : *b.p_sm_gflops;
        b.limiter = mem_limits ? Limiter::memory_bandwidth : Limiter::sm_throughput;
    }
    return b;
}

// Inputs for `arch` as the thesis instantiates them: R_T = R_Max, T_B = 256, L = 16, the
// hardware rows of Table 4.2 from Table 1.1 and F_T's numerator from the measured mixes.
constexpr SgemmInputs sgemm_inputs(const ArchParams& arch, LdsWidth lds, int b_r = 6, int t_b = 256, int l = 16,
                                   int r_addr = 8, MixReading reading = MixReading::as_used_in_bound) {
    SgemmInputs in{};
    in.b_r = b_r;
    in.t_b = t_b;
    in.l = l;
    in.r_max = arch.topology.max_registers_per_thread;
    in.r_t = in.r_max;
    in.r_addr = r_addr;
    in.lds = lds;
    in.r_sm = arch.nominal.registers_per_sm;
    in.sh_sm_bytes = arch.nominal.shared_memory_bytes_per_sm;
    in.sp_tp = arch.nominal.sp_tp;
    in.p_theoretical_gflops = arch.nominal.peak_gflops;
    in.bandwidth_gbs = arch.nominal.global_bandwidth_gbs;
    if (const auto* m = mix_throughput(arch, lds, reading)) in.mix_tp = m->thread_instr_per_cycle;
    return in;
}

// Lai 2013 Sec. 4.2.3: when the issue ceiling is below the SP throughput, "useful" FFMA
// (FFMA RA,RB,RC,RA) cannot exceed issue_cap / SP_TP of peak (132/192 = 68.75 % on GK104).
constexpr std::optional<double> issue_limited_ffma_fraction(const ArchParams& arch) {
    if (!arch.measured.issue_cap) return std::nullopt;
    const double f = *arch.measured.issue_cap / arch.nominal.sp_tp;
    return f < 1.0 ? f : 1.0;
}

} // namespace gpuarch::model
