// The PTX-like printer: canonical text round-trips through the parser; names of the vocabulary; layout of a
// module built in memory.
#include <doctest/doctest.h>

#include <string>

#include <gpuarch/ir/layout.hpp>
#include <gpuarch/ir/names.hpp>
#include <gpuarch/ir/printer.hpp>
#include <gpuarch/ptx/parser.hpp>

using namespace gpuarch;

namespace {

const std::string prefix = ".version 9.0\n.target sm_75\n.address_size 64\n"
                           ".global .align 4 .b8 table[64];\n"
                           ".visible .entry k(.param .u64 k_p0)\n{\n"
                           ".reg .pred %p<4>;\n.reg .b16 %rs<8>;\n.reg .b32 %r<8>;\n.reg .f32 %f<8>;\n"
                           ".reg .b64 %rd<4>;\n.reg .f64 %fd<4>;\n";

ir::Module module_of(const std::string& body) { return ptx::parse(prefix + body + "\n}\n", "p.ptx"); }

} // namespace

TEST_CASE("canonical instruction text prints back unchanged") {
    const char* lines[] = {
        "add.s32 %r1, %r2, -5;",
        "@!%p1 ld.global.nc.v4.f32 {%f1, %f2, _, %f4}, [%rd1+16];",
        "st.shared.u32 [%r1+-4], %r2;",
        "setp.lt.and.s32 %p1|%p2, %r1, %r2, !%p3;",
        "mov.b32 %f1, {0, %rs6};",
        "mov.b32 {%rs1, %rs2}, %r3;",
        "cvt.rzi.s32.f32 %r1, %f1;",
        "cvt.rn.f16x2.f32 %r1, %f1, %f2;",
        "atom.acq_rel.gpu.global.cas.b32 %r1, [%rd1], %r2, %r3;",
        "red.shared.add.u32 [%r1], 1;",
        "bar.red.popc.u32 %r1, 0, %p1;",
        "bar.red.and.pred %p1, 0, 128, !%p2;",
        "barrier.sync %r1;",
        "bar.sync 0;",
        "bar.arrive 1, 64;",
        "bar.warp.sync -1;",
        "membar.gl;",
        "fence.sc.cta;",
        "shfl.sync.down.b32 %r1|%p1, %r2, 1, 31, -1;",
        "vote.sync.ballot.b32 %r1, !%p1, -1;",
        "match.all.sync.b32 %r1|%p1, %r2, -1;",
        "shf.r.clamp.b32 %r1, %r2, %r3, %r4;",
        "prmt.b32.f4e %r1, %r2, %r3, %r4;",
        "mul.wide.s32 %rd1, %r1, 4;",
        "mad.lo.cc.u32 %r1, %r2, %r3, %r4;",
        "madc.hi.u32 %r1, %r2, %r3, %r4;",
        "div.approx.ftz.f32 %f1, %f2, %f3;",
        "div.full.f32 %f1, %f2, %f3;",
        "min.NaN.f32 %f1, %f2, %f3;",
        "bfind.shiftamt.u32 %r1, %r2;",
        "testp.finite.f64 %p1, %fd1;",
        "cvta.to.global.u64 %rd1, %rd2;",
        "cvta.global.u64 %rd1, table;",
        "mov.u64 %rd1, table+8;",
        "ld.global.u32 %r1, [table+4];",
        "ld.param.u64 %rd1, [k_p0];",
        "ld.shared.u32 %r1, [64];",
        "mov.u32 %r1, %tid.x;",
        "fma.rn.ftz.sat.f32 %f1, %f2, 0f3F800000, %f3;",
        "add.f64 %fd1, %fd2, 0d3FF0000000000000;",
        "ld.volatile.shared.u32 %r1, [%r2];",
        "ld.relaxed.gpu.global.u64 %rd1, [%rd2];",
        "st.release.sys.v2.u32 [%rd1], {%r1, %r2};",
        "exit;",
        "ret;",
        "nanosleep.u32 %r1;",
        "activemask.b32 %r1;",
        "selp.b32 %r1, 1, 0, %p1;",
        "set.gt.ftz.u32.f32 %r1, %f1, %f2;",
        "slct.s32.f32 %r1, %r2, %r3, %f1;",
        "rcp.rn.f64 %fd1, %fd2;",
        "sqrt.approx.f32 %f1, %f2;",
        "lop3.b32 %r1, %r2, %r3, %r4, 150;",
        "addc.cc.u32 %r1, %r2, %r3;",
        "mul24.hi.s32 %r1, %r2, %r3;",
        "cvt.sat.u8.s32 %rs1, %r1;",
        "tanh.approx.f32 %f1, %f2;",
        "not.pred %p1, %p2;",
        "abs.s64 %rd1, %rd2;",
        "dp4a.u32.s32 %r1, %r2, %r3, -7;",
        "dp2a.hi.s32.u32 %r1, %r2, %r3, %r4;",
        "vabsdiff4.u32.s32.u32.add %r1, %r2, %r3, %r4;",
        "vabsdiff4.s32.s32.s32.sat %r1, %r2, %r3, 0;",
        "sad.s64 %rd1, %rd2, %rd3, -5;",
        "redux.sync.xor.b32 %r1, %r2, -1;",
        "prefetch.global.L2::evict_normal [%rd1+128];",
        "prefetch.local.L1 [%rd1];",
        "prefetch.L2 [%rd1];",
        "prefetchu.L1 [%rd1];",
    };
    for (const std::string line : lines) {
        CAPTURE(line);
        const ir::Module m = module_of(line);
        const ir::Kernel& k = m.kernels.at(0);
        CHECK(ir::to_string(k.code.at(0), k, &m) == line);
    }
}

TEST_CASE("printing without the module names module symbols by index") {
    const ir::Module m = module_of("ld.global.u32 %r1, [table];");
    const ir::Kernel& k = m.kernels.at(0);
    CHECK(ir::to_string(k.code[0], k) == "ld.global.u32 %r1, [$global0];");
}

TEST_CASE("branch targets print as labels, unlabelled targets as $pc<N>") {
    const ir::Module m = module_of("@%p1 bra DONE;\nadd.s32 %r1, %r1, 1;\nDONE:\nret;");
    const ir::Kernel& k = m.kernels.at(0);
    CHECK(ir::to_string(k.code[0], k, &m) == "@%p1 bra DONE;");
    ir::Instruction copy = k.code[0];
    copy.operands[0].target = 1;
    CHECK(ir::to_string(copy, k, &m) == "@%p1 bra $pc1;");
    const std::string text = ir::to_string(k, &m);
    CHECK(text == ".entry k\n{\n\t/*0*/ @%p1 bra DONE;\n\t/*1*/ add.s32 %r1, %r1, 1;\nDONE:\n\t/*2*/ ret;\n}\n");
}

TEST_CASE("names use PTX spellings") {
    CHECK(ir::name(ir::Opcode::and_) == "and");
    CHECK(ir::name(ir::Opcode::bar_warp_sync) == "bar.warp.sync");
    CHECK(ir::name(ir::ScalarType::bf16x2) == "bf16x2");
    CHECK(ir::name(ir::StateSpace::constant) == "const");
    CHECK(ir::name(ir::MemOrder::volatile_) == "volatile");
    CHECK(ir::name(ir::BarrierMode::red_popc) == "red.popc");
    CHECK(ir::name(ir::SpecialReg::lanemask_ge) == "%lanemask_ge");
    CHECK(ir::name(ir::OpClass::atomic_shared) == "atomic_shared");
    CHECK(ir::name(ir::Rounding::none).empty());
    CHECK(ir::size_bytes(ir::SpecialReg::clock64) == 8);
    CHECK(ir::size_bytes(ir::SpecialReg::tid_x) == 4);
}

TEST_CASE("layout of a module built in memory: segments, alignment, per-thread storage, parameters") {
    ir::Module m;
    const auto sym = [](std::string name, ir::StateSpace space, std::uint64_t bytes, std::uint32_t align) {
        ir::Symbol s;
        s.name = std::move(name);
        s.space = space;
        s.type = ir::ScalarType::b8;
        s.element_count = bytes;
        s.size_bytes = bytes;
        s.alignment = align;
        return s;
    };
    m.globals.push_back(sym("g1", ir::StateSpace::global, 3, 1));
    m.globals.push_back(sym("g2", ir::StateSpace::global, 8, 8));
    m.globals.push_back(sym("c1", ir::StateSpace::constant, 5, 4));
    m.globals.push_back(sym("s1", ir::StateSpace::shared, 6, 2));
    ir::Symbol dyn = sym("dyn", ir::StateSpace::shared, 0, 32);
    dyn.element_count = 0;
    dyn.is_extern = true;
    m.globals.push_back(dyn);
    ir::Kernel k;
    k.name = "k";
    k.symbols.push_back(sym("ks", ir::StateSpace::shared, 10, 4));
    k.symbols.push_back(sym("loc", ir::StateSpace::local, 12, 4));
    k.symbols.push_back(sym("arg", ir::StateSpace::param, 8, 8));
    ir::Param p1{"a", ir::ScalarType::u32, 4, 4, 0, false};
    ir::Param p2{"b", ir::ScalarType::u64, 8, 8, 0, true};
    k.params = {p1, p2};
    m.kernels.push_back(k);
    ir::assign_layout(m);
    CHECK(m.globals[0].offset == 0);
    CHECK(m.globals[1].offset == 8);
    CHECK(m.global_bytes == 16);
    CHECK(m.globals[2].offset == 0);
    CHECK(m.const_bytes == 5);
    CHECK(m.globals[3].offset == 0);
    CHECK(m.shared_bytes == 6);
    const ir::Kernel& out = m.kernels[0];
    CHECK(out.symbols[0].offset == 8);
    CHECK(out.shared_bytes == 18);
    CHECK(out.dynamic_shared_offset == 32);
    CHECK(out.symbols[1].offset == 0);
    CHECK(out.symbols[2].offset == 16);
    CHECK(out.local_bytes == 24);
    CHECK(out.params[1].offset == 8);
    CHECK(out.param_bytes == 16);
    ir::Module again = m;
    ir::assign_layout(again);
    CHECK(again.kernels[0].local_bytes == 24);
    CHECK(again.globals[1].offset == 8);
}
