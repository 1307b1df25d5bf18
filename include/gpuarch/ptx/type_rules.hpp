#pragma once
// PTX operand type-compatibility rules (PTX ISA 9.0, Sec. 6.4.2 "Operand Type Information" and Sec. 6.4.2.1
// "Operand Size Exceeding Instruction-Type Size").
// Contract: register_fits(want, have, relaxed) is true when a register declared `have` may be an operand of
// instruction type `want`:
//   - predicates only match predicates;
//   - a bit-size type (.bN) accepts any register of the same size;
//   - an integer type (.uN/.sN) accepts integer and bit-size registers of the same size;
//   - .f32/.f64 accept the same float type or a bit-size register of the same size;
//   - .f16/.bf16 accept their own type or .b16; .f16x2/.bf16x2 their own type or .b32;
//   - `relaxed` (ld, st and the integer side of cvt) lets bit-size and integer types use a wider register, which
//     is how nvcc writes `st.global.u32 [%rd1], %rd2` and `ld.global.u8 %rs1, [...]`.
#include <gpuarch/ir/op_class.hpp>
#include <gpuarch/ir/types.hpp>

namespace gpuarch::ptx {

constexpr bool is_bit_type(ir::ScalarType t) {
    return t == ir::ScalarType::b8 || t == ir::ScalarType::b16 || t == ir::ScalarType::b32 ||
           t == ir::ScalarType::b64 || t == ir::ScalarType::b128;
}
constexpr bool is_unsigned_integer(ir::ScalarType t) {
    return t == ir::ScalarType::u8 || t == ir::ScalarType::u16 || t == ir::ScalarType::u32 || t == ir::ScalarType::u64;
}
constexpr bool is_signed_integer(ir::ScalarType t) { return ir::is_signed_int(t); }
constexpr bool is_integer_type(ir::ScalarType t) { return is_unsigned_integer(t) || is_signed_integer(t); }

// The type of the double-width result of mul.wide / mad.wide.
constexpr ir::ScalarType double_width(ir::ScalarType t) {
    switch (t) {
    case ir::ScalarType::u16: return ir::ScalarType::u32;
    case ir::ScalarType::u32: return ir::ScalarType::u64;
    case ir::ScalarType::s16: return ir::ScalarType::s32;
    case ir::ScalarType::s32: return ir::ScalarType::s64;
    default: return ir::ScalarType::none;
    }
}

constexpr bool register_fits(ir::ScalarType want, ir::ScalarType have, bool relaxed, bool /*is_destination*/ = false) {
    using ir::ScalarType;
    if (want == ScalarType::pred || have == ScalarType::pred) return want == have;
    if (want == ScalarType::none) return false;
    const unsigned ws = ir::size_bytes(want), hs = ir::size_bytes(have);
    const bool size_ok = relaxed ? hs >= ws : hs == ws;
    if (is_bit_type(want)) return size_ok;
    if (is_integer_type(want)) {
        if (is_integer_type(have) || is_bit_type(have)) return size_ok;
        return relaxed && hs == ws; // ld.u32 into an .f32 register
    }
    if (want == ScalarType::f32 || want == ScalarType::f64) return have == want || (is_bit_type(have) && hs == ws);
    if (want == ScalarType::f16 || want == ScalarType::bf16) return have == want || have == ScalarType::b16;
    if (want == ScalarType::f16x2 || want == ScalarType::bf16x2) return have == want || have == ScalarType::b32;
    return false;
}

} // namespace gpuarch::ptx
