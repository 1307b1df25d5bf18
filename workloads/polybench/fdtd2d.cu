// fdtd2d: PolyBench/GPU's FDTD-2D (2-D finite-difference time-domain kernel: electric fields ex, ey and magnetic
// field hz on an nx x ny grid), as measured by Wang et al. 2016 (Table 2) and Gong 2020 (Table 6.2). Each of the
// tmax time steps launches three kernels, one thread per grid point with 32x8 blocks (x = column j, y = row i; the
// suite's FDTD-2D block):
//   update_ey: row 0 takes the source value fict[t]; other rows ey[i][j] -= 0.5 (hz[i][j] - hz[i-1][j]);
//   update_ex: columns j > 0: ex[i][j] -= 0.5 (hz[i][j] - hz[i][j-1]);
//   update_hz: i < nx-1, j < ny-1: hz[i][j] -= 0.7 (ex[i][j+1] - ex[i][j] + ey[i+1][j] - ey[i][j]).
// All loads are coalesced along a row (neighbour rows are ny floats apart).
// Sizes: paper tmax = 500, nx = ny = 2048 (PolyBench/GPU's standard); small tmax = 5, nx = ny = 256.
#include "common.cuh"

namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

__global__ void update_ey(const float* fict, float* ey, const float* hz, int nx, int ny, int t) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    const size_t at = static_cast<size_t>(i) * ny + j;
    if (i == 0) ey[at] = fict[t];
    else ey[at] = ey[at] - 0.5f * (hz[at] - hz[at - ny]);
}

__global__ void update_ex(float* ex, const float* hz, int nx, int ny) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny || j == 0) return;
    const size_t at = static_cast<size_t>(i) * ny + j;
    ex[at] = ex[at] - 0.5f * (hz[at] - hz[at - 1]);
}

__global__ void update_hz(const float* ex, const float* ey, float* hz, int nx, int ny) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx - 1 || j >= ny - 1) return;
    const size_t at = static_cast<size_t>(i) * ny + j;
    hz[at] = hz[at] - 0.7f * (ex[at + 1] - ex[at] + ey[at + ny] - ey[at]);
}

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "fdtd2d");
    const bool paper = size == workload::Size::paper;
    // FDTD_N and FDTD_T override nx = ny and tmax (used once to check the paper-size code path at a reduced step
    // count).
    int n = paper ? 2048 : 256;
    int tmax = paper ? 500 : 5;
    if (const char* e = std::getenv("FDTD_N")) n = std::atoi(e);
    if (const char* e = std::getenv("FDTD_T")) tmax = std::atoi(e);
    const int nx = n, ny = n;
    const size_t total = static_cast<size_t>(nx) * ny;

    workload::Random rng(1011);
    std::vector<float> fict(tmax), ex(total), ey(total), hz(total);
    for (int t = 0; t < tmax; ++t) fict[t] = static_cast<float>(t) / static_cast<float>(tmax);
    for (size_t e = 0; e < total; ++e) {
        ex[e] = rng.uniform();
        ey[e] = rng.uniform();
        hz[e] = rng.uniform();
    }

    float* d_fict = workload::to_device(fict);
    float* d_ex = workload::to_device(ex);
    float* d_ey = workload::to_device(ey);
    float* d_hz = workload::to_device(hz);

    const dim3 block(kBlockX, kBlockY);
    const dim3 grid((ny + kBlockX - 1) / kBlockX, (nx + kBlockY - 1) / kBlockY);
    for (int t = 0; t < tmax; ++t) {
        update_ey<<<grid, block>>>(d_fict, d_ey, d_hz, nx, ny, t);
        CHECK(cudaGetLastError());
        update_ex<<<grid, block>>>(d_ex, d_hz, nx, ny);
        CHECK(cudaGetLastError());
        update_hz<<<grid, block>>>(d_ex, d_ey, d_hz, nx, ny);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaDeviceSynchronize());
    const std::vector<float> got = workload::to_host(d_hz, total);

    // Host reference in float, the same operations in the same order (the device may fuse multiply-adds, hence the
    // tolerance).
    for (int t = 0; t < tmax; ++t) {
        for (int j = 0; j < ny; ++j) ey[j] = fict[t];
        for (int i = 1; i < nx; ++i)
            for (int j = 0; j < ny; ++j) {
                const size_t at = static_cast<size_t>(i) * ny + j;
                ey[at] = ey[at] - 0.5f * (hz[at] - hz[at - ny]);
            }
        for (int i = 0; i < nx; ++i)
            for (int j = 1; j < ny; ++j) {
                const size_t at = static_cast<size_t>(i) * ny + j;
                ex[at] = ex[at] - 0.5f * (hz[at] - hz[at - 1]);
            }
        for (int i = 0; i < nx - 1; ++i)
            for (int j = 0; j < ny - 1; ++j) {
                const size_t at = static_cast<size_t>(i) * ny + j;
                hz[at] = hz[at] - 0.7f * (ex[at + 1] - ex[at] + ey[at + ny] - ey[at]);
            }
    }
    const bool ok = workload::close_enough("hz", got, hz, 1e-3, 1e-3);

    CHECK(cudaFree(d_fict));
    CHECK(cudaFree(d_ex));
    CHECK(cudaFree(d_ey));
    CHECK(cudaFree(d_hz));
    return workload::finish("fdtd2d", size, ok,
                            "tmax=" + std::to_string(tmax) + " nx=ny=" + std::to_string(n) + ", " +
                                std::to_string(3 * tmax) + " launches");
}
