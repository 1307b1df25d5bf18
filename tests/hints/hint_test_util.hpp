#pragma once
// Small hand-written kernels for the hint-pass tests: the body lines are the whole code, so pc k is body line k.
#include <string>

#include <gpuarch/core/error.hpp>
#include <gpuarch/ir/hint_pass.hpp>
#include <gpuarch/ptx/parser.hpp>

namespace hints_test {

inline const std::string prefix = ".version 8.0\n.target sm_75\n.address_size 64\n"
                                  ".visible .entry k(.param .u64 k_p0)\n{\n"
                                  ".reg .pred %p<8>;\n.reg .b32 %r<32>;\n.reg .b64 %rd<8>;\n.reg .f32 %f<8>;\n"
                                  ".shared .align 4 .b8 sm[256];\n";

inline gpuarch::ir::Module module_of(const std::string& body) {
    return gpuarch::ptx::parse(prefix + body + "\n}\n", "hints.ptx");
}

inline gpuarch::ir::RegId reg(const gpuarch::ir::Kernel& kernel, const std::string& name) {
    for (gpuarch::ir::RegId r = 0; r < kernel.registers.size(); ++r)
        if (kernel.registers[r].name == name) return r;
    throw gpuarch::Error("no register " + name);
}

// The pcs of the chain of stall point s along the fall-through path (taken path at no branch): s's first offset,
// then each member's next offset. Returns offsets from s.
inline std::vector<unsigned> fallthrough_chain(const gpuarch::ir::KernelHints& h, gpuarch::ir::Pc s) {
    using gpuarch::ir::InstructionHint;
    std::vector<unsigned> offsets;
    unsigned next = h.hint[s].f1.target_offset;
    while (next != 0) {
        offsets.push_back(next);
        const InstructionHint& m = h.hint[s + next];
        next = m.format == InstructionHint::Format::format2 ? m.f2.not_taken_offset : m.f1.target_offset;
    }
    return offsets;
}

} // namespace hints_test
