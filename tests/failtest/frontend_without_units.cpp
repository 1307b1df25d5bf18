// expect: the Frontend policy must provide `static constexpr std::array<UnitSpec, N> units`
// A frontend that forgets its execution units is rejected with a sentence naming the member.
#include <gpuarch/frontend/kepler.hpp>
#include <gpuarch/timing/concepts.hpp>

struct FrontendWithoutUnits {
    static constexpr std::string_view name = "NoUnits";
    static constexpr unsigned warp_width = 32;
    static constexpr unsigned schedulers = 1;
};

#ifdef GPUARCH_FAILTEST_SHOULD_FAIL
static_assert(gpuarch::timing::check_frontend<FrontendWithoutUnits>());
#else
static_assert(gpuarch::timing::check_frontend<gpuarch::frontend::KeplerFrontend>());
#endif

int main() { return 0; }
