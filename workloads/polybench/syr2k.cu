// syr2k: PolyBench/GPU's SYR2K (symmetric rank-2k update, C = alpha A B^T + alpha B A^T + beta C, the full n x n
// matrix), as measured by Wang et al. 2016 (Table 2) and Gong 2020 (Table 6.2). One kernel, one thread per element
// C[i][j] with 32x8 blocks (x = column j, y = row i; the suite's SYR2K block). Thread (i, j) scales C[i][j] by beta,
// then walks k, accumulating alpha (A[i][k] B[j][k] + B[i][k] A[j][k]) in global memory. A[i][k] and B[i][k] are
// broadcasts within a block row, but B[j][k] and A[j][k] (= [j*m + k]) put neighbouring threads m floats apart: two
// divergent loads (one cache line per thread) per iteration -- memory divergent.
// Sizes: paper n = m = 2048 (PolyBench/GPU's standard N = M = 2048); small n = m = 96.
#include "common.cuh"

namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
constexpr float kAlpha = 1.25f;
constexpr float kBeta = 0.5f;

__global__ void syr2k_kernel(const float* a, const float* b, float* c, float alpha, float beta, int n, int m) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n) return;
    float* cij = &c[static_cast<size_t>(i) * n + j];
    const size_t ri = static_cast<size_t>(i) * m, rj = static_cast<size_t>(j) * m;
    *cij *= beta;
    for (int k = 0; k < m; ++k) *cij += alpha * a[ri + k] * b[rj + k] + alpha * b[ri + k] * a[rj + k];
}

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "syr2k");
    // SYR2K_N overrides n = m (used once to check the paper-size code path at an intermediate size).
    int n = size == workload::Size::paper ? 2048 : 96;
    if (const char* e = std::getenv("SYR2K_N")) n = std::atoi(e);
    const int m = n;

    workload::Random rng(1006);
    std::vector<float> a(static_cast<size_t>(n) * m), b(static_cast<size_t>(n) * m), c(static_cast<size_t>(n) * n);
    for (float& v : a) v = rng.uniform();
    for (float& v : b) v = rng.uniform();
    for (float& v : c) v = rng.uniform();

    float* d_a = workload::to_device(a);
    float* d_b = workload::to_device(b);
    float* d_c = workload::to_device(c);

    const dim3 block(kBlockX, kBlockY);
    const dim3 grid((n + kBlockX - 1) / kBlockX, (n + kBlockY - 1) / kBlockY);
    syr2k_kernel<<<grid, block>>>(d_a, d_b, d_c, kAlpha, kBeta, n, m);
    CHECK_LAUNCH();
    const std::vector<float> got = workload::to_host(d_c, c.size());

    // Host reference in double.
    std::vector<float> want(c.size());
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0.0;
            const size_t ri = static_cast<size_t>(i) * m, rj = static_cast<size_t>(j) * m;
            for (int k = 0; k < m; ++k)
                s += static_cast<double>(a[ri + k]) * b[rj + k] + static_cast<double>(b[ri + k]) * a[rj + k];
            want[static_cast<size_t>(i) * n + j] =
                static_cast<float>(kBeta * static_cast<double>(c[static_cast<size_t>(i) * n + j]) + kAlpha * s);
        }
    const bool ok = workload::close_enough("c", got, want, 1e-3, 1e-3);

    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));
    return workload::finish("syr2k", size, ok, "n=m=" + std::to_string(n));
}
