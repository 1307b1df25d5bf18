#pragma once
// Pre-decoding of a kernel for one launch: every operand resolved once into a register number, an immediate
// bit pattern in the operand's own type, or a special register; every symbol resolved to its address in its state
// space (module .global variables to their device address on the launching Device). The per-step engine then
// never looks at ir::Operand again.
//
// Contract: decode_kernel either returns one DecodedInstruction per Pc or throws a KernelError naming the PTX line
// of the first operand it cannot place (a symbol used in the wrong state space, a 128-bit register, a call that
// was not inlined).
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <gpuarch/func/device.hpp>
#include <gpuarch/func/float_ops.hpp>
#include <gpuarch/func/kernel_error.hpp>
#include <gpuarch/ir/def_use.hpp>
#include <gpuarch/ir/instruction.hpp>
#include <gpuarch/ir/module.hpp>
#include <gpuarch/ir/names.hpp>

namespace gpuarch::func {

enum class SourceKind : std::uint8_t { none, reg, imm, special };

struct DecodedSource {
    SourceKind kind = SourceKind::none;
    bool negated = false; // `!p` predicate source
    ir::SpecialReg special = ir::SpecialReg::tid_x;
    ir::RegId reg = ir::no_reg;
    std::uint64_t imm = 0; // immediate, or a symbol's address, in the operand's type
};

// The most frequent element-wise integer forms, recognised when a launch is decoded, with their type and modifiers
// settled (semantics::run_lane_op): executing one skips the semantics' dispatch on type, modifiers and compare
// operator, and each form computes exactly what the general semantics compute for it (they share the lane functions,
// semantics/lane_ops.hpp). 32 and 64 name the width of the register values the form reads; s and u the signedness
// where it matters. Any other form is `none` and takes its opcode's general semantics.
enum class LaneOp : std::uint8_t {
    none,
    add_32, add_64, sub_32, sub_64, // add, sub: no .sat, no .cc (carry out), integer types
    mul_lo_32, mul_lo_64, mul_wide_s32, mul_wide_u32, mad_lo_32, mad_lo_64, // mad: no .sat, no .cc, not madc
    shl_32, shr_u32, shr_s32,
    and_32, or_32, xor_32, and_64, or_64, xor_64, and_pred, or_pred, xor_pred,
    // setp with one destination and no combining predicate; the unsigned operators lo/ls/hi/hs and the ordered ones
    // on unsigned types are the *_u forms, eq/ne the same for either signedness.
    setp_eq_32, setp_ne_32, setp_eq_64, setp_ne_64,
    setp_lt_s32, setp_le_s32, setp_gt_s32, setp_ge_s32, setp_lt_u32, setp_le_u32, setp_gt_u32, setp_ge_u32,
    setp_lt_s64, setp_le_s64, setp_gt_s64, setp_ge_s64, setp_lt_u64, setp_le_u64, setp_gt_u64, setp_ge_u64,
};

struct DecodedInstruction {
    const ir::Instruction* inst = nullptr;
    ir::Opcode op = ir::Opcode::mov;
    ir::Guard guard;
    // Neither control flow (bra, call, ret, exit) nor a barrier: executing it changes no SIMT-stack entry, so
    // KernelExecution::run_steps runs such instructions back to back under one stack top.
    bool straight_line = true;
    ir::ScalarType type = ir::ScalarType::none;
    // Destination: a register (and the second register of `d|p`), or up to four vector elements (no_reg = sink).
    ir::RegId dst = ir::no_reg;
    ir::RegId dst2 = ir::no_reg;
    std::uint8_t dst_count = 0; // vector destination elements; 0 for a scalar destination
    std::array<ir::RegId, 4> dst_vector{ir::no_reg, ir::no_reg, ir::no_reg, ir::no_reg};
    std::uint8_t dst_bits = 64; // width of the destination register (ld/cvt extend their result to it)
    // Sources in operand order, excluding the destination and the address; vector sources are expanded.
    std::uint8_t num_sources = 0;
    std::array<DecodedSource, 5> sources{};
    // Memory operand: address = (base register value, if any) + offset, in `space` (generic for generic ld/st).
    bool has_address = false;
    ir::RegId address_base = ir::no_reg;
    std::uint64_t address_offset = 0;
    std::uint64_t address_mask = ~std::uint64_t{0}; // a 32-bit base register gives 32-bit address arithmetic
    ir::StateSpace space = ir::StateSpace::none;
    std::uint8_t element_bytes = 0; // ld/st/atom: bytes of one element
    std::uint8_t elements = 1; // ld/st: vector width
    // The element's bytes for the most frequent loads, a scalar from .global (or generic) memory addressed through a
    // register (semantics::load_global_scalar): 4 or 8 for a word into a register no wider, 1 or 2 for a byte or half
    // (extended into its register); 0 for every other instruction.
    std::uint8_t global_scalar_load = 0;
    LaneOp lane_op = LaneOp::none; // a frequent element-wise integer form, or none
    ir::Pc target = ir::no_pc; // bra
    // cp.async: the shared-memory destination, address = (base register, if any) + offset within the
    // CTA's shared memory; the global source is the memory operand above (space global).
    ir::RegId shared_base = ir::no_reg;
    std::uint64_t shared_offset = 0;
    std::uint64_t shared_mask = ~std::uint64_t{0};
};

// A symbol's address in its own state space.
struct SymbolAddress {
    ir::StateSpace space = ir::StateSpace::none;
    std::uint64_t address = 0;
};

constexpr std::uint64_t generic_window_base(ir::StateSpace space) {
    switch (space) {
    case ir::StateSpace::shared: return shared_window_base;
    case ir::StateSpace::local: return local_window_base;
    case ir::StateSpace::constant: return const_window_base;
    case ir::StateSpace::param: return param_window_base;
    default: return 0; // global addresses are generic addresses
    }
}

class KernelDecoder {
public:
    KernelDecoder(const ir::Module& module, const ir::Kernel& kernel, DevPtr global_base,
                  std::uint64_t dynamic_shared_start)
        : module_(module), kernel_(kernel), global_base_(global_base), dynamic_shared_start_(dynamic_shared_start) {}

    std::vector<DecodedInstruction> decode() const {
        std::vector<DecodedInstruction> out;
        out.reserve(kernel_.code.size());
        for (const ir::Instruction& inst : kernel_.code) out.push_back(decode(inst));
        return out;
    }

    SymbolAddress symbol_address(const ir::Operand& op, const ir::Instruction& inst) const {
        if (op.symbol == ir::no_symbol) fail(inst, "an operand names no symbol");
        switch (op.symbol_scope) {
        case ir::SymbolScope::kernel_param:
            if (op.symbol >= kernel_.params.size()) fail(inst, "a parameter operand is out of range");
            return {ir::StateSpace::param, kernel_.params[op.symbol].offset};
        case ir::SymbolScope::kernel_local: {
            if (op.symbol >= kernel_.symbols.size()) fail(inst, "a kernel symbol operand is out of range");
            const ir::Symbol& s = kernel_.symbols[op.symbol];
            switch (s.space) {
            case ir::StateSpace::shared:
                return {ir::StateSpace::shared, s.is_extern ? dynamic_shared_start_ : s.offset};
            case ir::StateSpace::local: return {ir::StateSpace::local, s.offset};
            case ir::StateSpace::param: return {ir::StateSpace::param, call_param_base + s.offset};
            default: fail(inst, "kernel-scope variable '" + s.name + "' is in an unsupported state space");
            }
        }
        case ir::SymbolScope::module: {
            if (op.symbol >= module_.globals.size()) fail(inst, "a module symbol operand is out of range");
            const ir::Symbol& s = module_.globals[op.symbol];
            switch (s.space) {
            case ir::StateSpace::global: return {ir::StateSpace::global, global_base_ + s.offset};
            case ir::StateSpace::constant: return {ir::StateSpace::constant, s.offset};
            case ir::StateSpace::shared:
                return {ir::StateSpace::shared, s.is_extern ? dynamic_shared_start_ : s.offset};
            default: fail(inst, "module variable '" + s.name + "' is in an unsupported state space");
            }
        }
        }
        fail(inst, "unknown symbol scope");
    }

private:
    [[noreturn]] void fail(const ir::Instruction& inst, const std::string& what) const {
        FaultSite site;
        site.kernel = kernel_.name;
        site.file = module_.file_name;
        site.pc = static_cast<ir::Pc>(&inst - kernel_.code.data());
        site.line = inst.line;
        throw KernelError("cannot execute '" + std::string(ir::name(inst.op)) + "': " + what, site,
                          KernelErrorKind::illegal_instruction);
    }

    unsigned register_bits(ir::RegId reg) const {
        if (reg >= kernel_.registers.size()) return 64;
        const ir::ScalarType t = kernel_.registers[reg].type;
        if (t == ir::ScalarType::pred) return 1;
        return size_bytes(t) * 8;
    }

    // The type an operand at position `index` (0 = first operand) is read as.
    static ir::ScalarType role_type(const ir::Instruction& inst, unsigned index) {
        using ir::Opcode;
        using T = ir::ScalarType;
        const T t = inst.type;
        switch (inst.op) {
        case Opcode::shl:
        case Opcode::shr: return index == 2 ? T::u32 : t;
        case Opcode::bfe: return index >= 2 ? T::u32 : t;
        case Opcode::bfi: return index >= 3 ? T::u32 : t;
        case Opcode::shf: return T::u32;
        case Opcode::prmt:
        case Opcode::lop3: return T::b32;
        case Opcode::setp: return index == 3 ? T::pred : t;
        case Opcode::set: return index == 3 ? T::pred : inst.src_type;
        case Opcode::selp: return index == 3 ? T::pred : t;
        case Opcode::slct: return index == 3 ? inst.src_type : t;
        case Opcode::cvt: return index >= 1 ? inst.src_type : t;
        case Opcode::mad:
            if (inst.mul_mode == ir::MulMode::wide && index == 3) return wide_type(t);
            return t;
        case Opcode::shfl: // d|p, a, b, c, membermask
        case Opcode::match: // d|p, a, membermask
            return index == 1 ? t : T::u32;
        case Opcode::vote: // d, {!}p, membermask
            return index == 1 ? T::pred : T::u32;
        case Opcode::bar: // [d,] a, [b,] [c]
            return inst.barrier != ir::BarrierMode::sync && inst.barrier != ir::BarrierMode::arrive &&
                           index + 1 == inst.num_operands
                       ? T::pred
                       : T::u32;
        case Opcode::bar_warp_sync:
        case Opcode::nanosleep: return T::u32;
        case Opcode::dp4a: // d, a (.atype), b (.btype), c
        case Opcode::dp2a:
        case Opcode::vabsdiff4: return index == 1 ? inst.src_type : index == 2 ? inst.b_type : t;
        case Opcode::redux: // d, a, membermask
            return index == 2 ? T::u32 : t;
        case Opcode::cp_async: // [dst], [src], cp-size, src-size (u32) or ignore-src (pred): src_type
            return index == 3 ? inst.src_type : T::u32;
        default: return t;
        }
    }

    static ir::ScalarType wide_type(ir::ScalarType t) {
        using T = ir::ScalarType;
        switch (t) {
        case T::u16: return T::u32;
        case T::s16: return T::s32;
        case T::u32: return T::u64;
        case T::s32: return T::s64;
        default: return t;
        }
    }

    static std::uint64_t immediate(const ir::Operand& op, ir::ScalarType role) {
        if (op.imm_type == ir::ImmType::integer || !is_float(role)) return op.imm_bits;
        const FloatFormat from = op.imm_type == ir::ImmType::f32 ? f32_format : f64_format;
        const FloatFormat to = format_of(role);
        if (from.frac_bits == to.frac_bits) return op.imm_bits;
        const std::uint64_t element = soft_convert(op.imm_bits, from, to, RoundMode::nearest_even, false);
        return is_packed_half(role) ? (element | (element << 16)) : element;
    }

    DecodedSource source(const ir::Instruction& inst, const ir::Operand& op, unsigned index) const {
        DecodedSource s;
        s.negated = op.negated;
        switch (op.kind) {
        case ir::OperandKind::reg:
            s.kind = SourceKind::reg;
            s.reg = op.reg;
            check_register(inst, op.reg);
            break;
        case ir::OperandKind::imm:
            s.kind = SourceKind::imm;
            s.imm = immediate(op, role_type(inst, index));
            break;
        case ir::OperandKind::special:
            s.kind = SourceKind::special;
            s.special = op.special;
            break;
        case ir::OperandKind::symbol: {
            const SymbolAddress a = symbol_address(op, inst);
            s.kind = SourceKind::imm;
            s.imm = a.address + static_cast<std::uint64_t>(op.offset);
            break;
        }
        case ir::OperandKind::sink:
        case ir::OperandKind::none: s.kind = SourceKind::none; break;
        default:
            fail(inst, "operand " + std::to_string(index) + " of kind '" + std::string(ir::name(op.kind)) +
                           "' cannot be read as a value");
        }
        return s;
    }

    void check_register(const ir::Instruction& inst, ir::RegId reg) const {
        if (reg == ir::no_reg) return;
        if (reg >= kernel_.registers.size()) fail(inst, "register id " + std::to_string(reg) + " is not declared");
        if (kernel_.registers[reg].type == ir::ScalarType::b128)
            fail(inst, "128-bit register " + kernel_.registers[reg].name + " is not supported");
    }

    // `space`: the operand's state space when it is not the instruction's (cp.async's shared destination).
    void decode_address(const ir::Instruction& inst, const ir::Operand& op, DecodedInstruction& d,
                        ir::StateSpace space = ir::StateSpace::none) const {
        if (op.kind != ir::OperandKind::address) fail(inst, "expected an address operand");
        d.has_address = true;
        d.address_base = op.reg;
        check_register(inst, op.reg);
        if (op.reg != ir::no_reg && register_bits(op.reg) <= 32) d.address_mask = 0xffffffffU;
        if (space == ir::StateSpace::none) space = inst.space;
        d.space = space == ir::StateSpace::none ? ir::StateSpace::generic : space;
        std::uint64_t offset = static_cast<std::uint64_t>(op.offset);
        if (op.symbol != ir::no_symbol) {
            const SymbolAddress a = symbol_address(op, inst);
            if (d.space == ir::StateSpace::generic) {
                offset += generic_window_base(a.space) + a.address;
            } else if (a.space == d.space) {
                offset += a.address;
            } else {
                fail(inst, "a ." + std::string(ir::name(a.space)) + " variable is accessed through ." +
                               std::string(ir::name(d.space)));
            }
        }
        d.address_offset = offset;
    }

    DecodedInstruction decode(const ir::Instruction& inst) const {
        using ir::Opcode;
        DecodedInstruction d;
        d.inst = &inst;
        d.guard = inst.guard;
        d.op = inst.op;
        d.straight_line = inst.op != Opcode::bra && inst.op != Opcode::call && inst.op != Opcode::ret &&
                          inst.op != Opcode::exit && inst.op != Opcode::bar;
        d.type = inst.type;
        // The only calls left after inlining are those of out-of-line (recursive) functions: label + link index.
        if (inst.op == Opcode::call &&
            (inst.num_operands != 2 || inst.operands[0].kind != ir::OperandKind::label ||
             inst.operands[0].target == ir::no_pc || inst.operands[1].kind != ir::OperandKind::imm))
            fail(inst, "a call was not inlined by the parser");
        if (inst.type == ir::ScalarType::b128 && (inst.op == Opcode::ld || inst.op == Opcode::st))
            fail(inst, "128-bit loads and stores need .b128 registers, which are not supported");
        if (inst.guard.reg != ir::no_reg) check_register(inst, inst.guard.reg);
        const bool has_dst = ir::has_destination(inst);
        unsigned first_source = has_dst ? 1 : 0;
        if (has_dst && inst.num_operands > 0) {
            const ir::Operand& o = inst.operands[0];
            if (o.kind == ir::OperandKind::reg) {
                d.dst = o.reg;
                d.dst2 = o.reg2;
                check_register(inst, o.reg);
                check_register(inst, o.reg2);
                d.dst_bits = static_cast<std::uint8_t>(register_bits(o.reg));
            } else if (o.kind == ir::OperandKind::vector) {
                d.dst_count = o.vector_count;
                for (unsigned e = 0; e < o.vector_count && e < 4; ++e) {
                    d.dst_vector[e] = o.vector[e];
                    check_register(inst, o.vector[e]);
                }
                d.dst_bits = static_cast<std::uint8_t>(o.vector[0] == ir::no_reg ? 64 : register_bits(o.vector[0]));
            } else if (o.kind != ir::OperandKind::sink) {
                fail(inst, "the destination is not a register");
            }
        }
        switch (inst.op) {
        case Opcode::ld:
            decode_address(inst, inst.operands[1], d);
            first_source = inst.num_operands; // no value sources
            break;
        case Opcode::st:
        case Opcode::red:
            decode_address(inst, inst.operands[0], d);
            first_source = 1;
            break;
        case Opcode::atom: decode_address(inst, inst.operands[1], d); break;
        case Opcode::prefetch:
        case Opcode::prefetchu:
            decode_address(inst, inst.operands[0], d);
            first_source = inst.num_operands;
            break;
        // tex/suld/sust read their object, coordinate and data registers from the instruction's operands
        // (KernelExecution::texture_fetch, surface_access): up to nine registers, more than `sources` holds.
        case Opcode::tex:
        case Opcode::suld:
        case Opcode::sust: first_source = inst.num_operands; break;
        case Opcode::cp_async: { // [dst] (shared), [src] (global), cp-size, [src-size | ignore-src]
            DecodedInstruction shared;
            decode_address(inst, inst.operands[0], shared, ir::StateSpace::shared);
            d.shared_base = shared.address_base;
            d.shared_offset = shared.address_offset;
            d.shared_mask = shared.address_mask;
            decode_address(inst, inst.operands[1], d);
            first_source = 2;
            break;
        }
        case Opcode::bra:
            if (inst.operands[0].kind != ir::OperandKind::label || inst.operands[0].target == ir::no_pc)
                fail(inst, "the branch target is not a resolved label");
            d.target = inst.operands[0].target;
            first_source = inst.num_operands;
            break;
        case Opcode::call:
            d.target = inst.operands[0].target;
            first_source = inst.num_operands;
            break;
        case Opcode::ret:
            first_source = inst.num_operands; // an out-of-line return's operand is its frame index, not a value
            break;
        default: break;
        }
        if (inst.op == Opcode::ld || inst.op == Opcode::st || inst.op == Opcode::atom || inst.op == Opcode::red) {
            d.element_bytes = static_cast<std::uint8_t>(size_bytes(inst.type));
            d.elements =
                inst.op == Opcode::ld || inst.op == Opcode::st ? std::max<std::uint8_t>(1, inst.vector_width) : 1;
            if (d.element_bytes == 0) fail(inst, "the access has no data type");
            if (inst.op == Opcode::ld && (d.space == ir::StateSpace::global || d.space == ir::StateSpace::generic) &&
                d.elements == 1 && d.dst_count == 0 && d.address_base != ir::no_reg &&
                (d.element_bytes == 1 || d.element_bytes == 2 ||
                 ((d.element_bytes == 4 || d.element_bytes == 8) && d.dst_bits <= d.element_bytes * 8)))
                d.global_scalar_load = d.element_bytes;
        }
        for (unsigned i = first_source; i < inst.num_operands; ++i) {
            const ir::Operand& o = inst.operands[i];
            if (o.kind == ir::OperandKind::address) continue; // atom's address, decoded above
            if (o.kind == ir::OperandKind::vector) {
                for (unsigned e = 0; e < o.vector_count; ++e) {
                    ir::Operand element;
                    element.kind = ir::OperandKind::reg;
                    element.reg = o.vector[e];
                    add_source(inst, d, source(inst, element, i));
                }
                continue;
            }
            add_source(inst, d, source(inst, o, i));
        }
        d.lane_op = lane_op_of(inst, d);
        return d;
    }

    // The LaneOp form of `inst`, none when it is not one (see LaneOp). The conditions are those under which the
    // general semantics reach the same lane function: integer add/sub/mul/mad without saturation or carry, the 32-bit
    // shifts (shift() maps only those whole-warp), logic on 32- or 64-bit values and predicates, and the plain setp.
    static LaneOp lane_op_of(const ir::Instruction& inst, const DecodedInstruction& d) {
        using ir::Opcode;
        using T = ir::ScalarType;
        const T t = inst.type;
        const bool is32 = t == T::b32 || t == T::u32 || t == T::s32;
        const bool is64 = t == T::b64 || t == T::u64 || t == T::s64;
        const bool is_signed = t == T::s32 || t == T::s64;
        auto by_width = [&](LaneOp w32, LaneOp w64) { return is32 ? w32 : is64 ? w64 : LaneOp::none; };
        switch (inst.op) {
        case Opcode::add:
        case Opcode::sub:
            if (inst.sat || inst.carry_out) return LaneOp::none;
            return inst.op == Opcode::add ? by_width(LaneOp::add_32, LaneOp::add_64)
                                          : by_width(LaneOp::sub_32, LaneOp::sub_64);
        case Opcode::mul:
            if (inst.mul_mode == ir::MulMode::wide)
                return t == T::s32 ? LaneOp::mul_wide_s32 : is32 ? LaneOp::mul_wide_u32 : LaneOp::none;
            if (inst.mul_mode == ir::MulMode::hi) return LaneOp::none;
            return by_width(LaneOp::mul_lo_32, LaneOp::mul_lo_64);
        case Opcode::mad:
            if (inst.sat || inst.carry_out || inst.mul_mode == ir::MulMode::hi || inst.mul_mode == ir::MulMode::wide)
                return LaneOp::none;
            return by_width(LaneOp::mad_lo_32, LaneOp::mad_lo_64);
        case Opcode::shl: return is32 ? LaneOp::shl_32 : LaneOp::none;
        case Opcode::shr: return !is32 ? LaneOp::none : is_signed ? LaneOp::shr_s32 : LaneOp::shr_u32;
        case Opcode::and_:
            return t == T::pred ? LaneOp::and_pred : by_width(LaneOp::and_32, LaneOp::and_64);
        case Opcode::or_: return t == T::pred ? LaneOp::or_pred : by_width(LaneOp::or_32, LaneOp::or_64);
        case Opcode::xor_:
            return t == T::pred ? LaneOp::xor_pred : by_width(LaneOp::xor_32, LaneOp::xor_64);
        case Opcode::setp: {
            if (d.num_sources != 2 || d.dst2 != ir::no_reg || (!is32 && !is64)) return LaneOp::none;
            using O = ir::CompareOp;
            const O op = inst.cmp;
            if (op == O::eq) return by_width(LaneOp::setp_eq_32, LaneOp::setp_eq_64);
            if (op == O::ne) return by_width(LaneOp::setp_ne_32, LaneOp::setp_ne_64);
            // Ordered operators on a signed type compare signed; on an unsigned or bit type, and lo/ls/hi/hs on any
            // type, unsigned (compare_int).
            const bool lo_ls_hi_hs = op == O::lo || op == O::ls || op == O::hi || op == O::hs;
            const bool as_signed = is_signed && !lo_ls_hi_hs;
            unsigned order = 0; // lt, le, gt, ge
            switch (op) {
            case O::lt:
            case O::lo: order = 0; break;
            case O::le:
            case O::ls: order = 1; break;
            case O::gt:
            case O::hi: order = 2; break;
            case O::ge:
            case O::hs: order = 3; break;
            default: return LaneOp::none;
            }
            using L = LaneOp;
            static constexpr LaneOp ordered[4][4] = {
                {L::setp_lt_s32, L::setp_le_s32, L::setp_gt_s32, L::setp_ge_s32},
                {L::setp_lt_u32, L::setp_le_u32, L::setp_gt_u32, L::setp_ge_u32},
                {L::setp_lt_s64, L::setp_le_s64, L::setp_gt_s64, L::setp_ge_s64},
                {L::setp_lt_u64, L::setp_le_u64, L::setp_gt_u64, L::setp_ge_u64}};
            return ordered[(is32 ? 0 : 2) + (as_signed ? 0 : 1)][order];
        }
        default: return LaneOp::none;
        }
    }

    void add_source(const ir::Instruction& inst, DecodedInstruction& d, const DecodedSource& s) const {
        if (d.num_sources == d.sources.size()) fail(inst, "too many source operands");
        d.sources[d.num_sources++] = s;
    }

    const ir::Module& module_;
    const ir::Kernel& kernel_;
    DevPtr global_base_;
    std::uint64_t dynamic_shared_start_;
};

} // namespace gpuarch::func
