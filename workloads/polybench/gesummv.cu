// gesummv: PolyBench/GPU's GESUMMV (scalar, vector and matrix multiplication: y = alpha A x + beta B x), as measured
// by Wang et al. 2016 (Table 2) and Gong 2020 (Table 6.2). One kernel, one thread per row, 256-thread 1D blocks (the
// suite's GESUMMV block): thread i walks row i of both A and B (A[i*n + j], B[i*n + j], j = 0..n-1), accumulating
// tmp[i] and y[i] in global memory, then writes y[i] = alpha tmp[i] + beta y[i]. Neighbouring threads read addresses
// n floats apart: two divergent loads (one cache line per thread) per iteration -- the memory-divergent kernel.
// Sizes: paper n = 4096 (PolyBench/GPU's standard N = 4096); small n = 512.
#include "common.cuh"

namespace {

constexpr int kBlock = 256;
constexpr float kAlpha = 1.5f;
constexpr float kBeta = 0.75f;

__global__ void gesummv_kernel(const float* a, const float* b, const float* x, float* tmp, float* y, float alpha,
                               float beta, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    for (int j = 0; j < n; ++j) {
        tmp[i] += a[static_cast<size_t>(i) * n + j] * x[j];
        y[i] += b[static_cast<size_t>(i) * n + j] * x[j];
    }
    y[i] = alpha * tmp[i] + beta * y[i];
}

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "gesummv");
    const int n = size == workload::Size::paper ? 4096 : 512;

    workload::Random rng(1004);
    std::vector<float> a(static_cast<size_t>(n) * n), b(static_cast<size_t>(n) * n), x(n);
    for (float& v : a) v = rng.uniform();
    for (float& v : b) v = rng.uniform();
    for (float& v : x) v = rng.uniform();

    float* d_a = workload::to_device(a);
    float* d_b = workload::to_device(b);
    float* d_x = workload::to_device(x);
    float* d_tmp = workload::device_zeros<float>(n);
    float* d_y = workload::device_zeros<float>(n);

    gesummv_kernel<<<(n + kBlock - 1) / kBlock, kBlock>>>(d_a, d_b, d_x, d_tmp, d_y, kAlpha, kBeta, n);
    CHECK_LAUNCH();
    const std::vector<float> y = workload::to_host(d_y, n);

    // Host reference in double.
    std::vector<float> want(n);
    for (int i = 0; i < n; ++i) {
        double t = 0.0, u = 0.0;
        for (int j = 0; j < n; ++j) {
            t += static_cast<double>(a[static_cast<size_t>(i) * n + j]) * x[j];
            u += static_cast<double>(b[static_cast<size_t>(i) * n + j]) * x[j];
        }
        want[i] = static_cast<float>(kAlpha * t + kBeta * u);
    }
    const bool ok = workload::close_enough("y", y, want, 1e-3, 1e-3);

    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_tmp));
    CHECK(cudaFree(d_y));
    return workload::finish("gesummv", size, ok, "n=" + std::to_string(n));
}
