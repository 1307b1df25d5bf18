// Registers start at zero where a thread can observe their start value (func::KernelExecution::start_cta zeroes
// the registers live at entry, ir/liveness.hpp), also when a CTA reuses the buffers of a finished one that wrote
// them.
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
    const BodyRun run = run_body(body, ctas * 8, {}, func::LaunchConfig{func::Dim3{ctas, 1, 1}, func::Dim3{32, 1, 1}, 0});
    CHECK(run.u32(0) == 77);
    CHECK(run.u32(1) == 55);
    for (unsigned c = 1; c < ctas; ++c) {
        INFO("CTA " << c);
        CHECK(run.u32(2 * c) == 0);
        CHECK(run.u32(2 * c + 1) == 0);
    }
}
