#pragma once
// What each opcode requires of its modifiers, as data: one OpcodeRule row per ir::Opcode, grouped by instruction
// family. ModifierParser::finish_modifiers (parser/modifier_rules.hpp) applies a row, then the family's check
// function for what a row cannot state.
#include <array>
#include <cstdint>
#include <initializer_list>
#include <string_view>

#include <gpuarch/ir/types.hpp>

namespace gpuarch::ptx::detail {

// A set of scalar types; bit i stands for the ir::ScalarType whose value is i.
class TypeSet {
public:
    constexpr TypeSet() = default;
    constexpr TypeSet(std::initializer_list<ir::ScalarType> types) {
        for (ir::ScalarType t : types) bits_ |= bit(t);
    }
    static constexpr TypeSet every() {
        TypeSet all;
        all.bits_ = (std::uint32_t{1} << (static_cast<unsigned>(ir::ScalarType::f64) + 1)) - 1;
        return all;
    }
    constexpr bool contains(ir::ScalarType t) const { return (bits_ & bit(t)) != 0; }
    constexpr TypeSet operator|(TypeSet other) const { return from_bits(bits_ | other.bits_); }
    constexpr TypeSet without(TypeSet other) const { return from_bits(bits_ & ~other.bits_); }

private:
    static_assert(static_cast<unsigned>(ir::ScalarType::f64) < 32, "a TypeSet holds one bit per ir::ScalarType");
    static constexpr std::uint32_t bit(ir::ScalarType t) { return std::uint32_t{1} << static_cast<unsigned>(t); }
    static constexpr TypeSet from_bits(std::uint32_t bits) {
        TypeSet s;
        s.bits_ = bits;
        return s;
    }
    std::uint32_t bits_ = 0;
};

namespace type_sets {
using ir::ScalarType;
inline constexpr TypeSet any = TypeSet::every();
inline constexpr TypeSet integers = {ScalarType::u8, ScalarType::u16, ScalarType::u32, ScalarType::u64,
                                     ScalarType::s8, ScalarType::s16, ScalarType::s32, ScalarType::s64};
inline constexpr TypeSet integers_16_to_64 = {ScalarType::u16, ScalarType::u32, ScalarType::u64,
                                              ScalarType::s16, ScalarType::s32, ScalarType::s64};
inline constexpr TypeSet signed_16_to_64 = {ScalarType::s16, ScalarType::s32, ScalarType::s64};
inline constexpr TypeSet integers_32_64 = {ScalarType::u32, ScalarType::s32, ScalarType::u64, ScalarType::s64};
inline constexpr TypeSet u32_s32 = {ScalarType::u32, ScalarType::s32};
inline constexpr TypeSet bits_16_to_64 = {ScalarType::b16, ScalarType::b32, ScalarType::b64};
inline constexpr TypeSet bits_32_64 = {ScalarType::b32, ScalarType::b64};
inline constexpr TypeSet f32_f64 = {ScalarType::f32, ScalarType::f64};
inline constexpr TypeSet halves = {ScalarType::f16, ScalarType::f16x2, ScalarType::bf16, ScalarType::bf16x2};
// The operands setp and set compare, the values selp and slct select, and either side of cvt.
inline constexpr TypeSet comparable = bits_16_to_64 | integers_16_to_64 | f32_f64 | halves;
inline constexpr TypeSet selectable = integers_16_to_64 | bits_16_to_64 | f32_f64;
inline constexpr TypeSet convertible = integers | f32_f64 | halves;
// The instruction types that take .ftz; .f64 only for rcp and rsqrt, whose .approx.ftz.f64 forms PTX ISA 9.0
// defines.
inline constexpr TypeSet ftz_default = {ScalarType::f32, ScalarType::f16, ScalarType::f16x2};
inline constexpr TypeSet ftz_with_f64 = ftz_default | TypeSet{ScalarType::f64};
} // namespace type_sets

// The instruction families of finish_modifiers: each has one check function in ModifierParser for the rules an
// OpcodeRule row cannot state.
enum class Family : std::uint8_t {
    arithmetic, // add sub mul mad mul24 mad24 madc addc subc fma div rem abs neg min max sad
    logic, // popc clz brev bfe bfind bfi prmt lop3 shf and or xor not cnot shl shr
    comparison, // setp set selp slct
    conversion, // cvt cvta mov
    special, // rcp sqrt rsqrt sin cos lg2 ex2 tanh copysign testp
    memory, // ld st atom red prefetch prefetchu
    synchronization, // bar barrier bar.warp.sync membar fence shfl vote match redux activemask
    control, // bra call ret exit trap nanosleep
    video, // dp4a dp2a vabsdiff4
    not_generic, // read by parse_call, parse_texture or parse_cp_async, or made by the inliner
};

// A modifier an opcode cannot go without, checked right after its types.
enum class Required : std::uint8_t {
    none,
    float_rounding, // .rn, .rz, .rm or .rp
    lo_or_hi, // .lo or .hi
    approx, // .approx
    compare_op, // .eq, .lt, ...
    state_space, // .global, .shared, ...
    test_kind, // .finite, .infinite, ...
};

// What finish_modifiers checks for one opcode, in this order: the number of type modifiers, .ftz against the
// instruction type, each type modifier against `allowed` (by position), the `required` modifier, then the
// family's check function. An opcode whose family rejects a modifier before it checks a type (shfl.b16 without
// .sync names .sync) leaves `allowed` at type_sets::any and checks its types in the family function.
struct OpcodeRule {
    // `type_count` for bar: bar.red takes one type and bar.sync/bar.arrive none, which its family decides.
    static constexpr std::uint8_t types_by_family = 0xff;

    ir::Opcode op;
    Family family;
    std::uint8_t type_count = 1;
    // The types allowed at each type-modifier position; positions from type_count on are never read.
    std::array<TypeSet, 3> allowed{type_sets::any, type_sets::any, type_sets::any};
    // The instruction types .ftz is allowed with; type_sets::any where the family decides (cvt, set and slct
    // check .ftz against their source or selector type).
    TypeSet ftz = type_sets::ftz_default;
    Required required = Required::none;
    std::string_view required_message{};
};

// Each opcode's types and modifiers as the simulator models them, a subset of PTX ISA 9.0, Sec. 9.7.
inline constexpr OpcodeRule opcode_rules[] = {
    // integer and floating-point arithmetic
    {ir::Opcode::add, Family::arithmetic, 1, {type_sets::integers_16_to_64 | type_sets::f32_f64 | type_sets::halves}},
    {ir::Opcode::sub, Family::arithmetic, 1, {type_sets::integers_16_to_64 | type_sets::f32_f64 | type_sets::halves}},
    {ir::Opcode::mul, Family::arithmetic, 1, {type_sets::integers_16_to_64 | type_sets::f32_f64 | type_sets::halves}},
    {ir::Opcode::mad, Family::arithmetic, 1, {type_sets::integers_16_to_64 | type_sets::f32_f64}},
    {ir::Opcode::mul24,
     Family::arithmetic,
     1,
     {type_sets::u32_s32},
     type_sets::ftz_default,
     Required::lo_or_hi,
     "needs .lo or .hi"},
    {ir::Opcode::mad24,
     Family::arithmetic,
     1,
     {type_sets::u32_s32},
     type_sets::ftz_default,
     Required::lo_or_hi,
     "needs .lo or .hi"},
    {ir::Opcode::madc,
     Family::arithmetic,
     1,
     {type_sets::integers_32_64},
     type_sets::ftz_default,
     Required::lo_or_hi,
     "needs .lo or .hi"},
    {ir::Opcode::addc, Family::arithmetic, 1, {type_sets::integers_32_64}},
    {ir::Opcode::subc, Family::arithmetic, 1, {type_sets::integers_32_64}},
    {ir::Opcode::fma,
     Family::arithmetic,
     1,
     {type_sets::f32_f64 | type_sets::halves},
     type_sets::ftz_default,
     Required::float_rounding,
     "fma needs a rounding modifier (.rn, .rz, .rm or .rp)"},
    {ir::Opcode::div, Family::arithmetic, 1, {type_sets::integers_16_to_64 | type_sets::f32_f64}},
    {ir::Opcode::rem, Family::arithmetic, 1, {type_sets::integers_16_to_64}},
    {ir::Opcode::abs, Family::arithmetic, 1, {type_sets::signed_16_to_64 | type_sets::f32_f64 | type_sets::halves}},
    {ir::Opcode::neg, Family::arithmetic, 1, {type_sets::signed_16_to_64 | type_sets::f32_f64 | type_sets::halves}},
    {ir::Opcode::min, Family::arithmetic, 1, {type_sets::integers_16_to_64 | type_sets::f32_f64 | type_sets::halves}},
    {ir::Opcode::max, Family::arithmetic, 1, {type_sets::integers_16_to_64 | type_sets::f32_f64 | type_sets::halves}},
    {ir::Opcode::sad, Family::arithmetic, 1, {type_sets::integers_16_to_64}},
    // bit manipulation, logic and shifts
    {ir::Opcode::popc, Family::logic, 1, {type_sets::bits_32_64}},
    {ir::Opcode::clz, Family::logic, 1, {type_sets::bits_32_64}},
    {ir::Opcode::brev, Family::logic, 1, {type_sets::bits_32_64}},
    {ir::Opcode::bfe, Family::logic, 1, {type_sets::integers_32_64}},
    {ir::Opcode::bfind, Family::logic, 1, {type_sets::integers_32_64}},
    {ir::Opcode::bfi, Family::logic, 1, {type_sets::bits_32_64}},
    {ir::Opcode::prmt, Family::logic, 1, {TypeSet{ir::ScalarType::b32}}},
    {ir::Opcode::lop3, Family::logic, 1, {TypeSet{ir::ScalarType::b32}}},
    {ir::Opcode::shf, Family::logic, 1, {TypeSet{ir::ScalarType::b32}}},
    {ir::Opcode::and_, Family::logic, 1, {type_sets::bits_16_to_64 | TypeSet{ir::ScalarType::pred}}},
    {ir::Opcode::or_, Family::logic, 1, {type_sets::bits_16_to_64 | TypeSet{ir::ScalarType::pred}}},
    {ir::Opcode::xor_, Family::logic, 1, {type_sets::bits_16_to_64 | TypeSet{ir::ScalarType::pred}}},
    {ir::Opcode::not_, Family::logic, 1, {type_sets::bits_16_to_64 | TypeSet{ir::ScalarType::pred}}},
    {ir::Opcode::cnot, Family::logic, 1, {type_sets::bits_16_to_64}},
    {ir::Opcode::shl, Family::logic, 1, {type_sets::bits_16_to_64}},
    {ir::Opcode::shr, Family::logic, 1, {type_sets::bits_16_to_64 | type_sets::integers_16_to_64}},
    // comparison and selection
    {ir::Opcode::setp,
     Family::comparison,
     1,
     {type_sets::comparable},
     type_sets::ftz_default,
     Required::compare_op,
     "needs a comparison (.eq, .lt, ...)"},
    {ir::Opcode::set,
     Family::comparison,
     2,
     {TypeSet{ir::ScalarType::u32, ir::ScalarType::s32, ir::ScalarType::f32}, type_sets::comparable},
     type_sets::any,
     Required::compare_op,
     "needs a comparison (.eq, .lt, ...)"},
    {ir::Opcode::selp, Family::comparison, 1, {type_sets::selectable}},
    {ir::Opcode::slct,
     Family::comparison,
     2,
     {type_sets::selectable, TypeSet{ir::ScalarType::s32, ir::ScalarType::f32}},
     type_sets::any},
    // conversion and movement
    {ir::Opcode::cvt, Family::conversion, 2, {type_sets::convertible, type_sets::convertible}, type_sets::any},
    {ir::Opcode::cvta,
     Family::conversion,
     1,
     {TypeSet{ir::ScalarType::u32, ir::ScalarType::u64}},
     type_sets::ftz_default,
     Required::state_space,
     "cvta needs a state space (.global, .shared, .local, .const, .param)"},
    {ir::Opcode::mov,
     Family::conversion,
     1,
     {type_sets::any.without({ir::ScalarType::b8, ir::ScalarType::u8, ir::ScalarType::s8})}},
    // floating-point special functions
    {ir::Opcode::rcp, Family::special, 1, {type_sets::f32_f64}, type_sets::ftz_with_f64},
    {ir::Opcode::sqrt, Family::special, 1, {type_sets::f32_f64}},
    {ir::Opcode::rsqrt,
     Family::special,
     1,
     {type_sets::f32_f64},
     type_sets::ftz_with_f64,
     Required::approx,
     "rsqrt needs .approx"},
    {ir::Opcode::sin,
     Family::special,
     1,
     {TypeSet{ir::ScalarType::f32}},
     type_sets::ftz_default,
     Required::approx,
     "needs .approx"},
    {ir::Opcode::cos,
     Family::special,
     1,
     {TypeSet{ir::ScalarType::f32}},
     type_sets::ftz_default,
     Required::approx,
     "needs .approx"},
    {ir::Opcode::lg2,
     Family::special,
     1,
     {TypeSet{ir::ScalarType::f32}},
     type_sets::ftz_default,
     Required::approx,
     "needs .approx"},
    {ir::Opcode::ex2,
     Family::special,
     1,
     {TypeSet{ir::ScalarType::f32} | type_sets::halves},
     type_sets::ftz_default,
     Required::approx,
     "needs .approx"},
    {ir::Opcode::tanh,
     Family::special,
     1,
     {TypeSet{ir::ScalarType::f32} | type_sets::halves},
     type_sets::ftz_default,
     Required::approx,
     "needs .approx"},
    {ir::Opcode::copysign, Family::special, 1, {type_sets::f32_f64}},
    {ir::Opcode::testp,
     Family::special,
     1,
     {type_sets::f32_f64},
     type_sets::ftz_default,
     Required::test_kind,
     "testp needs a test (.finite, .infinite, ...)"},
    // memory
    {ir::Opcode::ld, Family::memory, 1, {type_sets::any.without({ir::ScalarType::pred})}},
    {ir::Opcode::st, Family::memory, 1, {type_sets::any.without({ir::ScalarType::pred})}},
    {ir::Opcode::atom, Family::memory},
    {ir::Opcode::red, Family::memory},
    {ir::Opcode::prefetch, Family::memory, 0},
    {ir::Opcode::prefetchu, Family::memory, 0},
    // synchronisation and warp-level
    {ir::Opcode::bar, Family::synchronization, OpcodeRule::types_by_family},
    {ir::Opcode::bar_warp_sync, Family::synchronization, 0},
    {ir::Opcode::membar, Family::synchronization, 0},
    {ir::Opcode::fence, Family::synchronization, 0},
    {ir::Opcode::shfl, Family::synchronization},
    {ir::Opcode::vote, Family::synchronization},
    {ir::Opcode::match, Family::synchronization},
    {ir::Opcode::redux, Family::synchronization},
    {ir::Opcode::activemask, Family::synchronization, 1, {TypeSet{ir::ScalarType::b32}}},
    // control flow
    {ir::Opcode::bra, Family::control, 0},
    {ir::Opcode::ret, Family::control, 0},
    {ir::Opcode::exit, Family::control, 0},
    {ir::Opcode::trap, Family::control, 0},
    {ir::Opcode::call, Family::control},
    {ir::Opcode::nanosleep, Family::control, 1, {TypeSet{ir::ScalarType::u32}}},
    // integer video and dot-product instructions (PTX ISA 9.0, Secs. 9.7.1.23/24 and 9.7.16.2): every type
    // modifier is .u32 or .s32
    {ir::Opcode::dp4a, Family::video, 2, {type_sets::u32_s32, type_sets::u32_s32}},
    {ir::Opcode::dp2a,
     Family::video,
     2,
     {type_sets::u32_s32, type_sets::u32_s32},
     type_sets::ftz_default,
     Required::lo_or_hi,
     "dp2a needs .lo or .hi"},
    {ir::Opcode::vabsdiff4, Family::video, 3, {type_sets::u32_s32, type_sets::u32_s32, type_sets::u32_s32}},
    // read by parse_call, parse_texture and parse_cp_async, or made by the inliner
    {ir::Opcode::vprintf, Family::not_generic},
    {ir::Opcode::assertfail, Family::not_generic},
    {ir::Opcode::device_malloc, Family::not_generic},
    {ir::Opcode::device_free, Family::not_generic},
    {ir::Opcode::tex, Family::not_generic},
    {ir::Opcode::suld, Family::not_generic},
    {ir::Opcode::sust, Family::not_generic},
    {ir::Opcode::cp_async, Family::not_generic},
    {ir::Opcode::cp_async_commit_group, Family::not_generic},
    {ir::Opcode::cp_async_wait_group, Family::not_generic},
    {ir::Opcode::cp_async_wait_all, Family::not_generic},
};

// Every opcode has exactly one row, so that rule_for never falls through.
constexpr bool every_opcode_has_one_rule() {
    for (unsigned op = 0; op <= static_cast<unsigned>(ir::Opcode::cp_async_wait_all); ++op) {
        int rows = 0;
        for (const OpcodeRule& rule : opcode_rules) rows += static_cast<unsigned>(rule.op) == op ? 1 : 0;
        if (rows != 1) return false;
    }
    return true;
}
static_assert(every_opcode_has_one_rule(), "opcode_rules needs exactly one row per ir::Opcode");

constexpr const OpcodeRule& rule_for(ir::Opcode op) {
    for (const OpcodeRule& rule : opcode_rules)
        if (rule.op == op) return rule;
    return opcode_rules[0]; // unreachable: every_opcode_has_one_rule
}

} // namespace gpuarch::ptx::detail
