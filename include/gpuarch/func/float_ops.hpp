#pragma once
// Floating-point semantics of PTX instructions on raw bit patterns, per format (f16, bf16, f32, f64).
//
// Contract:
// - IEEE operations (add, sub, mul, fma, div.rnd, sqrt.rnd, rcp.rnd, cvt) are correctly rounded in the requested
//   direction. Round-to-nearest f32/f64 uses the host FPU; everything else uses softfloat.hpp.
// - `.ftz` flushes subnormal inputs and results to zero of the same sign; `.sat` clamps to [+0.0, 1.0] and
//   turns NaN into +0.0 (PTX ISA, "Floating Point Instructions: add": "NaN results are flushed to +0.0f").
// - Every NaN an arithmetic operation produces is the canonical NaN of its format (0x7fffffff for f32; see
//   softfloat.hpp). abs/neg/copysign are sign-bit operations and keep NaN payloads (CUDA Programming Guide,
//   "Floating-Point Standard": double-precision abs and negation pass NaNs through unchanged; we do the same for
//   every format).
// - min/max: a NaN operand is ignored unless both are NaN (canonical NaN), or `.NaN` is given (canonical NaN);
//   -0.0 is smaller than +0.0 (PTX ISA, "Floating Point Instructions: min/max").
// - Approximate instructions (.approx, div.full) compute the correctly rounded value of the mathematical function
//   evaluated in binary64 and rounded once to the destination format. That is within every error bound the PTX
//   ISA states for them (listed in docs/functional.md), and keeps results deterministic across hosts up to the
//   host libm's accuracy for sin/cos/exp2/log2/tanh (glibc: at most 1 binary64 ulp, far below the f32 bounds).
#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include <gpuarch/func/softfloat.hpp>
#include <gpuarch/ir/types.hpp>

namespace gpuarch::func {

constexpr RoundMode round_mode(ir::Rounding r) {
    switch (r) {
    case ir::Rounding::none:
    case ir::Rounding::rn:
    case ir::Rounding::rni: return RoundMode::nearest_even;
    case ir::Rounding::rna: return RoundMode::nearest_away;
    case ir::Rounding::rz:
    case ir::Rounding::rzi: return RoundMode::toward_zero;
    case ir::Rounding::rm:
    case ir::Rounding::rmi: return RoundMode::down;
    case ir::Rounding::rp:
    case ir::Rounding::rpi: return RoundMode::up;
    }
    return RoundMode::nearest_even;
}

constexpr bool is_integer_rounding(ir::Rounding r) {
    return r == ir::Rounding::rni || r == ir::Rounding::rzi || r == ir::Rounding::rmi || r == ir::Rounding::rpi;
}

// The binary format of one element of a float type (the element of a packed x2 type).
constexpr FloatFormat format_of(ir::ScalarType t) {
    switch (t) {
    case ir::ScalarType::f16:
    case ir::ScalarType::f16x2: return f16_format;
    case ir::ScalarType::bf16:
    case ir::ScalarType::bf16x2: return bf16_format;
    case ir::ScalarType::f64: return f64_format;
    default: return f32_format;
    }
}
constexpr bool is_packed_half(ir::ScalarType t) { return t == ir::ScalarType::f16x2 || t == ir::ScalarType::bf16x2; }
constexpr bool is_half(ir::ScalarType t) {
    return t == ir::ScalarType::f16 || t == ir::ScalarType::bf16 || is_packed_half(t);
}

inline float as_f32(std::uint64_t bits) { return std::bit_cast<float>(static_cast<std::uint32_t>(bits)); }
inline double as_f64(std::uint64_t bits) { return std::bit_cast<double>(bits); }
// Bits of a host result, with NaN made canonical.
inline std::uint64_t bits_of(float v) { return std::isnan(v) ? 0x7fffffffU : std::bit_cast<std::uint32_t>(v); }
inline std::uint64_t bits_of(double v) {
    return std::isnan(v) ? 0x7fffffffffffffffULL : std::bit_cast<std::uint64_t>(v);
}

// Exact value of any supported format as a binary64 number (every f16, bf16 and f32 value is a binary64 value).
inline double to_double(std::uint64_t bits, FloatFormat f) {
    if (f.frac_bits == 52) return as_f64(bits);
    if (f.frac_bits == 23) return static_cast<double>(as_f32(bits));
    return as_f64(soft_convert(bits, f, f64_format, RoundMode::nearest_even, false));
}
// Correctly rounded (to nearest even) conversion of a binary64 number to format f.
inline std::uint64_t from_double(double v, FloatFormat f) {
    if (f.frac_bits == 52) return bits_of(v);
    return soft_convert(bits_of(v), f64_format, f, RoundMode::nearest_even, false);
}

inline std::uint64_t saturate(std::uint64_t bits, FloatFormat f) {
    if (is_nan_bits(bits, f)) return 0;
    if ((bits & f.sign_bit()) != 0) return 0; // negative values and -0.0 clamp to +0.0
    if ((bits & ~f.sign_bit()) > f.one()) return f.one();
    return bits;
}

// ---- IEEE arithmetic ---------------------------------------------------------------------------------------

enum class Arith : std::uint8_t { add, sub, mul, div };

// One element of add/sub/mul/div in format f with rounding mode `mode`.
inline std::uint64_t float_arith(Arith op, std::uint64_t a, std::uint64_t b, FloatFormat f, RoundMode mode, bool ftz) {
    if (ftz) {
        a = flush_subnormal(a, f);
        b = flush_subnormal(b, f);
    }
    if (mode == RoundMode::nearest_even && (f.frac_bits == 23 || f.frac_bits == 52)) {
        std::uint64_t r = 0;
        if (f.frac_bits == 23) {
            const float x = as_f32(a), y = as_f32(b);
            r = bits_of(op == Arith::add ? x + y : op == Arith::sub ? x - y : op == Arith::mul ? x * y : x / y);
        } else {
            const double x = as_f64(a), y = as_f64(b);
            r = bits_of(op == Arith::add ? x + y : op == Arith::sub ? x - y : op == Arith::mul ? x * y : x / y);
        }
        return ftz ? flush_subnormal(r, f) : r;
    }
    switch (op) {
    case Arith::add: return soft_add(a, b, f, mode, ftz);
    case Arith::sub: return soft_sub(a, b, f, mode, ftz);
    case Arith::mul: return soft_mul(a, b, f, mode, ftz);
    case Arith::div: return soft_div(a, b, f, mode, ftz);
    }
    return f.canonical_nan();
}

inline std::uint64_t float_fma(std::uint64_t a, std::uint64_t b, std::uint64_t c, FloatFormat f, RoundMode mode,
                               bool ftz) {
    if (ftz) {
        a = flush_subnormal(a, f);
        b = flush_subnormal(b, f);
        c = flush_subnormal(c, f);
    }
    if (mode == RoundMode::nearest_even && f.frac_bits == 23) {
        const std::uint64_t r = bits_of(std::fma(as_f32(a), as_f32(b), as_f32(c)));
        return ftz ? flush_subnormal(r, f) : r;
    }
    if (mode == RoundMode::nearest_even && f.frac_bits == 52) return bits_of(std::fma(as_f64(a), as_f64(b), as_f64(c)));
    return soft_fma(a, b, c, f, mode, ftz);
}

inline std::uint64_t float_sqrt(std::uint64_t a, FloatFormat f, RoundMode mode, bool ftz) {
    if (ftz) a = flush_subnormal(a, f);
    if (mode == RoundMode::nearest_even && f.frac_bits == 23) {
        const std::uint64_t r = bits_of(std::sqrt(as_f32(a)));
        return ftz ? flush_subnormal(r, f) : r;
    }
    if (mode == RoundMode::nearest_even && f.frac_bits == 52) return bits_of(std::sqrt(as_f64(a)));
    return soft_sqrt(a, f, mode, ftz);
}

inline std::uint64_t float_abs(std::uint64_t a, FloatFormat f, bool ftz) {
    if (ftz) a = flush_subnormal(a, f);
    return a & ~f.sign_bit();
}
inline std::uint64_t float_neg(std::uint64_t a, FloatFormat f, bool ftz) {
    if (ftz) a = flush_subnormal(a, f);
    return a ^ f.sign_bit();
}

inline std::uint64_t float_min_max(bool is_max, std::uint64_t a, std::uint64_t b, FloatFormat f, bool ftz,
                                   bool propagate_nan) {
    if (ftz) {
        a = flush_subnormal(a, f);
        b = flush_subnormal(b, f);
    }
    const bool na = is_nan_bits(a, f), nb = is_nan_bits(b, f);
    if (na || nb) {
        if (propagate_nan || (na && nb)) return f.canonical_nan();
        return na ? b : a;
    }
    const double x = to_double(a, f), y = to_double(b, f);
    if (x == y) { // equal values; only the zeros differ in bits: -0.0 < +0.0
        const bool a_negative = (a & f.sign_bit()) != 0;
        return is_max ? (a_negative ? b : a) : (a_negative ? a : b);
    }
    return (x < y) != is_max ? a : b;
}

// ---- comparisons -------------------------------------------------------------------------------------------

template <class T> inline bool compare_float(ir::CompareOp op, T a, T b) {
    const bool unordered = std::isnan(a) || std::isnan(b);
    switch (op) {
    case ir::CompareOp::eq: return !unordered && a == b;
    case ir::CompareOp::ne: return !unordered && a != b;
    case ir::CompareOp::lt: return !unordered && a < b;
    case ir::CompareOp::le: return !unordered && a <= b;
    case ir::CompareOp::gt: return !unordered && a > b;
    case ir::CompareOp::ge: return !unordered && a >= b;
    case ir::CompareOp::equ: return unordered || a == b;
    case ir::CompareOp::neu: return unordered || a != b;
    case ir::CompareOp::ltu: return unordered || a < b;
    case ir::CompareOp::leu: return unordered || a <= b;
    case ir::CompareOp::gtu: return unordered || a > b;
    case ir::CompareOp::geu: return unordered || a >= b;
    case ir::CompareOp::num: return !unordered;
    case ir::CompareOp::nan: return unordered;
    default: return false;
    }
}

template <class T> constexpr bool compare_int(ir::CompareOp op, T a, T b) {
    using U = std::make_unsigned_t<T>;
    const U ua = static_cast<U>(a), ub = static_cast<U>(b);
    switch (op) {
    case ir::CompareOp::eq: return a == b;
    case ir::CompareOp::ne: return a != b;
    case ir::CompareOp::lt: return a < b;
    case ir::CompareOp::le: return a <= b;
    case ir::CompareOp::gt: return a > b;
    case ir::CompareOp::ge: return a >= b;
    case ir::CompareOp::lo: return ua < ub;
    case ir::CompareOp::ls: return ua <= ub;
    case ir::CompareOp::hi: return ua > ub;
    case ir::CompareOp::hs: return ua >= ub;
    default: return false;
    }
}

inline bool compare_float_bits(ir::CompareOp op, std::uint64_t a, std::uint64_t b, FloatFormat f, bool ftz) {
    if (ftz) {
        a = flush_subnormal(a, f);
        b = flush_subnormal(b, f);
    }
    return compare_float(op, to_double(a, f), to_double(b, f));
}

inline bool float_test(ir::TestKind kind, std::uint64_t a, FloatFormat f) {
    const std::uint64_t e = a & f.exp_field_mask(), m = a & f.frac_mask();
    const bool special = e == f.exp_field_mask();
    switch (kind) {
    case ir::TestKind::finite: return !special;
    case ir::TestKind::infinite: return special && m == 0;
    case ir::TestKind::number: return !(special && m != 0);
    case ir::TestKind::notanumber: return special && m != 0;
    case ir::TestKind::normal: return !special && e != 0;
    case ir::TestKind::subnormal: return e == 0 && m != 0;
    case ir::TestKind::none: break;
    }
    return false;
}

// ---- approximate functions ---------------------------------------------------------------------------------

enum class Approx : std::uint8_t { rcp, sqrt, rsqrt, sin, cos, lg2, ex2, tanh };

// One element of an approximate unary function in format f (see the file contract for the accuracy).
inline std::uint64_t float_approx(Approx fn, std::uint64_t a, FloatFormat f, bool ftz) {
    if (ftz) a = flush_subnormal(a, f);
    const double x = to_double(a, f);
    double y = 0;
    switch (fn) {
    case Approx::rcp: y = 1.0 / x; break;
    case Approx::sqrt: y = std::sqrt(x); break;
    case Approx::rsqrt: y = 1.0 / std::sqrt(x); break;
    case Approx::sin: y = std::sin(x); break;
    case Approx::cos: y = std::cos(x); break;
    case Approx::lg2: y = std::log2(x); break;
    case Approx::ex2: y = std::exp2(x); break;
    case Approx::tanh: y = std::tanh(x); break;
    }
    std::uint64_t r = 0;
    if (f.frac_bits == 52) {
        r = bits_of(y);
    } else if (f.frac_bits == 23 && (fn == Approx::rcp || fn == Approx::sqrt)) {
        // Correctly rounded by the host FPU in binary32 (rounding the binary64 value again could differ).
        r = bits_of(fn == Approx::rcp ? 1.0f / as_f32(a) : std::sqrt(as_f32(a)));
    } else if (fn == Approx::rcp || fn == Approx::sqrt) {
        r = fn == Approx::rcp ? soft_div(f.one(), a, f, RoundMode::nearest_even, false)
                              : soft_sqrt(a, f, RoundMode::nearest_even, false);
    } else {
        r = from_double(y, f);
    }
    return ftz ? flush_subnormal(r, f) : r;
}

// div.approx.f32: "For |b| in [2^-126, 2^126] the maximum ulp error is 2. For 2^126 < |b| < 2^128, if a is
// infinity, div.approx.f32 returns NaN, otherwise returns 0" (PTX ISA, "Floating Point Instructions: div").
inline std::uint64_t f32_div_approx(std::uint64_t a, std::uint64_t b, bool ftz) {
    if (ftz) {
        a = flush_subnormal(a, f32_format);
        b = flush_subnormal(b, f32_format);
    }
    const float x = as_f32(a), y = as_f32(b);
    const float magnitude = std::fabs(y);
    if (magnitude > 0x1p126f && !std::isinf(magnitude) && !std::isnan(y)) {
        if (std::isinf(x)) return f32_format.canonical_nan();
        if (std::isnan(x)) return f32_format.canonical_nan();
        return ((a ^ b) & f32_format.sign_bit());
    }
    const std::uint64_t r = bits_of(x / y);
    return ftz ? flush_subnormal(r, f32_format) : r;
}

} // namespace gpuarch::func
