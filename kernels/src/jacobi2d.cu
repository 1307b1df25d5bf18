// One sweep of the PolyBench jacobi-2d 5-point stencil on an n x n grid: b = 0.2 * (5-point sum of a) on
// the interior; the boundary is left alone. The driver ping-pongs between two grids.
extern "C" __global__ void jacobi2d(int n, const float* a, float* b)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)
        b[i * n + j] = 0.2f * (a[i * n + j] + a[i * n + j - 1] + a[i * n + j + 1] + a[(i + 1) * n + j] +
                               a[(i - 1) * n + j]);
}
