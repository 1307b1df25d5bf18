// Test input for tests/ptx: shared memory, barriers, a loop, warp shuffles and atomics.
__global__ void __launch_bounds__(256) block_sum(const int* in, int* out, int n) {
    __shared__ int partial[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    partial[t] = i < n ? in[i] : 0;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride >= 32; stride >>= 1) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (t < 32) {
        int v = partial[t];
        for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
        if (t == 0) atomicAdd(out, v);
    }
}
