#pragma once
// Driver and CPU reference for kernels/src/sgemm_naive.cu (shared by sgemm_tiled). Exact comparison: the PTX
// accumulates with fma.rn.f32 in k order from 0 and finishes with fma(sum, alpha, C * beta), mirrored here.
// (sgemm_tiled adds fma(0, 0, sum) for the zero padding of the last tile, which leaves sum unchanged.)
#include "common.hpp"

namespace gpuarch::kernels {

struct SgemmProblem {
    std::int32_t m, n, k;
    float alpha, beta;
    std::vector<float> a, b, c; // row-major m x k, k x n, m x n
};

// small: 24 x 40 x 20 (partial 16 x 16 tiles on every edge); large: 128 x 128 x 64.
inline SgemmProblem sgemm_problem(Size size, std::uint64_t seed) {
    SplitMix64 rng(seed);
    SgemmProblem p{};
    const bool small = size == Size::small;
    p.m = small ? 24 : 128;
    p.n = small ? 40 : 128;
    p.k = small ? 20 : 64;
    p.alpha = 1.25f;
    p.beta = -0.5f;
    p.a = random_floats(rng, static_cast<std::size_t>(p.m) * static_cast<std::size_t>(p.k), -1.0f, 1.0f);
    p.b = random_floats(rng, static_cast<std::size_t>(p.k) * static_cast<std::size_t>(p.n), -1.0f, 1.0f);
    p.c = random_floats(rng, static_cast<std::size_t>(p.m) * static_cast<std::size_t>(p.n), -1.0f, 1.0f);
    return p;
}

inline std::vector<float> sgemm_reference(const SgemmProblem& p) {
    std::vector<float> c = p.c;
    const auto m = static_cast<std::size_t>(p.m), n = static_cast<std::size_t>(p.n), k = static_cast<std::size_t>(p.k);
    for (std::size_t row = 0; row < m; ++row) {
        for (std::size_t col = 0; col < n; ++col) {
            float sum = 0.0f;
            for (std::size_t i = 0; i < k; ++i) sum = std::fma(p.a[row * k + i], p.b[i * n + col], sum);
            const float scaled_c = c[row * n + col] * p.beta;
            c[row * n + col] = std::fma(sum, p.alpha, scaled_c);
        }
    }
    return c;
}

namespace detail {

// Both SGEMM kernels share the parameter list and use 16 x 16 blocks, one thread per element of C.
template <class Launcher>
CaseResult run_sgemm(std::string_view entry, std::uint64_t seed, func::Device& device, const func::Module& module,
                     Launcher&& launch, Size size) {
    const SgemmProblem p = sgemm_problem(size, seed);
    DeviceBuffer da(device, p.a), db(device, p.b), dc(device, p.c);
    constexpr std::uint32_t tile = 16;
    launch(module, entry,
           config_2d(ceil_div(static_cast<std::uint64_t>(p.n), tile), ceil_div(static_cast<std::uint64_t>(p.m), tile),
                     tile, tile),
           func::Args(p.m, p.n, p.k, p.alpha, da.ptr(), db.ptr(), p.beta, dc.ptr()));
    Checker check;
    check.exact("C", dc.download<float>(p.c.size()), sgemm_reference(p));
    return check.result();
}

} // namespace detail

template <class Launcher>
CaseResult run_sgemm_naive(func::Device& device, const func::Module& module, Launcher&& launch, Size size) {
    return detail::run_sgemm("sgemm_naive", 0x7ec7'0add'0000'0008ULL, device, module, launch, size);
}

} // namespace gpuarch::kernels
