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

struct CallSite {
    std::string callee;
    std::vector<ir::SymbolId> returns; // kernel-local .param symbols of the caller, in order
    std::vector<ir::SymbolId> args;
    std::uint32_t line = 0, column = 0;
};

struct Function {
    ir::Kernel body;
    bool is_entry = false;
    bool defined = false; // false for a prototype (`.extern .func f(...);`)
    std::uint32_t num_returns = 0;
    std::uint32_t column = 0;
    std::vector<CallSite> calls;
};

} // namespace gpuarch::ptx
