#pragma once
// Driver, input generator and CPU reference for kernels/src/histogram_shared.cu (shared by histogram_global).
// Integers: bit-exact.
#include "common.hpp"

#include <array>

namespace gpuarch::kernels {

inline constexpr std::size_t histogram_bins = 256;

// Text-like bytes: half lower-case letters with a skew toward the first few, a sixth spaces, the rest uniform.
// Popular bins make many lanes of a warp hit the same counter.
inline std::vector<std::uint8_t> histogram_input(std::uint64_t seed, std::size_t n) {
    SplitMix64 rng(seed);
    std::vector<std::uint8_t> data(n);
    for (std::uint8_t& byte : data) {
        const std::uint32_t kind = rng.below(6);
        if (kind < 3) {
            const std::uint32_t r = rng.below(26);
            byte = static_cast<std::uint8_t>('a' + (r * r) / 26);
        } else if (kind == 3) {
            byte = ' ';
        } else {
            byte = static_cast<std::uint8_t>(rng.below(256));
        }
    }
    return data;
}

inline std::vector<std::uint32_t> histogram_reference(const std::vector<std::uint8_t>& data) {
    std::vector<std::uint32_t> bins(histogram_bins, 0);
    for (std::uint8_t byte : data) ++bins[byte];
    return bins;
}

namespace detail {

template <class Launcher>
CaseResult run_histogram(std::string_view entry, std::uint64_t seed, func::Device& device, const func::Module& module,
                         Launcher&& launch, Size size) {
    const bool small = size == Size::small;
    const std::uint32_t n = small ? 5000 : 300000;
    const std::uint32_t block = small ? 128 : 256;
    const std::uint32_t grid = small ? 8 : 64;
    const std::vector<std::uint8_t> data = histogram_input(seed, n);

    DeviceBuffer ddata(device, data);
    DeviceBuffer dbins(device, histogram_bins * sizeof(std::uint32_t));
    dbins.zero();
    launch(module, entry, config_1d(grid, block), func::Args(ddata.ptr(), n, dbins.ptr()));

    Checker check;
    check.exact("bins", dbins.download<std::uint32_t>(histogram_bins), histogram_reference(data));
    return check.result();
}

} // namespace detail

// small: 5000 bytes on 8 blocks of 128; large: 300000 bytes on 64 blocks of 256 (grid-stride loop).
template <class Launcher>
CaseResult run_histogram_shared(func::Device& device, const func::Module& module, Launcher&& launch, Size size) {
    return detail::run_histogram("histogram_shared", 0x7ec7'0add'0000'0006ULL, device, module, launch, size);
}

} // namespace gpuarch::kernels
