#pragma once
// Driver and CPU reference for kernels/src/reduce_shfl.cu. Exact comparison: the reference replays the per-thread
// grid-stride sums and the __shfl_down_sync tree lane by lane (a lane whose source lane falls outside its group of
// 32 adds its own value, as shfl.down returns the caller's value then).
#include "common.hpp"

#include <array>

namespace gpuarch::kernels {

// v[l] += v[l + offset] for offset 16, 8, 4, 2, 1 within one group of 32 lanes; returns lane 0.
inline double reduce_shfl_group_sum(std::array<double, 32> v) {
    for (std::size_t offset = 16; offset > 0; offset >>= 1) {
        const std::array<double, 32> old = v;
        for (std::size_t lane = 0; lane < 32; ++lane)
            v[lane] = old[lane] + (lane + offset < 32 ? old[lane + offset] : old[lane]);
    }
    return v[0];
}

// One launch of reduce_shfl on `grid` blocks of `block` threads (block a multiple of 32).
inline std::vector<double> reduce_shfl_reference(const std::vector<double>& in, std::uint32_t grid,
                                                 std::uint32_t block) {
    const std::size_t threads = static_cast<std::size_t>(grid) * block;
    std::vector<double> per_thread(threads, 0.0);
    for (std::size_t t = 0; t < threads; ++t)
        for (std::size_t i = t; i < in.size(); i += threads) per_thread[t] += in[i];
    const std::uint32_t groups = block / 32;
    std::vector<double> out(grid);
    for (std::size_t b = 0; b < grid; ++b) {
        std::array<double, 32> group_sums{};
        for (std::size_t g = 0; g < groups; ++g) {
            std::array<double, 32> lanes{};
            for (std::size_t l = 0; l < 32; ++l) lanes[l] = per_thread[b * block + g * 32 + l];
            group_sums[g] = reduce_shfl_group_sum(lanes);
        }
        for (std::size_t l = groups; l < 32; ++l) group_sums[l] = 0.0;
        out[b] = reduce_shfl_group_sum(group_sums);
    }
    return out;
}

// Pass 1 on `grid` blocks, pass 2 on one block of 64 threads (two groups of 32) over the partials.
// small: 5000 doubles, 4 blocks of 128; large: 200003 doubles, 32 blocks of 256.
template <class Launcher>
CaseResult run_reduce_shfl(func::Device& device, const func::Module& module, Launcher&& launch, Size size) {
    const bool small = size == Size::small;
    const std::uint32_t n = small ? 5000 : 200003;
    const std::uint32_t grid = small ? 4 : 32;
    const std::uint32_t block = small ? 128 : 256;
    constexpr std::uint32_t final_block = 64;
    SplitMix64 rng(0x7ec7'0add'0000'0004ULL);
    std::vector<double> in(n);
    for (double& v : in)
        v = static_cast<double>(rng.uniform(-1.0f, 1.0f)) + static_cast<double>(rng.next() >> 11) * 0x1p-60;

    const std::vector<double> want_partials = reduce_shfl_reference(in, grid, block);
    const std::vector<double> want_total = reduce_shfl_reference(want_partials, 1, final_block);

    DeviceBuffer din(device, in);
    DeviceBuffer partials = poisoned_buffer(device, grid * sizeof(double));
    DeviceBuffer total = poisoned_buffer(device, sizeof(double));
    launch(module, "reduce_shfl", config_1d(grid, block), func::Args(din.ptr(), partials.ptr(), n));
    launch(module, "reduce_shfl", config_1d(1, final_block), func::Args(partials.ptr(), total.ptr(), grid));

    Checker check;
    check.exact("partials", partials.download<double>(grid), want_partials);
    check.exact("total", total.download<double>(1), want_total);
    return check.result();
}

} // namespace gpuarch::kernels
