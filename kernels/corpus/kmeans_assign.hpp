#pragma once
// Driver, data generator and CPU reference for kernels/src/kmeans_assign.cu. Exact comparison: distances are
// fma.rn.f32 chains (dist = fma(diff, diff, dist) from 0 in feature order) mirrored with std::fma, so the argmin
// (first minimum wins, strict <) matches bit for bit; membership and the change counter are integers.
#include "common.hpp"

namespace gpuarch::kernels {

struct KmeansProblem {
    std::int32_t n = 0, features = 0, k = 0;
    std::vector<float> points; // n x features, point-major
    std::vector<float> centroids; // k x features
    std::vector<std::int32_t> membership; // previous assignment: p % k
};

// Points scattered around k hidden centres; the centroids are the centres perturbed, so most points are near
// one centroid and a minority sit between two.
inline KmeansProblem kmeans_problem(std::int32_t n, std::int32_t features, std::int32_t k, std::uint64_t seed) {
    SplitMix64 rng(seed);
    KmeansProblem p;
    p.n = n;
    p.features = features;
    p.k = k;
    const auto f = static_cast<std::size_t>(features);
    const std::vector<float> centres = random_floats(rng, static_cast<std::size_t>(k) * f, -10.0f, 10.0f);
    p.points.resize(static_cast<std::size_t>(n) * f);
    for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
        const std::size_t c = rng.below(static_cast<std::uint32_t>(k));
        for (std::size_t j = 0; j < f; ++j) p.points[i * f + j] = centres[c * f + j] + rng.uniform(-4.0f, 4.0f);
    }
    p.centroids = centres;
    for (float& v : p.centroids) v += rng.uniform(-1.0f, 1.0f);
    p.membership.resize(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < p.membership.size(); ++i)
        p.membership[i] = static_cast<std::int32_t>(i % static_cast<std::size_t>(k));
    return p;
}

struct KmeansAssignment {
    std::vector<std::int32_t> membership;
    std::int32_t changed = 0;
};

inline KmeansAssignment kmeans_assign_reference(const KmeansProblem& p) {
    KmeansAssignment out{p.membership, 0};
    const auto f = static_cast<std::size_t>(p.features);
    for (std::size_t i = 0; i < static_cast<std::size_t>(p.n); ++i) {
        std::int32_t best = 0;
        float best_dist = std::numeric_limits<float>::max();
        for (std::int32_t c = 0; c < p.k; ++c) {
            float dist = 0.0f;
            for (std::size_t j = 0; j < f; ++j) {
                const float diff = p.points[i * f + j] - p.centroids[static_cast<std::size_t>(c) * f + j];
                dist = std::fma(diff, diff, dist);
            }
            if (dist < best_dist) {
                best_dist = dist;
                best = c;
            }
        }
        if (out.membership[i] != best) {
            out.membership[i] = best;
            ++out.changed;
        }
    }
    return out;
}

// small: 400 points, 4 features, 5 centroids; large: 12000 points, 8 features, 8 centroids. Blocks of 128.
template <class Launcher>
CaseResult run_kmeans_assign(func::Device& device, const func::Module& module, Launcher&& launch, Size size) {
    const bool small = size == Size::small;
    const KmeansProblem p = small ? kmeans_problem(400, 4, 5, 0x7ec7'0add'0000'0012ULL)
                                  : kmeans_problem(12000, 8, 8, 0x7ec7'0add'0000'0012ULL);
    constexpr std::uint32_t block = 128;
    DeviceBuffer dpoints(device, p.points), dcentroids(device, p.centroids), dmembership(device, p.membership);
    DeviceBuffer dchanged(device, sizeof(std::int32_t));
    dchanged.zero();
    launch(module, "kmeans_assign", config_1d(ceil_div(static_cast<std::uint64_t>(p.n), block), block),
           func::Args(dpoints.ptr(), dcentroids.ptr(), p.n, p.features, p.k, dmembership.ptr(), dchanged.ptr()));
    const KmeansAssignment want = kmeans_assign_reference(p);
    Checker check;
    check.exact("membership", dmembership.download<std::int32_t>(static_cast<std::size_t>(p.n)), want.membership);
    check.exact("changed", dchanged.download<std::int32_t>(1), std::vector<std::int32_t>{want.changed});
    return check.result();
}

} // namespace gpuarch::kernels
