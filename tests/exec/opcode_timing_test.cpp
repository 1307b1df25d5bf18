// Per-opcode latency and initiation interval (GPGPU-Sim's tables, timing/opcode_timing.hpp) as SimdExec applies
// them for the GTX480 frontend.
#include <doctest/doctest.h>

#include <gpuarch/exec/simd_exec.hpp>
#include <gpuarch/frontend/gtx480.hpp>
#include <gpuarch/ir/op_class.hpp>
#include <gpuarch/timing/concepts.hpp>
#include <gpuarch/timing/opcode_timing.hpp>

#include <span>
#include <vector>

namespace {
using namespace gpuarch;
using Frontend = frontend::GTX480Frontend;

static_assert(timing::check_frontend<Frontend>());

ir::Instruction instruction(ir::Opcode op, ir::ScalarType type) {
    ir::Instruction inst;
    inst.op = op;
    inst.type = type;
    inst.op_class = ir::classify(inst);
    return inst;
}

timing::OpTiming timing_of(ir::Opcode op, ir::ScalarType type) {
    return timing::lookup(Frontend::opcode_timing, instruction(op, type));
}

exec::SimdExec gtx480_exec() {
    return exec::SimdExec(timing::ExecConfig{std::span<const timing::UnitSpec>(Frontend::units), Frontend::schedulers,
                                             Frontend::shared_unit_partitioning, Frontend::warp_width,
                                             &Frontend::opcode_timing});
}

// Dispatches `inst` on its frontend unit at `now` and returns the cycle its result is ready.
core::Cycle dispatch(exec::SimdExec& e, const ir::Instruction& inst, core::Cycle now, std::uint64_t token = 1) {
    timing::ExecOp op;
    op.token = token;
    op.unit = Frontend::unit_for(inst.op_class);
    op.op_class = inst.op_class;
    op.instruction = &inst;
    op.active_lanes = 32;
    op.warp_width = 32;
    return e.dispatch(op, 0, now);
}
} // namespace

TEST_CASE("the GTX480 table classifies opcodes as GPGPU-Sim's set_opcode_and_latency does") {
    using ir::Opcode;
    using ir::ScalarType;
    // -ptx_opcode_latency_int 4,13,4,5,145,32 / -ptx_opcode_initiation_int 1,2,2,1,8,4
    CHECK(timing_of(Opcode::add, ScalarType::s32) == timing::OpTiming{4, 1});
    CHECK(timing_of(Opcode::sub, ScalarType::u64) == timing::OpTiming{4, 1});
    CHECK(timing_of(Opcode::max, ScalarType::s32) == timing::OpTiming{13, 2});
    CHECK(timing_of(Opcode::mul, ScalarType::u32) == timing::OpTiming{4, 2});
    CHECK(timing_of(Opcode::mad, ScalarType::s32) == timing::OpTiming{5, 1});
    CHECK(timing_of(Opcode::div, ScalarType::s32) == timing::OpTiming{145, 8});
    CHECK(timing_of(Opcode::rem, ScalarType::u32) == timing::OpTiming{145, 8});
    CHECK(timing_of(Opcode::shfl, ScalarType::b32) == timing::OpTiming{32, 4});
    CHECK(timing_of(Opcode::mul24, ScalarType::s32) == timing::OpTiming{5, 3}); // int MUL + 1
    CHECK(timing_of(Opcode::mad24, ScalarType::s32) == timing::OpTiming{6, 2}); // int MAD + 1
    // -ptx_opcode_latency_fp 4,13,4,5,39 / -ptx_opcode_initiation_fp 1,2,1,1,4
    CHECK(timing_of(Opcode::add, ScalarType::f32) == timing::OpTiming{4, 1});
    CHECK(timing_of(Opcode::min, ScalarType::f32) == timing::OpTiming{13, 2});
    CHECK(timing_of(Opcode::fma, ScalarType::f32) == timing::OpTiming{5, 1});
    CHECK(timing_of(Opcode::div, ScalarType::f32) == timing::OpTiming{39, 4});
    // -ptx_opcode_latency_dp 8,19,8,8,330 / -ptx_opcode_initiation_dp 8,16,8,8,130
    CHECK(timing_of(Opcode::add, ScalarType::f64) == timing::OpTiming{8, 8});
    CHECK(timing_of(Opcode::max, ScalarType::f64) == timing::OpTiming{19, 16});
    CHECK(timing_of(Opcode::div, ScalarType::f64) == timing::OpTiming{330, 130});
    // SFU: GPGPU-Sim's defaults (8, 8); everything else 1, 1.
    CHECK(timing_of(Opcode::sin, ScalarType::f32) == timing::OpTiming{8, 8});
    CHECK(timing_of(Opcode::rsqrt, ScalarType::f32) == timing::OpTiming{8, 8});
    CHECK(timing_of(Opcode::setp, ScalarType::f32) == timing::OpTiming{1, 1});
    CHECK(timing_of(Opcode::mov, ScalarType::b32) == timing::OpTiming{1, 1});
    CHECK(timing_of(Opcode::cvt, ScalarType::f32) == timing::OpTiming{1, 1});
    CHECK(timing_of(Opcode::shl, ScalarType::b32) == timing::OpTiming{1, 1});
}

TEST_CASE("a table-timed op is ready after exactly its latency and holds its unit for its interval") {
    exec::SimdExec e = gtx480_exec();
    // Integer add on an SP unit: ready at 10 + 4, the unit free again at 11.
    const ir::Instruction add = instruction(ir::Opcode::add, ir::ScalarType::s32);
    CHECK(dispatch(e, add, 10) == 14);
    // Two SP units: a second add in the same cycle takes the other; a third waits for cycle 11.
    CHECK(dispatch(e, add, 10, 2) == 14);
    CHECK_FALSE(e.can_dispatch(timing::UnitKind::sp, 1, 10));
    CHECK(e.can_dispatch(timing::UnitKind::sp, 1, 11));
    // f32 division on the single SFU: ready after 39, the SFU busy for 4 cycles.
    const ir::Instruction fdiv = instruction(ir::Opcode::div, ir::ScalarType::f32);
    CHECK(fdiv.op_class == ir::OpClass::sfu);
    CHECK(dispatch(e, fdiv, 20, 3) == 59);
    CHECK_FALSE(e.can_dispatch(timing::UnitKind::sfu, 0, 23));
    CHECK(e.can_dispatch(timing::UnitKind::sfu, 0, 24));
    // Double precision runs on the SFU ("DP inst is executed on SFU"): an f64 add holds it 8 cycles.
    const ir::Instruction dadd = instruction(ir::Opcode::add, ir::ScalarType::f64);
    CHECK(Frontend::unit_for(dadd.op_class) == timing::UnitKind::sfu);
    CHECK(dispatch(e, dadd, 30, 4) == 38);
    CHECK_FALSE(e.can_dispatch(timing::UnitKind::sfu, 1, 37));
    CHECK(e.can_dispatch(timing::UnitKind::sfu, 1, 38));
    // Completion order follows readiness.
    std::vector<std::uint64_t> done;
    e.drain_completed(60, [&](std::uint64_t t) { done.push_back(t); });
    CHECK(done == std::vector<std::uint64_t>{1, 2, 4, 3});
}

TEST_CASE("without a table every op keeps its unit's latency (the other frontends)") {
    const timing::UnitSpec units[] = {timing::UnitSpec{timing::UnitKind::sp, 1, 16, 22, 1, false}};
    exec::SimdExec e(timing::ExecConfig{std::span<const timing::UnitSpec>(units), 1,
                                        timing::SharedUnitPartitioning::even, 32, nullptr});
    const ir::Instruction add = instruction(ir::Opcode::add, ir::ScalarType::s32);
    timing::ExecOp op;
    op.instruction = &add;
    op.warp_width = 32;
    op.active_lanes = 32;
    CHECK(e.dispatch(op, 0, 0) == 22 + 2 - 1); // latency + occupancy - 1, 16 lanes for 32 threads
}

TEST_CASE("the GTX480 frontend's limits and units are the configuration's") {
    CHECK(Frontend::max_threads == 1536); // -gpgpu_shader_core_pipeline 1536:32
    CHECK(Frontend::warp_width == 32);
    CHECK(Frontend::max_warps == 48);
    CHECK(Frontend::max_ctas == 8); // -gpgpu_shader_cta 8
    CHECK(Frontend::max_registers == 32768); // -gpgpu_shader_registers 32768
    CHECK(Frontend::max_shared_bytes == 49152); // -gpgpu_shmem_size 49152
    CHECK(Frontend::schedulers == 2); // -gpgpu_num_sched_per_core 2
    CHECK(Frontend::dispatch_per_scheduler == 1); // -gpgpu_max_insn_issue_per_warp 1
    // -gpgpu_pipeline_widths 2,0,0,1,1,2,0,0,1,1,2; -gpgpu_num_sp_units 2, _sfu_units 1, _dp_units 0
    unsigned sp = 0, sfu = 0, ldst = 0, other = 0;
    for (const auto& u : Frontend::units) {
        CHECK(u.lanes == 32);
        CHECK(u.shared);
        if (u.kind == timing::UnitKind::sp) sp += u.count;
        else if (u.kind == timing::UnitKind::sfu) sfu += u.count;
        else if (u.kind == timing::UnitKind::ldst) ldst += u.count;
        else ++other;
    }
    CHECK(sp == 2);
    CHECK(sfu == 1);
    CHECK(ldst == 1);
    CHECK(other == 0);
    CHECK(Frontend::unit_for(ir::OpClass::int_mul) == timing::UnitKind::sp);
    CHECK(Frontend::unit_for(ir::OpClass::fp64) == timing::UnitKind::sfu);
    CHECK(Frontend::unit_for(ir::OpClass::load_global) == timing::UnitKind::ldst);
}
