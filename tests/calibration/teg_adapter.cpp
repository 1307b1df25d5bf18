// TEG adapter (model/teg_adapter.hpp): the functional executor's dynamic stream as TEG trace records, and TEG
// timings derived by hand from Lai 2013's GT200 parameters (teg_gt200(): issue slot every 2 cycles; integer ALU
// execution 24, multi-warp issue 4, same-warp issue 8; global load 436 / 4 / 60; shared operand 74 conflict-free,
// 266 for 16 ways).
#include <doctest/doctest.h>

#include <gpuarch/func/device.hpp>
#include <gpuarch/func/module.hpp>
#include <gpuarch/model/teg_adapter.hpp>

#include <stdexcept>
#include <string>
#include <vector>

namespace {
using namespace gpuarch;
using model::InstrClass;

std::string kernel(const std::string& params, const std::string& decls, const std::string& body) {
    return ".version 8.0\n.target sm_30\n.address_size 64\n.visible .entry k(" + params + ")\n{\n" + decls + body +
           "  ret;\n}\n";
}

model::TegKernelEstimate estimate(const std::string& ptx, unsigned threads, const func::Args& args = func::Args{},
                                  func::Device* device = nullptr, const model::TegAdapterOptions& options = {}) {
    func::Device local;
    func::Device& dev = device != nullptr ? *device : local;
    const auto module = func::Module::from_string(ptx, "teg_adapter.ptx");
    return model::teg_estimate_kernel(dev, module, "k", func::LaunchConfig{{1, 1, 1}, {threads, 1, 1}, 0}, args,
                                      model::teg_gt200(), options);
}

// mov r1 <- tid; r2 = r1 + 1; r3 = r1 + 2; ret. Registers: %r0..%r3 are ids 0..3.
const std::string three_ints =
    kernel("", "  .reg .b32 %r<4>;\n", "  mov.u32 %r1, %tid.x;\n  add.s32 %r2, %r1, 1;\n  add.s32 %r3, %r1, 2;\n");
} // namespace

TEST_CASE("the adapter emits one record per executed warp instruction with the IR registers") {
    const auto e = estimate(three_ints, 32);
    REQUIRE(e.trace.records.size() == 4);
    const auto& r = e.trace.records;
    CHECK(r[0].cls == InstrClass::int_alu);
    CHECK(r[0].dst.size() == 1);
    CHECK(r[0].dst.ids[0] == 1);
    CHECK(r[0].src.empty()); // %tid.x is a special register, not a register dependence
    CHECK(r[1].dst.ids[0] == 2);
    REQUIRE(r[1].src.size() == 1);
    CHECK(r[1].src.ids[0] == 1);
    CHECK(r[3].cls == InstrClass::int_alu); // ret: issued like an integer instruction
    CHECK(e.trace.pcs == std::vector<ir::Pc>{0, 1, 2, 3});
    for (const auto& rec : r) CHECK(rec.warp == 0);
}

TEST_CASE("TEG on one warp: mov, two adds on its result, ret take 64 cycles on GT200 (hand derivation)") {
    // mov issues at 0, r1 ready at 24. add r2 waits for r1: issues at 24 (done 48), warp inactive to 32.
    // add r3 issues at 32 (done 56), inactive to 40. ret issues at 40 and finishes at 64.
    const auto e = estimate(three_ints, 32);
    CHECK(e.result.issue_cycle == std::vector<std::uint64_t>{0, 24, 32, 40});
    CHECK(e.result.cycles == 64);
    CHECK(e.result.unit(model::TegUnit::sp).issued == 4);
}

TEST_CASE("TEG on two warps: round-robin issue interleaves them under the SP's 4-cycle multi-warp issue latency") {
    // Records: warp 0 then warp 1 (warp 0's four, warp 1's four). Derivation (period 2, SP accepts every 4):
    //   w0 mov 0, w1 mov 4 (SP busy until 4); w0 add 24 (r1 ready), w1 add 28; w0 add 32, w1 add 36;
    //   w0 ret 40, w1 ret 44 -> last completion 44 + 24 = 68.
    const auto e = estimate(three_ints, 64);
    REQUIRE(e.trace.records.size() == 8);
    CHECK(e.trace.records[4].warp == 1);
    CHECK(e.result.issue_cycle == std::vector<std::uint64_t>{0, 24, 32, 40, 4, 28, 36, 44});
    CHECK(e.result.cycles == 68);
}

TEST_CASE("global loads carry the memory flag and the GT200 global latency") {
    // ld.param (a shared-memory operand on compute capability 1.x: 74 cycles) -> cvta -> ld.global (436) -> add.
    const std::string ptx = kernel(".param .u64 p", "  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n",
                                   "  ld.param.u64 %rd1, [p];\n  cvta.to.global.u64 %rd2, %rd1;\n"
                                   "  ld.global.u32 %r1, [%rd2];\n  add.s32 %r2, %r1, 1;\n");
    func::Device device;
    const func::DevPtr buffer = device.malloc(64);
    const auto e = estimate(ptx, 32, func::Args(buffer), &device);
    const auto& r = e.trace.records;
    REQUIRE(r.size() == 5);
    CHECK(r[0].cls == InstrClass::int_alu);
    CHECK(r[0].memory); // parameter read through shared memory
    CHECK(r[0].shared_conflict_ways == 1);
    CHECK(r[2].cls == InstrClass::global_load);
    CHECK(r[2].memory);
    // ld.param 0 -> 74; cvta 74 -> 98; ld.global 98 -> 534; add 534 -> 558; ret (independent) issues at
    // max(same-warp 534 + 8, multi-warp: LD/ST and SP are different units) = 542 -> 566.
    CHECK(e.result.issue_cycle == std::vector<std::uint64_t>{0, 74, 98, 534, 542});
    CHECK(e.result.cycles == 566);
}

TEST_CASE("shared accesses become shared-operand instructions whose conflict degree comes from the addresses") {
    // Each lane reads shared[tid * stride]: stride 4 B is conflict-free, 8 B is 2-way, 64 B puts all 16 lanes
    // of a half-warp in bank 0 (16-way). Latency 74 + ceil((266 - 74) * (ways - 1) / 15).
    struct Case {
        unsigned stride, ways, latency;
    };
    for (const Case c : {Case{4, 1, 74}, Case{8, 2, 87}, Case{64, 16, 266}}) {
        const unsigned stride = c.stride, ways = c.ways, latency = c.latency;
        const std::string ptx = kernel("", "  .reg .b32 %r<4>;\n  .shared .align 4 .b8 buf[2048];\n",
                                       "  mov.u32 %r1, %tid.x;\n  mul24.lo.u32 %r2, %r1, " + std::to_string(stride) +
                                           ";\n  ld.shared.u32 %r3, [%r2];\n");
        // buf is the kernel's only shared variable, at offset 0 of the shared window.
        INFO("stride " << stride);
        const auto e = estimate(ptx, 32);
        const auto& r = e.trace.records;
        REQUIRE(r.size() == 4);
        CHECK(r[1].cls == InstrClass::int_mul16);
        CHECK(r[2].cls == InstrClass::int_alu);
        CHECK(r[2].memory);
        CHECK(r[2].shared_conflict_ways == ways);
        // mov 0 -> 24; mul24 24 -> 48; ld.shared 48 -> 48 + latency; ret at 56 -> 80.
        CHECK(e.result.issue_cycle[2] == 48);
        CHECK(e.result.cycles == std::max<std::uint64_t>(48 + latency, 80));
    }
}

TEST_CASE("floating-point instructions map onto the Table 3.1 rows by operation") {
    const std::string ptx =
        kernel("", "  .reg .f32 %f<8>;\n  .reg .f64 %fd<4>;\n  .reg .pred %p<2>;\n",
               "  mov.f32 %f1, 0f3F800000;\n  add.f32 %f2, %f1, %f1;\n  mul.f32 %f3, %f1, %f2;\n"
               "  fma.rn.f32 %f4, %f1, %f2, %f3;\n  setp.lt.f32 %p1, %f4, %f1;\n"
               "  cvt.f64.f32 %fd1, %f4;\n  mul.f64 %fd2, %fd1, %fd1;\n  fma.rn.f64 %fd3, %fd1, %fd2, %fd1;\n"
               "  @%p1 add.f32 %f5, %f1, %f1;\n  bar.sync 0;\n");
    const auto e = estimate(ptx, 32);
    std::vector<InstrClass> classes;
    for (const auto& r : e.trace.records) classes.push_back(r.cls);
    CHECK(classes == std::vector<InstrClass>{InstrClass::int_alu, InstrClass::fp32_add, InstrClass::fp32_mul,
                                             InstrClass::fp32_mad, InstrClass::fp32_add, InstrClass::fp64_add,
                                             InstrClass::fp64_mul, InstrClass::fp64_fma, InstrClass::fp32_add,
                                             InstrClass::barrier, InstrClass::int_alu});
    // fma %f4, %f1, %f2, %f3 reads ids 1, 2, 3 (f32 registers declared first); the guarded add reads its guard.
    const auto& fma = e.trace.records[3];
    CHECK(std::vector<model::RegisterId>(fma.src.begin(), fma.src.end()) == std::vector<model::RegisterId>{1, 2, 3});
    const auto& guarded = e.trace.records[8];
    CHECK(std::find(guarded.src.begin(), guarded.src.end(), model::RegisterId{12 + 1}) != guarded.src.end());
    CHECK(e.trace.records[9].dst.empty());
}

TEST_CASE("a barrier record per warp makes TEG hold the early warp until the CTA arrives") {
    // Warp 0 does a dependent add before the barrier, warp 1 skips it; after the barrier each does one add.
    const std::string ptx = kernel("", "  .reg .b32 %r<4>;\n  .reg .pred %p<2>;\n",
                                   "  mov.u32 %r1, %tid.x;\n  setp.ge.u32 %p1, %r1, 32;\n  @%p1 bra WAIT;\n"
                                   "  add.s32 %r1, %r1, 1;\nWAIT:\n  bar.sync 0;\n  add.s32 %r2, %r1, 7;\n");
    const auto e = estimate(ptx, 64);
    std::uint64_t barriers = 0;
    for (const auto& r : e.trace.records) barriers += r.cls == InstrClass::barrier;
    CHECK(barriers == 2);
    // The post-barrier add of warp 1 cannot issue before warp 0 reached the barrier.
    std::uint64_t w0_barrier = 0, w1_after = 0;
    for (std::size_t i = 0; i < e.trace.records.size(); ++i) {
        const auto& r = e.trace.records[i];
        if (r.warp == 0 && r.cls == InstrClass::barrier) w0_barrier = e.result.issue_cycle[i];
        if (r.warp == 1 && i + 1 < e.trace.records.size() && e.trace.records[i].cls == InstrClass::barrier)
            w1_after = e.result.issue_cycle[i + 1];
    }
    CHECK(w1_after > w0_barrier);
}

TEST_CASE("instructions TEG cannot time are rejected with the PTX line") {
    const std::string mul32 =
        kernel("", "  .reg .b32 %r<4>;\n", "  mov.u32 %r1, %tid.x;\n  mul.lo.s32 %r2, %r1, %r1;\n");
    CHECK_THROWS_WITH_AS(estimate(mul32, 32), doctest::Contains("32-bit integer multiply"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(estimate(mul32, 32), doctest::Contains("PTX line 8"), std::invalid_argument);
    // The caller may decide how to time it.
    model::TegAdapterOptions options;
    options.int_mul32_as = InstrClass::int_mad16;
    const auto e = estimate(mul32, 32, func::Args{}, nullptr, options);
    CHECK(e.trace.records[1].cls == InstrClass::int_mad16);

    const std::string sfu =
        kernel("", "  .reg .f32 %f<4>;\n", "  mov.f32 %f1, 0f3F800000;\n  sin.approx.f32 %f2, %f1;\n");
    // The adapter maps it; the GT200 parameter set has no SFU timing and says so.
    CHECK_THROWS_WITH_AS(estimate(sfu, 32), doctest::Contains("sfu"), std::invalid_argument);
}
