#pragma once
// The lane functions of the element-wise integer instructions (one lane's result from its operand values, zero-extended
// to 64 bits) and run_lane_op, which executes the forms the decoder settled in DecodedInstruction::lane_op.
//
// Contract: the general semantics (arithmetic.hpp, bitwise.hpp, compare.hpp) map the same lane functions over the
// same operands for these forms, so an instruction gives the same registers whichever way it runs; run_lane_op only
// skips their dispatch on type, modifiers and compare operator (10% of the functional engine's time over the corpus,
// docs/performance.md "Functional-only").

#include <cstdint>
#include <type_traits>

#include <gpuarch/func/decode.hpp>
#include <gpuarch/func/float_ops.hpp>
#include <gpuarch/func/int_ops.hpp>
#include <gpuarch/func/semantics/context.hpp>
#include <gpuarch/func/semantics/operands.hpp>

namespace gpuarch::func::semantics {

namespace lane_fn {

// U: the unsigned type of the instruction's width. Products are formed in 64 bits: a 16-bit product promoted to int
// could overflow it.
template <class U> struct Add {
    std::uint64_t operator()(std::uint64_t x, std::uint64_t y) const { return U(U(x) + U(y)); }
};
template <class U> struct Sub {
    std::uint64_t operator()(std::uint64_t x, std::uint64_t y) const { return U(U(x) - U(y)); }
};
template <class U> struct MulLo {
    std::uint64_t operator()(std::uint64_t x, std::uint64_t y) const {
        return U(std::uint64_t{U(x)} * std::uint64_t{U(y)});
    }
};
template <class U> struct MadLo {
    std::uint64_t operator()(std::uint64_t x, std::uint64_t y, std::uint64_t z) const {
        return U(std::uint64_t{U(x)} * std::uint64_t{U(y)} + std::uint64_t{U(z)});
    }
};
// mul.wide: the double-width product of T operands (T of 8, 16 or 32 bits), sign- or zero-extended by T.
template <class T> struct MulWide {
    std::uint64_t operator()(std::uint64_t x, std::uint64_t y) const {
        using W = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;
        return static_cast<std::uint64_t>(W{static_cast<T>(x)} * W{static_cast<T>(y)}) & low_mask(sizeof(T) * 16);
    }
};
// 32-bit shifts: int_ops.hpp's, at the width fixed (an amount at or past it gives 0, or the sign bits).
struct Shl32 {
    std::uint64_t operator()(std::uint64_t x, std::uint64_t y) const {
        return shift_left(x, static_cast<std::uint32_t>(y), 32);
    }
};
struct ShrLogical32 {
    std::uint64_t operator()(std::uint64_t x, std::uint64_t y) const {
        return shift_right(x, static_cast<std::uint32_t>(y), 32, false);
    }
};
struct ShrArithmetic32 {
    std::uint64_t operator()(std::uint64_t x, std::uint64_t y) const {
        return shift_right(x, static_cast<std::uint32_t>(y), 32, true);
    }
};
// Logic on the bits of `mask`: the type's width, or bit 0 for predicates.
struct And {
    std::uint64_t mask;
    std::uint64_t operator()(std::uint64_t x, std::uint64_t y) const { return x & y & mask; }
};
struct Or {
    std::uint64_t mask;
    std::uint64_t operator()(std::uint64_t x, std::uint64_t y) const { return (x | y) & mask; }
};
struct Xor {
    std::uint64_t mask;
    std::uint64_t operator()(std::uint64_t x, std::uint64_t y) const { return (x ^ y) & mask; }
};
// setp's predicate: 1 when `x Op y` holds for T values.
template <class T, ir::CompareOp Op> struct CompareInt {
    std::uint64_t operator()(std::uint64_t x, std::uint64_t y) const {
        return compare_int<T>(Op, static_cast<T>(x), static_cast<T>(y)) ? 1 : 0;
    }
};

} // namespace lane_fn

// Executes c.d.lane_op (not none) on the executed lanes.
inline void run_lane_op(const Context& c) {
    using L = LaneOp;
    using O = ir::CompareOp;
    using lane_fn::CompareInt;
    using std::int32_t, std::int64_t, std::uint32_t, std::uint64_t;
    const detail::Source a = source(c, 0), b = source(c, 1);
    uint64_t* dst = dst_row(c);
    constexpr uint64_t bits32 = 0xffffffffU, bits64 = ~uint64_t{0}, pred_bit = 1;
    switch (c.d.lane_op) {
    case L::none: break;
    case L::add_32: map(c, dst, lane_fn::Add<uint32_t>{}, a, b); return;
    case L::add_64: map(c, dst, lane_fn::Add<uint64_t>{}, a, b); return;
    case L::sub_32: map(c, dst, lane_fn::Sub<uint32_t>{}, a, b); return;
    case L::sub_64: map(c, dst, lane_fn::Sub<uint64_t>{}, a, b); return;
    case L::mul_lo_32: map(c, dst, lane_fn::MulLo<uint32_t>{}, a, b); return;
    case L::mul_lo_64: map(c, dst, lane_fn::MulLo<uint64_t>{}, a, b); return;
    case L::mul_wide_s32: map(c, dst, lane_fn::MulWide<int32_t>{}, a, b); return;
    case L::mul_wide_u32: map(c, dst, lane_fn::MulWide<uint32_t>{}, a, b); return;
    case L::mad_lo_32: map(c, dst, lane_fn::MadLo<uint32_t>{}, a, b, source(c, 2)); return;
    case L::mad_lo_64: map(c, dst, lane_fn::MadLo<uint64_t>{}, a, b, source(c, 2)); return;
    case L::shl_32: map(c, dst, lane_fn::Shl32{}, a, b); return;
    case L::shr_u32: map(c, dst, lane_fn::ShrLogical32{}, a, b); return;
    case L::shr_s32: map(c, dst, lane_fn::ShrArithmetic32{}, a, b); return;
    case L::and_32: map(c, dst, lane_fn::And{bits32}, a, b); return;
    case L::or_32: map(c, dst, lane_fn::Or{bits32}, a, b); return;
    case L::xor_32: map(c, dst, lane_fn::Xor{bits32}, a, b); return;
    case L::and_64: map(c, dst, lane_fn::And{bits64}, a, b); return;
    case L::or_64: map(c, dst, lane_fn::Or{bits64}, a, b); return;
    case L::xor_64: map(c, dst, lane_fn::Xor{bits64}, a, b); return;
    case L::and_pred: map(c, dst, lane_fn::And{pred_bit}, a, b); return;
    case L::or_pred: map(c, dst, lane_fn::Or{pred_bit}, a, b); return;
    case L::xor_pred: map(c, dst, lane_fn::Xor{pred_bit}, a, b); return;
    case L::setp_eq_32: map(c, dst, CompareInt<uint32_t, O::eq>{}, a, b); return;
    case L::setp_ne_32: map(c, dst, CompareInt<uint32_t, O::ne>{}, a, b); return;
    case L::setp_eq_64: map(c, dst, CompareInt<uint64_t, O::eq>{}, a, b); return;
    case L::setp_ne_64: map(c, dst, CompareInt<uint64_t, O::ne>{}, a, b); return;
    case L::setp_lt_s32: map(c, dst, CompareInt<int32_t, O::lt>{}, a, b); return;
    case L::setp_le_s32: map(c, dst, CompareInt<int32_t, O::le>{}, a, b); return;
    case L::setp_gt_s32: map(c, dst, CompareInt<int32_t, O::gt>{}, a, b); return;
    case L::setp_ge_s32: map(c, dst, CompareInt<int32_t, O::ge>{}, a, b); return;
    case L::setp_lt_u32: map(c, dst, CompareInt<uint32_t, O::lt>{}, a, b); return;
    case L::setp_le_u32: map(c, dst, CompareInt<uint32_t, O::le>{}, a, b); return;
    case L::setp_gt_u32: map(c, dst, CompareInt<uint32_t, O::gt>{}, a, b); return;
    case L::setp_ge_u32: map(c, dst, CompareInt<uint32_t, O::ge>{}, a, b); return;
    case L::setp_lt_s64: map(c, dst, CompareInt<int64_t, O::lt>{}, a, b); return;
    case L::setp_le_s64: map(c, dst, CompareInt<int64_t, O::le>{}, a, b); return;
    case L::setp_gt_s64: map(c, dst, CompareInt<int64_t, O::gt>{}, a, b); return;
    case L::setp_ge_s64: map(c, dst, CompareInt<int64_t, O::ge>{}, a, b); return;
    case L::setp_lt_u64: map(c, dst, CompareInt<uint64_t, O::lt>{}, a, b); return;
    case L::setp_le_u64: map(c, dst, CompareInt<uint64_t, O::le>{}, a, b); return;
    case L::setp_gt_u64: map(c, dst, CompareInt<uint64_t, O::gt>{}, a, b); return;
    case L::setp_ge_u64: map(c, dst, CompareInt<uint64_t, O::ge>{}, a, b); return;
    }
}

} // namespace gpuarch::func::semantics
