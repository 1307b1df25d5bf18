// out (cols x rows) = transpose of in (rows x cols), one element per thread: reads are coalesced, writes are
// strided by `rows` across a warp (one memory transaction per lane).
extern "C" __global__ void transpose_naive(const float* in, float* out, int rows, int cols)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;  // column of in
    int y = blockIdx.y * blockDim.y + threadIdx.y;  // row of in
    if (x < cols && y < rows) out[x * rows + y] = in[y * cols + x];
}
