// syrk: PolyBench/GPU's SYRK (symmetric rank-k update, C = alpha A A^T + beta C, the full n x n matrix), as measured
// by Wang et al. 2016 (Table 2) and Gong 2020 (Table 6.2). One kernel, one thread per element C[i][j] with 32x8
// blocks (x = column j, y = row i; the suite's SYRK block). Thread (i, j) scales C[i][j] by beta, then walks k,
// accumulating alpha A[i][k] A[j][k] in global memory. A[i][k] is the same for the 32 threads of a block row (a
// broadcast), but A[j][k] = A[j*m + k] puts neighbouring threads m floats apart: one cache line per thread per warp
// load (memory divergent).
// Sizes: paper n = m = 1024 (PolyBench/GPU's standard N = M = 1024); small n = m = 128. Demo (the main job):
// n = 256, m = 64, whose 256 CTAs fill every warp pool of the 14-SM kepler (8 CTAs each) and the 15-SM gtx480 (as
// many as its registers allow; small's 64 CTAs do not), at about twice small's work.
#include "common.cuh"

namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
constexpr float kAlpha = 1.25f;
constexpr float kBeta = 0.5f;

__global__ void syrk_kernel(const float* a, float* c, float alpha, float beta, int n, int m) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n) return;
    float* cij = &c[static_cast<size_t>(i) * n + j];
    *cij *= beta;
    for (int k = 0; k < m; ++k) *cij += alpha * a[static_cast<size_t>(i) * m + k] * a[static_cast<size_t>(j) * m + k];
}

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "syrk", /*has_demo=*/true);
    const int n = size == workload::Size::paper ? 1024 : size == workload::Size::demo ? 256 : 128;
    const int m = size == workload::Size::demo ? 64 : n;

    workload::Random rng(1005);
    std::vector<float> a(static_cast<size_t>(n) * m), c(static_cast<size_t>(n) * n);
    for (float& v : a) v = rng.uniform();
    for (float& v : c) v = rng.uniform();

    float* d_a = workload::to_device(a);
    float* d_c = workload::to_device(c);

    const dim3 block(kBlockX, kBlockY);
    const dim3 grid((n + kBlockX - 1) / kBlockX, (n + kBlockY - 1) / kBlockY);
    syrk_kernel<<<grid, block>>>(d_a, d_c, kAlpha, kBeta, n, m);
    CHECK_LAUNCH();
    const std::vector<float> got = workload::to_host(d_c, c.size());

    // Host reference in double.
    std::vector<float> want(c.size());
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0.0;
            for (int k = 0; k < m; ++k)
                s += static_cast<double>(a[static_cast<size_t>(i) * m + k]) * a[static_cast<size_t>(j) * m + k];
            want[static_cast<size_t>(i) * n + j] =
                static_cast<float>(kBeta * static_cast<double>(c[static_cast<size_t>(i) * n + j]) + kAlpha * s);
        }
    const bool ok = workload::close_enough("c", got, want, 1e-3, 1e-3);

    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_c));
    return workload::finish("syrk", size, ok, "n=" + std::to_string(n) + ", m=" + std::to_string(m));
}
