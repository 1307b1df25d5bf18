#pragma once
// Driver and CPU reference for kernels/src/saxpy.cu. Exact comparison: nvcc contracts alpha * x + y into one
// fma.rn.f32, mirrored with std::fma.
#include "common.hpp"

namespace gpuarch::kernels {

inline std::vector<float> saxpy_reference(float alpha, const std::vector<float>& x, std::vector<float> y) {
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = std::fma(alpha, x[i], y[i]);
    return y;
}

// small: 1000 elements on 4 blocks of 128 (each thread loops twice); large: 200000 elements on 256 blocks of 256
// (each thread loops three or four times).
template <class Launcher>
CaseResult run_saxpy(func::Device& device, const func::Module& module, Launcher&& launch, Size size) {
    const bool small = size == Size::small;
    const std::int32_t n = small ? 1000 : 200000;
    const std::uint32_t block = small ? 128 : 256;
    const std::uint32_t grid = small ? 4 : 256;
    SplitMix64 rng(0x7ec7'0add'0000'0002ULL);
    const float alpha = rng.uniform(1.0f, 3.0f);
    const std::vector<float> x = random_floats(rng, static_cast<std::size_t>(n), -10.0f, 10.0f);
    const std::vector<float> y = random_floats(rng, static_cast<std::size_t>(n), -10.0f, 10.0f);

    DeviceBuffer dx(device, x), dy(device, y);
    launch(module, "saxpy", config_1d(grid, block), func::Args(n, alpha, dx.ptr(), dy.ptr()));

    Checker check;
    check.exact("y", dy.download<float>(y.size()), saxpy_reference(alpha, x, y));
    return check.result();
}

} // namespace gpuarch::kernels
