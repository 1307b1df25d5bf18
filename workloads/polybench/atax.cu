// atax: PolyBench/GPU's ATAX, y = A^T (A x), as measured by Wang et al. 2016 (Table 2) and Gong 2020 (Table 6.2).
// Two kernels, one thread per output element, 256-thread 1D blocks (the suite's ATAX block):
//   row_times_x:     thread i walks row i of A (A[i*n + j], j = 0..n-1) and accumulates tmp[i]. Neighbouring
//                    threads read addresses n floats apart: every warp load touches one cache line per thread
//                    (the memory-divergent kernel);
//   columns_times_tmp: thread j walks column j of A (A[i*n + j], i = 0..n-1) and accumulates y[j]. Neighbouring
//                    threads read neighbouring floats: coalesced.
// Like the suite's kernels, both accumulate directly in the global output element inside the loop.
// Sizes: paper n = 4096 (PolyBench/GPU's standard NX = NY = 4096); small n = 768.
#include "common.cuh"

namespace {

constexpr int kBlock = 256;

__global__ void row_times_x(const float* a, const float* x, float* tmp, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    tmp[i] = 0.0f;
    for (int j = 0; j < n; ++j) tmp[i] += a[static_cast<size_t>(i) * n + j] * x[j];
}

__global__ void columns_times_tmp(const float* a, const float* tmp, float* y, int n) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    y[j] = 0.0f;
    for (int i = 0; i < n; ++i) y[j] += a[static_cast<size_t>(i) * n + j] * tmp[i];
}

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "atax");
    const int n = size == workload::Size::paper ? 4096 : 768;

    workload::Random rng(1001);
    std::vector<float> a(static_cast<size_t>(n) * n), x(n);
    for (float& v : a) v = rng.uniform();
    for (float& v : x) v = rng.uniform();

    float* d_a = workload::to_device(a);
    float* d_x = workload::to_device(x);
    float* d_tmp = workload::device_zeros<float>(n);
    float* d_y = workload::device_zeros<float>(n);

    const int grid = (n + kBlock - 1) / kBlock;
    row_times_x<<<grid, kBlock>>>(d_a, d_x, d_tmp, n);
    CHECK_LAUNCH();
    columns_times_tmp<<<grid, kBlock>>>(d_a, d_tmp, d_y, n);
    CHECK_LAUNCH();
    const std::vector<float> y = workload::to_host(d_y, n);

    // Host reference in double.
    std::vector<double> tmp(n, 0.0);
    std::vector<float> want(n);
    for (int i = 0; i < n; ++i) {
        double s = 0.0;
        for (int j = 0; j < n; ++j) s += static_cast<double>(a[static_cast<size_t>(i) * n + j]) * x[j];
        tmp[i] = s;
    }
    std::vector<double> yd(n, 0.0);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) yd[j] += static_cast<double>(a[static_cast<size_t>(i) * n + j]) * tmp[i];
    for (int j = 0; j < n; ++j) want[j] = static_cast<float>(yd[j]);
    const bool ok = workload::close_enough("y", y, want, 1e-3, 1e-3);

    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_tmp));
    CHECK(cudaFree(d_y));
    return workload::finish("atax", size, ok, "n=" + std::to_string(n));
}
