// HotSpot (Rodinia 3.1): transient thermal simulation of a chip on a 2D grid. Each step updates every cell from its
// four neighbours, its power dissipation and the ambient temperature. The GPU version tiles the grid in 16x16 blocks
// and runs a "pyramid" of several time steps per launch in shared memory: each step shrinks the valid region of the
// tile by one cell on every side, so neighbouring tiles overlap by 2*pyramid_height cells (ghost zone) and each block
// writes only its inner (16 - 2*pyramid_height)^2 cells.
#include <algorithm>
#include <string>

#include "common.cuh"

namespace {

constexpr int kBlock = 16;

// Chip parameters of the benchmark (a 16 mm x 16 mm x 0.5 mm silicon die).
constexpr float kChipHeight = 0.016f;
constexpr float kChipWidth = 0.016f;
constexpr float kTChip = 0.0005f;
constexpr float kSpecHeatSi = 1.75e6f;
constexpr float kKSi = 100.0f;
constexpr float kFactorChip = 0.5f;
constexpr float kPrecision = 0.001f;
constexpr float kMaxPd = 3.0e6f;
constexpr float kAmbTemp = 80.0f;

struct Coefficients {
    float step_div_cap, rx_1, ry_1, rz_1;
};

Coefficients coefficients(int rows, int cols) {
    const float grid_height = kChipHeight / rows;
    const float grid_width = kChipWidth / cols;
    const float cap = kFactorChip * kSpecHeatSi * kTChip * grid_width * grid_height;
    const float rx = grid_width / (2.0f * kKSi * kTChip * grid_height);
    const float ry = grid_height / (2.0f * kKSi * kTChip * grid_width);
    const float rz = kTChip / (kKSi * grid_height * grid_width);
    const float max_slope = kMaxPd / (kFactorChip * kTChip * kSpecHeatSi);
    const float step = kPrecision / max_slope;
    return {step / cap, 1.0f / rx, 1.0f / ry, 1.0f / rz};
}

__device__ __host__ inline float cell_update(float t, float n, float s, float e, float w, float p, Coefficients c) {
    return t + c.step_div_cap * (p + (s + n - 2.0f * t) * c.ry_1 + (e + w - 2.0f * t) * c.rx_1 + (kAmbTemp - t) * c.rz_1);
}

// One block: a 16x16 tile whose origin is shifted back by the ghost border. `iterations` steps (<= pyramid height)
// run in shared memory; the inner cells valid after the last step are written out.
__global__ void hotspot_kernel(int iterations, const float* power, const float* temp_src, float* temp_dst, int cols,
                               int rows, int border, Coefficients c) {
    __shared__ float temp_on_cuda[kBlock][kBlock];
    __shared__ float power_on_cuda[kBlock][kBlock];
    __shared__ float temp_t[kBlock][kBlock];

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int small_block = kBlock - 2 * border;  // cells each block owns
    const int blk_y = small_block * blockIdx.y - border;
    const int blk_x = small_block * blockIdx.x - border;
    const int y = blk_y + ty, x = blk_x + tx;

    // The part of the tile that lies on the grid.
    const int valid_y0 = blk_y < 0 ? -blk_y : 0;
    const int valid_y1 = blk_y + kBlock - 1 > rows - 1 ? kBlock - 1 - (blk_y + kBlock - rows) : kBlock - 1;
    const int valid_x0 = blk_x < 0 ? -blk_x : 0;
    const int valid_x1 = blk_x + kBlock - 1 > cols - 1 ? kBlock - 1 - (blk_x + kBlock - cols) : kBlock - 1;

    if (y >= 0 && y < rows && x >= 0 && x < cols) {
        temp_on_cuda[ty][tx] = temp_src[y * cols + x];
        power_on_cuda[ty][tx] = power[y * cols + x];
    }
    __syncthreads();

    // Neighbours clamp to the grid edge (the boundary cell is its own neighbour there).
    const int n = ty - 1 < valid_y0 ? valid_y0 : ty - 1;
    const int s = ty + 1 > valid_y1 ? valid_y1 : ty + 1;
    const int w = tx - 1 < valid_x0 ? valid_x0 : tx - 1;
    const int e = tx + 1 > valid_x1 ? valid_x1 : tx + 1;

    bool computed = false;
    for (int i = 0; i < iterations; ++i) {
        computed = false;
        const bool inside = tx >= i + 1 && tx <= kBlock - i - 2 && ty >= i + 1 && ty <= kBlock - i - 2 &&
                            tx >= valid_x0 && tx <= valid_x1 && ty >= valid_y0 && ty <= valid_y1;
        if (inside) {
            computed = true;
            temp_t[ty][tx] = cell_update(temp_on_cuda[ty][tx], temp_on_cuda[n][tx], temp_on_cuda[s][tx],
                                         temp_on_cuda[ty][e], temp_on_cuda[ty][w], power_on_cuda[ty][tx], c);
        }
        __syncthreads();
        if (i == iterations - 1) break;
        if (computed) temp_on_cuda[ty][tx] = temp_t[ty][tx];
        __syncthreads();
    }
    if (computed) temp_dst[y * cols + x] = temp_t[ty][tx];
}

void reference(std::vector<float>& temp, const std::vector<float>& power, int rows, int cols, int steps,
               Coefficients c) {
    std::vector<float> next(temp.size());
    for (int t = 0; t < steps; ++t) {
        for (int r = 0; r < rows; ++r) {
            for (int q = 0; q < cols; ++q) {
                const int i = r * cols + q;
                const float n = temp[std::max(r - 1, 0) * cols + q];
                const float s = temp[std::min(r + 1, rows - 1) * cols + q];
                const float w = temp[r * cols + std::max(q - 1, 0)];
                const float e = temp[r * cols + std::min(q + 1, cols - 1)];
                next[i] = cell_update(temp[i], n, s, e, w, power[i], c);
            }
        }
        temp.swap(next);
    }
}

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "hotspot");
    // Rodinia's run script: `hotspot 512 2 2 temp_512 power_512` (512x512 grid, pyramid height 2, 2 steps).
    const bool paper = size == workload::Size::paper;
    const int grid = paper ? 512 : 192;
    const int pyramid = 2;
    const int steps = paper ? 2 : 4;
    const int rows = grid, cols = grid;

    // Synthetic temperatures (K) and power densities like the shipped temp_512/power_512 files.
    workload::Random rng(41);
    std::vector<float> temp(rows * cols), power(rows * cols);
    for (int i = 0; i < rows * cols; ++i) {
        temp[i] = 323.0f + 20.0f * rng.uniform();
        power[i] = 1.0e-3f * rng.uniform();
    }
    const Coefficients c = coefficients(rows, cols);

    float* d_power = workload::to_device(power);
    float* d_temp[2] = {workload::to_device(temp), workload::to_device(temp)};

    const int border = pyramid;  // ghost cells per side
    const int small_block = kBlock - 2 * border;
    const dim3 blocks((cols + small_block - 1) / small_block, (rows + small_block - 1) / small_block);
    const dim3 threads(kBlock, kBlock);
    int src = 0, launches = 0;
    for (int t = 0; t < steps; t += pyramid) {
        const int iterations = std::min(pyramid, steps - t);
        hotspot_kernel<<<blocks, threads>>>(iterations, d_power, d_temp[src], d_temp[1 - src], cols, rows, border, c);
        CHECK_LAUNCH();
        src = 1 - src;
        ++launches;
    }
    const std::vector<float> got = workload::to_host(d_temp[src], temp.size());

    reference(temp, power, rows, cols, steps, c);
    const bool ok = workload::close_enough("temperature", got, temp, 1e-5, 1e-3);

    CHECK(cudaFree(d_power));
    CHECK(cudaFree(d_temp[0]));
    CHECK(cudaFree(d_temp[1]));
    return workload::finish("hotspot", size, ok,
                            std::to_string(rows) + "x" + std::to_string(cols) + ", " + std::to_string(steps) +
                                " steps, pyramid " + std::to_string(pyramid) + ", " +
                                std::to_string(blocks.x * blocks.y) + " CTAs x " + std::to_string(launches) +
                                " launches");
}
