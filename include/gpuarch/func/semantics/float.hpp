#pragma once
// Floating-point semantics: element-wise add/sub/mul/div and fma in every format (packed halves per 16-bit
// half), the special functions (rcp, sqrt, rsqrt, sin, cos, lg2, ex2, tanh), copysign and testp.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include <gpuarch/func/semantics/context.hpp>
#include <gpuarch/func/float_ops.hpp>
#include <gpuarch/func/semantics/operands.hpp>

namespace gpuarch::func::semantics {

// Applies a two-operand element function to each lane, per 16-bit half for packed types.
template <class F>
inline void elementwise2(const Context& c, const detail::Source& a, const detail::Source& b, std::uint64_t* dst,
                         F&& f) {
    if (is_packed_half(c.d.type)) {
        lanes(c, [&](unsigned l) {
            const std::uint64_t lo = f(a[l] & 0xffffU, b[l] & 0xffffU);
            const std::uint64_t hi = f((a[l] >> 16) & 0xffffU, (b[l] >> 16) & 0xffffU);
            dst[l] = (lo & 0xffffU) | ((hi & 0xffffU) << 16);
        });
    } else {
        const std::uint64_t mask = low_mask(size_bytes(c.d.type) * 8);
        lanes(c, [&](unsigned l) { dst[l] = f(a[l] & mask, b[l] & mask); });
    }
}
template <class F> inline void elementwise1(const Context& c, const detail::Source& a, std::uint64_t* dst, F&& f) {
    if (is_packed_half(c.d.type)) {
        lanes(c, [&](unsigned l) {
            const std::uint64_t lo = f(a[l] & 0xffffU), hi = f((a[l] >> 16) & 0xffffU);
            dst[l] = (lo & 0xffffU) | ((hi & 0xffffU) << 16);
        });
    } else {
        const std::uint64_t mask = low_mask(size_bytes(c.d.type) * 8);
        lanes(c, [&](unsigned l) { dst[l] = f(a[l] & mask); });
    }
}

// Element-wise float add/sub/mul/div in the instruction's format, rounding, .ftz and .sat.
inline void float_binary(const Context& c, Arith op) {
    const ir::Instruction& i = *c.d.inst;
    const detail::Source a = source(c, 0), b = source(c, 1);
    std::uint64_t* dst = dst_row(c);
    const FloatFormat f = format_of(c.d.type);
    const RoundMode m = round_mode(i.rounding);
    if (c.d.type == ir::ScalarType::f32 && m == RoundMode::nearest_even && !i.ftz && !i.sat) {
        switch (op) {
        case Arith::add:
            map(
                c, dst, [](std::uint64_t x, std::uint64_t y) { return bits_of(as_f32(x) + as_f32(y)); }, a, b);
            return;
        case Arith::sub:
            map(
                c, dst, [](std::uint64_t x, std::uint64_t y) { return bits_of(as_f32(x) - as_f32(y)); }, a, b);
            return;
        case Arith::mul:
            map(
                c, dst, [](std::uint64_t x, std::uint64_t y) { return bits_of(as_f32(x) * as_f32(y)); }, a, b);
            return;
        case Arith::div: lanes(c, [&](unsigned l) { dst[l] = bits_of(as_f32(a[l]) / as_f32(b[l])); }); return;
        }
    }
    if (c.d.type == ir::ScalarType::f64 && m == RoundMode::nearest_even) {
        switch (op) {
        case Arith::add: lanes(c, [&](unsigned l) { dst[l] = bits_of(as_f64(a[l]) + as_f64(b[l])); }); return;
        case Arith::sub: lanes(c, [&](unsigned l) { dst[l] = bits_of(as_f64(a[l]) - as_f64(b[l])); }); return;
        case Arith::mul: lanes(c, [&](unsigned l) { dst[l] = bits_of(as_f64(a[l]) * as_f64(b[l])); }); return;
        case Arith::div: lanes(c, [&](unsigned l) { dst[l] = bits_of(as_f64(a[l]) / as_f64(b[l])); }); return;
        }
    }
    const bool sat = i.sat;
    const bool ftz = i.ftz;
    elementwise2(c, a, b, dst, [&](std::uint64_t x, std::uint64_t y) {
        const std::uint64_t r = float_arith(op, x, y, f, m, ftz);
        return sat ? saturate(r, f) : r;
    });
}

// fma.rn.f32 over the executed lanes. The baseline x86-64 target has no fused multiply-add instruction, so there
// std::fma is a libm call per lane (with its spills, about 9% of the functional engine's host time on the kernel
// corpus). Where the host has the instruction (FMA3, detected once), a copy of the loop compiled for it runs
// instead. Both give the one correctly rounded IEEE 754 fusedMultiplyAdd; on such a host libm's fmaf executes that
// very instruction, so no result changes.
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && !defined(__FMA__)
[[gnu::target("fma")]] inline void fma_f32_lanes_fma3(const core::WarpMask& exec, unsigned width,
                                                      const detail::Source& a, const detail::Source& b,
                                                      const detail::Source& cc, std::uint64_t* dst) {
    detail::for_each_lane(exec, width, [&](unsigned l) {
        dst[l] = bits_of(__builtin_fmaf(as_f32(a[l]), as_f32(b[l]), as_f32(cc[l])));
    });
}
inline bool host_has_fma3() {
    static const bool has = (__builtin_cpu_init(), __builtin_cpu_supports("fma"));
    return has;
}
#define GPUARCH_FMA3_DISPATCH 1
#endif

inline void fma(const Context& c) {
    const ir::Instruction& i = *c.d.inst;
    if (!is_float(c.d.type)) unsupported(c);
    const detail::Source a = source(c, 0), b = source(c, 1), cc = source(c, 2);
    std::uint64_t* dst = dst_row(c);
    const FloatFormat f = format_of(c.d.type);
    const RoundMode m = round_mode(i.rounding);
    if (c.d.type == ir::ScalarType::f32 && m == RoundMode::nearest_even && !i.ftz && !i.sat) {
#ifdef GPUARCH_FMA3_DISPATCH
        if (host_has_fma3()) {
            fma_f32_lanes_fma3(c.exec, c.launch.width, a, b, cc, dst);
            return;
        }
#endif
        lanes(c, [&](unsigned l) { dst[l] = bits_of(std::fma(as_f32(a[l]), as_f32(b[l]), as_f32(cc[l]))); });
        return;
    }
    const bool ftz = i.ftz, sat = i.sat;
    auto element = [&](std::uint64_t x, std::uint64_t y, std::uint64_t z) {
        const std::uint64_t r = float_fma(x, y, z, f, m, ftz);
        return sat ? saturate(r, f) : r;
    };
    if (is_packed_half(c.d.type)) {
        lanes(c, [&](unsigned l) {
            const std::uint64_t lo = element(a[l] & 0xffffU, b[l] & 0xffffU, cc[l] & 0xffffU);
            const std::uint64_t hi = element((a[l] >> 16) & 0xffffU, (b[l] >> 16) & 0xffffU, (cc[l] >> 16) & 0xffffU);
            dst[l] = (lo & 0xffffU) | ((hi & 0xffffU) << 16);
        });
    } else {
        const std::uint64_t mask = low_mask(size_bytes(c.d.type) * 8);
        lanes(c, [&](unsigned l) { dst[l] = element(a[l] & mask, b[l] & mask, cc[l] & mask); });
    }
}

inline void special_function(const Context& c) {
    const ir::Instruction& i = *c.d.inst;
    const detail::Source a = source(c, 0);
    std::uint64_t* dst = dst_row(c);
    if (!is_float(c.d.type)) unsupported(c);
    const FloatFormat f = format_of(c.d.type);
    const bool ftz = i.ftz;
    if (!i.approx && (i.op == ir::Opcode::rcp || i.op == ir::Opcode::sqrt)) { // IEEE .rn/.rz/.rm/.rp
        if (c.d.type != ir::ScalarType::f32 && c.d.type != ir::ScalarType::f64) unsupported(c);
        const RoundMode m = round_mode(i.rounding);
        if (i.op == ir::Opcode::rcp)
            elementwise1(c, a, dst, [&](std::uint64_t x) { return float_arith(Arith::div, f.one(), x, f, m, ftz); });
        else elementwise1(c, a, dst, [&](std::uint64_t x) { return float_sqrt(x, f, m, ftz); });
        return;
    }
    Approx fn = Approx::rcp;
    switch (i.op) {
    case ir::Opcode::rcp: fn = Approx::rcp; break;
    case ir::Opcode::sqrt: fn = Approx::sqrt; break;
    case ir::Opcode::rsqrt: fn = Approx::rsqrt; break;
    case ir::Opcode::sin: fn = Approx::sin; break;
    case ir::Opcode::cos: fn = Approx::cos; break;
    case ir::Opcode::lg2: fn = Approx::lg2; break;
    case ir::Opcode::ex2: fn = Approx::ex2; break;
    case ir::Opcode::tanh: fn = Approx::tanh; break;
    default: unsupported(c);
    }
    elementwise1(c, a, dst, [&](std::uint64_t x) { return float_approx(fn, x, f, ftz); });
}

inline void float_misc(const Context& c) {
    if (c.d.type != ir::ScalarType::f32 && c.d.type != ir::ScalarType::f64) unsupported(c);
    const FloatFormat f = format_of(c.d.type);
    const detail::Source a = source(c, 0);
    std::uint64_t* dst = dst_row(c);
    const std::uint64_t mask = low_mask(size_bytes(c.d.type) * 8);
    if (c.d.op == ir::Opcode::testp) {
        const ir::TestKind kind = c.d.inst->test;
        lanes(c, [&](unsigned l) { dst[l] = float_test(kind, a[l] & mask, f) ? 1 : 0; });
        return;
    }
    // copysign d, a, b: the magnitude of b with the sign of a.
    const detail::Source b = source(c, 1);
    const std::uint64_t sign = f.sign_bit();
    lanes(c, [&](unsigned l) { dst[l] = ((b[l] & ~sign) | (a[l] & sign)) & mask; });
}

} // namespace gpuarch::func::semantics
