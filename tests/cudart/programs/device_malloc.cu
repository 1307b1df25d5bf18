// Device-side malloc/free through gpuarch's runtime: cudaDeviceGetLimit reports CUDA's default 8 MB heap,
// cudaDeviceSetLimit shrinks it to 64 KiB before any kernel calls malloc, a kernel whose threads each ask for
// 1 KiB then gets exactly 64 non-NULL pointers (the rest NULL), a second kernel frees them, and afterwards
// the heap size can no longer change (cudaErrorInvalidValue), as CUDA documents. Prints the counts on stdout.
#include "check.cuh"

__global__ void grab(unsigned long long* where, int* sums) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    int* p = static_cast<int*>(malloc(1024));
    where[t] = reinterpret_cast<unsigned long long>(p);
    if (p == nullptr) {
        sums[t] = -1;
        return;
    }
    for (int k = 0; k < 256; ++k) p[k] = t + k;
    int s = 0;
    for (int k = 0; k < 256; ++k) s += p[k];
    sums[t] = s;
}

__global__ void release(const unsigned long long* where) {
    free(reinterpret_cast<void*>(where[blockIdx.x * blockDim.x + threadIdx.x]));
}

int main() {
    size_t heap = 0;
    CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
    std::printf("default heap %zu bytes\n", heap);
    CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 64 * 1024));
    CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
    std::printf("heap %zu bytes\n", heap);
    const int threads = 128;
    unsigned long long* where;
    int* sums;
    CHECK(cudaMalloc(&where, threads * sizeof *where));
    CHECK(cudaMalloc(&sums, threads * sizeof *sums));
    grab<<<4, 32>>>(where, sums);
    CHECK(cudaGetLastError());
    int host[threads];
    CHECK(cudaMemcpy(host, sums, sizeof host, cudaMemcpyDeviceToHost));
    int granted = 0;
    for (int t = 0; t < threads; ++t) {
        if (host[t] < 0) continue;
        ++granted;
        EXPECT(host[t] == 256 * t + 255 * 256 / 2, "thread %d summed %d", t, host[t]);
    }
    std::printf("%d of %d allocations granted\n", granted, threads);
    release<<<4, 32>>>(where);
    CHECK(cudaDeviceSynchronize());
    EXPECT(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20) == cudaErrorInvalidValue,
           "the heap size changed after a kernel called malloc");
    std::printf("heap size fixed after use\n");
    CHECK(cudaFree(where));
    CHECK(cudaFree(sums));
    return 0;
}
