// Needleman-Wunsch global alignment score matrix, Rodinia style. score is (n+1) x (n+1) row-major with row 0
// and column 0 initialised by the host; cell (i, j) = max(score[i-1][j-1] + ref[i][j],
// score[i-1][j] - penalty, score[i][j-1] - penalty). The n x n cells are cut into 16 x 16 tiles; one launch
// handles the tiles on block anti-diagonal `diag` (tile row + tile column == diag), one block of 16 threads
// per tile. Inside a tile, thread tx owns column tx and the block walks the 31 cell anti-diagonals with a
// barrier after each, so most threads idle on the short diagonals. n must be a multiple of 16.
#define NW_BS 16

extern "C" __global__ void nw_diagonal(int* score, const int* ref, int n, int penalty, int diag)
{
    __shared__ int s[NW_BS + 1][NW_BS + 1];
    __shared__ int r[NW_BS][NW_BS];
    int tiles = n / NW_BS;
    int tile_row = max(0, diag - (tiles - 1)) + blockIdx.x;
    int tile_col = diag - tile_row;
    int tx = threadIdx.x;
    int w = n + 1;
    int row0 = tile_row * NW_BS, col0 = tile_col * NW_BS;
    if (tx == 0) s[0][0] = score[row0 * w + col0];
    s[0][tx + 1] = score[row0 * w + col0 + tx + 1];
    s[tx + 1][0] = score[(row0 + tx + 1) * w + col0];
    for (int y = 0; y < NW_BS; ++y) r[y][tx] = ref[(row0 + y + 1) * w + col0 + tx + 1];
    __syncthreads();
    for (int d = 0; d < 2 * NW_BS - 1; ++d) {
        int y = d - tx;
        if (y >= 0 && y < NW_BS) {
            int diag_score = s[y][tx] + r[y][tx];
            int up = s[y][tx + 1] - penalty;
            int left = s[y + 1][tx] - penalty;
            s[y + 1][tx + 1] = max(diag_score, max(up, left));
        }
        __syncthreads();
    }
    for (int y = 0; y < NW_BS; ++y) score[(row0 + y + 1) * w + col0 + tx + 1] = s[y + 1][tx + 1];
}
