// The constructs gpuarch leaves out of scope (issue 20): tensor-core matrix instructions, dynamic parallelism and
// device-side graph calls. Each kernel of kernels/out_of_scope/ (CUDA written here, compiled by its `regen`) must
// be refused with a ParseError at the offending statement whose message names the feature: never a crash, never
// a run.
#include <string>

#include "ptx_test_support.hpp"

#ifndef GPUARCH_KERNELS_DIR
#define GPUARCH_KERNELS_DIR "kernels"
#endif

using namespace gpuarch;
using namespace gpuarch::test;

namespace {
std::string refusal(const std::string& name) {
    const std::string path = std::string(GPUARCH_KERNELS_DIR) + "/out_of_scope/" + name + ".ptx";
    try {
        (void)ptx::parse_file(path);
    } catch (const ptx::ParseError& e) {
        return e.what();
    }
    return "accepted";
}
} // namespace

TEST_CASE("tensor-core wmma is refused at its first instruction, naming tensor cores") {
    const std::string what = refusal("tensor_core");
    CHECK(what.find("tensor_core.ptx:") != std::string::npos);
    CHECK(what.find("unsupported instruction 'wmma.load.a.sync.aligned.row.m16n16k16.global.f16': tensor-core matrix "
                    "instructions are not supported") != std::string::npos);
}

TEST_CASE("a device-side kernel launch is refused as dynamic parallelism") {
    const std::string what = refusal("device_launch");
    CHECK(what.find("device_launch.ptx:") != std::string::npos);
    CHECK(what.find("the address of the kernel 'child' is taken, as for a device-side kernel launch: dynamic "
                    "parallelism is out of scope for gpuarch") != std::string::npos);
    // Without the kernel's address (a launch through a parameter buffer only), the call itself is refused.
    const std::string call = parse_error_of(
        ".version 8.0\n.target sm_75\n.address_size 64\n"
        ".extern .func (.param .b64 func_retval0) __cudaCDP2GetParameterBufferV2(.param .b64 a, .param .align 4 .b8 "
        "b[12], .param .align 4 .b8 c[12], .param .b32 d);\n"
        ".visible .entry k()\n{\n\t{\n\t.param .b64 p0;\n\t.param .align 4 .b8 p1[12];\n\t.param .align 4 .b8 p2[12];\n"
        "\t.param .b32 p3;\n\t.param .b64 r;\n\tcall.uni (r), __cudaCDP2GetParameterBufferV2, (p0, p1, p2, "
        "p3);\n\t}\n\tret;\n}\n");
    CHECK(call == "test.ptx:13:2: call to '__cudaCDP2GetParameterBufferV2': a device-side kernel launch (dynamic "
                  "parallelism) is out of scope for gpuarch");
}

TEST_CASE("a device-side graph-conditional call is refused, naming graphs") {
    const std::string what = refusal("graph_conditional");
    CHECK(what.find("graph_conditional.ptx:") != std::string::npos);
    CHECK(what.find("call to 'cudaGraphSetConditional': a device-side graph call (graph-conditional nodes, device "
                    "graph launch) is out of scope for gpuarch") != std::string::npos);
}
