// bicg: PolyBench/GPU's BICG (the BiCGStab sub-kernel s = A^T r, q = A p), as measured by Wang et al. 2016 (Table 2)
// and Gong 2020 (Table 6.2). Two kernels, one thread per output element, 256-thread 1D blocks (the suite's BICG
// block):
//   s_kernel: thread j walks column j of A (A[i*ny + j], i = 0..nx-1) and accumulates s[j]: coalesced;
//   q_kernel: thread i walks row i of A (A[i*ny + j], j = 0..ny-1) and accumulates q[i]. Neighbouring threads read
//             addresses ny floats apart: one cache line per thread per warp load (the memory-divergent kernel).
// Like the suite's kernels, both accumulate directly in the global output element inside the loop.
// Sizes: paper nx = ny = 4096 (PolyBench/GPU's standard NX = NY = 4096); small nx = ny = 768.
#include "common.cuh"

namespace {

constexpr int kBlock = 256;

__global__ void s_kernel(const float* a, const float* r, float* s, int nx, int ny) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= ny) return;
    s[j] = 0.0f;
    for (int i = 0; i < nx; ++i) s[j] += r[i] * a[static_cast<size_t>(i) * ny + j];
}

__global__ void q_kernel(const float* a, const float* p, float* q, int nx, int ny) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nx) return;
    q[i] = 0.0f;
    for (int j = 0; j < ny; ++j) q[i] += a[static_cast<size_t>(i) * ny + j] * p[j];
}

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "bicg");
    const int nx = size == workload::Size::paper ? 4096 : 768;
    const int ny = nx;

    workload::Random rng(1002);
    std::vector<float> a(static_cast<size_t>(nx) * ny), p(ny), r(nx);
    for (float& v : a) v = rng.uniform();
    for (float& v : p) v = rng.uniform();
    for (float& v : r) v = rng.uniform();

    float* d_a = workload::to_device(a);
    float* d_p = workload::to_device(p);
    float* d_r = workload::to_device(r);
    float* d_s = workload::device_zeros<float>(ny);
    float* d_q = workload::device_zeros<float>(nx);

    s_kernel<<<(ny + kBlock - 1) / kBlock, kBlock>>>(d_a, d_r, d_s, nx, ny);
    CHECK_LAUNCH();
    q_kernel<<<(nx + kBlock - 1) / kBlock, kBlock>>>(d_a, d_p, d_q, nx, ny);
    CHECK_LAUNCH();
    const std::vector<float> s = workload::to_host(d_s, ny);
    const std::vector<float> q = workload::to_host(d_q, nx);

    // Host reference in double.
    std::vector<double> sd(ny, 0.0), qd(nx, 0.0);
    for (int i = 0; i < nx; ++i)
        for (int j = 0; j < ny; ++j) {
            const double aij = a[static_cast<size_t>(i) * ny + j];
            sd[j] += r[i] * aij;
            qd[i] += aij * p[j];
        }
    const std::vector<float> want_s(sd.begin(), sd.end()), want_q(qd.begin(), qd.end());
    const bool ok_s = workload::close_enough("s", s, want_s, 1e-3, 1e-3);
    const bool ok_q = workload::close_enough("q", q, want_q, 1e-3, 1e-3);

    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_p));
    CHECK(cudaFree(d_r));
    CHECK(cudaFree(d_s));
    CHECK(cudaFree(d_q));
    return workload::finish("bicg", size, ok_s && ok_q, "nx=ny=" + std::to_string(nx));
}
