// Transpose through a 32 x 33 shared tile (the padding column avoids shared-memory bank conflicts), CUDA SDK
// style: block is 32 x 8 and each thread moves 4 elements, so both the global reads and writes are coalesced.
#define TILE_DIM 32
#define BLOCK_ROWS 8

extern "C" __global__ void transpose_tiled(const float* in, float* out, int rows, int cols)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;  // column of out = row of in
    y = blockIdx.x * TILE_DIM + threadIdx.y;  // row of out = column of in
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
