// The one unit of this build that compiles the machine-independent code every other unit here only declares
// (GPUARCH_SEPARATE_COMPILATION, gpuarch/core/separate_compilation.hpp).
#include <gpuarch/separate_compilation.hpp>
