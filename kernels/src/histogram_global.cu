// 256-bin byte histogram with one global atomic per input byte (heavy contention on popular bins).
// The atomic's result is unused, so nvcc emits a reduction (red.global.add).
extern "C" __global__ void histogram_global(const unsigned char* data, unsigned n, unsigned* bins)
{
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&bins[data[i]], 1u);
}
