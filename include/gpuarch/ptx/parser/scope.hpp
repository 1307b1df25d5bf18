#pragma once
// The parser's state and its names: the module being built, the functions read so far, the scopes of the function
// being read, name lookup, and the resource limits checked as declarations and instructions are read.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <gpuarch/ir/layout.hpp>
#include <gpuarch/ir/module.hpp>
#include <gpuarch/ir/names.hpp>
#include <gpuarch/ptx/function.hpp>
#include <gpuarch/ptx/modifiers.hpp>
#include <gpuarch/ptx/parser/instruction_names.hpp>
#include <gpuarch/ptx/parser/token_stream.hpp>

namespace gpuarch::ptx::detail {

struct TransparentHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
template <class V> using NameMap = std::unordered_map<std::string, V, TransparentHash, std::equal_to<>>;

class ParseScope : public TokenStream {
public:
    using TokenStream::TokenStream;

protected:
    // A branch target named before its label is defined: resolved when the function body ends.
    struct LabelRef {
        ir::Pc pc;
        Token name; // a copy: the statement's tokens are released before labels are resolved
    };

    // ------------------------------------------------------------------ resource limits
    // Adds a sized variable to its segment, laid out as ir/layout.hpp will lay it out, and fails at its name when
    // the segment passes its limit (ptx/limits.hpp). A kernel's own .shared variables follow the module's.
    void account_variable(const Token& at, const ir::Symbol& s, bool module_scope) {
        const auto add = [&](std::uint64_t& used, std::uint64_t base, std::uint64_t limit, const std::string& what,
                             std::string_view rule, std::string_view knob) {
            used = ir::align_up(used, ir::effective_alignment(s)) + s.size_bytes;
            if (base + used > limit)
                fail(at, "'" + s.name + "' brings " + what + " to " + std::to_string(base + used) +
                             " bytes, more than the " + std::to_string(limit) + " " + std::string(rule) +
                             " (ptx::Limits::" + std::string(knob) + ")");
        };
        const std::string function = function_ ? "'" + function_->body.name + "'" : std::string();
        switch (s.space) {
        case ir::StateSpace::local:
        case ir::StateSpace::param:
            add(function_local_bytes_, 0, limits_.max_local_bytes_per_thread, "the local memory of " + function,
                "bytes per thread CUDA allows", "max_local_bytes_per_thread");
            break;
        case ir::StateSpace::shared:
            if (module_scope)
                add(module_shared_bytes_, 0, limits_.max_static_shared_bytes, "the module's static shared memory",
                    "bytes of static shared memory CUDA allows per block", "max_static_shared_bytes");
            else
                add(function_shared_bytes_, module_shared_bytes_, limits_.max_static_shared_bytes,
                    "the static shared memory of " + function + " (with the module's)",
                    "bytes of static shared memory CUDA allows per block", "max_static_shared_bytes");
            break;
        case ir::StateSpace::constant:
            add(module_const_bytes_, 0, limits_.max_const_bytes, "the module's constant memory",
                "bytes of constant memory CUDA provides", "max_const_bytes");
            break;
        case ir::StateSpace::global:
            add(module_global_bytes_, 0, limits_.max_global_bytes, "the module's .global variables", "bytes allowed",
                "max_global_bytes");
            break;
        default: break;
        }
    }

    // Called at each instruction's first token, before it is read.
    void count_instruction(const Token& at) {
        if (function_->body.code.size() >= limits_.max_function_instructions)
            fail(at, "'" + function_->body.name + "' has more than " +
                         std::to_string(limits_.max_function_instructions) +
                         " instructions (ptx::Limits::max_function_instructions)");
        if (++module_instructions_ > limits_.max_module_instructions)
            fail(at, "the module has more than " + std::to_string(limits_.max_module_instructions) +
                         " instructions (ptx::Limits::max_module_instructions)");
    }

    // After layout, the totals a kernel reaches only through inlining (its callees' .local and call-sequence
    // .param variables) or through module variables declared after it; reported at the kernel's name.
    void check_kernel_segments() const {
        for (const ir::Kernel& k : module_.kernels) {
            const auto found = function_index_.find(k.name);
            const std::uint32_t column = found != function_index_.end() ? functions_[found->second].column : 0;
            const auto check = [&](std::uint64_t used, std::uint64_t limit, std::string_view what,
                                   std::string_view knob) {
                if (used > limit)
                    fail_at(k.line, column,
                            "kernel '" + k.name + "' needs " + std::to_string(used) + " bytes of " + std::string(what) +
                                ", more than the " + std::to_string(limit) +
                                " CUDA allows (ptx::Limits::" + std::string(knob) + ")");
            };
            check(k.local_bytes, limits_.max_local_bytes_per_thread, "local memory per thread after inlining",
                  "max_local_bytes_per_thread");
            check(k.shared_bytes, limits_.max_static_shared_bytes, "static shared memory", "max_static_shared_bytes");
            check(k.param_bytes, limits_.max_kernel_param_bytes, "kernel parameters", "max_kernel_param_bytes");
        }
    }

    void declare_global(const Token& at, ir::Symbol symbol) {
        if (global_index_.count(symbol.name) != 0 || function_index_.count(symbol.name) != 0)
            fail(at, "redeclaration of '" + symbol.name + "'");
        global_index_.emplace(symbol.name, static_cast<ir::SymbolId>(module_.globals.size()));
        module_.globals.push_back(std::move(symbol));
    }

    void declare_local_symbol(const Token& at, ir::Symbol symbol) {
        auto& scope = symbol_scopes_.back();
        if (scope.count(symbol.name) != 0 || register_scopes_.back().count(symbol.name) != 0)
            fail(at, "redeclaration of '" + symbol.name + "' in the same scope");
        const auto id = static_cast<ir::SymbolId>(function_->body.symbols.size());
        scope.emplace(symbol.name, id);
        function_->body.symbols.push_back(std::move(symbol));
    }

    // ------------------------------------------------------------------ name resolution
    std::optional<ir::RegId> find_register(std::string_view name) const {
        for (auto it = register_scopes_.rbegin(); it != register_scopes_.rend(); ++it) {
            auto found = it->find(name);
            if (found != it->end()) return found->second;
        }
        return std::nullopt;
    }

    struct SymbolRef {
        ir::SymbolScope scope;
        ir::SymbolId id;
        ir::StateSpace space;
    };
    std::optional<SymbolRef> find_symbol(std::string_view name) const {
        for (auto it = symbol_scopes_.rbegin(); it != symbol_scopes_.rend(); ++it) {
            auto found = it->find(name);
            if (found != it->end())
                return SymbolRef{ir::SymbolScope::kernel_local, found->second,
                                 function_->body.symbols[found->second].space};
        }
        if (auto found = param_index_.find(name); found != param_index_.end())
            return SymbolRef{ir::SymbolScope::kernel_param, found->second, ir::StateSpace::param};
        if (auto found = global_index_.find(name); found != global_index_.end())
            return SymbolRef{ir::SymbolScope::module, found->second, module_.globals[found->second].space};
        return std::nullopt;
    }

    static std::optional<ir::SpecialReg> find_special(std::string_view name) {
        return lookup_name(name, all_special_regs);
    }

    ir::ScalarType register_type(ir::RegId id) const { return function_->body.registers[id].type; }

    // A name in a register position: declared register, else special register, else an error that says which.
    ir::RegId resolve_register(const Token& t) const {
        if (auto r = find_register(t.text)) return *r;
        if (find_special(t.text) || is_known_unsupported_special(t.text))
            fail(t, "special register '" + std::string(t.text) + "' cannot be used here");
        if (find_symbol(t.text)) fail(t, "'" + std::string(t.text) + "' is a variable, not a register");
        fail(t, "undeclared register '" + std::string(t.text) + "'");
    }

    // ------------------------------------------------------------------ state
    ir::Module module_;
    std::vector<Function> functions_;
    NameMap<std::size_t> function_index_;
    NameMap<ir::SymbolId> global_index_;
    // Per function body.
    Function* function_ = nullptr;
    std::vector<NameMap<ir::RegId>> register_scopes_;
    std::vector<NameMap<ir::SymbolId>> symbol_scopes_;
    NameMap<ir::SymbolId> param_index_;
    NameMap<ir::Pc> labels_;
    std::vector<LabelRef> label_refs_;
    NameMap<CallPrototype> prototypes_; // .callprototype labels of the function being read
    // Bytes used so far, as read (account_variable), and instructions and registers so far in the module.
    std::uint64_t module_shared_bytes_ = 0, module_const_bytes_ = 0, module_global_bytes_ = 0;
    std::uint64_t function_local_bytes_ = 0, function_shared_bytes_ = 0;
    std::size_t module_instructions_ = 0, module_registers_ = 0;
};

} // namespace gpuarch::ptx::detail
