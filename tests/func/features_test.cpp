// The kernels of kernels/features/ on the functional engine (feature_kernels.hpp has the kernels, inputs and
// exact expected outputs; features_timing_test.cpp runs the same checks on timed GPUs).
#include "feature_kernels.hpp"

namespace {
using namespace gpuarch::func;
using namespace gpuarch::func::test::features;

const Launcher functional = [](Device& device, const Module& module, std::string_view entry, const LaunchConfig& config,
                               const Args& args) { launch(device, module, entry, config, args); };
} // namespace

TEST_CASE("device printf prints every conversion exactly, lanes in ascending order, and returns the argument count") {
    check_printf_formats(functional);
}

TEST_CASE("device printf prints a %s string and %p, and reports a bad or unterminated %s pointer with its site") {
    check_printf_string(functional);
}

TEST_CASE("a failed device assert stops the launch with kind assertion and the GPU's assertion text") {
    check_assert(functional);
}

TEST_CASE("trap stops the launch with kind trap at the trapping thread") { check_trap(functional); }
