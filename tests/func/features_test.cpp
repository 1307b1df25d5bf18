// The kernels of kernels/features/ on the functional engine (feature_kernels.hpp has the kernels, inputs and
// exact expected outputs; features_timing_test.cpp runs the same checks on timed GPUs).
#include "feature_kernels.hpp"

namespace {
using namespace gpuarch::func;
using namespace gpuarch::func::test::features;

Launcher functional_with_width(unsigned width) {
    return Launcher{[width](Device& device, const Module& module, std::string_view entry, const LaunchConfig& config,
                            const Args& args, bool cooperative) {
                        LaunchOptions options;
                        options.warp_width = width;
                        options.cooperative = cooperative;
                        launch(device, module, entry, config, args, options);
                    },
                    width};
}
const Launcher functional = functional_with_width(32);
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

TEST_CASE("rsqrt.approx.f64 without .ftz, WARP_SZ and integer predicate immediates run as ptxas reads them") {
    check_plain_forms(functional);
    check_plain_forms(functional_with_width(64)); // WARP_SZ is the launch's warp width
}

TEST_CASE("dp4a, dp2a, sad and vabsdiff4 in every form nvcc emits match the PTX ISA's pseudo-code") {
    check_byte_dot(functional);
}

TEST_CASE("redux.sync reduces over the executing lanes of each 32-lane group in membermask") {
    check_redux(functional);
    check_redux(functional_with_width(64)); // two 32-lane groups per warp
}

TEST_CASE("prefetch and prefetchu in every state space and level change no value") { check_prefetch(functional); }

TEST_CASE("grid.sync() in a cooperative launch is a grid-wide barrier; without one it traps and says why") {
    check_grid_sync(functional);
    check_grid_sync(functional_with_width(64));
}

TEST_CASE("indirect calls through function-pointer tables and chosen pointers call the right function per lane") {
    check_indirect_calls(functional);
    check_indirect_calls(functional_with_width(64));
}

TEST_CASE("recursive and mutually recursive functions run with a frame per call; runaway recursion stops at the depth "
          "limit") {
    check_recursion(functional);
    check_recursion(functional_with_width(64));
}

TEST_CASE("tex through texture objects matches the Programming Guide's point and 9-bit linear filtering in every "
          "address mode") {
    check_textures_2d(functional);
    check_textures_other(functional);
    check_textures_2d(functional_with_width(64));
}

TEST_CASE("tex.cube and tex.acube read the face the Programming Guide's Cubemap Fetch table selects") {
    check_textures_cube(functional);
    check_textures_cube(functional_with_width(64));
}

TEST_CASE("suld.b and sust.b move raw elements of every size through surface objects with .trap, .clamp and .zero") {
    check_surfaces(functional);
}

TEST_CASE(
    "a fetch through a destroyed, never-created or wrong-kind object stops the launch naming the object and kernel") {
    check_texture_errors(functional);
}

// ---- issue 20: device-side malloc/free and cp.async ----

TEST_CASE("device malloc gives every thread a distinct 16-byte-aligned buffer, lanes in ascending order, and free "
          "returns it") {
    check_malloc_sum(functional);
    check_malloc_sum(functional_with_width(64));
}

TEST_CASE("device malloc returns NULL once the heap set by set_heap_limit is exhausted, and freed memory is reused") {
    check_malloc_exhaustion(functional);
}

TEST_CASE("free of a host allocation, an interior pointer or a freed pointer stops the launch with its site; "
          "free(NULL) does nothing") {
    check_free_errors(functional);
}

TEST_CASE(
    "cp.async copies 4, 8 and 16 bytes into shared memory, zero-fills by src-size and ignore-src, in commit groups") {
    check_cp_async(functional);
    check_cp_async(functional_with_width(64));
}
