// expect: include <gpuarch/separate_compilation.hpp> before any other gpuarch header
// The definitions unit of a GPUARCH_SEPARATE_COMPILATION program must include the definitions header first: a
// gpuarch header included before it has already declared the interpreter without compiling it.
#define GPUARCH_SEPARATE_COMPILATION
#ifdef GPUARCH_FAILTEST_SHOULD_FAIL
#include <gpuarch/func/host.hpp>
#endif
#include <gpuarch/separate_compilation.hpp>

int main() { return 0; }
