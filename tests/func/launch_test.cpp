// Launch-time checks (arguments against the .param list, grid/block/shared limits, warp width), the instruction
// limit, thread/CTA indexing in 3D, special registers, concurrently resident CTAs, statistics, and a throughput
// benchmark (skipped unless asked for: `test_func -ns -tc='*thread-instructions per second*'`).
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "ptx_harness.hpp"

using namespace gpuarch;
using namespace gpuarch::func;

namespace {

const char* store_one = R"(
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd1, %r1, 4;
    add.s64 %rd2, %rd62, %rd1;
    st.global.u32 [%rd2], 1;
)";

std::string launch_error(const Module& module, const LaunchConfig& config, const Args& args,
                         const LaunchOptions& options = {}) {
    Device device;
    try {
        launch(device, module, "k", config, args, options);
    } catch (const KernelError& e) {
        return e.what();
    }
    return "no error";
}

} // namespace

TEST_CASE("arguments are checked against the kernel's .param list by count and by size") {
    const Module module = Module::from_string(test::wrap_body(store_one), "args.ptx");
    const LaunchConfig one{};
    CHECK(launch_error(module, one, Args(DevPtr{0})) ==
          "kernel 'k' takes 2 parameter(s) but the launch passes 1 argument(s)");
    CHECK(launch_error(module, one, Args(DevPtr{0}, std::uint32_t{5})) ==
          "kernel 'k': argument 1 for parameter 'in' (.u64) must be 8 bytes, but 4 bytes were passed");
    CHECK(launch_error(module, one, Args(DevPtr{0}, DevPtr{0}, 1)).find("passes 3 argument(s)") != std::string::npos);
}

TEST_CASE("launch shapes outside CUDA's limits or the kernel's directives are rejected before any thread runs") {
    const Module module = Module::from_string(test::wrap_body(store_one), "shape.ptx");
    const Args args(DevPtr{0}, DevPtr{0});
    CHECK(launch_error(module, {Dim3{0, 1, 1}, Dim3{1, 1, 1}, 0}, args) ==
          "cannot launch kernel 'k': grid (0,1,1) has a zero dimension");
    CHECK(launch_error(module, {Dim3{1, 1, 1}, Dim3{1, 0, 1}, 0}, args) ==
          "cannot launch kernel 'k': block (1,0,1) has a zero dimension");
    CHECK(launch_error(module, {Dim3{1, 1, 1}, Dim3{1025, 1, 1}, 0}, args) ==
          "cannot launch kernel 'k': block (1025,1,1) exceeds the maximum (1024,1024,64)");
    CHECK(launch_error(module, {Dim3{1, 1, 1}, Dim3{64, 32, 1}, 0}, args) ==
          "cannot launch kernel 'k': block (64,32,1) has 2048 threads, more than 1024");
    CHECK(launch_error(module, {Dim3{1, 70000, 1}, Dim3{1, 1, 1}, 0}, args).find("exceeds the maximum") !=
          std::string::npos);
    CHECK(launch_error(module, {Dim3{1, 1, 1}, Dim3{32, 1, 1}, 50000}, args)
              .find("50000 bytes of dynamic shared memory exceed the limit of 49152 bytes per CTA") !=
          std::string::npos);
    CHECK(launch_error(module, {Dim3{1, 1, 1}, Dim3{32, 1, 1}, 0}, args, LaunchOptions{48}) ==
          "cannot launch kernel 'k': warp width 48 is not a multiple of 32 between 32 and 512");
    const std::string directives = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in) .reqntid 64, 1, 1
{
  ret;
}
.visible .entry m(.param .u64 out, .param .u64 in) .maxntid 128, 1, 1
{
  ret;
}
)";
    const Module directed = Module::from_string(directives, "directives.ptx");
    CHECK(launch_error(directed, {Dim3{1, 1, 1}, Dim3{32, 1, 1}, 0}, args) ==
          "cannot launch kernel 'k': block (32,1,1) differs from the kernel's .reqntid (64,1,1)");
    Device device;
    CHECK_THROWS_WITH_AS(launch(device, directed, "m", {Dim3{1, 1, 1}, Dim3{256, 1, 1}, 0}, args),
                         doctest::Contains("more than the kernel's .maxntid (128,1,1) allows"), KernelError);
    CHECK_THROWS_WITH_AS(launch(device, directed, "nope", {}, args),
                         doctest::Contains("has no kernel entry named 'nope' (entries: k, m)"), gpuarch::Error);
}

TEST_CASE("a kernel that does not terminate stops at the instruction limit with a message naming it") {
    const Module module = Module::from_string(test::wrap_body("LOOP:\n    bra LOOP;"), "spin.ptx");
    const std::string what = launch_error(module, {}, Args(DevPtr{0}, DevPtr{0}), LaunchOptions{32, 1000});
    CHECK(what.find("kernel 'k'") != std::string::npos);
    CHECK(what.find("instruction limit of 1000 warp instructions") != std::string::npos);
    CHECK(what.find("spin.ptx:") != std::string::npos);
}

TEST_CASE("every thread of a 3D grid of 3D blocks sees its own %tid, %ntid, %ctaid and %nctaid") {
    const std::string body = R"(
        mov.u32 %r1, %tid.x;
        mov.u32 %r2, %tid.y;
        mov.u32 %r3, %tid.z;
        mov.u32 %r4, %ntid.x;
        mov.u32 %r5, %ntid.y;
        mov.u32 %r6, %ctaid.x;
        mov.u32 %r7, %ctaid.y;
        mov.u32 %r8, %ctaid.z;
        mov.u32 %r9, %nctaid.x;
        mov.u32 %r10, %nctaid.y;
        mov.u32 %r11, %ntid.z;
        mad.lo.s32 %r12, %r3, %r5, %r2;
        mad.lo.s32 %r12, %r12, %r4, %r1;       // thread index in the block
        mad.lo.s32 %r13, %r8, %r10, %r7;
        mad.lo.s32 %r13, %r13, %r9, %r6;       // block index in the grid
        mul.lo.s32 %r14, %r4, %r5;
        mul.lo.s32 %r14, %r14, %r11;           // threads per block
        mad.lo.s32 %r15, %r13, %r14, %r12;
        mul.wide.u32 %rd1, %r15, 4;
        add.s64 %rd2, %rd62, %rd1;
        add.u32 %r16, %r15, 1;
        st.global.u32 [%rd2], %r16;
    )";
    const LaunchConfig config{Dim3{3, 2, 2}, Dim3{5, 4, 3}, 0};
    const unsigned total = 12 * 60;
    for (unsigned width : {32U, 64U, 128U}) {
        INFO("warp width " << width);
        const auto r = test::run_body(body, total * 4, {}, config, LaunchOptions{width});
        for (unsigned i = 0; i < total; ++i) CHECK(r.u32(i) == i + 1);
        CHECK(r.stats.ctas == 12);
        // 60 threads per block: two 32-lane warps (one partial), one 64- or 128-lane warp.
        const unsigned warps = width == 32 ? 2 : 1;
        CHECK(r.stats.warp_instructions == 12 * warps * (4 + 22 + 1));
        CHECK(r.stats.thread_instructions == 12 * 60 * (4 + 22 + 1));
    }
}

TEST_CASE("%laneid and %warpid keep 32-thread numbering on wide warps; %clock64 advances with each instruction") {
    for (unsigned width : {32U, 64U}) {
        const auto r =
            test::run_body(R"(
            mov.u32 %r1, %tid.x;
            mov.u32 %r2, %laneid;
            mov.u32 %r3, %warpid;
            mov.u32 %r4, %nwarpid;
            mov.u64 %rd1, %clock64;
            mov.u64 %rd2, %clock64;
            sub.s64 %rd3, %rd2, %rd1;
            cvt.u32.u64 %r5, %rd3;
            mul.wide.u32 %rd4, %r1, 16;
            add.s64 %rd5, %rd62, %rd4;
            st.global.v4.u32 [%rd5], {%r2, %r3, %r4, %r5};
        )",
                           96 * 16, {}, LaunchConfig{Dim3{1, 1, 1}, Dim3{96, 1, 1}, 0}, LaunchOptions{width});
        for (unsigned t = 0; t < 96; ++t) {
            CHECK(r.u32(4 * t) == t % 32);
            CHECK(r.u32(4 * t + 1) == t / 32);
            CHECK(r.u32(4 * t + 2) == 3);
            CHECK(r.u32(4 * t + 3) == 1);
        }
    }
}

TEST_CASE("CTAs that wait on each other through global memory finish when enough of them are resident") {
    // CTA 0 spins until CTA 1 sets a flag.
    const Module module = Module::from_string(test::wrap_body(R"(
        mov.u32 %r1, %ctaid.x;
        setp.eq.u32 %p1, %r1, 1;
        @%p1 bra SET;
    WAIT:
        ld.volatile.global.u32 %r2, [%rd63];
        setp.eq.u32 %p2, %r2, 0;
        @%p2 bra WAIT;
        st.global.u32 [%rd62], 7;
        bra END;
    SET:
        st.volatile.global.u32 [%rd63], 1;
    END:
    )"),
                                              "spin_wait.ptx");
    Device device;
    const DevPtr out = device.malloc(4), flag = device.malloc(4);
    const LaunchConfig two{Dim3{2, 1, 1}, Dim3{1, 1, 1}, 0};
    LaunchOptions together;
    together.resident_ctas = 2;
    launch(device, module, "k", two, Args(out, flag), together);
    CHECK(device.download<std::uint32_t>(out, 1)[0] == 7);
    device.memset(flag, 0, 4);
    LaunchOptions one_at_a_time;
    one_at_a_time.instruction_limit = 100000;
    CHECK_THROWS_WITH_AS(launch(device, module, "k", two, Args(out, flag), one_at_a_time),
                         doctest::Contains("instruction limit"), KernelError);
}

TEST_CASE("a StepResult narrower than the launch's warps is refused instead of overrun") {
    Device device;
    const Module module = Module::from_string(test::wrap_body(store_one), "narrow.ptx");
    const DevPtr out = device.malloc(256);
    KernelExecution ex(device, module, "k", LaunchConfig{Dim3{1, 1, 1}, Dim3{64, 1, 1}, 0}, Args(out, out),
                       LaunchOptions{64});
    CtaState cta = ex.start_cta(0);
    StepResult narrow(32);
    CHECK_THROWS_AS(ex.step(cta, 0, narrow), gpuarch::Error);
    CHECK_THROWS_AS(ex.start_cta(1), KernelError);
}

TEST_CASE("functional execution runs arithmetic-heavy code at >= 100 million thread-instructions per second" *
          doctest::skip()) {
    // 64 CTAs x 256 threads, each running 2000 iterations of a 10-instruction integer/f32 loop body.
    const Module module = Module::from_string(test::wrap_body(R"(
        mov.u32 %r1, %tid.x;
        cvt.rn.f32.u32 %f1, %r1;
        mov.f32 %f2, 0f3F800000;
        mov.u32 %r2, 0;
        mov.u32 %r3, 1;
    LOOP:
        fma.rn.f32 %f2, %f2, 0f3F7FFFFE, %f1;
        mul.f32 %f3, %f2, 0f3F000000;
        add.f32 %f1, %f3, 0f3F800000;
        mad.lo.s32 %r3, %r3, 1664525, 1013904223;
        xor.b32 %r4, %r3, %r1;
        shr.u32 %r5, %r4, 3;
        add.u32 %r2, %r2, 1;
        and.b32 %r6, %r5, %r2;
        setp.lt.u32 %p1, %r2, 2000;
        @%p1 bra LOOP;
        mul.wide.u32 %rd1, %r1, 4;
        add.s64 %rd2, %rd62, %rd1;
        st.global.f32 [%rd2], %f2;
    )"),
                                              "bench.ptx");
    Device device;
    const DevPtr out = device.malloc(256 * 4);
    const auto start = std::chrono::steady_clock::now();
    const FunctionalStats stats =
        launch(device, module, "k", LaunchConfig{Dim3{64, 1, 1}, Dim3{256, 1, 1}, 0}, Args(out, out));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double rate = static_cast<double>(stats.thread_instructions) / seconds;
    MESSAGE("executed " << stats.thread_instructions << " thread-instructions in " << seconds << " s: " << rate / 1e6
                        << " million per second");
    CHECK(rate >= 100e6);
}
