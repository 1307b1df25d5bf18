// Needleman-Wunsch (Rodinia 3.1 "nw"): global alignment score matrix of two sequences. The (N+1)x(N+1) score matrix
// is cut into 16x16 tiles processed as an anti-diagonal wavefront of tiles: a first kernel sweeps the upper-left
// triangle of tiles (launch i runs the i tiles of tile diagonal i), a second kernel the lower-right triangle. Inside
// a tile, one block of 16 threads loads the tile's north row and west column of scores and its 16x16 substitution
// scores into shared memory, then walks the tile's 31 cell anti-diagonals (thread tx takes the cell of its column),
// and writes the 16x16 scores back.
#include <algorithm>
#include <string>

#include "common.cuh"

namespace {

constexpr int kBlock = 16;
constexpr int kAlphabet = 24;  // amino-acid alphabet of a BLOSUM-style table

__device__ __host__ inline int max3(int a, int b, int c) {
    const int m = a > b ? a : b;
    return m > c ? m : c;
}

// One tile: tile column tile_x, tile row tile_y of the score matrix (cols = N+1 including the border row/column).
__device__ void tile_wavefront(int* reference, int* matrix, int cols, int penalty, int tile_x, int tile_y) {
    __shared__ int temp[kBlock + 1][kBlock + 1];
    __shared__ int ref[kBlock][kBlock];
    const int tx = threadIdx.x;

    // Top-left cell of the tile's interior, its north-west corner, its north row and its west column.
    const int index = cols * kBlock * tile_y + kBlock * tile_x + tx + (cols + 1);
    const int index_n = cols * kBlock * tile_y + kBlock * tile_x + tx + 1;
    const int index_w = cols * kBlock * tile_y + kBlock * tile_x + cols;
    const int index_nw = cols * kBlock * tile_y + kBlock * tile_x;

    if (tx == 0) temp[0][0] = matrix[index_nw];
    for (int ty = 0; ty < kBlock; ++ty) ref[ty][tx] = reference[index + cols * ty];
    __syncthreads();
    temp[tx + 1][0] = matrix[index_w + cols * tx];
    __syncthreads();
    temp[0][tx + 1] = matrix[index_n];
    __syncthreads();

    // Upper-left half of the tile's anti-diagonals, then the lower-right half.
    for (int m = 0; m < kBlock; ++m) {
        if (tx <= m) {
            const int x = tx + 1, y = m - tx + 1;
            temp[y][x] = max3(temp[y - 1][x - 1] + ref[y - 1][x - 1], temp[y][x - 1] - penalty,
                              temp[y - 1][x] - penalty);
        }
        __syncthreads();
    }
    for (int m = kBlock - 2; m >= 0; --m) {
        if (tx <= m) {
            const int x = tx + kBlock - m, y = kBlock - tx;
            temp[y][x] = max3(temp[y - 1][x - 1] + ref[y - 1][x - 1], temp[y][x - 1] - penalty,
                              temp[y - 1][x] - penalty);
        }
        __syncthreads();
    }
    for (int ty = 0; ty < kBlock; ++ty) matrix[index + ty * cols] = temp[ty + 1][tx + 1];
}

// Tile diagonal i (1-based) of the upper-left triangle: block bx takes tile (bx, i-1-bx).
__global__ void needle_phase1(int* reference, int* matrix, int cols, int penalty, int i) {
    const int bx = blockIdx.x;
    tile_wavefront(reference, matrix, cols, penalty, bx, i - 1 - bx);
}

// Tile diagonal of the lower-right triangle with i tiles: block bx takes tile (bx + width - i, width - 1 - bx).
__global__ void needle_phase2(int* reference, int* matrix, int cols, int penalty, int i, int block_width) {
    const int bx = blockIdx.x;
    tile_wavefront(reference, matrix, cols, penalty, bx + block_width - i, block_width - 1 - bx);
}

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "nw");
    // Rodinia's run script: `needle 2048 10` (two 2048-residue sequences, gap penalty 10).
    const int n = size == workload::Size::paper ? 2048 : 512;
    const int penalty = 10;
    const int cols = n + 1, rows = n + 1;
    const int block_width = n / kBlock;

    // Synthetic substitution table (symmetric, BLOSUM-like ranges: matches +4..+11, mismatches -4..+3) and random
    // sequences over it; the benchmark uses BLOSUM62 and random residues 1..10.
    workload::Random rng(7);
    int table[kAlphabet][kAlphabet];
    for (int a = 0; a < kAlphabet; ++a) {
        table[a][a] = 4 + static_cast<int>(rng.below(8));
        for (int b = 0; b < a; ++b) table[a][b] = table[b][a] = static_cast<int>(rng.below(8)) - 4;
    }
    std::vector<int> seq1(rows), seq2(cols);
    for (int i = 1; i < rows; ++i) seq1[i] = 1 + static_cast<int>(rng.below(10));
    for (int j = 1; j < cols; ++j) seq2[j] = 1 + static_cast<int>(rng.below(10));
    std::vector<int> reference(rows * cols, 0), matrix(rows * cols, 0);
    for (int i = 1; i < rows; ++i)
        for (int j = 1; j < cols; ++j) reference[i * cols + j] = table[seq1[i]][seq2[j]];
    for (int i = 1; i < rows; ++i) matrix[i * cols] = -i * penalty;
    for (int j = 1; j < cols; ++j) matrix[j] = -j * penalty;

    int* d_reference = workload::to_device(reference);
    int* d_matrix = workload::to_device(matrix);
    int launches = 0;
    for (int i = 1; i <= block_width; ++i) {
        needle_phase1<<<i, kBlock>>>(d_reference, d_matrix, cols, penalty, i);
        CHECK_LAUNCH();
        ++launches;
    }
    for (int i = block_width - 1; i >= 1; --i) {
        needle_phase2<<<i, kBlock>>>(d_reference, d_matrix, cols, penalty, i, block_width);
        CHECK_LAUNCH();
        ++launches;
    }
    const std::vector<int> got = workload::to_host(d_matrix, matrix.size());

    for (int i = 1; i < rows; ++i)
        for (int j = 1; j < cols; ++j)
            matrix[i * cols + j] = max3(matrix[(i - 1) * cols + j - 1] + reference[i * cols + j],
                                        matrix[i * cols + j - 1] - penalty, matrix[(i - 1) * cols + j] - penalty);
    const bool ok = workload::equal("score", got, matrix);

    CHECK(cudaFree(d_reference));
    CHECK(cudaFree(d_matrix));
    return workload::finish("nw", size, ok,
                            "N=" + std::to_string(n) + ", " + std::to_string(launches) + " launches");
}
