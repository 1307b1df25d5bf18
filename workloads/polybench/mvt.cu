// mvt: PolyBench/GPU's MVT (matrix-vector product and transpose: x1 += A y1, x2 += A^T y2), as measured by Wang et
// al. 2016 (Table 2) and Gong 2020 (Table 6.2). Two kernels, one thread per output element, 256-thread 1D blocks
// (the suite's MVT block), launched back to back:
//   x1_kernel: thread i walks row i of A (A[i*n + j], j = 0..n-1) and accumulates x1[i]. Neighbouring threads read
//              addresses n floats apart: one cache line per thread per warp load (the memory-divergent kernel);
//   x2_kernel: thread i walks column i of A (A[j*n + i], j = 0..n-1) and accumulates x2[i]: coalesced.
// Like the suite's kernels, both accumulate directly in the global output element (which starts non-zero).
// Sizes: paper n = 4096 (PolyBench/GPU's standard N = 4096); small n = 768.
#include "common.cuh"

namespace {

constexpr int kBlock = 256;

__global__ void x1_kernel(const float* a, float* x1, const float* y1, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    for (int j = 0; j < n; ++j) x1[i] += a[static_cast<size_t>(i) * n + j] * y1[j];
}

__global__ void x2_kernel(const float* a, float* x2, const float* y2, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    for (int j = 0; j < n; ++j) x2[i] += a[static_cast<size_t>(j) * n + i] * y2[j];
}

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "mvt");
    const int n = size == workload::Size::paper ? 4096 : 768;

    workload::Random rng(1003);
    std::vector<float> a(static_cast<size_t>(n) * n), x1(n), x2(n), y1(n), y2(n);
    for (float& v : a) v = rng.uniform();
    for (int i = 0; i < n; ++i) {
        x1[i] = rng.uniform();
        x2[i] = rng.uniform();
        y1[i] = rng.uniform();
        y2[i] = rng.uniform();
    }

    float* d_a = workload::to_device(a);
    float* d_x1 = workload::to_device(x1);
    float* d_x2 = workload::to_device(x2);
    float* d_y1 = workload::to_device(y1);
    float* d_y2 = workload::to_device(y2);

    const int grid = (n + kBlock - 1) / kBlock;
    x1_kernel<<<grid, kBlock>>>(d_a, d_x1, d_y1, n);
    CHECK(cudaGetLastError());
    x2_kernel<<<grid, kBlock>>>(d_a, d_x2, d_y2, n);
    CHECK_LAUNCH();
    const std::vector<float> got1 = workload::to_host(d_x1, n);
    const std::vector<float> got2 = workload::to_host(d_x2, n);

    // Host reference in double.
    std::vector<double> w1(x1.begin(), x1.end()), w2(x2.begin(), x2.end());
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            w1[i] += static_cast<double>(a[static_cast<size_t>(i) * n + j]) * y1[j];
            w2[j] += static_cast<double>(a[static_cast<size_t>(i) * n + j]) * y2[i];
        }
    const std::vector<float> want1(w1.begin(), w1.end()), want2(w2.begin(), w2.end());
    const bool ok1 = workload::close_enough("x1", got1, want1, 1e-3, 1e-3);
    const bool ok2 = workload::close_enough("x2", got2, want2, 1e-3, 1e-3);

    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_x1));
    CHECK(cudaFree(d_x2));
    CHECK(cudaFree(d_y1));
    CHECK(cudaFree(d_y2));
    return workload::finish("mvt", size, ok1 && ok2, "n=" + std::to_string(n));
}
