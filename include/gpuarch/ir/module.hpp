#pragma once
// A parsed PTX module: kernels (entries, with every .func call inlined) and module-scope variables.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpuarch/ir/instruction.hpp>

namespace gpuarch::ir {

struct RegisterInfo {
    std::string name; // "%r3"
    ScalarType type = ScalarType::b32;
};

// A variable in a state space: module-scope .global/.const/.shared, or kernel-scope .shared/.local/.param
// (including the call-sequence .param blocks nvcc emits, which become per-thread storage after inlining).
struct Symbol {
    std::string name;
    StateSpace space = StateSpace::none;
    ScalarType type = ScalarType::b8;
    std::uint32_t alignment = 0; // bytes; 0 = natural alignment of `type`
    std::uint64_t element_count = 1; // array length (1 for scalars); 0 for `extern .shared x[]` (dynamic)
    std::uint64_t size_bytes = 0; // element_count * size_bytes(type)
    std::vector<std::uint8_t> initializer; // little-endian bytes; empty = zero-initialised
    bool is_extern = false; // `.extern .shared` (dynamic shared memory) or external linkage
    bool is_visible = false; // `.visible`
    std::uint64_t offset = 0; // byte offset inside its space's segment, assigned by the parser
    std::uint32_t line = 0;
};

struct Param {
    std::string name;
    ScalarType type = ScalarType::b32;
    std::uint32_t size_bytes = 0; // element size x count (for `.param .align 8 .b8 p[16]`)
    std::uint32_t alignment = 0;
    std::uint32_t offset = 0; // offset in the kernel's parameter buffer
    bool is_pointer = false; // `.ptr` attribute when present
};

struct PerformanceDirectives {
    std::optional<std::array<std::uint32_t, 3>> maxntid, reqntid;
    std::optional<std::uint32_t> minnctapersm, maxnreg;
};

// A function that calls itself, directly or through others, cannot be inlined: it is kept once per kernel, out of
// line after the kernel's own code, and reached by real calls (ptx/inliner.hpp). A call saves the callee's frame,
// its registers and its per-thread (.local, .param) symbols, on the calling thread's call stack, and the return
// restores it (func::KernelExecution), so every activation has its own values.
struct CallFrame {
    std::string function;
    Pc entry = no_pc; // first instruction of the out-of-line copy
    RegId first_register = 0; // the copy's registers: [first_register, first_register + registers)
    std::uint32_t registers = 0;
    std::vector<SymbolId> saved_symbols; // the copy's per-thread symbols, formal parameters included
    std::vector<SymbolId> formal_returns; // kernel-local .param symbols holding the copy's parameters
    std::vector<SymbolId> formal_args;
};
// One call site of an out-of-line function: Opcode::call with operands (label: the frame's entry, imm: index in
// Kernel::call_links); its return is an Opcode::ret with one immediate operand (the frame's index).
struct CallLink {
    std::uint32_t frame = 0;
    std::vector<SymbolId> returns, args; // the caller's call-sequence .param symbols
};

struct Kernel {
    std::string name;
    std::vector<Param> params;
    std::uint32_t param_bytes = 0;
    std::vector<RegisterInfo> registers; // indexed by RegId
    std::vector<Symbol> symbols; // kernel-scope symbols, indexed by SymbolId (SymbolScope::kernel_local)
    std::vector<Instruction> code; // indexed by Pc; every .func call inlined
    std::vector<std::pair<std::string, Pc>> labels;
    PerformanceDirectives directives;
    std::uint64_t shared_bytes = 0; // static shared memory: kernel-scope + module-scope .shared
    std::uint64_t local_bytes = 0; // per-thread .local plus inlined call .param storage
    // Appended after the first contract: where dynamic (`.extern .shared x[]`) shared memory starts in the
    // kernel's shared window: shared_bytes rounded up to max(16, largest alignment of an extern .shared).
    // Every extern .shared symbol aliases this address (Symbol::offset of such a symbol is meaningless).
    std::uint64_t dynamic_shared_offset = 0;
    std::uint32_t line = 0;
    // Appended: out-of-line functions (recursion) and their call sites; empty without recursion.
    std::vector<CallFrame> call_frames;
    std::vector<CallLink> call_links;
};

struct Module {
    std::string file_name;
    std::string version; // ".version 8.x"
    std::string target; // "sm_75"
    unsigned address_size = 64;
    std::vector<Symbol> globals; // module-scope symbols (SymbolScope::module)
    std::vector<Kernel> kernels;
    std::uint64_t global_bytes = 0, const_bytes = 0, shared_bytes = 0;

    const Kernel* find_kernel(std::string_view entry) const {
        for (const auto& k : kernels)
            if (k.name == entry) return &k;
        return nullptr;
    }
};

} // namespace gpuarch::ir
