#pragma once
// Conversion and data-movement semantics: cvt, cvta, mov (with vector pack and unpack).

#include <algorithm>
#include <array>
#include <cstdint>

#include <gpuarch/func/semantics/context.hpp>
#include <gpuarch/func/float_ops.hpp>
#include <gpuarch/func/int_ops.hpp>
#include <gpuarch/func/semantics/operands.hpp>

namespace gpuarch::func::semantics {

// cvt between every integer and float type, with rounding, saturation and .ftz.
inline void convert(const Context& c) {
    const ir::Instruction& i = *c.d.inst;
    const ir::ScalarType dt = c.d.type, st = i.src_type;
    const detail::Source a = source(c, 0);
    std::uint64_t* dst = dst_row(c);
    const unsigned dbits = size_bytes(dt) * 8, sbits = size_bytes(st) * 8;
    const unsigned reg_bits = std::max<unsigned>(c.d.dst_bits, dbits);
    const bool ftz = i.ftz, sat = i.sat;
    const RoundMode m = round_mode(i.rounding);
    if (dbits == 0 || sbits == 0) unsupported(c);
    // Pack two f32 into f16x2 / bf16x2: a goes to the upper half, b to the lower half.
    if (is_packed_half(dt)) {
        if (st != ir::ScalarType::f32 || c.d.num_sources < 2) unsupported(c);
        const detail::Source b = source(c, 1);
        const FloatFormat f = format_of(dt);
        lanes(c, [&](unsigned l) {
            std::uint64_t hi = soft_convert(a[l] & 0xffffffffU, f32_format, f, m, ftz);
            std::uint64_t lo = soft_convert(b[l] & 0xffffffffU, f32_format, f, m, ftz);
            if (sat) {
                hi = saturate(hi, f);
                lo = saturate(lo, f);
            }
            dst[l] = lo | (hi << 16);
        });
        return;
    }
    if (is_packed_half(st)) unsupported(c);
    if (is_float(dt) && is_float(st)) {
        const FloatFormat df = format_of(dt), sf = format_of(st);
        const bool integral = is_integer_rounding(i.rounding);
        lanes(c, [&](unsigned l) {
            std::uint64_t x = a[l] & low_mask(sbits);
            std::uint64_t r = 0;
            if (integral) {
                // Round to an integral value, then to the destination format (exact when it is as wide).
                const std::uint64_t whole = soft_round_integral(x, sf, m, ftz);
                r = soft_convert(whole, sf, df, RoundMode::nearest_even, ftz);
            } else {
                r = soft_convert(x, sf, df, m, ftz);
            }
            dst[l] = sat ? saturate(r, df) : r;
        });
        return;
    }
    if (is_float(dt)) { // integer -> float
        const FloatFormat df = format_of(dt);
        const bool is_signed = is_signed_int(st);
        lanes(c, [&](unsigned l) {
            const std::uint64_t x = a[l] & low_mask(sbits);
            const std::int64_t sx = sign_extend(x, sbits);
            const bool negative = is_signed && sx < 0;
            const std::uint64_t magnitude = negative ? (std::uint64_t{0} - static_cast<std::uint64_t>(sx)) : x;
            const std::uint64_t r = soft_from_integer(negative, magnitude, df, m, ftz);
            dst[l] = sat ? saturate(r, df) : r;
        });
        return;
    }
    if (is_float(st)) { // float -> integer: always saturating, NaN -> 0
        const FloatFormat sf = format_of(st);
        const bool is_signed = is_signed_int(dt);
        const bool wide = is_signed && reg_bits > dbits;
        lanes(c, [&](unsigned l) {
            const std::uint64_t r = soft_to_integer(a[l] & low_mask(sbits), sf, m, is_signed, dbits, ftz);
            dst[l] = wide ? detail::extend(r, dbits, true, reg_bits) : r;
        });
        return;
    }
    // integer -> integer: extend by the source type, then truncate (or saturate) to the destination type,
    // then extend by the destination type into a wider destination register.
    const bool src_signed = is_signed_int(st), dst_signed = is_signed_int(dt);
    if (!sat && sbits == 32 && dbits == 64) { // the most frequent: widening a 32-bit index
        if (src_signed)
            map(
                c, dst,
                [](std::uint64_t x) -> std::uint64_t {
                    return static_cast<std::uint64_t>(std::int64_t{static_cast<std::int32_t>(x)});
                },
                a);
        else
            map(
                c, dst, [](std::uint64_t x) -> std::uint64_t { return static_cast<std::uint32_t>(x); }, a);
        return;
    }
    lanes(c, [&](unsigned l) {
        const std::uint64_t raw = a[l] & low_mask(sbits);
        std::uint64_t r = 0;
        if (sat) {
            if (src_signed) {
                const std::int64_t v = sign_extend(raw, sbits);
                const std::int64_t lo = dst_signed ? (dbits >= 64 ? INT64_MIN : -(std::int64_t{1} << (dbits - 1))) : 0;
                const std::int64_t hi = dst_signed
                                            ? static_cast<std::int64_t>(low_mask(dbits - 1))
                                            : (dbits >= 64 ? INT64_MAX : static_cast<std::int64_t>(low_mask(dbits)));
                r = static_cast<std::uint64_t>(std::clamp(v, lo, hi)) & low_mask(dbits);
                if (!dst_signed && dbits >= 64 && v >= 0) r = static_cast<std::uint64_t>(v);
            } else {
                const std::uint64_t hi = dst_signed ? low_mask(dbits - 1) : low_mask(dbits);
                r = std::min(raw, hi);
            }
        } else {
            r = detail::extend(raw, sbits, src_signed, 64) & low_mask(dbits);
        }
        dst[l] = detail::extend(r, dbits, dst_signed, reg_bits);
    });
}

inline void convert_address(const Context& c) {
    const ir::Instruction& i = *c.d.inst;
    const detail::Source a = source(c, 0);
    std::uint64_t* dst = dst_row(c);
    const std::uint64_t base = generic_window_base(i.space);
    const std::uint64_t mask = low_mask(std::max(32U, size_bytes(c.d.type) * 8));
    if (i.to_space) lanes(c, [&](unsigned l) { dst[l] = (a[l] - base) & mask; });
    else lanes(c, [&](unsigned l) { dst[l] = (a[l] + base) & mask; });
}

inline void move(const Context& c) {
    const DecodedInstruction& d = c.d;
    const unsigned bits = d.type == ir::ScalarType::pred ? 1 : size_bytes(d.type) * 8;
    if (bits == 0) unsupported(c);
    if (d.dst_count > 0) { // unpack: mov.b64 {lo, hi}, x
        const detail::Source a = source(c, 0);
        const unsigned part = bits / d.dst_count;
        for (unsigned e = 0; e < d.dst_count; ++e) {
            if (d.dst_vector[e] == ir::no_reg) continue;
            std::uint64_t* row = c.w.row(d.dst_vector[e]);
            lanes(c, [&](unsigned l) { row[l] = (a[l] >> (e * part)) & low_mask(part); });
        }
        return;
    }
    std::uint64_t* dst = dst_row(c);
    if (d.num_sources > 1) { // pack: mov.b64 x, {lo, hi}
        const unsigned part = bits / d.num_sources;
        std::array<detail::Source, 4> parts{};
        for (unsigned e = 0; e < d.num_sources && e < 4; ++e) parts[e] = source(c, e);
        const unsigned n = std::min<unsigned>(d.num_sources, 4);
        lanes(c, [&](unsigned l) {
            std::uint64_t v = 0;
            for (unsigned e = 0; e < n; ++e) v |= (parts[e][l] & low_mask(part)) << (e * part);
            dst[l] = v;
        });
        return;
    }
    const detail::Source a = source(c, 0);
    const std::uint64_t mask = low_mask(bits);
    map(
        c, dst, [mask](std::uint64_t x) { return x & mask; }, a);
}

} // namespace gpuarch::func::semantics
