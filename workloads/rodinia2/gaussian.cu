// Gaussian elimination (Rodinia 3.1 "gaussian"): forward elimination of A x = b on the GPU, one pair of kernels per
// pivot column t. Fan1 (one thread per row below the pivot, 512-thread blocks) computes the multipliers
// m[i][t] = a[i][t] / a[t][t]; Fan2 (a 2D grid of 4x4 blocks, x over the rows below the pivot and y over the columns
// from the pivot on) subtracts m[i][t] * a[t][j] from a[i][j], and the y == 0 threads update b. As in the benchmark
// the fast thread index walks rows, so Fan2's loads and stores are strided by the row length. Back substitution runs
// on the host.
#include <cmath>
#include <string>

#include "common.cuh"

namespace {

constexpr int kFan1Block = 512;
constexpr int kFan2Block = 4;

__global__ void fan1(float* m, const float* a, int n, int t) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n - 1 - t) return;
    const int row = i + t + 1;
    m[n * row + t] = a[n * row + t] / a[n * t + t];
}

__global__ void fan2(const float* m, float* a, float* b, int n, int t) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;  // row below the pivot
    const int y = blockIdx.y * blockDim.y + threadIdx.y;  // column from the pivot on
    if (x >= n - 1 - t || y >= n - t) return;
    const int row = x + 1 + t;
    const float mult = m[n * row + t];
    a[n * row + y + t] -= mult * a[n * t + y + t];
    if (y == 0) b[row] -= mult * b[t];
}

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "gaussian");
    // Rodinia's run script: `gaussian -f matrix4.txt` then `gaussian -s 16` (a generated 16x16 system); paper = 16.
    const int n = size == workload::Size::paper ? 16 : 96;

    // Synthetic diagonally dominant system (elimination without pivoting, as the benchmark does).
    workload::Random rng(5);
    std::vector<float> a(n * n), b(n), m(n * n, 0.0f);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) a[i * n + j] = rng.uniform() + (i == j ? static_cast<float>(n) : 0.0f);
        b[i] = 1.0f;
    }

    float* d_a = workload::to_device(a);
    float* d_b = workload::to_device(b);
    float* d_m = workload::to_device(m);
    const int fan1_blocks = (n + kFan1Block - 1) / kFan1Block;
    const dim3 fan2_grid((n + kFan2Block - 1) / kFan2Block, (n + kFan2Block - 1) / kFan2Block);
    const dim3 fan2_threads(kFan2Block, kFan2Block);
    int launches = 0;
    for (int t = 0; t < n - 1; ++t) {
        fan1<<<fan1_blocks, kFan1Block>>>(d_m, d_a, n, t);
        CHECK_LAUNCH();
        fan2<<<fan2_grid, fan2_threads>>>(d_m, d_a, d_b, n, t);
        CHECK_LAUNCH();
        launches += 2;
    }
    const std::vector<float> got_a = workload::to_host(d_a, a.size());
    const std::vector<float> got_b = workload::to_host(d_b, b.size());
    const std::vector<float> got_m = workload::to_host(d_m, m.size());

    // Host back substitution on the GPU's triangular system, as the benchmark does.
    std::vector<float> x(n);
    for (int i = n - 1; i >= 0; --i) {
        float s = got_b[i];
        for (int j = i + 1; j < n; ++j) s -= got_a[i * n + j] * x[j];
        x[i] = s / got_a[i * n + i];
    }

    // Reference: the same elimination on the host; the upper triangle, the multipliers, b and x are compared
    // (below the diagonal A holds only rounding residue).
    for (int t = 0; t < n - 1; ++t) {
        for (int i = t + 1; i < n; ++i) m[i * n + t] = a[i * n + t] / a[t * n + t];
        for (int i = t + 1; i < n; ++i) {
            for (int j = t; j < n; ++j) a[i * n + j] -= m[i * n + t] * a[t * n + j];
            b[i] -= m[i * n + t] * b[t];
        }
    }
    std::vector<float> got_lu(n * n), want_lu(n * n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            got_lu[i * n + j] = j >= i ? got_a[i * n + j] : got_m[i * n + j];
            want_lu[i * n + j] = j >= i ? a[i * n + j] : m[i * n + j];
        }
    std::vector<float> want_x(n);
    for (int i = n - 1; i >= 0; --i) {
        double s = b[i];
        for (int j = i + 1; j < n; ++j) s -= static_cast<double>(a[i * n + j]) * want_x[j];
        want_x[i] = static_cast<float>(s / a[i * n + i]);
    }
    bool ok = workload::close_enough("lu", got_lu, want_lu, 1e-4, 1e-5);
    ok = workload::close_enough("b", got_b, b, 1e-4, 1e-5) && ok;
    ok = workload::close_enough("x", x, want_x, 1e-3, 1e-6) && ok;

    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_m));
    return workload::finish("gaussian", size, ok,
                            "N=" + std::to_string(n) + ", " + std::to_string(launches) + " launches");
}
