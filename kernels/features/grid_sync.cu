// Cooperative groups' grid.sync() (%envreg1:%envreg2, the grid workspace of a cooperative launch): `rounds` steps
// of a ring relaxation in which every element reads its neighbours `stride` elements away, held by other CTAs,
// written in the step before. Without a grid-wide barrier between steps the result depends on timing.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

extern "C" __global__ void grid_ring(int* a, int* b, int n, int stride, int rounds) {
    cg::grid_group grid = cg::this_grid();
    const int i = static_cast<int>(grid.thread_rank());
    for (int r = 0; r < rounds; ++r) {
        if (i < n) b[i] = a[i] + 2 * a[(i + stride) % n] - a[(i + n - stride) % n];
        grid.sync();
        int* t = a;
        a = b;
        b = t;
    }
}
