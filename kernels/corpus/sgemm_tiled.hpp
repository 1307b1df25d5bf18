#pragma once
// Driver for kernels/src/sgemm_tiled.cu; problem and reference are those of sgemm_naive (same k order, so the
// comparison stays exact).
#include "sgemm_naive.hpp"

namespace gpuarch::kernels {

// small: 24 x 40 x 20 (grid 3 x 2, K not a multiple of the tile); large: 128 x 128 x 64 (grid 8 x 8).
template <class Launcher>
CaseResult run_sgemm_tiled(func::Device& device, const func::Module& module, Launcher&& launch, Size size) {
    return detail::run_sgemm("sgemm_tiled", 0x7ec7'0add'0000'0009ULL, device, module, launch, size);
}

} // namespace gpuarch::kernels
