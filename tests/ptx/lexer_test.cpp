// Tokens, literal values and modifier spellings.
#include <doctest/doctest.h>

#include <bit>
#include <string>
#include <vector>

#include <gpuarch/ir/names.hpp>
#include <gpuarch/ptx/lexer.hpp>
#include <gpuarch/ptx/literals.hpp>
#include <gpuarch/ptx/modifiers.hpp>

using namespace gpuarch;
using ptx::TokenKind;

TEST_CASE("instruction words keep their dots and :: parts; punctuation is split") {
    const auto tokens = ptx::tokenize("@!%p1 ld.global.L1::no_allocate.v2.u32 {%r1,%r2}, [%rd1+-4];", "t.ptx");
    std::vector<std::string> texts;
    for (const auto& t : tokens) texts.emplace_back(t.text);
    CHECK(texts == std::vector<std::string>{"@", "!", "%p1", "ld.global.L1::no_allocate.v2.u32", "{", "%r1", ",", "%r2",
                                            "}", ",", "[", "%rd1", "+", "-", "4", "]", ";", ""});
    CHECK(tokens[3].kind == TokenKind::word);
    CHECK(tokens[3].column == 7);
    CHECK(tokens.back().kind == TokenKind::end);
}

TEST_CASE("directives, labels, special registers and numbers are classified") {
    const auto tokens = ptx::tokenize(
        ".reg .b32 %r<12>;\n$L__BB0_3:\nmov.u32 %r1, %tid.x;\n0f3F800000 0d4000000000000000 0x1F 017 1.5e3 42U",
        "t.ptx");
    CHECK(tokens[0].kind == TokenKind::directive);
    CHECK(tokens[1].text == ".b32");
    CHECK(tokens[2].text == "%r");
    CHECK(tokens[3].is_punct('<'));
    CHECK(tokens[4].kind == TokenKind::integer);
    CHECK(tokens[7].text == "$L__BB0_3");
    CHECK(tokens[7].line == 2);
    CHECK(tokens[8].is_punct(':'));
    CHECK(tokens[12].text == "%tid.x");
    CHECK(tokens[14].kind == TokenKind::f32_hex);
    CHECK(tokens[15].kind == TokenKind::f64_hex);
    CHECK(tokens[16].kind == TokenKind::integer);
    CHECK(tokens[17].kind == TokenKind::integer);
    CHECK(tokens[18].kind == TokenKind::decimal_float);
    CHECK(tokens[19].text == "42U");
    CHECK(tokens[19].line == 4);
}

TEST_CASE("comments produce no tokens and keep line numbers right") {
    const auto tokens = ptx::tokenize("a // one\n/* two\nthree */ b\n\tc", "t.ptx");
    REQUIRE(tokens.size() == 4);
    CHECK(tokens[1].text == "b");
    CHECK(tokens[1].line == 3);
    CHECK(tokens[1].column == 10);
    CHECK(tokens[2].line == 4);
    CHECK(tokens[2].column == 2); // a tab is one column
}

TEST_CASE("lexical errors name their position") {
    const auto error_of = [](std::string_view text) -> std::string {
        try {
            (void)ptx::tokenize(text, "t.ptx");
        } catch (const ptx::ParseError& e) {
            return e.what();
        }
        return "";
    };
    CHECK(error_of("mov \"open") == "t.ptx:1:5: unterminated string literal");
    CHECK(error_of("x\n  /* open") == "t.ptx:2:3: unterminated /* comment");
    CHECK(error_of("0f123") == "t.ptx:1:1: a 0f floating-point literal needs exactly 8 hex digits");
    CHECK(error_of("0d3FF0") == "t.ptx:1:1: a 0d floating-point literal needs exactly 16 hex digits");
    CHECK(error_of("a ~ b") == "t.ptx:1:3: unexpected character '~'");
    CHECK(error_of("a \x01") == "t.ptx:1:3: unexpected byte 0x01");
    CHECK(error_of("% r1") == "t.ptx:1:1: '%' must be followed by a register name");
    CHECK(error_of("0x") == "t.ptx:1:1: hex literal without digits");
    CHECK(error_of("12.5.3") == "t.ptx:1:1: malformed number '12.5.'");
}

TEST_CASE("integer literals: bases, suffix, 64-bit overflow") {
    CHECK(ptx::integer_literal_bits("0") == 0u);
    CHECK(ptx::integer_literal_bits("123") == 123u);
    CHECK(ptx::integer_literal_bits("0x7fU") == 127u);
    CHECK(ptx::integer_literal_bits("0b1010") == 10u);
    CHECK(ptx::integer_literal_bits("0777") == 511u);
    CHECK(ptx::integer_literal_bits("0xFFFFFFFFFFFFFFFF") == ~std::uint64_t{0});
    CHECK(!ptx::integer_literal_bits("0x1FFFFFFFFFFFFFFFF").has_value());
    CHECK(!ptx::integer_literal_bits("18446744073709551616").has_value());
    CHECK(!ptx::integer_literal_bits("089").has_value()); // 8 and 9 are not octal digits
}

TEST_CASE("float literals: hex bit patterns and decimal values") {
    CHECK(ptx::hex_float_bits("0f3F800000") == 0x3F800000u);
    CHECK(ptx::hex_float_bits("0D4000000000000000") == 0x4000000000000000u);
    CHECK(ptx::decimal_float_value("2.5") == 2.5);
    CHECK(ptx::decimal_float_value("1e-3") == 1e-3);
    CHECK(!ptx::decimal_float_value("1e999").has_value());
}

TEST_CASE("every modifier enumerator round-trips through its PTX spelling") {
    const auto round_trip = [](const auto& table) {
        for (auto e : table) {
            CAPTURE(ir::name(e));
            CHECK(!ir::name(e).empty());
            CHECK(ptx::lookup_name(ir::name(e), table) == e);
        }
    };
    round_trip(ptx::all_scalar_types);
    round_trip(ptx::all_compare_ops);
    round_trip(ptx::all_bool_ops);
    round_trip(ptx::all_float_roundings);
    round_trip(ptx::all_integer_roundings);
    round_trip(ptx::all_atom_ops);
    round_trip(ptx::all_shfl_modes);
    round_trip(ptx::all_vote_modes);
    round_trip(ptx::all_mem_orders);
    round_trip(ptx::all_scopes);
    round_trip(ptx::all_test_kinds);
    round_trip(ptx::all_prmt_modes);
    round_trip(ptx::all_memory_spaces);
    round_trip(ptx::all_special_regs);
    // The tables cover every non-none enumerator (enumerators are dense from 0).
    CHECK(ptx::all_scalar_types.size() == static_cast<std::size_t>(ir::ScalarType::f64));
    CHECK(ptx::all_compare_ops.size() == static_cast<std::size_t>(ir::CompareOp::nan));
    CHECK(ptx::all_float_roundings.size() + ptx::all_integer_roundings.size() ==
          static_cast<std::size_t>(ir::Rounding::rpi));
    CHECK(ptx::all_atom_ops.size() == static_cast<std::size_t>(ir::AtomOp::xor_));
    CHECK(ptx::all_mem_orders.size() == static_cast<std::size_t>(ir::MemOrder::volatile_));
    CHECK(ptx::all_special_regs.size() == static_cast<std::size_t>(ir::SpecialReg::envreg2) + 1);
    CHECK(ptx::all_test_kinds.size() == static_cast<std::size_t>(ir::TestKind::subnormal));
    CHECK(ptx::all_prmt_modes.size() == static_cast<std::size_t>(ir::PrmtMode::rc16));
}
