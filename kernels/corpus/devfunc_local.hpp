#pragma once
// Driver and CPU reference for kernels/src/devfunc_local.cu. Exact comparison: integer hashing is bit-exact, the
// cubic is the fma.rn.f32 chain nvcc emits for ((c3*x + c2)*x + c1)*x + c0, and the window sum adds left to right
// from 0.
#include "common.hpp"

#include <array>

namespace gpuarch::kernels {

inline std::uint32_t devfunc_mix_hash(std::uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

inline float devfunc_cubic(float x) { return std::fma(std::fma(std::fma(x, 0.0625f, 0.125f), x, -0.25f), x, 0.5f); }

struct DevfuncLocalOutput {
    std::vector<float> sums;
    std::vector<std::uint32_t> hashes;
};

inline DevfuncLocalOutput devfunc_local_reference(const std::vector<float>& in, std::int32_t rounds) {
    const auto n = static_cast<std::int32_t>(in.size());
    DevfuncLocalOutput out{std::vector<float>(in.size()), std::vector<std::uint32_t>(in.size())};
    for (std::int32_t i = 0; i < n; ++i) {
        std::array<float, 16> window{};
        for (std::int32_t k = 0; k < 16; ++k) {
            std::int32_t idx = (i + k * 7 - 20) % n;
            if (idx < 0) idx += n;
            window[static_cast<std::size_t>(k)] = in[static_cast<std::size_t>(idx)];
        }
        auto h = static_cast<std::uint32_t>(i);
        for (std::int32_t r = 0; r < rounds; ++r) {
            h = devfunc_mix_hash(h + static_cast<std::uint32_t>(r));
            float& slot = window[h & 15U];
            slot = devfunc_cubic(slot);
        }
        float acc = 0.0f;
        for (float v : window) acc += v;
        out.sums[static_cast<std::size_t>(i)] = acc;
        out.hashes[static_cast<std::size_t>(i)] = h;
    }
    return out;
}

// small: 300 threads, 8 rounds; large: 6000 threads, 20 rounds. Blocks of 128.
template <class Launcher>
CaseResult run_devfunc_local(func::Device& device, const func::Module& module, Launcher&& launch, Size size) {
    const bool small = size == Size::small;
    const std::int32_t n = small ? 300 : 6000;
    const std::int32_t rounds = small ? 8 : 20;
    constexpr std::uint32_t block = 128;
    SplitMix64 rng(0x7ec7'0add'0000'0018ULL);
    const std::vector<float> in = random_floats(rng, static_cast<std::size_t>(n), -1.0f, 1.0f);

    DeviceBuffer din(device, in);
    DeviceBuffer dout = poisoned_buffer(device, in.size() * sizeof(float));
    DeviceBuffer dhash = poisoned_buffer(device, in.size() * sizeof(std::uint32_t));
    launch(module, "devfunc_local", config_1d(ceil_div(static_cast<std::uint64_t>(n), block), block),
           func::Args(din.ptr(), dout.ptr(), dhash.ptr(), n, rounds));
    const DevfuncLocalOutput want = devfunc_local_reference(in, rounds);
    Checker check;
    check.exact("sums", dout.download<float>(in.size()), want.sums);
    check.exact("hashes", dhash.download<std::uint32_t>(in.size()), want.hashes);
    return check.result();
}

} // namespace gpuarch::kernels
