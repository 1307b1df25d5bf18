// Inclusive prefix sum of ints. scan_block: Hillis-Steele scan of one element per thread in a double-buffered
// shared array (dynamic shared = 2 * blockDim.x ints), writes the block total to block_sums[blockIdx.x]
// when block_sums is not null. scan_add_offsets: adds the inclusive scan of the block totals of all earlier
// blocks. The driver runs scan_block, scan_block on the totals (one block), then scan_add_offsets.
extern "C" __global__ void scan_block(const int* in, int* out, int* block_sums, unsigned n)
{
    extern __shared__ int buf[];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + tid;
    unsigned pout = 0;
    buf[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned offset = 1; offset < blockDim.x; offset <<= 1) {
        pout = 1 - pout;
        unsigned pin = 1 - pout;
        int v = buf[pin * blockDim.x + tid];
        if (tid >= offset) v += buf[pin * blockDim.x + tid - offset];
        buf[pout * blockDim.x + tid] = v;
        __syncthreads();
    }
    if (i < n) out[i] = buf[pout * blockDim.x + tid];
    if (block_sums != nullptr && tid == blockDim.x - 1) block_sums[blockIdx.x] = buf[pout * blockDim.x + tid];
}

extern "C" __global__ void scan_add_offsets(int* data, const int* scanned_block_sums, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (blockIdx.x > 0 && i < n) data[i] += scanned_block_sums[blockIdx.x - 1];
}
