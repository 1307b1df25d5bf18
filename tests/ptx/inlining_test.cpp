// Inlining of .func calls into kernels: fresh registers and symbols per call, parameter mapping, ret handling,
// nested calls, recursion errors.
#include <algorithm>
#include <string>

#include "ptx_test_support.hpp"

using namespace gpuarch;
using namespace gpuarch::test;
using ir::Opcode;

namespace {

const std::string header = ".version 9.0\n.target sm_75\n.address_size 64\n";

// square(x) = x * x, with a .local scratch array so per-instance symbols are visible.
const std::string square_func = ".func (.param .b32 square_ret) square(.param .b32 square_x)\n"
                                "{\n"
                                "\t.local .align 4 .b8 scratch[8];\n"
                                "\t.reg .b32 %r<3>;\n"
                                "\tld.param.u32 %r1, [square_x];\n"
                                "\tmul.lo.s32 %r2, %r1, %r1;\n"
                                "\tst.local.u32 [scratch], %r2;\n"
                                "\tst.param.b32 [square_ret], %r2;\n"
                                "\tret;\n"
                                "}\n";

// A call sequence as nvcc writes it.
std::string call_square(const std::string& arg_reg, const std::string& result_reg) {
    return "\t{\n\t.reg .b32 temp_param_reg;\n\t.param .b32 param0;\n\tst.param.b32 [param0], " + arg_reg +
           ";\n\t.param .b32 retval0;\n\tcall.uni (retval0), square, (param0);\n\tld.param.b32 " + result_reg +
           ", [retval0];\n\t}\n";
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

std::size_t count_op(const ir::Kernel& k, Opcode op) {
    return static_cast<std::size_t>(
        std::count_if(k.code.begin(), k.code.end(), [&](const ir::Instruction& i) { return i.op == op; }));
}

} // namespace

TEST_CASE("a .func called twice is inlined twice with fresh registers after the kernel's own") {
    const std::string text = header + square_func +
                             ".visible .entry k(.param .u32 k_n)\n{\n\t.reg .b32 %r<4>;\n"
                             "\tld.param.u32 %r1, [k_n];\n" +
                             call_square("%r1", "%r2") + call_square("%r2", "%r3") + "\tret;\n}\n";
    const ir::Module m = ptx::parse(text, "test.ptx");
    REQUIRE(m.kernels.size() == 1); // the .func is not a kernel
    const ir::Kernel& k = m.kernels[0];
    CHECK(count_op(k, Opcode::call) == 0);
    // Kernel registers: %r0..%r3 (0-3), temp_param_reg of each call sequence (4, 5), then the callee copies.
    REQUIRE(k.registers.size() == 4 + 2 + 3 + 3);
    CHECK(k.registers[3].name == "%r3");
    CHECK(k.registers[4].name == "temp_param_reg");
    CHECK(k.registers[6].name == "%r0$1");
    CHECK(k.registers[9].name == "%r0$2");
    CHECK(k.registers[11].name == "%r2$2");
    // Symbols: the kernel's own (param0/retval0 of both call sequences), then scratch$1 and scratch$2.
    std::vector<std::string> names;
    for (const auto& s : k.symbols) names.push_back(s.name);
    CHECK(names == std::vector<std::string>{"param0", "retval0", "param0", "retval0", "scratch$1", "scratch$2"});
    for (const auto& s : k.symbols) {
        if (s.name.rfind("scratch", 0) == 0) CHECK(s.space == ir::StateSpace::local);
        else CHECK(s.space == ir::StateSpace::param);
    }
    // Every per-thread symbol has its own bytes in the local segment.
    CHECK(k.local_bytes == 4 + 4 + 8 + 4 + 4 + 8);
    for (std::size_t a = 0; a < k.symbols.size(); ++a)
        for (std::size_t b = a + 1; b < k.symbols.size(); ++b)
            CHECK((k.symbols[a].offset + k.symbols[a].size_bytes <= k.symbols[b].offset ||
                   k.symbols[b].offset + k.symbols[b].size_bytes <= k.symbols[a].offset));

    // Code: ld.param; [st.param; body(5 with ret->bra); ld.param] x2; ret
    REQUIRE(k.code.size() == 1 + 2 * (1 + 5 + 1) + 1);
    const auto& c = k.code;
    CHECK(c[1].op == Opcode::st);
    CHECK(c[1].operands[0].symbol == 0); // param0 of the first call
    // The callee's ld.param of its formal now reads the caller's param0 (kernel-local .param symbol).
    CHECK(c[2].op == Opcode::ld);
    CHECK(c[2].operands[1].symbol_scope == ir::SymbolScope::kernel_local);
    CHECK(c[2].operands[1].symbol == 0);
    CHECK(c[2].operands[0].reg == 7); // %r1$1
    CHECK(c[4].operands[0].symbol == 4); // scratch$1
    CHECK(c[5].operands[0].symbol == 1); // st.param to func_retval -> retval0
    CHECK(c[6].op == Opcode::bra); // ret -> bra to the instruction after the body
    CHECK(c[6].operands[0].target == 7);
    CHECK(c[7].op == Opcode::ld); // ld.param %r2, [retval0]
    CHECK(c[7].operands[1].symbol == 1);
    CHECK(c[9].operands[1].symbol == 2); // second instance reads the second param0
    CHECK(c[11].operands[0].symbol == 5); // scratch$2
    CHECK(c[9].operands[0].reg == 10); // %r1$2
    CHECK(c[13].operands[0].target == 14);
    CHECK(c[15].op == Opcode::ret); // the kernel's own ret stays a thread exit
    // Source positions survive inlining: the callee's mul is on line 9 of the text.
    CHECK(c[3].line == 9);
    CHECK(c[10].line == 9);
}

TEST_CASE("nested calls inline recursively with distinct instances") {
    const std::string text = header + square_func +
                             ".func (.param .b32 quad_ret) quad(.param .b32 quad_x)\n{\n\t.reg .b32 %r<4>;\n"
                             "\tld.param.u32 %r1, [quad_x];\n" +
                             call_square("%r1", "%r2") + call_square("%r2", "%r3") +
                             "\tst.param.b32 [quad_ret], %r3;\n\tret;\n}\n"
                             ".visible .entry k()\n{\n\t.reg .b32 %r<3>;\n\tmov.u32 %r1, 3;\n" +
                             replace_all(call_square("%r1", "%r2"), "square", "quad") + "\tret;\n}\n";
    const ir::Module m = ptx::parse(text, "test.ptx");
    const ir::Kernel& k = m.kernels[0];
    CHECK(count_op(k, Opcode::call) == 0);
    bool seen1 = false, seen2 = false, seen3 = false;
    for (const auto& r : k.registers) {
        seen1 |= r.name == "%r3$1"; // quad
        seen2 |= r.name == "%r2$2"; // first square inside quad
        seen3 |= r.name == "%r2$3"; // second square inside quad
    }
    CHECK(seen1);
    CHECK(seen2);
    CHECK(seen3);
    // Three inlined rets became branches.
    CHECK(count_op(k, Opcode::bra) == 3);
    CHECK(count_op(k, Opcode::ret) == 1);
    for (const auto& i : k.code)
        if (i.op == Opcode::bra) CHECK(i.operands[0].target < k.code.size());
}

TEST_CASE("recursive functions stay out of line, once per kernel, reached by real calls and returns") {
    const std::string text = header +
                             ".func (.param .b32 r) ping(.param .b32 x);\n"
                             ".func (.param .b32 r) pong(.param .b32 x)\n{\n"
                             "\t{\n\t.param .b32 a;\n\t.param .b32 b;\n\tcall.uni (b), ping, (a);\n\t}\n\tret;\n}\n"
                             ".func (.param .b32 r) ping(.param .b32 x)\n{\n"
                             "\t{\n\t.param .b32 a;\n\t.param .b32 b;\n\tcall.uni (b), pong, (a);\n\t}\n\tret;\n}\n"
                             ".visible .entry k()\n{\n"
                             "\t{\n\t.param .b32 a;\n\t.param .b32 b;\n\tcall.uni (b), ping, (a);\n\t}\n\tret;\n}\n";
    const ir::Module m = ptx::parse(text, "test.ptx");
    const ir::Kernel& k = m.kernels.at(0);
    // ping and pong each have one copy; the kernel calls ping, ping calls pong, pong calls ping.
    REQUIRE(k.call_frames.size() == 2);
    CHECK(k.call_frames[0].function == "ping");
    CHECK(k.call_frames[1].function == "pong");
    REQUIRE(k.call_links.size() == 3);
    CHECK(count_op(k, Opcode::call) == 3);
    for (const auto& f : k.call_frames) {
        REQUIRE(f.entry < k.code.size());
        CHECK(f.formal_returns.size() == 1);
        CHECK(f.formal_args.size() == 1);
        CHECK(f.first_register + f.registers <= k.registers.size());
    }
    std::size_t returns = 0;
    for (const auto& i : k.code) {
        if (i.op == Opcode::call)
            CHECK(i.operands[0].target == k.call_frames[k.call_links.at(i.operands[1].imm_bits).frame].entry);
        if (i.op == Opcode::ret && i.num_operands == 1) ++returns;
    }
    CHECK(returns == 2); // one return per copy; the kernel's own ret exits
    const std::string self = header + ".func self()\n{\n\tcall.uni self;\n\tret;\n}\n"
                                      ".visible .entry k()\n{\n\tcall.uni self;\n\tret;\n}\n";
    CHECK(ptx::parse(self, "test.ptx").kernels.at(0).call_frames.size() == 1);
}

TEST_CASE("recursion through an indirect call is an error naming the cycle") {
    const std::string text =
        header + ".func (.param .b32 r) f(.param .b32 x)\n{\n\t.reg .b64 %rd<2>;\n\tmov.u64 %rd1, f;\n"
                 "\t{\n\t.param .b32 a;\n\t.param .b32 b;\n"
                 "\tproto: .callprototype (.param .b32 _) _ (.param .b32 _);\n\tcall (b), %rd1, (a), proto;\n\t}\n"
                 "\tret;\n}\n"
                 ".visible .entry k()\n{\n\t{\n\t.param .b32 a;\n\t.param .b32 b;\n\tcall.uni (b), f, (a);\n\t}\n"
                 "\tret;\n}\n";
    CHECK(parse_error_of(text) == "test.ptx:12:2: recursive call cycle f -> f cannot be inlined (recursion through an "
                                  "indirect call is not supported)");
}

TEST_CASE("exit inside a recursive function is an error at the exit") {
    const std::string text = header + ".func self()\n{\n\texit;\n\tcall.uni self;\n\tret;\n}\n"
                                      ".visible .entry k()\n{\n\tcall.uni self;\n\tret;\n}\n";
    CHECK(parse_error_of(text) ==
          "test.ptx:6:2: 'exit' in the recursive function 'self' is not supported (a recursive function must return to "
          "its caller)");
}

TEST_CASE("a guarded call skips the inlined body when the guard is false") {
    const std::string text = header + square_func +
                             ".visible .entry k()\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<3>;\n"
                             "\t{\n\t.param .b32 param0;\n\t.param .b32 retval0;\n"
                             "\t@%p1 call.uni (retval0), square, (param0);\n\t}\n\tret;\n}\n";
    const ir::Kernel k = ptx::parse(text, "test.ptx").kernels[0];
    REQUIRE(k.code.size() == 1 + 5 + 1);
    CHECK(k.code[0].op == Opcode::bra);
    CHECK(k.code[0].guard.reg == 1);
    CHECK(k.code[0].guard.negated);
    CHECK(k.code[0].operands[0].target == 6);
    CHECK(k.code[6].op == Opcode::ret);
}

TEST_CASE("a guarded ret in a callee becomes a guarded branch to the return point") {
    const std::string text = header +
                             ".func early(.param .b32 x)\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<2>;\n"
                             "\tld.param.u32 %r1, [x];\n\tsetp.eq.s32 %p1, %r1, 0;\n\t@%p1 ret;\n"
                             "\tadd.s32 %r1, %r1, 1;\n\tret;\n}\n"
                             ".visible .entry k()\n{\n\t{\n\t.param .b32 a;\n\tcall.uni early, (a);\n\t}\n\texit;\n}\n";
    const ir::Kernel k = ptx::parse(text, "test.ptx").kernels[0];
    REQUIRE(k.code.size() == 6);
    CHECK(k.code[2].op == Opcode::bra);
    CHECK(k.code[2].guard.reg != ir::no_reg);
    CHECK(k.code[2].operands[0].target == 5);
    CHECK(k.code[4].operands[0].target == 5);
    CHECK(k.code[5].op == Opcode::exit);
    // Reconvergence of the guarded early return is the return point.
    CHECK(k.code[2].reconvergence_pc == 5);
}

TEST_CASE("argument and return counts and sizes must match the callee") {
    const std::string two_args = header +
                                 ".func f(.param .b32 a, .param .b32 b)\n{\n\tret;\n}\n"
                                 ".visible .entry k()\n{\n\t{\n\t.param .b32 p;\n\tcall f, (p);\n\t}\n\tret;\n}\n";
    CHECK(parse_error_of(two_args) == "test.ptx:12:2: call to 'f' passes 1 argument(s); the function takes 2");
    const std::string small = header +
                              ".func f(.param .b64 a)\n{\n\tret;\n}\n"
                              ".visible .entry k()\n{\n\t{\n\t.param .b32 p;\n\tcall f, (p);\n\t}\n\tret;\n}\n";
    CHECK(parse_error_of(small) == "test.ptx:12:2: 'p' (4 bytes) is smaller than parameter 'a' (8 bytes) of 'f'");
    const std::string no_ret = header + ".func (.param .b32 r) f()\n{\n\tret;\n}\n"
                                        ".visible .entry k()\n{\n\tcall f;\n\tret;\n}\n";
    CHECK(parse_error_of(no_ret) == "test.ptx:10:2: call to 'f' names 0 return value(s); the function has 1");
    const std::string reg_arg = header + ".func f(.param .b32 a)\n{\n\tret;\n}\n"
                                         ".visible .entry k()\n{\n\t.reg .b32 %r1;\n\tcall f, (%r1);\n\tret;\n}\n";
    CHECK(parse_error_of(reg_arg) ==
          "test.ptx:11:11: call argument '%r1' must be a .param variable declared in the calling scope");
}

TEST_CASE("labels of inlined bodies are recorded with the instance suffix") {
    const std::string text = header + ".func loop()\n{\n\t.reg .pred %p<2>;\n$L_top:\n\t@%p1 bra $L_top;\n\tret;\n}\n"
                                      ".visible .entry k()\n{\n$L_k:\n\tcall.uni loop;\n\tcall.uni loop;\n\tret;\n}\n";
    const ir::Kernel k = ptx::parse(text, "test.ptx").kernels[0];
    std::vector<std::pair<std::string, ir::Pc>> labels = k.labels;
    std::sort(labels.begin(), labels.end());
    CHECK(labels == std::vector<std::pair<std::string, ir::Pc>>{{"$L_k", 0}, {"$L_top$1", 0}, {"$L_top$2", 2}});
    CHECK(k.code[0].operands[0].target == 0); // the loop branches to its own instance
    CHECK(k.code[2].operands[0].target == 2);
}
