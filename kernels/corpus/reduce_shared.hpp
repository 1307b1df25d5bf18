#pragma once
// Driver and CPU reference for kernels/src/reduce_shared.cu. Exact comparison: the reference performs the same
// adds in the same tree order as the kernel (first add during the load, then halving strides).
#include "common.hpp"

namespace gpuarch::kernels {

// One launch of reduce_shared with `block` threads per block: one partial sum per block.
inline std::vector<float> reduce_shared_reference(const std::vector<float>& in, std::uint32_t block) {
    const std::size_t n = in.size();
    const std::size_t blocks = ceil_div(n, 2ULL * block);
    std::vector<float> out(blocks);
    std::vector<float> s(block);
    for (std::size_t b = 0; b < blocks; ++b) {
        for (std::size_t t = 0; t < block; ++t) {
            const std::size_t i = b * 2 * block + t;
            float v = 0.0f;
            if (i < n) v = in[i];
            if (i + block < n) v += in[i + block];
            s[t] = v;
        }
        for (std::size_t stride = block / 2; stride > 0; stride >>= 1)
            for (std::size_t t = 0; t < stride; ++t) s[t] += s[t + stride];
        out[b] = s[0];
    }
    return out;
}

// Relaunches on the partial sums until one value remains. small: 3000 floats, blocks of 128 (12 partials, then 1);
// large: 131267 floats, blocks of 256 (257 partials, then 1).
template <class Launcher>
CaseResult run_reduce_shared(func::Device& device, const func::Module& module, Launcher&& launch, Size size) {
    const bool small = size == Size::small;
    const std::uint32_t n = small ? 3000 : 131267;
    const std::uint32_t block = small ? 128 : 256;
    SplitMix64 rng(0x7ec7'0add'0000'0003ULL);
    std::vector<float> values = random_floats(rng, n, -1.0f, 1.0f);

    Checker check;
    DeviceBuffer current(device, values);
    for (int pass = 0; values.size() > 1 || pass == 0; ++pass) {
        const std::vector<float> want = reduce_shared_reference(values, block);
        DeviceBuffer partials = poisoned_buffer(device, want.size() * sizeof(float));
        launch(module, "reduce_shared", config_1d(static_cast<std::uint32_t>(want.size()), block, block * 4),
               func::Args(current.ptr(), partials.ptr(), static_cast<std::uint32_t>(values.size())));
        const std::vector<float> got = partials.download<float>(want.size());
        check.exact("pass " + std::to_string(pass) + " partials", got, want);
        values = want;
        current = std::move(partials);
    }
    return check.result();
}

} // namespace gpuarch::kernels
