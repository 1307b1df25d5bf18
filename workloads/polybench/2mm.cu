// 2mm: PolyBench/GPU's 2MM (two chained matrix products: tmp = alpha A B, D = tmp C + beta D), as measured by Wang
// et al. 2016 (Table 2) and Gong 2020 (Table 6.2). Two kernels, one thread per output element with 32x8 blocks
// (x = column j, y = row i; the suite's 2MM block), each thread walking k and accumulating in global memory:
//   first_product:  tmp[i][j] = sum_k alpha A[i][k] B[k][j]  (A: broadcast within a block row, B: coalesced);
//   second_product: D[i][j] = beta D[i][j] + sum_k tmp[i][k] C[k][j].
// Sizes: paper ni = nj = nk = nl = 2048 (PolyBench/GPU's standard NI = NJ = NK = NL = 2048); small 96.
#include "common.cuh"

namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
constexpr float kAlpha = 1.25f;
constexpr float kBeta = 0.5f;

__global__ void first_product(const float* a, const float* b, float* tmp, float alpha, int ni, int nj, int nk) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= ni || j >= nj) return;
    float* t = &tmp[static_cast<size_t>(i) * nj + j];
    *t = 0.0f;
    for (int k = 0; k < nk; ++k) *t += alpha * a[static_cast<size_t>(i) * nk + k] * b[static_cast<size_t>(k) * nj + j];
}

__global__ void second_product(const float* tmp, const float* c, float* d, float beta, int ni, int nj, int nl) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= ni || j >= nl) return;
    float* dij = &d[static_cast<size_t>(i) * nl + j];
    *dij *= beta;
    for (int k = 0; k < nj; ++k) *dij += tmp[static_cast<size_t>(i) * nj + k] * c[static_cast<size_t>(k) * nl + j];
}

// out[r][col] = sum_k x[r][k] y[k][col] in double (x: rows x inner, y: inner x cols).
std::vector<double> host_product(const std::vector<double>& x, const std::vector<double>& y, int rows, int inner,
                                 int cols) {
    std::vector<double> out(static_cast<size_t>(rows) * cols, 0.0);
    for (int r = 0; r < rows; ++r)
        for (int k = 0; k < inner; ++k) {
            const double xk = x[static_cast<size_t>(r) * inner + k];
            for (int col = 0; col < cols; ++col)
                out[static_cast<size_t>(r) * cols + col] += xk * y[static_cast<size_t>(k) * cols + col];
        }
    return out;
}

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "2mm");
    // MM2_N overrides all four dimensions (used once to check the paper-size code path at an intermediate size).
    int n = size == workload::Size::paper ? 2048 : 96;
    if (const char* e = std::getenv("MM2_N")) n = std::atoi(e);
    const int ni = n, nj = n, nk = n, nl = n;

    workload::Random rng(1008);
    std::vector<float> a(static_cast<size_t>(ni) * nk), b(static_cast<size_t>(nk) * nj), c(static_cast<size_t>(nj) * nl),
        d(static_cast<size_t>(ni) * nl);
    for (float& v : a) v = rng.uniform();
    for (float& v : b) v = rng.uniform();
    for (float& v : c) v = rng.uniform();
    for (float& v : d) v = rng.uniform();

    float* d_a = workload::to_device(a);
    float* d_b = workload::to_device(b);
    float* d_c = workload::to_device(c);
    float* d_d = workload::to_device(d);
    float* d_tmp = workload::device_zeros<float>(static_cast<size_t>(ni) * nj);

    const dim3 block(kBlockX, kBlockY);
    first_product<<<dim3((nj + kBlockX - 1) / kBlockX, (ni + kBlockY - 1) / kBlockY), block>>>(d_a, d_b, d_tmp, kAlpha,
                                                                                                ni, nj, nk);
    CHECK_LAUNCH();
    second_product<<<dim3((nl + kBlockX - 1) / kBlockX, (ni + kBlockY - 1) / kBlockY), block>>>(d_tmp, d_c, d_d, kBeta,
                                                                                                 ni, nj, nl);
    CHECK_LAUNCH();
    const std::vector<float> got = workload::to_host(d_d, d.size());

    // Host reference in double.
    std::vector<double> ad(a.begin(), a.end()), bd(b.begin(), b.end()), cd(c.begin(), c.end());
    std::vector<double> tmp = host_product(ad, bd, ni, nk, nj);
    for (double& v : tmp) v *= kAlpha;
    const std::vector<double> prod = host_product(tmp, cd, ni, nj, nl);
    std::vector<float> want(d.size());
    for (size_t e = 0; e < want.size(); ++e) want[e] = static_cast<float>(kBeta * static_cast<double>(d[e]) + prod[e]);
    const bool ok = workload::close_enough("d", got, want, 1e-3, 1e-3);

    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));
    CHECK(cudaFree(d_d));
    CHECK(cudaFree(d_tmp));
    return workload::finish("2mm", size, ok, "ni=nj=nk=nl=" + std::to_string(n));
}
