#pragma once
// Driver and CPU reference (std::sort) for kernels/src/bitonic_sort.cu. Integers: bit-exact.
#include "common.hpp"

namespace gpuarch::kernels {

// small: 1024 keys (2 segments: sort_shared, then one merge size); large: 8192 keys (16 segments, merge sizes
// 1024..8192 with 0..3 global steps each). Keys are drawn from a range of n/2 values, so duplicates occur.
// Launches: bitonic_sort_shared on n/512 blocks of 256; per merge size, bitonic_merge_global on n/512 blocks of
// 256 for each stride >= 512, then bitonic_merge_shared on n/512 blocks of 256.
template <class Launcher>
CaseResult run_bitonic_sort(func::Device& device, const func::Module& module, Launcher&& launch, Size size) {
    constexpr std::uint32_t segment = 512;
    constexpr std::uint32_t block = segment / 2;
    const std::uint32_t n = size == Size::small ? 1024 : 8192;
    SplitMix64 rng(0x7ec7'0add'0000'0013ULL);
    std::vector<std::uint32_t> keys(n);
    for (std::uint32_t& key : keys) key = rng.below(n / 2) * 2654435761U; // spread over the 32-bit range

    DeviceBuffer dkeys(device, keys);
    const std::uint32_t blocks = n / segment;
    launch(module, "bitonic_sort_shared", config_1d(blocks, block), func::Args(dkeys.ptr()));
    for (std::uint32_t merge = 2 * segment; merge <= n; merge <<= 1) {
        for (std::uint32_t stride = merge / 2; stride >= segment; stride >>= 1)
            launch(module, "bitonic_merge_global", config_1d(ceil_div(n / 2, block), block),
                   func::Args(dkeys.ptr(), n, merge, stride));
        launch(module, "bitonic_merge_shared", config_1d(blocks, block), func::Args(dkeys.ptr(), merge));
    }
    std::sort(keys.begin(), keys.end());
    Checker check;
    check.exact("keys", dkeys.download<std::uint32_t>(n), keys);
    return check.result();
}

} // namespace gpuarch::kernels
