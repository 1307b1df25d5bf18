// A CUDA program in two files (each its own fat binary, registered separately): a tiled matrix product from
// gemm.cu and a shared-memory histogram from this file. Both are checked against CPU references.
#include "../check.cuh"
#include "gemm.cuh"

#include <vector>

__global__ void histogram(const unsigned char* data, int n, unsigned* bins) {
    __shared__ unsigned local[16];
    if (threadIdx.x < 16) local[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i] % 16], 1u);
    __syncthreads();
    if (threadIdx.x < 16) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

int main() {
    const int m = 40, n = 24, k = 36;
    std::vector<float> a(m * k), b(k * n), c(m * n);
    for (int i = 0; i < m * k; ++i) a[i] = float((i * 37) % 11) - 5.0f;
    for (int i = 0; i < k * n; ++i) b[i] = float((i * 53) % 7) * 0.25f;
    float *da, *db, *dc;
    CHECK(cudaMalloc(&da, a.size() * sizeof(float)));
    CHECK(cudaMalloc(&db, b.size() * sizeof(float)));
    CHECK(cudaMalloc(&dc, c.size() * sizeof(float)));
    CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(launch_gemm(da, db, dc, m, n, k));
    CHECK(cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
    // Inputs are small integers and quarters, so every partial sum is exact in float whatever the order.
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            float expected = 0;
            for (int t = 0; t < k; ++t) expected += a[i * k + t] * b[t * n + j];
            EXPECT(c[i * n + j] == expected, "c[%d][%d] = %f, expected %f", i, j, c[i * n + j], expected);
        }

    const int bytes = 5000;
    std::vector<unsigned char> data(bytes);
    for (int i = 0; i < bytes; ++i) data[i] = static_cast<unsigned char>((i * 131 + 7) % 251);
    unsigned char* ddata;
    unsigned* dbins;
    CHECK(cudaMalloc(&ddata, bytes));
    CHECK(cudaMalloc(&dbins, 16 * sizeof(unsigned)));
    CHECK(cudaMemset(dbins, 0, 16 * sizeof(unsigned)));
    CHECK(cudaMemcpy(ddata, data.data(), bytes, cudaMemcpyHostToDevice));
    histogram<<<6, 128>>>(ddata, bytes, dbins);
    CHECK(cudaDeviceSynchronize());
    std::vector<unsigned> bins(16), reference(16, 0);
    CHECK(cudaMemcpy(bins.data(), dbins, 16 * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (unsigned char v : data) ++reference[v % 16];
    for (int i = 0; i < 16; ++i) EXPECT(bins[i] == reference[i], "bin %d = %u, expected %u", i, bins[i], reference[i]);
    std::printf("two_files: gemm %dx%dx%d and histogram of %d bytes PASSED\n", m, n, k, bytes);
    return 0;
}
