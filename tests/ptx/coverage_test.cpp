// The opcode-form coverage check (issue 20): every instruction form the support matrix claims, from the PTX ISA's
// sm_75 and sm_80 instruction tables, is written out here (a compact template per family), parsed on its own,
// printed and parsed back to the same text; docs/ptx.md's "Opcode forms" table is generated from this list and the
// test fails when the table in the document differs. GPUARCH_WRITE_FORMS=<file> writes every form, one kernel, to
// <file> for ptxas (tests/ptx/check_forms_ptxas.sh runs ptxas -arch=sm_80 on it where ptxas is installed);
// GPUARCH_WRITE_DOCS=1 rewrites the table in docs/ptx.md.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gpuarch/ir/printer.hpp>

#include "ptx_test_support.hpp"

#ifndef GPUARCH_KERNELS_DIR
#define GPUARCH_KERNELS_DIR "kernels"
#endif

using namespace gpuarch;
using namespace gpuarch::test;

namespace {

// One row of the matrix: the construct, its forms as templates (`<a/b/c>` expands to each alternative; several
// groups multiply), and the test that executes them with real values.
struct Family {
    const char* construct;
    std::vector<const char*> templates;
    const char* proved_by;
};

const std::vector<Family>& families() {
    static const std::vector<Family> table = {
        {"integer add, sub, carries",
         {"<add/sub>.<u16/s16> %rs1, %rs2, %rs3;", "<add/sub>.<u32/s32> %r1, %r2, %r3;",
          "<add/sub>.<u64/s64> %rd1, %rd2, %rd3;", "<add/sub>.sat.s32 %r1, %r2, %r3;",
          "<add/sub>.cc.<u32/s32> %r1, %r2, %r3;", "<add/sub>.cc.<u64/s64> %rd1, %rd2, %rd3;",
          "<addc/subc>.<u32/s32> %r1, %r2, %r3;", "<addc/subc>.cc.<u64/s64> %rd1, %rd2, %rd3;"},
         "tests/func/integer_test.cpp"},
        {"integer mul, mad, mul24, mad24, madc",
         {"mul.<lo/hi>.<u16/s16> %rs1, %rs2, %rs3;", "mul.<lo/hi>.<u32/s32> %r1, %r2, %r3;",
          "mul.<lo/hi>.<u64/s64> %rd1, %rd2, %rd3;", "mul.wide.<u32/s32> %rd1, %r2, %r3;",
          "mad.<lo/hi>.<u32/s32> %r1, %r2, %r3, %r4;", "mad.wide.<u32/s32> %rd1, %r2, %r3, %rd4;",
          "mad.hi.sat.s32 %r1, %r2, %r3, %r4;", "mul24.<lo/hi>.<u32/s32> %r1, %r2, %r3;",
          "mad24.<lo/hi>.<u32/s32> %r1, %r2, %r3, %r4;", "madc.<lo/hi>.<u32/s32> %r1, %r2, %r3, %r4;"},
         "tests/func/integer_test.cpp"},
        {"integer div, rem, abs, neg, min, max",
         {"<div/rem>.<u32/s32> %r1, %r2, %r3;", "<div/rem>.<u64/s64> %rd1, %rd2, %rd3;", "<abs/neg>.<s16> %rs1, %rs2;",
          "<abs/neg>.s32 %r1, %r2;", "<abs/neg>.s64 %rd1, %rd2;", "<min/max>.<u32/s32> %r1, %r2, %r3;",
          "<min/max>.<u64/s64> %rd1, %rd2, %rd3;"},
         "tests/func/integer_test.cpp"},
        {"sad",
         {"sad.<u16/s16> %rs1, %rs2, %rs3, %rs4;", "sad.<u32/s32> %r1, %r2, %r3, %r4;",
          "sad.<u64/s64> %rd1, %rd2, %rd3, %rd4;"},
         "tests/func/features_test.cpp (byte_dot)"},
        {"dp4a, dp2a",
         {"dp4a.<u32/s32>.<u32/s32> %r1, %r2, %r3, %r4;", "dp2a.<lo/hi>.<u32/s32>.<u32/s32> %r1, %r2, %r3, %r4;"},
         "tests/func/features_test.cpp (byte_dot)"},
        {"vabsdiff4",
         {"vabsdiff4.<u32/s32>.<u32/s32>.<u32/s32> %r1, %r2, %r3, %r4;",
          "vabsdiff4.<u32/s32>.<u32/s32>.<u32/s32>.sat %r1, %r2, %r3, %r4;",
          "vabsdiff4.<u32/s32>.<u32/s32>.<u32/s32>.add %r1, %r2, %r3, %r4;"},
         "tests/func/features_test.cpp (byte_dot)"},
        {"bits and logic",
         {"<popc/clz/brev>.b32 %r1, %r2;", "<popc/clz>.b64 %r1, %rd2;", "brev.b64 %rd1, %rd2;",
          "bfe.<u32/s32> %r1, %r2, %r3, %r4;", "bfe.<u64/s64> %rd1, %rd2, %r3, %r4;",
          "bfi.b32 %r1, %r2, %r3, %r4, %r5;", "bfind<./.shiftamt.><u32/s32> %r1, %r2;", "prmt.b32 %r1, %r2, %r3, %r4;",
          "prmt.b32.<f4e/b4e/rc8/ecl/ecr/rc16> %r1, %r2, %r3, %r4;", "lop3.b32 %r1, %r2, %r3, %r4, 150;",
          "shf.<l/r>.<wrap/clamp>.b32 %r1, %r2, %r3, %r4;", "<and/or/xor>.<pred> %p1, %p2, %p3;",
          "<and/or/xor>.<b16> %rs1, %rs2, %rs3;", "<and/or/xor>.b32 %r1, %r2, %r3;", "<not/cnot>.b32 %r1, %r2;",
          "shl.<b32> %r1, %r2, %r3;", "shr.<u32/s32/b32> %r1, %r2, %r3;", "shr.<u64/s64> %rd1, %rd2, %r3;"},
         "tests/func/integer_test.cpp"},
        {"compare and select",
         {"setp.<eq/ne/lt/le/gt/ge>.s32 %p1, %r1, %r2;", "setp.<lo/ls/hi/hs>.u32 %p1, %r1, %r2;",
          "setp.<eq/ne/lt/le/gt/ge/equ/neu/ltu/leu/gtu/geu/num/nan>.f32 %p1, %f1, %f2;",
          "setp.<eq/lt>.<and/or/xor>.f64 %p1|%p2, %fd1, %fd2, !%p3;", "selp.<b32/u32/s32/f32> %r1, %r2, %r3, %p1;",
          "set.<eq/gt>.<u32/s32>.f32 %r1, %f1, %f2;", "slct.<u32/s32>.s32 %r1, %r2, %r3, %r4;"},
         "tests/func/integer_test.cpp, float_test.cpp"},
        {"fp32 and fp64 arithmetic",
         {"<add/sub/mul>.<rn/rz/rm/rp>.f32 %f1, %f2, %f3;", "<add/sub/mul>.<rn/rz/rm/rp>.f64 %fd1, %fd2, %fd3;",
          "fma.<rn/rz/rm/rp>.f32 %f1, %f2, %f3, %f4;", "fma.<rn/rz/rm/rp>.f64 %fd1, %fd2, %fd3, %fd4;",
          "div.<approx/full/rn>.f32 %f1, %f2, %f3;", "div.<rn/rz/rm/rp>.f64 %fd1, %fd2, %fd3;",
          "<min/max>.<f32> %f1, %f2, %f3;", "<min/max>.NaN.f32 %f1, %f2, %f3;", "<abs/neg>.<f32> %f1, %f2;",
          "<abs/neg>.f64 %fd1, %fd2;", "copysign.f32 %f1, %f2, %f3;",
          "testp.<finite/infinite/number/notanumber/normal/subnormal>.f32 %p1, %f1;"},
         "tests/func/float_test.cpp"},
        {"special functions",
         {"<rcp/sqrt>.<approx/rn/rz/rm/rp>.f32 %f1, %f2;", "<rcp/sqrt>.<rn/rz/rm/rp>.f64 %fd1, %fd2;",
          "rcp.approx.ftz.f64 %fd1, %fd2;", "rsqrt.approx<./.ftz.>f32 %f1, %f2;",
          "rsqrt.approx<./.ftz.>f64 %fd1, %fd2;", "<sin/cos/lg2/ex2/tanh>.approx.f32 %f1, %f2;"},
         "tests/func/float_test.cpp"},
        {"conversion and move",
         {"cvt.<rni/rzi/rmi/rpi>.<s32/u32>.f32 %r1, %f1;", "cvt.<rn/rz/rm/rp>.f32.<s32/u32> %f1, %r1;",
          "cvt.<rn/rz/rm/rp>.f32.f64 %f1, %fd1;", "cvt.f64.f32 %fd1, %f1;", "cvt.<u64/s64>.<u32/s32> %rd1, %r1;",
          "cvt.rn.f16.f32 %h1, %f1;", "cvt.f32.f16 %f1, %h1;",
          "cvta.to.<global/shared/local/const/param>.u64 %rd1, %rd2;",
          "cvta.<global/shared/local/const/param>.u64 %rd1, %rd2;", "mov.<b32/u32/s32/f32> %r1, %r2;",
          "mov.u32 %r1, %tid.<x/y/z>;", "mov.b64 %rd1, {%r1, %r2};"},
         "tests/func/integer_test.cpp, float_test.cpp"},
        {"half precision",
         {"<add/sub/mul>.<f16> %h1, %h2, %h3;", "<add/sub/mul>.f16x2 %hh1, %hh0, %hh1;",
          "fma.rn.<f16> %h1, %h2, %h3, %h0;"},
         "tests/func/float_test.cpp"},
        {"ld, st",
         {"ld.<global/shared/local/const>.<u8/s8/u16/s16/b16/u32/s32/b32/f32> %r1, [%rd1];",
          "ld.<global/shared/local/const>.<u64/b64/f64> %rd1, [%rd2+8];", "ld.global.v2.<u32/f32> {%r1, %r2}, [%rd1];",
          "ld.<global/shared>.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1];", "ld.global.nc.f32 %f1, [%rd1];",
          "ld.<volatile/relaxed.gpu/acquire.gpu>.global.u32 %r1, [%rd1];", "ld.u32 %r1, [%rd1];",
          "ld.param.u64 %rd1, [k_p0];", "st.<global/shared/local>.<u8/u16/u32/b32> [%rd1], %r1;",
          "st.<global/shared/local>.u64 [%rd1+16], %rd2;", "st.global.v4.f32 [%rd1], {%f1, %f2, %f3, %f4};",
          "st.<volatile/relaxed.sys/release.cta>.global.u32 [%rd1], %r1;", "st.u32 [%rd1], %r1;"},
         "tests/func/memory_test.cpp"},
        {"atom, red",
         {"atom.<global/shared>.<add/min/max>.<u32/s32> %r1, [%rd1], %r2;",
          "atom.global.<inc/dec>.u32 %r1, [%rd1], %r2;", "atom.global.<and/or/xor/exch>.b32 %r1, [%rd1], %r2;",
          "atom.global.cas.<b32> %r1, [%rd1], %r2, %r3;", "atom.global.cas.b64 %rd1, [%rd2], %rd3, %rd4;",
          "atom.global.add.<f32> %f1, [%rd1], %f2;", "atom.global.add.f64 %fd1, [%rd1], %fd2;",
          "atom.<relaxed/acquire/release/acq_rel>.gpu.global.add.u32 %r1, [%rd1], %r2;",
          "red.<global/shared>.<add/min/max>.<u32/s32> [%rd1], %r1;", "red.global.<and/or/xor>.b64 [%rd1], %rd2;"},
         "tests/func/memory_test.cpp"},
        {"prefetch, prefetchu",
         {"prefetch.<global./local./>L1 [%rd1];", "prefetch.<global./local./>L2 [%rd1];",
          "prefetch.global.L2::<evict_last/evict_normal> [%rd1];", "prefetchu.L1 [%rd1];"},
         "tests/func/features_test.cpp (prefetch), features_timing_test.cpp"},
        {"tex through texture objects",
         {"tex.<1d>.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5}];",
          "tex.1d.v4.<s32/u32>.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f5}];",
          "tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r5}];",
          "tex.1d.v4.<s32/u32>.s32 {%r1, %r2, %r3, %r4}, [%rd1, {%r5}];",
          "tex.2d.v4.f32.<f32> {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];",
          "tex.2d.v4.<s32/u32>.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f5, %f6}];",
          "tex.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r5, %r6}];",
          "tex.2d.v4.<s32/u32>.s32 {%r1, %r2, %r3, %r4}, [%rd1, {%r5, %r6}];",
          "tex.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f7, %f8}];",
          "tex.3d.v4.<s32/u32>.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f5, %f6, %f7, %f8}];",
          "tex.a1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%r5, %f6}];",
          "tex.a2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%r5, %f6, %f7, %f8}];",
          "tex.a2d.v4.<s32/u32>.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%r5, %f6, %f7, %f8}];",
          "tex.level.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5}], %f9;",
          "tex.level.2d.v4.<f32>.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}], %f9;",
          "tex.level.2d.v4.<s32/u32>.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f5, %f6}], %f9;",
          "tex.level.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f7, %f8}], %f9;",
          "tex.cube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f7, %f8}];",
          "tex.cube.v4.<s32/u32>.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f5, %f6, %f7, %f8}];",
          "tex.acube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%r5, %f6, %f7, %f8}];",
          "tex.level.cube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f7, %f8}], %f9;"},
         "tests/func/features_test.cpp (texture), features_timing_test.cpp, tests/cudart textures"},
        {"suld.b, sust.b through surface objects",
         {"suld.b.<1d>.<b8/b16>.<trap/clamp/zero> {%rs1}, [%rd1, {%r1}];",
          "suld.b.1d.b32.<trap/clamp/zero> {%r1}, [%rd1, {%r2}];",
          "suld.b.2d.<b32>.<trap/clamp/zero> {%r1}, [%rd1, {%r2, %r3}];",
          "suld.b.2d.b64.<trap/clamp/zero> {%rd1}, [%rd2, {%r2, %r3}];",
          "suld.b.2d.v2.<b8/b16>.trap {%rs1, %rs2}, [%rd1, {%r2, %r3}];",
          "suld.b.2d.v4.<b8/b16>.trap {%rs1, %rs2, %rs3, %rs4}, [%rd1, {%r2, %r3}];",
          "suld.b.2d.v2.b32.trap {%r1, %r2}, [%rd1, {%r5, %r6}];",
          "suld.b.2d.v4.b32.trap {%r1, %r2, %r3, %r4}, [%rd1, {%r5, %r6}];",
          "suld.b.2d.v2.b64.trap {%rd1, %rd2}, [%rd3, {%r5, %r6}];",
          "suld.b.3d.<b32>.<trap/clamp/zero> {%r1}, [%rd1, {%r2, %r3, %r4, %r5}];",
          "suld.b.3d.v4.b32.trap {%r1, %r2, %r3, %r4}, [%rd1, {%r5, %r6, %r7, %r8}];",
          "sust.b.<1d>.<b8/b16>.<trap/clamp/zero> [%rd1, {%r1}], {%rs1};",
          "sust.b.2d.<b32>.<trap/clamp/zero> [%rd1, {%r2, %r3}], {%r1};",
          "sust.b.2d.b64.<trap/clamp/zero> [%rd2, {%r2, %r3}], {%rd1};",
          "sust.b.2d.v4.<b8/b16>.trap [%rd1, {%r2, %r3}], {%rs1, %rs2, %rs3, %rs4};",
          "sust.b.2d.v4.b32.trap [%rd1, {%r5, %r6}], {%r1, %r2, %r3, %r4};",
          "sust.b.2d.v2.b64.trap [%rd3, {%r5, %r6}], {%rd1, %rd2};",
          "sust.b.3d.<b32>.<trap/clamp/zero> [%rd1, {%r2, %r3, %r4, %r5}], {%r1};",
          "sust.b.3d.v2.b32.trap [%rd1, {%r2, %r3, %r4, %r5}], {%r6, %r7};"},
         "tests/func/features_test.cpp (texture), features_timing_test.cpp, tests/cudart textures"},
        {"barriers and fences",
         {"bar.sync 0;", "bar.sync 1, 64;", "barrier.sync %r1;", "barrier.sync.aligned %r1;", "bar.arrive 1, 64;",
          "bar.red.popc.u32 %r1, 0, %p1;", "bar.red.<and/or>.pred %p1, 0, %p2;", "bar.warp.sync -1;",
          "membar.<cta/gl/sys>;", "fence.<sc/acq_rel>.<cta/gpu/sys>;"},
         "tests/func/sync_test.cpp"},
        {"warp level",
         {"shfl.sync.<up/down/bfly/idx>.b32 %r1|%p1, %r2, 1, 31, -1;", "vote.sync.<all/any/uni>.pred %p1, %p2, -1;",
          "vote.sync.ballot.b32 %r1, %p1, -1;", "match.any.sync.<b32> %r1, %r2, -1;",
          "match.all.sync.b64 %r1|%p1, %rd2, -1;", "activemask.b32 %r1;"},
         "tests/func/sync_test.cpp"},
        {"redux.sync",
         {"redux.sync.<add/min/max>.<u32/s32> %r1, %r2, -1;", "redux.sync.<and/or/xor>.b32 %r1, %r2, %r3;"},
         "tests/func/features_test.cpp (redux)"},
        {"control", {"ret;", "exit;", "nanosleep.u32 %r1;", "trap;"}, "tests/func/simt_test.cpp, features_test.cpp"},
        {"cooperative-groups grid workspace",
         {"mov.u32 %r1, <%envreg1/%envreg2>;"},
         "tests/func/features_test.cpp, features_timing_test.cpp (grid_sync)"},
        // issue 20: asynchronous copies (sm_80)
        {"cp.async",
         {"cp.async.ca.shared.global [%r1], [%rd1], <4/8/16>;",
          "cp.async.ca.shared<./::cta.>global [%r1+16], [%rd1+8], 8, <0/4/%r2/%p1/!%p1>;",
          "cp.async.cg.shared.global [%r1], [%rd1], 16<, 16/, %r2/, %p1>;",
          "cp.async.<ca/cg>.shared.global.L2::<64B/128B/256B> [%r1], [%rd1], 16;", "cp.async.commit_group;",
          "cp.async.wait_group <0/1/7>;", "cp.async.wait_all;"},
         "tests/func/features_test.cpp (cp_async), features_timing_test.cpp"},
    };
    return table;
}

// Every expansion of a template: each `<a/b/...>` group is replaced by each of its alternatives in turn.
void expand(const std::string& text, std::vector<std::string>& out) {
    const std::size_t open = text.find('<');
    if (open == std::string::npos) {
        out.push_back(text);
        return;
    }
    const std::size_t close = text.find('>', open);
    REQUIRE(close != std::string::npos);
    const std::string head = text.substr(0, open), tail = text.substr(close + 1);
    std::stringstream alternatives(text.substr(open + 1, close - open - 1));
    std::string alternative;
    while (std::getline(alternatives, alternative, '/')) expand(head + alternative + tail, out);
}

std::vector<std::string> forms_of(const Family& f) {
    std::vector<std::string> out;
    for (const char* t : f.templates) expand(t, out);
    return out;
}

// The generated table (docs/ptx.md, between the markers).
std::string forms_table() {
    std::string out = "| construct | templates (`<a/b>`: each alternative) | forms | functional tests of the family "
                      "|\n|---|---|---|---|\n";
    for (const Family& f : families()) {
        std::string templates;
        for (const char* t : f.templates) {
            std::string shown = t;
            shown = shown.substr(0, shown.find(' '));
            if (shown.back() == ';') shown.pop_back();
            templates += (templates.empty() ? "`" : ", `") + shown + "`";
        }
        out += "| " + std::string(f.construct) + " | " + templates + " | " + std::to_string(forms_of(f).size()) +
               " | " + f.proved_by + " |\n";
    }
    return out;
}

constexpr std::string_view begin_marker = "<!-- forms:begin (generated by tests/ptx/coverage_test.cpp) -->\n";
constexpr std::string_view end_marker = "<!-- forms:end -->";

} // namespace

TEST_CASE("every claimed opcode form parses on its own and prints back to its own text") {
    std::size_t total = 0;
    std::string all;
    for (const Family& f : families()) {
        for (const std::string& form : forms_of(f)) {
            CAPTURE(form);
            ++total;
            all += "\t" + form + "\n";
            const std::string error = kernel_error(form);
            CHECK(error == "");
            if (!error.empty()) continue;
            const ir::Module m = parse_kernel(form);
            const ir::Kernel& k = m.kernels.at(0);
            const std::string printed = ir::to_string(k.code.at(0), k, &m);
            CAPTURE(printed);
            const ir::Module again = parse_kernel(printed);
            CHECK(ir::to_string(again.kernels.at(0).code.at(0), again.kernels.at(0), &again) == printed);
        }
    }
    MESSAGE(total << " forms");
    if (const char* path = std::getenv("GPUARCH_WRITE_FORMS")) {
        // One sm_80 kernel holding every form (labels and declarations as kernel_text's), for ptxas.
        std::string text = kernel_text(all);
        text.replace(text.find("sm_75"), 5, "sm_80");
        std::ofstream(path) << text;
    }
}

TEST_CASE("docs/ptx.md's opcode-form table is the one generated from the checked forms") {
    const std::string path = std::string(GPUARCH_KERNELS_DIR) + "/../docs/ptx.md";
    std::ifstream in(path);
    REQUIRE(in);
    std::stringstream buffer;
    buffer << in.rdbuf();
    std::string doc = buffer.str();
    const std::size_t begin = doc.find(begin_marker);
    std::size_t end = doc.find(end_marker);
    REQUIRE_MESSAGE(begin != std::string::npos, "docs/ptx.md has no '" << begin_marker << "' marker");
    REQUIRE(end != std::string::npos);
    const std::size_t start = begin + begin_marker.size();
    const std::string generated = forms_table();
    if (std::getenv("GPUARCH_WRITE_DOCS") != nullptr) {
        doc.replace(start, end - start, generated);
        end = start + generated.size();
        std::ofstream(path) << doc;
    }
    CHECK_MESSAGE(doc.substr(start, end - start) == generated,
                  "docs/ptx.md's table differs from the forms in tests/ptx/coverage_test.cpp; regenerate it with "
                  "GPUARCH_WRITE_DOCS=1 build/default/tests/test_ptx -tc='docs/ptx.md*'");
}
