#pragma once
// An operand as written in a statement, and the roles that operand positions accept (parser/operands.hpp converts
// one into the other).
#include <array>
#include <cstdint>

#include <gpuarch/ir/types.hpp>
#include <gpuarch/ptx/lexer.hpp>

namespace gpuarch::ptx::detail {

// One operand as written, before names are resolved and types checked.
struct RawOperand {
    enum class Kind : std::uint8_t { name, pair, vector, address, integer, f32, f64, sink };
    Kind kind = Kind::name;
    const Token* at = nullptr; // first token of the operand
    bool negated = false; // `!name`
    const Token* name = nullptr; // name / first of pair / address base (nullptr: absolute address)
    const Token* name2 = nullptr; // second of pair (`d|p`)
    std::array<const Token*, 4> elements{}; // vector elements (a `_` token is a sink element, an integer a constant)
    std::array<bool, 4> element_negative{}; // constant element written with a leading '-'
    std::uint8_t count = 0;
    std::int64_t offset = 0; // address offset, or symbol+offset for mov/cvta
    std::uint64_t bits = 0; // immediate bits (integer: two's complement)
    bool decimal = false; // immediate written as a decimal float (1.5)
};

// What an operand position accepts. See the operand-order table in ptx/parser.hpp.
enum class Role : std::uint8_t {
    dst, // a register
    dst_pair, // a register, optionally `|q` with a predicate register (the second destination)
    dst_data, // ld/mov destination: register or vector
    src, // register, immediate or special register
    src_data, // st/mov source: register, immediate, special, vector; for mov also a symbol (its address)
    src_addr, // cvta source: register or symbol
    pred, // predicate register, `!` allowed
    sel_pred, // predicate register, `!` not allowed (selp)
    address, // [base + offset] / [symbol + offset] / [immediate]
    label,
    imm, // immediate only
};

// A role and the type its register or immediate must fit.
struct RoleSpec {
    Role role = Role::src;
    ir::ScalarType type = ir::ScalarType::none;
};

} // namespace gpuarch::ptx::detail
