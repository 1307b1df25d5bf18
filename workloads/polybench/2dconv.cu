// 2dconv: PolyBench/GPU's 2DCONV (a 3x3 convolution over an ni x nj image), as measured by Wang et al. 2016
// (Table 2) and Gong 2020 (Table 6.2). One kernel, one thread per interior pixel with 32x8 blocks (x = column j,
// y = row i; the suite's 2DCONV block); each thread reads the 9 neighbours from global memory (no shared-memory
// tiling): coalesced loads along a row, three rows nj floats apart.
// Sizes: paper ni = nj = 4096 (PolyBench/GPU's standard NI = NJ = 4096); small ni = nj = 768.
#include "common.cuh"

namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
// Weights w[row offset + 1][column offset + 1].
constexpr float kW[3][3] = {{0.2f, -0.3f, 0.4f}, {0.5f, 0.6f, 0.7f}, {-0.8f, -0.9f, 0.1f}};

__global__ void conv2d_kernel(const float* a, float* b, int ni, int nj) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i <= 0 || i >= ni - 1 || j <= 0 || j >= nj - 1) return;
    const float* up = a + static_cast<size_t>(i - 1) * nj + j;
    const float* mid = up + nj;
    const float* down = mid + nj;
    b[static_cast<size_t>(i) * nj + j] = 0.2f * up[-1] - 0.3f * up[0] + 0.4f * up[1] + 0.5f * mid[-1] + 0.6f * mid[0] +
                                        0.7f * mid[1] - 0.8f * down[-1] - 0.9f * down[0] + 0.1f * down[1];
}

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "2dconv");
    const int n = size == workload::Size::paper ? 4096 : 768;
    const int ni = n, nj = n;
    const size_t total = static_cast<size_t>(ni) * nj;

    workload::Random rng(1012);
    std::vector<float> a(total);
    for (float& v : a) v = rng.uniform();

    float* d_a = workload::to_device(a);
    float* d_b = workload::device_zeros<float>(total);

    const dim3 block(kBlockX, kBlockY);
    const dim3 grid((nj + kBlockX - 1) / kBlockX, (ni + kBlockY - 1) / kBlockY);
    conv2d_kernel<<<grid, block>>>(d_a, d_b, ni, nj);
    CHECK_LAUNCH();
    const std::vector<float> got = workload::to_host(d_b, total);

    // Host reference in double; the border stays zero.
    std::vector<float> want(total, 0.0f);
    for (int i = 1; i < ni - 1; ++i)
        for (int j = 1; j < nj - 1; ++j) {
            double s = 0.0;
            for (int di = -1; di <= 1; ++di)
                for (int dj = -1; dj <= 1; ++dj)
                    s += static_cast<double>(kW[di + 1][dj + 1]) * a[static_cast<size_t>(i + di) * nj + (j + dj)];
            want[static_cast<size_t>(i) * nj + j] = static_cast<float>(s);
        }
    const bool ok = workload::close_enough("b", got, want, 1e-4, 1e-4);

    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    return workload::finish("2dconv", size, ok, "ni=nj=" + std::to_string(n));
}
