// 256-bin byte histogram: per-block bins in shared memory updated with shared atomics, then merged into the
// global bins with one global atomic per non-empty bin.
#define NUM_BINS 256

extern "C" __global__ void histogram_shared(const unsigned char* data, unsigned n, unsigned* bins)
{
    __shared__ unsigned local_bins[NUM_BINS];
    for (unsigned b = threadIdx.x; b < NUM_BINS; b += blockDim.x) local_bins[b] = 0;
    __syncthreads();
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local_bins[data[i]], 1u);
    __syncthreads();
    for (unsigned b = threadIdx.x; b < NUM_BINS; b += blockDim.x) {
        unsigned count = local_bins[b];
        if (count != 0) atomicAdd(&bins[b], count);
    }
}
