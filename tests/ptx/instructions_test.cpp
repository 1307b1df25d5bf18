// Operand mapping and modifier decoding of a representative instruction of every opcode.
#include <bit>
#include <string>

#include <gpuarch/ir/printer.hpp>

#include "ptx_test_support.hpp"

using namespace gpuarch;
using namespace gpuarch::test;
using ir::Opcode;
using ir::OperandKind;
using ir::ScalarType;

namespace {

void check_reg(const ir::Operand& op, ir::RegId reg) {
    CHECK(op.kind == OperandKind::reg);
    CHECK(op.reg == reg);
}
void check_imm(const ir::Operand& op, std::uint64_t bits, ir::ImmType type = ir::ImmType::integer) {
    CHECK(op.kind == OperandKind::imm);
    CHECK(op.imm_bits == bits);
    CHECK(op.imm_type == type);
}

} // namespace

TEST_CASE("integer add maps d, a, b and keeps an immediate sign-extended") {
    const auto i = first_instruction("add.s32 %r1, %r2, -5;");
    CHECK(i.op == Opcode::add);
    CHECK(i.type == ScalarType::s32);
    CHECK(i.num_operands == 3);
    check_reg(i.operands[0], R(1));
    check_reg(i.operands[1], R(2));
    check_imm(i.operands[2], static_cast<std::uint64_t>(-5));
    CHECK(i.line == kernel_first_body_line);
    CHECK(i.column == 1);
}

TEST_CASE("float add decodes rounding, ftz and sat") {
    const auto i = first_instruction("add.rz.ftz.sat.f32 %f1, %f2, %f3;");
    CHECK(i.rounding == ir::Rounding::rz);
    CHECK(i.ftz);
    CHECK(i.sat);
    CHECK(i.type == ScalarType::f32);
}

TEST_CASE("an integer literal in an f32 operand becomes f32 bits of its value") {
    const auto i = first_instruction("mul.f32 %f1, %f2, 3;");
    check_imm(i.operands[2], std::bit_cast<std::uint32_t>(3.0f), ir::ImmType::f32);
}

TEST_CASE("a decimal float literal in an f32 operand is rounded to f32") {
    const auto i = first_instruction("add.f32 %f1, %f2, 0.5;");
    check_imm(i.operands[2], std::bit_cast<std::uint32_t>(0.5f), ir::ImmType::f32);
}

TEST_CASE("an f32 hex literal in an f64 operand is widened by value") {
    const auto i = first_instruction("add.f64 %fd1, %fd2, 0f3F800000;");
    check_imm(i.operands[2], std::bit_cast<std::uint64_t>(1.0), ir::ImmType::f64);
}

TEST_CASE("an f32 hex literal in a b32 operand keeps its raw bits") {
    const auto i = first_instruction("mov.b32 %r1, 0f3F800000;");
    check_imm(i.operands[1], 0x3F800000u, ir::ImmType::f32);
}

TEST_CASE("integer literals: hex, octal, binary, U suffix") {
    check_imm(first_instruction("mov.u32 %r1, 0xFFFFFFFF;").operands[1], 0xFFFFFFFFu);
    check_imm(first_instruction("mov.u32 %r1, 017;").operands[1], 15);
    check_imm(first_instruction("mov.u32 %r1, 0b101;").operands[1], 5);
    check_imm(first_instruction("mov.u32 %r1, 42U;").operands[1], 42);
    check_imm(first_instruction("mov.u64 %rd1, -1;").operands[1], ~std::uint64_t{0});
}

TEST_CASE("add.cc and addc/subc/madc record carry-out and carry-in forms") {
    const auto a = first_instruction("add.cc.u32 %r1, %r2, %r3;");
    CHECK(a.op == Opcode::add);
    CHECK(a.carry_out);
    const auto b = first_instruction("addc.cc.u32 %r1, %r2, %r3;");
    CHECK(b.op == Opcode::addc);
    CHECK(b.carry_out);
    const auto c = first_instruction("subc.u32 %r1, %r2, %r3;");
    CHECK(c.op == Opcode::subc);
    CHECK(!c.carry_out);
    const auto d = first_instruction("madc.hi.cc.u32 %r1, %r2, %r3, %r4;");
    CHECK(d.op == Opcode::madc);
    CHECK(d.mul_mode == ir::MulMode::hi);
    CHECK(d.carry_out);
    CHECK(d.num_operands == 4);
    const auto e = first_instruction("sub.cc.u64 %rd1, %rd2, %rd3;");
    CHECK(e.op == Opcode::sub);
    CHECK(e.carry_out);
}

TEST_CASE("mul and mad: lo/hi/wide, wide destinations are double width") {
    const auto w = first_instruction("mul.wide.s32 %rd1, %r2, 4;");
    CHECK(w.op == Opcode::mul);
    CHECK(w.mul_mode == ir::MulMode::wide);
    check_reg(w.operands[0], RD(1));
    const auto hi = first_instruction("mul.hi.u64 %rd1, %rd2, %rd3;");
    CHECK(hi.mul_mode == ir::MulMode::hi);
    const auto mw = first_instruction("mad.wide.u32 %rd1, %r2, %r3, %rd4;");
    CHECK(mw.op == Opcode::mad);
    check_reg(mw.operands[3], RD(4));
    const auto ml = first_instruction("mad.lo.s32 %r1, %r2, %r3, %r4;");
    CHECK(ml.mul_mode == ir::MulMode::lo);
    const auto mf = first_instruction("mad.rn.f32 %f1, %f2, %f3, %f4;");
    CHECK(mf.rounding == ir::Rounding::rn);
    const auto m24 = first_instruction("mul24.lo.s32 %r1, %r2, %r3;");
    CHECK(m24.op == Opcode::mul24);
    const auto a24 = first_instruction("mad24.hi.u32 %r1, %r2, %r3, %r4;");
    CHECK(a24.op == Opcode::mad24);
    CHECK(a24.mul_mode == ir::MulMode::hi);
}

TEST_CASE("div/rem variants") {
    CHECK(first_instruction("div.s32 %r1, %r2, %r3;").type == ScalarType::s32);
    const auto ap = first_instruction("div.approx.ftz.f32 %f1, %f2, %f3;");
    CHECK(ap.approx);
    CHECK(ap.ftz);
    CHECK(first_instruction("div.full.f32 %f1, %f2, %f3;").full);
    CHECK(first_instruction("div.rn.f64 %fd1, %fd2, %fd3;").rounding == ir::Rounding::rn);
    CHECK(first_instruction("rem.u64 %rd1, %rd2, %rd3;").op == Opcode::rem);
}

TEST_CASE("unary arithmetic and min/max with .NaN") {
    CHECK(first_instruction("abs.s32 %r1, %r2;").op == Opcode::abs);
    CHECK(first_instruction("neg.f64 %fd1, %fd2;").op == Opcode::neg);
    const auto mn = first_instruction("min.NaN.f32 %f1, %f2, %f3;");
    CHECK(mn.op == Opcode::min);
    CHECK(mn.propagate_nan);
    const auto mx = first_instruction("max.ftz.f32 %f1, %f2, %f3;");
    CHECK(mx.ftz);
    CHECK(!mx.propagate_nan);
    CHECK(first_instruction("max.u64 %rd1, %rd2, %rd3;").type == ScalarType::u64);
    const auto f = first_instruction("fma.rm.f64 %fd1, %fd2, %fd3, %fd4;");
    CHECK(f.op == Opcode::fma);
    CHECK(f.rounding == ir::Rounding::rm);
}

TEST_CASE("bit instructions: popc clz brev bfe bfi bfind prmt lop3 shf") {
    const auto p = first_instruction("popc.b64 %r1, %rd2;");
    CHECK(p.op == Opcode::popc);
    check_reg(p.operands[0], R(1));
    check_reg(p.operands[1], RD(2));
    CHECK(first_instruction("clz.b32 %r1, %r2;").op == Opcode::clz);
    CHECK(first_instruction("brev.b64 %rd1, %rd2;").op == Opcode::brev);
    const auto e = first_instruction("bfe.s32 %r1, %r2, 8, %r3;");
    CHECK(e.num_operands == 4);
    check_imm(e.operands[2], 8);
    const auto b = first_instruction("bfi.b64 %rd1, %rd2, %rd3, 32, 32;");
    CHECK(b.num_operands == 5);
    check_reg(b.operands[1], RD(2));
    check_reg(b.operands[2], RD(3));
    const auto f = first_instruction("bfind.shiftamt.u32 %r1, %r2;");
    CHECK(f.shiftamt);
    const auto pr = first_instruction("prmt.b32.f4e %r1, %r2, %r3, %r4;");
    CHECK(pr.prmt == ir::PrmtMode::f4e);
    CHECK(first_instruction("prmt.b32 %r1, %r2, %r3, 0x3210;").prmt == ir::PrmtMode::none);
    const auto l = first_instruction("lop3.b32 %r1, %r2, %r3, %r4, 0x96;");
    CHECK(l.op == Opcode::lop3);
    check_imm(l.operands[4], 0x96);
    const auto s = first_instruction("shf.r.clamp.b32 %r1, %r2, %r3, %r4;");
    CHECK(s.op == Opcode::shf);
    CHECK(s.funnel_right);
    CHECK(s.clamp);
    CHECK(!s.approx); // the parser's internal markers are cleared
    CHECK(!s.full);
    const auto sl = first_instruction("shf.l.wrap.b32 %r1, %r2, %r3, 5;");
    CHECK(!sl.funnel_right);
    CHECK(!sl.clamp);
}

TEST_CASE("logic on predicates and bit types; shifts take a u32 amount") {
    const auto a = first_instruction("and.pred %p1, %p2, %p3;");
    CHECK(a.op == Opcode::and_);
    CHECK(a.type == ScalarType::pred);
    CHECK(first_instruction("or.b32 %r1, %r2, 0xff;").op == Opcode::or_);
    CHECK(first_instruction("xor.b64 %rd1, %rd2, %rd3;").op == Opcode::xor_);
    CHECK(first_instruction("not.pred %p1, %p2;").op == Opcode::not_);
    CHECK(first_instruction("cnot.b32 %r1, %r2;").op == Opcode::cnot);
    const auto sh = first_instruction("shl.b64 %rd1, %rd2, %r3;");
    check_reg(sh.operands[2], R(3));
    CHECK(first_instruction("shr.s32 %r1, %r2, 31;").type == ScalarType::s32);
}

TEST_CASE("setp: p|q destinations, boolean combination with a negated predicate") {
    const auto s = first_instruction("setp.lt.and.s32 %p1|%p2, %r1, %r2, !%p3;");
    CHECK(s.op == Opcode::setp);
    CHECK(s.cmp == ir::CompareOp::lt);
    CHECK(s.bool_op == ir::BoolOp::and_);
    CHECK(s.operands[0].reg == P(1));
    CHECK(s.operands[0].reg2 == P(2));
    CHECK(s.operands[3].reg == P(3));
    CHECK(s.operands[3].negated);
    const auto u = first_instruction("setp.geu.ftz.f32 %p1, %f1, 0f00000000;");
    CHECK(u.cmp == ir::CompareOp::geu);
    CHECK(u.ftz);
    CHECK(u.operands[0].reg2 == ir::no_reg);
    CHECK(first_instruction("setp.eq.b32 %p1, %r1, 1;").type == ScalarType::b32);
    CHECK(first_instruction("setp.hs.u64 %p1, %rd1, %rd2;").cmp == ir::CompareOp::hs);
}

TEST_CASE("selp, set and slct carry their two types") {
    const auto s = first_instruction("selp.f32 %f1, 0f3F800000, %f2, %p1;");
    CHECK(s.op == Opcode::selp);
    check_reg(s.operands[3], P(1));
    const auto t = first_instruction("set.gt.u32.f32 %r1, %f1, %f2;");
    CHECK(t.op == Opcode::set);
    CHECK(t.type == ScalarType::u32);
    CHECK(t.src_type == ScalarType::f32);
    const auto c = first_instruction("slct.s32.f32 %r1, %r2, %r3, %f4;");
    CHECK(c.op == Opcode::slct);
    CHECK(c.src_type == ScalarType::f32);
    check_reg(c.operands[3], F(4));
}

TEST_CASE("cvt: destination type first, source type second, rounding rules") {
    const auto a = first_instruction("cvt.rn.f32.s32 %f1, %r1;");
    CHECK(a.type == ScalarType::f32);
    CHECK(a.src_type == ScalarType::s32);
    CHECK(a.rounding == ir::Rounding::rn);
    CHECK(first_instruction("cvt.rzi.s32.f32 %r1, %f1;").rounding == ir::Rounding::rzi);
    CHECK(first_instruction("cvt.rni.f32.f32 %f1, %f2;").rounding == ir::Rounding::rni);
    CHECK(first_instruction("cvt.u64.u32 %rd1, %r1;").rounding == ir::Rounding::none);
    CHECK(first_instruction("cvt.f64.f32 %fd1, %f1;").type == ScalarType::f64);
    CHECK(first_instruction("cvt.sat.u8.s32 %rs1, %r1;").sat);
    // ld/st/cvt accept wider integer registers (PTX ISA 6.4.2.1)
    CHECK(first_instruction("cvt.u16.u32 %rs1, %r1;").type == ScalarType::u16);
    const auto h = first_instruction("cvt.rn.f16.f32 %rs1, %f1;");
    CHECK(h.type == ScalarType::f16);
    CHECK(first_instruction("cvt.f32.f16 %f1, %rs1;").src_type == ScalarType::f16);
    CHECK(first_instruction("cvt.rn.bf16.f32 %rs1, %f1;").type == ScalarType::bf16);
    const auto p = first_instruction("cvt.rn.f16x2.f32 %r1, %f1, %f2;");
    CHECK(p.num_operands == 3);
}

TEST_CASE("cvta: to/from a space, register or variable source") {
    const auto a = first_instruction("cvta.to.global.u64 %rd1, %rd2;");
    CHECK(a.op == Opcode::cvta);
    CHECK(a.to_space);
    CHECK(a.space == ir::StateSpace::global);
    const auto b = first_instruction("cvta.shared.u64 %rd1, %rd2;");
    CHECK(!b.to_space);
    CHECK(b.space == ir::StateSpace::shared);
    const auto c = first_instruction("cvta.global.u64 %rd1, g;", ".global .align 4 .u32 g;\n");
    CHECK(c.operands[1].kind == OperandKind::symbol);
    CHECK(c.operands[1].symbol_scope == ir::SymbolScope::module);
    CHECK(c.operands[1].symbol == 0);
}

TEST_CASE("mov: immediate, special register, variable address, packing and unpacking") {
    const auto s = first_instruction("mov.u32 %r1, %tid.y;");
    CHECK(s.operands[1].kind == OperandKind::special);
    CHECK(s.operands[1].special == ir::SpecialReg::tid_y);
    const auto c = first_instruction("mov.u64 %rd1, %clock64;");
    CHECK(c.operands[1].special == ir::SpecialReg::clock64);
    const auto v = first_instruction("mov.u64 %rd1, g+8;", ".global .align 8 .b8 g[16];\n");
    CHECK(v.operands[1].kind == OperandKind::symbol);
    CHECK(v.operands[1].offset == 8);
    const auto pack = first_instruction("mov.b64 %rd1, {%r1, %r2};");
    CHECK(pack.operands[1].kind == OperandKind::vector);
    CHECK(pack.operands[1].vector_count == 2);
    CHECK(pack.operands[1].vector[0] == R(1));
    CHECK(pack.operands[1].vector[1] == R(2));
    const auto unpack = first_instruction("mov.b32 {%rs1, %rs2}, %r3;");
    CHECK(unpack.operands[0].kind == OperandKind::vector);
    CHECK(unpack.operands[0].vector[1] == RS(2));
    const auto half = first_instruction("mov.b32 %f1, {0, %rs6};");
    CHECK(half.operands[1].vector_imm_mask == 1);
    CHECK(half.operands[1].vector[0] == ir::no_reg);
    CHECK(half.operands[1].vector[1] == RS(6));
    CHECK(half.operands[1].imm_bits == 0);
    const auto hi = first_instruction("mov.b32 %r1, {%rs1, 0x7fc0};");
    CHECK(hi.operands[1].vector_imm_mask == 2);
    CHECK(hi.operands[1].imm_bits == 0x7fc00000u);
    CHECK(first_instruction("mov.pred %p1, %p2;").type == ScalarType::pred);
}

TEST_CASE("every supported special register decodes") {
    const std::pair<const char*, ir::SpecialReg> cases[] = {
        {"%tid.x", ir::SpecialReg::tid_x},
        {"%ntid.z", ir::SpecialReg::ntid_z},
        {"%ctaid.y", ir::SpecialReg::ctaid_y},
        {"%nctaid.x", ir::SpecialReg::nctaid_x},
        {"%laneid", ir::SpecialReg::laneid},
        {"%warpid", ir::SpecialReg::warpid},
        {"%nwarpid", ir::SpecialReg::nwarpid},
        {"%smid", ir::SpecialReg::smid},
        {"%nsmid", ir::SpecialReg::nsmid},
        {"%lanemask_eq", ir::SpecialReg::lanemask_eq},
        {"%lanemask_lt", ir::SpecialReg::lanemask_lt},
        {"%lanemask_le", ir::SpecialReg::lanemask_le},
        {"%lanemask_gt", ir::SpecialReg::lanemask_gt},
        {"%lanemask_ge", ir::SpecialReg::lanemask_ge},
        {"%clock", ir::SpecialReg::clock},
        {"%clock_hi", ir::SpecialReg::clock_hi},
        {"%dynamic_smem_size", ir::SpecialReg::dynamic_smem_size},
        {"%total_smem_size", ir::SpecialReg::total_smem_size},
    };
    for (const auto& c : cases) {
        const char* name = c.first;
        const ir::SpecialReg reg = c.second;
        CAPTURE(name);
        const auto i = first_instruction(std::string("mov.u32 %r1, ") + name + ";");
        CHECK(i.operands[1].special == reg);
    }
    CHECK(first_instruction("mov.u64 %rd1, %globaltimer;").operands[1].special == ir::SpecialReg::globaltimer);
    CHECK(first_instruction("mov.u64 %rd1, %gridid;").operands[1].special == ir::SpecialReg::gridid);
}

TEST_CASE("special functions and float tests") {
    CHECK(first_instruction("rcp.rn.f32 %f1, %f2;").rounding == ir::Rounding::rn);
    CHECK(first_instruction("rcp.approx.ftz.f64 %fd1, %fd2;").approx);
    CHECK(first_instruction("sqrt.approx.f32 %f1, %f2;").op == Opcode::sqrt);
    CHECK(first_instruction("rsqrt.approx.f32 %f1, %f2;").op == Opcode::rsqrt);
    CHECK(first_instruction("sin.approx.ftz.f32 %f1, %f2;").op == Opcode::sin);
    CHECK(first_instruction("cos.approx.f32 %f1, %f2;").op == Opcode::cos);
    CHECK(first_instruction("lg2.approx.f32 %f1, %f2;").op == Opcode::lg2);
    CHECK(first_instruction("ex2.approx.ftz.f32 %f1, %f2;").op == Opcode::ex2);
    CHECK(first_instruction("tanh.approx.f32 %f1, %f2;").op == Opcode::tanh);
    CHECK(first_instruction("copysign.f32 %f1, %f2, %f3;").op == Opcode::copysign);
    const auto t = first_instruction("testp.notanumber.f64 %p1, %fd1;");
    CHECK(t.test == ir::TestKind::notanumber);
    check_reg(t.operands[0], P(1));
}

TEST_CASE("half-precision arithmetic on .b16/.b32/.f16 registers") {
    CHECK(first_instruction("add.f16x2 %r1, %r2, %r3;").type == ScalarType::f16x2);
    CHECK(first_instruction("mul.f16 %rs1, %rs2, %rs3;").type == ScalarType::f16);
    CHECK(first_instruction("fma.rn.f16 %h1, %h2, %h3, %h0;").op == Opcode::fma);
    CHECK(first_instruction("fma.rn.bf16x2 %r1, %r2, %r3, %r4;").type == ScalarType::bf16x2);
}

TEST_CASE("ld: spaces, vectors, .nc, ordering, ignored cache operators, address forms") {
    const auto p = first_instruction("ld.param.u64 %rd1, [k_p0];");
    CHECK(p.space == ir::StateSpace::param);
    CHECK(p.operands[1].kind == OperandKind::address);
    CHECK(p.operands[1].symbol_scope == ir::SymbolScope::kernel_param);
    CHECK(p.operands[1].symbol == 0);
    CHECK(p.operands[1].reg == ir::no_reg);
    const auto v = first_instruction("ld.global.nc.v4.f32 {%f1, %f2, _, %f4}, [%rd1+16];");
    CHECK(v.non_coherent);
    CHECK(v.vector_width == 4);
    CHECK(v.operands[0].kind == OperandKind::vector);
    CHECK(v.operands[0].vector[2] == ir::no_reg);
    CHECK(v.operands[1].reg == RD(1));
    CHECK(v.operands[1].offset == 16);
    CHECK(first_instruction("ld.shared.u32 %r1, [%r2+-4];").operands[1].offset == -4);
    CHECK(first_instruction("ld.shared.u32 %r1, [%r2-8];").operands[1].offset == -8);
    const auto g = first_instruction("ld.u32 %r1, [%rd2];");
    CHECK(g.space == ir::StateSpace::none);
    const auto vol = first_instruction("ld.volatile.global.u32 %r1, [%rd2];");
    CHECK(vol.order == ir::MemOrder::volatile_);
    const auto acq = first_instruction("ld.acquire.gpu.global.u32 %r1, [%rd2];");
    CHECK(acq.order == ir::MemOrder::acquire);
    CHECK(acq.scope == ir::Scope::gpu);
    const auto rel = first_instruction("ld.relaxed.sys.u64 %rd1, [%rd2];");
    CHECK(rel.scope == ir::Scope::sys);
    const auto cg = first_instruction("ld.global.cg.L1::no_allocate.u32 %r1, [%rd2];");
    CHECK(cg.space == ir::StateSpace::global);
    const auto sym = first_instruction("ld.const.f32 %f1, [c+4];", ".const .align 4 .f32 c[4];\n");
    CHECK(sym.operands[1].symbol_scope == ir::SymbolScope::module);
    CHECK(sym.operands[1].offset == 4);
    const auto abs = first_instruction("ld.shared.u32 %r1, [64];");
    CHECK(abs.operands[1].reg == ir::no_reg);
    CHECK(abs.operands[1].symbol == ir::no_symbol);
    CHECK(abs.operands[1].offset == 64);
    // relaxed register sizes: a u8 load into a 16-bit register, a u32 load into a 64-bit register
    CHECK(first_instruction("ld.global.u8 %rs1, [%rd1];").type == ScalarType::u8);
    CHECK(first_instruction("ld.global.u32 %rd1, [%rd2];").type == ScalarType::u32);
}

TEST_CASE("st: address first, then the value (register, immediate or vector)") {
    const auto s = first_instruction("st.global.v2.u32 [%rd1+8], {%r1, %r2};");
    CHECK(s.op == Opcode::st);
    CHECK(s.operands[0].kind == OperandKind::address);
    CHECK(s.operands[0].offset == 8);
    CHECK(s.operands[1].kind == OperandKind::vector);
    const auto w = first_instruction("st.global.u32 [%rd1], %rd2;");
    check_reg(w.operands[1], RD(2));
    const auto r = first_instruction("st.release.gpu.global.u32 [%rd1], 7;");
    CHECK(r.order == ir::MemOrder::release);
    check_imm(r.operands[1], 7);
    CHECK(first_instruction("st.local.wb.f64 [%rd1], %fd1;").space == ir::StateSpace::local);
}

TEST_CASE("atom and red: every operation; cas has two value operands") {
    const std::pair<const char*, ir::AtomOp> ops[] = {
        {"atom.global.add.u32 %r1, [%rd1], 1;", ir::AtomOp::add},
        {"atom.shared.min.s32 %r1, [%r2], %r3;", ir::AtomOp::min},
        {"atom.max.u64 %rd1, [%rd2], %rd3;", ir::AtomOp::max},
        {"atom.global.inc.u32 %r1, [%rd1], 15;", ir::AtomOp::inc},
        {"atom.global.dec.u32 %r1, [%rd1], 15;", ir::AtomOp::dec},
        {"atom.global.exch.b64 %rd1, [%rd2], %rd3;", ir::AtomOp::exch},
        {"atom.global.and.b32 %r1, [%rd1], %r2;", ir::AtomOp::and_},
        {"atom.global.or.b32 %r1, [%rd1], %r2;", ir::AtomOp::or_},
        {"atom.global.xor.b32 %r1, [%rd1], %r2;", ir::AtomOp::xor_},
        {"atom.global.add.f32 %f1, [%rd1], 0f3F000000;", ir::AtomOp::add},
        {"atom.global.add.f64 %fd1, [%rd1], %fd2;", ir::AtomOp::add},
    };
    for (const auto& c : ops) {
        const char* text = c.first;
        const ir::AtomOp op = c.second;
        CAPTURE(text);
        const auto i = first_instruction(text);
        CHECK(i.op == Opcode::atom);
        CHECK(i.atom_op == op);
        CHECK(i.num_operands == 3);
        CHECK(i.operands[1].kind == OperandKind::address);
    }
    const auto cas = first_instruction("atom.global.cas.b32 %r1, [%rd1], %r2, %r3;");
    CHECK(cas.num_operands == 4);
    check_reg(cas.operands[2], R(2));
    check_reg(cas.operands[3], R(3));
    const auto sem = first_instruction("atom.acq_rel.gpu.global.add.u32 %r1, [%rd1], 1;");
    CHECK(sem.order == ir::MemOrder::acq_rel);
    CHECK(sem.scope == ir::Scope::gpu);
    const auto half = first_instruction("atom.global.add.noftz.f16 %rs1, [%rd1], %rs2;");
    CHECK(half.type == ScalarType::f16);
    const auto red = first_instruction("red.global.add.u32 [%rd1], %r1;");
    CHECK(red.op == Opcode::red);
    CHECK(red.num_operands == 2);
    CHECK(red.operands[0].kind == OperandKind::address);
    CHECK(first_instruction("red.relaxed.gpu.shared.max.s32 [%r1], %r2;").space == ir::StateSpace::shared);
}

TEST_CASE("barriers: bar.sync, barrier.sync (unaligned), bar.arrive, bar.red, bar.warp.sync") {
    const auto b = first_instruction("bar.sync 0;");
    CHECK(b.op == Opcode::bar);
    CHECK(b.barrier == ir::BarrierMode::sync);
    CHECK(b.aligned);
    check_imm(b.operands[0], 0);
    const auto c = first_instruction("bar.sync 1, 64;");
    CHECK(c.num_operands == 2);
    const auto u = first_instruction("barrier.sync %r1;");
    CHECK(!u.aligned);
    CHECK(first_instruction("barrier.sync.aligned 0;").aligned);
    CHECK(first_instruction("barrier.cta.sync.aligned 0;").barrier == ir::BarrierMode::sync);
    CHECK(first_instruction("bar.cta.arrive 0, 64;").barrier == ir::BarrierMode::arrive);
    CHECK(first_instruction("bar.arrive 2, 128;").barrier == ir::BarrierMode::arrive);
    const auto pop = first_instruction("bar.red.popc.u32 %r1, 0, !%p1;");
    CHECK(pop.barrier == ir::BarrierMode::red_popc);
    CHECK(pop.num_operands == 3);
    CHECK(pop.operands[2].negated);
    const auto an = first_instruction("bar.red.and.pred %p1, 0, 128, %p2;");
    CHECK(an.barrier == ir::BarrierMode::red_and);
    CHECK(an.num_operands == 4);
    CHECK(first_instruction("bar.red.or.pred %p1, 0, %p2;").barrier == ir::BarrierMode::red_or);
    const auto w = first_instruction("bar.warp.sync -1;");
    CHECK(w.op == Opcode::bar_warp_sync);
    check_imm(w.operands[0], ~std::uint64_t{0});
}

TEST_CASE("membar and fence scopes") {
    CHECK(first_instruction("membar.gl;").scope == ir::Scope::gpu);
    CHECK(first_instruction("membar.cta;").scope == ir::Scope::cta);
    CHECK(first_instruction("membar.sys;").scope == ir::Scope::sys);
    const auto f = first_instruction("fence.acq_rel.gpu;");
    CHECK(f.op == Opcode::fence);
    CHECK(f.order == ir::MemOrder::acq_rel);
    CHECK(f.scope == ir::Scope::gpu);
    CHECK(first_instruction("fence.sc.cta;").order == ir::MemOrder::sc);
}

TEST_CASE("warp-level: shfl modes, vote modes, match, activemask") {
    const auto s = first_instruction("shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, -1;");
    CHECK(s.op == Opcode::shfl);
    CHECK(s.shfl_mode == ir::ShflMode::bfly);
    CHECK(s.num_operands == 5);
    CHECK(s.operands[0].reg2 == P(1));
    CHECK(first_instruction("shfl.sync.up.b32 %r1, %r2, 1, 0, %r3;").shfl_mode == ir::ShflMode::up);
    CHECK(first_instruction("shfl.sync.down.b32 %r1, %r2, 1, 31, %r3;").shfl_mode == ir::ShflMode::down);
    CHECK(first_instruction("shfl.sync.idx.b32 %r1, %r2, 0, 31, %r3;").shfl_mode == ir::ShflMode::idx);
    const auto b = first_instruction("vote.sync.ballot.b32 %r1, !%p1, -1;");
    CHECK(b.vote_mode == ir::VoteMode::ballot);
    CHECK(b.operands[1].negated);
    CHECK(first_instruction("vote.sync.all.pred %p1, %p2, %r1;").vote_mode == ir::VoteMode::all);
    CHECK(first_instruction("vote.sync.any.pred %p1, %p2, %r1;").vote_mode == ir::VoteMode::any);
    CHECK(first_instruction("vote.sync.uni.pred %p1, %p2, %r1;").vote_mode == ir::VoteMode::uni);
    const auto m = first_instruction("match.any.sync.b32 %r1, %r2, %r3;");
    CHECK(m.op == Opcode::match);
    CHECK(m.vote_mode == ir::VoteMode::any);
    const auto ma = first_instruction("match.all.sync.b64 %r1|%p1, %rd2, %r3;");
    CHECK(ma.vote_mode == ir::VoteMode::all);
    CHECK(ma.operands[0].reg2 == P(1));
    CHECK(first_instruction("activemask.b32 %r1;").op == Opcode::activemask);
}

TEST_CASE("control: bra, bra.uni, guarded branch, ret, exit, nanosleep") {
    const auto m = parse_kernel("@!%p1 bra.uni L1;\nexit;\nL1:\nnanosleep.u32 %r1;\nret;");
    const auto& code = m.kernels[0].code;
    REQUIRE(code.size() == 4);
    CHECK(code[0].op == Opcode::bra);
    CHECK(code[0].uni);
    CHECK(code[0].guard.reg == P(1));
    CHECK(code[0].guard.negated);
    CHECK(code[0].operands[0].kind == OperandKind::label);
    CHECK(code[0].operands[0].target == 2);
    CHECK(code[1].op == Opcode::exit);
    CHECK(code[2].op == Opcode::nanosleep);
    CHECK(code[3].op == Opcode::ret);
}

TEST_CASE("a kernel that can fall off its end gets an implicit ret") {
    const auto m = parse_kernel("add.s32 %r1, %r2, 1;");
    const auto& code = m.kernels[0].code;
    REQUIRE(code.size() == 2);
    CHECK(code[1].op == Opcode::ret);
    CHECK(code[1].line == kernel_first_body_line + 1);
}

TEST_CASE("a label at the end of the body gets the implicit ret as its target") {
    const auto m = parse_kernel("@%p1 bra DONE;\nbra DONE;\nDONE:");
    const auto& code = m.kernels[0].code;
    REQUIRE(code.size() == 3);
    CHECK(code[0].operands[0].target == 2);
    CHECK(code[2].op == Opcode::ret);
}

TEST_CASE("an inline-asm style nested scope with a shadowing register gets a fresh register") {
    const auto m = parse_kernel("{ .reg .pred %p1; setp.ne.u32 %p1, %r1, 0; bar.red.popc.u32 %r2, 0, %p1; }\n"
                                "selp.u32 %r3, 1, 0, %p1;");
    const auto& k = m.kernels[0];
    REQUIRE(k.code.size() == 4);
    const ir::RegId inner = k.code[0].operands[0].reg;
    CHECK(inner == 78); // declared after the 78 registers of the wrapper
    CHECK(k.registers[inner].name == "%p1");
    CHECK(k.code[1].operands[2].reg == inner);
    CHECK(k.code[2].operands[3].reg == P(1)); // the outer %p1 again
}

TEST_CASE("a predicate immediate may be any integer, as ptxas reads it: non-zero is true") {
    check_imm(first_instruction("mov.pred %p1, -1;").operands[1], 1);
    check_imm(first_instruction("mov.pred %p1, 7;").operands[1], 1);
    check_imm(first_instruction("mov.pred %p1, 0;").operands[1], 0);
    CHECK_THROWS_WITH_AS(parse_kernel("mov.pred %p1, 1.5;"),
                         doctest::Contains("a predicate constant must be an integer"), ptx::ParseError);
}

TEST_CASE("WARP_SZ is the warp-width special register; rsqrt.approx.f64 needs no .ftz") {
    const auto w = first_instruction("mov.u32 %r1, WARP_SZ;");
    CHECK(w.operands[1].kind == ir::OperandKind::special);
    CHECK(w.operands[1].special == ir::SpecialReg::warp_sz);
    const auto r = first_instruction("rsqrt.approx.f64 %fd1, %fd2;");
    CHECK(r.op == Opcode::rsqrt);
    CHECK(r.approx);
    CHECK_FALSE(r.ftz);
    CHECK(r.op_class == ir::OpClass::sfu);
}

TEST_CASE("dp4a and dp2a keep .atype/.btype; c and d are .u32 only when both sources are .u32") {
    const auto u = first_instruction("dp4a.u32.u32 %r1, %r2, %r3, %r4;");
    CHECK(u.op == Opcode::dp4a);
    CHECK(u.type == ScalarType::u32);
    CHECK(u.src_type == ScalarType::u32);
    CHECK(u.b_type == ScalarType::u32);
    CHECK(u.num_operands == 4);
    check_reg(u.operands[0], R(1));
    check_reg(u.operands[3], R(4));
    CHECK(u.op_class == ir::OpClass::int_mul);
    const auto m = first_instruction("dp4a.u32.s32 %r1, %r2, %r3, -7;");
    CHECK(m.type == ScalarType::s32);
    CHECK(m.b_type == ScalarType::s32);
    check_imm(m.operands[3], static_cast<std::uint64_t>(-7));
    const auto lo = first_instruction("dp2a.lo.s32.u32 %r1, %r2, %r3, %r4;");
    CHECK(lo.op == Opcode::dp2a);
    CHECK(lo.mul_mode == ir::MulMode::lo);
    CHECK(lo.type == ScalarType::s32);
    CHECK(first_instruction("dp2a.hi.u32.u32 %r1, %r2, %r3, %r4;").mul_mode == ir::MulMode::hi);
}

TEST_CASE("vabsdiff4 keeps .dtype.atype.btype and .sat or .add; sad takes any 16- to 64-bit integer type") {
    const auto v = first_instruction("vabsdiff4.s32.u32.s32.add %r1, %r2, %r3, %r4;");
    CHECK(v.op == Opcode::vabsdiff4);
    CHECK(v.type == ScalarType::s32);
    CHECK(v.src_type == ScalarType::u32);
    CHECK(v.b_type == ScalarType::s32);
    CHECK(v.accumulate);
    CHECK_FALSE(v.sat);
    CHECK(v.op_class == ir::OpClass::int_alu);
    CHECK(first_instruction("vabsdiff4.u32.u32.u32.sat %r1, %r2, %r3, %r4;").sat);
    const auto s = first_instruction("sad.s64 %rd1, %rd2, %rd3, -5;");
    CHECK(s.op == Opcode::sad);
    CHECK(s.type == ScalarType::s64);
    CHECK(s.op_class == ir::OpClass::int_alu);
    CHECK(first_instruction("sad.u16 %rs1, %rs2, %rs3, %rs4;").type == ScalarType::u16);
}

TEST_CASE("redux.sync: operation, type and membermask; a warp-level instruction") {
    const auto r = first_instruction("redux.sync.min.s32 %r1, %r2, -1;");
    CHECK(r.op == Opcode::redux);
    CHECK(r.atom_op == ir::AtomOp::min);
    CHECK(r.type == ScalarType::s32);
    CHECK(r.num_operands == 3);
    check_imm(r.operands[2], ~std::uint64_t{0});
    CHECK(r.op_class == ir::OpClass::warp_level);
    CHECK_FALSE(r.uni); // `uni` only marked ".sync seen" while the modifiers were read
    for (const char* form :
         {"redux.sync.add.u32 %r1, %r2, %r3;", "redux.sync.max.u32 %r1, %r2, %r3;", "redux.sync.and.b32 %r1, %r2, %r3;",
          "redux.sync.or.b32 %r1, %r2, %r3;", "redux.sync.xor.b32 %r1, %r2, %r3;"})
        CHECK(first_instruction(form).op == Opcode::redux);
}

TEST_CASE("prefetch and prefetchu: state space, cache level, address; no destination; op class prefetch") {
    const auto g = first_instruction("prefetch.global.L2::evict_last [%rd1+64];");
    CHECK(g.op == Opcode::prefetch);
    CHECK(g.space == ir::StateSpace::global);
    CHECK(g.cache_level == ir::CacheLevel::L2_evict_last);
    CHECK(g.num_operands == 1);
    CHECK(g.operands[0].kind == OperandKind::address);
    CHECK(g.operands[0].reg == RD(1));
    CHECK(g.operands[0].offset == 64);
    CHECK(g.op_class == ir::OpClass::prefetch);
    CHECK(ir::is_memory(g.op_class));
    CHECK(g.num_defs == 0);
    CHECK(g.num_uses == 1);
    CHECK(g.uses[0] == RD(1));
    CHECK(ir::prefetch_level(g) == ir::CacheLevel::L2_evict_last);
    const auto generic = first_instruction("prefetch.L1 [%rd2];");
    CHECK(generic.space == ir::StateSpace::none);
    CHECK(generic.cache_level == ir::CacheLevel::L1);
    CHECK(first_instruction("prefetch.local.L2 [%rd2];").space == ir::StateSpace::local);
    const auto u = first_instruction("prefetchu.L1 [%rd3];");
    CHECK(u.op == Opcode::prefetchu);
    CHECK(u.op_class == ir::OpClass::prefetch);
    CHECK(ir::prefetch_level(u) == ir::CacheLevel::L1);
    CHECK(ir::prefetch_level(first_instruction("ld.global.u32 %r1, [%rd1];")) == ir::CacheLevel::none);
}

TEST_CASE("tex, suld and sust through object registers: geometry, types, operands, def/use and op class texture") {
    const auto t = first_instruction("tex.level.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}], %f7;");
    CHECK(t.op == Opcode::tex);
    CHECK(t.geometry == ir::TexGeometry::d2);
    CHECK(t.tex_level);
    CHECK(t.type == ir::ScalarType::f32);
    CHECK(t.src_type == ir::ScalarType::f32);
    CHECK(t.num_operands == 4);
    CHECK(t.operands[0].kind == OperandKind::vector);
    CHECK(t.operands[1].reg == RD(1));
    CHECK(t.operands[2].vector_count == 2);
    CHECK(t.op_class == ir::OpClass::texture);
    CHECK(ir::is_memory(t.op_class));
    CHECK(t.num_defs == 4);
    CHECK(t.num_uses == 4); // %rd1, %f5, %f6, %f7
    const auto a = first_instruction("tex.a2d.v4.s32.f32 {%r1, %r2, %r3, %r4}, [%rd2, {%r5, %f6, %f7, %f7}];");
    CHECK(a.geometry == ir::TexGeometry::a2d);
    CHECK(a.type == ir::ScalarType::s32);
    CHECK(a.num_uses == 4); // %rd2, %r5, %f6, %f7 (once)
    const auto l = first_instruction("suld.b.2d.v2.b16.clamp {%rs1, %rs2}, [%rd1, {%r1, %r2}];");
    CHECK(l.op == Opcode::suld);
    CHECK(l.surface_clamp == ir::SurfaceClamp::clamp);
    CHECK(l.vector_width == 2);
    CHECK(l.type == ir::ScalarType::b16);
    CHECK(l.num_defs == 2);
    CHECK(l.op_class == ir::OpClass::texture);
    const auto s = first_instruction("sust.b.3d.b32.zero [%rd1, {%r1, %r2, %r3, %r3}], {%r4};");
    CHECK(s.op == Opcode::sust);
    CHECK(s.geometry == ir::TexGeometry::d3);
    CHECK(s.num_defs == 0);
    CHECK(s.num_uses == 5); // %rd1, %r1, %r2, %r3, %r4
    CHECK(s.op_class == ir::OpClass::texture);
}

TEST_CASE(
    "cp.async: shared destination and global source addresses, cp-size, src-size or ignore-src; no register def") {
    const auto c = first_instruction("cp.async.cg.shared.global [%r1+16], [%rd2+32], 16, %r3;");
    CHECK(c.op == Opcode::cp_async);
    CHECK(c.space == ir::StateSpace::global); // the timed access
    CHECK(c.cache_level == ir::CacheLevel::L2);
    CHECK(c.src_type == ScalarType::u32); // src-size
    REQUIRE(c.num_operands == 4);
    CHECK(c.operands[0].kind == OperandKind::address);
    CHECK(c.operands[0].reg == R(1));
    CHECK(c.operands[0].offset == 16);
    CHECK(c.operands[1].reg == RD(2));
    CHECK(c.operands[1].offset == 32);
    CHECK(c.operands[2].kind == OperandKind::imm);
    CHECK(c.operands[2].imm_bits == 16);
    CHECK(c.operands[3].reg == R(3));
    CHECK(c.op_class == ir::OpClass::async_copy);
    CHECK(ir::is_memory(c.op_class));
    CHECK(ir::prefetch_level(c) == ir::CacheLevel::none);
    CHECK(c.num_defs == 0);
    CHECK(c.num_uses == 3);
    const auto ignore = first_instruction("cp.async.ca.shared.global [%r1], [%rd2], 8, !%p1;");
    CHECK(ignore.cache_level == ir::CacheLevel::L1);
    CHECK(ignore.src_type == ScalarType::pred); // ignore-src
    CHECK(ignore.operands[3].reg == P(1));
    CHECK(ignore.operands[3].negated);
    CHECK(first_instruction("cp.async.ca.shared.global [%r1], [%rd2], 4;").num_operands == 3);
    const auto wait = first_instruction("cp.async.wait_group 3;");
    CHECK(wait.op == Opcode::cp_async_wait_group);
    CHECK(wait.operands[0].imm_bits == 3);
    CHECK(wait.op_class == ir::OpClass::control);
    CHECK(first_instruction("cp.async.commit_group;").op == Opcode::cp_async_commit_group);
    CHECK(first_instruction("cp.async.wait_all;").op == Opcode::cp_async_wait_all);
}

TEST_CASE(
    "call malloc and call free become device_malloc and device_free with their .param operands, op class system") {
    const std::string decls = ".extern .func (.param .b64 func_retval0) malloc(.param .b64 a);\n"
                              ".extern .func free(.param .b64 a);\n";
    const ir::Module m = parse_kernel("{ .param .b64 p0; .param .b64 r; call.uni (r), malloc, (p0); }\n"
                                      "{ .param .b64 q0; call.uni free, (q0); }",
                                      decls);
    const ir::Kernel& k = m.kernels.at(0);
    REQUIRE(k.code.size() >= 2); // then the ret the parser appends to a body without one
    CHECK(k.code[0].op == Opcode::device_malloc);
    CHECK(k.code[0].num_operands == 2); // size, then the return .param
    CHECK(k.code[0].op_class == ir::OpClass::system);
    CHECK(k.code[0].num_defs == 0);
    CHECK(k.code[1].op == Opcode::device_free);
    CHECK(k.code[1].num_operands == 1);
    const std::string malloc_text = ir::to_string(k.code[0], k, &m), free_text = ir::to_string(k.code[1], k, &m);
    CHECK(malloc_text.rfind("call.uni (", 0) == 0);
    CHECK(malloc_text.find("), malloc, (") != std::string::npos);
    CHECK(free_text.rfind("call.uni free, (", 0) == 0);
}
