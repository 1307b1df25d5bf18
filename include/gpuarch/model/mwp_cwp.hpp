#pragma once
// MWP-CWP model (Hong & Kim, ISCA 2009), as reviewed in Lai 2013 Sec. 1.3.1, and its
// extension by Sim et al. (PPoPP 2012; Lai 2013 Sec. 1.3.2, Eq. 1.3).
//
// MWP (memory warp parallelism): warps that can access memory in parallel during one memory
// waiting period. CWP (computation warp parallelism): warps whose computation fits in one
// warp's memory wait. Per SM, with N active warps:
//   CWP >= MWP (memory dominated):  Exec = Mem_cycles * N / MWP + Comp_p * MWP   (Eq. 1.1)
//   MWP >  CWP (compute dominated): Exec = Mem_p + Comp_cycles * N              (Eq. 1.2)
// with Comp_p = Comp_cycles / #memory instructions (one computation period) and Mem_p = one
// memory period (Mem_L).
//
// Knob MwpCwpComputeTerm: Lai prints Comp_p * MWP in Eq. 1.1; the Hong & Kim paper (and the
// reimplementations of it) use Comp_p * (MWP - 1), the computation of the last memory period
// that the first MWP - 1 periods do not hide. Default follows Lai, the text we implement.
//
// Hong & Kim also have a third case, used here as in their paper: when both MWP and CWP reach
// N (not enough warps to hide anything), Exec = Mem_cycles + Comp_cycles + Comp_p * (MWP - 1).
// The MWP/CWP definitions below are Hong & Kim's; Lai 2013 does not reproduce them.

#include <cstdint>
#include <stdexcept>

namespace gpuarch::model {

enum class MwpCwpComputeTerm : std::uint8_t {
    lai_printed, // Comp_p * MWP (Lai 2013 Eq. 1.1 as printed)
    hong_kim_original, // Comp_p * (MWP - 1)
};

enum class MwpCwpCase : std::uint8_t { memory_dominated, compute_dominated, warp_limited };

struct MwpCwpInputs {
    double mem_cycles = 0.0; // memory waiting cycles of one warp (Mem_L x memory instructions)
    double comp_cycles = 0.0; // computation (issue) cycles of one warp
    double mem_insts = 0.0; // memory instructions per warp
    double mem_latency = 0.0; // Mem_L = Mem_p, one memory period
    double n = 0.0; // active warps per SM
    double mwp = 0.0;
    double cwp = 0.0;
    double repetitions = 1.0; // rounds of active warps per SM (#Rep)
    MwpCwpComputeTerm term = MwpCwpComputeTerm::lai_printed;
};

struct MwpCwpResult {
    double exec_cycles = 0.0;
    double comp_p = 0.0;
    MwpCwpCase which = MwpCwpCase::memory_dominated;
};

constexpr MwpCwpResult mwp_cwp_exec_cycles(const MwpCwpInputs& in) {
    if (!(in.n > 0.0) || !(in.mwp > 0.0) || !(in.cwp > 0.0) || !(in.mem_insts > 0.0) || !(in.comp_cycles >= 0.0) ||
        !(in.mem_cycles >= 0.0) || !(in.repetitions > 0.0)) {
        throw std::invalid_argument("mwp_cwp: N, MWP, CWP and memory instructions must be positive");
    }
    if (in.mwp > in.n || in.cwp > in.n) throw std::invalid_argument("mwp_cwp: MWP and CWP cannot exceed N");
    MwpCwpResult r{};
    r.comp_p = in.comp_cycles / in.mem_insts;
    if (in.mwp == in.n && in.cwp == in.n) {
        r.which = MwpCwpCase::warp_limited;
        r.exec_cycles = in.mem_cycles + in.comp_cycles + r.comp_p * (in.mwp - 1.0);
    } else if (in.cwp >= in.mwp) {
        r.which = MwpCwpCase::memory_dominated;
        const double overlap_periods = in.term == MwpCwpComputeTerm::lai_printed ? in.mwp : in.mwp - 1.0;
        r.exec_cycles = in.mem_cycles * in.n / in.mwp + r.comp_p * overlap_periods; // Eq. 1.1
    } else {
        r.which = MwpCwpCase::compute_dominated;
        r.exec_cycles = in.mem_latency + in.comp_cycles * in.n; // Eq. 1.2
    }
    r.exec_cycles *= in.repetitions;
    return r;
}

// Hong & Kim: CWP = min((Mem_cycles + Comp_cycles) / Comp_cycles, N).
constexpr double hong_kim_cwp(double mem_cycles, double comp_cycles, double n) {
    if (!(comp_cycles > 0.0) || !(n > 0.0))
        throw std::invalid_argument("hong_kim_cwp: Comp_cycles and N must be positive");
    const double full = (mem_cycles + comp_cycles) / comp_cycles;
    return full < n ? full : n;
}

// Hong & Kim: MWP = min(Mem_L / departure_delay, B_mem / (BW_per_warp * active SMs), N) with
// BW_per_warp = f * bytes per warp access / Mem_L. Units: GB/s, GHz, bytes, cycles.
struct HongKimMwpInputs {
    double mem_latency = 0.0; // Mem_L, cycles
    double departure_delay = 0.0; // cycles between two memory warps leaving the SM
    double bandwidth_gbs = 0.0;
    double clock_ghz = 0.0;
    double bytes_per_warp_access = 0.0;
    double active_sms = 0.0;
    double n = 0.0;
};

constexpr double hong_kim_mwp(const HongKimMwpInputs& in) {
    if (!(in.mem_latency > 0.0) || !(in.departure_delay > 0.0) || !(in.bandwidth_gbs > 0.0) || !(in.clock_ghz > 0.0) ||
        !(in.bytes_per_warp_access > 0.0) || !(in.active_sms > 0.0) || !(in.n > 0.0)) {
        throw std::invalid_argument("hong_kim_mwp: all inputs must be positive");
    }
    const double without_bw = in.mem_latency / in.departure_delay;
    const double bw_per_warp = in.clock_ghz * in.bytes_per_warp_access / in.mem_latency; // GB/s
    const double peak_bw = in.bandwidth_gbs / (bw_per_warp * in.active_sms);
    double m = without_bw < peak_bw ? without_bw : peak_bw;
    return m < in.n ? m : in.n;
}

// Sim et al. (Lai 2013 Eq. 1.3): T_exec = T_comp + T_mem - T_overlap, where the overlap lies
// between 0 (nothing hidden) and T_mem (all memory time hidden).
constexpr double extended_mwp_cwp_exec_time(double t_comp, double t_mem, double t_overlap) {
    if (!(t_comp >= 0.0) || !(t_mem >= 0.0) || !(t_overlap >= 0.0) || t_overlap > t_mem) {
        throw std::invalid_argument("extended_mwp_cwp: need 0 <= T_overlap <= T_mem and non-negative times");
    }
    return t_comp + t_mem - t_overlap;
}

} // namespace gpuarch::model
