// Device-side assert: a failed assertion stops the launch (KernelErrorKind::assertion) with the message a GPU
// prints; with valid input the kernel runs to completion.
#include <cassert>

extern "C" __global__ void assert_positive(const int* in, int* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    assert(in[i] > 0);
    out[i] = 2 * in[i];
}
