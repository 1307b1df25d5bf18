// expect: an L1 needs at least one MSHR entry
// L1<MSHR<0>> cannot hold a single miss.
#include <gpuarch/mem/l1.hpp>

using namespace gpuarch::mem;
#ifdef GPUARCH_FAILTEST_SHOULD_FAIL
using Cache = L1<MSHR<0>>;
#else
using Cache = L1<MSHR<32>>;
#endif

int main() { return Cache::name.empty() ? 1 : 0; }
