#pragma once
// Constant-expression replacements for the few <cmath> functions the analytical models
// need. std::sqrt/std::floor are not constexpr in C++20 (GCC accepts them as an extension,
// clang does not), and every model in gpuarch::model must be usable inside static_assert.

#include <limits>
#include <stdexcept>

namespace gpuarch::model::detail {

// Contract: x >= 0 and finite. Newton's iteration started above the root decreases
// monotonically, so it stops at the first step that no longer decreases; for perfect
// squares (9216 -> 96) the result is exact.
constexpr double cx_sqrt(double x) {
    if (!(x >= 0.0) || x > std::numeric_limits<double>::max()) {
        throw std::domain_error("gpuarch::model: square root of a negative or non-finite value");
    }
    if (x == 0.0) return 0.0;
    double r = x >= 1.0 ? x : 1.0;
    for (int i = 0; i < 4096; ++i) {
        const double next = 0.5 * (r + x / r);
        if (!(next < r)) break;
        r = next;
    }
    return r;
}

// Contract: |x| < 2^62 (all model quantities are far below).
constexpr double cx_floor(double x) {
    if (!(x > -4.6e18 && x < 4.6e18)) throw std::domain_error("gpuarch::model: floor out of range");
    const auto t = static_cast<long long>(x); // truncates toward zero
    const double td = static_cast<double>(t);
    return (td > x) ? td - 1.0 : td;
}

constexpr double cx_ceil(double x) { return -cx_floor(-x); }

// Round half away from zero, as a printed table does.
constexpr double cx_round(double x) { return x >= 0.0 ? cx_floor(x + 0.5) : -cx_floor(-x + 0.5); }

constexpr double cx_pow10(int decimals) {
    double p = 1.0;
    for (int i = 0; i < decimals; ++i) p *= 10.0;
    return p;
}

// The value as a paper prints it with `decimals` digits after the point.
constexpr double round_to_decimals(double x, int decimals) {
    const double p = cx_pow10(decimals);
    return cx_round(x * p) / p;
}

constexpr bool is_integral_value(double x, double tolerance = 1e-9) {
    const double r = cx_round(x);
    const double d = x - r;
    return d <= tolerance && d >= -tolerance;
}

} // namespace gpuarch::model::detail
