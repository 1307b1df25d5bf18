// Tree reduction in dynamically sized shared memory (CUDA SDK "reduction #3": first add during load).
// Each block sums 2 * blockDim.x inputs and writes one partial sum; the driver relaunches the kernel on the
// partials until one value remains. blockDim.x must be a power of two; dynamic shared = blockDim.x floats.
// A __syncthreads() after every tree level keeps it correct for any warp width.
extern "C" __global__ void reduce_shared(const float* in, float* out, unsigned n)
{
    extern __shared__ float sdata[];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (blockDim.x * 2) + tid;
    float v = 0.0f;
    if (i < n) v = in[i];
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}
