// The program's one unit with the machine-independent definitions (GPUARCH_SEPARATE_COMPILATION is defined for
// every unit of separate_consumer by its CMakeLists.txt).
#include <gpuarch/separate_compilation.hpp>
