// Kernels kernels/regen must refuse (tests/kernels/check_ptx_test.sh): device printf and assert compile to calls
// of vprintf and __assertfail, external functions with no body in the PTX, and nvcc spreads each call over
// several lines.
#include <cassert>
#include <cstdio>

extern "C" __global__ void prints(const int* in) { printf("thread %d sees %d\n", threadIdx.x, in[threadIdx.x]); }

extern "C" __global__ void asserts(const int* in) { assert(in[threadIdx.x] >= 0); }
