// pathfinder: Rodinia's PathFinder (dynamic programming: the cheapest top-to-bottom path through a grid of weights,
// each step going down-left, down or down-right), as measured by Wang et al. 2016. Each kernel launch advances a
// "pyramid" of rows: a block of 256 threads stages its 256 columns of the current cost row in shared memory and
// computes pyramid_height rows in place, losing one halo column per side per row, so consecutive blocks overlap by
// 2 * pyramid_height columns and each block writes only its 256 - 2 * pyramid_height valid results.
// Paper size: Rodinia's default command line "pathfinder 100000 100 20" (100000 columns, 100 rows, pyramid height
// 20; weights rand() % 10).
#include "common.cuh"

#include <algorithm>

namespace {

constexpr int kBlock = 256; // Rodinia's BLOCK_SIZE
constexpr int kHalo = 1;

__device__ __host__ inline bool in_range(int x, int lo, int hi) { return x >= lo && x <= hi; }

__global__ void dynproc(int iteration, const int* wall, const int* src, int* dst, int cols, int start_step,
                        int border) {
    __shared__ int prev[kBlock];
    __shared__ int result[kBlock];
    const int tx = threadIdx.x;
    const int small_block_cols = kBlock - iteration * kHalo * 2;
    const int blk_x = small_block_cols * blockIdx.x - border;
    const int blk_x_max = blk_x + kBlock - 1;
    const int x = blk_x + tx;
    // The valid part of the block: columns inside the grid.
    const int valid_min = blk_x < 0 ? -blk_x : 0;
    const int valid_max = blk_x_max > cols - 1 ? kBlock - 1 - (blk_x_max - cols + 1) : kBlock - 1;
    const int west = max(tx - 1, valid_min);
    const int east = min(tx + 1, valid_max);
    const bool valid = in_range(tx, valid_min, valid_max);

    if (in_range(x, 0, cols - 1)) prev[tx] = src[x];
    __syncthreads();
    bool computed = false;
    for (int i = 0; i < iteration; ++i) {
        computed = false;
        if (in_range(tx, i + 1, kBlock - i - 2) && valid) {
            computed = true;
            const int shortest = min(min(prev[west], prev[tx]), prev[east]);
            result[tx] = shortest + wall[cols * (start_step + i) + x];
        }
        __syncthreads();
        if (i == iteration - 1) break;
        if (computed) prev[tx] = result[tx];
        __syncthreads();
    }
    if (computed) dst[x] = result[tx];
}

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "pathfinder");
    const bool paper = size == workload::Size::paper;
    const int cols = paper ? 100000 : 32768;
    const int rows = paper ? 100 : 41;
    const int pyramid = 20;

    workload::Random rng(100000);
    std::vector<int> data(static_cast<std::size_t>(rows) * cols);
    for (int& v : data) v = static_cast<int>(rng.below(10));

    // The wall is every row but the first; the first row seeds the costs.
    const std::vector<int> wall(data.begin() + cols, data.end());
    const std::vector<int> first(data.begin(), data.begin() + cols);
    int* d_wall = workload::to_device(wall);
    int* d_result[2] = {workload::to_device(first), workload::device_zeros<int>(cols)};

    const int border = pyramid * kHalo;
    const int small_block_cols = kBlock - pyramid * kHalo * 2;
    const int blocks = (cols + small_block_cols - 1) / small_block_cols;
    int src = 0, launches = 0;
    for (int t = 0; t < rows - 1; t += pyramid) {
        const int iteration = std::min(pyramid, rows - t - 1);
        dynproc<<<blocks, kBlock>>>(iteration, d_wall, d_result[src], d_result[1 - src], cols, t, border);
        CHECK_LAUNCH();
        src = 1 - src;
        ++launches;
    }
    const std::vector<int> got = workload::to_host(d_result[src], cols);

    // Host reference: row-by-row dynamic programming.
    std::vector<int> cost(first), next(cols);
    for (int r = 1; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
            int best = cost[c];
            if (c > 0) best = std::min(best, cost[c - 1]);
            if (c < cols - 1) best = std::min(best, cost[c + 1]);
            next[c] = best + data[static_cast<std::size_t>(r) * cols + c];
        }
        cost.swap(next);
    }
    const bool ok = workload::equal("cost", got, cost);

    CHECK(cudaFree(d_wall));
    CHECK(cudaFree(d_result[0]));
    CHECK(cudaFree(d_result[1]));
    return workload::finish("pathfinder", size, ok,
                            "cols=" + std::to_string(cols) + ", rows=" + std::to_string(rows) +
                                ", pyramid=20, launches=" + std::to_string(launches));
}
