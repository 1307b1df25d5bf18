// Registers live at kernel entry (ir/liveness.hpp): read on some path before an unguarded write.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <gpuarch/ir/liveness.hpp>
#include <gpuarch/ptx/parser.hpp>

using namespace gpuarch;

namespace {

ir::Kernel kernel_of(const std::string& body) {
    const std::string text = ".version 9.0\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n"
                             ".reg .pred %p<8>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n" +
                             body + "\n}\n";
    return ptx::parse(text, "liveness.ptx").kernels.at(0);
}

// The names of the live-in registers, in register order.
std::vector<std::string> live_names(const std::string& body) {
    const ir::Kernel k = kernel_of(body);
    std::vector<std::string> names;
    for (const ir::RegId r : ir::registers_live_at_entry(k)) names.push_back(k.registers.at(r).name);
    return names;
}

} // namespace

TEST_CASE("a register read before any write is live at entry; one written first is not") {
    CHECK(live_names("add.s32 %r2, %r1, 1;\n"
                     "mov.u32 %r3, 5;\n"
                     "add.s32 %r4, %r3, %r2;\n"
                     "st.global.u32 [%rd1], %r4;\n"
                     "ret;") == std::vector<std::string>{"%r1", "%rd1"});
}

TEST_CASE("an instruction reads its sources before it writes its destination") {
    CHECK(live_names("add.s32 %r1, %r1, 1;\nst.global.u32 [%rd1], %r1;\nret;") ==
          std::vector<std::string>{"%r1", "%rd1"});
}

TEST_CASE("a guarded write does not cover the threads whose guard is false") {
    CHECK(live_names("mov.u64 %rd1, 0;\n"
                     "setp.eq.s32 %p1, %r1, 0;\n"
                     "@%p1 mov.u32 %r2, 5;\n"
                     "st.global.u32 [%rd1], %r2;\n"
                     "ret;") == std::vector<std::string>{"%r1", "%r2"});
}

TEST_CASE("a write on one arm of a branch does not cover the other arm's threads; writes on both arms do") {
    CHECK(live_names("mov.u64 %rd1, 0;\n"
                     "mov.u32 %r1, 0;\n"
                     "setp.eq.s32 %p1, %r1, 0;\n"
                     "@%p1 bra ELSE;\n"
                     "mov.u32 %r2, 1;\n"
                     "mov.u32 %r3, 1;\n"
                     "bra JOIN;\n"
                     "ELSE:\n"
                     "mov.u32 %r3, 2;\n"
                     "JOIN:\n"
                     "add.s32 %r4, %r2, %r3;\n"
                     "st.global.u32 [%rd1], %r4;\n"
                     "ret;") == std::vector<std::string>{"%r2"});
}

TEST_CASE("a loop-carried register written before the loop is not live; one first written in the body is") {
    CHECK(live_names("mov.u64 %rd1, 0;\n"
                     "mov.u32 %r1, 0;\n"
                     "LOOP:\n"
                     "add.s32 %r1, %r1, 1;\n"
                     "add.s32 %r3, %r3, %r1;\n" // %r3 accumulates from its (unwritten) start value
                     "setp.lt.s32 %p1, %r1, 4;\n"
                     "@%p1 bra LOOP;\n"
                     "st.global.u32 [%rd1], %r3;\n"
                     "ret;") == std::vector<std::string>{"%r3"});
}
