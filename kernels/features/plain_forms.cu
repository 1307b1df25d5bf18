// Three forms nvcc emits that ptxas accepts: rsqrt.approx.f64 without .ftz (rsqrt(double) seeds its Newton
// steps with it), the WARP_SZ constant (warpSize), and a predicate set from an integer immediate other than 0/1
// (`mov.pred p, -1`, written here as inline PTX because which C++ makes nvcc emit it depends on optimisation).
extern "C" __global__ void plain_forms(const double* in, double* rsqrt_out, int* width, unsigned* flags) {
    const int t = threadIdx.x;
    rsqrt_out[t] = rsqrt(in[t]);
    width[t] = warpSize;
    unsigned all_ones, zero, seven;
    asm("{ .reg .pred q; mov.pred q, -1; selp.u32 %0, 1, 0, q; }" : "=r"(all_ones));
    asm("{ .reg .pred q; mov.pred q, 0; selp.u32 %0, 1, 0, q; }" : "=r"(zero));
    asm("{ .reg .pred q; mov.pred q, 7; selp.u32 %0, 1, 0, q; }" : "=r"(seven));
    flags[t] = all_ones | zero << 1 | seven << 2;
}
