// Error paths of gpuarch's runtime, one per run: `faults MODE` makes the fault MODE names and checks that the program
// sees the CUDA error a GPU reports (from the next synchronising call, and sticky afterwards). Exit 0 when it did.
//   oob       a store past the end of an allocation       -> cudaErrorIllegalAddress
//   assert    a failing device-side assert()              -> cudaErrorAssert
//   trap      __trap()                                    -> cudaErrorLaunchFailure
//   runaway   a loop that never ends (run with a cycle limit)      -> cudaErrorLaunchTimeout
//   livelock  a spin on a flag nobody sets (run with livelock_cycles) -> cudaErrorLaunchTimeout
//   config    a block of 2048 threads                     -> cudaErrorInvalidConfiguration (not sticky)
//   unsupported  cudaMallocManaged, which gpuarch does not implement: the program is stopped
#include "check.cuh"

#include <cassert>
#include <cstring>

__global__ void store_past_end(int* out, int n) { out[n + threadIdx.x * 64] = 1; }
__global__ void failing_assert(const int* values) { assert(values[threadIdx.x] < 5); }
__global__ void trapping(int* out) {
    if (threadIdx.x == 3) __trap();
    out[threadIdx.x] = 1;
}
__global__ void forever(volatile int* flag, int* out) {
    int i = 0;
    while (flag[0] == 0) ++i; // nothing ever sets the flag
    out[0] = i;
}
__global__ void nothing(int* out) { out[threadIdx.x] = 0; }

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    const char* mode = argv[1];
    int* d = nullptr;
    CHECK(cudaMalloc(&d, 256 * sizeof(int)));
    CHECK(cudaMemset(d, 0, 256 * sizeof(int)));
    cudaError_t expected = cudaSuccess;
    if (std::strcmp(mode, "oob") == 0) {
        store_past_end<<<1, 32>>>(d, 256);
        expected = cudaErrorIllegalAddress;
    } else if (std::strcmp(mode, "assert") == 0) {
        int values[32];
        for (int i = 0; i < 32; ++i) values[i] = i;
        CHECK(cudaMemcpy(d, values, sizeof values, cudaMemcpyHostToDevice));
        failing_assert<<<1, 32>>>(d);
        expected = cudaErrorAssert;
    } else if (std::strcmp(mode, "trap") == 0) {
        trapping<<<1, 32>>>(d);
        expected = cudaErrorLaunchFailure;
    } else if (std::strcmp(mode, "runaway") == 0 || std::strcmp(mode, "livelock") == 0) {
        forever<<<2, 64>>>(d, d + 1);
        expected = cudaErrorLaunchTimeout;
    } else if (std::strcmp(mode, "config") == 0) {
        nothing<<<1, 2048>>>(d);
        const cudaError_t e = cudaGetLastError();
        EXPECT(e == cudaErrorInvalidConfiguration, "launch returned %s", cudaGetErrorName(e));
        EXPECT(cudaGetLastError() == cudaSuccess, "the configuration error must not be sticky");
        nothing<<<1, 32>>>(d);
        CHECK(cudaDeviceSynchronize());
        std::printf("faults config: %s, then a good launch PASSED\n", cudaGetErrorName(e));
        return 0;
    } else if (std::strcmp(mode, "unsupported") == 0) {
        void* managed = nullptr;
        cudaMallocManaged(&managed, 64); // gpuarch stops the program here
        std::printf("faults unsupported: still running, which is wrong\n");
        return 5;
    } else {
        return 2;
    }
    const cudaError_t sync = cudaDeviceSynchronize();
    EXPECT(sync == expected, "cudaDeviceSynchronize returned %s, expected %s", cudaGetErrorName(sync),
           cudaGetErrorName(expected));
    int host = 0;
    const cudaError_t after = cudaMemcpy(&host, d, sizeof host, cudaMemcpyDeviceToHost);
    EXPECT(after == expected, "the error is sticky, but a later cudaMemcpy returned %s", cudaGetErrorName(after));
    std::printf("faults %s: %s (%s) PASSED\n", mode, cudaGetErrorName(sync), cudaGetErrorString(sync));
    return 0;
}
