#pragma once
// A parsed `.entry` or `.func` before call inlining (internal to the front end).
// Contract: `body` uses the ir::Kernel representation with these differences:
// - for a `.func`, body.params holds the return parameters first (num_returns of them), then the inputs, and
//   operands with SymbolScope::kernel_param refer to that list;
// - body.code may contain Opcode::call; such an instruction's operands[0] is an immediate whose imm_bits indexes
//   `calls`.
// After ptx::inline_calls only entries remain, with no call left.
#include <cstdint>
#include <string>
#include <vector>

#include <gpuarch/ir/module.hpp>

namespace gpuarch::ptx {

// An indirect call's `.callprototype`: the byte sizes of its return parameters and of its inputs.
struct CallPrototype {
    std::vector<std::uint64_t> returns, args;
};

struct CallSite {
    std::string callee; // empty for an indirect call
    std::vector<ir::SymbolId> returns; // kernel-local .param symbols of the caller, in order
    std::vector<ir::SymbolId> args;
    std::uint32_t line = 0, column = 0;
    // An indirect call (`call (r), %rd, (a), prototype;`): the register holding the target address and the
    // prototype; target == ir::no_reg for a direct call.
    ir::RegId target = ir::no_reg;
    CallPrototype prototype;
};

struct Function {
    ir::Kernel body;
    bool is_entry = false;
    bool defined = false; // false for a prototype (`.extern .func f(...);`)
    std::uint32_t num_returns = 0;
    std::uint32_t column = 0;
    std::vector<CallSite> calls;
    bool address_taken = false; // named as a value (mov, an initializer): a possible indirect-call target
};

// The address a function's name denotes as a value (`mov.u64 %rd, f;`, `.global .u64 table[] = {f};`): function
// `index` (declaration order in the module) at function_address_base + 16 * index. The range is mapped to no
// state space, so a load or store through a function pointer faults; an indirect call compares its target with
// these addresses (ptx/inliner.hpp).
inline constexpr std::uint64_t function_address_base = 0x0000'7000'0000'0000ULL;
inline constexpr std::uint64_t function_address(std::size_t index) { return function_address_base + 16 * index; }

} // namespace gpuarch::ptx
