#pragma once
// Driver and CPU reference for kernels/src/transpose_naive.cu (shared by transpose_tiled). Pure data movement:
// exact comparison.
#include "common.hpp"

namespace gpuarch::kernels {

inline std::vector<float> transpose_reference(const std::vector<float>& in, std::size_t rows, std::size_t cols) {
    std::vector<float> out(in.size());
    for (std::size_t y = 0; y < rows; ++y)
        for (std::size_t x = 0; x < cols; ++x) out[x * rows + y] = in[y * cols + x];
    return out;
}

// small: 40 x 72; large: 384 x 320. Neither is a multiple of 32 in both dimensions.
inline std::pair<std::int32_t, std::int32_t> transpose_shape(Size size) {
    return size == Size::small ? std::pair{40, 72} : std::pair{384, 320};
}

// Blocks of 16 x 16, one thread per element.
template <class Launcher>
CaseResult run_transpose_naive(func::Device& device, const func::Module& module, Launcher&& launch, Size size) {
    const auto [rows, cols] = transpose_shape(size);
    SplitMix64 rng(0x7ec7'0add'0000'000aULL);
    const std::vector<float> in =
        random_floats(rng, static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols), -1000.0f, 1000.0f);
    DeviceBuffer din(device, in);
    DeviceBuffer dout = poisoned_buffer(device, in.size() * sizeof(float));
    constexpr std::uint32_t block = 16;
    launch(module, "transpose_naive",
           config_2d(ceil_div(static_cast<std::uint64_t>(cols), block),
                     ceil_div(static_cast<std::uint64_t>(rows), block), block, block),
           func::Args(din.ptr(), dout.ptr(), rows, cols));
    Checker check;
    check.exact("out", dout.download<float>(in.size()),
                transpose_reference(in, static_cast<std::size_t>(rows), static_cast<std::size_t>(cols)));
    return check.result();
}

} // namespace gpuarch::kernels
