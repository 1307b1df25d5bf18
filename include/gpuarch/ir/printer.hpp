#pragma once
// PTX-like text for instructions and kernels, for hints, traces and error messages.
// Contract: to_string(inst, kernel, module) renders `[@[!]guard ]opcode.modifiers operands;` with modifiers in
// PTX order and operands in the order of the operand table in ptx/parser.hpp; for instructions produced by the
// parser, feeding the text back to the parser (with the same declarations) yields the same instruction fields.
// Register, parameter and kernel-symbol names come from the kernel; module symbols need the module (without it
// they print as "$global<N>"). A branch target prints as the first label at that pc, or "$pc<N>" when the target
// has no label (the return point of an inlined call).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpuarch/ir/instruction.hpp>
#include <gpuarch/ir/module.hpp>
#include <gpuarch/ir/names.hpp>

namespace gpuarch::ir {

namespace detail {

inline void append_modifier(std::string& out, std::string_view m) {
    if (m.empty()) return;
    out += '.';
    out += m;
}

inline std::string symbol_name(const Operand& op, const Kernel& kernel, const Module* module) {
    switch (op.symbol_scope) {
    case SymbolScope::kernel_param:
        if (op.symbol < kernel.params.size()) return kernel.params[op.symbol].name;
        break;
    case SymbolScope::kernel_local:
        if (op.symbol < kernel.symbols.size()) return kernel.symbols[op.symbol].name;
        break;
    case SymbolScope::module:
        if (module && op.symbol < module->globals.size()) return module->globals[op.symbol].name;
        return "$global" + std::to_string(op.symbol);
    }
    return "$symbol" + std::to_string(op.symbol);
}

inline std::string register_name(RegId reg, const Kernel& kernel) {
    if (reg == no_reg) return "_";
    if (reg < kernel.registers.size()) return kernel.registers[reg].name;
    return "%reg" + std::to_string(reg);
}

inline std::string hex_bits(std::uint64_t bits, int digits) {
    char buffer[24];
    std::snprintf(buffer, sizeof buffer, "%0*llX", digits, static_cast<unsigned long long>(bits));
    return buffer;
}

inline std::string operand_text(const Operand& op, const Kernel& kernel, const Module* module,
                                unsigned element_bits = 64) {
    std::string out;
    switch (op.kind) {
    case OperandKind::none: return "<none>";
    case OperandKind::sink: return "_";
    case OperandKind::reg:
        if (op.negated) out += '!';
        out += register_name(op.reg, kernel);
        if (op.reg2 != no_reg) out += "|" + register_name(op.reg2, kernel);
        return out;
    case OperandKind::imm:
        if (op.imm_type == ImmType::f32) return "0f" + hex_bits(op.imm_bits & 0xffffffffULL, 8);
        if (op.imm_type == ImmType::f64) return "0d" + hex_bits(op.imm_bits, 16);
        return std::to_string(static_cast<std::int64_t>(op.imm_bits));
    case OperandKind::special: return std::string(name(op.special));
    case OperandKind::vector:
        out += '{';
        for (std::uint8_t i = 0; i < op.vector_count; ++i) {
            if (i) out += ", ";
            if ((op.vector_imm_mask >> i) & 1U) {
                const unsigned width = element_bits;
                const std::uint64_t mask = width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
                out += std::to_string((op.imm_bits >> (width * i)) & mask);
            } else {
                out += register_name(op.vector[i], kernel);
            }
        }
        out += '}';
        return out;
    case OperandKind::symbol:
        out = symbol_name(op, kernel, module);
        if (op.offset != 0) out += "+" + std::to_string(op.offset);
        return out;
    case OperandKind::address: {
        out += '[';
        if (op.reg != no_reg) out += register_name(op.reg, kernel);
        else if (op.symbol != no_symbol) out += symbol_name(op, kernel, module);
        if (op.reg == no_reg && op.symbol == no_symbol) out += std::to_string(op.offset);
        else if (op.offset != 0) out += "+" + std::to_string(op.offset);
        out += ']';
        return out;
    }
    case OperandKind::label:
        for (const auto& [label, pc] : kernel.labels)
            if (pc == op.target) return label;
        return "$pc" + std::to_string(op.target);
    }
    return "?";
}

} // namespace detail

inline std::string opcode_text(const Instruction& inst) {
    std::string out;
    const auto mod = [&](std::string_view m) { detail::append_modifier(out, m); };
    switch (inst.op) {
    case Opcode::bar:
        out = inst.aligned ? "bar" : "barrier";
        mod(name(inst.barrier));
        mod(name(inst.type));
        return out;
    case Opcode::membar:
        out = "membar";
        mod(inst.scope == Scope::gpu ? std::string_view("gl") : name(inst.scope));
        return out;
    case Opcode::match:
        out = "match";
        mod(name(inst.vote_mode));
        mod("sync");
        mod(name(inst.type));
        return out;
    case Opcode::shf:
        out = "shf";
        mod(inst.funnel_right ? "r" : "l");
        mod(inst.clamp ? "clamp" : "wrap");
        mod(name(inst.type));
        return out;
    case Opcode::prmt:
        out = "prmt";
        mod(name(inst.type));
        mod(name(inst.prmt));
        return out;
    // The PTX spellings name the source types, not the result type (dp4a.atype.btype, dp2a.mode.atype.btype,
    // vabsdiff4.dtype.atype.btype{.sat|.add}).
    case Opcode::dp4a:
    case Opcode::dp2a:
        out = std::string(name(inst.op));
        mod(name(inst.mul_mode));
        mod(name(inst.src_type));
        mod(name(inst.b_type));
        return out;
    case Opcode::vabsdiff4:
        out = "vabsdiff4";
        mod(name(inst.type));
        mod(name(inst.src_type));
        mod(name(inst.b_type));
        if (inst.sat) mod("sat");
        if (inst.accumulate) mod("add");
        return out;
    case Opcode::redux:
        out = "redux";
        mod("sync");
        mod(name(inst.atom_op));
        mod(name(inst.type));
        return out;
    // tex.{level.}geom.v4.dtype.ctype, suld.b.geom{.v2|.v4}.btype.clamp, sust.b.geom{.v2|.v4}.btype.clamp.
    case Opcode::tex:
        out = "tex";
        if (inst.tex_level) mod("level");
        mod(name(inst.geometry));
        mod("v4");
        mod(name(inst.type));
        mod(name(inst.src_type));
        return out;
    case Opcode::suld:
    case Opcode::sust:
        out = std::string(name(inst.op));
        mod("b");
        mod(name(inst.geometry));
        if (inst.vector_width > 1) mod(inst.vector_width == 2 ? "v2" : "v4");
        mod(name(inst.type));
        mod(name(inst.surface_clamp));
        return out;
    case Opcode::prefetch:
    case Opcode::prefetchu:
        out = std::string(name(inst.op));
        if (inst.space != StateSpace::none && inst.space != StateSpace::generic) mod(name(inst.space));
        mod(name(inst.cache_level));
        return out;
    // cp.async.{ca,cg}.shared.global (.cg is recorded as cache level L2: it caches in the L2 only).
    case Opcode::cp_async:
        out = "cp.async";
        mod(inst.cache_level == CacheLevel::L2 ? "cg" : "ca");
        mod("shared");
        mod("global");
        return out;
    default: break;
    }
    out = std::string(name(inst.op));
    if (inst.op == Opcode::shfl || inst.op == Opcode::vote) mod("sync");
    mod(name(inst.order));
    mod(name(inst.scope));
    if (inst.to_space) mod("to");
    if (inst.space != StateSpace::none && inst.space != StateSpace::generic) mod(name(inst.space));
    if (inst.non_coherent) mod("nc");
    mod(name(inst.cmp));
    mod(name(inst.bool_op));
    mod(name(inst.mul_mode));
    mod(name(inst.shfl_mode));
    mod(name(inst.vote_mode));
    mod(name(inst.atom_op));
    mod(name(inst.test));
    if (inst.approx) mod("approx");
    if (inst.full) mod("full");
    mod(name(inst.rounding));
    if (inst.ftz) mod("ftz");
    if (inst.sat) mod("sat");
    if (inst.propagate_nan) mod("NaN");
    if (inst.shiftamt) mod("shiftamt");
    if (inst.carry_out) mod("cc");
    if (inst.uni) mod("uni");
    if (inst.vector_width > 1) mod(inst.vector_width == 2 ? "v2" : "v4");
    mod(name(inst.type));
    mod(name(inst.src_type));
    return out;
}

inline std::string to_string(const Instruction& inst, const Kernel& kernel, const Module* module = nullptr) {
    std::string out;
    if (inst.guard.reg != no_reg) {
        out += '@';
        if (inst.guard.negated) out += '!';
        out += detail::register_name(inst.guard.reg, kernel);
        out += ' ';
    }
    if (inst.op == Opcode::vprintf || inst.op == Opcode::assertfail || inst.op == Opcode::device_malloc ||
        inst.op == Opcode::device_free) {
        // The call nvcc wrote: `call.uni (retval), vprintf, (format, args);` (operands: inputs, then the optional
        // return .param; see ptx/parser.hpp).
        const std::uint8_t inputs = inst.op == Opcode::vprintf ? 2 : inst.op == Opcode::assertfail ? 5 : 1;
        out += inst.uni ? "call.uni " : "call ";
        if (inst.num_operands > inputs)
            out += "(" + detail::operand_text(inst.operands[inputs], kernel, module) + "), ";
        out += std::string(name(inst.op)) + ", (";
        for (std::uint8_t i = 0; i < inputs && i < inst.num_operands; ++i)
            out += (i == 0 ? "" : ", ") + detail::operand_text(inst.operands[i], kernel, module);
        out += ");";
        return out;
    }
    out += opcode_text(inst);
    if (inst.op == Opcode::tex || inst.op == Opcode::suld || inst.op == Opcode::sust) {
        // The object register and its coordinate vector print as one operand, [object, {coordinates}] (operand
        // table in ptx/parser.hpp).
        const std::uint8_t object = inst.op == Opcode::sust ? 0 : 1;
        for (std::uint8_t i = 0; i < inst.num_operands; ++i) {
            if (i == object + 1) continue;
            out += i == 0 ? " " : ", ";
            if (i == object)
                out += "[" + detail::operand_text(inst.operands[i], kernel, module) + ", " +
                       detail::operand_text(inst.operands[i + 1], kernel, module) + "]";
            else out += detail::operand_text(inst.operands[i], kernel, module);
        }
        out += ';';
        return out;
    }
    for (std::uint8_t i = 0; i < inst.num_operands; ++i) {
        out += i == 0 ? " " : ", ";
        const Operand& op = inst.operands[i];
        const unsigned element_bits = op.vector_count == 0 ? 64U : size_bytes(inst.type) * 8U / op.vector_count;
        out += detail::operand_text(op, kernel, module, element_bits);
    }
    out += ';';
    return out;
}

// The whole kernel as text: labels on their own lines, one instruction per line prefixed with its pc.
inline std::string to_string(const Kernel& kernel, const Module* module = nullptr) {
    std::string out = ".entry " + kernel.name + "\n{\n";
    std::size_t next_label = 0;
    std::vector<std::pair<std::string, Pc>> labels = kernel.labels;
    std::sort(labels.begin(), labels.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    for (Pc pc = 0; pc < kernel.code.size(); ++pc) {
        while (next_label < labels.size() && labels[next_label].second == pc) out += labels[next_label++].first + ":\n";
        out += "\t/*" + std::to_string(pc) + "*/ " + to_string(kernel.code[pc], kernel, module) + "\n";
    }
    out += "}\n";
    return out;
}

} // namespace gpuarch::ir
