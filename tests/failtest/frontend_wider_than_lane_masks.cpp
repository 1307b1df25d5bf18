// expect: the Frontend's warp_width must be between 1 and core::max_warp_lanes
// A frontend whose warps are wider than a lane mask holds is rejected at composition, not at its first launch.
#include <gpuarch/frontend/kepler.hpp>
#include <gpuarch/timing/concepts.hpp>

struct FrontendWiderThanLaneMasks : gpuarch::frontend::KeplerFrontend {
    static constexpr std::string_view name = "Wide";
    static constexpr unsigned warp_width = 1024;
};

#ifdef GPUARCH_FAILTEST_SHOULD_FAIL
static_assert(gpuarch::timing::check_frontend<FrontendWiderThanLaneMasks>());
#else
static_assert(gpuarch::timing::check_frontend<gpuarch::frontend::KeplerFrontend>());
#endif

int main() { return 0; }
