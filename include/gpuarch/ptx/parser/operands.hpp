#pragma once
// Operands: reading one as written (RawOperand), the roles each opcode's operand positions take, and converting a
// raw operand to an ir::Operand with its names resolved and its type checked.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <gpuarch/ir/module.hpp>
#include <gpuarch/ir/names.hpp>
#include <gpuarch/ptx/function.hpp>
#include <gpuarch/ptx/literals.hpp>
#include <gpuarch/ptx/parser/declarations.hpp>
#include <gpuarch/ptx/parser/raw_operand.hpp>
#include <gpuarch/ptx/type_rules.hpp>

namespace gpuarch::ptx::detail {

class OperandParser : public DeclarationParser {
public:
    using DeclarationParser::DeclarationParser;

protected:
    RawOperand parse_raw_operand() {
        RawOperand r;
        const Token& t = peek();
        r.at = &t;
        if (t.is_punct('{')) {
            next();
            r.kind = RawOperand::Kind::vector;
            do {
                const bool negative = accept_punct('-');
                const Token& e = peek();
                if (e.kind != TokenKind::word && e.kind != TokenKind::integer)
                    fail(e, "expected a register or integer constant in a vector operand, found " + describe(e));
                if (negative && e.kind != TokenKind::integer) fail(e, "'-' must be followed by an integer constant");
                next();
                if (r.count == 4) fail(e, "vector operands hold at most 4 elements");
                r.element_negative[r.count] = negative;
                r.elements[r.count++] = &e;
            } while (accept_punct(','));
            expect_punct('}', "to close a vector operand");
            return r;
        }
        if (t.is_punct('[')) {
            next();
            r.kind = RawOperand::Kind::address;
            const Token& b = peek();
            if (b.kind == TokenKind::word) {
                next();
                r.name = &b;
                if (peek().is_punct('+') || peek().is_punct('-')) {
                    const bool minus = next().is_punct('-');
                    const bool minus2 = !minus && accept_punct('-');
                    r.offset = parse_offset(minus || minus2);
                }
            } else if (b.kind == TokenKind::integer || b.is_punct('-')) {
                r.offset = parse_offset(accept_punct('-'));
            } else {
                fail(b, "expected a register, variable or constant address, found " + describe(b));
            }
            if (peek().is_punct('+') && r.name && r.name->kind == TokenKind::word && peek(1).kind == TokenKind::word)
                fail(peek(1), "an address is [base + constant]; register + register is not allowed");
            expect_punct(']', "to close an address");
            return r;
        }
        if (t.is_punct('!')) {
            next();
            r.negated = true;
            r.name = &expect_word("a predicate register after '!'");
            return r;
        }
        if (t.is_punct('-') || t.kind == TokenKind::integer || t.kind == TokenKind::f32_hex ||
            t.kind == TokenKind::f64_hex || t.kind == TokenKind::decimal_float) {
            const bool negative = accept_punct('-');
            const Token& v = peek();
            if (!parse_literal(v, negative, r.bits, r.kind, r.decimal))
                fail(v, "expected a constant after '-', found " + describe(v));
            next();
            return r;
        }
        if (t.is_punct('(')) fail(t, "constant expressions in parentheses are not supported");
        if (t.kind == TokenKind::word) {
            next();
            if (t.text == "_") {
                r.kind = RawOperand::Kind::sink;
                return r;
            }
            r.name = &t;
            if (accept_punct('|')) {
                r.kind = RawOperand::Kind::pair;
                r.name2 = &expect_word("a predicate register after '|'");
                return r;
            }
            if (peek().is_punct('+') || (peek().is_punct('-') && peek(1).kind == TokenKind::integer)) {
                // symbol+offset (mov/cvta of a variable address)
                const bool minus = next().is_punct('-');
                const bool minus2 = !minus && accept_punct('-');
                r.offset = parse_offset(minus || minus2);
            }
            return r;
        }
        fail(t, "expected an operand, found " + describe(t));
    }

    std::int64_t parse_offset(bool negative) {
        const Token& v = peek();
        if (v.kind != TokenKind::integer) fail(v, "expected an integer offset, found " + describe(v));
        next();
        const auto value = integer_literal_bits(v.text);
        if (!value || *value > (std::uint64_t{1} << 62)) fail(v, "offset " + std::string(v.text) + " is out of range");
        const auto magnitude = static_cast<std::int64_t>(*value);
        return negative ? -magnitude : magnitude;
    }

    std::vector<RoleSpec> operand_roles(const ir::Instruction& inst, const Token& op_token,
                                        const std::vector<RawOperand>& raw) const {
        using ir::Opcode;
        using ir::ScalarType;
        const ScalarType t = inst.type;
        const ScalarType u32 = ScalarType::u32, b32 = ScalarType::b32, pr = ScalarType::pred;
        const auto wide = [](ScalarType x) { return double_width(x); };
        switch (inst.op) {
        case Opcode::add:
        case Opcode::sub:
        case Opcode::div:
        case Opcode::rem:
        case Opcode::min:
        case Opcode::max:
        case Opcode::and_:
        case Opcode::or_:
        case Opcode::xor_:
        case Opcode::copysign:
        case Opcode::mul24:
        case Opcode::addc:
        case Opcode::subc: return {{Role::dst, t}, {Role::src, t}, {Role::src, t}};
        case Opcode::mul:
            if (inst.mul_mode == ir::MulMode::wide) return {{Role::dst, wide(t)}, {Role::src, t}, {Role::src, t}};
            return {{Role::dst, t}, {Role::src, t}, {Role::src, t}};
        case Opcode::mad:
            if (inst.mul_mode == ir::MulMode::wide)
                return {{Role::dst, wide(t)}, {Role::src, t}, {Role::src, t}, {Role::src, wide(t)}};
            return {{Role::dst, t}, {Role::src, t}, {Role::src, t}, {Role::src, t}};
        case Opcode::fma:
        case Opcode::mad24:
        case Opcode::madc: return {{Role::dst, t}, {Role::src, t}, {Role::src, t}, {Role::src, t}};
        case Opcode::abs:
        case Opcode::neg:
        case Opcode::not_:
        case Opcode::cnot:
        case Opcode::brev:
        case Opcode::rcp:
        case Opcode::sqrt:
        case Opcode::rsqrt:
        case Opcode::sin:
        case Opcode::cos:
        case Opcode::lg2:
        case Opcode::ex2:
        case Opcode::tanh: return {{Role::dst, t}, {Role::src, t}};
        case Opcode::popc:
        case Opcode::clz:
        case Opcode::bfind: return {{Role::dst, u32}, {Role::src, t}};
        case Opcode::testp: return {{Role::dst, pr}, {Role::src, t}};
        case Opcode::bfe: return {{Role::dst, t}, {Role::src, t}, {Role::src, u32}, {Role::src, u32}};
        case Opcode::bfi: return {{Role::dst, t}, {Role::src, t}, {Role::src, t}, {Role::src, u32}, {Role::src, u32}};
        case Opcode::prmt: return {{Role::dst, b32}, {Role::src, b32}, {Role::src, b32}, {Role::src, b32}};
        case Opcode::lop3:
            return {{Role::dst, b32}, {Role::src, b32}, {Role::src, b32}, {Role::src, b32}, {Role::imm, b32}};
        case Opcode::shf: return {{Role::dst, b32}, {Role::src, b32}, {Role::src, b32}, {Role::src, u32}};
        case Opcode::shl:
        case Opcode::shr: return {{Role::dst, t}, {Role::src, t}, {Role::src, u32}};
        case Opcode::setp:
            if (inst.bool_op != ir::BoolOp::none)
                return {{Role::dst_pair, pr}, {Role::src, t}, {Role::src, t}, {Role::pred, pr}};
            return {{Role::dst_pair, pr}, {Role::src, t}, {Role::src, t}};
        case Opcode::set:
            if (inst.bool_op != ir::BoolOp::none)
                return {{Role::dst, t}, {Role::src, inst.src_type}, {Role::src, inst.src_type}, {Role::pred, pr}};
            return {{Role::dst, t}, {Role::src, inst.src_type}, {Role::src, inst.src_type}};
        case Opcode::selp: return {{Role::dst, t}, {Role::src, t}, {Role::src, t}, {Role::sel_pred, pr}};
        case Opcode::slct: return {{Role::dst, t}, {Role::src, t}, {Role::src, t}, {Role::src, inst.src_type}};
        case Opcode::cvt:
            if (t == ScalarType::f16x2 || t == ScalarType::bf16x2)
                return {{Role::dst, t}, {Role::src, inst.src_type}, {Role::src, inst.src_type}};
            return {{Role::dst, t}, {Role::src, inst.src_type}};
        case Opcode::cvta: return {{Role::dst, t}, {Role::src_addr, t}};
        case Opcode::mov: return {{Role::dst_data, t}, {Role::src_data, t}};
        case Opcode::ld: return {{Role::dst_data, t}, {Role::address, t}};
        case Opcode::st: return {{Role::address, t}, {Role::src_data, t}};
        case Opcode::atom:
            if (inst.atom_op == ir::AtomOp::cas)
                return {{Role::dst, t}, {Role::address, t}, {Role::src, t}, {Role::src, t}};
            return {{Role::dst, t}, {Role::address, t}, {Role::src, t}};
        case Opcode::red: return {{Role::address, t}, {Role::src, t}};
        case Opcode::bar:
            if (inst.barrier == ir::BarrierMode::sync)
                return raw.size() >= 2 ? std::vector<RoleSpec>{{Role::src, u32}, {Role::src, u32}}
                                       : std::vector<RoleSpec>{{Role::src, u32}};
            if (inst.barrier == ir::BarrierMode::arrive) return {{Role::src, u32}, {Role::src, u32}};
            if (raw.size() >= 4) return {{Role::dst, t}, {Role::src, u32}, {Role::src, u32}, {Role::pred, pr}};
            return {{Role::dst, t}, {Role::src, u32}, {Role::pred, pr}};
        case Opcode::bar_warp_sync:
        case Opcode::nanosleep: return {{Role::src, u32}};
        case Opcode::membar:
        case Opcode::fence:
        case Opcode::ret:
        case Opcode::exit:
        case Opcode::trap: return {};
        case Opcode::shfl:
            return {{Role::dst_pair, b32}, {Role::src, b32}, {Role::src, u32}, {Role::src, u32}, {Role::src, u32}};
        case Opcode::vote: return {{Role::dst, t}, {Role::pred, pr}, {Role::src, u32}};
        case Opcode::match:
            if (inst.vote_mode == ir::VoteMode::all) return {{Role::dst_pair, b32}, {Role::src, t}, {Role::src, u32}};
            return {{Role::dst, b32}, {Role::src, t}, {Role::src, u32}};
        case Opcode::activemask: return {{Role::dst, b32}};
        case Opcode::bra: return {{Role::label, ScalarType::none}};
        case Opcode::dp4a:
        case Opcode::dp2a:
        case Opcode::vabsdiff4:
            return {{Role::dst, t}, {Role::src, inst.src_type}, {Role::src, inst.b_type}, {Role::src, t}};
        case Opcode::sad: return {{Role::dst, t}, {Role::src, t}, {Role::src, t}, {Role::src, t}};
        case Opcode::redux: return {{Role::dst, t}, {Role::src, t}, {Role::src, u32}};
        case Opcode::prefetch:
        case Opcode::prefetchu: return {{Role::address, ScalarType::none}};
        case Opcode::call:
        case Opcode::vprintf:
        case Opcode::assertfail:
        case Opcode::tex:
        case Opcode::suld:
        case Opcode::sust:
        // operands set by the inliner (malloc, free) or by parse_cp_async
        case Opcode::device_malloc:
        case Opcode::device_free:
        case Opcode::cp_async:
        case Opcode::cp_async_commit_group:
        case Opcode::cp_async_wait_group:
        case Opcode::cp_async_wait_all: break;
        }
        fail(op_token, "internal error: no operand roles for '" + std::string(op_token.text) + "'");
    }

    // Which instructions accept registers wider than their type (PTX ISA 9.0, Sec. 6.4.2.1: ld, st, cvt).
    // suld/sust move raw .b8/.b16 elements through wider registers as ld/st do (nvcc uses %rs for .b8).
    static bool relaxed_sizes(ir::Opcode op) {
        return op == ir::Opcode::ld || op == ir::Opcode::st || op == ir::Opcode::cvt || op == ir::Opcode::suld ||
               op == ir::Opcode::sust;
    }

    std::string operand_label(const Token& op_token, std::size_t index) const {
        return "operand " + std::to_string(index + 1) + " of '" + std::string(op_token.text) + "'";
    }

    void check_register_type(const ir::Instruction& inst, const Token& op_token, const Token& reg_token, ir::RegId reg,
                             ir::ScalarType want, std::size_t index, bool is_dest) const {
        const ir::ScalarType have = register_type(reg);
        const bool relaxed = relaxed_sizes(inst.op) && !(inst.op == ir::Opcode::cvt && ir::is_float(want));
        if (!register_fits(want, have, relaxed, is_dest))
            fail(reg_token, operand_label(op_token, index) + ": register " + std::string(reg_token.text) +
                                " has type ." + std::string(ir::name(have)) + ", which does not fit ." +
                                std::string(ir::name(want)));
    }

    ir::Operand convert_operand(ir::Instruction& inst, const Token& op_token, const RawOperand& raw,
                                const RoleSpec& spec, std::size_t index) {
        using Kind = RawOperand::Kind;
        ir::Operand out;
        const std::string where = operand_label(op_token, index);
        const auto bad = [&](const std::string& expected) -> ir::Operand {
            fail(*raw.at, where + " must be " + expected);
        };
        switch (spec.role) {
        case Role::label:
            if (raw.kind != Kind::name || raw.negated || raw.offset != 0) return bad("a label");
            if (find_register(raw.name->text) || raw.name->text.front() == '%')
                fail(*raw.name, "indirect branches through a register are not supported");
            out.kind = ir::OperandKind::label;
            label_refs_.push_back(LabelRef{static_cast<ir::Pc>(function_->body.code.size()), *raw.name});
            return out;
        case Role::pred:
        case Role::sel_pred: {
            if (raw.kind != Kind::name || raw.offset != 0) return bad("a predicate register");
            if (raw.negated && spec.role == Role::sel_pred) fail(*raw.at, where + " cannot be negated");
            out.kind = ir::OperandKind::reg;
            out.reg = resolve_register(*raw.name);
            out.negated = raw.negated;
            check_register_type(inst, op_token, *raw.name, out.reg, ir::ScalarType::pred, index, false);
            return out;
        }
        case Role::dst:
        case Role::dst_pair: {
            if (raw.kind == Kind::sink) {
                out.kind = ir::OperandKind::sink;
                return out;
            }
            if (raw.kind == Kind::pair) {
                if (spec.role != Role::dst_pair) fail(*raw.at, where + " cannot have a second '|' destination");
                out.kind = ir::OperandKind::reg;
                out.reg = resolve_register(*raw.name);
                check_register_type(inst, op_token, *raw.name, out.reg, spec.type, index, true);
                if (raw.name2->text != "_") {
                    out.reg2 = resolve_register(*raw.name2);
                    check_register_type(inst, op_token, *raw.name2, out.reg2, ir::ScalarType::pred, index, true);
                }
                return out;
            }
            if (raw.kind != Kind::name || raw.negated || raw.offset != 0) return bad("a register");
            out.kind = ir::OperandKind::reg;
            out.reg = resolve_register(*raw.name);
            check_register_type(inst, op_token, *raw.name, out.reg, spec.type, index, true);
            return out;
        }
        case Role::imm:
            if (raw.kind != Kind::integer) return bad("an integer constant");
            if (raw.bits > 0xff)
                fail(*raw.at, where + ": lookup table " + std::string(raw.at->text) + " is out of range 0..255");
            out.kind = ir::OperandKind::imm;
            out.imm_bits = raw.bits;
            return out;
        case Role::address: return convert_address(inst, op_token, raw, index);
        case Role::dst_data:
        case Role::src_data:
        case Role::src_addr:
        case Role::src: break;
        }
        const bool is_dest = spec.role == Role::dst_data;
        if (raw.kind == Kind::vector) {
            if (spec.role != Role::dst_data && spec.role != Role::src_data)
                return bad("a register or constant, not a vector");
            return convert_vector(inst, op_token, raw, spec, index, is_dest);
        }
        if (raw.kind == Kind::sink) {
            if (!is_dest) return bad("a source, not '_'");
            out.kind = ir::OperandKind::sink;
            return out;
        }
        if (raw.kind == Kind::pair || raw.kind == Kind::address)
            return bad(is_dest ? "a register" : "a register or constant");
        if (raw.kind == Kind::integer || raw.kind == Kind::f32 || raw.kind == Kind::f64) {
            if (is_dest) return bad("a register");
            if (spec.role == Role::src_addr) return bad("a register or variable");
            return convert_immediate(op_token, raw, spec.type, index);
        }
        // A name: register, special register, or (mov/cvta) a variable whose address is taken.
        if (raw.negated) {
            if (spec.type != ir::ScalarType::pred) fail(*raw.at, where + ": '!' is only allowed on predicates");
        }
        const std::string_view name = raw.name->text;
        if (auto reg = find_register(name)) {
            if (raw.offset != 0) fail(*raw.at, where + ": a register cannot take an offset");
            if (raw.negated) fail(*raw.at, where + " cannot be negated");
            out.kind = ir::OperandKind::reg;
            out.reg = *reg;
            check_register_type(inst, op_token, *raw.name, out.reg, spec.type, index, is_dest);
            return out;
        }
        if (is_dest)
            fail(*raw.name, find_symbol(name)
                                ? where + " must be a register, not the variable '" + std::string(name) + "'"
                                : "undeclared register '" + std::string(name) + "'");
        if (auto special = find_special(name)) {
            if (raw.offset != 0 || raw.negated) return bad("a plain special register");
            const unsigned size = ir::size_bytes(*special);
            const unsigned want = ir::size_bytes(spec.type);
            if (spec.type == ir::ScalarType::pred || ir::is_float(spec.type) ||
                (size != want && !(inst.op == ir::Opcode::cvt && want <= size)))
                fail(*raw.name, where + ": special register " + std::string(name) + " is " + std::to_string(size * 8) +
                                    "-bit and does not fit ." + std::string(ir::name(spec.type)));
            out.kind = ir::OperandKind::special;
            out.special = *special;
            return out;
        }
        if (is_known_unsupported_special(name)) {
            if (name == "%tid" || name == "%ntid" || name == "%ctaid" || name == "%nctaid")
                fail(*raw.name, "special register " + std::string(name) + " needs a component (.x, .y or .z)");
            if (name.substr(0, 7) == "%envreg")
                fail(*raw.name,
                     "unsupported special register '" + std::string(name) +
                         "': its value is driver-defined; only %envreg1 and %envreg2 (the cooperative-groups "
                         "grid workspace) are modelled");
            fail(*raw.name, "unsupported special register '" + std::string(name) + "'");
        }
        if (const auto f = function_index_.find(name); f != function_index_.end() && !find_symbol(name) &&
                                                       inst.op == ir::Opcode::mov && spec.role == Role::src_data) {
            // `mov.u64 %rd, f;`: the function's address (ptx::function_address), a possible indirect-call target.
            if (functions_[f->second].is_entry)
                fail(*raw.name, "the address of the kernel '" + std::string(name) +
                                    "' is taken, as for a device-side kernel launch: dynamic parallelism is out of "
                                    "scope for gpuarch");
            if (ir::size_bytes(spec.type) != 8 || ir::is_float(spec.type) || raw.offset != 0 || raw.negated)
                fail(*raw.name, where + ": the function address '" + std::string(name) + "' needs mov.u64 or mov.b64");
            functions_[f->second].address_taken = true;
            out.kind = ir::OperandKind::imm;
            out.imm_type = ir::ImmType::integer;
            out.imm_bits = function_address(f->second);
            return out;
        }
        if (auto sym = find_symbol(name)) {
            const bool takes_address =
                (inst.op == ir::Opcode::mov && spec.role == Role::src_data) || spec.role == Role::src_addr;
            if (!takes_address)
                fail(*raw.name, where + ": the variable '" + std::string(name) +
                                    "' can only be used in an address "
                                    "([" +
                                    std::string(name) + "]) or as the source of mov/cvta");
            if (!is_integer_type(spec.type) && !is_bit_type(spec.type))
                fail(*raw.name, where + ": a variable address needs an integer type");
            if (ir::size_bytes(spec.type) < 4)
                fail(*raw.name, where + ": a variable address needs a 32- or 64-bit type");
            if (spec.role == Role::src_addr) {
                if (inst.to_space)
                    fail(*raw.name, where + ": cvta.to converts a generic address register, not a variable");
                if (sym->space != inst.space)
                    fail(*raw.name, where + ": '" + std::string(name) + "' is in ." +
                                        std::string(ir::name(sym->space)) + ", not ." +
                                        std::string(ir::name(inst.space)));
            }
            out.kind = ir::OperandKind::symbol;
            out.symbol_scope = sym->scope;
            out.symbol = sym->id;
            out.offset = raw.offset;
            return out;
        }
        if (function_index_.count(std::string(name)) != 0)
            fail(*raw.name,
                 "taking the address of function '" + std::string(name) + "' is not supported (no indirect calls)");
        if (labels_.count(name) != 0 || name.front() == '$')
            fail(*raw.name, where + ": label '" + std::string(name) + "' cannot be used as a value");
        if (name.front() == '%') fail(*raw.name, "undeclared register '" + std::string(name) + "'");
        fail(*raw.name, "undeclared identifier '" + std::string(name) + "'");
    }

    ir::Operand convert_immediate(const Token& op_token, const RawOperand& raw, ir::ScalarType type,
                                  std::size_t index) const {
        using Kind = RawOperand::Kind;
        const std::string where = operand_label(op_token, index);
        ir::Operand out;
        out.kind = ir::OperandKind::imm;
        const unsigned size = ir::size_bytes(type);
        if (type == ir::ScalarType::f32 || type == ir::ScalarType::f64) {
            double value = 0;
            if (raw.kind == Kind::integer) value = static_cast<double>(static_cast<std::int64_t>(raw.bits));
            else if (raw.kind == Kind::f32) value = f32_from_bits(static_cast<std::uint32_t>(raw.bits));
            else value = f64_from_bits(raw.bits);
            if (type == ir::ScalarType::f32) {
                out.imm_type = ir::ImmType::f32;
                // An f32 literal keeps its exact bits (NaN payloads included); others convert by value.
                out.imm_bits = raw.kind == Kind::f32 ? raw.bits : f32_bits(static_cast<float>(value));
            } else {
                out.imm_type = ir::ImmType::f64;
                out.imm_bits = raw.kind == Kind::f64 ? raw.bits : f64_bits(value);
            }
            return out;
        }
        if (type == ir::ScalarType::pred) {
            // ptxas accepts any integer constant for a predicate (nvcc writes `mov.pred %p, -1`): non-zero is true.
            if (raw.kind != Kind::integer) fail(*raw.at, where + ": a predicate constant must be an integer");
            out.imm_bits = raw.bits != 0 ? 1 : 0;
            return out;
        }
        if (raw.decimal) fail(*raw.at, where + ": a decimal floating-point constant needs an .f32 or .f64 operand");
        if (raw.kind == Kind::f32 || raw.kind == Kind::f64) {
            const unsigned literal_size = raw.kind == Kind::f32 ? 4U : 8U;
            if (literal_size > size)
                fail(*raw.at, where + ": a " + std::to_string(literal_size * 8) +
                                  "-bit floating-point bit pattern does not fit ." + std::string(ir::name(type)));
            out.imm_type = raw.kind == Kind::f32 ? ir::ImmType::f32 : ir::ImmType::f64;
            out.imm_bits = raw.bits;
            return out;
        }
        if (!fits_integer(raw.bits, size))
            fail(*raw.at,
                 where + ": constant " + std::string(raw.at->text) + " does not fit ." + std::string(ir::name(type)));
        out.imm_bits = raw.bits;
        return out;
    }

    ir::Operand convert_vector(ir::Instruction& inst, const Token& op_token, const RawOperand& raw,
                               const RoleSpec& spec, std::size_t index, bool is_dest) {
        const std::string where = operand_label(op_token, index);
        ir::Operand out;
        out.kind = ir::OperandKind::vector;
        out.vector_count = raw.count;
        const bool is_mov = inst.op == ir::Opcode::mov;
        if (!is_mov && raw.count != inst.vector_width)
            fail(*raw.at, where + " has " + std::to_string(raw.count) + " elements but the instruction is .v" +
                              std::to_string(inst.vector_width));
        if (is_mov && raw.count < 2) fail(*raw.at, where + ": a packing vector needs 2 or 4 elements");
        unsigned element_size = 0, total = 0;
        std::uint8_t constants = 0;
        for (std::uint8_t e = 0; e < raw.count; ++e) {
            const Token& t = *raw.elements[e];
            if (t.kind == TokenKind::integer) {
                if (!is_mov || is_dest) fail(t, where + ": constant elements are only allowed in a mov packing source");
                constants = static_cast<std::uint8_t>(constants | (1U << e));
                out.vector[e] = ir::no_reg;
                continue;
            }
            if (t.text == "_") {
                if (!is_dest) fail(t, where + ": '_' is only allowed in a destination vector");
                if (is_mov) fail(t, where + ": mov unpacking needs a register for every element");
                out.vector[e] = ir::no_reg;
                continue;
            }
            const ir::RegId reg = resolve_register(t);
            out.vector[e] = reg;
            if (is_mov) {
                const ir::ScalarType have = register_type(reg);
                if (have == ir::ScalarType::pred) fail(t, where + ": predicates cannot be packed");
                const unsigned s = ir::size_bytes(have);
                if (element_size != 0 && s != element_size) fail(t, where + ": packed elements must have equal sizes");
                element_size = s;
                total += s;
            } else {
                check_register_type(inst, op_token, t, reg, spec.type, index, is_dest);
            }
        }
        if (is_mov) {
            if (!is_bit_type(spec.type))
                fail(*raw.at, where + ": packing and unpacking need a .b16/.b32/.b64/.b128 mov");
            if (constants != 0) {
                // Constant elements take the register elements' width, or an equal share when all are constant.
                if (element_size == 0) element_size = ir::size_bytes(spec.type) / raw.count;
                if (element_size * raw.count != ir::size_bytes(spec.type) || element_size * raw.count > 8)
                    fail(*raw.at, where + ": constant elements need a packed value of at most 64 bits");
                for (std::uint8_t e = 0; e < raw.count; ++e) {
                    if ((constants & (1U << e)) == 0) continue;
                    const Token& t = *raw.elements[e];
                    auto value = integer_literal_bits(t.text);
                    if (!value) fail(t, where + ": constant " + std::string(t.text) + " does not fit in 64 bits");
                    std::uint64_t bits = raw.element_negative[e] ? ~*value + 1 : *value;
                    if (!fits_integer(bits, element_size))
                        fail(t, where + ": constant " + std::string(t.text) + " does not fit a " +
                                    std::to_string(element_size * 8) + "-bit element");
                    if (element_size < 8) bits &= (std::uint64_t{1} << (8 * element_size)) - 1;
                    out.imm_bits |= bits << (8 * element_size * e);
                    total += element_size;
                }
                out.vector_imm_mask = constants;
            }
            if (total != ir::size_bytes(spec.type))
                fail(*raw.at, where + ": the elements hold " + std::to_string(total * 8) + " bits but ." +
                                  std::string(ir::name(spec.type)) + " has " +
                                  std::to_string(ir::size_bytes(spec.type) * 8));
        }
        return out;
    }

    ir::Operand convert_address(ir::Instruction& inst, const Token& op_token, const RawOperand& raw,
                                std::size_t index) {
        const std::string where = operand_label(op_token, index);
        if (raw.kind != RawOperand::Kind::address) fail(*raw.at, where + " must be an address [...]");
        ir::Operand out;
        out.kind = ir::OperandKind::address;
        out.offset = raw.offset;
        if (!raw.name) return out; // absolute address [imm]
        const std::string_view name = raw.name->text;
        if (auto reg = find_register(name)) {
            const ir::ScalarType type = register_type(*reg);
            if (!(is_integer_type(type) || is_bit_type(type)) ||
                (ir::size_bytes(type) != 4 && ir::size_bytes(type) != 8))
                fail(*raw.name, where + ": address register " + std::string(name) + " must be a 32- or 64-bit integer");
            out.reg = *reg;
            return out;
        }
        auto sym = find_symbol(name);
        if (!sym) {
            if (find_special(name)) fail(*raw.name, where + ": a special register cannot be an address");
            if (name.front() == '%') fail(*raw.name, "undeclared register '" + std::string(name) + "'");
            fail(*raw.name, "undeclared variable '" + std::string(name) + "'");
        }
        const ir::StateSpace s = inst.space;
        if (s == ir::StateSpace::none) {
            if (sym->space == ir::StateSpace::param)
                fail(*raw.name,
                     where + ": parameter '" + std::string(name) + "' must be accessed with ld.param/st.param");
        } else if (s != sym->space) {
            fail(*raw.name, where + ": '" + std::string(name) + "' is in the ." + std::string(ir::name(sym->space)) +
                                " space, not ." + std::string(ir::name(s)));
        }
        if (sym->scope == ir::SymbolScope::kernel_param && inst.op != ir::Opcode::ld && function_->is_entry)
            fail(*raw.name, where + ": kernel parameters are read-only");
        out.symbol_scope = sym->scope;
        out.symbol = sym->id;
        return out;
    }

    // Checks that need every operand: ld.param of a kernel param, address alignment of vectors etc.
    void check_instruction(const ir::Instruction& inst, const Token& op_token,
                           const std::vector<RawOperand>& raw) const {
        if (inst.op == ir::Opcode::setp && inst.operands[0].kind == ir::OperandKind::sink)
            fail(*raw[0].at, "setp needs a destination predicate");
        (void)op_token;
    }
};

} // namespace gpuarch::ptx::detail
