// gemm: PolyBench/GPU's GEMM (C = alpha A B + beta C), as measured by Wang et al. 2016 (Table 2) and Gong 2020
// (Table 6.2). One kernel, one thread per element C[i][j] with 32x8 blocks (x = column j, y = row i; the suite's
// GEMM block). Thread (i, j) scales C[i][j] by beta, then walks k, accumulating alpha A[i][k] B[k][j] in global
// memory: A[i][k] is a broadcast within a block row and B[k][j] is coalesced (no tiling, no shared memory).
// Sizes: paper ni = nj = nk = 512 (PolyBench/GPU's standard NI = NJ = NK = 512); small ni = nj = nk = 128.
#include "common.cuh"

namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
constexpr float kAlpha = 1.25f;
constexpr float kBeta = 0.5f;

__global__ void gemm_kernel(const float* a, const float* b, float* c, float alpha, float beta, int ni, int nj,
                            int nk) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= ni || j >= nj) return;
    float* cij = &c[static_cast<size_t>(i) * nj + j];
    *cij *= beta;
    for (int k = 0; k < nk; ++k) *cij += alpha * a[static_cast<size_t>(i) * nk + k] * b[static_cast<size_t>(k) * nj + j];
}

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "gemm");
    const int n = size == workload::Size::paper ? 512 : 128;
    const int ni = n, nj = n, nk = n;

    workload::Random rng(1007);
    std::vector<float> a(static_cast<size_t>(ni) * nk), b(static_cast<size_t>(nk) * nj), c(static_cast<size_t>(ni) * nj);
    for (float& v : a) v = rng.uniform();
    for (float& v : b) v = rng.uniform();
    for (float& v : c) v = rng.uniform();

    float* d_a = workload::to_device(a);
    float* d_b = workload::to_device(b);
    float* d_c = workload::to_device(c);

    const dim3 block(kBlockX, kBlockY);
    const dim3 grid((nj + kBlockX - 1) / kBlockX, (ni + kBlockY - 1) / kBlockY);
    gemm_kernel<<<grid, block>>>(d_a, d_b, d_c, kAlpha, kBeta, ni, nj, nk);
    CHECK_LAUNCH();
    const std::vector<float> got = workload::to_host(d_c, c.size());

    // Host reference in double.
    std::vector<float> want(c.size());
    std::vector<double> row(nj);
    for (int i = 0; i < ni; ++i) {
        for (int j = 0; j < nj; ++j) row[j] = 0.0;
        for (int k = 0; k < nk; ++k) {
            const double aik = a[static_cast<size_t>(i) * nk + k];
            for (int j = 0; j < nj; ++j) row[j] += aik * b[static_cast<size_t>(k) * nj + j];
        }
        for (int j = 0; j < nj; ++j)
            want[static_cast<size_t>(i) * nj + j] =
                static_cast<float>(kBeta * static_cast<double>(c[static_cast<size_t>(i) * nj + j]) + kAlpha * row[j]);
    }
    const bool ok = workload::close_enough("c", got, want, 1e-3, 1e-3);

    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));
    return workload::finish("gemm", size, ok, "ni=nj=nk=" + std::to_string(n));
}
