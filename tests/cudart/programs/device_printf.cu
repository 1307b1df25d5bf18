// Device-side printf through gpuarch's runtime: the text reaches stdout between the host's own lines, in a
// deterministic order (threads of a warp in lane order). The test compares stdout with device_printf.expected.
#include "check.cuh"

__global__ void greet(int base, double scale, const char* label) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t % 16 == 0) printf("block %d thread %2d: %d %.3f %s %x\n", blockIdx.x, threadIdx.x, base + t, scale * t, label, t * 255);
}

int main() {
    char* label;
    const char text[] = "ok";
    CHECK(cudaMalloc(&label, sizeof text));
    CHECK(cudaMemcpy(label, text, sizeof text, cudaMemcpyHostToDevice));
    std::printf("before\n");
    greet<<<2, 32>>>(100, 0.5, label);
    CHECK(cudaDeviceSynchronize());
    std::printf("after\n");
    return 0;
}
