// Test input for tests/ptx: loops with break/continue, an early return, struct parameters, constant and
// global variables, dynamic shared memory, 64-bit arithmetic.
struct Params { double scale; int limits[3]; };
__constant__ int c_table[8] = {3, 1, 4, 1, 5, 9, 2, 6};
__device__ unsigned long long g_counter;
extern __shared__ float dynamic_smem[];
__global__ void control(Params p, const int* __restrict__ in, int* out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    dynamic_smem[threadIdx.x] = (float)t;
    __syncthreads();
    int acc = 0;
    for (int i = 0; i < n; ++i) {
        int v = in[(t + i) % n];
        if (v < 0) continue;
        if (v > p.limits[i % 3]) break;
        acc += v * c_table[v & 7];
    }
    switch (acc & 3) {
    case 0: acc += 10; break;
    case 1: acc *= 3; break;
    default: acc -= 1; break;
    }
    out[t] = acc + (int)(p.scale * dynamic_smem[(threadIdx.x + 1) % blockDim.x]);
    atomicAdd(&g_counter, (unsigned long long)acc);
}
