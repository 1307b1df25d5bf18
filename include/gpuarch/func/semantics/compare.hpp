#pragma once
// Comparison and selection semantics: setp, set, selp, slct.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include <gpuarch/func/semantics/context.hpp>
#include <gpuarch/func/float_ops.hpp>
#include <gpuarch/func/int_ops.hpp>
#include <gpuarch/func/semantics/lane_ops.hpp>
#include <gpuarch/func/semantics/operands.hpp>

namespace gpuarch::func::semantics {

inline bool combine(ir::BoolOp op, bool t, bool c) {
    switch (op) {
    case ir::BoolOp::and_: return t && c;
    case ir::BoolOp::or_: return t || c;
    case ir::BoolOp::xor_: return t != c;
    case ir::BoolOp::none: break;
    }
    return t;
}

// Compares lane values of type t (per 16-bit half for packed types: bit 0 = lower half, bit 1 = upper half).
template <class F>
inline void compare_lanes(const Context& c, ir::ScalarType t, const detail::Source& a, const detail::Source& b,
                          F&& sink) {
    const ir::CompareOp op = c.d.inst->cmp;
    const bool ftz = c.d.inst->ftz;
    if (t == ir::ScalarType::f32) {
        if (ftz) {
            lanes(c, [&](unsigned l) {
                sink(l, compare_float(op, as_f32(flush_subnormal(a[l] & 0xffffffffU, f32_format)),
                                      as_f32(flush_subnormal(b[l] & 0xffffffffU, f32_format)))
                            ? 1U
                            : 0U);
            });
        } else {
            lanes(c, [&](unsigned l) { sink(l, compare_float(op, as_f32(a[l]), as_f32(b[l])) ? 1U : 0U); });
        }
        return;
    }
    if (t == ir::ScalarType::f64) {
        lanes(c, [&](unsigned l) { sink(l, compare_float(op, as_f64(a[l]), as_f64(b[l])) ? 1U : 0U); });
        return;
    }
    if (is_float(t)) {
        const FloatFormat f = format_of(t);
        if (is_packed_half(t)) {
            lanes(c, [&](unsigned l) {
                const bool lo = compare_float_bits(op, a[l] & 0xffffU, b[l] & 0xffffU, f, ftz);
                const bool hi = compare_float_bits(op, (a[l] >> 16) & 0xffffU, (b[l] >> 16) & 0xffffU, f, ftz);
                sink(l, (lo ? 1U : 0U) | (hi ? 2U : 0U));
            });
        } else {
            lanes(c, [&](unsigned l) {
                sink(l, compare_float_bits(op, a[l] & 0xffffU, b[l] & 0xffffU, f, ftz) ? 1U : 0U);
            });
        }
        return;
    }
    const bool ok = detail::dispatch_integer(t, [&]<class T>(T) {
        lanes(c,
              [&](unsigned l) { sink(l, compare_int<T>(op, static_cast<T>(a[l]), static_cast<T>(b[l])) ? 1U : 0U); });
    });
    if (!ok) unsupported(c);
}

// Calls f(std::integral_constant<ir::CompareOp, op>{}) for `op`, one of `Ops`, and returns true; false for another
// op. A lane loop inside f then compares with a constant operator rather than a switch per lane.
template <ir::CompareOp... Ops, class F> inline bool with_constant_compare(ir::CompareOp op, F&& f) {
    return ((op == Ops ? (f(std::integral_constant<ir::CompareOp, Ops>{}), true) : false) || ...);
}

// The common setp (one destination, no combining predicate) on integers and on f32 without .ftz: the comparison
// chosen once per instruction. False, having done nothing, for any other form (and for an operator the type has not).
inline bool plain_setp(const Context& c, const detail::Source& a, const detail::Source& b, std::uint64_t* p) {
    using O = ir::CompareOp;
    const O op = c.d.inst->cmp;
    if (!is_float(c.d.type)) {
        bool done = false;
        detail::dispatch_integer(c.d.type, [&]<class T>(T) {
            done = with_constant_compare<O::eq, O::ne, O::lt, O::le, O::gt, O::ge, O::lo, O::ls, O::hi, O::hs>(
                op, [&](auto cmp) { map(c, p, lane_fn::CompareInt<T, decltype(cmp)::value>{}, a, b); });
        });
        return done;
    }
    if (c.d.type != ir::ScalarType::f32 || c.d.inst->ftz) return false;
    return with_constant_compare<O::eq, O::ne, O::lt, O::le, O::gt, O::ge, O::equ, O::neu, O::ltu, O::leu, O::gtu,
                                 O::geu, O::num, O::nan>(op, [&](auto cmp) {
        map(
            c, p,
            [](std::uint64_t x, std::uint64_t y) -> std::uint64_t {
                return compare_float(decltype(cmp)::value, as_f32(x), as_f32(y)) ? 1 : 0;
            },
            a, b);
    });
}

// setp: p = t BOOLOP c, q = !t BOOLOP c (for x2 types: p from the lower half, q from the upper half).
// set: d = 0xffffffff / 1.0f (per half: 0xffff / 1.0) when t BOOLOP c holds, else 0.
inline void compare(const Context& c) {
    const ir::Instruction& i = *c.d.inst;
    const detail::Source a = source(c, 0), b = source(c, 1);
    const bool has_c = c.d.num_sources >= 3;
    const detail::Source pc = has_c ? source(c, 2) : detail::Source{};
    const ir::BoolOp bop = has_c ? i.bool_op : ir::BoolOp::none;
    if (c.d.op == ir::Opcode::setp) {
        std::uint64_t* p = dst_row(c);
        std::uint64_t* q = c.d.dst2 == ir::no_reg ? nullptr : c.w.row(c.d.dst2);
        if (!has_c && q == nullptr && plain_setp(c, a, b, p)) return;
        const bool packed = is_packed_half(c.d.type);
        compare_lanes(c, c.d.type, a, b, [&](unsigned l, unsigned r) {
            const bool cv = has_c && pc.pred(l);
            const bool t0 = (r & 1U) != 0;
            p[l] = combine(bop, t0, cv) ? 1 : 0;
            if (q != nullptr) q[l] = combine(bop, packed ? (r & 2U) != 0 : !t0, cv) ? 1 : 0;
        });
        return;
    }
    std::uint64_t* dst = dst_row(c);
    const ir::ScalarType st = i.src_type == ir::ScalarType::none ? c.d.type : i.src_type;
    const ir::ScalarType dt = c.d.type;
    const bool packed = is_packed_half(st);
    compare_lanes(c, st, a, b, [&](unsigned l, unsigned r) {
        const bool cv = has_c && pc.pred(l);
        auto value = [&](bool t, unsigned half_bits) -> std::uint64_t {
            if (is_float(dt)) return t ? format_of(dt).one() : 0;
            return t ? low_mask(half_bits) : 0;
        };
        if (packed) {
            const std::uint64_t lo = value(combine(bop, (r & 1U) != 0, cv), 16);
            const std::uint64_t hi = value(combine(bop, (r & 2U) != 0, cv), 16);
            dst[l] = lo | (hi << 16);
        } else {
            dst[l] = value(combine(bop, (r & 1U) != 0, cv), size_bytes(dt) * 8);
        }
    });
}

inline void select(const Context& c) {
    const detail::Source a = source(c, 0), b = source(c, 1), cc = source(c, 2);
    std::uint64_t* dst = dst_row(c);
    // Immediates are sign-extended to 64 bits; registers keep their values zero-extended from the type.
    const std::uint64_t mask = c.d.type == ir::ScalarType::pred ? 1U : low_mask(size_bytes(c.d.type) * 8);
    if (c.d.op == ir::Opcode::selp) {
        const bool negated = cc.negated;
        map(
            c, dst,
            [mask, negated](std::uint64_t x, std::uint64_t y, std::uint64_t p) {
                return (((p & 1U) != 0) != negated ? x : y) & mask;
            },
            a, b, cc);
        return;
    }
    // slct: d = (c >= 0) ? a : b, with c an s32 or f32 (-0.0 >= 0; NaN selects b).
    if (c.d.inst->src_type == ir::ScalarType::f32) {
        const bool ftz = c.d.inst->ftz;
        lanes(c, [&](unsigned l) {
            std::uint64_t v = cc[l] & 0xffffffffU;
            if (ftz) v = flush_subnormal(v, f32_format);
            dst[l] = (as_f32(v) >= 0.0f ? a[l] : b[l]) & mask;
        });
    } else {
        lanes(c, [&](unsigned l) { dst[l] = (static_cast<std::int32_t>(cc[l]) >= 0 ? a[l] : b[l]) & mask; });
    }
}

} // namespace gpuarch::func::semantics
