// Ascending bitonic sort of unsigned keys, CUDA SDK "sortingNetworks" structure. n must be a power of two and a
// multiple of SEG (512); blockDim.x must be SEG / 2 = 256 for the shared-memory kernels.
//  bitonic_sort_shared   sorts each 512-key segment in shared memory, even segments descending and odd ones
//                        ascending, so every pair of neighbours forms a bitonic sequence;
//  bitonic_merge_global  one compare-exchange step with stride >= 512 (one thread per compared pair);
//  bitonic_merge_shared  all remaining steps (stride 256 .. 1) of one merge size inside a segment.
// The driver runs sort_shared, then for size = 1024 .. n: merge_global for stride = size/2 .. 512, then
// merge_shared once.
#define SEG 512

__device__ __forceinline__ void compare_exchange(unsigned& a, unsigned& b, unsigned ascending)
{
    if ((a > b) == (ascending != 0)) {
        unsigned t = a;
        a = b;
        b = t;
    }
}

extern "C" __global__ void bitonic_sort_shared(unsigned* keys)
{
    __shared__ unsigned s[SEG];
    unsigned* seg = keys + blockIdx.x * SEG;
    s[threadIdx.x] = seg[threadIdx.x];
    s[threadIdx.x + SEG / 2] = seg[threadIdx.x + SEG / 2];
    for (unsigned size = 2; size < SEG; size <<= 1) {
        unsigned ascending = (threadIdx.x & (size / 2)) != 0;
        for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
            compare_exchange(s[pos], s[pos + stride], ascending);
        }
    }
    unsigned ascending = blockIdx.x & 1;
    for (unsigned stride = SEG / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
        compare_exchange(s[pos], s[pos + stride], ascending);
    }
    __syncthreads();
    seg[threadIdx.x] = s[threadIdx.x];
    seg[threadIdx.x + SEG / 2] = s[threadIdx.x + SEG / 2];
}

extern "C" __global__ void bitonic_merge_global(unsigned* keys, unsigned n, unsigned size, unsigned stride)
{
    unsigned pair = blockIdx.x * blockDim.x + threadIdx.x;
    if (pair >= n / 2) return;
    unsigned ascending = (pair & (size / 2)) == 0;
    unsigned pos = 2 * pair - (pair & (stride - 1));
    unsigned a = keys[pos], b = keys[pos + stride];
    compare_exchange(a, b, ascending);
    keys[pos] = a;
    keys[pos + stride] = b;
}

extern "C" __global__ void bitonic_merge_shared(unsigned* keys, unsigned size)
{
    __shared__ unsigned s[SEG];
    unsigned* seg = keys + blockIdx.x * SEG;
    s[threadIdx.x] = seg[threadIdx.x];
    s[threadIdx.x + SEG / 2] = seg[threadIdx.x + SEG / 2];
    unsigned pair = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned ascending = (pair & (size / 2)) == 0;
    for (unsigned stride = SEG / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
        compare_exchange(s[pos], s[pos + stride], ascending);
    }
    __syncthreads();
    seg[threadIdx.x] = s[threadIdx.x];
    seg[threadIdx.x + SEG / 2] = s[threadIdx.x + SEG / 2];
}
