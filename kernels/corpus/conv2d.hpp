#pragma once
// Driver and CPU reference for kernels/src/conv2d.cu. Exact comparison: sum = fma(tap, pixel, sum) from 0 over
// the in-image taps in (ky, kx) order, as in the PTX.
#include "common.hpp"

namespace gpuarch::kernels {

inline constexpr std::int32_t conv2d_radius = 2;

inline std::vector<float> conv2d_reference(const std::vector<float>& in, const std::vector<float>& filter,
                                           std::int32_t width, std::int32_t height) {
    constexpr std::int32_t r = conv2d_radius, fw = 2 * conv2d_radius + 1;
    std::vector<float> out(in.size());
    for (std::int32_t y = 0; y < height; ++y) {
        for (std::int32_t x = 0; x < width; ++x) {
            float sum = 0.0f;
            for (std::int32_t ky = -r; ky <= r; ++ky) {
                for (std::int32_t kx = -r; kx <= r; ++kx) {
                    const std::int32_t ix = x + kx, iy = y + ky;
                    if (ix >= 0 && ix < width && iy >= 0 && iy < height)
                        sum = std::fma(filter[static_cast<std::size_t>((ky + r) * fw + kx + r)],
                                       in[static_cast<std::size_t>(iy * width + ix)], sum);
                }
            }
            out[static_cast<std::size_t>(y * width + x)] = sum;
        }
    }
    return out;
}

// small: 40 x 30 image; large: 160 x 128 image. 5 x 5 filter, blocks of 16 x 16.
template <class Launcher>
CaseResult run_conv2d(func::Device& device, const func::Module& module, Launcher&& launch, Size size) {
    const bool small = size == Size::small;
    const std::int32_t width = small ? 40 : 160;
    const std::int32_t height = small ? 30 : 128;
    constexpr std::size_t taps = (2 * conv2d_radius + 1) * (2 * conv2d_radius + 1);
    SplitMix64 rng(0x7ec7'0add'0000'0014ULL);
    const std::vector<float> filter = random_floats(rng, taps, -0.5f, 0.5f);
    const std::vector<float> in = random_floats(rng, static_cast<std::size_t>(width * height), 0.0f, 255.0f);

    DeviceBuffer din(device, in), dfilter(device, filter);
    DeviceBuffer dout = poisoned_buffer(device, in.size() * sizeof(float));
    constexpr std::uint32_t block = 16;
    launch(module, "conv2d",
           config_2d(ceil_div(static_cast<std::uint64_t>(width), block),
                     ceil_div(static_cast<std::uint64_t>(height), block), block, block),
           func::Args(din.ptr(), dfilter.ptr(), dout.ptr(), width, height));
    Checker check;
    check.exact("out", dout.download<float>(in.size()), conv2d_reference(in, filter, width, height));
    return check.result();
}

} // namespace gpuarch::kernels
