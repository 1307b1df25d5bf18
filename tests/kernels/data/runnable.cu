// A kernel kernels/regen accepts (tests/kernels/check_ptx_test.sh): the control for unrunnable.cu.
extern "C" __global__ void scale(float* out, const float* in, float k) { out[threadIdx.x] = k * in[threadIdx.x]; }
