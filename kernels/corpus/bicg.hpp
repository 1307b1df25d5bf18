#pragma once
// Driver and CPU reference for kernels/src/bicg.cu (PolyBench/GPU BICG). Exact comparison: each accumulator is
// zeroed by the kernel and then an fma.rn.f32 chain in loop order, mirrored with std::fma.
#include "atax.hpp"

namespace gpuarch::kernels {

// small: A is 48 x 80; large: 512 x 448. Blocks of 256 threads.
template <class Launcher>
CaseResult run_bicg(func::Device& device, const func::Module& module, Launcher&& launch, Size size) {
    const auto [nx, ny] = polybench_mv_shape(size);
    const auto ux = static_cast<std::size_t>(nx), uy = static_cast<std::size_t>(ny);
    constexpr std::uint32_t block = 256;
    SplitMix64 rng(0x7ec7'0add'0000'0016ULL);
    const std::vector<float> a = random_floats(rng, ux * uy, -1.0f, 1.0f);
    const std::vector<float> r = random_floats(rng, ux, -1.0f, 1.0f);
    const std::vector<float> p = random_floats(rng, uy, -1.0f, 1.0f);

    std::vector<float> s(uy, 0.0f), q(ux, 0.0f);
    for (std::size_t j = 0; j < uy; ++j)
        for (std::size_t i = 0; i < ux; ++i) s[j] = std::fma(r[i], a[i * uy + j], s[j]);
    for (std::size_t i = 0; i < ux; ++i)
        for (std::size_t j = 0; j < uy; ++j) q[i] = std::fma(a[i * uy + j], p[j], q[i]);

    DeviceBuffer da(device, a), dr(device, r), dp(device, p);
    DeviceBuffer ds = poisoned_buffer(device, uy * sizeof(float));
    DeviceBuffer dq = poisoned_buffer(device, ux * sizeof(float));
    launch(module, "bicg_kernel1", config_1d(ceil_div(uy, block), block),
           func::Args(da.ptr(), dr.ptr(), ds.ptr(), nx, ny));
    launch(module, "bicg_kernel2", config_1d(ceil_div(ux, block), block),
           func::Args(da.ptr(), dp.ptr(), dq.ptr(), nx, ny));
    Checker check;
    check.exact("s", ds.download<float>(uy), s);
    check.exact("q", dq.download<float>(ux), q);
    return check.result();
}

} // namespace gpuarch::kernels
