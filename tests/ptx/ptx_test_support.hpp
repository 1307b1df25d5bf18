#pragma once
// Helpers for the PTX front-end tests: wrap instruction lines in a kernel with a fixed register set, and check
// ParseError messages with their exact position.
#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include <gpuarch/ir/module.hpp>
#include <gpuarch/ptx/parser.hpp>

namespace gpuarch::test {

// Body line n of kernel_text() is file line kernel_first_body_line + n - 1.
inline constexpr unsigned kernel_first_body_line = 7;

// Lines 1-6: header, entry `k` with params k_p0 (.u64) and k_p1 (.u32), registers
//   %p0..%p7 (ids 0-7), %rs0..%rs7 (8-15), %r0..%r15 (16-31), %f0..%f15 (32-47), %rd0..%rd15 (48-63),
//   %fd0..%fd7 (64-71), %h0..%h3 (.f16, 72-75), %hh0..%hh1 (.f16x2, 76-77).
inline std::string kernel_text(std::string_view body, std::string_view module_decls = "") {
    std::string text = ".version 9.0\n.target sm_75\n.address_size 64\n";
    text += module_decls; // callers that pass declarations shift every line below
    text += ".visible .entry k(.param .u64 k_p0, .param .u32 k_p1)\n{\n";
    text += ".reg .pred %p<8>; .reg .b16 %rs<8>; .reg .b32 %r<16>; .reg .f32 %f<16>; .reg .b64 %rd<16>; "
            ".reg .f64 %fd<8>; .reg .f16 %h<4>; .reg .f16x2 %hh<2>;\n";
    text += body;
    text += "\n}\n";
    return text;
}

inline ir::Module parse_kernel(std::string_view body, std::string_view module_decls = "") {
    return ptx::parse(kernel_text(body, module_decls), "test.ptx");
}

// The first instruction of a one-line body.
inline ir::Instruction first_instruction(std::string_view line, std::string_view module_decls = "") {
    const ir::Module m = parse_kernel(line, module_decls);
    REQUIRE(m.kernels.size() == 1);
    REQUIRE(!m.kernels[0].code.empty());
    return m.kernels[0].code[0];
}

inline ir::RegId reg_id(const ir::Kernel& k, std::string_view name) {
    for (std::size_t i = 0; i < k.registers.size(); ++i)
        if (k.registers[i].name == name) return static_cast<ir::RegId>(i);
    FAIL("no register named " << name);
    return ir::no_reg;
}

// Fixed register ids of kernel_text().
constexpr ir::RegId P(unsigned i) { return i; }
constexpr ir::RegId RS(unsigned i) { return 8 + i; }
constexpr ir::RegId R(unsigned i) { return 16 + i; }
constexpr ir::RegId F(unsigned i) { return 32 + i; }
constexpr ir::RegId RD(unsigned i) { return 48 + i; }
constexpr ir::RegId FD(unsigned i) { return 64 + i; }

// The ParseError message for `text`, or "" when it parses.
inline std::string parse_error_of(std::string_view text, std::string file = "test.ptx") {
    try {
        (void)ptx::parse(text, std::move(file));
    } catch (const ptx::ParseError& e) {
        return e.what();
    }
    return "";
}

inline std::string kernel_error(std::string_view body, std::string_view module_decls = "") {
    return parse_error_of(kernel_text(body, module_decls));
}

} // namespace gpuarch::test
