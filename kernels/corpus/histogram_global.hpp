#pragma once
// Driver for kernels/src/histogram_global.cu; input and reference are those of histogram_shared. Bit-exact.
#include "histogram_shared.hpp"

namespace gpuarch::kernels {

// small: 5000 bytes on 8 blocks of 128; large: 300000 bytes on 64 blocks of 256 (grid-stride loop).
template <class Launcher>
CaseResult run_histogram_global(func::Device& device, const func::Module& module, Launcher&& launch, Size size) {
    return detail::run_histogram("histogram_global", 0x7ec7'0add'0000'0007ULL, device, module, launch, size);
}

} // namespace gpuarch::kernels
