// The runtime-overhead benchmark's CUDA program: the corpus's tiled SGEMM (kernels/src/sgemm_tiled.cu), launched
// `launches` times on 256 x 256 x 128 matrices through the ordinary <<<>>> path. driver.cpp makes the same launches
// through the C++ host API; bench/runtime_overhead/run.sh compares the two.
#include "sgemm_tiled.cu"

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
    const int launches = argc > 1 ? std::atoi(argv[1]) : 3;
    const int m = 256, n = 256, k = 128;
    std::vector<float> a(m * k), b(k * n), c(m * n, 0.0f);
    for (int i = 0; i < m * k; ++i) a[i] = float(i % 17) * 0.125f;
    for (int i = 0; i < k * n; ++i) b[i] = float(i % 13) * 0.25f;
    float *da, *db, *dc;
    cudaMalloc(&da, a.size() * sizeof(float));
    cudaMalloc(&db, b.size() * sizeof(float));
    cudaMalloc(&dc, c.size() * sizeof(float));
    cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dc, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice);
    for (int l = 0; l < launches; ++l)
        sgemm_tiled<<<dim3(n / TILE, m / TILE), dim3(TILE, TILE)>>>(m, n, k, 1.0f, da, db, 0.0f, dc);
    const cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost);
    std::printf("%s, c[0] = %f\n", cudaGetErrorName(e), c[0]);
    return e == cudaSuccess ? 0 : 1;
}
