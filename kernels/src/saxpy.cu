// y = alpha * x + y with a grid-stride loop. x is read through a const __restrict__ pointer, so nvcc
// emits the non-coherent load (ld.global.nc) for it; y is read and written (plain ld/st.global).
extern "C" __global__ void saxpy(int n, float alpha, const float* __restrict__ x, float* __restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = alpha * x[i] + y[i];
}
