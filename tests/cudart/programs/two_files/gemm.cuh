#pragma once
#include <cuda_runtime.h>

// C (m x n) = A (m x k) * B (k x n), row-major, on the device.
cudaError_t launch_gemm(const float* a, const float* b, float* c, int m, int n, int k);
