#pragma once
// The modifiers of an opcode word (`add.rn.ftz.f32`): apply_modifier reads each one into the instruction, then
// finish_modifiers checks the whole set against the opcode's row of opcode_rules (parser/opcode_rules.hpp) and its
// family's check function here.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpuarch/ir/module.hpp>
#include <gpuarch/ir/names.hpp>
#include <gpuarch/ir/op_class.hpp>
#include <gpuarch/ptx/modifiers.hpp>
#include <gpuarch/ptx/parser/opcode_rules.hpp>
#include <gpuarch/ptx/parser/operands.hpp>
#include <gpuarch/ptx/type_rules.hpp>

namespace gpuarch::ptx::detail {

// One dot-separated piece of an opcode word, with its column for errors that point at it.
struct Part {
    std::string_view text;
    std::uint32_t column;
};

class ModifierParser : public OperandParser {
public:
    using OperandParser::OperandParser;

protected:
    // An error at one modifier of the opcode word rather than at the word's start.
    [[noreturn]] void fail_part(const Token& op_token, const Part& part, const std::string& message) const {
        fail_at(op_token.line, part.column, message);
    }

    // A field two modifiers would both set (.rn.rz, .global.shared) is a conflict, whichever they are.
    template <class T> void set_once(T& field, T value, const Token& op_token, const Part& part) const {
        if (field != T{})
            fail_part(op_token, part, "duplicate or conflicting modifier '." + std::string(part.text) + "'");
        field = value;
    }
    void set_flag(bool& flag, const Token& op_token, const Part& part) const {
        if (flag) fail_part(op_token, part, "duplicate modifier '." + std::string(part.text) + "'");
        flag = true;
    }

    static bool one_of(ir::Opcode op, std::initializer_list<ir::Opcode> ops) {
        return std::find(ops.begin(), ops.end(), op) != ops.end();
    }

    // Reads one modifier of the opcode word into `inst`, or a type into `types` (their count and order are checked
    // by finish_modifiers); fails at the modifier when `head` does not take it.
    void apply_modifier(ir::Instruction& inst, const Token& op_token, std::string_view head, const Part& part,
                        std::vector<std::pair<ir::ScalarType, Part>>& types) {
        using ir::Opcode;
        const std::string_view m = part.text;
        const Opcode op = inst.op;
        if (m.empty()) fail_part(op_token, part, "empty modifier in '" + std::string(op_token.text) + "'");
        if (auto t = lookup_name(m, all_scalar_types)) {
            types.emplace_back(*t, part);
            return;
        }
        if (one_of(op, {Opcode::add, Opcode::sub, Opcode::mul, Opcode::mad, Opcode::fma, Opcode::div, Opcode::rcp,
                        Opcode::sqrt, Opcode::cvt})) {
            if (auto r = lookup_name(m, all_float_roundings)) {
                if (*r == ir::Rounding::rna && op != Opcode::cvt)
                    fail_part(op_token, part, "rounding .rna is only allowed on cvt");
                return set_once(inst.rounding, *r, op_token, part);
            }
        }
        if (op == Opcode::cvt)
            if (auto r = lookup_name(m, all_integer_roundings)) return set_once(inst.rounding, *r, op_token, part);
        if (m == "ftz" &&
            one_of(op, {Opcode::add, Opcode::sub,  Opcode::mul,   Opcode::mad,  Opcode::fma,  Opcode::div,
                        Opcode::rcp, Opcode::sqrt, Opcode::rsqrt, Opcode::sin,  Opcode::cos,  Opcode::lg2,
                        Opcode::ex2, Opcode::abs,  Opcode::neg,   Opcode::min,  Opcode::max,  Opcode::setp,
                        Opcode::set, Opcode::cvt,  Opcode::slct,  Opcode::tanh, Opcode::testp}))
            return set_flag(inst.ftz, op_token, part);
        if (m == "sat" && one_of(op, {Opcode::add, Opcode::sub, Opcode::mul, Opcode::mad, Opcode::fma, Opcode::cvt}))
            return set_flag(inst.sat, op_token, part);
        if (m == "cc" && one_of(op, {Opcode::add, Opcode::sub, Opcode::mad, Opcode::addc, Opcode::subc, Opcode::madc}))
            return set_flag(inst.carry_out, op_token, part);
        if (one_of(op, {Opcode::mul, Opcode::mad, Opcode::mul24, Opcode::mad24, Opcode::madc})) {
            if (m == "lo") return set_once(inst.mul_mode, ir::MulMode::lo, op_token, part);
            if (m == "hi") return set_once(inst.mul_mode, ir::MulMode::hi, op_token, part);
            if (m == "wide" && one_of(op, {Opcode::mul, Opcode::mad}))
                return set_once(inst.mul_mode, ir::MulMode::wide, op_token, part);
        }
        if (m == "approx" && one_of(op, {Opcode::div, Opcode::rcp, Opcode::sqrt, Opcode::rsqrt, Opcode::sin,
                                         Opcode::cos, Opcode::lg2, Opcode::ex2, Opcode::tanh}))
            return set_flag(inst.approx, op_token, part);
        if (m == "full" && op == Opcode::div) return set_flag(inst.full, op_token, part);
        if (one_of(op, {Opcode::setp, Opcode::set})) {
            if (auto c = lookup_name(m, all_compare_ops)) return set_once(inst.cmp, *c, op_token, part);
            if (auto b = lookup_name(m, all_bool_ops)) return set_once(inst.bool_op, *b, op_token, part);
        }
        if (one_of(op, {Opcode::ld, Opcode::st, Opcode::atom, Opcode::red, Opcode::cvta})) {
            if (auto s = lookup_name(m, all_memory_spaces)) return set_once(inst.space, *s, op_token, part);
            if (m == "to" && op == Opcode::cvta) return set_flag(inst.to_space, op_token, part);
        }
        if (one_of(op, {Opcode::ld, Opcode::st, Opcode::atom, Opcode::red, Opcode::fence})) {
            if (auto o = lookup_name(m, all_mem_orders)) return set_once(inst.order, *o, op_token, part);
            if (m == "mmio") fail_part(op_token, part, "the .mmio qualifier is not supported");
        }
        if (one_of(op, {Opcode::ld, Opcode::st, Opcode::atom, Opcode::red, Opcode::fence, Opcode::membar})) {
            if (op == Opcode::membar && m == "gl") return set_once(inst.scope, ir::Scope::gpu, op_token, part);
            if (auto s = lookup_name(m, all_scopes)) {
                if (op == Opcode::membar && *s == ir::Scope::gpu)
                    fail_part(op_token, part, "membar uses .gl for the GPU scope");
                return set_once(inst.scope, *s, op_token, part);
            }
            if (m == "proxy") fail_part(op_token, part, "proxy fences are not supported");
        }
        if (one_of(op, {Opcode::ld, Opcode::st})) {
            // Cache operators and eviction hints only steer the caches; values are unaffected, and the timing
            // model decides caching itself. Accepted and ignored (docs/ptx.md).
            static constexpr std::string_view ignored[] = {"ca",
                                                           "cg",
                                                           "cs",
                                                           "lu",
                                                           "cv",
                                                           "wb",
                                                           "wt",
                                                           "L1::evict_normal",
                                                           "L1::evict_unchanged",
                                                           "L1::evict_first",
                                                           "L1::evict_last",
                                                           "L1::no_allocate",
                                                           "L2::64B",
                                                           "L2::128B",
                                                           "L2::256B"};
            for (std::string_view s : ignored)
                if (m == s) return;
            if (m == "v2" || m == "v4") {
                if (inst.vector_width != 1)
                    fail_part(op_token, part, "duplicate vector modifier '." + std::string(m) + "'");
                inst.vector_width = m == "v2" ? 2 : 4;
                return;
            }
            if (m == "v8") fail_part(op_token, part, ".v8 vectors are not supported");
            if (m == "nc" && op == Opcode::ld) return set_flag(inst.non_coherent, op_token, part);
            if (m == "L2::cache_hint")
                fail_part(op_token, part, "cache-policy operands (.L2::cache_hint) are not supported");
        }
        if (one_of(op, {Opcode::atom, Opcode::red})) {
            if (auto a = lookup_name(m, all_atom_ops)) return set_once(inst.atom_op, *a, op_token, part);
            if (m == "noftz") return; // the default for f16 atomics: no flush to zero
            if (m == "v2" || m == "v4" || m == "v8") fail_part(op_token, part, "vector atomics are not supported");
        }
        if (op == Opcode::shfl) {
            if (auto s = lookup_name(m, all_shfl_modes)) return set_once(inst.shfl_mode, *s, op_token, part);
            if (m == "sync") return set_flag(inst.uni, op_token, part); // `uni` doubles as "seen .sync" until checked
        }
        if (op == Opcode::vote) {
            if (auto v = lookup_name(m, all_vote_modes)) return set_once(inst.vote_mode, *v, op_token, part);
            if (m == "sync") return set_flag(inst.uni, op_token, part);
        }
        if (op == Opcode::match) {
            if (m == "any") return set_once(inst.vote_mode, ir::VoteMode::any, op_token, part);
            if (m == "all") return set_once(inst.vote_mode, ir::VoteMode::all, op_token, part);
            if (m == "sync") return set_flag(inst.uni, op_token, part);
        }
        if (op == Opcode::bar_warp_sync && m == "sync") return set_flag(inst.uni, op_token, part);
        if (op == Opcode::redux) {
            if (m == "sync") return set_flag(inst.uni, op_token, part); // `uni` marks "seen .sync" until checked
            if (auto a = lookup_name(m, all_atom_ops)) return set_once(inst.atom_op, *a, op_token, part);
            if (m == "abs" || m == "NaN")
                fail_part(op_token, part,
                          "'." + std::string(m) + "' belongs to redux.sync on .f32 (sm_100a), which is not supported");
        }
        if (op == Opcode::dp2a) {
            if (m == "lo") return set_once(inst.mul_mode, ir::MulMode::lo, op_token, part);
            if (m == "hi") return set_once(inst.mul_mode, ir::MulMode::hi, op_token, part);
        }
        if (op == Opcode::vabsdiff4) {
            if (m == "sat") return set_flag(inst.sat, op_token, part);
            if (m == "add") return set_flag(inst.accumulate, op_token, part);
        }
        if (op == Opcode::prefetch || op == Opcode::prefetchu) {
            if (auto s = lookup_name(m, all_memory_spaces)) return set_once(inst.space, *s, op_token, part);
            if (auto l = lookup_name(m, all_cache_levels)) return set_once(inst.cache_level, *l, op_token, part);
            if (m == "tensormap") fail_part(op_token, part, "prefetch.tensormap (sm_90) is not supported");
        }
        if (op == Opcode::bar) {
            if (m == "sync") return set_once(inst.barrier, ir::BarrierMode::sync, op_token, part);
            if (m == "arrive") return set_once(inst.barrier, ir::BarrierMode::arrive, op_token, part);
            if (m == "red") return set_flag(inst.uni, op_token, part); // `uni` marks "seen .red" until checked
            if (m == "popc" || m == "and" || m == "or") {
                if (!inst.uni) fail_part(op_token, part, "'." + std::string(m) + "' must follow .red");
                const auto mode = m == "popc"  ? ir::BarrierMode::red_popc
                                  : m == "and" ? ir::BarrierMode::red_and
                                               : ir::BarrierMode::red_or;
                return set_once(inst.barrier, mode, op_token, part);
            }
            if (m == "aligned" && head == "barrier") return set_flag(inst.full, op_token, part); // marks .aligned
            if (m == "cta") return set_once(inst.scope, ir::Scope::cta, op_token, part); // bar{.cta}: the only scope
        }
        if (m == "uni" && one_of(op, {Opcode::bra, Opcode::ret})) return set_flag(inst.uni, op_token, part);
        if (op == Opcode::shf) {
            if (m == "l" || m == "r") {
                if (inst.approx) fail_part(op_token, part, "duplicate shift direction");
                inst.approx = true; // marks "direction seen" until checked
                inst.funnel_right = m == "r";
                return;
            }
            if (m == "wrap" || m == "clamp") {
                if (inst.full) fail_part(op_token, part, "duplicate .wrap/.clamp");
                inst.full = true; // marks "mode seen" until checked
                inst.clamp = m == "clamp";
                return;
            }
        }
        if (op == Opcode::prmt)
            if (auto p = lookup_name(m, all_prmt_modes)) return set_once(inst.prmt, *p, op_token, part);
        if (op == Opcode::testp)
            if (auto t = lookup_name(m, all_test_kinds)) return set_once(inst.test, *t, op_token, part);
        if (op == Opcode::bfind && m == "shiftamt") return set_flag(inst.shiftamt, op_token, part);
        if (m == "NaN" && one_of(op, {Opcode::min, Opcode::max})) return set_flag(inst.propagate_nan, op_token, part);
        fail_part(op_token, part, "unsupported modifier '." + std::string(m) + "' on '" + std::string(head) + "'");
    }

    // The opcode word a rule reports against: its token (errors without a part point at its first column), its
    // head (named in type errors) and its type modifiers in order, each with its part.
    struct OpcodeWord {
        const Token& token;
        std::string_view head;
        const std::vector<std::pair<ir::ScalarType, Part>>& types;
    };

    [[noreturn]] void fail_word(const OpcodeWord& word, const std::string& message) const { fail(word.token, message); }
    static std::string opname(const OpcodeWord& word) { return std::string(word.token.text); }
    // Too many types points at the first extra one; too few at the word.
    void want_types(const OpcodeWord& word, std::size_t n) const {
        if (word.types.size() == n) return;
        if (word.types.size() > n)
            fail_part(word.token, word.types[n].second, "'" + opname(word) + "' has too many type modifiers");
        fail_word(word,
                  "'" + opname(word) + "' needs " + (n == 1 ? std::string("a type") : std::to_string(n) + " types"));
    }
    // A type error points at the type modifier at position `which`.
    void require_type(const OpcodeWord& word, bool ok, std::size_t which = 0) const {
        if (!ok)
            fail_part(word.token, word.types[which].second,
                      "type ." + std::string(ir::name(word.types[which].first)) + " is not allowed for '" +
                          std::string(word.head) + "'");
    }
    void require(const OpcodeWord& word, bool ok, const std::string& message) const {
        if (!ok) fail_word(word, "'" + opname(word) + "': " + message);
    }

    // Whether `inst` carries the modifier that `required` names.
    static bool has_required(const ir::Instruction& inst, Required required) {
        switch (required) {
        case Required::none: return true;
        case Required::float_rounding: return inst.rounding != ir::Rounding::none;
        case Required::lo_or_hi: return inst.mul_mode == ir::MulMode::lo || inst.mul_mode == ir::MulMode::hi;
        case Required::approx: return inst.approx;
        case Required::compare_op: return inst.cmp != ir::CompareOp::none;
        case Required::state_space: return inst.space != ir::StateSpace::none;
        case Required::test_kind: return inst.test != ir::TestKind::none;
        }
        return true;
    }

    // Required modifiers, type counts and allowed types per opcode: the opcode's row of opcode_rules, then its
    // family's check function. Sets inst.type (and src_type, b_type) from the type modifiers.
    void finish_modifiers(ir::Instruction& inst, const Token& op_token, std::string_view head,
                          const std::vector<std::pair<ir::ScalarType, Part>>& types) {
        const OpcodeWord word{op_token, head, types};
        const OpcodeRule& rule = rule_for(inst.op);
        if (rule.type_count != OpcodeRule::types_by_family) want_types(word, rule.type_count);
        if (!types.empty()) inst.type = types[0].first;
        if (types.size() == 2) inst.src_type = types[1].first;
        if (inst.ftz) require(word, rule.ftz.contains(inst.type), ".ftz needs an .f32 or .f16 type");
        if (rule.type_count != OpcodeRule::types_by_family)
            for (std::size_t k = 0; k < rule.type_count; ++k)
                require_type(word, rule.allowed[k].contains(types[k].first), k);
        if (!has_required(inst, rule.required)) require(word, false, std::string(rule.required_message));
        switch (rule.family) {
        case Family::arithmetic: return check_arithmetic(inst, word);
        case Family::logic: return check_logic(inst, word);
        case Family::comparison: return check_comparison(inst, word);
        case Family::conversion: return check_conversion(inst, word);
        case Family::special: return check_special_function(inst, word);
        case Family::memory: return check_memory(inst, word);
        case Family::synchronization: return check_synchronization(inst, word);
        case Family::control: return;
        case Family::video: return check_video(inst, word);
        case Family::not_generic: return reject_not_generic(inst, word);
        }
    }

    void check_arithmetic(const ir::Instruction& inst, const OpcodeWord& word) const {
        using ir::ScalarType;
        const ScalarType t = inst.type;
        const bool is_int = is_integer_type(t);
        const bool float_rounding = inst.rounding != ir::Rounding::none;
        switch (inst.op) {
        case ir::Opcode::add:
        case ir::Opcode::sub:
            if (inst.carry_out)
                require(word, type_sets::integers_32_64.contains(t), ".cc needs a 32- or 64-bit integer type");
            if (inst.sat)
                require(word, t == ScalarType::s32 || t == ScalarType::f32 || ir::is_half_type(t),
                        ".sat needs .s32, .f32 or a half type");
            if (float_rounding) require(word, !is_int, "rounding modifiers need a floating-point type");
            break;
        case ir::Opcode::mul:
            if (is_int) {
                require(word, inst.mul_mode != ir::MulMode::none, "integer mul needs .lo, .hi or .wide");
                if (inst.mul_mode == ir::MulMode::wide)
                    require(word, ir::size_bytes(t) <= 4, ".wide needs a 16- or 32-bit type");
                require(word, !float_rounding, "rounding modifiers need a floating-point type");
                require(word, !inst.sat, ".sat needs a floating-point type");
            } else {
                require(word, inst.mul_mode == ir::MulMode::none, ".lo/.hi/.wide need an integer type");
            }
            break;
        case ir::Opcode::mad:
            if (is_int) {
                require(word, inst.mul_mode != ir::MulMode::none, "integer mad needs .lo, .hi or .wide");
                if (inst.mul_mode == ir::MulMode::wide)
                    require(word, ir::size_bytes(t) <= 4, ".wide needs a 16- or 32-bit type");
                require(word, !float_rounding, "rounding modifiers need a floating-point type");
                if (inst.sat)
                    require(word, t == ScalarType::s32 && inst.mul_mode == ir::MulMode::hi, ".sat needs mad.hi.s32");
                if (inst.carry_out)
                    require(word, type_sets::integers_32_64.contains(t), ".cc needs a 32- or 64-bit integer type");
            } else {
                require(word, inst.mul_mode == ir::MulMode::none, ".lo/.hi/.wide need an integer type");
                require(word, !inst.carry_out, ".cc needs an integer type");
            }
            break;
        case ir::Opcode::div:
            if (is_int)
                require(word, !float_rounding && !inst.approx && !inst.full,
                        "rounding and .approx/.full need a floating-point type");
            if (t == ScalarType::f64)
                require(word, !inst.approx && !inst.full, "div.f64 takes a rounding modifier, not .approx/.full");
            require(word, (inst.approx ? 1 : 0) + (inst.full ? 1 : 0) + (float_rounding ? 1 : 0) <= 1,
                    ".approx, .full and rounding modifiers are mutually exclusive");
            break;
        case ir::Opcode::min:
        case ir::Opcode::max:
            if (inst.propagate_nan)
                require(word, t == ScalarType::f32 || ir::is_half_type(t), ".NaN needs .f32 or a half type");
            break;
        default: // mul24 mad24 madc addc subc fma rem abs neg sad: their row says it all
            break;
        }
    }

    void check_logic(ir::Instruction& inst, const OpcodeWord& word) const {
        if (inst.op != ir::Opcode::shf) return; // the others: their row says it all
        // apply_modifier marks the shift direction in `approx` and the .wrap/.clamp mode in `full`.
        require(word, inst.approx, "shf needs .l or .r");
        require(word, inst.full, "shf needs .wrap or .clamp");
        inst.approx = false;
        inst.full = false;
    }

    void check_comparison(const ir::Instruction& inst, const OpcodeWord& word) const {
        using ir::ScalarType;
        if (inst.op == ir::Opcode::slct) {
            if (inst.ftz) require(word, inst.src_type == ScalarType::f32, ".ftz needs an .f32 selector");
            return;
        }
        if (inst.op == ir::Opcode::selp) return;
        // setp and set compare values of their last type: setp's only one, set's second (its first is the result's).
        const ScalarType compared = inst.op == ir::Opcode::set ? inst.src_type : inst.type;
        const bool float_cmp = type_sets::f32_f64.contains(compared) || ir::is_half_type(compared);
        const bool unordered = inst.cmp >= ir::CompareOp::equ;
        const bool unsigned_cmp = inst.cmp >= ir::CompareOp::lo && inst.cmp <= ir::CompareOp::hs;
        if (float_cmp) require(word, !unsigned_cmp, "unsigned comparisons need an integer type");
        else require(word, !unordered, "unordered comparisons need a floating-point type");
        if (is_bit_type(compared))
            require(word, inst.cmp == ir::CompareOp::eq || inst.cmp == ir::CompareOp::ne,
                    "bit-size types compare only with .eq/.ne");
        if (inst.ftz)
            require(word, compared == ScalarType::f32 || ir::is_half_type(compared), ".ftz needs an .f32 comparison");
    }

    // cvt: which rounding a conversion takes depends on its two sides (PTX ISA 9.0, Sec. 9.7.9.21).
    void check_conversion(const ir::Instruction& inst, const OpcodeWord& word) const {
        using ir::ScalarType;
        if (inst.op != ir::Opcode::cvt) return; // cvta and mov: their row says it all
        const ScalarType d = inst.type, s = inst.src_type;
        const auto is_float = [](ScalarType x) { return type_sets::f32_f64.contains(x) || ir::is_half_type(x); };
        const bool d_float = is_float(d), s_float = is_float(s);
        const bool float_rounding = inst.rounding != ir::Rounding::none;
        const bool integer_rounding = inst.rounding >= ir::Rounding::rni;
        const bool float_rounding_only = float_rounding && !integer_rounding;
        const auto float_bits = [](ScalarType x) {
            return x == ScalarType::f64 ? 64U : x == ScalarType::f32 ? 32U : 16U;
        };
        if (d == ScalarType::f16x2 || d == ScalarType::bf16x2) {
            require(word, s == ScalarType::f32, "packing to ." + std::string(ir::name(d)) + " converts from .f32");
            require(word, float_rounding_only, "needs a floating-point rounding modifier");
        } else if (s == ScalarType::f16x2 || s == ScalarType::bf16x2) {
            fail_part(word.token, word.types[1].second, "cvt from a packed half type is not supported");
        } else if (d_float && s_float) {
            const bool narrowing = float_bits(d) < float_bits(s) || (d != s && float_bits(d) == float_bits(s));
            if (d == s) {
                require(word, !float_rounding_only,
                        "a same-type float cvt takes an integer rounding (.rni/.rzi/.rmi/.rpi) or none");
            } else if (narrowing) {
                require(word, float_rounding_only,
                        "a narrowing float conversion needs a floating-point rounding modifier");
            } else {
                require(word, !float_rounding, "a widening float conversion takes no rounding modifier");
            }
        } else if (d_float && !s_float) {
            require(word, float_rounding_only,
                    "an integer-to-float conversion needs a floating-point rounding modifier");
        } else if (!d_float && s_float) {
            require(word, integer_rounding,
                    "a float-to-integer conversion needs an integer rounding modifier (.rni, .rzi, .rmi, .rpi)");
        } else {
            require(word, !float_rounding, "an integer-to-integer conversion takes no rounding modifier");
        }
        if (inst.rounding == ir::Rounding::rna)
            require(word, ir::is_half_type(d) || d == ScalarType::f32, ".rna is not supported here");
        if (inst.ftz)
            require(word, d == ScalarType::f32 || s == ScalarType::f32 || d == ScalarType::f16 || s == ScalarType::f16,
                    ".ftz needs an .f32 or .f16 side");
    }

    void check_special_function(const ir::Instruction& inst, const OpcodeWord& word) const {
        if (inst.op != ir::Opcode::rcp && inst.op != ir::Opcode::sqrt) return; // the others: their row says it all
        const bool float_rounding = inst.rounding != ir::Rounding::none;
        if (inst.type == ir::ScalarType::f32)
            require(word, inst.approx != float_rounding, "needs exactly one of .approx or a rounding modifier");
        else
            require(word, inst.approx ? (inst.ftz && !float_rounding) : float_rounding,
                    ".f64 needs a rounding modifier (or .approx.ftz for rcp)");
        if (inst.op == ir::Opcode::sqrt && inst.type == ir::ScalarType::f64)
            require(word, !inst.approx, "sqrt.approx needs .f32");
    }

    void check_memory(const ir::Instruction& inst, const OpcodeWord& word) const {
        using ir::MemOrder;
        using ir::ScalarType;
        using ir::StateSpace;
        const ScalarType t = inst.type;
        switch (inst.op) {
        case ir::Opcode::ld:
        case ir::Opcode::st: {
            const bool ld = inst.op == ir::Opcode::ld;
            if (inst.non_coherent) require(word, inst.space == StateSpace::global, ".nc needs .global");
            if (!ld) require(word, inst.space != StateSpace::constant, "cannot store to the .const space");
            if (ld)
                require(word,
                        inst.order != MemOrder::release && inst.order != MemOrder::acq_rel &&
                            inst.order != MemOrder::sc,
                        "ld takes .weak, .volatile, .relaxed or .acquire");
            else
                require(word,
                        inst.order != MemOrder::acquire && inst.order != MemOrder::acq_rel &&
                            inst.order != MemOrder::sc,
                        "st takes .weak, .volatile, .relaxed or .release");
            const bool scoped_order =
                inst.order == MemOrder::relaxed || inst.order == MemOrder::acquire || inst.order == MemOrder::release;
            require(word, scoped_order ? inst.scope != ir::Scope::none : inst.scope == ir::Scope::none,
                    ".relaxed/.acquire/.release need a scope and only they take one");
            require(word, inst.vector_width == 1 || t != ScalarType::b128, "vectors of .b128 are not supported");
            break;
        }
        case ir::Opcode::atom:
        case ir::Opcode::red:
            require(word, inst.atom_op != ir::AtomOp::none, "needs an operation (.add, .min, .cas, ...)");
            require(word,
                    inst.space == StateSpace::none || inst.space == StateSpace::global ||
                        inst.space == StateSpace::shared,
                    "atomics need .global, .shared or no (generic) space");
            require(word,
                    inst.order == MemOrder::none || inst.order == MemOrder::relaxed ||
                        inst.order == MemOrder::acquire || inst.order == MemOrder::release ||
                        inst.order == MemOrder::acq_rel,
                    "atomics take .relaxed, .acquire, .release or .acq_rel");
            if (inst.op == ir::Opcode::red)
                require(word, inst.atom_op != ir::AtomOp::cas && inst.atom_op != ir::AtomOp::exch,
                        "red has no .cas or .exch");
            require_type(word, atomic_types(inst.atom_op).contains(t));
            break;
        case ir::Opcode::prefetch:
            require(word,
                    inst.space == StateSpace::none || inst.space == StateSpace::global ||
                        inst.space == StateSpace::local,
                    "prefetch takes .global, .local or no state space (generic)");
            require(word, inst.cache_level != ir::CacheLevel::none, "needs a cache level (.L1 or .L2)");
            if (inst.cache_level == ir::CacheLevel::L2_evict_last ||
                inst.cache_level == ir::CacheLevel::L2_evict_normal)
                require(word, inst.space == StateSpace::global, "an L2 eviction priority needs prefetch.global");
            break;
        case ir::Opcode::prefetchu:
            require(word, inst.space == StateSpace::none, "prefetchu takes a generic address and no state space");
            require(word, inst.cache_level == ir::CacheLevel::L1, "prefetchu needs .L1");
            break;
        default: break;
        }
    }

    // The types atom and red take with each operation (PTX ISA 9.0, Secs. 9.7.13.5 and 9.7.13.6, as modelled).
    static TypeSet atomic_types(ir::AtomOp op) {
        using ir::ScalarType;
        switch (op) {
        case ir::AtomOp::add:
            return TypeSet{ScalarType::u32, ScalarType::s32, ScalarType::u64, ScalarType::f32, ScalarType::f64} |
                   type_sets::halves;
        case ir::AtomOp::min:
        case ir::AtomOp::max: return type_sets::integers_32_64;
        case ir::AtomOp::inc:
        case ir::AtomOp::dec: return TypeSet{ScalarType::u32};
        case ir::AtomOp::and_:
        case ir::AtomOp::or_:
        case ir::AtomOp::xor_: return type_sets::bits_32_64;
        case ir::AtomOp::cas: return TypeSet{ScalarType::b32, ScalarType::b64, ScalarType::b16};
        case ir::AtomOp::exch: return type_sets::bits_32_64;
        case ir::AtomOp::none: break;
        }
        return TypeSet{};
    }

    // apply_modifier marks a seen .sync (and bar's .red) in `uni`, and barrier's .aligned in `full`; each check
    // here reads its mark and clears it, so that `uni` keeps only its meaning for bra and ret.
    void check_synchronization(ir::Instruction& inst, const OpcodeWord& word) const {
        using ir::ScalarType;
        const ScalarType t = inst.type;
        switch (inst.op) {
        case ir::Opcode::bar: {
            if (inst.barrier == ir::BarrierMode::none) {
                if (inst.uni) fail_word(word, "'" + opname(word) + "' needs .popc, .and or .or after .red");
                fail_word(word, "'" + opname(word) + "' needs .sync, .arrive or .red");
            }
            const bool red = inst.uni;
            inst.uni = false;
            if (word.head == "barrier") {
                inst.aligned = inst.full;
                inst.full = false;
            }
            if (red) {
                want_types(word, 1);
                if (inst.barrier == ir::BarrierMode::red_popc) require_type(word, t == ScalarType::u32);
                else require_type(word, t == ScalarType::pred);
            } else {
                want_types(word, 0);
            }
            break;
        }
        case ir::Opcode::bar_warp_sync:
            require(word, inst.uni, "needs .sync (bar.warp.sync)");
            inst.uni = false;
            break;
        case ir::Opcode::membar:
            require(word, inst.scope == ir::Scope::cta || inst.scope == ir::Scope::gpu || inst.scope == ir::Scope::sys,
                    "membar needs .cta, .gl or .sys");
            break;
        case ir::Opcode::fence:
            require(word, inst.order == ir::MemOrder::sc || inst.order == ir::MemOrder::acq_rel,
                    "fence needs .sc or .acq_rel");
            require(word, inst.scope != ir::Scope::none, "fence needs a scope (.cta, .gpu, .sys)");
            break;
        case ir::Opcode::shfl:
            require(word, inst.uni, "shfl without .sync is not supported (deprecated since PTX 6.0); use shfl.sync");
            inst.uni = false;
            require(word, inst.shfl_mode != ir::ShflMode::none, "needs .up, .down, .bfly or .idx");
            require_type(word, t == ScalarType::b32);
            break;
        case ir::Opcode::vote:
            require(word, inst.uni, "vote without .sync is not supported (deprecated since PTX 6.0); use vote.sync");
            inst.uni = false;
            require(word, inst.vote_mode != ir::VoteMode::none, "needs .all, .any, .uni or .ballot");
            if (inst.vote_mode == ir::VoteMode::ballot) require_type(word, t == ScalarType::b32);
            else require_type(word, t == ScalarType::pred);
            break;
        case ir::Opcode::match:
            require(word, inst.uni, "needs .sync");
            inst.uni = false;
            require(word, inst.vote_mode == ir::VoteMode::any || inst.vote_mode == ir::VoteMode::all,
                    "needs .any or .all");
            require_type(word, type_sets::bits_32_64.contains(t));
            break;
        case ir::Opcode::redux:
            require(word, inst.uni, "needs .sync (redux.sync)");
            inst.uni = false;
            switch (inst.atom_op) {
            case ir::AtomOp::add:
            case ir::AtomOp::min:
            case ir::AtomOp::max:
                if (t == ScalarType::f32)
                    fail_part(word.token, word.types[0].second, "redux.sync on .f32 (sm_100a) is not supported");
                require_type(word, type_sets::u32_s32.contains(t));
                break;
            case ir::AtomOp::and_:
            case ir::AtomOp::or_:
            case ir::AtomOp::xor_: require_type(word, t == ScalarType::b32); break;
            default: require(word, false, "needs .add, .min, .max, .and, .or or .xor");
            }
            break;
        default: // activemask: its row says it all
            break;
        }
    }

    // dp4a/dp2a: c and d are .u32 when both sources are .u32, else .s32 (PTX ISA 9.0, Secs. 9.7.1.23/24);
    // vabsdiff4: .sat (merge form) and .add (accumulate form) are exclusive (Sec. 9.7.16.2).
    void check_video(ir::Instruction& inst, const OpcodeWord& word) const {
        using ir::ScalarType;
        if (inst.op == ir::Opcode::vabsdiff4) {
            require(word, !(inst.sat && inst.accumulate), ".sat cannot be combined with .add");
            inst.src_type = word.types[1].first;
            inst.b_type = word.types[2].first;
            return;
        }
        inst.src_type = word.types[0].first;
        inst.b_type = word.types[1].first;
        inst.type =
            inst.src_type == ScalarType::u32 && inst.b_type == ScalarType::u32 ? ScalarType::u32 : ScalarType::s32;
    }

    void reject_not_generic(const ir::Instruction& inst, const OpcodeWord& word) const {
        switch (inst.op) {
        case ir::Opcode::vprintf:
        case ir::Opcode::assertfail: // made by the inliner from a call, never parsed by name
            fail_word(word,
                      "'" + opname(word) + "' is a device-runtime function: call it (call.uni (r), vprintf, (a, b);)");
        case ir::Opcode::tex:
        case ir::Opcode::suld:
        case ir::Opcode::sust: // parse_texture reads these
            fail_word(word, "internal error: '" + opname(word) + "' reached the generic modifier rules");
        // made by the inliner (malloc, free) or by parse_cp_async, never parsed here
        case ir::Opcode::device_malloc:
        case ir::Opcode::device_free:
            fail_word(word,
                      "'" + opname(word) + "' is a device-runtime function: call it (call.uni (r), malloc, (a);)");
        default: fail_word(word, "internal error: '" + opname(word) + "' reached the generic modifier checks");
        }
    }
};

} // namespace gpuarch::ptx::detail
