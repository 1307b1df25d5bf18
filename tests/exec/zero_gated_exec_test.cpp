// ZeroGatedExec: SimdExec's timing, inactive-lane gating and trivial-operation bypass (Radaideh 2020 Sec. 4.4).
#include <doctest/doctest.h>

#include "../regfile/rf_kernels.hpp"

#include <gpuarch/core/stats.hpp>
#include <gpuarch/exec/simd_exec.hpp>
#include <gpuarch/exec/zero_gated_exec.hpp>
#include <gpuarch/frontend/fermi.hpp>
#include <gpuarch/mem/ideal_memory.hpp>
#include <gpuarch/regfile/coalescing_rf.hpp>
#include <gpuarch/regfile/ideal_rf.hpp>
#include <gpuarch/sched/gto.hpp>
#include <gpuarch/sm.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace {
using namespace gpuarch;

static_assert(timing::check_exec<exec::ZeroGatedExec>());
static_assert(timing::check_exec<exec::InactiveGatedExec>());

ir::Instruction instruction(ir::Opcode op, ir::RegId dst, std::initializer_list<ir::RegId> sources,
                            ir::ScalarType type = ir::ScalarType::s32) {
    ir::Instruction inst;
    inst.op = op;
    inst.type = type;
    inst.op_class = ir::OpClass::int_alu;
    inst.operands[0].kind = ir::OperandKind::reg;
    inst.operands[0].reg = dst;
    inst.num_operands = 1;
    for (auto s : sources) {
        inst.operands[inst.num_operands].kind = ir::OperandKind::reg;
        inst.operands[inst.num_operands].reg = s;
        inst.uses[inst.num_uses++] = s;
        ++inst.num_operands;
    }
    inst.defs[0] = dst;
    inst.num_defs = 1;
    return inst;
}

struct Harness {
    exec::ZeroGatedExec exec{timing::ExecConfig{std::span<const timing::UnitSpec>(frontend::FermiFrontend::units), 2,
                                                frontend::FermiFrontend::shared_unit_partitioning, 32}};
    core::Cycle now = 0;
    std::uint64_t token = 0;
    void run(const ir::Instruction& inst, const std::vector<std::uint64_t>& values,
             core::WarpMask active = core::WarpMask::first(32)) {
        timing::ExecOp op;
        op.token = token++;
        op.warp = 0;
        op.unit = timing::UnitKind::sp;
        op.warp_width = 32;
        op.active = active;
        op.active_lanes = static_cast<unsigned>(active.popcount());
        op.instruction = &inst;
        op.values = values.data();
        while (!exec.can_dispatch(op.unit, 0, now)) ++now;
        exec.dispatch(op, 0, now);
    }
    core::StatsTable stats() const {
        core::StatsTable t;
        t.collect("exec", exec);
        return t;
    }
};

std::vector<std::uint64_t> lanes(std::uint64_t even, std::uint64_t odd) {
    std::vector<std::uint64_t> v(32);
    for (unsigned i = 0; i < 32; ++i) v[i] = (i % 2 == 0) ? even : odd;
    return v;
}
} // namespace

TEST_CASE("an add with a zero register operand is trivial when its result equals the other operand") {
    Harness h;
    const auto mov1 = instruction(ir::Opcode::mov, 1, {});
    const auto mov2 = instruction(ir::Opcode::mov, 2, {});
    const auto add = instruction(ir::Opcode::add, 3, {1, 2});
    h.run(mov1, lanes(0, 5)); // r1: even lanes zero
    h.run(mov2, lanes(7, 7));
    h.run(add, lanes(7, 12));
    const auto t = h.stats();
    CHECK(t.counter("exec.sp.lanes_trivial") == 16);
    CHECK(t.counter("exec.sp.lanes_zero_operand") == 16);
    CHECK(t.counter("exec.trivial.result_operand") == 16);
    CHECK(t.counter("exec.sp.lanes_executed") == 64 + 16); // the two movs, then 16 non-trivial add lanes
    CHECK(t.counter("exec.sp.lanes_gated_inactive") == 0);
    std::uint64_t v = 0;
    REQUIRE(h.exec.tracked_value(0, 3, 1, v));
    CHECK(v == 12);
}

TEST_CASE("multiplying by zero is trivial with a zero result; inactive lanes are gated, not executed") {
    Harness h;
    h.run(instruction(ir::Opcode::mov, 1, {}), lanes(0, 5));
    h.run(instruction(ir::Opcode::mov, 2, {}), lanes(9, 9));
    const auto before = h.stats();
    h.run(instruction(ir::Opcode::mul, 4, {2, 1}), lanes(0, 45), core::WarpMask::first(24));
    const auto t = h.stats().minus(before);
    CHECK(t.counter("exec.sp.lanes_gated_inactive") == 8);
    CHECK(t.counter("exec.sp.lanes_trivial") == 12);
    CHECK(t.counter("exec.trivial.result_zero") == 12);
    CHECK(t.counter("exec.sp.lanes_executed") == 12);
    // SimdExec's own counters still see every lane.
    CHECK(t.counter("exec.sp.active_lane_ops") == 24);
    CHECK(t.counter("exec.sp.idle_lane_ops") == 8);
}

TEST_CASE("a bypass that would not reproduce the result bit for bit is not trivial (0 * inf, sub from zero)") {
    Harness h;
    h.run(instruction(ir::Opcode::mov, 1, {}), lanes(0, 0));
    h.run(instruction(ir::Opcode::mov, 2, {}), lanes(0x7F800000, 0x7F800000)); // +inf
    h.run(instruction(ir::Opcode::mov, 3, {}), lanes(0x40000000, 0x40000000)); // 2.0f
    const auto before = h.stats();
    // fma(0, inf, 2) = NaN: the rule says "c", the value check refuses.
    h.run(instruction(ir::Opcode::fma, 4, {1, 2, 3}, ir::ScalarType::f32), lanes(0x7FC00000, 0x7FC00000));
    // 0 - b is not in the table (it is -b).
    h.run(instruction(ir::Opcode::sub, 5, {1, 3}), lanes(0xC0000000, 0xC0000000));
    const auto t = h.stats().minus(before);
    CHECK(t.counter("exec.sp.lanes_zero_operand") == 64);
    CHECK(t.counter("exec.sp.lanes_trivial") == 0);
    CHECK(t.counter("exec.sp.lanes_executed") == 64);
}

TEST_CASE("instructions that write the carry flag are never bypassed") {
    Harness h;
    h.run(instruction(ir::Opcode::mov, 1, {}), lanes(0, 0));
    h.run(instruction(ir::Opcode::mov, 2, {}), lanes(3, 3));
    auto addcc = instruction(ir::Opcode::add, 3, {1, 2});
    addcc.carry_out = true;
    const auto before = h.stats();
    h.run(addcc, lanes(3, 3));
    CHECK(h.stats().minus(before).counter("exec.sp.lanes_trivial") == 0);
}

namespace {
template <class RF, class Exec> using FermiSM = SM<frontend::FermiFrontend, sched::GTO, RF, Exec, mem::IdealMemory<20>>;
// The functional engine records result values for the SM only when its register file or its execution model may
// read them (timing::IgnoresResultValues): ZeroGatedExec's trivial-lane counts below need them.
static_assert(!FermiSM<regfile::IdealRF, exec::SimdExec>::records_result_values);
static_assert(FermiSM<regfile::IdealRF, exec::ZeroGatedExec>::records_result_values);
static_assert(FermiSM<regfile::CoalescingRF<>, exec::SimdExec>::records_result_values);
} // namespace

TEST_CASE("ZeroGatedExec has SimdExec's timing and leaves device memory unchanged, with IdealRF and with CARF") {
    const auto simd = rf_kernels::run_kernels<FermiSM<regfile::IdealRF, exec::SimdExec>>();
    const auto gated = rf_kernels::run_kernels<FermiSM<regfile::IdealRF, exec::ZeroGatedExec>>();
    CHECK(gated.mix == simd.mix);
    CHECK(gated.loop == simd.loop);
    CHECK(gated.mix_cycles == simd.mix_cycles);
    CHECK(gated.loop_cycles == simd.loop_cycles);
    const auto& s = gated.mix_stats;
    // mix: lanes with tid % 8 == 0 multiply by zero; the partial CTA and the branch leave lanes inactive.
    CHECK(s.counter("sm.exec.sp.lanes_trivial") > 0);
    CHECK(s.counter("sm.exec.sp.lanes_gated_inactive") > 0);
    CHECK(s.counter("sm.exec.sp.lanes_gated_inactive") == s.counter("sm.exec.sp.idle_lane_ops"));
    CHECK(s.counter("sm.exec.sp.lanes_executed") + s.counter("sm.exec.sp.lanes_trivial") ==
          s.counter("sm.exec.sp.active_lane_ops"));
    const auto carf = rf_kernels::run_kernels<FermiSM<regfile::CoalescingRF<>, exec::ZeroGatedExec>>();
    CHECK(carf.mix == simd.mix);
    CHECK(carf.loop == simd.loop);
    CHECK(carf.mix_stats.counter("sm.exec.sp.lanes_trivial") == s.counter("sm.exec.sp.lanes_trivial"));
}

TEST_CASE("InactiveGatedExec gates inactive lanes and bypasses nothing") {
    exec::InactiveGatedExec e{timing::ExecConfig{std::span<const timing::UnitSpec>(frontend::FermiFrontend::units), 2,
                                                 frontend::FermiFrontend::shared_unit_partitioning, 32}};
    const auto mov = instruction(ir::Opcode::mov, 1, {});
    const auto mul = instruction(ir::Opcode::mul, 2, {1, 1});
    const auto zeros = lanes(0, 0);
    core::Cycle now = 0;
    std::uint64_t token = 0;
    for (const auto* inst : {&mov, &mul}) {
        timing::ExecOp op;
        op.token = token++;
        op.warp = 3;
        op.unit = timing::UnitKind::sp;
        op.warp_width = 32;
        op.active = core::WarpMask::first(20);
        op.active_lanes = 20;
        op.instruction = inst;
        op.values = zeros.data();
        while (!e.can_dispatch(op.unit, 0, now)) ++now;
        e.dispatch(op, 0, now);
    }
    core::StatsTable t;
    t.collect("exec", e);
    CHECK(t.counter("exec.sp.lanes_gated_inactive") == 24);
    CHECK(t.counter("exec.sp.lanes_zero_operand") == 20); // the mul reads zeros...
    CHECK(t.counter("exec.sp.lanes_trivial") == 0); // ...but this policy does not bypass
    CHECK(t.counter("exec.sp.lanes_executed") == 40);
    timing::ExecOp no_slot;
    no_slot.instruction = &mov;
    no_slot.values = zeros.data();
    no_slot.warp_width = 32;
    while (!e.can_dispatch(no_slot.unit, 0, now)) ++now;
    CHECK_THROWS_AS(e.dispatch(no_slot, 0, now), gpuarch::Error);
}
