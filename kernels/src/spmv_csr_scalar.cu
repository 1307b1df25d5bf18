// y = A * x for a CSR matrix, one thread per row (the "scalar" kernel of Bell & Garland 2008). Rows of
// different lengths make lanes leave the loop at different trips, and lanes read vals/cols from unrelated
// rows and x at random columns: branch- and memory-divergent.
extern "C" __global__ void spmv_csr_scalar(int rows, const int* row_ptr, const int* cols, const float* vals,
                                           const float* x, float* y)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float dot = 0.0f;
        int end = row_ptr[row + 1];
        for (int j = row_ptr[row]; j < end; ++j) dot += vals[j] * x[cols[j]];
        y[row] = dot;
    }
}
