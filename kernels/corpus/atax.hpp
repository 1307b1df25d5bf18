#pragma once
// Driver and CPU reference for kernels/src/atax.cu (PolyBench/GPU ATAX). Exact comparison: each accumulator is an
// fma.rn.f32 chain in loop order starting from the zeroed global value, mirrored with std::fma.
#include "common.hpp"

namespace gpuarch::kernels {

// PolyBench-style matrix-vector problems share the shapes: small 48 x 80, large 512 x 448; blocks of 256 threads.
inline std::pair<std::int32_t, std::int32_t> polybench_mv_shape(Size size) {
    return size == Size::small ? std::pair{48, 80} : std::pair{512, 448};
}

template <class Launcher>
CaseResult run_atax(func::Device& device, const func::Module& module, Launcher&& launch, Size size) {
    const auto [nx, ny] = polybench_mv_shape(size);
    const auto ux = static_cast<std::size_t>(nx), uy = static_cast<std::size_t>(ny);
    constexpr std::uint32_t block = 256;
    SplitMix64 rng(0x7ec7'0add'0000'0015ULL);
    const std::vector<float> a = random_floats(rng, ux * uy, -1.0f, 1.0f);
    const std::vector<float> x = random_floats(rng, uy, -1.0f, 1.0f);

    std::vector<float> tmp(ux, 0.0f), y(uy, 0.0f);
    for (std::size_t i = 0; i < ux; ++i)
        for (std::size_t j = 0; j < uy; ++j) tmp[i] = std::fma(a[i * uy + j], x[j], tmp[i]);
    for (std::size_t j = 0; j < uy; ++j)
        for (std::size_t i = 0; i < ux; ++i) y[j] = std::fma(a[i * uy + j], tmp[i], y[j]);

    DeviceBuffer da(device, a), dx(device, x);
    DeviceBuffer dtmp(device, ux * sizeof(float)), dy(device, uy * sizeof(float));
    dtmp.zero();
    dy.zero();
    launch(module, "atax_kernel1", config_1d(ceil_div(ux, block), block),
           func::Args(da.ptr(), dx.ptr(), dtmp.ptr(), nx, ny));
    launch(module, "atax_kernel2", config_1d(ceil_div(uy, block), block),
           func::Args(da.ptr(), dy.ptr(), dtmp.ptr(), nx, ny));
    Checker check;
    check.exact("tmp", dtmp.download<float>(ux), tmp);
    check.exact("y", dy.download<float>(uy), y);
    return check.result();
}

} // namespace gpuarch::kernels
