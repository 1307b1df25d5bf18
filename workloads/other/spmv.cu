// spmv: SHOC's sparse matrix-vector product (level-1 benchmark "Spmv", CSR kernels), as measured by Wang et al.
// 2016. Two kernels over the same random CSR matrix (1% of the entries non-zero, values in [0, 10)):
//   csr_scalar: one thread per row walks its row (blocks of 128 threads);
//   csr_vector: a group of 32 consecutive threads per row (4 rows per 128-thread block) strides through the row so
//               the loads of val/cols coalesce, then the group's partial sums are added with a shared-memory tree.
//               SHOC adds them warp-synchronously; here every step ends with __syncthreads, so the kernel is correct
//               for any warp width (the memory accesses are SHOC's).
// Paper size: SHOC's largest Spmv size class (-s 4): 16384 rows, 16384^2 / 100 non-zeros.
#include "common.cuh"

#include <algorithm>

namespace {

// Uniform in [0, 1) from 24 random bits.
float unit(workload::Random& rng) { return static_cast<float>(rng.below(1u << 24)) * (1.0f / 16777216.0f); }

constexpr int kBlock = 128;  // SHOC's BLOCK_SIZE
constexpr int kVector = 32;  // threads per row in csr_vector (SHOC's warp size)

__global__ void csr_scalar(const float* val, const int* cols, const int* row_start, const float* vec, int rows,
                           float* out) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    float sum = 0.0f;
    for (int j = row_start[row]; j < row_start[row + 1]; ++j) sum += val[j] * vec[cols[j]];
    out[row] = sum;
}

__global__ void csr_vector(const float* val, const int* cols, const int* row_start, const float* vec, int rows,
                           float* out) {
    __shared__ float partial[kBlock];
    const int t = threadIdx.x;
    const int lane = t % kVector;
    const int row = blockIdx.x * (kBlock / kVector) + t / kVector;
    float sum = 0.0f;
    if (row < rows) {
        const int end = row_start[row + 1];
        for (int j = row_start[row] + lane; j < end; j += kVector) sum += val[j] * vec[cols[j]];
    }
    partial[t] = sum;
    __syncthreads();
    for (int half = kVector / 2; half > 0; half /= 2) {
        if (lane < half) partial[t] += partial[t + half];
        __syncthreads();
    }
    if (lane == 0 && row < rows) out[row] = partial[t];
}

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "spmv");
    const int rows = size == workload::Size::paper ? 16384 : 4096;
    const long long target_nnz = static_cast<long long>(rows) * rows / 100;
    const int avg = static_cast<int>(target_nnz / rows);

    // Random CSR matrix: row lengths uniform in [avg/2, 3avg/2], sorted distinct random columns.
    workload::Random rng(16384);
    std::vector<int> row_start(rows + 1, 0), cols;
    std::vector<float> val;
    cols.reserve(static_cast<std::size_t>(target_nnz) * 11 / 10);
    for (int r = 0; r < rows; ++r) {
        const int len = avg / 2 + static_cast<int>(rng.below(static_cast<std::uint32_t>(avg + 1)));
        const int max_gap = std::max(1, 2 * rows / std::max(len, 1) - 1);
        int c = static_cast<int>(rng.below(static_cast<std::uint32_t>(max_gap)));
        for (int k = 0; k < len && c < rows; ++k) {
            cols.push_back(c);
            val.push_back(10.0f * unit(rng));
            c += 1 + static_cast<int>(rng.below(static_cast<std::uint32_t>(max_gap)));
        }
        row_start[r + 1] = static_cast<int>(cols.size());
    }
    std::vector<float> vec(rows);
    for (float& v : vec) v = 10.0f * unit(rng);
    const int nnz = static_cast<int>(cols.size());

    float* d_val = workload::to_device(val);
    int* d_cols = workload::to_device(cols);
    int* d_row_start = workload::to_device(row_start);
    float* d_vec = workload::to_device(vec);
    float* d_out_scalar = workload::device_zeros<float>(rows);
    float* d_out_vector = workload::device_zeros<float>(rows);

    csr_scalar<<<(rows + kBlock - 1) / kBlock, kBlock>>>(d_val, d_cols, d_row_start, d_vec, rows, d_out_scalar);
    CHECK_LAUNCH();
    const int rows_per_block = kBlock / kVector;
    csr_vector<<<(rows + rows_per_block - 1) / rows_per_block, kBlock>>>(d_val, d_cols, d_row_start, d_vec, rows,
                                                                         d_out_vector);
    CHECK_LAUNCH();
    const std::vector<float> scalar = workload::to_host(d_out_scalar, rows);
    const std::vector<float> vector = workload::to_host(d_out_vector, rows);

    std::vector<float> want(rows);
    for (int r = 0; r < rows; ++r) {
        double sum = 0.0;
        for (int j = row_start[r]; j < row_start[r + 1]; ++j) sum += static_cast<double>(val[j]) * vec[cols[j]];
        want[r] = static_cast<float>(sum);
    }
    bool ok = workload::close_enough("csr_scalar", scalar, want, 1e-4, 1e-3);
    ok = workload::close_enough("csr_vector", vector, want, 1e-4, 1e-3) && ok;

    for (void* p : {static_cast<void*>(d_val), static_cast<void*>(d_cols), static_cast<void*>(d_row_start),
                    static_cast<void*>(d_vec), static_cast<void*>(d_out_scalar), static_cast<void*>(d_out_vector)})
        CHECK(cudaFree(p));
    return workload::finish("spmv", size, ok,
                            "rows=" + std::to_string(rows) + ", nnz=" + std::to_string(nnz) + ", launches=2");
}
