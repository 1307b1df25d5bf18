// regen: arch=compute_80
// Every prefetch form ptxas accepts for sm_80 apart from .tensormap, written as inline PTX (no CUDA C++ intrinsic
// emits prefetch): the global and local data caches at .L1 and .L2, the L2 eviction priorities (as CCCL's
// annotated_ptr and cub's transform kernels write them), generic addresses of global, shared and local memory, and
// prefetchu. Prefetches change no value: the kernel's output is 3 * in + the local and shared sums.
extern "C" __global__ void prefetch_forms(const int* in, int* out, int n) {
    __shared__ int tile[64];
    int frame[8];
    const int t = threadIdx.x;
    const int i = blockIdx.x * blockDim.x + t;
    const int* p = in + (i < n ? i : 0);
    asm volatile("prefetch.global.L1 [%0];" ::"l"(p));
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p + 32));
    asm volatile("prefetch.global.L2::evict_last [%0];" ::"l"(p + 64));
    asm volatile("prefetch.global.L2::evict_normal [%0];" ::"l"(p + 96));
    asm volatile("prefetch.L1 [%0];" ::"l"(p));          // generic address of global memory
    asm volatile("prefetch.L2 [%0];" ::"l"(tile + t));   // generic address of shared memory: a no-op
    asm volatile("prefetchu.L1 [%0];" ::"l"(p));
    asm volatile("prefetchu.L1 [%0];" ::"l"(frame));     // uniform prefetch of local memory: a no-op
    for (int k = 0; k < 8; ++k) frame[k] = k * t;
    asm volatile("prefetch.local.L1 [%0];" ::"l"(__cvta_generic_to_local(frame + (t & 7))));
    asm volatile("prefetch.local.L2 [%0];" ::"l"(__cvta_generic_to_local(frame)));
    asm volatile("prefetch.L1 [%0];" ::"l"(frame + (t & 3))); // generic address of local memory
    tile[t] = t;
    __syncthreads();
    if (i < n) out[i] = 3 * in[i] + frame[(t * 5) & 7] + tile[(t + 1) % blockDim.x];
}
