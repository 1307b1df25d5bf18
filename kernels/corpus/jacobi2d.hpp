#pragma once
// Driver and CPU reference for kernels/src/jacobi2d.cu. Exact comparison: the PTX adds the five taps left to right
// as written (centre, west, east, south, north) and multiplies once by 0.2f; the reference does the same.
#include "common.hpp"

namespace gpuarch::kernels {

inline void jacobi2d_sweep_reference(std::size_t n, const std::vector<float>& a, std::vector<float>& b) {
    for (std::size_t i = 1; i + 1 < n; ++i) {
        for (std::size_t j = 1; j + 1 < n; ++j) {
            const float sum =
                a[i * n + j] + a[i * n + j - 1] + a[i * n + j + 1] + a[(i + 1) * n + j] + a[(i - 1) * n + j];
            b[i * n + j] = 0.2f * sum;
        }
    }
}

// Both grids start equal (so the untouched boundary agrees), then sweeps alternate a -> b, b -> a.
// small: 34 x 34, 2 sweeps; large: 194 x 194, 4 sweeps. Blocks of 16 x 16.
template <class Launcher>
CaseResult run_jacobi2d(func::Device& device, const func::Module& module, Launcher&& launch, Size size) {
    const bool small = size == Size::small;
    const std::int32_t n = small ? 34 : 194;
    const int sweeps = small ? 2 : 4;
    const auto un = static_cast<std::size_t>(n);
    SplitMix64 rng(0x7ec7'0add'0000'000fULL);
    std::vector<float> a = random_floats(rng, un * un, 0.0f, 100.0f);
    std::vector<float> b = a;

    DeviceBuffer da(device, a), db(device, b);
    constexpr std::uint32_t block = 16;
    const std::uint32_t grid = ceil_div(un, block);
    for (int s = 0; s < sweeps; ++s) {
        const bool forward = s % 2 == 0;
        launch(module, "jacobi2d", config_2d(grid, grid, block, block),
               func::Args(n, forward ? da.ptr() : db.ptr(), forward ? db.ptr() : da.ptr()));
        if (forward) jacobi2d_sweep_reference(un, a, b);
        else jacobi2d_sweep_reference(un, b, a);
    }
    const bool result_in_b = sweeps % 2 == 1;
    Checker check;
    check.exact("grid", (result_in_b ? db : da).download<float>(un * un), result_in_b ? b : a);
    return check.result();
}

} // namespace gpuarch::kernels
