// A self-checking CUDA program for gpuarch's runtime: a templated kernel (mangled name), a grid-stride loop, a
// shared-memory reduction with dynamic shared memory, a __constant__ coefficient, a __device__ counter, streams,
// async copies and events, device queries. Every output is compared with a CPU reference.
#include "check.cuh"

#include <cmath>
#include <cstdint>
#include <vector>

__constant__ float coefficient;
__device__ unsigned int launched_threads;

template <typename T>
__global__ void scale_add(T* out, const T* x, const T* y, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = static_cast<T>(coefficient) * x[i] + y[i];
    atomicAdd(&launched_threads, 1u);
}

// Sums each block's slice in dynamic shared memory (a tree of barriers); one partial per block.
__global__ void block_sums(const int* in, int* partial, int n) {
    extern __shared__ int buffer[];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    buffer[threadIdx.x] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) buffer[threadIdx.x] += buffer[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = buffer[0];
}

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 3000;
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    EXPECT(count == 1, "%d devices", count);
    EXPECT(prop.multiProcessorCount > 0 && (prop.warpSize == 32 || prop.warpSize == 64), "bad properties");
    std::printf("device: %s, %d SMs, warp %d\n", prop.name, prop.multiProcessorCount, prop.warpSize);

    std::vector<float> x(n), y(n), out(n);
    std::vector<int> values(n);
    for (int i = 0; i < n; ++i) {
        x[i] = 0.5f * float(i % 97);
        y[i] = float(i % 13) - 6.0f;
        values[i] = (i * 7919) % 1000 - 500;
    }
    float *dx, *dy, *dout;
    int *dvalues, *dpartial;
    const int block = 128, blocks = (n + block - 1) / block;
    CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK(cudaMalloc(&dy, n * sizeof(float)));
    CHECK(cudaMalloc(&dout, n * sizeof(float)));
    CHECK(cudaMalloc(&dvalues, n * sizeof(int)));
    CHECK(cudaMalloc(&dpartial, blocks * sizeof(int)));
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaMemcpyAsync(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));
    CHECK(cudaMemcpyAsync(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));
    CHECK(cudaMemcpy(dvalues, values.data(), n * sizeof(int), cudaMemcpyDefault));
    const float c = 2.5f;
    CHECK(cudaMemcpyToSymbol(coefficient, &c, sizeof c));
    const unsigned zero = 0;
    CHECK(cudaMemcpyToSymbol(launched_threads, &zero, sizeof zero));

    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start, stream));
    scale_add<float><<<8, 64, 0, stream>>>(dout, dx, dy, n);
    CHECK(cudaGetLastError());
    block_sums<<<blocks, block, block * sizeof(int), stream>>>(dvalues, dpartial, n);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop, stream));
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaEventSynchronize(stop));
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    EXPECT(ms >= 0, "elapsed %f ms", ms);

    CHECK(cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        const float expected = std::fma(c, x[i], y[i]);
        const float unfused = c * x[i] + y[i];
        EXPECT(out[i] == expected || out[i] == unfused, "out[%d] = %f, expected %f", i, out[i], expected);
    }
    std::vector<int> partial(blocks);
    CHECK(cudaMemcpy(partial.data(), dpartial, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    long long total = 0, reference = 0;
    for (int b = 0; b < blocks; ++b) total += partial[b];
    for (int v : values) reference += v;
    EXPECT(total == reference, "sum %lld, expected %lld", total, reference);
    unsigned threads = 0;
    CHECK(cudaMemcpyFromSymbol(&threads, launched_threads, sizeof threads));
    EXPECT(threads == 8u * 64u, "%u threads counted", threads);
    unsigned* counter_address = nullptr;
    CHECK(cudaGetSymbolAddress(reinterpret_cast<void**>(&counter_address), launched_threads));
    unsigned through_address = 0;
    CHECK(cudaMemcpy(&through_address, counter_address, sizeof through_address, cudaMemcpyDeviceToHost));
    EXPECT(through_address == threads, "%u through the symbol's address", through_address);

    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaStreamDestroy(stream));
    for (void* p : {static_cast<void*>(dx), static_cast<void*>(dy), static_cast<void*>(dout),
                    static_cast<void*>(dvalues), static_cast<void*>(dpartial)})
        CHECK(cudaFree(p));
    std::printf("vector_ops: n=%d sum=%lld elapsed %.6f ms PASSED\n", n, total, ms);
    return 0;
}
