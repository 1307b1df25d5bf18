// Module and function directives: version/target, parameters, registers, variables and their layout,
// performance directives, skipped debug directives.
#include <bit>
#include <string>

#include "ptx_test_support.hpp"

using namespace gpuarch;
using namespace gpuarch::test;
using ir::ScalarType;
using ir::StateSpace;

namespace {
const std::string header = ".version 8.5\n.target sm_80, debug\n.address_size 64\n";
}

TEST_CASE("version, target and address size are recorded") {
    const ir::Module m = ptx::parse(header, "m.ptx");
    CHECK(m.version == "8.5");
    CHECK(m.target == "sm_80");
    CHECK(m.address_size == 64);
    CHECK(m.file_name == "m.ptx");
    CHECK(m.kernels.empty());
}

TEST_CASE("kernel parameters: scalars, pointers with attributes, aligned byte arrays, offsets") {
    const std::string text = header + ".visible .entry k(\n"
                                      "\t.param .u32 a,\n"
                                      "\t.param .u64 .ptr .global .align 16 b,\n"
                                      "\t.param .align 8 .b8 s[24],\n"
                                      "\t.param .u8 c,\n"
                                      "\t.param .f64 d\n"
                                      ")\n{\n\tret;\n}\n";
    const ir::Kernel k = ptx::parse(text, "m.ptx").kernels.at(0);
    REQUIRE(k.params.size() == 5);
    CHECK(k.params[0].name == "a");
    CHECK(k.params[0].type == ScalarType::u32);
    CHECK(k.params[0].size_bytes == 4);
    CHECK(k.params[0].offset == 0);
    CHECK(k.params[1].is_pointer);
    CHECK(k.params[1].offset == 8);
    CHECK(k.params[1].alignment == 8); // the .align after .ptr is the pointee's alignment
    CHECK(k.params[2].type == ScalarType::b8);
    CHECK(k.params[2].size_bytes == 24);
    CHECK(k.params[2].alignment == 8);
    CHECK(k.params[2].offset == 16);
    CHECK(k.params[3].offset == 40);
    CHECK(k.params[4].offset == 48);
    CHECK(k.param_bytes == 56);
}

TEST_CASE("performance directives and pragmas") {
    const std::string text = header + ".pragma \"nounroll\";\n"
                                      ".visible .entry k()\n.maxntid 256, 1, 1\n.minnctapersm 2\n.maxnreg 64\n"
                                      "{\n\t.pragma \"nounroll\";\n\tret;\n}\n"
                                      ".visible .entry r() .reqntid 32, 4\n{\n\tret;\n}\n";
    const ir::Module m = ptx::parse(text, "m.ptx");
    const auto& d = m.kernels.at(0).directives;
    REQUIRE(d.maxntid.has_value());
    CHECK(*d.maxntid == std::array<std::uint32_t, 3>{256, 1, 1});
    CHECK(d.minnctapersm == 2u);
    CHECK(d.maxnreg == 64u);
    CHECK(!d.reqntid.has_value());
    CHECK(*m.kernels.at(1).directives.reqntid == std::array<std::uint32_t, 3>{32, 4, 1});
}

TEST_CASE("register ranges are numbered densely in declaration order, predicates included") {
    const ir::Kernel k = parse_kernel("ret;").kernels[0];
    CHECK(k.registers.size() == 78);
    CHECK(k.registers[P(0)].name == "%p0");
    CHECK(k.registers[P(7)].type == ScalarType::pred);
    CHECK(k.registers[RS(3)].name == "%rs3");
    CHECK(k.registers[R(15)].name == "%r15");
    CHECK(k.registers[R(15)].type == ScalarType::b32);
    CHECK(k.registers[F(0)].type == ScalarType::f32);
    CHECK(k.registers[RD(9)].name == "%rd9");
    CHECK(k.registers[FD(7)].type == ScalarType::f64);
    CHECK(k.registers[72].type == ScalarType::f16);
}

TEST_CASE("single registers and comma lists are declared in order") {
    const std::string text = header + ".visible .entry k()\n{\n\t.reg .b64 %SP;\n\t.reg .b64 %SPL;\n"
                                      "\t.reg .b32 %a, %b<2>, %c;\n\tret;\n}\n";
    const ir::Kernel k = ptx::parse(text, "m.ptx").kernels.at(0);
    std::vector<std::string> names;
    for (const auto& r : k.registers) names.push_back(r.name);
    CHECK(names == std::vector<std::string>{"%SP", "%SPL", "%a", "%b0", "%b1", "%c"});
}

TEST_CASE("register numbering is identical across parses") {
    const std::string body = "{ .reg .b32 t; mov.u32 t, 1; }\nadd.s32 %r1, %r2, %r3;";
    const ir::Kernel a = parse_kernel(body).kernels[0];
    const ir::Kernel b = parse_kernel(body).kernels[0];
    REQUIRE(a.registers.size() == b.registers.size());
    for (std::size_t i = 0; i < a.registers.size(); ++i) CHECK(a.registers[i].name == b.registers[i].name);
    CHECK(a.code[1].operands[0].reg == b.code[1].operands[0].reg);
    CHECK(a.code[0].operands[0].reg == 78);
}

TEST_CASE("module variables: initializers become little-endian bytes, segments are laid out by alignment") {
    const std::string text = header + ".global .align 4 .b8 bytes[16] = {1, 0, 0, 0, 2, 0, 0, 0, 255};\n"
                                      ".global .u16 h = 0x1234;\n"
                                      ".global .align 8 .u64 big = 0xFFFFFFFFFFFFFFFF;\n"
                                      ".const .align 4 .f32 fl[3] = {0f3F800000, 2, 0.5};\n"
                                      ".const .f64 dd = 0d4000000000000000;\n"
                                      ".global .s32 neg[2] = {-1, -2};\n"
                                      ".global .u32 arr[] = {7, 8, 9};\n"
                                      ".global .v2 .f32 vec = {1.0, 2.0};\n"
                                      ".shared .align 16 .b8 module_shared[100];\n"
                                      ".visible .global .align 4 .u32 zero;\n";
    const ir::Module m = ptx::parse(text, "m.ptx");
    REQUIRE(m.globals.size() == 10);
    const auto& bytes = m.globals[0];
    CHECK(bytes.space == StateSpace::global);
    CHECK(bytes.size_bytes == 16);
    CHECK(bytes.initializer == std::vector<std::uint8_t>{1, 0, 0, 0, 2, 0, 0, 0, 255});
    CHECK(bytes.offset == 0);
    CHECK(m.globals[1].initializer == std::vector<std::uint8_t>{0x34, 0x12});
    CHECK(m.globals[1].offset == 16);
    CHECK(m.globals[2].offset == 24);
    CHECK(m.globals[2].initializer == std::vector<std::uint8_t>(8, 0xff));
    const auto& fl = m.globals[3];
    CHECK(fl.space == StateSpace::constant);
    CHECK(fl.offset == 0);
    REQUIRE(fl.initializer.size() == 12);
    const auto f32_at = [&](std::size_t i) {
        std::uint32_t bits = 0;
        for (int b = 0; b < 4; ++b)
            bits |= std::uint32_t{fl.initializer[i * 4 + static_cast<std::size_t>(b)]} << (8 * b);
        return std::bit_cast<float>(bits);
    };
    CHECK(f32_at(0) == 1.0f);
    CHECK(f32_at(1) == 2.0f);
    CHECK(f32_at(2) == 0.5f);
    CHECK(m.globals[4].offset == 16); // .const f64 aligned to 8 after 12 bytes
    CHECK(m.globals[5].initializer == std::vector<std::uint8_t>{0xff, 0xff, 0xff, 0xff, 0xfe, 0xff, 0xff, 0xff});
    CHECK(m.globals[6].element_count == 3);
    CHECK(m.globals[6].size_bytes == 12);
    CHECK(m.globals[7].element_count == 2);
    CHECK(m.globals[7].alignment == 8);
    CHECK(m.globals[8].space == StateSpace::shared);
    CHECK(m.globals[9].is_visible);
    CHECK(m.globals[9].initializer.empty());
    CHECK(m.const_bytes == 24);
    CHECK(m.shared_bytes == 100);
    CHECK(m.global_bytes == m.globals[9].offset + 4);
}

TEST_CASE("kernel shared memory follows module shared memory; dynamic shared starts after both") {
    const std::string text = header + ".shared .align 4 .b8 mod_s[10];\n"
                                      ".extern .shared .align 16 .b8 dyn[];\n"
                                      ".visible .entry k()\n{\n"
                                      "\t.shared .align 8 .b8 kern_s[20];\n"
                                      "\t.local .align 4 .b8 depot[12];\n"
                                      "\t.reg .b64 %rd<3>;\n"
                                      "\tmov.u64 %rd1, dyn;\n\tmov.u64 %rd2, kern_s;\n\tret;\n}\n";
    const ir::Module m = ptx::parse(text, "m.ptx");
    CHECK(m.shared_bytes == 10);
    CHECK(m.globals[1].is_extern);
    CHECK(m.globals[1].element_count == 0);
    const ir::Kernel& k = m.kernels.at(0);
    REQUIRE(k.symbols.size() == 2);
    CHECK(k.symbols[0].offset == 16); // after the 10 module bytes, aligned to 8
    CHECK(k.shared_bytes == 36);
    CHECK(k.dynamic_shared_offset == 48);
    CHECK(k.symbols[1].space == StateSpace::local);
    CHECK(k.symbols[1].offset == 0);
    CHECK(k.local_bytes == 12);
    CHECK(k.code[0].operands[1].kind == ir::OperandKind::symbol);
    CHECK(k.code[0].operands[1].symbol_scope == ir::SymbolScope::module);
    CHECK(k.code[1].operands[1].symbol_scope == ir::SymbolScope::kernel_local);
}

TEST_CASE("debug directives and sections are skipped; comments are ignored") {
    const std::string text = ".version 9.0 // trailing comment\n.target sm_75\n.address_size 64\n"
                             ".file 1 \"/tmp/x.cu\", 1700000000, 1234\n"
                             "/* a block\n   comment */\n"
                             ".visible .entry k()\n{\n"
                             "\t.reg .b32 %r<2>;\n"
                             "\t.loc 1 5 3\n"
                             "\tmov.u32 %r1, 1; // set\n"
                             "\t.loc 1 6 3, function_name $L__info_string0, inlined_at 1 9 1\n"
                             "\tret;\n}\n"
                             ".section .debug_str\n{\n$L__info_string0:\n.b8 95,90,0\n}\n";
    const ir::Module m = ptx::parse(text, "m.ptx");
    REQUIRE(m.kernels.size() == 1);
    REQUIRE(m.kernels[0].code.size() == 2);
    CHECK(m.kernels[0].code[0].line == 11);
}

TEST_CASE("linking directives: .weak and .visible functions, prototypes before definitions") {
    const std::string text = header +
                             ".weak .func helper(.param .b32 x);\n"
                             ".visible .entry k()\n{\n\t{\n\t.param .b32 p;\n\tcall.uni helper, (p);\n\t}\n\tret;\n}\n"
                             ".weak .func helper(.param .b32 x)\n{\n\tret;\n}\n";
    const ir::Module m = ptx::parse(text, "m.ptx");
    REQUIRE(m.kernels.size() == 1);
    CHECK(m.kernels[0].code.size() == 2); // bra (from the inlined ret) + ret
}

TEST_CASE("an entry without parameters or with an empty list parses") {
    const ir::Module m = ptx::parse(header + ".entry a\n{\nret;\n}\n.entry b()\n{\nexit;\n}\n", "m.ptx");
    REQUIRE(m.kernels.size() == 2);
    CHECK(m.kernels[0].name == "a");
    CHECK(m.kernels[1].params.empty());
    CHECK(m.find_kernel("b") == &m.kernels[1]);
}
