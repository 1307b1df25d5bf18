// kmeans: Rodinia's k-means clustering (CUDA version), as measured by Wang et al. 2016. The points arrive
// point-major; a first kernel transposes them to feature-major so that the assignment kernel's loads coalesce.
// Every iteration the GPU assigns each point (one thread per point) to its nearest centroid, reading the centroids
// from constant memory; the host then recomputes the centroids from the memberships. A fixed number of iterations
// runs (Rodinia stops at convergence, which depends on its data file). Input: synthetic clustered points of the size
// of Rodinia's kdd_cup file (494020 points x 34 features, 5 clusters).
#include "common.cuh"

namespace {

// Uniform in [0, 1) from 24 random bits.
float unit(workload::Random& rng) { return static_cast<float>(rng.below(1u << 24)) * (1.0f / 16777216.0f); }

constexpr int kBlock = 256;
constexpr int kMaxCentroidValues = 4096; // floats of constant memory for the centroids

__constant__ float c_centroids[kMaxCentroidValues];

// One thread per point: point-major features[p][f] -> feature-major flipped[f][p].
__global__ void invert_mapping(const float* features, float* flipped, int points, int dims) {
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= points) return;
    for (int f = 0; f < dims; ++f) flipped[f * points + p] = features[p * dims + f];
}

// One thread per point: the index of the nearest centroid (squared Euclidean distance, first index on ties).
// The explicit rounding intrinsics keep the device's sums bit-identical to the host reference's.
__global__ void assign_points(const float* flipped, int* membership, int points, int dims, int clusters) {
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= points) return;
    int best = 0;
    float best_dist = 3.402823466e+38f;
    for (int c = 0; c < clusters; ++c) {
        float dist = 0.0f;
        for (int f = 0; f < dims; ++f) {
            const float d = __fsub_rn(flipped[f * points + p], c_centroids[c * dims + f]);
            dist = __fadd_rn(dist, __fmul_rn(d, d));
        }
        if (dist < best_dist) {
            best_dist = dist;
            best = c;
        }
    }
    membership[p] = best;
}

int nearest(const float* point, const std::vector<float>& centroids, int dims, int clusters) {
    int best = 0;
    float best_dist = 3.402823466e+38f;
    for (int c = 0; c < clusters; ++c) {
        float dist = 0.0f;
        for (int f = 0; f < dims; ++f) {
            volatile float d = point[f] - centroids[c * dims + f];
            volatile float sq = d * d;
            dist = dist + sq;
        }
        if (dist < best_dist) {
            best_dist = dist;
            best = c;
        }
    }
    return best;
}

// The host's half of an iteration (shared by the GPU run and the reference): new centroids = member means; a
// cluster without members keeps its centroid.
void update_centroids(const std::vector<float>& features, const std::vector<int>& membership, int dims,
                      int clusters, std::vector<float>& centroids) {
    std::vector<double> sums(static_cast<std::size_t>(clusters) * dims, 0.0);
    std::vector<int> counts(clusters, 0);
    for (std::size_t p = 0; p < membership.size(); ++p) {
        const int c = membership[p];
        ++counts[c];
        for (int f = 0; f < dims; ++f) sums[c * dims + f] += features[p * dims + f];
    }
    for (int c = 0; c < clusters; ++c)
        if (counts[c] > 0)
            for (int f = 0; f < dims; ++f) centroids[c * dims + f] = static_cast<float>(sums[c * dims + f] / counts[c]);
}

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "kmeans");
    const bool paper = size == workload::Size::paper;
    const int points = paper ? 494020 : 12288;
    const int dims = 34;
    const int clusters = 5;
    const int iterations = paper ? 10 : 2;

    // Points scattered around 8 hidden centres (more than the 5 clusters sought, so memberships keep moving).
    workload::Random rng(494020);
    const int hidden = 8;
    std::vector<float> centres(static_cast<std::size_t>(hidden) * dims);
    for (float& x : centres) x = unit(rng);
    std::vector<float> features(static_cast<std::size_t>(points) * dims);
    for (int p = 0; p < points; ++p) {
        const int h = static_cast<int>(rng.below(hidden));
        for (int f = 0; f < dims; ++f)
            features[static_cast<std::size_t>(p) * dims + f] = centres[h * dims + f] + 0.3f * (unit(rng) - 0.5f);
    }
    // Rodinia seeds the centroids with the first points.
    std::vector<float> initial(features.begin(), features.begin() + clusters * dims);

    float* d_features = workload::to_device(features);
    float* d_flipped = workload::device_zeros<float>(features.size());
    int* d_membership = workload::device_zeros<int>(points);
    const int blocks = (points + kBlock - 1) / kBlock;

    invert_mapping<<<blocks, kBlock>>>(d_features, d_flipped, points, dims);
    CHECK_LAUNCH();
    std::vector<float> centroids = initial;
    std::vector<int> membership(points, -1);
    int launches = 1;
    for (int it = 0; it < iterations; ++it) {
        CHECK(cudaMemcpyToSymbol(c_centroids, centroids.data(), centroids.size() * sizeof(float)));
        assign_points<<<blocks, kBlock>>>(d_flipped, d_membership, points, dims, clusters);
        CHECK_LAUNCH();
        ++launches;
        membership = workload::to_host(d_membership, points);
        update_centroids(features, membership, dims, clusters, centroids);
    }

    // Host reference: the same iterations on the CPU.
    std::vector<float> ref_centroids = initial;
    std::vector<int> ref_membership(points, -1);
    for (int it = 0; it < iterations; ++it) {
        for (int p = 0; p < points; ++p)
            ref_membership[p] = nearest(&features[static_cast<std::size_t>(p) * dims], ref_centroids, dims, clusters);
        update_centroids(features, ref_membership, dims, clusters, ref_centroids);
    }
    bool ok = workload::equal("membership", membership, ref_membership);
    ok = workload::close_enough("centroids", centroids, ref_centroids, 1e-5, 1e-6) && ok;

    CHECK(cudaFree(d_features));
    CHECK(cudaFree(d_flipped));
    CHECK(cudaFree(d_membership));
    return workload::finish("kmeans", size, ok,
                            "points=" + std::to_string(points) + ", features=34, clusters=5, iterations=" +
                                std::to_string(iterations) + ", launches=" + std::to_string(launches));
}
