#pragma once
// Data-flow bandwidth model of the lattice-QCD Hopping_Matrix (Dslash) routine on Cell B.E.
// and GT200 (Lai 2013 Ch. 2).
//
// The processor is a set of units joined by data paths of known bandwidth. Per space-time
// site the routine performs 1320 flops and moves a number of bytes that depends on which of
// five memory-access patterns the platform can apply (Table 2.3):
//   P1 reconstruct the gauge field in the processor (8 of 18 reals are stored)
//   P2 share gauge data between neighbour sites (gauge traffic halves)
//   P3 keep intermediate half spinors in local fast memory
//   P4 keep inter-processor boundary half spinors local (fraction alpha of them)
//   P5 keep inter-core boundary half spinors local (fraction beta of them)
// A ratio R = flops / bytes crossing one interface, times that interface's bandwidth, bounds
// the performance: P = B * R (Eq. 2.2-2.4).
//
// Byte accounting per site (double precision, 16 B per complex number), reconstructed from
// Table 2.4's denominators (3072 = 384 + 1152 + 1536; 2432 = 384 + 1152 * 8/18 + 1536):
//   spinor   2 * 192 B (load + store)                                   always
//   gauge    8 * 144 B, * 8/18 with P1, * 1/2 with P2
//   half     2 * 8 * 96 B = 1536 B (written, then read back) when P3 is off, minus the
//            boundary fractions kept local by P4 (alpha) and P5 (beta);
//            with P3 on only the boundary fractions not kept local reach memory.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

namespace gpuarch::model {

// Lai 2013 Sec. 2.3: per-site constants.
struct LatticeSite {
    double flops = 1320; // 8 * (12 + 72 + 60) + 7 * 24
    double spinor_bytes = 192; // 3x4 complex
    double gauge_link_bytes = 144; // 3x3 complex
    double half_spinor_bytes = 96; // 3x2 complex
    int directions = 8;
    double gauge_reals_stored = 18; // 9 complex
    double gauge_reals_reconstructed = 8; // P1 (Sec. 2.4.1: "12 or 8"; Table 2.4 uses 8)
};

struct LatticePatterns {
    bool p1 = false, p2 = false, p3 = false, p4 = false, p5 = false;

    // "P1 P2 P3 P4 P5" as Table 2.4 writes it, e.g. "01111".
    static constexpr LatticePatterns from_bits(std::string_view bits) {
        if (bits.size() != 5) throw std::invalid_argument("lattice patterns: need five 0/1 characters (P1..P5)");
        bool v[5] = {};
        for (std::size_t i = 0; i < 5; ++i) {
            if (bits[i] != '0' && bits[i] != '1')
                throw std::invalid_argument("lattice patterns: characters must be 0 or 1");
            v[i] = bits[i] == '1';
        }
        return LatticePatterns{v[0], v[1], v[2], v[3], v[4]};
    }
};

// Lai 2013 Sec. 2.4.1: "we use ... alpha = 0.125"; beta is never instantiated.
struct BoundaryFractions {
    double alpha = 0.125; // inter-processor boundary half spinors
    double beta = 0.0; // inter-core boundary half spinors
};

constexpr double half_spinor_traffic_bytes(const LatticeSite& s) {
    return 2.0 * s.directions * s.half_spinor_bytes; // written once, read once
}

constexpr double gauge_bytes(const LatticePatterns& p, const LatticeSite& s) {
    double g = s.directions * s.gauge_link_bytes;
    if (p.p1) g *= s.gauge_reals_reconstructed / s.gauge_reals_stored;
    if (p.p2) g *= 0.5;
    return g;
}

// Table 2.4 is not self-consistent about which boundary fraction P4 and P5 keep local: in the
// rows with P3 off, P4 removes alpha and P5 removes beta (e.g. (00001) = 1320/(3072 - 1536 beta)),
// as Table 2.3 defines them; in the rows with P3 on the printed entries attribute them the other
// way round (e.g. (00101) = 1320/(1536 + 1536 beta), although P5 keeps the beta part local).
enum class Table24Reading : std::uint8_t {
    by_definition, // default: P4 <-> alpha and P5 <-> beta in every row
    as_printed, // swap alpha and beta in the P3-on rows, reproducing every printed cell
};

constexpr double half_spinor_memory_bytes(const LatticePatterns& p, const LatticeSite& s, const BoundaryFractions& f,
                                          Table24Reading reading = Table24Reading::by_definition) {
    const double h = half_spinor_traffic_bytes(s);
    if (p.p3) {
        const bool swap = reading == Table24Reading::as_printed;
        const double kept_by_p4 = swap ? f.beta : f.alpha;
        const double kept_by_p5 = swap ? f.alpha : f.beta;
        return h * ((p.p4 ? 0.0 : kept_by_p4) + (p.p5 ? 0.0 : kept_by_p5));
    }
    return h * (1.0 - (p.p4 ? f.alpha : 0.0) - (p.p5 ? f.beta : 0.0));
}

// Denominator of R_A/M (Eq. 2.2): main-memory bytes per site.
constexpr double main_memory_bytes(const LatticePatterns& p, const LatticeSite& s = {}, const BoundaryFractions& f = {},
                                   Table24Reading reading = Table24Reading::by_definition) {
    return 2.0 * s.spinor_bytes + gauge_bytes(p, s) + half_spinor_memory_bytes(p, s, f, reading);
}

// Eq. 2.2.
constexpr double ratio_arith_to_memory(const LatticePatterns& p, const LatticeSite& s = {},
                                       const BoundaryFractions& f = {},
                                       Table24Reading reading = Table24Reading::by_definition) {
    return s.flops / main_memory_bytes(p, s, f, reading);
}

// Eq. 2.4: I/O carries the inter-processor boundary half spinors, alpha of the half-spinor
// traffic (the thesis's 1320 / (1536 alpha) for both platforms).
constexpr double ratio_arith_to_io(const LatticeSite& s = {}, const BoundaryFractions& f = {}) {
    if (!(f.alpha > 0.0)) throw std::invalid_argument("lattice: R_A/IO needs alpha > 0");
    return s.flops / (half_spinor_traffic_bytes(s) * f.alpha);
}

// Eq. 2.3 counts "accesses from processor core to other parts". The thesis instantiates it
// twice with two different scopes, so the scope is a knob:
//  - all_core_traffic: main-memory bytes plus boundary half spinors exchanged directly
//    (P4/P5). Reproduces GT200 (10000): R_A/C = R_A/M = 0.54.
//  - direct_exchange_only: only the boundary half spinors the core exchanges directly, which
//    is the thesis's Cell (01111) value 1320 / (1536 (alpha + beta)).
enum class CoreTrafficScope : std::uint8_t { all_core_traffic, direct_exchange_only };

constexpr double ratio_arith_to_core(const LatticePatterns& p, CoreTrafficScope scope, const LatticeSite& s = {},
                                     const BoundaryFractions& f = {}) {
    const double h = half_spinor_traffic_bytes(s);
    const double direct = h * ((p.p4 ? f.alpha : 0.0) + (p.p5 ? f.beta : 0.0));
    const double bytes = scope == CoreTrafficScope::all_core_traffic ? main_memory_bytes(p, s, f) + direct : direct;
    if (!(bytes > 0.0)) throw std::invalid_argument("lattice: no core traffic in this scope (R_A/C undefined)");
    return s.flops / bytes;
}

// P = B * R * efficiency (GB/s * flop/byte = GFLOPS).
constexpr double dataflow_bound_gflops(double bandwidth_gbs, double ratio, double efficiency = 1.0) {
    if (!(bandwidth_gbs > 0.0) || !(ratio > 0.0) || !(efficiency > 0.0 && efficiency <= 1.0)) {
        throw std::invalid_argument("dataflow bound: bandwidth and ratio must be positive, efficiency in (0, 1]");
    }
    return bandwidth_gbs * ratio * efficiency;
}

// Bandwidths the thesis instantiates in Ch. 2.
inline constexpr double cell_main_memory_gbs = 25.6; // B3, Sec. 2.2.1 (XDR/DDR, QS20/QS22)
inline constexpr double cell_dp_peak_gflops = 102.4; // Sec. 2.4.1.1
inline constexpr double gtx280_graphic_memory_gbs = 140.0; // B2, Sec. 2.4.2 ("around 140GB/s")
inline constexpr double pcie_gbs = 8.0; // B3 (PCIe), Sec. 2.4.2
inline constexpr double pcie_encoding_efficiency = 0.8; // "20% overhead because of encoding"

} // namespace gpuarch::model
