// Registers start at zero where a thread can observe their start value (func::KernelExecution::start_cta zeroes
// the registers live at entry, ir/liveness.hpp), also when a CTA reuses the buffers of a finished one that wrote
// them, and also when the thread observing it reads another lane's register through shfl.
#include <doctest/doctest.h>

#include "ptx_harness.hpp"

using namespace gpuarch;
using namespace gpuarch::func::test;

TEST_CASE("a register a CTA reads before writing it starts at zero, whatever an earlier CTA left in it") {
    // CTA 0 writes 77 into %r1 (branch) and 55 into %r2 (guarded write); every other CTA skips both writes and
    // stores what it reads. The CTAs run one after another in reused buffers.
    const std::string body = "mov.u32 %r10, %ctaid.x;\n"
                             "setp.eq.u32 %p1, %r10, 0;\n"
                             "@!%p1 bra READ;\n"
                             "mov.u32 %r1, 77;\n"
                             "READ:\n"
                             "@%p1 mov.u32 %r2, 55;\n"
                             "mul.wide.u32 %rd1, %r10, 8;\n"
                             "add.s64 %rd2, %rd62, %rd1;\n"
                             "st.global.u32 [%rd2], %r1;\n"
                             "st.global.u32 [%rd2+4], %r2;\n";
    constexpr unsigned ctas = 6;
    const BodyRun run =
        run_body(body, ctas * 8, {}, func::LaunchConfig{func::Dim3{ctas, 1, 1}, func::Dim3{32, 1, 1}, 0});
    CHECK(run.u32(0) == 77);
    CHECK(run.u32(1) == 55);
    for (unsigned c = 1; c < ctas; ++c) {
        INFO("CTA " << c);
        CHECK(run.u32(2 * c) == 0);
        CHECK(run.u32(2 * c + 1) == 0);
    }
}

TEST_CASE("shfl from a lane that never wrote its source register reads zero, whatever an earlier CTA left there") {
    // Found by the differential fuzzer (docs/differential_fuzzing.md): shfl reads its source register in every
    // lane of the group, also in lanes that exited before writing it; the row held what the buffer's previous CTA
    // had left, which differed between the functional launch and each timed SM. CTA 0 writes 77 into %r1 in every
    // lane; in the other CTAs lanes 16-31 exit first and lanes 0-15 write 5; lane 0 then reads lane 20. Every
    // thread that reaches the shfl wrote %r1, so only the shfl rule makes it start at zero.
    const std::string body = "mov.u32 %r10, %ctaid.x;\n"
                             "mov.u32 %r11, %tid.x;\n"
                             "setp.eq.u32 %p1, %r10, 0;\n"
                             "@%p1 bra WRITE;\n"
                             "setp.ge.u32 %p2, %r11, 16;\n"
                             "@%p2 exit;\n"
                             "mov.u32 %r1, 5;\n"
                             "bra READ;\n"
                             "WRITE:\n"
                             "mov.u32 %r1, 77;\n"
                             "READ:\n"
                             "shfl.sync.idx.b32 %r3, %r1, 20, 31, 0xffffffff;\n"
                             "setp.ne.u32 %p3, %r11, 0;\n"
                             "@%p3 bra DONE;\n"
                             "mul.wide.u32 %rd1, %r10, 4;\n"
                             "add.s64 %rd2, %rd62, %rd1;\n"
                             "st.global.u32 [%rd2], %r3;\n"
                             "DONE:\n";
    constexpr unsigned ctas = 4;
    const BodyRun run =
        run_body(body, ctas * 4, {}, func::LaunchConfig{func::Dim3{ctas, 1, 1}, func::Dim3{32, 1, 1}, 0});
    CHECK(run.u32(0) == 77);
    for (unsigned c = 1; c < ctas; ++c) {
        INFO("CTA " << c);
        CHECK(run.u32(c) == 0);
    }
}
