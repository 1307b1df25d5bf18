#pragma once
// Arithmetic semantics: add/sub (with the carry chain), mul, mad, mul24/mad24, div, rem, abs, neg, min, max in
// their integer and float forms, and the byte-wise dp4a, dp2a, sad and vabsdiff4.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include <gpuarch/func/semantics/context.hpp>
#include <gpuarch/func/float_ops.hpp>
#include <gpuarch/func/int_ops.hpp>
#include <gpuarch/func/semantics/float.hpp>
#include <gpuarch/func/semantics/lane_ops.hpp>
#include <gpuarch/func/semantics/operands.hpp>

namespace gpuarch::func::semantics {

// add, sub, addc, subc: integer (with .sat and the carry chain) and floating point.
inline void add_sub(const Context& c) {
    const ir::Instruction& i = *c.d.inst;
    const bool subtract = i.op == ir::Opcode::sub || i.op == ir::Opcode::subc;
    if (is_float(c.d.type)) {
        float_binary(c, subtract ? Arith::sub : Arith::add);
        return;
    }
    const detail::Source a = source(c, 0), b = source(c, 1);
    std::uint64_t* dst = dst_row(c);
    const bool carry_in = i.op == ir::Opcode::addc || i.op == ir::Opcode::subc;
    const bool carry_out = i.carry_out;
    std::uint8_t* cf = c.w.carry.data();
    const bool ok = detail::dispatch_integer(c.d.type, [&]<class T>(T) {
        using U = std::make_unsigned_t<T>;
        constexpr unsigned bits = sizeof(T) * 8;
        if (i.sat) {
            if constexpr (std::is_same_v<T, std::int32_t>) {
                lanes(c, [&](unsigned l) {
                    const auto x = static_cast<std::int32_t>(a[l]), y = static_cast<std::int32_t>(b[l]);
                    const std::int64_t r = subtract ? std::int64_t{x} - y : std::int64_t{x} + y;
                    dst[l] =
                        detail::to_bits(static_cast<std::int32_t>(std::clamp<std::int64_t>(r, INT32_MIN, INT32_MAX)));
                });
                return;
            }
            unsupported(c);
        }
        if (!carry_in && !carry_out) {
            if (subtract) map(c, dst, lane_fn::Sub<U>{}, a, b);
            else map(c, dst, lane_fn::Add<U>{}, a, b);
            return;
        }
        lanes(c, [&](unsigned l) {
            const uint128 x = U(a[l]), y = U(b[l]);
            const uint128 cin = carry_in ? cf[l] : 0;
            std::uint8_t cout = 0;
            uint128 r = 0;
            if (subtract) {
                r = x - y - cin;
                cout = x < y + cin ? 1 : 0; // borrow
            } else {
                r = x + y + cin;
                cout = static_cast<std::uint8_t>((r >> bits) & 1U);
            }
            dst[l] = static_cast<U>(r);
            if (carry_out) cf[l] = cout;
        });
    });
    if (!ok) unsupported(c);
}

inline void mul(const Context& c) {
    if (is_float(c.d.type)) {
        float_binary(c, Arith::mul);
        return;
    }
    const ir::MulMode mode = c.d.inst->mul_mode;
    const detail::Source a = source(c, 0), b = source(c, 1);
    std::uint64_t* dst = dst_row(c);
    const bool ok = detail::dispatch_integer(c.d.type, [&]<class T>(T) {
        using U = std::make_unsigned_t<T>;
        if (mode == ir::MulMode::hi) {
            lanes(c,
                  [&](unsigned l) { dst[l] = detail::to_bits(mul_hi<T>(static_cast<T>(a[l]), static_cast<T>(b[l]))); });
        } else if (mode == ir::MulMode::wide) {
            if constexpr (sizeof(T) <= 4) {
                map(c, dst, lane_fn::MulWide<T>{}, a, b);
            } else {
                unsupported(c);
            }
        } else {
            map(c, dst, lane_fn::MulLo<U>{}, a, b);
        }
    });
    if (!ok) unsupported(c);
}

// mad (integer .lo/.hi/.wide with optional .sat and .cc), madc (carry in), and float mad (= fma).
inline void mad(const Context& c) {
    const ir::Instruction& i = *c.d.inst;
    if (is_float(c.d.type)) {
        fma(c);
        return;
    }
    const detail::Source a = source(c, 0), b = source(c, 1), cc = source(c, 2);
    std::uint64_t* dst = dst_row(c);
    std::uint8_t* cf = c.w.carry.data();
    const bool carry_in = i.op == ir::Opcode::madc;
    const bool carry_out = i.carry_out;
    const ir::MulMode mode = i.mul_mode;
    const bool ok = detail::dispatch_integer(c.d.type, [&]<class T>(T) {
        using U = std::make_unsigned_t<T>;
        constexpr unsigned bits = sizeof(T) * 8;
        if (mode == ir::MulMode::wide) {
            if constexpr (sizeof(T) <= 4) {
                using W = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;
                using UW = std::make_unsigned_t<W>;
                constexpr unsigned wide_bits = bits * 2;
                lanes(c, [&](unsigned l) {
                    const UW p = static_cast<UW>(W{static_cast<T>(a[l])} * W{static_cast<T>(b[l])});
                    const uint128 r =
                        uint128{p & low_mask(wide_bits)} + (cc[l] & low_mask(wide_bits)) + (carry_in ? cf[l] : 0);
                    dst[l] = static_cast<std::uint64_t>(r) & low_mask(wide_bits);
                    if (carry_out) cf[l] = static_cast<std::uint8_t>((r >> wide_bits) & 1U);
                });
                return;
            } else {
                unsupported(c);
            }
        }
        if (i.sat) { // mad.hi.sat.s32: the sum saturates to the s32 range
            if constexpr (std::is_same_v<T, std::int32_t>) {
                lanes(c, [&](unsigned l) {
                    const std::int64_t p = mode == ir::MulMode::hi
                                               ? mul_hi<std::int32_t>(static_cast<T>(a[l]), static_cast<T>(b[l]))
                                               : static_cast<std::int32_t>(U(a[l]) * U(b[l]));
                    const std::int64_t r = p + static_cast<std::int32_t>(cc[l]);
                    dst[l] =
                        detail::to_bits(static_cast<std::int32_t>(std::clamp<std::int64_t>(r, INT32_MIN, INT32_MAX)));
                });
                return;
            }
            unsupported(c);
        }
        if (!carry_in && !carry_out && mode != ir::MulMode::hi) {
            map(c, dst, lane_fn::MadLo<U>{}, a, b, cc);
            return;
        }
        lanes(c, [&](unsigned l) {
            const U p = mode == ir::MulMode::hi ? static_cast<U>(mul_hi<T>(static_cast<T>(a[l]), static_cast<T>(b[l])))
                                                : static_cast<U>(U(a[l]) * U(b[l]));
            const uint128 r = uint128{p} + U(cc[l]) + (carry_in ? cf[l] : 0);
            dst[l] = static_cast<U>(r);
            if (carry_out) cf[l] = static_cast<std::uint8_t>((r >> bits) & 1U);
        });
    });
    if (!ok) unsupported(c);
}

inline void mul24_op(const Context& c) {
    const ir::Instruction& i = *c.d.inst;
    const bool is_signed = c.d.type == ir::ScalarType::s32;
    if (c.d.type != ir::ScalarType::u32 && !is_signed) unsupported(c);
    const bool hi = i.mul_mode == ir::MulMode::hi;
    const detail::Source a = source(c, 0), b = source(c, 1);
    std::uint64_t* dst = dst_row(c);
    if (i.op == ir::Opcode::mul24) {
        lanes(c, [&](unsigned l) {
            dst[l] = mul24(static_cast<std::uint32_t>(a[l]), static_cast<std::uint32_t>(b[l]), is_signed, hi);
        });
        return;
    }
    const detail::Source cc = source(c, 2);
    const bool sat = i.sat;
    lanes(c, [&](unsigned l) {
        const std::uint32_t p =
            mul24(static_cast<std::uint32_t>(a[l]), static_cast<std::uint32_t>(b[l]), is_signed, hi);
        if (sat && is_signed) {
            const std::int64_t r = std::int64_t{static_cast<std::int32_t>(p)} + static_cast<std::int32_t>(cc[l]);
            dst[l] = detail::to_bits(static_cast<std::int32_t>(std::clamp<std::int64_t>(r, INT32_MIN, INT32_MAX)));
        } else {
            dst[l] = static_cast<std::uint32_t>(p + static_cast<std::uint32_t>(cc[l]));
        }
    });
}

inline void div(const Context& c) {
    const ir::Instruction& i = *c.d.inst;
    if (is_float(c.d.type)) {
        if (i.approx || i.full) {
            if (c.d.type != ir::ScalarType::f32) unsupported(c);
            const detail::Source a = source(c, 0), b = source(c, 1);
            std::uint64_t* dst = dst_row(c);
            const bool ftz = i.ftz;
            if (i.approx) {
                lanes(c, [&](unsigned l) { dst[l] = f32_div_approx(a[l] & 0xffffffffU, b[l] & 0xffffffffU, ftz); });
            } else { // div.full.f32: "maximum ulp error is 2 across the full range"; we round correctly
                lanes(c, [&](unsigned l) {
                    dst[l] = float_arith(Arith::div, a[l] & 0xffffffffU, b[l] & 0xffffffffU, f32_format,
                                         RoundMode::nearest_even, ftz);
                });
            }
            return;
        }
        float_binary(c, Arith::div);
        return;
    }
    const detail::Source a = source(c, 0), b = source(c, 1);
    std::uint64_t* dst = dst_row(c);
    const bool ok = detail::dispatch_integer(c.d.type, [&]<class T>(T) {
        lanes(c, [&](unsigned l) { dst[l] = detail::to_bits(int_div<T>(static_cast<T>(a[l]), static_cast<T>(b[l]))); });
    });
    if (!ok) unsupported(c);
}

inline void rem(const Context& c) {
    const detail::Source a = source(c, 0), b = source(c, 1);
    std::uint64_t* dst = dst_row(c);
    const bool ok = detail::dispatch_integer(c.d.type, [&]<class T>(T) {
        lanes(c, [&](unsigned l) { dst[l] = detail::to_bits(int_rem<T>(static_cast<T>(a[l]), static_cast<T>(b[l]))); });
    });
    if (!ok) unsupported(c);
}

inline void abs_neg(const Context& c) {
    const bool negate = c.d.op == ir::Opcode::neg;
    const detail::Source a = source(c, 0);
    std::uint64_t* dst = dst_row(c);
    if (is_float(c.d.type)) {
        const FloatFormat f = format_of(c.d.type);
        const bool ftz = c.d.inst->ftz;
        elementwise1(c, a, dst, [&](std::uint64_t x) { return negate ? float_neg(x, f, ftz) : float_abs(x, f, ftz); });
        return;
    }
    const bool ok = detail::dispatch_integer(c.d.type, [&]<class T>(T) {
        using U = std::make_unsigned_t<T>;
        lanes(c, [&](unsigned l) {
            const U x = static_cast<U>(a[l]);
            const bool negative = std::is_signed_v<T> && static_cast<T>(x) < 0;
            dst[l] = static_cast<U>((negate || negative) ? U(U(0) - x) : x);
        });
    });
    if (!ok) unsupported(c);
}

inline void min_max(const Context& c) {
    const bool is_max = c.d.op == ir::Opcode::max;
    const detail::Source a = source(c, 0), b = source(c, 1);
    std::uint64_t* dst = dst_row(c);
    if (is_float(c.d.type)) {
        const FloatFormat f = format_of(c.d.type);
        const bool ftz = c.d.inst->ftz, nan = c.d.inst->propagate_nan;
        elementwise2(c, a, b, dst,
                     [&](std::uint64_t x, std::uint64_t y) { return float_min_max(is_max, x, y, f, ftz, nan); });
        return;
    }
    const bool ok = detail::dispatch_integer(c.d.type, [&]<class T>(T) {
        lanes(c, [&](unsigned l) {
            const T x = static_cast<T>(a[l]), y = static_cast<T>(b[l]);
            dst[l] = detail::to_bits(is_max ? std::max(x, y) : std::min(x, y));
        });
    });
    if (!ok) unsupported(c);
}

// dp4a, dp2a, sad and vabsdiff4: the pure functions of int_ops.hpp per lane (type rules in
// ptx/parser/opcode_rules.hpp).
inline void byte_arithmetic(const Context& c) {
    const ir::Instruction& i = *c.d.inst;
    const detail::Source a = source(c, 0), b = source(c, 1), cc = source(c, 2);
    std::uint64_t* dst = dst_row(c);
    const auto u32 = [](std::uint64_t v) { return static_cast<std::uint32_t>(v); };
    const bool a_signed = is_signed_int(i.src_type), b_signed = is_signed_int(i.b_type);
    switch (c.d.op) {
    case ir::Opcode::dp4a:
        lanes(c, [&](unsigned l) { dst[l] = dot4a(u32(a[l]), u32(b[l]), u32(cc[l]), a_signed, b_signed); });
        break;
    case ir::Opcode::dp2a: {
        const bool hi = i.mul_mode == ir::MulMode::hi;
        lanes(c, [&](unsigned l) { dst[l] = dot2a(u32(a[l]), u32(b[l]), u32(cc[l]), a_signed, b_signed, hi); });
        break;
    }
    case ir::Opcode::sad: {
        const unsigned width = size_bytes(c.d.type) * 8;
        const bool is_signed = is_signed_int(c.d.type);
        lanes(c, [&](unsigned l) { dst[l] = sum_abs_diff(a[l], b[l], cc[l], width, is_signed); });
        break;
    }
    case ir::Opcode::vabsdiff4: {
        const bool d_signed = is_signed_int(c.d.type);
        lanes(c, [&](unsigned l) {
            dst[l] = vabsdiff4(u32(a[l]), u32(b[l]), u32(cc[l]), a_signed, b_signed, d_signed, i.sat, i.accumulate);
        });
        break;
    }
    default: unsupported(c);
    }
}

} // namespace gpuarch::func::semantics
