#pragma once
// Driver and CPU reference for kernels/src/mvt.cu (PolyBench/GPU MVT). Exact comparison: each accumulator starts
// from its input value and is an fma.rn.f32 chain in loop order, mirrored with std::fma.
#include "common.hpp"

namespace gpuarch::kernels {

// small: 64 x 64; large: 480 x 480. Blocks of 256 threads.
template <class Launcher>
CaseResult run_mvt(func::Device& device, const func::Module& module, Launcher&& launch, Size size) {
    const std::int32_t n = size == Size::small ? 64 : 480;
    const auto un = static_cast<std::size_t>(n);
    constexpr std::uint32_t block = 256;
    SplitMix64 rng(0x7ec7'0add'0000'0017ULL);
    const std::vector<float> a = random_floats(rng, un * un, -1.0f, 1.0f);
    const std::vector<float> y1 = random_floats(rng, un, -1.0f, 1.0f);
    const std::vector<float> y2 = random_floats(rng, un, -1.0f, 1.0f);
    std::vector<float> x1 = random_floats(rng, un, -1.0f, 1.0f);
    std::vector<float> x2 = random_floats(rng, un, -1.0f, 1.0f);

    DeviceBuffer da(device, a), dy1(device, y1), dy2(device, y2), dx1(device, x1), dx2(device, x2);
    for (std::size_t i = 0; i < un; ++i)
        for (std::size_t j = 0; j < un; ++j) x1[i] = std::fma(a[i * un + j], y1[j], x1[i]);
    for (std::size_t i = 0; i < un; ++i)
        for (std::size_t j = 0; j < un; ++j) x2[i] = std::fma(a[j * un + i], y2[j], x2[i]);

    launch(module, "mvt_kernel1", config_1d(ceil_div(un, block), block), func::Args(da.ptr(), dx1.ptr(), dy1.ptr(), n));
    launch(module, "mvt_kernel2", config_1d(ceil_div(un, block), block), func::Args(da.ptr(), dx2.ptr(), dy2.ptr(), n));
    Checker check;
    check.exact("x1", dx1.download<float>(un), x1);
    check.exact("x2", dx2.download<float>(un), x2);
    return check.result();
}

} // namespace gpuarch::kernels
