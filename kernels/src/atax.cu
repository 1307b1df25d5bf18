// PolyBench/GPU ATAX (y = A^T (A x)), A is nx x ny row-major. As in PolyBench/GPU the accumulation goes
// straight to global memory (tmp[i] += ..., y[j] += ...), so every trip loads and stores the accumulator.
// atax_kernel1: thread i walks row i of A, so at each trip lanes read addresses ny floats apart (divergent).
// atax_kernel2: thread j walks column j of A, so lanes read consecutive addresses (coalesced).
// tmp and y must be zero on entry.
extern "C" __global__ void atax_kernel1(const float* A, const float* x, float* tmp, int nx, int ny)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx)
        for (int j = 0; j < ny; j++) tmp[i] += A[i * ny + j] * x[j];
}

extern "C" __global__ void atax_kernel2(const float* A, float* y, const float* tmp, int nx, int ny)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ny)
        for (int i = 0; i < nx; i++) y[j] += A[i * ny + j] * tmp[i];
}
