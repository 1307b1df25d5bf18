// Out of scope: a device-side graph-conditional call, which gpuarch refuses with a clear error.
#include <cuda_runtime.h>
extern "C" __global__ void set_condition(cudaGraphConditionalHandle handle, const int* flag) { cudaGraphSetConditional(handle, *flag != 0); }
