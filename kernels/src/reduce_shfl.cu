// Double-precision sum: grid-stride accumulation per thread, then a __shfl_down_sync tree inside each group
// of 32 lanes, then warp 0 reduces the per-group sums (kept in shared memory). One partial per block.
// The lane index is threadIdx.x & 31 and shuffles use width 32, so on a 64-lane machine each half of a warp
// reduces independently (lane 0 of each half only reads lanes of its own half). blockDim.x must be a
// multiple of 32 and at most 1024.
__device__ __forceinline__ double sum_within_32_lanes(double v)
{
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

extern "C" __global__ void reduce_shfl(const double* in, double* out, unsigned n)
{
    __shared__ double group_sums[32];
    double v = 0.0;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += in[i];
    unsigned lane = threadIdx.x & 31u;
    unsigned group = threadIdx.x >> 5;
    v = sum_within_32_lanes(v);
    if (lane == 0) group_sums[group] = v;
    __syncthreads();
    if (group == 0) {
        unsigned groups = (blockDim.x + 31u) >> 5;
        v = lane < groups ? group_sums[lane] : 0.0;
        v = sum_within_32_lanes(v);
        if (lane == 0) out[blockIdx.x] = v;
    }
}
