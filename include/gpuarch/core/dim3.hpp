#pragma once
// Three-dimensional extents and indices (grid, block, CTA id, thread id), as in CUDA's dim3. In core/ because
// the functional engine and the timing side's schedulers (a warp's CTA index, sched::LocalityTwoLevel) both use it.
#include <cstdint>
#include <string>

namespace gpuarch::core {

struct Dim3 {
    std::uint32_t x = 1, y = 1, z = 1;
    constexpr std::uint64_t count() const { return std::uint64_t{x} * y * z; }
    constexpr bool operator==(const Dim3&) const = default;
};

inline std::string to_string(const Dim3& d) {
    return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

// The index of linear position `linear` in an x-fastest box of extent `extent`.
constexpr Dim3 unflatten(std::uint64_t linear, const Dim3& extent) {
    return Dim3{static_cast<std::uint32_t>(linear % extent.x),
                static_cast<std::uint32_t>((linear / extent.x) % extent.y),
                static_cast<std::uint32_t>(linear / (std::uint64_t{extent.x} * extent.y))};
}

} // namespace gpuarch::core
