// Test input for tests/ptx: special functions, fast-math intrinsics, doubles, half precision conversions.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
__global__ void math(float* f, double* d, __half* h, __nv_bfloat16* b, int* bits) {
    int t = threadIdx.x;
    float x = f[t];
    float y = __expf(x) + __logf(x + 2.0f) + __sinf(x) + __cosf(x) + rsqrtf(x + 1.0f) + sqrtf(x * x) +
              __fdividef(x, 3.0f) + x / f[t + 1] + fminf(x, 1.0f) + fmaxf(x, -1.0f) + copysignf(1.0f, x) +
              __saturatef(x) + truncf(x) + floorf(x) + ceilf(x) + rintf(x) + tanhf(x);
    f[t] = y;
    double z = d[t];
    d[t] = sqrt(z) / (z + 1.0) + fma(z, 2.0, 1.0) + (double)__float2int_rn(x) + (double)(long long)z;
    __half hv = h[t];
    h[t] = __float2half(__half2float(hv) * 2.0f);
    b[t] = __float2bfloat16(__bfloat162float(b[t]) + 1.0f);
    __half2 pair = __floats2half2_rn(x, y);
    bits[t] = __popc(t) + __clz(t) + __brev(t) + __ffs(t) + __byte_perm(t, 7, 0x0123) + __funnelshift_r(t, 3, 5) +
              *reinterpret_cast<int*>(&pair) + __float_as_int(x) + (int)isnan(x) + (int)isinf(y) + __umulhi(t, 77) +
              __mul24(t, 3);
}
