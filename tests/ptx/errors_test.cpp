// Malformed and unsupported PTX: every error is a ParseError "file:line:column: message" at the offending token.
#include <string>

#include "ptx_test_support.hpp"

using namespace gpuarch;
using namespace gpuarch::test;

namespace {

// The expected message for an error on body line `line` (1-based) at the first occurrence of `needle` in it.
std::string at(std::string_view body, unsigned line, std::string_view needle, std::string_view message) {
    std::size_t start = 0;
    for (unsigned l = 1; l < line; ++l) start = body.find('\n', start) + 1;
    const std::size_t end = body.find('\n', start);
    const std::string_view text =
        body.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    const std::size_t column = text.find(needle);
    REQUIRE(column != std::string_view::npos);
    return "test.ptx:" + std::to_string(kernel_first_body_line + line - 1) + ":" + std::to_string(column + 1) + ": " +
           std::string(message);
}

void check_body_error(std::string_view body, unsigned line, std::string_view needle, std::string_view message) {
    CAPTURE(body);
    CHECK(kernel_error(body) == at(body, line, needle, message));
}

} // namespace

TEST_CASE("ParseError derives from gpuarch::Error and exposes position and message") {
    try {
        (void)ptx::parse(kernel_text("bogus %r1;"), "x.ptx");
        FAIL("expected a ParseError");
    } catch (const Error& e) {
        const auto* pe = dynamic_cast<const ptx::ParseError*>(&e);
        REQUIRE(pe != nullptr);
        CHECK(pe->where().file == "x.ptx");
        CHECK(pe->where().line == 7);
        CHECK(pe->where().column == 1);
        CHECK(pe->message() == "unsupported instruction 'bogus'");
        CHECK(std::string(e.what()) == "x.ptx:7:1: unsupported instruction 'bogus'");
    }
}

TEST_CASE("unsupported instruction families are named with their reason") {
    const std::pair<const char*, const char*> cases[] = {
        {"wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r0}, [%rd1];",
         "tensor-core matrix instructions are not supported"},
        {"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f0}, {%r0}, {%r1}, {%f1};",
         "tensor-core matrix instructions are not supported"},
        {"ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r0, %r1, %r2, %r3}, [%r4];",
         "tensor-core matrix instructions are not supported"},
        {"tld4.r.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd1, {%f4, %f5}];",
         "texture gathers (tld4) are not supported; tex, suld.b and sust.b are"},
        {"txq.width.b32 %r1, [%rd1];", "texture queries (txq) are not supported; tex, suld.b and sust.b are"},
        {"suq.width.b32 %r1, [%rd1];", "surface queries (suq) are not supported; tex, suld.b and sust.b are"},
        {"sured.b.add.2d.u32.trap [%rd1, {%r1, %r2}], %r3;",
         "surface reductions (sured) are not supported; tex, suld.b and sust.b are"},
        {"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], %r2, [%r3];",
         "bulk asynchronous copies (cp.async.bulk, sm_90) are not supported"},
        {"cp.async.mbarrier.arrive.b64 [%rd1];", "asynchronous barriers (cp.async.mbarrier.arrive) are not supported"},
        {"cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%r1], 16;",
         "asynchronous copies are not supported"},
        {"elect.sync %r1|%p1, -1;", "elect.sync (sm_90) is not supported"},
        {"setmaxnreg.inc.sync.aligned.u32 64;", "setmaxnreg (sm_90) is not supported"},
        {"griddepcontrol.wait;", "programmatic dependent launch (griddepcontrol) is not supported"},
    };
    for (const auto& c : cases) {
        const char* line = c.first;
        const char* reason = c.second;
        const std::string body = std::string("  ") + line;
        const std::string opcode = std::string(line).substr(0, std::string(line).find(' '));
        std::string op = opcode.back() == ';' ? opcode.substr(0, opcode.size() - 1) : opcode;
        check_body_error(body, 1, op, "unsupported instruction '" + op + "': " + reason);
    }
}

TEST_CASE("tex, suld and sust forms outside the supported set are rejected at the cause") {
    const std::string v4 = "tex.grad.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd1, {%f4, %f5}], {%f6, %f7}, {%f8, %f9};";
    check_body_error(v4, 1, "grad", "tex.grad (explicit gradients) is not supported; tex and tex.level are");
    check_body_error("tex.cube.v4.f32.s32 {%f0, %f1, %f2, %f3}, [%rd1, {%r4, %r5, %r6, %r7}];", 1, "s32",
                     "expected the coordinate type .f32 (a cube map reads a direction), found .s32");
    check_body_error("tex.acube.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd1, {%f4, %f5, %f6, %f7}];", 1, "%f4",
                     "operand 3 of 'tex.acube.v4.f32.f32': register %f4 has type .f32, which does not fit .s32");
    check_body_error("suld.b.cube.b32.trap {%r1}, [%rd1, {%r2, %r3, %r4, %r5}];", 1, "cube",
                     ".cube is not a surface geometry (PTX ISA 9.0, Sec. 9.7.10.7)");
    check_body_error("tex.2dms.v4.f32.s32 {%f0, %f1, %f2, %f3}, [%rd1, {%r4, %r5, %r6, %r7}];", 1, "2dms",
                     "multisample textures (.2dms) are not supported");
    check_body_error("tex.2d.v2.f16x2.f32 {%r0, %r1}, [%rd1, {%f4, %f5}];", 1, "v2",
                     "tex.v2 (half-precision results) is not supported; tex.v4 is");
    check_body_error("tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd1, {%f4}];", 1, "{%f4}",
                     ".2d takes 2 coordinates, found 1");
    check_body_error("tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [t, {%f4, %f5}];", 1, "t, {", "undeclared register 't'");
    check_body_error("tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%r1, {%f4, %f5}];", 1, "%r1",
                     "operand 2 of 'tex.2d.v4.f32.f32': register %r1 has type .b32, which does not fit .b64");
    check_body_error("tex.2d.v4.f64.f32 {%f0, %f1, %f2, %f3}, [%rd1, {%f4, %f5}];", 1, "f64",
                     "expected a result type (.f32, .s32, .u32), found .f64");
    check_body_error("suld.p.2d.v4.b32.trap {%r0, %r1, %r2, %r3}, [%rd1, {%r4, %r5}];", 1, "p.2d",
                     "formatted surface access (suld.p) is not supported; suld.b is");
    check_body_error("suld.b.a2d.b32.trap {%r1}, [%rd1, {%r2, %r3, %r4, %r5}];", 1, "a2d",
                     "layered surfaces (.a2d) are not supported");
    check_body_error("suld.b.2d.v4.b64.trap {%rd1, %rd2, %rd3, %rd4}, [%rd5, {%r1, %r2}];", 1, "suld",
                     "'suld.b.2d.v4.b64.trap': .v4 with .b64 is not allowed (PTX ISA 9.0, Sec. 9.7.10.7)");
    check_body_error(
        "suld.b.2d.b32 {%r1}, [%rd1, {%r2, %r3}];", 1, "suld",
        "'suld.b.2d.b32' is incomplete: it needs .b, a geometry, an element type and .trap, .clamp or .zero");
    check_body_error("sust.b.2d.b32.wrap [%rd1, {%r2, %r3}], {%r1};", 1, "wrap",
                     "expected .trap, .clamp or .zero, found .wrap");
}

TEST_CASE("an unknown opcode is rejected at its position") {
    // vadd4 is a SIMD video instruction nvcc's intrinsics no longer emit (only vabsdiff4 is modelled).
    check_body_error("add.s32 %r1, %r2, %r3;\n\tvadd4.u32.u32.u32 %r1, %r2, %r3, %r4;", 2, "vadd4",
                     "unsupported instruction 'vadd4.u32.u32.u32'");
    check_body_error("frobnicate;", 1, "frobnicate", "unsupported instruction 'frobnicate'");
}

TEST_CASE("an unknown modifier is rejected at the modifier") {
    check_body_error("add.s32.foo %r1, %r2, %r3;", 1, "foo", "unsupported modifier '.foo' on 'add'");
    check_body_error("max.xorsign.abs.f32 %f1, %f2, %f3;", 1, "xorsign", "unsupported modifier '.xorsign' on 'max'");
    check_body_error("ld.global.L2::cache_hint.u32 %r1, [%rd1], %rd2;", 1, "L2::cache_hint",
                     "cache-policy operands (.L2::cache_hint) are not supported");
    check_body_error("cvt.rn.relu.f16.f32 %rs1, %f1;", 1, "relu", "unsupported modifier '.relu' on 'cvt'");
    check_body_error("add.s32.s32 %r1, %r2, %r3;", 1, "s32 %r1", "'add.s32.s32' has too many type modifiers");
}

TEST_CASE("byte, dot-product, redux and prefetch forms outside the PTX ISA's type rules are rejected at the cause") {
    check_body_error("dp4a.u32.f32 %r1, %r2, %r3, %r4;", 1, "f32", "type .f32 is not allowed for 'dp4a'");
    check_body_error("dp4a.u32.u32.u32 %r1, %r2, %r3, %r4;", 1, "u32 %r1",
                     "'dp4a.u32.u32.u32' has too many type modifiers");
    check_body_error("dp2a.u32.u32 %r1, %r2, %r3, %r4;", 1, "dp2a", "'dp2a.u32.u32': dp2a needs .lo or .hi");
    check_body_error("vabsdiff4.u32.u32.u32.sat.add %r1, %r2, %r3, %r4;", 1, "vabsdiff4",
                     "'vabsdiff4.u32.u32.u32.sat.add': .sat cannot be combined with .add");
    check_body_error(
        "vabsdiff4.u32.u32.u32 %r1.b10, %r2, %r3, %r4;", 1, "%r1.b10",
        "byte selectors and masks on vabsdiff4 operands ('%r1.b10') are not supported; nvcc's __vabsdiff*4 "
        "and __vsad*4 use the defaults");
    check_body_error("sad.u8 %r1, %r2, %r3, %r4;", 1, "u8", "type .u8 is not allowed for 'sad'");
    check_body_error("redux.add.u32 %r1, %r2, -1;", 1, "redux", "'redux.add.u32': needs .sync (redux.sync)");
    check_body_error("redux.sync.and.u32 %r1, %r2, -1;", 1, "u32", "type .u32 is not allowed for 'redux'");
    check_body_error("redux.sync.inc.u32 %r1, %r2, -1;", 1, "redux",
                     "'redux.sync.inc.u32': needs .add, .min, .max, .and, .or or .xor");
    check_body_error("redux.sync.min.f32 %f1, %f2, -1;", 1, "f32", "redux.sync on .f32 (sm_100a) is not supported");
    check_body_error("redux.sync.min.abs.f32 %f1, %f2, -1;", 1, "abs",
                     "'.abs' belongs to redux.sync on .f32 (sm_100a), which is not supported");
    check_body_error("prefetch.shared.L1 [%r1];", 1, "prefetch",
                     "'prefetch.shared.L1': prefetch takes .global, .local or no state space (generic)");
    check_body_error("prefetch.global [%rd1];", 1, "prefetch", "'prefetch.global': needs a cache level (.L1 or .L2)");
    check_body_error("prefetch.local.L2::evict_last [%rd1];", 1, "prefetch",
                     "'prefetch.local.L2::evict_last': an L2 eviction priority needs prefetch.global");
    check_body_error("prefetchu.L2 [%rd1];", 1, "prefetchu", "'prefetchu.L2': prefetchu needs .L1");
    check_body_error("prefetchu.global.L1 [%rd1];", 1, "prefetchu",
                     "'prefetchu.global.L1': prefetchu takes a generic address and no state space");
    check_body_error("prefetch.const.tensormap [%rd1];", 1, "tensormap", "prefetch.tensormap (sm_90) is not supported");
    check_body_error("prefetch.global.L1 %rd1;", 1, "%rd1",
                     "operand 1 of 'prefetch.global.L1' must be an address [...]");
}

TEST_CASE("undeclared names: registers, labels, variables, special registers") {
    check_body_error("add.s32 %r1, %r99, 1;", 1, "%r99", "undeclared register '%r99'");
    check_body_error("add.s32 %r99, %r1, 1;", 1, "%r99", "undeclared register '%r99'");
    check_body_error("bra NOWHERE;", 1, "NOWHERE", "unknown label 'NOWHERE'");
    check_body_error("ld.global.u32 %r1, [nothing];", 1, "nothing", "undeclared variable 'nothing'");
    check_body_error("mov.u64 %rd1, nothing;", 1, "nothing", "undeclared identifier 'nothing'");
    check_body_error("mov.u32 %r1, %envreg3;", 1, "%envreg3",
                     "unsupported special register '%envreg3': its value is driver-defined; only %envreg1 and %envreg2 "
                     "(the cooperative-groups grid workspace) are modelled");
    check_body_error("mov.u32 %r1, %tid;", 1, "%tid", "special register %tid needs a component (.x, .y or .z)");
}

TEST_CASE("operand counts are checked") {
    check_body_error("add.s32 %r1, %r2;", 1, "add", "'add.s32' expects 3 operands, found 2");
    check_body_error("add.s32 %r1, %r2, %r3, %r4;", 1, "%r4", "'add.s32' expects 3 operands, found 4");
    check_body_error("ret %r1;", 1, "%r1", "'ret' expects 0 operands, found 1");
    check_body_error("atom.global.cas.b32 %r1, [%rd1], %r2;", 1, "atom",
                     "'atom.global.cas.b32' expects 4 operands, found 3");
}

TEST_CASE("register types must fit the instruction type") {
    check_body_error("add.f32 %f1, %rd1, %f2;", 1, "%rd1",
                     "operand 2 of 'add.f32': register %rd1 has type .b64, which does not fit .f32");
    check_body_error("add.s32 %r1, %f1, 1;", 1, "%f1",
                     "operand 2 of 'add.s32': register %f1 has type .f32, which does not fit .s32");
    check_body_error("setp.eq.s32 %r1, %r2, %r3;", 1, "%r1",
                     "operand 1 of 'setp.eq.s32': register %r1 has type .b32, which does not fit .pred");
    check_body_error("mul.wide.s32 %r1, %r2, %r3;", 1, "%r1",
                     "operand 1 of 'mul.wide.s32': register %r1 has type .b32, which does not fit .s64");
    check_body_error("ld.global.f32 %fd1, [%rd1];", 1, "%fd1",
                     "operand 1 of 'ld.global.f32': register %fd1 has type .f64, which does not fit .f32");
    check_body_error("@%r1 bra L;\nL: ret;", 1, "%r1", "guard '%r1' is not a .pred register");
    check_body_error("mov.u32 %r1, %clock64;", 1, "%clock64",
                     "operand 2 of 'mov.u32': special register %clock64 is 64-bit and does not fit .u32");
    check_body_error("add.s32 %r1, %r2, 0x100000000;", 1, "0x100000000",
                     "operand 3 of 'add.s32': constant 0x100000000 does not fit .s32");
    check_body_error("ld.global.u32 %r1, [%f1];", 1, "%f1",
                     "operand 2 of 'ld.global.u32': address register %f1 must be a 32- or 64-bit integer");
}

TEST_CASE("modifier combinations PTX forbids") {
    check_body_error("fma.f32 %f1, %f2, %f3, %f4;", 1, "fma",
                     "'fma.f32': fma needs a rounding modifier (.rn, .rz, .rm or .rp)");
    check_body_error(
        "cvt.s32.f32 %r1, %f1;", 1, "cvt",
        "'cvt.s32.f32': a float-to-integer conversion needs an integer rounding modifier (.rni, .rzi, .rmi, .rpi)");
    check_body_error("cvt.rn.f64.f32 %fd1, %f1;", 1, "cvt",
                     "'cvt.rn.f64.f32': a widening float conversion takes no rounding modifier");
    check_body_error("mul.s32 %r1, %r2, %r3;", 1, "mul", "'mul.s32': integer mul needs .lo, .hi or .wide");
    check_body_error("add.cc.f32 %f1, %f2, %f3;", 1, "add", "'add.cc.f32': .cc needs a 32- or 64-bit integer type");
    check_body_error("st.const.u32 [%rd1], 1;", 1, "st", "'st.const.u32': cannot store to the .const space");
    check_body_error("shfl.down.b32 %r1, %r2, 1, 31;", 1, "shfl",
                     "'shfl.down.b32': shfl without .sync is not supported (deprecated since PTX 6.0); use shfl.sync");
    check_body_error("popc.b16 %r1, %rs1;", 1, "b16", "type .b16 is not allowed for 'popc'");
    check_body_error("setp.lo.f32 %p1, %f1, %f2;", 1, "setp",
                     "'setp.lo.f32': unsigned comparisons need an integer type");
    check_body_error("ld.relaxed.global.u32 %r1, [%rd1];", 1, "ld",
                     "'ld.relaxed.global.u32': .relaxed/.acquire/.release need a scope and only they take one");
    check_body_error("ld.shared.u32 %r1, [k_p0];", 1, "k_p0",
                     "operand 2 of 'ld.shared.u32': 'k_p0' is in the .param space, not .shared");
    check_body_error("st.param.u64 [k_p0], %rd1;", 1, "k_p0",
                     "operand 1 of 'st.param.u64': kernel parameters are read-only");
}

TEST_CASE("syntax errors: missing semicolon, bad characters, bad literals, unterminated input") {
    check_body_error("add.s32 %r1, %r2, %r3\nret;", 2, "ret",
                     "expected ',' or ';' after an operand of 'add.s32', found 'ret'");
    check_body_error("add.s32 %r1, %r2, #;", 1, "#", "unexpected character '#'");
    check_body_error("mov.f32 %f1, 0f3F80;", 1, "0f3F80", "a 0f floating-point literal needs exactly 8 hex digits");
    check_body_error("mov.u32 %r1, 12abc;", 1, "12abc", "malformed number '12a'");
    check_body_error("/* never closed", 1, "/*", "unterminated /* comment");
    CHECK(parse_error_of(".version 9.0\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\nret;\n") ==
          "test.ptx:7:1: unexpected end of input inside the body of 'k'");
    CHECK(parse_error_of(".target sm_75\n") == "test.ptx:2:1: missing .version directive");
    CHECK(parse_error_of(".version 9.0\n.target sm_75\n.address_size 48\n") ==
          "test.ptx:3:15: .address_size must be 32 or 64, found 48");
    CHECK(parse_error_of(".version 9.0\n.target sm_75\n.frobnicate\n") ==
          "test.ptx:3:1: unknown or unsupported directive '.frobnicate'");
}

TEST_CASE("declarations: duplicates, textures, address-of initializers, vector registers") {
    check_body_error("L1:\nL1:\nret;", 2, "L1", "duplicate label 'L1'");
    check_body_error(".reg .b32 %r3;", 1, "%r3", "redeclaration of register '%r3' in the same scope");
    check_body_error(".reg .v4 .b32 %v;", 1, ".v4", "vector registers (.reg .v4) are not supported");
    const std::string prefix = ".version 9.0\n.target sm_75\n.address_size 64\n";
    CHECK(
        parse_error_of(prefix + ".global .u32 g;\n.global .u64 p = g;\n") ==
        "test.ptx:5:18: address-of initializers ('g' in the initializer of 'p') are only supported for function names "
        "(function pointers)");
    CHECK(
        parse_error_of(prefix + ".global .u64 p = generic(g);\n") ==
        "test.ptx:4:18: address-of initializers ('generic' in the initializer of 'p') are only supported for function "
        "names (function pointers)");
    CHECK(parse_error_of(prefix + ".global .texref tex0;\n") ==
          "test.ptx:4:9: texture and surface declarations (.texref) are not supported");
    CHECK(parse_error_of(prefix + ".tex .u32 t;\n") ==
          "test.ptx:4:1: texture and surface declarations (.tex) are not supported");
    CHECK(parse_error_of(prefix + ".global .u32 g;\n.global .u32 g;\n") == "test.ptx:5:14: redeclaration of 'g'");
    CHECK(parse_error_of(prefix + ".global .u8 a[2] = {1, 2, 3};\n") ==
          "test.ptx:4:13: too many initializers for 'a' (3 for 2 elements)");
    CHECK(parse_error_of(prefix + ".extern .global .u32 e;\n") ==
          "test.ptx:4:22: external variable 'e' is defined in another module (separate compilation and linking are not "
          "supported)");
}

TEST_CASE("calls to functions without a body and indirect calls are rejected at the call") {
    const std::string text = ".version 9.0\n.target sm_75\n.address_size 64\n"
                             ".extern .func (.param .b64 func_retval0) external_helper(.param .b64 a);\n"
                             ".visible .entry k()\n{\n"
                             "\t{\n\t.param .b64 p0;\n\t.param .b64 r;\n"
                             "\tcall.uni (r), external_helper, (p0);\n"
                             "\t}\n\tret;\n}\n";
    CHECK(parse_error_of(text) ==
          "test.ptx:10:2: call to 'external_helper', which has no body in this module (of the external device "
          "functions only vprintf, __assertfail, malloc and free are supported)");
    // malloc returning 32 bits is not the device runtime's malloc (void* malloc(size_t) on a 64-bit target).
    const std::string narrow = ".version 9.0\n.target sm_75\n.address_size 64\n"
                               ".extern .func (.param .b32 func_retval0) malloc(.param .b64 a);\n"
                               ".visible .entry k()\n{\n"
                               "\t{\n\t.param .b64 p0;\n\t.param .b32 r;\n"
                               "\tcall.uni (r), malloc, (p0);\n"
                               "\t}\n\tret;\n}\n";
    CHECK(parse_error_of(narrow) ==
          "test.ptx:10:2: 'malloc' is declared with a signature the device runtime does not have (expected .extern "
          ".func (.param .b64 r) malloc(.param .b64), as nvcc emits for a 64-bit target)");
    // vprintf declared with a 32-bit format pointer is not the device runtime's vprintf.
    const std::string wrong = ".version 9.0\n.target sm_75\n.address_size 64\n"
                              ".extern .func (.param .b32 func_retval0) vprintf(.param .b32 a, .param .b64 b);\n"
                              ".visible .entry k()\n{\n"
                              "\t{\n\t.param .b32 p0;\n\t.param .b64 p1;\n\t.param .b32 r;\n"
                              "\tcall.uni (r), vprintf, (p0, p1);\n"
                              "\t}\n\tret;\n}\n";
    CHECK(parse_error_of(wrong) ==
          "test.ptx:11:2: 'vprintf' is declared with a signature the device runtime does not have (expected .extern "
          ".func (.param .b32 r) vprintf(.param .b64, .param .b64), as nvcc emits for a 64-bit target)");
    check_body_error("{ .param .b32 p; call %rd1, (p); }", 1, "; }",
                     "expected the call's .callprototype label, found ';'");
    check_body_error("{ .param .b32 p; call %rd1, (p), proto; }", 1, "proto",
                     "'proto' is not a .callprototype declared before this call in the function (.calltargets lists "
                     "are not supported)");
    check_body_error(
        "{ .param .b32 p; proto: .callprototype _ (.param .b32 _, .param .b32 _); call %rd1, (p), proto; }", 1,
        "proto;", "the indirect call passes 1 argument(s) and 0 return value(s); its prototype 'proto' has 2 and 0");
    check_body_error("{ .param .b32 p; proto: .callprototype _ (.param .b32 _); call %r1, (p), proto; }", 1, "%r1",
                     "an indirect call's target '%r1' must be a 64-bit integer register");
    check_body_error("{ .param .b32 p; call undefined_f, (p); }", 1, "undefined_f",
                     "call to undeclared function 'undefined_f'");
}

TEST_CASE("cp.async forms outside the PTX ISA's rules are rejected at the offending part") {
    check_body_error("cp.async.cg.shared.global [%r1], [%rd1], 4;", 1, "4;",
                     "cp.async.cg copies 16 bytes (cp-size 16)");
    check_body_error("cp.async.ca.shared.global [%r1], [%rd1], 12;", 1, "12",
                     "operand 3 of 'cp.async.ca.shared.global' (cp-size) must be 4, 8 or 16");
    check_body_error("cp.async.ca.shared.global [%r1], [%rd1], 8, 9;", 1, "9",
                     "operand 4 of 'cp.async.ca.shared.global' (src-size 9) exceeds cp-size 8");
    check_body_error("cp.async.ca.global [%r1], [%rd1], 8;", 1, "cp.async",
                     "'cp.async.ca.global' needs .shared.global (shared destination, global source)");
    check_body_error("cp.async.shared.global [%r1], [%rd1], 8;", 1, "cp.async",
                     "'cp.async.shared.global' needs .ca or .cg");
    check_body_error("cp.async.ca.shared.global.L2::cache_hint [%r1], [%rd1], 8, %rd2;", 1, "L2::cache_hint",
                     "cache-policy operands (.L2::cache_hint) are not supported");
    check_body_error("cp.async.ca.shared.global [%r1], [%rd1];", 1, "cp.async",
                     "'cp.async.ca.shared.global' expects 3 or 4 operands ([dst], [src], cp-size[, src-size or "
                     "ignore-src]), found 2");
    check_body_error("cp.async.wait_group %r1;", 1, "%r1",
                     "cp.async.wait_group takes an integer constant (the number of groups left pending)");
    check_body_error("cp.async.commit_group.sync;", 1, "sync;",
                     "unsupported modifier '.sync' on 'cp.async.commit_group'");
}
