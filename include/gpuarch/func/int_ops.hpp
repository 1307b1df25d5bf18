#pragma once
// Integer and bit-manipulation semantics of PTX instructions (PTX ISA, "Integer Arithmetic Instructions",
// "Logic and Shift Instructions"), on values zero-extended to 64 bits.
//
// Contract: each function is the PTX ISA's pseudo-code for the instruction, including its edge cases (shift
// amounts at or past the width, bit fields that run past the msb, INT_MIN / -1). Where the PTX ISA leaves a
// result unspecified (integer division by zero), the choice is stated beside the function and in
// docs/functional.md.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <gpuarch/ir/types.hpp>

namespace gpuarch::func {

__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;

constexpr std::uint64_t low_mask(unsigned bits) {
    return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

// Sign-extends the low `bits` bits of v to 64 bits.
constexpr std::int64_t sign_extend(std::uint64_t v, unsigned bits) {
    if (bits >= 64) return static_cast<std::int64_t>(v);
    const std::uint64_t m = std::uint64_t{1} << (bits - 1);
    v &= low_mask(bits);
    return static_cast<std::int64_t>((v ^ m) - m);
}

// Division and remainder. Division by zero is unspecified in PTX; we return all ones for the quotient (what
// NVIDIA GPUs produce for unsigned division) and the dividend for the remainder. INT_MIN / -1 = INT_MIN and
// INT_MIN % -1 = 0 (two's-complement wrap, no trap).
template <class T> constexpr T int_div(T a, T b) {
    if (b == 0) return static_cast<T>(~std::make_unsigned_t<T>{0});
    if constexpr (std::is_signed_v<T>) {
        if (b == -1) return static_cast<T>(std::make_unsigned_t<T>{0} - static_cast<std::make_unsigned_t<T>>(a));
    }
    return static_cast<T>(a / b);
}
template <class T> constexpr T int_rem(T a, T b) {
    if (b == 0) return a;
    if constexpr (std::is_signed_v<T>) {
        if (b == -1) return 0;
    }
    return static_cast<T>(a % b);
}

// The high half of the double-width product (mul.hi).
template <class T> constexpr T mul_hi(T a, T b) {
    constexpr unsigned bits = sizeof(T) * 8;
    if constexpr (bits == 64) {
        if constexpr (std::is_signed_v<T>) return static_cast<T>((int128{a} * int128{b}) >> 64);
        else return static_cast<T>((uint128{a} * uint128{b}) >> 64);
    } else {
        using Wide = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;
        return static_cast<T>((Wide{a} * Wide{b}) >> bits);
    }
}

// mul24 / mad24: the 48-bit product of the low 24 bits of each operand (sign-extended for .s32).
// .lo gives bits [31:0] of the product, .hi gives bits [47:16].
constexpr std::uint32_t mul24(std::uint32_t a, std::uint32_t b, bool is_signed, bool hi) {
    const std::int64_t x = is_signed ? sign_extend(a, 24) : std::int64_t(a & 0xffffffU);
    const std::int64_t y = is_signed ? sign_extend(b, 24) : std::int64_t(b & 0xffffffU);
    const auto product = static_cast<std::uint64_t>(x * y);
    return static_cast<std::uint32_t>(hi ? (product >> 16) : product);
}

template <class T> constexpr T saturating_add(T a, T b) {
    static_assert(std::is_signed_v<T>);
    const std::int64_t sum = std::int64_t{a} + std::int64_t{b};
    return static_cast<T>(std::clamp<std::int64_t>(sum, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}

// bfe: extract `len` bits at `pos` (both taken mod 256), sign-extended from the field's top bit for signed types
// (bits past the msb replicate the sign bit of the source).
constexpr std::uint64_t bit_field_extract(std::uint64_t a, unsigned width, std::uint32_t b, std::uint32_t c,
                                          bool is_signed) {
    const unsigned msb = width - 1;
    const unsigned pos = b & 0xffU, len = c & 0xffU;
    a &= low_mask(width);
    bool sign_bit = false;
    if (is_signed && len != 0) sign_bit = ((a >> std::min(pos + len - 1, msb)) & 1U) != 0;
    const unsigned taken = pos > msb ? 0 : std::min(len, width - pos);
    std::uint64_t field = taken == 0 ? 0 : (a >> pos) & low_mask(taken);
    if (sign_bit) field |= ~low_mask(taken);
    return field & low_mask(width);
}

// bfi: insert the low `len` bits of a into b at `pos` (both taken mod 256); bits past the msb are dropped.
constexpr std::uint64_t bit_field_insert(std::uint64_t a, std::uint64_t b, std::uint32_t c, std::uint32_t d,
                                         unsigned width) {
    const unsigned pos = c & 0xffU, len = d & 0xffU;
    b &= low_mask(width);
    if (pos >= width || len == 0) return b;
    const unsigned n = std::min(len, width - pos);
    const std::uint64_t mask = low_mask(n) << pos;
    return (b & ~mask) | ((a << pos) & mask);
}

// bfind: position of the most significant non-sign bit, 0xffffffff when there is none; .shiftamt gives the left
// shift that would normalise the value instead.
constexpr std::uint32_t find_msb(std::uint64_t a, unsigned width, bool is_signed, bool shift_amount) {
    a &= low_mask(width);
    if (is_signed && ((a >> (width - 1)) & 1U) != 0) a = ~a & low_mask(width);
    if (a == 0) return 0xffffffffU;
    const unsigned pos = 63 - static_cast<unsigned>(std::countl_zero(a));
    return shift_amount ? (width - 1 - pos) : pos;
}

constexpr std::uint64_t bit_reverse(std::uint64_t a, unsigned width) {
    std::uint64_t r = 0;
    for (unsigned i = 0; i < width; ++i) r |= ((a >> i) & 1U) << (width - 1 - i);
    return r;
}

constexpr std::uint32_t count_leading_zeros(std::uint64_t a, unsigned width) {
    a &= low_mask(width);
    return static_cast<std::uint32_t>(std::countl_zero(a) - (64 - static_cast<int>(width)));
}

// PTX ISA, prmt: source byte for d.b0..d.b3 per mode and selector c[1:0].
inline constexpr unsigned prmt_mode_table[6][4][4] = {
    {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}}, // f4e
    {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}}, // b4e
    {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}}, // rc8
    {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}}, // ecl
    {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}}, // ecr
    {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}}, // rc16
};

// prmt: pick bytes of the 8-byte value {b, a} (a = bytes 0..3, b = bytes 4..7) by the selector c.
constexpr std::uint32_t permute_bytes(std::uint32_t a, std::uint32_t b, std::uint32_t c, ir::PrmtMode mode) {
    const std::uint64_t bytes = (std::uint64_t{b} << 32) | a;
    auto byte = [&](unsigned i) { return static_cast<std::uint32_t>((bytes >> (8 * (i & 7U))) & 0xffU); };
    if (mode == ir::PrmtMode::none) {
        std::uint32_t r = 0;
        for (unsigned i = 0; i < 4; ++i) {
            const unsigned sel = (c >> (4 * i)) & 0xfU;
            std::uint32_t v = byte(sel & 7U);
            if ((sel & 8U) != 0) v = (v & 0x80U) != 0 ? 0xffU : 0U; // replicate the byte's sign
            r |= v << (8 * i);
        }
        return r;
    }
    const unsigned m = static_cast<unsigned>(mode) - 1;
    const unsigned sel = c & 3U;
    std::uint32_t r = 0;
    for (unsigned i = 0; i < 4; ++i) r |= byte(prmt_mode_table[m][sel][i]) << (8 * i);
    return r;
}

// lop3: bit i of the result is immLut[(a_i << 2) | (b_i << 1) | c_i].
constexpr std::uint64_t lop3(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint32_t lut) {
    std::uint64_t r = 0;
    for (unsigned i = 0; i < 8; ++i)
        if (((lut >> i) & 1U) != 0) r |= ((i & 4U) ? a : ~a) & ((i & 2U) ? b : ~b) & ((i & 1U) ? c : ~c);
    return r;
}

// shf: funnel shift of the 64-bit value {b, a} (b high); n = c & 31 (.wrap) or min(c, 32) (.clamp).
constexpr std::uint32_t funnel_shift(std::uint32_t a, std::uint32_t b, std::uint32_t c, bool right, bool clamp) {
    const unsigned n = clamp ? std::min<std::uint32_t>(c, 32) : (c & 31U);
    const std::uint64_t v = (std::uint64_t{b} << 32) | a;
    return right ? static_cast<std::uint32_t>(v >> n) : static_cast<std::uint32_t>((v << n) >> 32);
}

// shl / shr: amounts at or past the width give 0 (shl, shr.u/.b) or the sign fill (shr.s).
constexpr std::uint64_t shift_left(std::uint64_t a, std::uint32_t n, unsigned width) {
    return n >= width ? 0 : (a << n) & low_mask(width);
}
constexpr std::uint64_t shift_right(std::uint64_t a, std::uint32_t n, unsigned width, bool arithmetic) {
    if (arithmetic) {
        const std::int64_t v = sign_extend(a, width);
        return static_cast<std::uint64_t>(v >> std::min<std::uint32_t>(n, 63)) & low_mask(width);
    }
    a &= low_mask(width);
    return n >= width ? 0 : a >> n;
}

// Byte-wise and dot-product instructions on 32-bit registers (PTX ISA 9.0: dp4a Sec. 9.7.1.23, dp2a Sec. 9.7.1.24,
// sad Sec. 9.7.1.12, vabsdiff4 Sec. 9.7.16.2). Element i of a packed operand is its bits [8i+7:8i] (bytes) or
// [16i+15:16i] (halves), sign- or zero-extended by the operand's type; sums wrap modulo 2^32.

// Element `i` of `bits`-wide elements packed in v, sign-extended when `is_signed`, else zero-extended.
constexpr std::int64_t packed_element(std::uint32_t v, unsigned i, unsigned bits, bool is_signed) {
    const std::uint64_t raw = (std::uint64_t{v} >> (i * bits)) & low_mask(bits);
    return is_signed ? sign_extend(raw, bits) : static_cast<std::int64_t>(raw);
}

// dp4a: d = c + sum over the four byte pairs of a[i] * b[i].
constexpr std::uint32_t dot4a(std::uint32_t a, std::uint32_t b, std::uint32_t c, bool a_signed, bool b_signed) {
    std::uint64_t d = c;
    for (unsigned i = 0; i < 4; ++i)
        d += static_cast<std::uint64_t>(packed_element(a, i, 8, a_signed) * packed_element(b, i, 8, b_signed));
    return static_cast<std::uint32_t>(d);
}

// dp2a: d = c + a.h0 * b[s] + a.h1 * b[s + 1], with s = 0 for .lo and 2 for .hi (the 16-bit halves of a against
// two bytes of b).
constexpr std::uint32_t dot2a(std::uint32_t a, std::uint32_t b, std::uint32_t c, bool a_signed, bool b_signed,
                              bool hi) {
    const unsigned s = hi ? 2 : 0;
    std::uint64_t d = c;
    for (unsigned i = 0; i < 2; ++i)
        d += static_cast<std::uint64_t>(packed_element(a, i, 16, a_signed) * packed_element(b, s + i, 8, b_signed));
    return static_cast<std::uint32_t>(d);
}

// sad: d = c + |a - b| on `width`-bit values (signed or unsigned), wrapping to the width.
constexpr std::uint64_t sum_abs_diff(std::uint64_t a, std::uint64_t b, std::uint64_t c, unsigned width,
                                     bool is_signed) {
    const uint128 mask = low_mask(width);
    uint128 diff = 0;
    if (is_signed) {
        const int128 x = sign_extend(a, width), y = sign_extend(b, width);
        diff = static_cast<uint128>(x < y ? y - x : x - y);
    } else {
        const uint128 x = a & low_mask(width), y = b & low_mask(width);
        diff = x < y ? y - x : x - y;
    }
    return static_cast<std::uint64_t>((diff + c) & mask);
}

// vabsdiff4 with the default byte selection (a's bytes 3210 against b's) and mask (.b3210): t[i] = |a[i] - b[i]|,
// clamped to the destination type's byte range under .sat (S8 for .s32, U8 for .u32). The merge form writes t[i]'s
// low byte to byte i of d; the accumulate form (.add) returns c + t[0] + t[1] + t[2] + t[3].
constexpr std::uint32_t vabsdiff4(std::uint32_t a, std::uint32_t b, std::uint32_t c, bool a_signed, bool b_signed,
                                  bool d_signed, bool sat, bool accumulate) {
    std::uint32_t merged = 0;
    std::uint64_t sum = c;
    for (unsigned i = 0; i < 4; ++i) {
        const std::int64_t x = packed_element(a, i, 8, a_signed), y = packed_element(b, i, 8, b_signed);
        std::int64_t t = x < y ? y - x : x - y;
        if (sat) t = std::min<std::int64_t>(t, d_signed ? 127 : 255);
        sum += static_cast<std::uint64_t>(t);
        merged |= (static_cast<std::uint32_t>(t) & 0xffU) << (8 * i);
    }
    return accumulate ? static_cast<std::uint32_t>(sum) : merged;
}

} // namespace gpuarch::func
