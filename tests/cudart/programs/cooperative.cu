// A cooperative launch as CUDA programs make one: the grid sized from the occupancy API to fill the machine once,
// cudaLaunchCooperativeKernel, and cooperative groups' grid.sync() between the two phases of a global sum (block
// partials, then one block adds them). A grid one CTA too large must be refused with
// cudaErrorCooperativeLaunchTooLarge, which is not sticky: the program goes on.
#include "check.cuh"

#include <cooperative_groups.h>

#include <vector>

namespace cg = cooperative_groups;

__global__ void global_sum(const int* in, int* partial, long long* total, int n) {
    cg::grid_group grid = cg::this_grid();
    extern __shared__ int buffer[];
    int sum = 0;
    for (int i = static_cast<int>(grid.thread_rank()); i < n; i += static_cast<int>(grid.size())) sum += in[i];
    buffer[threadIdx.x] = sum;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) buffer[threadIdx.x] += buffer[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = buffer[0];
    grid.sync(); // every block's partial is written before block 0 reads them
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        long long t = 0;
        for (unsigned b = 0; b < gridDim.x; ++b) t += partial[b];
        *total = t;
    }
}

int main() {
    int supported = 0;
    CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrCooperativeLaunch, 0));
    EXPECT(supported == 1, "cudaDevAttrCooperativeLaunch is %d", supported);
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    const int block = 256, n = 50000;
    const size_t shared = block * sizeof(int);
    int per_sm = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, global_sum, block, shared));
    EXPECT(per_sm > 0, "occupancy %d", per_sm);
    const int blocks = per_sm * prop.multiProcessorCount;

    std::vector<int> in(n);
    long long want = 0;
    for (int i = 0; i < n; ++i) want += in[i] = (i * 7919) % 2001 - 1000;
    int *din, *dpartial;
    long long* dtotal;
    CHECK(cudaMalloc(&din, n * sizeof(int)));
    CHECK(cudaMalloc(&dpartial, (blocks + 1) * sizeof(int)));
    CHECK(cudaMalloc(&dtotal, sizeof(long long)));
    CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    int count = n;
    void* args[] = {&din, &dpartial, &dtotal, &count};

    const cudaError_t too_large = cudaLaunchCooperativeKernel(reinterpret_cast<void*>(global_sum), dim3(blocks + 1),
                                                              dim3(block), args, shared, nullptr);
    EXPECT(too_large == cudaErrorCooperativeLaunchTooLarge, "a grid of %d CTAs gave %s", blocks + 1,
           cudaGetErrorName(too_large));
    EXPECT(cudaGetLastError() == cudaErrorCooperativeLaunchTooLarge, "the error is not the last error");
    EXPECT(cudaGetLastError() == cudaSuccess, "cudaErrorCooperativeLaunchTooLarge is sticky");

    CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(global_sum), dim3(blocks), dim3(block), args, shared,
                                      nullptr));
    CHECK(cudaDeviceSynchronize());
    long long got = 0;
    CHECK(cudaMemcpy(&got, dtotal, sizeof got, cudaMemcpyDeviceToHost));
    EXPECT(got == want, "sum %lld, want %lld", got, want);
    std::fprintf(stderr, "cooperative: %d CTAs (%d per SM), sum %lld\n", blocks, per_sm, got);
    CHECK(cudaFree(din));
    CHECK(cudaFree(dpartial));
    CHECK(cudaFree(dtotal));
    return 0;
}
