// Out of scope: dynamic parallelism (a kernel launching a kernel), which gpuarch refuses with a clear error.
extern "C" __global__ void child(int* out) { out[threadIdx.x] = threadIdx.x; }
extern "C" __global__ void parent(int* out) { if (threadIdx.x == 0) child<<<1, 32>>>(out); }
