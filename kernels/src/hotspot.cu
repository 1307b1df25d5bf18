// One time step of a Rodinia-hotspot-like thermal simulation. Each 16 x 16 block stages an 18 x 18 tile of
// temperatures (its cells plus a one-cell halo, coordinates clamped at the grid edge) in shared memory,
// then updates each cell from its four neighbours, its power and the ambient temperature.
#define BS 16
#define HALO_DIM (BS + 2)

extern "C" __global__ void hotspot(const float* power, const float* temp_in, float* temp_out, int rows, int cols,
                                   float cap_inv, float rx_inv, float ry_inv, float rz_inv, float amb)
{
    __shared__ float t[HALO_DIM][HALO_DIM];
    int block_x = blockIdx.x * BS, block_y = blockIdx.y * BS;
    for (int k = threadIdx.y * BS + threadIdx.x; k < HALO_DIM * HALO_DIM; k += BS * BS) {
        int ly = k / HALO_DIM, lx = k % HALO_DIM;
        int gy = min(max(block_y + ly - 1, 0), rows - 1);
        int gx = min(max(block_x + lx - 1, 0), cols - 1);
        t[ly][lx] = temp_in[gy * cols + gx];
    }
    __syncthreads();
    int r = block_y + threadIdx.y, c = block_x + threadIdx.x;
    if (r < rows && c < cols) {
        float tc = t[threadIdx.y + 1][threadIdx.x + 1];
        float tn = t[threadIdx.y][threadIdx.x + 1];
        float ts = t[threadIdx.y + 2][threadIdx.x + 1];
        float tw = t[threadIdx.y + 1][threadIdx.x];
        float te = t[threadIdx.y + 1][threadIdx.x + 2];
        float delta = cap_inv * (power[r * cols + c] + (ts + tn - 2.0f * tc) * ry_inv +
                                 (te + tw - 2.0f * tc) * rx_inv + (amb - tc) * rz_inv);
        temp_out[r * cols + c] = tc + delta;
    }
}
