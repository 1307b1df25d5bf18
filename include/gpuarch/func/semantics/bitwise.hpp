#pragma once
// Bitwise semantics: and/or/xor/not/cnot, popc/clz/brev/bfind, bfe/bfi, prmt/lop3/shf, shl/shr.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include <gpuarch/func/semantics/context.hpp>
#include <gpuarch/func/int_ops.hpp>
#include <gpuarch/func/semantics/lane_ops.hpp>
#include <gpuarch/func/semantics/operands.hpp>

namespace gpuarch::func::semantics {

inline void logic(const Context& c) {
    const detail::Source a = source(c, 0);
    std::uint64_t* dst = dst_row(c);
    const std::uint64_t mask = c.d.type == ir::ScalarType::pred ? 1U : low_mask(size_bytes(c.d.type) * 8);
    if (mask == 0) unsupported(c);
    switch (c.d.op) {
    case ir::Opcode::not_:
        map(
            c, dst, [mask](std::uint64_t x) { return ~x & mask; }, a);
        return;
    case ir::Opcode::cnot: lanes(c, [&](unsigned l) { dst[l] = (a[l] & mask) == 0 ? 1 : 0; }); return;
    default: break;
    }
    const detail::Source b = source(c, 1);
    switch (c.d.op) {
    case ir::Opcode::and_: map(c, dst, lane_fn::And{mask}, a, b); break;
    case ir::Opcode::or_: map(c, dst, lane_fn::Or{mask}, a, b); break;
    case ir::Opcode::xor_: map(c, dst, lane_fn::Xor{mask}, a, b); break;
    default: unsupported(c);
    }
}

inline void bit_count(const Context& c) {
    const unsigned width = size_bytes(c.d.type) * 8;
    if (width != 32 && width != 64) unsupported(c);
    const detail::Source a = source(c, 0);
    std::uint64_t* dst = dst_row(c);
    const std::uint64_t mask = low_mask(width);
    switch (c.d.op) {
    case ir::Opcode::popc: lanes(c, [&](unsigned l) { dst[l] = detail::count_bits(a[l] & mask); }); break;
    case ir::Opcode::clz: lanes(c, [&](unsigned l) { dst[l] = count_leading_zeros(a[l], width); }); break;
    case ir::Opcode::brev: lanes(c, [&](unsigned l) { dst[l] = bit_reverse(a[l] & mask, width); }); break;
    case ir::Opcode::bfind: {
        const bool is_signed = is_signed_int(c.d.type), amount = c.d.inst->shiftamt;
        lanes(c, [&](unsigned l) { dst[l] = find_msb(a[l], width, is_signed, amount); });
        break;
    }
    default: unsupported(c);
    }
}

inline void bit_field(const Context& c) {
    const unsigned width = size_bytes(c.d.type) * 8;
    if (width != 32 && width != 64) unsupported(c);
    const detail::Source a = source(c, 0), b = source(c, 1), cc = source(c, 2);
    std::uint64_t* dst = dst_row(c);
    if (c.d.op == ir::Opcode::bfe) {
        const bool is_signed = is_signed_int(c.d.type);
        lanes(c, [&](unsigned l) {
            dst[l] = bit_field_extract(a[l], width, static_cast<std::uint32_t>(b[l]), static_cast<std::uint32_t>(cc[l]),
                                       is_signed);
        });
        return;
    }
    const detail::Source len = source(c, 3);
    lanes(c, [&](unsigned l) {
        dst[l] =
            bit_field_insert(a[l], b[l], static_cast<std::uint32_t>(cc[l]), static_cast<std::uint32_t>(len[l]), width);
    });
}

inline void permute(const Context& c) {
    const detail::Source a = source(c, 0), b = source(c, 1), cc = source(c, 2);
    std::uint64_t* dst = dst_row(c);
    auto u32 = [](std::uint64_t v) { return static_cast<std::uint32_t>(v); };
    switch (c.d.op) {
    case ir::Opcode::prmt: {
        const ir::PrmtMode mode = c.d.inst->prmt;
        lanes(c, [&](unsigned l) { dst[l] = permute_bytes(u32(a[l]), u32(b[l]), u32(cc[l]), mode); });
        break;
    }
    case ir::Opcode::lop3: {
        const detail::Source lut = source(c, 3);
        const std::uint64_t mask = low_mask(size_bytes(c.d.type) == 0 ? 32 : size_bytes(c.d.type) * 8);
        lanes(c, [&](unsigned l) { dst[l] = lop3(a[l], b[l], cc[l], u32(lut[l]) & 0xffU) & mask; });
        break;
    }
    case ir::Opcode::shf: {
        const bool right = c.d.inst->funnel_right, clamp = c.d.inst->clamp;
        lanes(c, [&](unsigned l) { dst[l] = funnel_shift(u32(a[l]), u32(b[l]), u32(cc[l]), right, clamp); });
        break;
    }
    default: unsupported(c);
    }
}

inline void shift(const Context& c) {
    const unsigned width = size_bytes(c.d.type) * 8;
    if (width < 16 || width > 64) unsupported(c);
    const detail::Source a = source(c, 0), b = source(c, 1);
    std::uint64_t* dst = dst_row(c);
    if (c.d.op == ir::Opcode::shl) {
        if (width == 32) {
            map(c, dst, lane_fn::Shl32{}, a, b);
        } else {
            lanes(c, [&](unsigned l) { dst[l] = shift_left(a[l], static_cast<std::uint32_t>(b[l]), width); });
        }
        return;
    }
    const bool arithmetic = is_signed_int(c.d.type);
    if (width == 32 && arithmetic) {
        map(c, dst, lane_fn::ShrArithmetic32{}, a, b);
    } else if (width == 32) {
        map(c, dst, lane_fn::ShrLogical32{}, a, b);
    } else {
        lanes(c, [&](unsigned l) { dst[l] = shift_right(a[l], static_cast<std::uint32_t>(b[l]), width, arithmetic); });
    }
}

} // namespace gpuarch::func::semantics
