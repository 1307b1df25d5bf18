#pragma once
// Functions: headers (parameter lists, performance directives), bodies (scopes, labels, register declarations,
// .callprototype) and the ret added where a body falls off its end.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include <gpuarch/ir/layout.hpp>
#include <gpuarch/ir/module.hpp>
#include <gpuarch/ptx/function.hpp>
#include <gpuarch/ptx/parser/instructions.hpp>

namespace gpuarch::ptx::detail {

class FunctionParser : public InstructionParser {
public:
    using InstructionParser::InstructionParser;

protected:
    // ------------------------------------------------------------------ functions
    // Releases the tokens of each parameter once it is read: callers hold no Token reference across the call.
    // A kernel's parameters are checked against CUDA's parameter-space limit as they are read.
    // prototype: a `.callprototype` list, whose parameters may all be named `_`.
    void parse_param_list(std::vector<ir::Param>& params, bool is_entry, bool prototype = false) {
        expect_punct('(', "to open a parameter list");
        if (accept_punct(')')) return;
        std::unordered_set<std::string_view> names; // views of the input text
        std::uint64_t param_bytes = 0;
        do {
            release();
            const Token& t = peek();
            if (t.is_directive(".reg"))
                fail(t, ".reg parameters are not supported (nvcc passes parameters in the .param space)");
            if (!t.is_directive(".param")) fail(t, "expected .param, found " + describe(t));
            next();
            ir::Param param;
            std::uint32_t alignment = 0;
            ir::ScalarType type = ir::ScalarType::none;
            while (type == ir::ScalarType::none) {
                const Token& m = peek();
                if (m.is_directive(".align")) {
                    next();
                    alignment = parse_alignment();
                } else if (auto ty = type_directive(m)) {
                    next();
                    if (*ty == ir::ScalarType::pred) fail(m, ".pred parameters are not supported");
                    type = *ty;
                } else if (m.is_directive(".texref") || m.is_directive(".samplerref") || m.is_directive(".surfref")) {
                    fail(m, "texture and surface parameters (" + std::string(m.text) + ") are not supported");
                } else {
                    fail(m, "expected a parameter type, found " + describe(m));
                }
            }
            // Pointer attributes: .ptr [.space] [.align N]
            if (peek().is_directive(".ptr")) {
                const Token& ptr = next();
                if (!is_entry) fail(ptr, ".ptr is only allowed on kernel parameters");
                param.is_pointer = true;
                const ir::StateSpace s = space_of_directive(peek().text);
                if (peek().kind == TokenKind::directive &&
                    (s == ir::StateSpace::global || s == ir::StateSpace::shared || s == ir::StateSpace::constant ||
                     s == ir::StateSpace::local))
                    next();
                if (peek().is_directive(".align")) {
                    next();
                    parse_alignment(); // alignment of the pointee: a hint that does not affect the parameter
                }
            }
            const Token& name_token = expect_word("a parameter name");
            auto [count, open] = parse_dimensions();
            if (open) fail(name_token, "parameter arrays need a size");
            param.name = std::string(name_token.text);
            param.type = type;
            const std::uint64_t size = count * ir::size_bytes(type);
            if (size > 0xffffffffULL) fail(name_token, "parameter is too large");
            param.size_bytes = static_cast<std::uint32_t>(size);
            param.alignment = alignment != 0 ? alignment : ir::size_bytes(type);
            if (!(prototype && name_token.text == "_") && !names.insert(name_token.text).second)
                fail(name_token, "duplicate parameter '" + param.name + "'");
            if (is_entry) {
                param_bytes = ir::align_up(param_bytes, param.alignment) + param.size_bytes;
                if (param_bytes > limits_.max_kernel_param_bytes)
                    fail(name_token, "parameter '" + param.name + "' brings the kernel's parameters to " +
                                         std::to_string(param_bytes) + " bytes, more than the " +
                                         std::to_string(limits_.max_kernel_param_bytes) +
                                         " CUDA allows (ptx::Limits::max_kernel_param_bytes)");
            }
            params.push_back(std::move(param));
        } while (accept_punct(','));
        expect_punct(')', "to close a parameter list");
    }

    void parse_function(const Linkage& linkage) {
        const Token& kind = next();
        Function f;
        f.is_entry = kind.text == ".entry";
        if (!f.is_entry && peek().is_punct('(')) {
            parse_param_list(f.body.params, false);
            f.num_returns = static_cast<std::uint32_t>(f.body.params.size());
        }
        const Token name_token = expect_word("a function name"); // a copy: parse_param_list releases tokens
        if (name_token.text.front() == '%') fail(name_token, "function names cannot start with '%'");
        f.body.name = std::string(name_token.text);
        f.body.line = name_token.line;
        f.column = name_token.column;
        if (peek().is_punct('(')) {
            std::vector<ir::Param> inputs;
            parse_param_list(inputs, f.is_entry);
            const NameMap<char> returns = [&] {
                NameMap<char> names;
                for (std::uint32_t r = 0; r < f.num_returns; ++r) names.emplace(f.body.params[r].name, 0);
                return names;
            }();
            for (const auto& p : inputs)
                if (returns.count(p.name) != 0) fail(name_token, "duplicate parameter '" + p.name + "'");
            if (f.body.params.empty()) f.body.params = std::move(inputs); // no second copy of a long list
            else
                for (auto& p : inputs) f.body.params.push_back(std::move(p));
        }
        // Performance-tuning directives (entries) and .noreturn (functions).
        while (peek().kind == TokenKind::directive) {
            const Token& d = peek();
            auto& dir = f.body.directives;
            if (d.text == ".maxntid" || d.text == ".reqntid") {
                if (!f.is_entry) fail(d, std::string(d.text) + " is only allowed on an .entry");
                next();
                std::array<std::uint32_t, 3> dims{1, 1, 1};
                for (int i = 0; i < 3; ++i) {
                    const Token& v = peek();
                    dims[static_cast<std::size_t>(i)] = parse_u32("thread count");
                    if (dims[static_cast<std::size_t>(i)] == 0)
                        fail(v, std::string(d.text) + " values must be positive");
                    if (!accept_punct(',')) break;
                }
                auto& slot = d.text == ".maxntid" ? dir.maxntid : dir.reqntid;
                if (slot) fail(d, "duplicate " + std::string(d.text));
                slot = dims;
            } else if (d.text == ".minnctapersm" || d.text == ".maxnreg") {
                if (!f.is_entry) fail(d, std::string(d.text) + " is only allowed on an .entry");
                next();
                auto& slot = d.text == ".minnctapersm" ? dir.minnctapersm : dir.maxnreg;
                if (slot) fail(d, "duplicate " + std::string(d.text));
                slot = parse_u32(d.text.substr(1));
            } else if (d.text == ".noreturn") {
                if (f.is_entry) fail(d, ".noreturn is only allowed on a .func");
                next();
            } else if (d.text == ".pragma") {
                parse_pragma();
            } else if (d.text == ".maxnctapersm") {
                fail(d, ".maxnctapersm is deprecated and not supported (use .minnctapersm)");
            } else {
                fail(d, "unsupported directive " + describe(d) + " in a function header");
            }
        }
        const std::string name = f.body.name;
        if (global_index_.count(name) != 0) fail(name_token, "'" + name + "' is already declared as a variable");
        auto existing = function_index_.find(name);
        if (accept_punct(';')) {
            // A prototype: remember it so calls can name it (and fail clearly if it is never defined).
            if (existing == function_index_.end()) {
                function_index_.emplace(name, functions_.size());
                functions_.push_back(std::move(f));
            } else if (functions_[existing->second].is_entry != f.is_entry) {
                fail(name_token, "'" + name + "' is declared both as .entry and as .func");
            }
            return;
        }
        if (linkage.is_extern) fail(name_token, "an .extern function cannot have a body");
        if (!peek().is_punct('{'))
            fail(peek(), "expected '{' or ';' after the header of '" + name + "', found " + describe(peek()));
        std::size_t index = functions_.size();
        if (existing != function_index_.end()) {
            Function& old = functions_[existing->second];
            if (old.defined) fail(name_token, "redefinition of '" + name + "'");
            if (old.is_entry != f.is_entry) fail(name_token, "'" + name + "' is declared both as .entry and as .func");
            if (old.body.params.size() != f.body.params.size() || old.num_returns != f.num_returns)
                fail(name_token, "definition of '" + name + "' does not match its earlier declaration");
            index = existing->second;
            f.address_taken = old.address_taken; // named as a value (a function pointer) before its body
            functions_[index] = std::move(f);
        } else {
            function_index_.emplace(name, index);
            functions_.push_back(std::move(f));
        }
        functions_[index].defined = true;
        parse_body(functions_[index]);
    }

    // ------------------------------------------------------------------ function bodies
    void parse_body(Function& f) {
        function_ = &f;
        register_scopes_.assign(1, {});
        symbol_scopes_.assign(1, {});
        labels_.clear();
        label_refs_.clear();
        prototypes_.clear();
        param_index_.clear();
        function_local_bytes_ = 0;
        function_shared_bytes_ = 0;
        for (std::size_t i = 0; i < f.body.params.size(); ++i)
            param_index_.emplace(f.body.params[i].name, static_cast<ir::SymbolId>(i));
        expect_punct('{', "to open a function body");
        int depth = 1;
        Token close{};
        while (depth > 0) {
            release();
            const Token& t = peek();
            if (t.kind == TokenKind::end) fail(t, "unexpected end of input inside the body of '" + f.body.name + "'");
            if (t.is_punct('{')) {
                next();
                if (depth >= 64) fail(t, "scopes nested too deeply");
                register_scopes_.emplace_back();
                symbol_scopes_.emplace_back();
                ++depth;
                continue;
            }
            if (t.is_punct('}')) {
                next();
                register_scopes_.pop_back();
                symbol_scopes_.pop_back();
                --depth;
                close = t;
                continue;
            }
            if (t.is_punct(';')) {
                next();
                continue;
            }
            if (t.kind == TokenKind::directive) {
                parse_body_directive();
                continue;
            }
            if (t.kind == TokenKind::word && peek(1).is_punct(':')) {
                define_label(t);
                continue;
            }
            if (t.is_punct('@') || t.kind == TokenKind::word) {
                parse_statement();
                continue;
            }
            fail(t, "expected an instruction, declaration or label, found " + describe(t));
        }
        auto& code = f.body.code;
        for (const LabelRef& ref : label_refs_) {
            auto it = labels_.find(ref.name.text);
            if (it == labels_.end()) fail(ref.name, "unknown label '" + std::string(ref.name.text) + "'");
            code[ref.pc].operands[0].target = it->second;
        }
        // Falling off the end of a body returns: make it explicit so every path ends in ret/exit/bra.
        bool needs_ret = code.empty();
        if (!code.empty()) {
            const ir::Instruction& last = code.back();
            const bool terminates =
                last.guard.reg == ir::no_reg &&
                (last.op == ir::Opcode::ret || last.op == ir::Opcode::exit || last.op == ir::Opcode::bra);
            needs_ret = !terminates;
        }
        for (const auto& [name, pc] : labels_)
            if (pc == code.size()) needs_ret = true;
        if (needs_ret) {
            if (code.size() >= limits_.max_function_instructions)
                fail(close, "'" + f.body.name + "' has more than " + std::to_string(limits_.max_function_instructions) +
                                " instructions with the ret added at its end (ptx::Limits::max_function_instructions)");
            ir::Instruction ret;
            ret.op = ir::Opcode::ret;
            ret.line = close.line;
            ret.column = 1;
            code.push_back(ret);
        }
        f.body.labels.reserve(labels_.size());
        for (const auto& [name, pc] : labels_) f.body.labels.emplace_back(name, pc);
        std::sort(f.body.labels.begin(), f.body.labels.end(), [](const auto& a, const auto& b) {
            return a.second != b.second ? a.second < b.second : a.first < b.first;
        });
        function_ = nullptr;
    }

    void define_label(const Token& t) {
        next();
        next(); // ':'
        if (t.text.front() == '%') fail(t, "label names cannot start with '%'");
        if (peek().is_directive(".callprototype")) return define_prototype(t);
        const auto pc = static_cast<ir::Pc>(function_->body.code.size());
        if (!labels_.emplace(std::string(t.text), pc).second) fail(t, "duplicate label '" + std::string(t.text) + "'");
    }

    // `name: .callprototype [(.param ... _)] _ (.param ... _, ...);`: the signature an indirect call names. Only
    // the parameters' sizes matter: an indirect call binds its arguments to the target's parameters by position.
    void define_prototype(const Token& name) {
        const std::string label(name.text);
        next(); // .callprototype
        CallPrototype proto;
        std::vector<ir::Param> params;
        if (peek().is_punct('(')) {
            parse_param_list(params, false, true);
            for (const ir::Param& p : params) proto.returns.push_back(p.size_bytes);
            params.clear();
        }
        const Token& underscore = expect_word("'_' (the prototype's name placeholder)");
        if (underscore.text != "_") fail(underscore, "expected '_' in a .callprototype, found " + describe(underscore));
        if (peek().is_punct('(')) {
            parse_param_list(params, false, true);
            for (const ir::Param& p : params) proto.args.push_back(p.size_bytes);
        }
        if (peek().is_directive(".noreturn") || peek().is_directive(".abi_preserve") ||
            peek().is_directive(".abi_preserve_control"))
            fail(peek(), "'" + std::string(peek().text) + "' on a .callprototype is not supported");
        expect_punct(';', "after a .callprototype");
        if (!prototypes_.emplace(label, std::move(proto)).second)
            fail_at(name.line, name.column, "duplicate call prototype '" + label + "'");
    }

    void parse_body_directive() {
        const Token& t = peek();
        const std::string_view d = t.text;
        if (d == ".reg") {
            parse_registers();
        } else if (d == ".local" || d == ".shared" || d == ".param" || d == ".global" || d == ".const") {
            parse_variables(Linkage{}, /*module_scope=*/false);
        } else if (d == ".pragma") {
            parse_pragma();
        } else if (d == ".loc" || d == ".file") {
            skip_line(t);
        } else if (d == ".tex" || d == ".texref" || d == ".surfref" || d == ".samplerref") {
            fail(t, "texture and surface declarations (" + std::string(d) + ") are not supported");
        } else if (d == ".extern" || d == ".visible" || d == ".weak") {
            fail(t, "linking directive " + std::string(d) + " is not allowed inside a function body");
        } else {
            fail(t, "unexpected directive " + describe(t) + " inside a function body");
        }
    }

    void parse_registers() {
        const Token& reg = next();
        if (peek().is_directive(".v2") || peek().is_directive(".v4") || peek().is_directive(".v8"))
            fail(peek(), "vector registers (.reg " + std::string(peek().text) + ") are not supported");
        const Token& type_token = peek();
        const auto type = type_directive(type_token);
        if (!type) fail(type_token, "expected a register type after .reg, found " + describe(type_token));
        next();
        (void)reg;
        do {
            release(); // a long list of names is read name by name
            const Token& name_token = expect_word("a register name");
            const std::string_view name = name_token.text;
            if (accept_punct('<')) {
                const Token& n = peek();
                const std::uint32_t count = parse_u32("register count");
                expect_punct('>', "after a register count");
                if (count > limits_.max_function_registers)
                    fail(n, "register count " + std::to_string(count) + " is too large (at most " +
                                std::to_string(limits_.max_function_registers) + " registers per function)");
                for (std::uint32_t i = 0; i < count; ++i)
                    declare_register(name_token, std::string(name) + std::to_string(i), *type);
            } else {
                declare_register(name_token, std::string(name), *type);
            }
        } while (accept_punct(','));
        expect_punct(';', "after a register declaration");
    }

    void declare_register(const Token& at, std::string name, ir::ScalarType type) {
        auto& scope = register_scopes_.back();
        if (scope.count(name) != 0 || symbol_scopes_.back().count(name) != 0)
            fail(at, "redeclaration of register '" + name + "' in the same scope");
        auto& regs = function_->body.registers;
        if (regs.size() >= limits_.max_function_registers)
            fail(at, "too many registers in '" + function_->body.name + "' (at most " +
                         std::to_string(limits_.max_function_registers) + ")");
        if (++module_registers_ > limits_.max_module_registers)
            fail(at, "the module declares more than " + std::to_string(limits_.max_module_registers) +
                         " registers (ptx::Limits::max_module_registers)");
        scope.emplace(name, static_cast<ir::RegId>(regs.size()));
        regs.push_back(ir::RegisterInfo{std::move(name), type});
    }
};

} // namespace gpuarch::ptx::detail
