// regen: arch=compute_80
#include <cuda_pipeline.h>
// cp.async (sm_80) from the pipeline primitives and inline PTX. Each thread t of a block of B threads:
// - group 0: copies in[base + t] (16 bytes, cp.async.cg) into tile[0][t] and the first int of it (4 bytes,
//   cp.async.ca) into words[t];
// - group 1: copies in[n + base + t] into tile[1][t] when t % 4 == 0, and zero-fills it otherwise (src-size 0);
// - waits for group 0 (wait_group 1) and writes out[base + t] = tile[0][t] with x += words[t];
// - waits for group 1 (wait_group 0) and writes out[n + base + t] = tile[1][(t + 1) % B];
// - copies 8 bytes (cp.async.ca, 8) with ignore-src = (t % 2 == 1), which zero-fills odd threads, waits with
//   cp.async.wait_all, and writes pair[base + t] = what its neighbour t ^ 1 copied.
extern "C" __global__ void cp_async_copy(const int4* in, int4* out, long long* pair, const long long* pair_in, int n) {
    __shared__ int4 tile[2][128];
    __shared__ int words[128];
    __shared__ long long eight[128];
    const int t = threadIdx.x;
    const int base = blockIdx.x * blockDim.x;
    __pipeline_memcpy_async(&tile[0][t], &in[base + t], sizeof(int4));
    __pipeline_memcpy_async(&words[t], reinterpret_cast<const int*>(in + base) + t, sizeof(int));
    __pipeline_commit();
    __pipeline_memcpy_async(&tile[1][t], &in[n + base + t], sizeof(int4), t % 4 == 0 ? 0 : sizeof(int4));
    __pipeline_commit();
    __pipeline_wait_prior(1);
    int4 a = tile[0][t];
    a.x += words[t];
    out[base + t] = a;
    __pipeline_wait_prior(0);
    __syncthreads();
    out[n + base + t] = tile[1][(t + 1) % blockDim.x];
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(&eight[t]));
    asm volatile("{\n\t.reg .pred skip;\n\tsetp.ne.u32 skip, %2, 0;\n\t"
                 "cp.async.ca.shared.global [%0], [%1], 8, skip;\n\t}" ::"r"(dst),
                 "l"(pair_in + base + t), "r"(t & 1)
                 : "memory");
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();
    pair[base + t] = eight[t ^ 1];
}
