// Three one-warp launches whose L1 and L2 accesses can be counted by hand (tests/cudart/check_gpgpusim_stats.py
// checks the GPGPU-Sim-named statistics against those counts): each thread touches one float, so a warp's 32
// floats are one 128-byte line.
//   1. scale: load `in` (1 line, cold miss), store `out` (1 line, not in the L1: a store miss).
//   2. bump: load `in` again, then store it back: the load misses when the L1 was flushed between kernels and hits
//      when it was not; the store finds the line its load brought (a store hit).
//   3. bump again: the same, after launch 2's store evicted the line (write-evict): the load misses either way.
#include <cuda_runtime.h>

#include <cstdio>

#include "check.cuh"

__global__ void scale(const float* in, float* out) { out[threadIdx.x] = 2.0f * in[threadIdx.x]; }
__global__ void bump(float* data) { data[threadIdx.x] = data[threadIdx.x] + 1.0f; }

int main() {
    float host[32];
    for (int i = 0; i < 32; ++i) host[i] = float(i);
    float *in = nullptr, *out = nullptr;
    CHECK(cudaMalloc(&in, sizeof host));
    CHECK(cudaMalloc(&out, sizeof host));
    CHECK(cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice));
    scale<<<1, 32>>>(in, out);
    CHECK(cudaGetLastError());
    bump<<<1, 32>>>(in);
    CHECK(cudaGetLastError());
    bump<<<1, 32>>>(in);
    CHECK(cudaGetLastError());
    float back[32], doubled[32];
    CHECK(cudaMemcpy(back, in, sizeof back, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(doubled, out, sizeof doubled, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 32; ++i) {
        EXPECT(back[i] == float(i) + 2.0f, "in[%d] = %g", i, back[i]);
        EXPECT(doubled[i] == 2.0f * float(i), "out[%d] = %g", i, doubled[i]);
    }
    std::printf("gpgpusim_stats: ok\n");
    return 0;
}
