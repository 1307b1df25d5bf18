// Test input for tests/ptx: non-inlined device functions (call sequences), a function called twice,
// nested calls, and a local array in a callee.
__device__ __noinline__ int square_plus(int x, int y) { return x * x + y; }
__device__ __noinline__ int twice(int x) { return square_plus(x, 1) + square_plus(x + 1, 2); }
__device__ __noinline__ float pick(int k, float a) {
    float table[8];
    for (int j = 0; j < 8; ++j) table[j] = a * j;
    return table[k & 7];
}
__global__ void calls(int* out, float* f, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    out[t] = twice(t) + square_plus(t, 3);
    f[t] = pick(t, f[t]);
}
