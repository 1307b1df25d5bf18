#pragma once
// Driver for kernels/src/transpose_tiled.cu; reference shared with transpose_naive. Exact comparison.
#include "transpose_naive.hpp"

namespace gpuarch::kernels {

// Blocks of 32 x 8 over 32 x 32 tiles (each thread moves 4 elements). small: 40 x 72; large: 384 x 320.
template <class Launcher>
CaseResult run_transpose_tiled(func::Device& device, const func::Module& module, Launcher&& launch, Size size) {
    const auto [rows, cols] = transpose_shape(size);
    SplitMix64 rng(0x7ec7'0add'0000'000bULL);
    const std::vector<float> in =
        random_floats(rng, static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols), -1000.0f, 1000.0f);
    DeviceBuffer din(device, in);
    DeviceBuffer dout = poisoned_buffer(device, in.size() * sizeof(float));
    constexpr std::uint32_t tile = 32;
    launch(module, "transpose_tiled",
           config_2d(ceil_div(static_cast<std::uint64_t>(cols), tile), ceil_div(static_cast<std::uint64_t>(rows), tile),
                     tile, 8),
           func::Args(din.ptr(), dout.ptr(), rows, cols));
    Checker check;
    check.exact("out", dout.download<float>(in.size()),
                transpose_reference(in, static_cast<std::size_t>(rows), static_cast<std::size_t>(cols)));
    return check.result();
}

} // namespace gpuarch::kernels
