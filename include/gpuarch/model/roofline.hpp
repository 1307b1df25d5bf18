#pragma once
// Roofline bound (Williams, Waterman, Patterson, CACM 2009; Lai 2013 Eq. 1.7):
//   P_upper_bound = min(P_peak, B_peak * operational_intensity)
// Units are the caller's, kept consistent: GFLOPS, GB/s and flop/byte give GFLOPS.

#include <stdexcept>

namespace gpuarch::model {

struct RooflineResult {
    double attainable = 0.0;
    bool memory_bound = false; // the bandwidth roof is the lower one
};

constexpr RooflineResult roofline(double peak, double bandwidth, double operational_intensity) {
    if (!(peak > 0.0) || !(bandwidth > 0.0) || !(operational_intensity >= 0.0)) {
        throw std::invalid_argument("roofline: peak and bandwidth must be positive, intensity non-negative");
    }
    const double memory_roof = bandwidth * operational_intensity;
    return memory_roof < peak ? RooflineResult{memory_roof, true} : RooflineResult{peak, false};
}

// Operational intensity at which the two roofs meet.
constexpr double roofline_ridge_intensity(double peak, double bandwidth) {
    if (!(peak > 0.0) || !(bandwidth > 0.0))
        throw std::invalid_argument("roofline: peak and bandwidth must be positive");
    return peak / bandwidth;
}

} // namespace gpuarch::model
