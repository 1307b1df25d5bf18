#pragma once
// Driver and CPU reference for kernels/src/vector_add.cu. Exact comparison: one add.f32 per element.
#include "common.hpp"

namespace gpuarch::kernels {

inline std::vector<float> vector_add_reference(const std::vector<float>& a, const std::vector<float>& b) {
    std::vector<float> c(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) c[i] = a[i] + b[i];
    return c;
}

// small: 1000 elements (8 blocks of 128, the last one partly idle); large: 200000 elements (1563 blocks).
template <class Launcher>
CaseResult run_vector_add(func::Device& device, const func::Module& module, Launcher&& launch, Size size) {
    const std::int32_t n = size == Size::small ? 1000 : 200000;
    constexpr std::uint32_t block = 128;
    SplitMix64 rng(0x7ec7'0add'0000'0001ULL);
    const std::vector<float> a = random_floats(rng, static_cast<std::size_t>(n), -100.0f, 100.0f);
    const std::vector<float> b = random_floats(rng, static_cast<std::size_t>(n), -100.0f, 100.0f);

    DeviceBuffer da(device, a), db(device, b);
    DeviceBuffer dc = poisoned_buffer(device, a.size() * sizeof(float));
    launch(module, "vector_add", config_1d(ceil_div(static_cast<std::uint64_t>(n), block), block),
           func::Args(da.ptr(), db.ptr(), dc.ptr(), n));

    Checker check;
    check.exact("c", dc.download<float>(a.size()), vector_add_reference(a, b));
    return check.result();
}

} // namespace gpuarch::kernels
