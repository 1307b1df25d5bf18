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
// - An indirect call `call (r), %rd, (a), proto;` becomes a dispatch over its candidates, the module's functions
//   whose address is taken (ptx::Function::address_taken) and whose parameter sizes are the prototype's, in
//   module order: `setp.eq.u64 %indirect$n, %rd, <address>; @%indirect$n bra <copy>` per candidate, then a
//   `trap %rd` that the functional engine reports as a call to a non-function, then each candidate's inlined copy
//   ending in a branch to the instruction after the call. The reconvergence analysis sees ordinary branches, and
//   the timing model charges a compare and a branch per candidate tried.
// - Recursion: a function on a cycle of direct calls (a strongly connected component of the call graph with a
//   cycle) is not inlined. Each kernel that reaches it gets one out-of-line copy after its own code (fresh
//   registers and symbols, plus kernel-local .param symbols for its formal parameters), described by an
//   ir::CallFrame; a call of it is an Opcode::call (label: the copy's entry, imm: an ir::CallLink), and the copy's
//   returns branch to one Opcode::ret carrying the frame's index. func::KernelExecution saves and restores the
//   frame per call. Such a function may not execute `exit` (its single return must post-dominate its code, so
//   that its branches reconverge inside it).
// - Errors (ParseError at the call site): a callee without a body (other than those four), argument/return count
//   mismatch, an argument smaller than the parameter it binds, recursion through an indirect call (the message names
//   the cycle "a -> b -> a"), kernels that would exceed Limits::max_function_instructions or max_kernel_registers,
//   and a module whose kernels together would exceed Limits::max_module_instructions or max_module_registers (at
//   the first kernel that does).
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
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
        find_recursive_functions();
    }

    // Checks the entry's inlined size, alone and added to the kernels before it (module_total), before copying.
    void check_sizes(const Function& entry) {
        std::vector<const Function*> stack{&entry};
        Totals total = totals(entry, stack);
        for (const Function* f : reachable_recursive(entry)) {
            stack.assign(1, f);
            const Totals copy = totals(*f, stack);
            total.instructions += copy.instructions + 1;
            total.registers += copy.registers + f->body.params.size();
        }
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
        frame_of_.clear();
        pending_frames_.clear();
        call_fixups_.clear();
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
        // Out-of-line copies of the recursive functions the kernel reaches (each may ask for more).
        for (std::size_t i = 0; i < pending_frames_.size(); ++i) emit_frame(kernel, i);
        for (const auto& [at, frame] : call_fixups_)
            kernel.code[at].operands[0].target = kernel.call_frames[frame].entry;
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
            std::vector<const Function*> callees;
            if (site.target != ir::no_reg) {
                callees = candidates(site);
            } else {
                const auto found = index_.find(site.callee);
                if (found == index_.end()) continue; // reported when the call is emitted
                callees.push_back(&functions_[found->second]);
            }
            for (const Function* callee : callees) {
                if (site.target == ir::no_reg && recursive_.count(callee) != 0) {
                    t.instructions = std::min(limit, t.instructions + 1); // a real call; the copy is counted once
                    continue;
                }
                check_no_cycle(stack, *callee, site);
                if (stack.size() >= max_call_depth)
                    fail(site.line, site.column,
                         "calls nested deeper than " + std::to_string(max_call_depth) + " levels");
                stack.push_back(callee);
                const Totals inner = totals(*callee, stack);
                stack.pop_back();
                t.instructions = std::min(limit, t.instructions + inner.instructions + 3); // + guard/dispatch branches
                t.registers = std::min(limit, t.registers + inner.registers + 1);
            }
        }
        totals_.emplace(&f, t);
        return t;
    }

    // A cycle left after the recursive functions went out of line passes through an indirect call: an error naming
    // it at the call that closes it.
    void check_no_cycle(const std::vector<const Function*>& stack, const Function& callee, const CallSite& site) const {
        for (std::size_t i = 0; i < stack.size(); ++i) {
            if (stack[i] != &callee) continue;
            std::string cycle;
            for (std::size_t j = i; j < stack.size(); ++j) cycle += stack[j]->body.name + " -> ";
            cycle += callee.body.name;
            fail(site.line, site.column,
                 "recursive call cycle " + cycle +
                     " cannot be inlined (recursion through an indirect call is not supported)");
        }
    }

    struct Maps {
        std::vector<ir::RegId> regs;
        std::vector<ir::SymbolId> symbols; // function-local symbol -> kernel symbol
        std::vector<ir::SymbolId> params; // formal parameter -> kernel-local .param symbol (callees only)
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
        default: break;
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
        std::vector<ir::Pc> return_fixups; // kernel pcs of bra that replaced ret
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

    // The possible targets of an indirect call: address-taken functions with the prototype's parameter sizes.
    std::vector<const Function*> candidates(const CallSite& site) const {
        std::vector<const Function*> out;
        for (const Function& f : functions_) {
            if (!f.defined || !f.address_taken || f.is_entry) continue;
            if (f.num_returns != site.prototype.returns.size() ||
                f.body.params.size() != f.num_returns + site.prototype.args.size())
                continue;
            bool same = true;
            for (std::size_t i = 0; same && i < f.body.params.size(); ++i)
                same = f.body.params[i].size_bytes ==
                       (i < f.num_returns ? site.prototype.returns[i] : site.prototype.args[i - f.num_returns]);
            if (same) out.push_back(&f);
        }
        return out;
    }

    // Appends a fresh instance of f's registers and local symbols to the kernel (named with the instance suffix
    // "$<n>", which it returns) and maps f's ids to them in `maps`.
    std::string add_instance_locals(ir::Kernel& kernel, const Function& f, Maps& maps) {
        const std::string suffix = "$" + std::to_string(++instance_);
        maps.regs.reserve(f.body.registers.size());
        for (const ir::RegisterInfo& r : f.body.registers) {
            maps.regs.push_back(static_cast<ir::RegId>(kernel.registers.size()));
            kernel.registers.push_back(ir::RegisterInfo{r.name + suffix, r.type});
        }
        maps.symbols.reserve(f.body.symbols.size());
        for (const ir::Symbol& s : f.body.symbols) {
            maps.symbols.push_back(static_cast<ir::SymbolId>(kernel.symbols.size()));
            ir::Symbol copy = s;
            copy.name += suffix;
            kernel.symbols.push_back(std::move(copy));
        }
        return suffix;
    }

    static ir::Instruction branch_to(ir::Pc target, const ir::Instruction& at, ir::Guard guard = {}) {
        ir::Instruction b;
        b.op = ir::Opcode::bra;
        b.guard = guard;
        b.num_operands = 1;
        b.operands[0].kind = ir::OperandKind::label;
        b.operands[0].target = target;
        b.line = at.line;
        b.column = at.column;
        return b;
    }

    void emit_indirect_call(ir::Kernel& kernel, const CallSite& site, const ir::Instruction& call, const Maps& maps) {
        const std::vector<const Function*> targets = candidates(site);
        const ir::RegId target = maps.regs.at(site.target);
        std::vector<ir::Pc> to_end; // branches to the instruction after the call
        if (call.guard.reg != ir::no_reg) {
            to_end.push_back(static_cast<ir::Pc>(kernel.code.size()));
            push(kernel, branch_to(ir::no_pc, call, ir::Guard{call.guard.reg, !call.guard.negated}));
        }
        const auto matched = static_cast<ir::RegId>(kernel.registers.size());
        kernel.registers.push_back(ir::RegisterInfo{"%indirect$" + std::to_string(++instance_), ir::ScalarType::pred});
        std::vector<ir::Pc> dispatch; // the guarded branch to each candidate's copy
        for (const Function* f : targets) {
            ir::Instruction compare;
            compare.op = ir::Opcode::setp;
            compare.type = ir::ScalarType::u64;
            compare.cmp = ir::CompareOp::eq;
            compare.num_operands = 3;
            compare.operands[0].kind = ir::OperandKind::reg;
            compare.operands[0].reg = matched;
            compare.operands[1].kind = ir::OperandKind::reg;
            compare.operands[1].reg = target;
            compare.operands[2].kind = ir::OperandKind::imm;
            compare.operands[2].imm_bits = function_address(static_cast<std::size_t>(f - functions_.data()));
            compare.line = call.line;
            compare.column = call.column;
            push(kernel, compare);
            dispatch.push_back(static_cast<ir::Pc>(kernel.code.size()));
            push(kernel, branch_to(ir::no_pc, call, ir::Guard{matched, false}));
        }
        // No candidate matched: the functional engine reports the target as a call to a non-function.
        ir::Instruction bad;
        bad.op = ir::Opcode::trap;
        bad.num_operands = 1;
        bad.operands[0].kind = ir::OperandKind::reg;
        bad.operands[0].reg = target;
        bad.line = call.line;
        bad.column = call.column;
        push(kernel, bad);
        for (std::size_t k = 0; k < targets.size(); ++k) {
            kernel.code[dispatch[k]].operands[0].target = static_cast<ir::Pc>(kernel.code.size());
            CallSite direct = site;
            direct.callee = targets[k]->body.name;
            direct.target = ir::no_reg;
            ir::Instruction unguarded = call;
            unguarded.guard = {};
            inline_callee(kernel, direct, *targets[k], unguarded, maps);
            to_end.push_back(static_cast<ir::Pc>(kernel.code.size()));
            push(kernel, branch_to(ir::no_pc, call));
        }
        for (ir::Pc at : to_end) kernel.code[at].operands[0].target = static_cast<ir::Pc>(kernel.code.size());
    }

    void emit_call(ir::Kernel& kernel, const Function& caller, const ir::Instruction& call, const Maps& maps) {
        const CallSite& site = caller.calls.at(static_cast<std::size_t>(call.operands[0].imm_bits));
        if (site.target != ir::no_reg) return emit_indirect_call(kernel, site, call, maps);
        const auto found = index_.find(site.callee);
        if (found == index_.end()) fail(site.line, site.column, "call to undeclared function '" + site.callee + "'");
        const Function& callee = functions_[found->second];
        if (const char* reason = out_of_scope(site.callee); !callee.defined && reason != nullptr)
            fail(site.line, site.column, "call to '" + site.callee + "': " + reason + " is out of scope for gpuarch");
        if (!callee.defined && !is_device_runtime(site.callee))
            fail(site.line, site.column,
                 "call to '" + site.callee +
                     "', which has no body in this module (of the external device functions only vprintf, "
                     "__assertfail, malloc and free are supported)");
        if (recursive_.count(&callee) != 0) return emit_real_call(kernel, site, callee, call, maps);
        inline_callee(kernel, site, callee, call, maps);
    }

    // The caller's .param symbols bound to `callee`'s parameters (returns first), checked against their sizes.
    std::vector<ir::SymbolId> bind_parameters(const ir::Kernel& kernel, const CallSite& site, const Function& callee,
                                              const Maps& maps) const {
        const std::size_t inputs = callee.body.params.size() - callee.num_returns;
        if (site.returns.size() != callee.num_returns)
            fail(site.line, site.column,
                 "call to '" + site.callee + "' names " + std::to_string(site.returns.size()) +
                     " return value(s); the function has " + std::to_string(callee.num_returns));
        if (site.args.size() != inputs)
            fail(site.line, site.column,
                 "call to '" + site.callee + "' passes " + std::to_string(site.args.size()) +
                     " argument(s); the function takes " + std::to_string(inputs));
        std::vector<ir::SymbolId> bound;
        bound.reserve(callee.body.params.size());
        for (std::size_t i = 0; i < callee.body.params.size(); ++i) {
            const ir::SymbolId local = i < callee.num_returns ? site.returns[i] : site.args[i - callee.num_returns];
            const ir::SymbolId mapped = maps.symbols.at(local);
            const ir::Symbol& actual = kernel.symbols[mapped];
            const ir::Param& formal = callee.body.params[i];
            if (actual.size_bytes < formal.size_bytes)
                fail(site.line, site.column,
                     "'" + actual.name + "' (" + std::to_string(actual.size_bytes) +
                         " bytes) is smaller than parameter '" + formal.name + "' (" +
                         std::to_string(formal.size_bytes) + " bytes) of '" + site.callee + "'");
            bound.push_back(mapped);
        }
        return bound;
    }

    // A call of a recursive function: Opcode::call to its out-of-line copy (emitted after the kernel's code).
    void emit_real_call(ir::Kernel& kernel, const CallSite& site, const Function& callee, const ir::Instruction& call,
                        const Maps& maps) {
        const std::vector<ir::SymbolId> bound = bind_parameters(kernel, site, callee, maps);
        std::uint32_t frame = 0;
        if (auto it = frame_of_.find(&callee); it != frame_of_.end()) {
            frame = it->second;
        } else {
            frame = static_cast<std::uint32_t>(kernel.call_frames.size());
            kernel.call_frames.push_back(ir::CallFrame{callee.body.name, ir::no_pc, 0, 0, {}, {}, {}});
            frame_of_.emplace(&callee, frame);
            pending_frames_.push_back(&callee);
        }
        ir::CallLink link;
        link.frame = frame;
        link.returns.assign(bound.begin(), bound.begin() + callee.num_returns);
        link.args.assign(bound.begin() + callee.num_returns, bound.end());
        ir::Instruction inst;
        inst.op = ir::Opcode::call;
        inst.uni = call.uni;
        inst.guard = call.guard; // already remapped by the caller's emit
        inst.line = call.line;
        inst.column = call.column;
        inst.num_operands = 2;
        inst.operands[0].kind = ir::OperandKind::label;
        inst.operands[1].kind = ir::OperandKind::imm;
        inst.operands[1].imm_bits = kernel.call_links.size();
        kernel.call_links.push_back(std::move(link));
        call_fixups_.emplace_back(static_cast<ir::Pc>(kernel.code.size()), frame);
        push(kernel, inst);
    }

    // The out-of-line copy of pending_frames_[i]: its body with fresh registers and symbols, its formal parameters
    // as fresh kernel-local .param symbols, every return a branch to one Opcode::ret that names the frame.
    void emit_frame(ir::Kernel& kernel, std::size_t i) {
        const Function& f = *pending_frames_[i];
        const std::uint32_t frame = frame_of_.at(&f);
        const auto first_register = static_cast<ir::RegId>(kernel.registers.size());
        const auto first_symbol = static_cast<ir::SymbolId>(kernel.symbols.size());
        if (kernel.registers.size() + f.body.registers.size() > limits_.max_kernel_registers)
            fail(f.body.line, f.column,
                 "kernel '" + kernel.name + "' exceeds " + std::to_string(limits_.max_kernel_registers) +
                     " registers with the out-of-line copy of '" + f.body.name + "'");
        Maps maps;
        const std::string suffix = add_instance_locals(kernel, f, maps);
        std::vector<ir::SymbolId> formals;
        for (const ir::Param& p : f.body.params) {
            ir::Symbol formal;
            formal.name = p.name + suffix;
            formal.space = ir::StateSpace::param;
            formal.type = ir::ScalarType::b8;
            formal.element_count = p.size_bytes;
            formal.size_bytes = p.size_bytes;
            formal.alignment = std::max<std::uint32_t>(p.alignment, 1);
            formal.line = f.body.line;
            formals.push_back(static_cast<ir::SymbolId>(kernel.symbols.size()));
            maps.params.push_back(formals.back());
            kernel.symbols.push_back(std::move(formal));
        }
        const auto entry = static_cast<ir::Pc>(kernel.code.size());
        stack_.assign(1, &f);
        emit(kernel, f, maps, false, suffix);
        for (ir::Pc pc = entry; pc < kernel.code.size(); ++pc)
            if (kernel.code[pc].op == ir::Opcode::exit)
                fail(kernel.code[pc].line, kernel.code[pc].column,
                     "'exit' in the recursive function '" + f.body.name +
                         "' is not supported (a recursive function must return to its caller)");
        ir::Instruction ret;
        ret.op = ir::Opcode::ret;
        ret.num_operands = 1;
        ret.operands[0].kind = ir::OperandKind::imm;
        ret.operands[0].imm_bits = frame;
        ret.line = kernel.code.empty() ? f.body.line : kernel.code.back().line;
        ret.column = 1;
        push(kernel, ret);
        ir::CallFrame& out = kernel.call_frames[frame];
        out.entry = entry;
        out.first_register = first_register;
        out.registers = static_cast<std::uint32_t>(kernel.registers.size() - first_register);
        for (auto s = first_symbol; s < kernel.symbols.size(); ++s) {
            const ir::StateSpace space = kernel.symbols[s].space;
            if (space == ir::StateSpace::local || space == ir::StateSpace::param) out.saved_symbols.push_back(s);
        }
        out.formal_returns.assign(formals.begin(), formals.begin() + f.num_returns);
        out.formal_args.assign(formals.begin() + f.num_returns, formals.end());
    }

    // Functions on a cycle of direct calls: Tarjan's strongly connected components, iteratively (call graphs may
    // be deep). A component is recursive when it has more than one function or a function that calls itself.
    void find_recursive_functions() {
        const std::size_t n = functions_.size();
        std::vector<std::vector<std::size_t>> edges(n);
        for (std::size_t f = 0; f < n; ++f)
            for (const CallSite& site : functions_[f].calls) {
                if (site.target != ir::no_reg) continue;
                auto it = index_.find(site.callee);
                if (it != index_.end() && functions_[it->second].defined) edges[f].push_back(it->second);
            }
        constexpr std::size_t unvisited = static_cast<std::size_t>(-1);
        std::vector<std::size_t> order(n, unvisited), low(n, 0), scc_stack;
        std::vector<bool> on_stack(n, false);
        std::size_t counter = 0;
        for (std::size_t root = 0; root < n; ++root) {
            if (order[root] != unvisited) continue;
            std::vector<std::pair<std::size_t, std::size_t>> dfs{{root, 0}}; // (node, next edge)
            order[root] = low[root] = counter++;
            scc_stack.push_back(root);
            on_stack[root] = true;
            while (!dfs.empty()) {
                auto& [v, e] = dfs.back();
                if (e < edges[v].size()) {
                    const std::size_t w = edges[v][e++];
                    if (order[w] == unvisited) {
                        order[w] = low[w] = counter++;
                        scc_stack.push_back(w);
                        on_stack[w] = true;
                        dfs.emplace_back(w, 0);
                    } else if (on_stack[w]) {
                        low[v] = std::min(low[v], order[w]);
                    }
                    continue;
                }
                const std::size_t done = v;
                dfs.pop_back();
                if (!dfs.empty()) low[dfs.back().first] = std::min(low[dfs.back().first], low[done]);
                if (low[done] != order[done]) continue;
                std::vector<std::size_t> component;
                std::size_t w = 0;
                do {
                    w = scc_stack.back();
                    scc_stack.pop_back();
                    on_stack[w] = false;
                    component.push_back(w);
                } while (w != done);
                bool cyclic = component.size() > 1;
                for (std::size_t c : edges[done]) cyclic = cyclic || c == done;
                if (cyclic)
                    for (std::size_t c : component) recursive_.insert(&functions_[c]);
            }
        }
    }

    // The recursive functions `entry` reaches through direct calls (their out-of-line copies).
    std::vector<const Function*> reachable_recursive(const Function& entry) const {
        std::vector<const Function*> out, work{&entry};
        std::unordered_set<const Function*> seen{&entry};
        while (!work.empty()) {
            const Function* f = work.back();
            work.pop_back();
            for (const CallSite& site : f->calls) {
                std::vector<const Function*> callees;
                if (site.target != ir::no_reg) {
                    callees = candidates(site);
                } else if (auto it = index_.find(site.callee); it != index_.end()) {
                    callees.push_back(&functions_[it->second]);
                }
                for (const Function* c : callees) {
                    if (!seen.insert(c).second) continue;
                    if (recursive_.count(c) != 0) out.push_back(c);
                    work.push_back(c);
                }
            }
        }
        return out;
    }

    // Inlines `callee` for the call `site` (checked for recursion, arity and argument sizes first).
    void inline_callee(ir::Kernel& kernel, const CallSite& site, const Function& callee, const ir::Instruction& call,
                       const Maps& maps) {
        check_no_cycle(stack_, callee, site);
        Maps inner;
        inner.params = bind_parameters(kernel, site, callee, maps);
        if (!callee.defined) return emit_device_runtime_call(kernel, site, callee, call, inner.params);
        if (kernel.registers.size() + callee.body.registers.size() > limits_.max_kernel_registers)
            fail(site.line, site.column,
                 "kernel '" + kernel.name + "' exceeds " + std::to_string(limits_.max_kernel_registers) +
                     " registers after inlining");
        const std::string suffix = add_instance_locals(kernel, callee, inner);
        ir::Pc skip_at = ir::no_pc;
        if (call.guard.reg != ir::no_reg) { // the guard is already remapped by the caller's emit
            skip_at = static_cast<ir::Pc>(kernel.code.size());
            push(kernel, branch_to(ir::no_pc, call, ir::Guard{call.guard.reg, !call.guard.negated}));
        }
        stack_.push_back(&callee);
        emit(kernel, callee, inner, false, suffix);
        stack_.pop_back();
        if (skip_at != ir::no_pc) kernel.code[skip_at].operands[0].target = static_cast<ir::Pc>(kernel.code.size());
    }

    // Device-runtime functions of features gpuarch does not model, named so the error says what the program uses
    // (the CUDA 12+ device runtime's entry points as nvcc declares them).
    static const char* out_of_scope(const std::string& name) {
        if (name.rfind("__cudaCDP", 0) == 0 || name.rfind("cudaLaunchDevice", 0) == 0 ||
            name.rfind("cudaGetParameterBuffer", 0) == 0)
            return "a device-side kernel launch (dynamic parallelism)";
        if (name.rfind("cudaGraph", 0) == 0)
            return "a device-side graph call (graph-conditional nodes, device graph launch)";
        return nullptr;
    }

    // The device-runtime functions nvcc calls through a bodiless `.extern .func`, with the parameter sizes of
    // their CUDA declarations (crt/common_functions.h) as nvcc declares them for a 64-bit target:
    // int vprintf(const char*, const char*); void __assertfail(const char* message, const char* file,
    // unsigned line, const char* function, size_t charSize); void* malloc(size_t); void free(void*).
    struct DeviceRuntimeFunction {
        std::string_view name;
        ir::Opcode op;
        std::vector<std::uint32_t> inputs; // bytes of each input parameter
        std::uint32_t return_bytes; // 0: returns nothing
        std::string_view prototype; // for the error message
    };
    static const DeviceRuntimeFunction* device_runtime(const std::string& name) {
        static const DeviceRuntimeFunction table[] = {
            {"vprintf",
             ir::Opcode::vprintf,
             {8, 8},
             4,
             ".extern .func (.param .b32 r) vprintf(.param .b64, .param .b64)"},
            {"__assertfail",
             ir::Opcode::assertfail,
             {8, 8, 4, 8, 8},
             0,
             ".extern .func __assertfail(.param .b64, .param .b64, .param .b32, .param .b64, .param .b64)"},
            // device heap
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
        bool matches =
            callee.num_returns <= returns && callee.body.params.size() == callee.num_returns + f.inputs.size();
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
        for (std::size_t i = 0; i < f.inputs.size(); ++i)
            inst.operands[inst.num_operands++] = param(params[callee.num_returns + i]);
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
    std::unordered_set<const Function*> recursive_; // on a cycle of direct calls: kept out of line
    // Per kernel being inlined: the frame of each out-of-line function, those still to emit, and the calls whose
    // target (the copy's entry) is known only once it is emitted.
    std::unordered_map<const Function*, std::uint32_t> frame_of_;
    std::vector<const Function*> pending_frames_;
    std::vector<std::pair<ir::Pc, std::uint32_t>> call_fixups_;
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
