// The Gong 2020 Fig. 5.3 / Fig. 5.7 instruction sequence, reconstructed from the text (the listing is only in the
// figure). What the text fixes:
//   - I3 depends on I1, a load into r1 ("due to the dependency with instruction 1"; "receive results from r1"), and
//     I3 and I9 are the stall points;
//   - I4 and I6 are independent, I5 is skipped; I4 writes r4, which I6 reads ("the RAW dependency based on the
//     source register r4 in I6"); I6 writes r5 and has no WAR with I5; neither is renamed (Fig. 5.7);
//   - after I6 "there are no independent instructions we can issue", so I7 and I8 are not hintable.
// Our choices for the rest: I2 is a second independent ALU instruction before the stall, I5 consumes I3's result,
// I7 stores I5's result (dependent), I8 is a global load, which cannot pass the skipped store I7 (memory hazard),
// and I9 consumes I8's load (the second stall point).
#include <doctest/doctest.h>

#include "hint_test_util.hpp"

using namespace gpuarch;
using namespace hints_test;

namespace {

const std::string fig53 = "ld.global.u32 %r1, [%rd1];\n" // I1 (pc 0)
                          "add.s32 %r2, %r2, 1;\n" // I2
                          "add.s32 %r3, %r1, %r2;\n" // I3 stall point
                          "mov.u32 %r4, 7;\n" // I4 independent
                          "add.s32 %r7, %r3, 1;\n" // I5 depends on I3: skipped
                          "add.s32 %r5, %r4, %r4;\n" // I6 independent (reads I4's r4)
                          "st.global.u32 [%rd2], %r7;\n" // I7 depends on I5
                          "ld.global.u32 %r9, [%rd3];\n" // I8 memory hazard with the skipped store I7
                          "add.s32 %r10, %r9, %r5;\n" // I9 stall point
                          "ret;";

} // namespace

TEST_CASE("Fig. 5.3: I3 and I9 are the stall points; I3 and I4 carry the hints to I4 and I6") {
    const ir::Module m = module_of(fig53);
    const ir::Kernel& k = m.kernels[0];
    const ir::KernelHints h = ir::compute_hints(k);
    REQUIRE(h.hint.size() == 10);
    for (ir::Pc pc = 0; pc < 10; ++pc) CHECK_MESSAGE(h.stall_point[pc] == (pc == 2 || pc == 8), "pc " << pc);
    CHECK(h.long_latency[0]);
    CHECK(h.long_latency[7]);
    // "adding corresponding hints to I3 and I4": I3 -> I4 (offset 1), I4 -> I6 (offset 3), I6 ends the chain.
    CHECK(h.hint[2].format == ir::InstructionHint::Format::format1);
    CHECK(h.hint[2].f1.target_offset == 1);
    CHECK(h.hint[3].format == ir::InstructionHint::Format::format1);
    CHECK(h.hint[3].f1.target_offset == 3);
    CHECK(h.hint[5].f1.target_offset == 0);
    // Fig. 5.7: rename bit 0 for both, Dst the original destination.
    CHECK_FALSE(h.hint[3].f1.rename);
    CHECK(h.hint[3].f1.dst == reg(k, "%r4"));
    CHECK_FALSE(h.hint[5].f1.rename);
    CHECK(h.hint[5].f1.dst == reg(k, "%r5"));
    CHECK(h.extra_registers == 0);
    for (ir::Pc pc = 0; pc < 10; ++pc)
        CHECK_MESSAGE(h.chain_start[pc] == (pc == 3 || pc == 5 ? ir::Pc{2} : ir::no_pc), "pc " << pc);
    for (ir::Pc pc : {4U, 6U, 7U}) CHECK(h.hint[pc].format == ir::InstructionHint::Format::none);
    // I9 has nothing after it but ret: no chain.
    CHECK(h.hint[8].f1.target_offset == 0);
    CHECK(fallthrough_chain(h, 2) == std::vector<unsigned>{1, 3});
}

TEST_CASE("Fig. 5.3: without the store I7, the load I8 is independent and joins the chain") {
    std::string body = fig53;
    body.replace(body.find("st.global.u32 [%rd2], %r7;"), 26, "st.shared.u32 [%r12], %r7;");
    const ir::Module m = module_of(body);
    const ir::KernelHints h = ir::compute_hints(m.kernels[0]);
    // A skipped shared store cannot alias a global load, so I8 is hinted; I9 still waits for I8's r9.
    CHECK(fallthrough_chain(h, 2) == std::vector<unsigned>{1, 3, 5});
    CHECK(h.stall_point[8]);
}

TEST_CASE("print_hints shows the stall point and the chain next to the PTX") {
    const ir::Module m = module_of(fig53);
    const ir::Kernel& k = m.kernels[0];
    const std::string text = ir::print_hints(k, ir::compute_hints(k));
    CHECK(text.find("/*2*/ add.s32 %r3, %r1, %r2;") != std::string::npos);
    CHECK(text.find("STALL POINT first +1") != std::string::npos);
    CHECK(text.find("hint S2+1 F1 next +3") != std::string::npos);
    CHECK(text.find("hint S2+3 F1 next end") != std::string::npos);
    CHECK(text.find("/*8*/ add.s32 %r10, %r9, %r5;") != std::string::npos);
    CHECK(text.find("STALL POINT (no chain)") != std::string::npos);
}
