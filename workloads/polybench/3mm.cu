// 3mm: PolyBench/GPU's 3MM (three matrix products: E = A B, F = C D, G = E F), as measured by Wang et al. 2016
// (Table 2) and Gong 2020 (Table 6.2). Three kernels, one thread per output element with 32x8 blocks (x = column j,
// y = row i; the suite's 3MM block), each thread walking k and accumulating in global memory: the left operand's
// X[i][k] is a broadcast within a block row, the right operand's Y[k][j] is coalesced.
// Sizes: paper ni = nj = nk = nl = nm = 512 (PolyBench/GPU's standard size 512); small 96.
#include "common.cuh"

namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

// out[i][j] = sum_k x[i][k] y[k][j] (x: rows x inner, y: inner x cols), one thread per output element.
__global__ void product_kernel(const float* x, const float* y, float* out, int rows, int inner, int cols) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= rows || j >= cols) return;
    float* o = &out[static_cast<size_t>(i) * cols + j];
    *o = 0.0f;
    for (int k = 0; k < inner; ++k) *o += x[static_cast<size_t>(i) * inner + k] * y[static_cast<size_t>(k) * cols + j];
}

void launch_product(const float* x, const float* y, float* out, int rows, int inner, int cols) {
    const dim3 block(kBlockX, kBlockY);
    product_kernel<<<dim3((cols + kBlockX - 1) / kBlockX, (rows + kBlockY - 1) / kBlockY), block>>>(x, y, out, rows,
                                                                                                    inner, cols);
    CHECK_LAUNCH();
}

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
    const workload::Size size = workload::parse_size(argc, argv, "3mm");
    const int n = size == workload::Size::paper ? 512 : 96;
    const int ni = n, nj = n, nk = n, nl = n, nm = n;

    workload::Random rng(1009);
    std::vector<float> a(static_cast<size_t>(ni) * nk), b(static_cast<size_t>(nk) * nj), c(static_cast<size_t>(nj) * nm),
        d(static_cast<size_t>(nm) * nl);
    for (float& v : a) v = rng.uniform();
    for (float& v : b) v = rng.uniform();
    for (float& v : c) v = rng.uniform();
    for (float& v : d) v = rng.uniform();

    float* d_a = workload::to_device(a);
    float* d_b = workload::to_device(b);
    float* d_c = workload::to_device(c);
    float* d_d = workload::to_device(d);
    float* d_e = workload::device_zeros<float>(static_cast<size_t>(ni) * nj);
    float* d_f = workload::device_zeros<float>(static_cast<size_t>(nj) * nl);
    float* d_g = workload::device_zeros<float>(static_cast<size_t>(ni) * nl);

    launch_product(d_a, d_b, d_e, ni, nk, nj); // E = A B
    launch_product(d_c, d_d, d_f, nj, nm, nl); // F = C D
    launch_product(d_e, d_f, d_g, ni, nj, nl); // G = E F
    const std::vector<float> got = workload::to_host(d_g, static_cast<size_t>(ni) * nl);

    // Host reference in double.
    const std::vector<double> ad(a.begin(), a.end()), bd(b.begin(), b.end()), cd(c.begin(), c.end()),
        dd(d.begin(), d.end());
    const std::vector<double> e = host_product(ad, bd, ni, nk, nj);
    const std::vector<double> f = host_product(cd, dd, nj, nm, nl);
    const std::vector<double> g = host_product(e, f, ni, nj, nl);
    const std::vector<float> want(g.begin(), g.end());
    const bool ok = workload::close_enough("g", got, want, 1e-3, 1e-3);

    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));
    CHECK(cudaFree(d_d));
    CHECK(cudaFree(d_e));
    CHECK(cudaFree(d_f));
    CHECK(cudaFree(d_g));
    return workload::finish("3mm", size, ok, "ni=nj=nk=nl=nm=" + std::to_string(n));
}
