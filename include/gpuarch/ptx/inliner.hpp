#pragma once
// Call inlining: turns parsed functions into the kernels of an ir::Module with no `call` left.
// Contract (for every defined .entry, in file order):
// - A `call f, (args)` is replaced by f's body. f's registers are appended to the kernel's register list as fresh
//   registers (named "<name>$<n>", n counting inlined instances per kernel from 1), so the kernel's own
//   registers keep their ids. f's local symbols (.local, its own call-sequence .param blocks) get fresh
//   kernel-local copies per instance ("<name>$<n>").
// - f's formal parameters (return parameters and inputs) are mapped to the caller's call-sequence .param symbols
//   named in the call; those are kernel-local StateSpace::param symbols, i.e. per-thread storage.
// - `ret` in f becomes a `bra` (same guard) to the instruction after the inlined body; `exit` stays exit. A
//   guarded call becomes `@!p bra <after>` followed by the body.
// - Labels of inlined bodies are recorded in Kernel::labels as "<label>$<n>"; source line/column are kept.
// - A call of the device-runtime functions vprintf, __assertfail, malloc and free, which nvcc declares
//   `.extern .func` without a body, becomes one Opcode::vprintf / assertfail / device_malloc / device_free
//   instruction (see emit_device_runtime_call).
// - Errors (ParseError at the call site): a callee without a body (other than those four), argument/return count
//   mismatch, an argument smaller than the parameter it binds, recursion (the message names the cycle
//   "a -> b -> a"), kernels that would exceed Limits::max_function_instructions or max_kernel_registers, and a
//   module whose kernels together would exceed Limits::max_module_instructions or max_module_registers (at the
//   first kernel that does).
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <gpuarch/ir/module.hpp>
#include <gpuarch/ptx/function.hpp>
#include <gpuarch/ptx/limits.hpp>
#include <gpuarch/ptx/parse_error.hpp>

namespace gpuarch::ptx {

// The instruction and register limits (ptx/limits.hpp) guard against exponential growth (a chain of functions
// each calling the next twice); they are checked before anything is copied, from the inlined sizes of the call
// graph.
inline constexpr std::size_t max_call_depth = 256;

namespace detail {

class Inliner {
public:
    Inliner(const std::vector<Function>& functions, const std::string& file, const Limits& limits)
        : functions_(functions), file_(file), limits_(limits) {
        for (std::size_t i = 0; i < functions.size(); ++i) index_.emplace(functions[i].body.name, i);
    }

    // Checks the entry's inlined size, alone and added to the kernels before it (module_total), before copying.
    void check_sizes(const Function& entry) {
        std::vector<const Function*> stack{&entry};
        const Totals total = totals(entry, stack);
        const auto fail_entry = [&](const std::string& message) { fail(entry.body.line, entry.column, message); };
        if (total.instructions > limits_.max_function_instructions)
            fail_entry("kernel '" + entry.body.name + "' exceeds " + std::to_string(limits_.max_function_instructions) +
                       " instructions after inlining");
        if (total.registers > limits_.max_kernel_registers)
            fail_entry("kernel '" + entry.body.name + "' exceeds " + std::to_string(limits_.max_kernel_registers) +
                       " registers after inlining");
        module_total_.instructions += total.instructions;
        module_total_.registers += total.registers;
        if (module_total_.instructions > limits_.max_module_instructions)
            fail_entry("with kernel '" + entry.body.name + "' the module exceeds " +
                       std::to_string(limits_.max_module_instructions) +
                       " instructions after inlining (ptx::Limits::max_module_instructions)");
        if (module_total_.registers > limits_.max_module_registers)
            fail_entry("with kernel '" + entry.body.name + "' the module exceeds " +
                       std::to_string(limits_.max_module_registers) +
                       " registers after inlining (ptx::Limits::max_module_registers)");
    }

    ir::Kernel inline_entry(const Function& entry) {
        std::size_t total_instructions = 0;
        {
            std::vector<const Function*> stack{&entry};
            total_instructions = static_cast<std::size_t>(totals(entry, stack).instructions);
        }
        ir::Kernel kernel;
        kernel.name = entry.body.name;
        kernel.params = entry.body.params;
        kernel.registers = entry.body.registers;
        kernel.symbols = entry.body.symbols;
        kernel.directives = entry.body.directives;
        kernel.line = entry.body.line;
        kernel.code.reserve(total_instructions);
        instance_ = 0;
        stack_.assign(1, &entry);
        std::vector<ir::RegId> regs(entry.body.registers.size());
        for (std::size_t i = 0; i < regs.size(); ++i) regs[i] = static_cast<ir::RegId>(i);
        std::vector<ir::SymbolId> syms(entry.body.symbols.size());
        for (std::size_t i = 0; i < syms.size(); ++i) syms[i] = static_cast<ir::SymbolId>(i);
        emit(kernel, entry, Maps{regs, syms, {}}, true, "");
        return kernel;
    }

private:
    // Instructions and registers of a function after inlining (saturating), found by a depth-first walk of the
    // call graph that also reports recursion at the call that closes the cycle.
    struct Totals {
        std::uint64_t instructions = 0, registers = 0;
    };
    Totals totals(const Function& f, std::vector<const Function*>& stack) {
        if (auto it = totals_.find(&f); it != totals_.end()) return it->second;
        const std::uint64_t limit = std::uint64_t{1} << 40;
        Totals t{f.body.code.size(), f.body.registers.size()};
        for (const CallSite& site : f.calls) {
            const auto found = index_.find(site.callee);
            if (found == index_.end()) continue; // reported when the call is emitted
            const Function& callee = functions_[found->second];
            for (std::size_t i = 0; i < stack.size(); ++i) {
                if (stack[i] != &callee) continue;
                std::string cycle;
                for (std::size_t j = i; j < stack.size(); ++j) cycle += stack[j]->body.name + " -> ";
                cycle += callee.body.name;
                fail(site.line, site.column, "recursive call cycle " + cycle + " cannot be inlined (recursion is not supported)");
            }
            if (stack.size() >= max_call_depth)
                fail(site.line, site.column, "calls nested deeper than " + std::to_string(max_call_depth) + " levels");
            stack.push_back(&callee);
            const Totals inner = totals(callee, stack);
            stack.pop_back();
            t.instructions = std::min(limit, t.instructions + inner.instructions + 1); // + a possible guard branch
            t.registers = std::min(limit, t.registers + inner.registers);
        }
        totals_.emplace(&f, t);
        return t;
    }

    struct Maps {
        std::vector<ir::RegId> regs;
        std::vector<ir::SymbolId> symbols; // function-local symbol -> kernel symbol
        std::vector<ir::SymbolId> params;  // formal parameter -> kernel-local .param symbol (callees only)
    };

    [[noreturn]] void fail(std::uint32_t line, std::uint32_t column, const std::string& message) const {
        throw ParseError(SourcePosition{file_, line, column}, message);
    }

    void remap(ir::Operand& op, const Maps& maps, bool is_entry) const {
        const auto reg = [&](ir::RegId r) { return r == ir::no_reg ? r : maps.regs[r]; };
        switch (op.kind) {
        case ir::OperandKind::reg:
            op.reg = reg(op.reg);
            op.reg2 = reg(op.reg2);
            break;
        case ir::OperandKind::vector:
            for (auto& e : op.vector) e = reg(e);
            break;
        case ir::OperandKind::address:
        case ir::OperandKind::symbol:
            op.reg = reg(op.reg);
            if (op.symbol == ir::no_symbol) break;
            if (op.symbol_scope == ir::SymbolScope::kernel_local) {
                op.symbol = maps.symbols[op.symbol];
            } else if (op.symbol_scope == ir::SymbolScope::kernel_param && !is_entry) {
                op.symbol_scope = ir::SymbolScope::kernel_local;
                op.symbol = maps.params[op.symbol];
            }
            break;
        default:
            break;
        }
    }

    void push(ir::Kernel& kernel, ir::Instruction inst) const {
        if (kernel.code.size() >= limits_.max_function_instructions)
            fail(inst.line, inst.column,
                 "kernel '" + kernel.name + "' exceeds " + std::to_string(limits_.max_function_instructions) +
                     " instructions after inlining");
        kernel.code.push_back(inst);
    }

    void emit(ir::Kernel& kernel, const Function& f, const Maps& maps, bool is_entry, const std::string& suffix) {
        const auto& code = f.body.code;
        std::vector<ir::Pc> new_pc(code.size() + 1, ir::no_pc);
        std::vector<std::pair<ir::Pc, ir::Pc>> branch_fixups; // (kernel pc, pc in f)
        std::vector<ir::Pc> return_fixups;                   // kernel pcs of bra that replaced ret
        for (std::size_t pc = 0; pc < code.size(); ++pc) {
            new_pc[pc] = static_cast<ir::Pc>(kernel.code.size());
            ir::Instruction inst = code[pc];
            if (inst.guard.reg != ir::no_reg) inst.guard.reg = maps.regs[inst.guard.reg];
            if (inst.op == ir::Opcode::call) {
                emit_call(kernel, f, inst, maps);
                continue;
            }
            for (std::uint8_t i = 0; i < inst.num_operands; ++i) remap(inst.operands[i], maps, is_entry);
            if (inst.op == ir::Opcode::ret && !is_entry) {
                inst.op = ir::Opcode::bra;
                inst.num_operands = 1;
                inst.operands[0] = ir::Operand{};
                inst.operands[0].kind = ir::OperandKind::label;
                return_fixups.push_back(static_cast<ir::Pc>(kernel.code.size()));
            } else if (inst.op == ir::Opcode::bra) {
                branch_fixups.emplace_back(static_cast<ir::Pc>(kernel.code.size()), inst.operands[0].target);
            }
            push(kernel, inst);
        }
        new_pc[code.size()] = static_cast<ir::Pc>(kernel.code.size());
        for (const auto& [at, target] : branch_fixups) kernel.code[at].operands[0].target = new_pc.at(target);
        for (ir::Pc at : return_fixups) kernel.code[at].operands[0].target = static_cast<ir::Pc>(kernel.code.size());
        for (const auto& [name, pc] : f.body.labels) kernel.labels.emplace_back(name + suffix, new_pc.at(pc));
    }

    void emit_call(ir::Kernel& kernel, const Function& caller, const ir::Instruction& call, const Maps& maps) {
        const CallSite& site = caller.calls.at(static_cast<std::size_t>(call.operands[0].imm_bits));
        const auto found = index_.find(site.callee);
        if (found == index_.end()) fail(site.line, site.column, "call to undeclared function '" + site.callee + "'");
        const Function& callee = functions_[found->second];
        if (!callee.defined && !is_device_runtime(site.callee))
            fail(site.line, site.column,
                 "call to '" + site.callee +
                     "', which has no body in this module (of the external device functions only vprintf, "
                     "__assertfail, malloc and free are supported)");
        for (std::size_t i = 0; i < stack_.size(); ++i) {
            if (stack_[i] != &callee) continue;
            std::string cycle;
            for (std::size_t j = i; j < stack_.size(); ++j) cycle += stack_[j]->body.name + " -> ";
            cycle += callee.body.name;
            fail(site.line, site.column, "recursive call cycle " + cycle + " cannot be inlined (recursion is not supported)");
        }
        const std::size_t inputs = callee.body.params.size() - callee.num_returns;
        if (site.returns.size() != callee.num_returns)
            fail(site.line, site.column,
                 "call to '" + site.callee + "' names " + std::to_string(site.returns.size()) + " return value(s); the function has " +
                     std::to_string(callee.num_returns));
        if (site.args.size() != inputs)
            fail(site.line, site.column,
                 "call to '" + site.callee + "' passes " + std::to_string(site.args.size()) + " argument(s); the function takes " +
                     std::to_string(inputs));
        Maps inner;
        inner.params.reserve(callee.body.params.size());
        for (std::size_t i = 0; i < callee.body.params.size(); ++i) {
            const ir::SymbolId local = i < callee.num_returns ? site.returns[i] : site.args[i - callee.num_returns];
            const ir::SymbolId mapped = maps.symbols.at(local);
            const ir::Symbol& actual = kernel.symbols[mapped];
            const ir::Param& formal = callee.body.params[i];
            if (actual.size_bytes < formal.size_bytes)
                fail(site.line, site.column,
                     "'" + actual.name + "' (" + std::to_string(actual.size_bytes) + " bytes) is smaller than parameter '" +
                         formal.name + "' (" + std::to_string(formal.size_bytes) + " bytes) of '" + site.callee + "'");
            inner.params.push_back(mapped);
        }
        if (!callee.defined) return emit_device_runtime_call(kernel, site, callee, call, inner.params);
        if (kernel.registers.size() + callee.body.registers.size() > limits_.max_kernel_registers)
            fail(site.line, site.column,
                 "kernel '" + kernel.name + "' exceeds " + std::to_string(limits_.max_kernel_registers) +
                     " registers after inlining");
        const std::string suffix = "$" + std::to_string(++instance_);
        inner.regs.reserve(callee.body.registers.size());
        for (const ir::RegisterInfo& r : callee.body.registers) {
            inner.regs.push_back(static_cast<ir::RegId>(kernel.registers.size()));
            kernel.registers.push_back(ir::RegisterInfo{r.name + suffix, r.type});
        }
        inner.symbols.reserve(callee.body.symbols.size());
        for (const ir::Symbol& s : callee.body.symbols) {
            inner.symbols.push_back(static_cast<ir::SymbolId>(kernel.symbols.size()));
            ir::Symbol copy = s;
            copy.name += suffix;
            kernel.symbols.push_back(std::move(copy));
        }
        ir::Pc skip_at = ir::no_pc;
        if (call.guard.reg != ir::no_reg) {
            ir::Instruction skip;
            skip.op = ir::Opcode::bra;
            skip.guard = call.guard; // already remapped by the caller's emit
            skip.guard.negated = !skip.guard.negated;
            skip.num_operands = 1;
            skip.operands[0].kind = ir::OperandKind::label;
            skip.line = call.line;
            skip.column = call.column;
            skip_at = static_cast<ir::Pc>(kernel.code.size());
            push(kernel, skip);
        }
        stack_.push_back(&callee);
        emit(kernel, callee, inner, false, suffix);
        stack_.pop_back();
        if (skip_at != ir::no_pc) kernel.code[skip_at].operands[0].target = static_cast<ir::Pc>(kernel.code.size());
    }

    // The device-runtime functions nvcc calls through a bodiless `.extern .func`, with the parameter sizes of
    // their CUDA declarations (crt/common_functions.h) as nvcc declares them for a 64-bit target:
    // int vprintf(const char*, const char*); void __assertfail(const char* message, const char* file,
    // unsigned line, const char* function, size_t charSize); void* malloc(size_t); void free(void*).
    struct DeviceRuntimeFunction {
        std::string_view name;
        ir::Opcode op;
        std::vector<std::uint32_t> inputs; // bytes of each input parameter
        std::uint32_t return_bytes;        // 0: returns nothing
        std::string_view prototype;        // for the error message
    };
    static const DeviceRuntimeFunction* device_runtime(const std::string& name) {
        static const DeviceRuntimeFunction table[] = {
            {"vprintf", ir::Opcode::vprintf, {8, 8}, 4, ".extern .func (.param .b32 r) vprintf(.param .b64, .param .b64)"},
            {"__assertfail", ir::Opcode::assertfail, {8, 8, 4, 8, 8}, 0,
             ".extern .func __assertfail(.param .b64, .param .b64, .param .b32, .param .b64, .param .b64)"},
            // issue 20, device heap
            {"malloc", ir::Opcode::device_malloc, {8}, 8, ".extern .func (.param .b64 r) malloc(.param .b64)"},
            {"free", ir::Opcode::device_free, {8}, 0, ".extern .func free(.param .b64)"},
        };
        for (const DeviceRuntimeFunction& f : table)
            if (f.name == name) return &f;
        return nullptr;
    }
    static bool is_device_runtime(const std::string& name) { return device_runtime(name) != nullptr; }

    // A call of a device-runtime function to the `.extern .func` prototype nvcc declares: one instruction of the
    // function's opcode whose operands are the call's .param symbols (inputs, then the return .param when the call
    // names one), executed by the functional engine instead of an inlined body. `params` holds the kernel symbols
    // bound to the prototype's parameters in prototype order (returns first), already checked against the formal
    // sizes. The return value is optional (a call may ignore vprintf's result).
    void emit_device_runtime_call(ir::Kernel& kernel, const CallSite& site, const Function& callee,
                                  const ir::Instruction& call, const std::vector<ir::SymbolId>& params) const {
        const DeviceRuntimeFunction& f = *device_runtime(site.callee);
        const std::uint32_t returns = f.return_bytes != 0 ? 1 : 0;
        bool matches = callee.num_returns <= returns && callee.body.params.size() == callee.num_returns + f.inputs.size();
        for (std::size_t i = 0; matches && i < f.inputs.size(); ++i)
            matches = callee.body.params[callee.num_returns + i].size_bytes == f.inputs[i];
        if (matches && callee.num_returns == 1) matches = callee.body.params[0].size_bytes == f.return_bytes;
        if (!matches)
            fail(site.line, site.column,
                 "'" + site.callee + "' is declared with a signature the device runtime does not have (expected " +
                     std::string(f.prototype) + ", as nvcc emits for a 64-bit target)");
        ir::Instruction inst;
        inst.op = f.op;
        inst.uni = call.uni;
        inst.guard = call.guard; // already remapped by the caller's emit
        inst.line = call.line;
        inst.column = call.column;
        const auto param = [&](ir::SymbolId symbol) {
            ir::Operand op;
            op.kind = ir::OperandKind::symbol;
            op.symbol_scope = ir::SymbolScope::kernel_local;
            op.symbol = symbol;
            return op;
        };
        for (std::size_t i = 0; i < f.inputs.size(); ++i) inst.operands[inst.num_operands++] = param(params[callee.num_returns + i]);
        if (callee.num_returns == 1) inst.operands[inst.num_operands++] = param(params[0]);
        push(kernel, inst);
    }

    const std::vector<Function>& functions_;
    const std::string& file_;
    const Limits& limits_;
    Totals module_total_;
    std::unordered_map<std::string, std::size_t> index_;
    std::unordered_map<const Function*, Totals> totals_;
    std::vector<const Function*> stack_;
    std::uint32_t instance_ = 0;
};

} // namespace detail

// Replaces module.kernels with the inlined entries of `functions` (file order). Entries without calls are moved,
// not copied (their code needs no renaming), so `functions` is left valid but unspecified.
inline void inline_calls(ir::Module& module, std::vector<Function>& functions, const std::string& file,
                         const Limits& limits = {}) {
    detail::Inliner inliner(functions, file, limits);
    module.kernels.clear();
    for (Function& f : functions) {
        if (!f.is_entry || !f.defined) continue;
        inliner.check_sizes(f);
        if (f.calls.empty()) {
            ir::Kernel kernel = std::move(f.body);
            module.kernels.push_back(std::move(kernel));
        } else {
            module.kernels.push_back(inliner.inline_entry(f));
        }
    }
}

} // namespace gpuarch::ptx
