// The second file of the two-file test program: a shared-memory tiled matrix product and its launcher.
#include "gemm.cuh"

namespace {
constexpr int tile = 16;

__global__ void gemm_tiled(const float* a, const float* b, float* c, int m, int n, int k) {
    __shared__ float as[tile][tile];
    __shared__ float bs[tile][tile];
    const int row = blockIdx.y * tile + threadIdx.y, col = blockIdx.x * tile + threadIdx.x;
    float sum = 0;
    for (int t = 0; t < k; t += tile) {
        as[threadIdx.y][threadIdx.x] = row < m && t + threadIdx.x < k ? a[row * k + t + threadIdx.x] : 0.0f;
        bs[threadIdx.y][threadIdx.x] = col < n && t + threadIdx.y < k ? b[(t + threadIdx.y) * n + col] : 0.0f;
        __syncthreads();
        for (int j = 0; j < tile; ++j) sum += as[threadIdx.y][j] * bs[j][threadIdx.x];
        __syncthreads();
    }
    if (row < m && col < n) c[row * n + col] = sum;
}
} // namespace

cudaError_t launch_gemm(const float* a, const float* b, float* c, int m, int n, int k) {
    const dim3 block(tile, tile), grid((n + tile - 1) / tile, (m + tile - 1) / tile);
    gemm_tiled<<<grid, block>>>(a, b, c, m, n, k);
    return cudaGetLastError();
}
