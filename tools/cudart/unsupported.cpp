#include "runtime.hpp"

#include <cstdio>
#include <cstdlib>

namespace gpuarch::cudart {

void unsupported(const char* function, const char* doc_page) {
    std::fflush(stdout);
    std::fprintf(stderr,
                 "gpuarch: %s is not supported by gpuarch's CUDA runtime (%s); docs/cuda_runtime.md lists "
                 "what is\n",
                 function, doc_page);
    std::exit(1);
}

} // namespace gpuarch::cudart
