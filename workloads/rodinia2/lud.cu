// LU decomposition (Rodinia 3.1 "lud"): in-place blocked LU factorisation without pivoting (L unit lower, U upper)
// of an NxN matrix in 16x16 blocks. Each block step k runs three kernels: `diagonal` factors the 16x16 diagonal
// block in one CTA; `perimeter` (one CTA of 32 threads per block of the step's row/column) solves the U blocks right
// of the diagonal (first 16 threads, one column each) and the L blocks below it (last 16 threads, one row each);
// `internal` (one 16x16 CTA per trailing block) subtracts the product of its L and U perimeter blocks, staged in
// shared memory. A last `diagonal` launch factors the bottom-right block.
#include <cmath>
#include <string>

#include "common.cuh"

namespace {

constexpr int kBlock = 16;

__global__ void lud_diagonal(float* m, int dim, int offset) {
    __shared__ float a[kBlock][kBlock];
    const int tx = threadIdx.x;
    float* base = m + offset * dim + offset;
    for (int r = 0; r < kBlock; ++r) a[r][tx] = base[r * dim + tx];
    __syncthreads();
    // Column k of L below the diagonal, then row k+1 of U right of it.
    for (int k = 0; k < kBlock - 1; ++k) {
        if (tx > k) {
            float v = a[tx][k];
            for (int j = 0; j < k; ++j) v -= a[tx][j] * a[j][k];
            a[tx][k] = v / a[k][k];
        }
        __syncthreads();
        if (tx > k) {
            float v = a[k + 1][tx];
            for (int j = 0; j <= k; ++j) v -= a[k + 1][j] * a[j][tx];
            a[k + 1][tx] = v;
        }
        __syncthreads();
    }
    for (int r = 1; r < kBlock; ++r) base[r * dim + tx] = a[r][tx];
}

// Block b (0-based) of the step: U block at block column offset/16 + b + 1 and L block at that block row.
__global__ void lud_perimeter(float* m, int dim, int offset) {
    __shared__ float dia[kBlock][kBlock];
    __shared__ float row[kBlock][kBlock];
    __shared__ float col[kBlock][kBlock];
    const int tx = threadIdx.x;
    const int other = offset + kBlock * (blockIdx.x + 1);
    if (tx < kBlock) {
        const int c = tx;
        for (int r = 0; r < kBlock / 2; ++r) dia[r][c] = m[(offset + r) * dim + offset + c];
        for (int r = 0; r < kBlock; ++r) row[r][c] = m[(offset + r) * dim + other + c];
    } else {
        const int c = tx - kBlock;
        for (int r = kBlock / 2; r < kBlock; ++r) dia[r][c] = m[(offset + r) * dim + offset + c];
        for (int r = 0; r < kBlock; ++r) col[r][c] = m[(other + r) * dim + offset + c];
    }
    __syncthreads();
    if (tx < kBlock) {
        // U block: forward substitution with the unit lower triangle of the diagonal block, column c.
        const int c = tx;
        for (int r = 1; r < kBlock; ++r) {
            float v = row[r][c];
            for (int j = 0; j < r; ++j) v -= dia[r][j] * row[j][c];
            row[r][c] = v;
        }
    } else {
        // L block: solve x U = a with the diagonal block's upper triangle, row r.
        const int r = tx - kBlock;
        for (int c = 0; c < kBlock; ++c) {
            float v = col[r][c];
            for (int j = 0; j < c; ++j) v -= col[r][j] * dia[j][c];
            col[r][c] = v / dia[c][c];
        }
    }
    __syncthreads();
    if (tx < kBlock) {
        const int c = tx;
        for (int r = 1; r < kBlock; ++r) m[(offset + r) * dim + other + c] = row[r][c];
    } else {
        const int c = tx - kBlock;
        for (int r = 0; r < kBlock; ++r) m[(other + r) * dim + offset + c] = col[r][c];
    }
}

// Trailing block (blockIdx.y + 1, blockIdx.x + 1) relative to the step: A -= L_col * U_row.
__global__ void lud_internal(float* m, int dim, int offset) {
    __shared__ float row[kBlock][kBlock];
    __shared__ float col[kBlock][kBlock];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int gr = offset + kBlock * (blockIdx.y + 1);
    const int gc = offset + kBlock * (blockIdx.x + 1);
    row[ty][tx] = m[(offset + ty) * dim + gc + tx];
    col[ty][tx] = m[(gr + ty) * dim + offset + tx];
    __syncthreads();
    float sum = 0.0f;
    for (int k = 0; k < kBlock; ++k) sum += col[ty][k] * row[k][tx];
    m[(gr + ty) * dim + gc + tx] -= sum;
}

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "lud");
    // Rodinia's run script: `lud_cuda -i ../../data/lud/256.dat` (a 256x256 matrix).
    const int n = size == workload::Size::paper ? 256 : 192;

    // Synthetic diagonally dominant matrix (the shipped .dat files are too; no pivoting is needed).
    workload::Random rng(11);
    std::vector<float> a(n * n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) a[i * n + j] = rng.uniform() - 0.5f + (i == j ? 0.5f * n : 0.0f);

    float* d = workload::to_device(a);
    int launches = 0, offset = 0;
    for (; offset < n - kBlock; offset += kBlock) {
        const int rest = (n - offset) / kBlock - 1;
        lud_diagonal<<<1, kBlock>>>(d, n, offset);
        CHECK_LAUNCH();
        lud_perimeter<<<rest, 2 * kBlock>>>(d, n, offset);
        CHECK_LAUNCH();
        lud_internal<<<dim3(rest, rest), dim3(kBlock, kBlock)>>>(d, n, offset);
        CHECK_LAUNCH();
        launches += 3;
    }
    lud_diagonal<<<1, kBlock>>>(d, n, offset);
    CHECK_LAUNCH();
    ++launches;
    const std::vector<float> got = workload::to_host(d, a.size());

    // Host reference: right-looking Doolittle LU in double.
    std::vector<double> lu(a.begin(), a.end());
    for (int k = 0; k < n; ++k) {
        for (int i = k + 1; i < n; ++i) {
            lu[i * n + k] /= lu[k * n + k];
            const double l = lu[i * n + k];
            for (int j = k + 1; j < n; ++j) lu[i * n + j] -= l * lu[k * n + j];
        }
    }
    const std::vector<float> want(lu.begin(), lu.end());
    const bool ok = workload::close_enough("lu", got, want, 1e-3, 1e-4);

    CHECK(cudaFree(d));
    return workload::finish("lud", size, ok, "N=" + std::to_string(n) + ", " + std::to_string(launches) + " launches");
}
