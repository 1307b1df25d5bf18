// 3dconv: PolyBench/GPU's 3DCONV (a 3-D convolution over an ni x nj x nk grid), as measured by Wang et al. 2016
// (Table 2) and Gong 2020 (Table 6.2). The host launches one kernel per interior i-plane (i = 1 .. ni-2: many short
// launches); each launch runs one thread per (j, k) with 32x8 blocks (x = k, the contiguous index; y = j; the suite's
// 3DCONV block) and writes B[i][j][k] from 11 neighbours of A[i][j][k] in the planes i-1, i and i+1 (the
// suite's 11-point footprint: the k-1 and k+1 columns of planes i-1 and i+1, and the j-1, j, j+1 points of plane i).
// Each warp load is coalesced along k but the three planes are nj*nk floats apart.
// Sizes: paper ni = nj = nk = 256 (PolyBench/GPU's standard NI = NJ = NK = 256); small ni = 32, nj = nk = 128 (30 launches of 64
// CTAs).
#include "common.cuh"

namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

struct Tap {
    int di, dj, dk;
    float w;
};
// The 11 taps: (plane offset, row offset, column offset, weight).
constexpr Tap kTaps[11] = {
    {-1, -1, -1, 0.20f}, {+1, -1, -1, 0.40f}, {0, -1, 0, -0.30f}, {0, 0, 0, 0.60f},  {0, +1, 0, -0.90f},
    {-1, -1, +1, 0.50f}, {+1, -1, +1, 0.70f}, {-1, 0, +1, -0.80f}, {+1, 0, +1, 0.10f}, {-1, +1, +1, 0.30f},
    {+1, +1, +1, -0.60f},
};

__global__ void conv3d_plane(const float* a, float* b, int ni, int nj, int nk, int i) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i <= 0 || i >= ni - 1 || j <= 0 || j >= nj - 1 || k <= 0 || k >= nk - 1) return;
    const size_t plane = static_cast<size_t>(nj) * nk;
    const size_t at = static_cast<size_t>(i) * plane + static_cast<size_t>(j) * nk + k;
    b[at] = 0.20f * a[at - plane - nk - 1] + 0.40f * a[at + plane - nk - 1] - 0.30f * a[at - nk] + 0.60f * a[at] -
            0.90f * a[at + nk] + 0.50f * a[at - plane - nk + 1] + 0.70f * a[at + plane - nk + 1] -
            0.80f * a[at - plane + 1] + 0.10f * a[at + plane + 1] + 0.30f * a[at - plane + nk + 1] -
            0.60f * a[at + plane + nk + 1];
}

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "3dconv");
    // Small: fewer planes (launches) of a wider plane, so each launch still has 64 CTAs.
    const bool paper = size == workload::Size::paper;
    const int ni = paper ? 256 : 32, nj = paper ? 256 : 128, nk = nj;
    const size_t total = static_cast<size_t>(ni) * nj * nk;

    workload::Random rng(1010);
    std::vector<float> a(total);
    for (float& v : a) v = rng.uniform();

    float* d_a = workload::to_device(a);
    float* d_b = workload::device_zeros<float>(total);

    const dim3 block(kBlockX, kBlockY);
    const dim3 grid((nk + kBlockX - 1) / kBlockX, (nj + kBlockY - 1) / kBlockY);
    for (int i = 1; i < ni - 1; ++i) {
        conv3d_plane<<<grid, block>>>(d_a, d_b, ni, nj, nk, i);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaDeviceSynchronize());
    const std::vector<float> got = workload::to_host(d_b, total);

    // Host reference in double; the boundary stays zero.
    std::vector<float> want(total, 0.0f);
    for (int i = 1; i < ni - 1; ++i)
        for (int j = 1; j < nj - 1; ++j)
            for (int k = 1; k < nk - 1; ++k) {
                double s = 0.0;
                for (const Tap& t : kTaps)
                    s += static_cast<double>(t.w) *
                         a[(static_cast<size_t>(i + t.di) * nj + (j + t.dj)) * nk + (k + t.dk)];
                want[(static_cast<size_t>(i) * nj + j) * nk + k] = static_cast<float>(s);
            }
    const bool ok = workload::close_enough("b", got, want, 1e-4, 1e-4);

    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    return workload::finish("3dconv", size, ok,
                            "ni=" + std::to_string(ni) + " nj=nk=" + std::to_string(nj) + ", " + std::to_string(ni - 2) + " launches");
}
