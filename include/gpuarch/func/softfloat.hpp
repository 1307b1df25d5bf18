#pragma once
// Exact IEEE-754 binary arithmetic in software, for any of the formats PTX names (binary16, bfloat16, binary32,
// binary64) and every rounding direction.
//
// Contract: each operation returns the correctly rounded result of the exact mathematical value under the given
// rounding direction, with flush-to-zero of subnormal inputs and results when `ftz` is set. Every NaN result is
// the canonical NaN of the output format (sign clear, exponent and fraction all ones: 0x7fff, 0x7fffffff,
// 0x7fffffffffffffff; CUDA Programming Guide, "Floating-Point Standard": 0x7fffffff for single precision).
// The functional engine uses the host FPU for round-to-nearest f32/f64 arithmetic (IEEE-754 on x86-64/SSE and
// AArch64 gives the same bits) and this file for directed rounding, half precision and conversions.
#include <bit>
#include <cstdint>
#include <utility>

namespace gpuarch::func {

__extension__ typedef unsigned __int128 uint128;

struct FloatFormat {
    unsigned exp_bits;
    unsigned frac_bits;

    constexpr int bias() const { return (1 << (exp_bits - 1)) - 1; }
    constexpr int emin() const { return 1 - bias(); } // unbiased exponent of the smallest normal
    constexpr int emax() const { return bias(); }
    constexpr std::uint64_t sign_bit() const { return std::uint64_t{1} << (exp_bits + frac_bits); }
    constexpr std::uint64_t frac_mask() const { return (std::uint64_t{1} << frac_bits) - 1; }
    constexpr std::uint64_t exp_field_mask() const { return ((std::uint64_t{1} << exp_bits) - 1) << frac_bits; }
    constexpr std::uint64_t infinity() const { return exp_field_mask(); }
    constexpr std::uint64_t canonical_nan() const { return exp_field_mask() | frac_mask(); }
    constexpr std::uint64_t max_finite() const {
        return (exp_field_mask() - (std::uint64_t{1} << frac_bits)) | frac_mask();
    }
    constexpr std::uint64_t one() const { return std::uint64_t(bias()) << frac_bits; }
};

inline constexpr FloatFormat f16_format{5, 10};
inline constexpr FloatFormat bf16_format{8, 7};
inline constexpr FloatFormat f32_format{8, 23};
inline constexpr FloatFormat f64_format{11, 52};

enum class RoundMode : std::uint8_t { nearest_even, nearest_away, toward_zero, down, up };

enum class FloatClass : std::uint8_t { zero, finite, infinite, nan };

// A decoded value: for `finite`, value = (-1)^sign * mant * 2^exp with mant > 0.
struct Unpacked {
    FloatClass cls = FloatClass::zero;
    bool sign = false;
    int exp = 0;
    std::uint64_t mant = 0;
};

constexpr bool is_nan_bits(std::uint64_t bits, FloatFormat f) {
    return (bits & f.exp_field_mask()) == f.exp_field_mask() && (bits & f.frac_mask()) != 0;
}
constexpr bool is_subnormal_bits(std::uint64_t bits, FloatFormat f) {
    return (bits & f.exp_field_mask()) == 0 && (bits & f.frac_mask()) != 0;
}
// Subnormal -> zero of the same sign (PTX .ftz).
constexpr std::uint64_t flush_subnormal(std::uint64_t bits, FloatFormat f) {
    return is_subnormal_bits(bits, f) ? (bits & f.sign_bit()) : bits;
}

constexpr Unpacked unpack(std::uint64_t bits, FloatFormat f, bool ftz) {
    Unpacked u;
    u.sign = (bits & f.sign_bit()) != 0;
    const std::uint64_t e = (bits & f.exp_field_mask()) >> f.frac_bits;
    const std::uint64_t m = bits & f.frac_mask();
    if (e == (std::uint64_t{1} << f.exp_bits) - 1) {
        u.cls = m != 0 ? FloatClass::nan : FloatClass::infinite;
    } else if (e == 0) {
        if (m == 0 || ftz) {
            u.cls = FloatClass::zero;
        } else {
            u.cls = FloatClass::finite;
            u.mant = m;
            u.exp = f.emin() - static_cast<int>(f.frac_bits);
        }
    } else {
        u.cls = FloatClass::finite;
        u.mant = m | (std::uint64_t{1} << f.frac_bits);
        u.exp = static_cast<int>(e) - f.bias() - static_cast<int>(f.frac_bits);
    }
    return u;
}

constexpr int msb_index(uint128 v) {
    const auto hi = static_cast<std::uint64_t>(v >> 64);
    if (hi != 0) return 127 - std::countl_zero(hi);
    return 63 - std::countl_zero(static_cast<std::uint64_t>(v));
}

constexpr std::uint64_t signed_zero(bool sign, FloatFormat f) { return sign ? f.sign_bit() : 0; }

// Whether a value truncated to `kept` (with the discarded part compared to half an ulp: cmp < 0 below half,
// 0 exactly half, > 0 above; `inexact` when anything was discarded) is rounded away from zero.
constexpr bool rounds_away(RoundMode mode, bool sign, std::uint64_t kept_lsb, int cmp, bool inexact) {
    if (!inexact) return false;
    switch (mode) {
    case RoundMode::nearest_even: return cmp > 0 || (cmp == 0 && (kept_lsb & 1U) != 0);
    case RoundMode::nearest_away: return cmp >= 0;
    case RoundMode::toward_zero: return false;
    case RoundMode::down: return sign;
    case RoundMode::up: return !sign;
    }
    return false;
}

// Rounds (-1)^sign * (mant + s) * 2^exp to format f, where s is in (0, 1) when `sticky` and 0 otherwise.
// Precondition: when `sticky` is set, mant has at least frac_bits + 2 significant bits, so the sticky part lies
// strictly below the rounding position.
constexpr std::uint64_t round_pack(bool sign, int exp, uint128 mant, bool sticky, FloatFormat f, RoundMode mode,
                                   bool ftz) {
    if (mant == 0) return signed_zero(sign, f); // (a sticky part alone is excluded by the precondition)
    const int precision = static_cast<int>(f.frac_bits);
    const int top = msb_index(mant) + exp; // the value lies in [2^top, 2^(top+1))
    int lsb = (top < f.emin() ? f.emin() : top) - precision;
    const int shift = lsb - exp;
    uint128 kept = 0;
    int cmp = -1;
    bool inexact = sticky;
    if (shift <= 0) {
        kept = mant << (-shift);
    } else if (shift >= 129) {
        inexact = true;
    } else {
        const uint128 half = uint128{1} << (shift - 1);
        const uint128 rem = shift == 128 ? mant : (mant & ((uint128{1} << shift) - 1));
        kept = shift == 128 ? 0 : (mant >> shift);
        cmp = rem > half ? 1 : (rem == half ? (sticky ? 1 : 0) : -1);
        inexact = inexact || rem != 0;
    }
    if (rounds_away(mode, sign, static_cast<std::uint64_t>(kept), cmp, inexact)) ++kept;
    if (kept >> (precision + 1) != 0) { // carry out of the significand
        kept >>= 1;
        ++lsb;
    }
    const std::uint64_t sign_bits = signed_zero(sign, f);
    if (kept == 0) return sign_bits;
    if (kept >> precision != 0) { // normal
        const int e = lsb + precision;
        if (e > f.emax()) {
            const bool to_infinity = mode == RoundMode::nearest_even || mode == RoundMode::nearest_away ||
                                     (mode == RoundMode::up && !sign) || (mode == RoundMode::down && sign);
            return sign_bits | (to_infinity ? f.infinity() : f.max_finite());
        }
        return sign_bits | (std::uint64_t(e + f.bias()) << f.frac_bits) |
               (static_cast<std::uint64_t>(kept) & f.frac_mask());
    }
    if (ftz) return sign_bits;
    return sign_bits | static_cast<std::uint64_t>(kept);
}

// Sum of two exact values (-1)^sa * ma * 2^ea + (-1)^sb * mb * 2^eb, both mantissas nonzero and below 2^126.
constexpr std::uint64_t add_exact(bool sa, uint128 ma, int ea, bool sb, uint128 mb, int eb, FloatFormat f,
                                  RoundMode mode, bool ftz) {
    int top_a = msb_index(ma) + ea;
    int top_b = msb_index(mb) + eb;
    if (top_b > top_a) {
        std::swap(sa, sb);
        std::swap(ma, mb);
        std::swap(ea, eb);
        std::swap(top_a, top_b);
    }
    // Place the larger operand's leading bit at position 125 (two bits of headroom for the carry).
    const int e0 = top_a - 125;
    const uint128 a = ma << (ea - e0);
    uint128 b = 0;
    bool sticky = false;
    const int shift_b = e0 - eb;
    if (shift_b <= 0) {
        b = mb << (-shift_b);
    } else if (shift_b >= 128) {
        sticky = true;
    } else {
        b = mb >> shift_b;
        sticky = (mb & ((uint128{1} << shift_b) - 1)) != 0;
    }
    if (sa == sb) return round_pack(sa, e0, a + b, sticky, f, mode, ftz);
    // Subtraction. With a sticky part, b was shifted (so a > b by far) and a - (b + s) = (a - b - 1) + (1 - s).
    if (a > b || sticky) return round_pack(sa, e0, a - b - (sticky ? 1 : 0), sticky, f, mode, ftz);
    if (a == b) return signed_zero(mode == RoundMode::down, f); // exact cancellation: +0, or -0 rounding down
    return round_pack(sb, e0, b - a, false, f, mode, ftz);
}

constexpr std::uint64_t soft_add(std::uint64_t x, std::uint64_t y, FloatFormat f, RoundMode mode, bool ftz) {
    const Unpacked a = unpack(x, f, ftz), b = unpack(y, f, ftz);
    if (a.cls == FloatClass::nan || b.cls == FloatClass::nan) return f.canonical_nan();
    if (a.cls == FloatClass::infinite || b.cls == FloatClass::infinite) {
        if (a.cls == FloatClass::infinite && b.cls == FloatClass::infinite && a.sign != b.sign)
            return f.canonical_nan();
        return signed_zero(a.cls == FloatClass::infinite ? a.sign : b.sign, f) | f.infinity();
    }
    if (a.cls == FloatClass::zero && b.cls == FloatClass::zero) {
        const bool sign = a.sign == b.sign ? a.sign : mode == RoundMode::down;
        return signed_zero(sign, f);
    }
    if (a.cls == FloatClass::zero) return round_pack(b.sign, b.exp, b.mant, false, f, mode, ftz);
    if (b.cls == FloatClass::zero) return round_pack(a.sign, a.exp, a.mant, false, f, mode, ftz);
    return add_exact(a.sign, a.mant, a.exp, b.sign, b.mant, b.exp, f, mode, ftz);
}

constexpr std::uint64_t soft_negate(std::uint64_t x, FloatFormat f) { return x ^ f.sign_bit(); }

constexpr std::uint64_t soft_sub(std::uint64_t x, std::uint64_t y, FloatFormat f, RoundMode mode, bool ftz) {
    if (is_nan_bits(y, f)) return f.canonical_nan();
    return soft_add(x, soft_negate(y, f), f, mode, ftz);
}

constexpr std::uint64_t soft_mul(std::uint64_t x, std::uint64_t y, FloatFormat f, RoundMode mode, bool ftz) {
    const Unpacked a = unpack(x, f, ftz), b = unpack(y, f, ftz);
    const bool sign = a.sign != b.sign;
    if (a.cls == FloatClass::nan || b.cls == FloatClass::nan) return f.canonical_nan();
    if (a.cls == FloatClass::infinite || b.cls == FloatClass::infinite) {
        if (a.cls == FloatClass::zero || b.cls == FloatClass::zero) return f.canonical_nan();
        return signed_zero(sign, f) | f.infinity();
    }
    if (a.cls == FloatClass::zero || b.cls == FloatClass::zero) return signed_zero(sign, f);
    return round_pack(sign, a.exp + b.exp, uint128{a.mant} * b.mant, false, f, mode, ftz);
}

// x * y + z with a single rounding.
constexpr std::uint64_t soft_fma(std::uint64_t x, std::uint64_t y, std::uint64_t z, FloatFormat f, RoundMode mode,
                                 bool ftz) {
    const Unpacked a = unpack(x, f, ftz), b = unpack(y, f, ftz), c = unpack(z, f, ftz);
    if (a.cls == FloatClass::nan || b.cls == FloatClass::nan || c.cls == FloatClass::nan) return f.canonical_nan();
    const bool product_sign = a.sign != b.sign;
    const bool product_inf = a.cls == FloatClass::infinite || b.cls == FloatClass::infinite;
    const bool product_zero = a.cls == FloatClass::zero || b.cls == FloatClass::zero;
    if (product_inf && product_zero) return f.canonical_nan();
    if (product_inf) {
        if (c.cls == FloatClass::infinite && c.sign != product_sign) return f.canonical_nan();
        return signed_zero(product_sign, f) | f.infinity();
    }
    if (c.cls == FloatClass::infinite) return signed_zero(c.sign, f) | f.infinity();
    if (product_zero) {
        if (c.cls == FloatClass::zero) return signed_zero(product_sign == c.sign ? c.sign : mode == RoundMode::down, f);
        return round_pack(c.sign, c.exp, c.mant, false, f, mode, ftz);
    }
    const uint128 product = uint128{a.mant} * b.mant;
    if (c.cls == FloatClass::zero) return round_pack(product_sign, a.exp + b.exp, product, false, f, mode, ftz);
    return add_exact(product_sign, product, a.exp + b.exp, c.sign, c.mant, c.exp, f, mode, ftz);
}

constexpr std::uint64_t soft_div(std::uint64_t x, std::uint64_t y, FloatFormat f, RoundMode mode, bool ftz) {
    const Unpacked a = unpack(x, f, ftz), b = unpack(y, f, ftz);
    const bool sign = a.sign != b.sign;
    if (a.cls == FloatClass::nan || b.cls == FloatClass::nan) return f.canonical_nan();
    if (a.cls == FloatClass::infinite) {
        if (b.cls == FloatClass::infinite) return f.canonical_nan();
        return signed_zero(sign, f) | f.infinity();
    }
    if (b.cls == FloatClass::infinite) return signed_zero(sign, f);
    if (b.cls == FloatClass::zero) {
        if (a.cls == FloatClass::zero) return f.canonical_nan();
        return signed_zero(sign, f) | f.infinity();
    }
    if (a.cls == FloatClass::zero) return signed_zero(sign, f);
    // Normalise both significands to bit 63; the quotient of (ma << 64) / mb then has 64 or 65 bits.
    const int sa = 63 - msb_index(a.mant), sb = 63 - msb_index(b.mant);
    const std::uint64_t ma = a.mant << sa, mb = b.mant << sb;
    const uint128 numerator = uint128{ma} << 64;
    const uint128 quotient = numerator / mb;
    const bool sticky = numerator % mb != 0;
    return round_pack(sign, (a.exp - sa) - 64 - (b.exp - sb), quotient, sticky, f, mode, ftz);
}

// Integer square root of v and the remainder v - root^2.
constexpr uint128 isqrt(uint128 v, uint128& remainder) {
    uint128 result = 0;
    uint128 bit = uint128{1} << 126;
    while (bit > v) bit >>= 2;
    while (bit != 0) {
        if (v >= result + bit) {
            v -= result + bit;
            result = (result >> 1) + bit;
        } else {
            result >>= 1;
        }
        bit >>= 2;
    }
    remainder = v;
    return result;
}

constexpr std::uint64_t soft_sqrt(std::uint64_t x, FloatFormat f, RoundMode mode, bool ftz) {
    const Unpacked a = unpack(x, f, ftz);
    if (a.cls == FloatClass::nan) return f.canonical_nan();
    if (a.cls == FloatClass::zero) return signed_zero(a.sign, f);
    if (a.sign) return f.canonical_nan();
    if (a.cls == FloatClass::infinite) return f.infinity();
    int shift = 124 - msb_index(a.mant);
    if (((a.exp - shift) & 1) != 0) ++shift;
    uint128 remainder = 0;
    const uint128 root = isqrt(uint128{a.mant} << shift, remainder);
    return round_pack(false, (a.exp - shift) / 2, root, remainder != 0, f, mode, ftz);
}

// Float-to-float conversion (widening is exact; narrowing rounds).
constexpr std::uint64_t soft_convert(std::uint64_t x, FloatFormat from, FloatFormat to, RoundMode mode, bool ftz) {
    const Unpacked a = unpack(x, from, ftz);
    switch (a.cls) {
    case FloatClass::nan: return to.canonical_nan();
    case FloatClass::infinite: return signed_zero(a.sign, to) | to.infinity();
    case FloatClass::zero: return signed_zero(a.sign, to);
    case FloatClass::finite: break;
    }
    return round_pack(a.sign, a.exp, a.mant, false, to, mode, ftz);
}

// Integer (given as sign and magnitude) to float.
constexpr std::uint64_t soft_from_integer(bool negative, std::uint64_t magnitude, FloatFormat to, RoundMode mode,
                                          bool ftz) {
    if (magnitude == 0) return 0;
    return round_pack(negative, 0, magnitude, false, to, mode, ftz);
}

// Rounds the magnitude mant * 2^exp (exp < 0) of a value with the given sign to an integer.
constexpr std::uint64_t round_magnitude_to_integer(bool sign, std::uint64_t mant, int exp, RoundMode mode) {
    const int shift = -exp;
    std::uint64_t kept = 0;
    int cmp = -1;
    bool inexact = true;
    if (shift < 64) {
        const std::uint64_t rem = mant & ((std::uint64_t{1} << shift) - 1);
        const std::uint64_t half = std::uint64_t{1} << (shift - 1);
        kept = mant >> shift;
        cmp = rem > half ? 1 : (rem == half ? 0 : -1);
        inexact = rem != 0;
    } else if (shift == 64) {
        cmp = mant > (std::uint64_t{1} << 63) ? 1 : (mant == (std::uint64_t{1} << 63) ? 0 : -1);
    }
    if (rounds_away(mode, sign, kept, cmp, inexact)) ++kept;
    return kept;
}

// Float to a `width`-bit integer with the given rounding; out-of-range values saturate and NaN gives 0
// (PTX ISA, cvt: "for float-to-integer conversions, the result is clamped to the destination range").
// The result is the two's-complement bit pattern zero-extended to 64 bits.
constexpr std::uint64_t soft_to_integer(std::uint64_t x, FloatFormat from, RoundMode mode, bool is_signed,
                                        unsigned width, bool ftz) {
    const Unpacked a = unpack(x, from, ftz);
    const std::uint64_t width_mask = width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
    const std::uint64_t umax = width_mask;
    const std::uint64_t smax = width_mask >> 1; // 2^(w-1) - 1
    const std::uint64_t smin_magnitude = smax + 1; // 2^(w-1)
    if (a.cls == FloatClass::nan) return 0;
    bool overflow = a.cls == FloatClass::infinite;
    std::uint64_t magnitude = 0;
    if (a.cls == FloatClass::finite) {
        if (a.exp >= 0) {
            if (a.exp >= 64 || (a.exp > 0 && (a.mant >> (64 - a.exp)) != 0)) overflow = true;
            else magnitude = a.mant << a.exp;
        } else {
            magnitude = round_magnitude_to_integer(a.sign, a.mant, a.exp, mode);
        }
    }
    if (!is_signed) {
        if (a.sign) return 0;
        if (overflow || magnitude > umax) return umax;
        return magnitude;
    }
    if (a.sign) {
        if (overflow || magnitude >= smin_magnitude) return smin_magnitude & width_mask;
        return (~magnitude + 1) & width_mask;
    }
    if (overflow || magnitude > smax) return smax;
    return magnitude;
}

// Rounds to an integral value in the same format (cvt.rni/.rzi/.rmi/.rpi between equal float types).
constexpr std::uint64_t soft_round_integral(std::uint64_t x, FloatFormat f, RoundMode mode, bool ftz) {
    const Unpacked a = unpack(x, f, ftz);
    switch (a.cls) {
    case FloatClass::nan: return f.canonical_nan();
    case FloatClass::infinite: return signed_zero(a.sign, f) | f.infinity();
    case FloatClass::zero: return signed_zero(a.sign, f);
    case FloatClass::finite: break;
    }
    if (a.exp >= 0) return x;
    const std::uint64_t integral = round_magnitude_to_integer(a.sign, a.mant, a.exp, mode);
    return round_pack(a.sign, 0, integral, false, f, mode, ftz);
}

} // namespace gpuarch::func
