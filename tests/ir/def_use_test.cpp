// Def/use register sets and operation classes of parsed instructions.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <gpuarch/ir/def_use.hpp>
#include <gpuarch/ir/names.hpp>
#include <gpuarch/ir/op_class.hpp>
#include <gpuarch/ptx/parser.hpp>

using namespace gpuarch;
using ir::OpClass;
using ir::RegId;

namespace {

// Registers: %p0..7 = 0..7, %r0..15 = 8..23, %f0..7 = 24..31, %rd0..7 = 32..39, %fd0..3 = 40..43, %rs0..3 = 44..47
constexpr RegId P(unsigned i) { return i; }
constexpr RegId R(unsigned i) { return 8 + i; }
constexpr RegId F(unsigned i) { return 24 + i; }
constexpr RegId RD(unsigned i) { return 32 + i; }
constexpr RegId RS(unsigned i) { return 44 + i; }

ir::Instruction inst(const std::string& line) {
    const std::string text = ".version 9.0\n.target sm_75\n.address_size 64\n"
                             ".extern .shared .align 4 .b8 dyn[];\n.visible .entry k(.param .u64 p)\n{\n"
                             ".reg .pred %p<8>;\n.reg .b32 %r<16>;\n.reg .f32 %f<8>;\n.reg .b64 %rd<8>;\n"
                             ".reg .f64 %fd<4>;\n.reg .b16 %rs<4>;\n" +
                             line + "\nL:\nret;\n}\n";
    return ptx::parse(text, "du.ptx").kernels.at(0).code.at(0);
}

std::vector<RegId> defs(const ir::Instruction& i) { return {i.defs.begin(), i.defs.begin() + i.num_defs}; }
std::vector<RegId> uses(const ir::Instruction& i) { return {i.uses.begin(), i.uses.begin() + i.num_uses}; }

} // namespace

TEST_CASE("a plain ALU instruction defines its destination and uses its sources once each") {
    const auto i = inst("add.s32 %r1, %r2, %r2;");
    CHECK(defs(i) == std::vector<RegId>{R(1)});
    CHECK(uses(i) == std::vector<RegId>{R(2)});
    const auto j = inst("fma.rn.f32 %f1, %f2, %f3, %f1;");
    CHECK(defs(j) == std::vector<RegId>{F(1)});
    CHECK(uses(j) == std::vector<RegId>{F(2), F(3), F(1)});
}

TEST_CASE("vector loads define every element except sinks; the address base and guard are uses") {
    const auto i = inst("@%p2 ld.global.v4.u32 {%r1, _, %r3, %r4}, [%rd5+16];");
    CHECK(defs(i) == std::vector<RegId>{R(1), R(3), R(4)});
    CHECK(uses(i) == std::vector<RegId>{RD(5), P(2)});
}

TEST_CASE("stores define nothing and use the address base and every stored element") {
    const auto i = inst("@!%p1 st.shared.v2.f32 [%r9], {%f1, %f2};");
    CHECK(defs(i).empty());
    CHECK(uses(i) == std::vector<RegId>{R(9), F(1), F(2), P(1)});
    CHECK(!ir::has_destination(i));
}

TEST_CASE("d|p forms define both registers") {
    const auto s = inst("setp.lt.and.s32 %p1|%p2, %r1, %r2, %p3;");
    CHECK(defs(s) == std::vector<RegId>{P(1), P(2)});
    CHECK(uses(s) == std::vector<RegId>{R(1), R(2), P(3)});
    const auto h = inst("shfl.sync.down.b32 %r1|%p1, %r2, %r3, 31, %r3;");
    CHECK(defs(h) == std::vector<RegId>{R(1), P(1)});
    CHECK(uses(h) == std::vector<RegId>{R(2), R(3)});
}

TEST_CASE("mov packing uses every register element; unpacking defines them") {
    const auto pack = inst("mov.b64 %rd1, {%r1, %r2};");
    CHECK(defs(pack) == std::vector<RegId>{RD(1)});
    CHECK(uses(pack) == std::vector<RegId>{R(1), R(2)});
    const auto unpack = inst("mov.b32 {%rs1, %rs2}, %r3;");
    CHECK(defs(unpack) == std::vector<RegId>{RS(1), RS(2)});
    CHECK(uses(unpack) == std::vector<RegId>{R(3)});
    const auto constant = inst("mov.b32 %f1, {0, %rs3};");
    CHECK(uses(constant) == std::vector<RegId>{RS(3)});
}

TEST_CASE("atomics define the old value and use the address and operands") {
    const auto i = inst("atom.global.cas.b32 %r1, [%rd2], %r3, %r4;");
    CHECK(defs(i) == std::vector<RegId>{R(1)});
    CHECK(uses(i) == std::vector<RegId>{RD(2), R(3), R(4)});
    const auto r = inst("red.shared.add.u32 [%r5+4], %r6;");
    CHECK(defs(r).empty());
    CHECK(uses(r) == std::vector<RegId>{R(5), R(6)});
}

TEST_CASE("branches, barriers and special registers") {
    const auto b = inst("@%p4 bra L;");
    CHECK(defs(b).empty());
    CHECK(uses(b) == std::vector<RegId>{P(4)});
    const auto red = inst("bar.red.popc.u32 %r1, 0, !%p2;");
    CHECK(ir::has_destination(red));
    CHECK(defs(red) == std::vector<RegId>{R(1)});
    CHECK(uses(red) == std::vector<RegId>{P(2)});
    const auto sync = inst("bar.sync %r2;");
    CHECK(!ir::has_destination(sync));
    CHECK(uses(sync) == std::vector<RegId>{R(2)});
    const auto s = inst("mov.u32 %r1, %tid.x;");
    CHECK(uses(s).empty());
    const auto sym = inst("mov.u64 %rd1, dyn;");
    CHECK(uses(sym).empty());
    const auto param = inst("ld.param.u64 %rd1, [p];");
    CHECK(uses(param).empty());
}

TEST_CASE("the carry flag is not a register; writes_carry/reads_carry expose it") {
    const auto a = inst("add.cc.u32 %r1, %r2, %r3;");
    CHECK(ir::writes_carry(a));
    CHECK(!ir::reads_carry(a));
    CHECK(defs(a) == std::vector<RegId>{R(1)});
    const auto c = inst("addc.u32 %r4, %r5, %r6;");
    CHECK(ir::reads_carry(c));
    CHECK(!ir::writes_carry(c));
    CHECK(uses(c) == std::vector<RegId>{R(5), R(6)});
    CHECK(ir::reads_carry(inst("madc.lo.cc.u32 %r1, %r2, %r3, %r4;")));
}

TEST_CASE("operation classes follow the documented table") {
    const std::pair<const char*, OpClass> cases[] = {
        {"add.s32 %r1, %r2, %r3;", OpClass::int_alu},
        {"shl.b32 %r1, %r2, 3;", OpClass::int_alu},
        {"setp.lt.s32 %p1, %r1, %r2;", OpClass::int_alu},
        {"selp.f32 %f1, %f2, %f3, %p1;", OpClass::int_alu},
        {"mov.u32 %r1, %tid.x;", OpClass::int_alu},
        {"cvt.u64.u32 %rd1, %r1;", OpClass::int_alu},
        {"cvta.to.global.u64 %rd1, %rd2;", OpClass::int_alu},
        {"mul.lo.s32 %r1, %r2, %r3;", OpClass::int_mul},
        {"mad.wide.u32 %rd1, %r2, %r3, %rd4;", OpClass::int_mul},
        {"div.s32 %r1, %r2, %r3;", OpClass::int_mul},
        {"rem.u32 %r1, %r2, %r3;", OpClass::int_mul},
        {"add.f32 %f1, %f2, %f3;", OpClass::fp32},
        {"fma.rn.f32 %f1, %f2, %f3, %f4;", OpClass::fp32},
        {"setp.lt.f32 %p1, %f1, %f2;", OpClass::fp32},
        {"set.lt.u32.f32 %r1, %f1, %f2;", OpClass::fp32},
        {"cvt.rn.f32.s32 %f1, %r1;", OpClass::fp32},
        {"add.f64 %fd1, %fd2, %fd3;", OpClass::fp64},
        {"div.rn.f64 %fd1, %fd2, %fd3;", OpClass::fp64},
        {"sqrt.rn.f64 %fd1, %fd2;", OpClass::fp64},
        {"cvt.rn.f32.f64 %f1, %fd1;", OpClass::fp64},
        {"rcp.approx.ftz.f64 %fd1, %fd2;", OpClass::sfu},
        {"ex2.approx.f32 %f1, %f2;", OpClass::sfu},
        {"sin.approx.f32 %f1, %f2;", OpClass::sfu},
        {"div.rn.f32 %f1, %f2, %f3;", OpClass::sfu},
        {"sqrt.rn.f32 %f1, %f2;", OpClass::sfu},
        {"add.f16x2 %r1, %r2, %r3;", OpClass::half},
        {"cvt.rn.f16.f32 %rs1, %f1;", OpClass::half},
        {"ld.global.u32 %r1, [%rd1];", OpClass::load_global},
        {"ld.shared.u32 %r1, [%r2];", OpClass::load_shared},
        {"ld.local.u32 %r1, [%rd1];", OpClass::load_local},
        {"ld.const.u32 %r1, [%rd1];", OpClass::load_const},
        {"ld.param.u64 %rd1, [p];", OpClass::load_param},
        {"ld.u32 %r1, [%rd1];", OpClass::load_generic},
        {"st.global.u32 [%rd1], %r1;", OpClass::store_global},
        {"st.shared.u32 [%r1], %r2;", OpClass::store_shared},
        {"st.local.u32 [%rd1], %r1;", OpClass::store_local},
        {"st.u32 [%rd1], %r1;", OpClass::store_generic},
        {"atom.global.add.u32 %r1, [%rd1], 1;", OpClass::atomic_global},
        {"atom.shared.add.u32 %r1, [%r2], 1;", OpClass::atomic_shared},
        {"red.add.u32 [%rd1], 1;", OpClass::atomic_generic},
        {"bra L;", OpClass::branch},
        {"bar.sync 0;", OpClass::barrier},
        {"bar.red.popc.u32 %r1, 0, %p1;", OpClass::barrier},
        {"shfl.sync.idx.b32 %r1, %r2, 0, 31, -1;", OpClass::warp_level},
        {"vote.sync.any.pred %p1, %p2, -1;", OpClass::warp_level},
        {"activemask.b32 %r1;", OpClass::warp_level},
        {"bar.warp.sync -1;", OpClass::warp_level},
        {"membar.gl;", OpClass::control},
        {"fence.sc.gpu;", OpClass::control},
        {"exit;", OpClass::control},
        {"nanosleep.u32 100;", OpClass::control},
    };
    for (const auto& c : cases) {
        const char* line = c.first;
        const OpClass expected = c.second;
        CAPTURE(line);
        const auto i = inst(line);
        CHECK(ir::name(i.op_class) == ir::name(expected));
        CHECK(ir::classify(i) == i.op_class);
    }
    CHECK(ir::is_memory(OpClass::load_param));
    CHECK(ir::is_memory(OpClass::atomic_generic));
    CHECK(!ir::is_memory(OpClass::barrier));
}
