// Test input for tests/ptx: atomics of several kinds, warp votes, match, activemask, barrier reductions.
__global__ void warp_ops(int* out, unsigned* counters, float* fsum, double* dsum, unsigned long long* u64) {
    int t = threadIdx.x;
    unsigned mask = __activemask();
    int ballot = __ballot_sync(0xffffffffu, t & 1);
    int all = __all_sync(0xffffffffu, t < 64);
    int any = __any_sync(0xffffffffu, t == 5);
    unsigned peers = __match_any_sync(0xffffffffu, t / 4);
    int xorv = __shfl_xor_sync(0xffffffffu, t, 1);
    int idxv = __shfl_sync(0xffffffffu, t, 0);
    int upv = __shfl_up_sync(0xffffffffu, t, 1);
    int count = __syncthreads_count(t & 2);
    int orr = __syncthreads_or(t == 3);
    int andd = __syncthreads_and(t < 1000);
    atomicAdd(counters, 1u);
    atomicSub(counters + 1, 2u);
    atomicMin((int*)counters + 2, -t);
    atomicMax(counters + 3, (unsigned)t);
    atomicInc(counters + 4, 15u);
    atomicDec(counters + 5, 15u);
    atomicCAS(counters + 6, 0u, (unsigned)t);
    atomicExch(counters + 7, (unsigned)t);
    atomicAnd(counters + 8, (unsigned)t);
    atomicOr(counters + 9, (unsigned)t);
    atomicXor(counters + 10, (unsigned)t);
    atomicAdd(fsum, 0.5f);
    atomicAdd(dsum, 0.25);
    atomicAdd(u64, 1ull);
    __threadfence();
    __syncwarp();
    out[t] = mask + ballot + all + any + peers + xorv + idxv + upv + count + orr + andd;
}
