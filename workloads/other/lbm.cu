// lbm: Parboil's LBM (lattice Boltzmann fluid simulation, D3Q19 with BGK collision), as measured by Wang et al.
// 2016. One kernel launch per time step, one thread per cell: a block is one x-row of the grid (blockDim = size
// x), the grid spans y and z. Each thread reads its cell's 19 distributions and its flag, collides (fluid), forces
// the velocity (cells flagged ACCEL, the lid-driven layers) or bounces back (OBSTACLE), and pushes the 19 new values
// to the neighbouring cells of the destination grid; source and destination swap every step. Structure-of-arrays
// layout: 19 planes of the whole grid, each with a margin of two z-planes on both sides that absorbs the pushes out
// of the grid. Paper size: Parboil's LBM input (120 x 120 x 150 cells, "short" run of 100 time steps); Parboil
// reads the obstacle geometry from a data file (120_120_150_ldc.of): synthetic spheres stand in for it, with
// Parboil's walls and accelerated layers.
#include "common.cuh"

#ifndef LBM_PAPER_STEPS
#define LBM_PAPER_STEPS 100 // a smaller value builds a quicker check of the paper-size grid
#endif

namespace {

// Uniform in [0, 1) from 24 random bits.
float unit(workload::Random& rng) { return static_cast<float>(rng.below(1u << 24)) * (1.0f / 16777216.0f); }

constexpr int kQ = 19;
constexpr float kOmega = 1.95f;
constexpr int kObstacle = 1;
constexpr int kAccel = 2;

// D3Q19 directions: C, N, S, E, W, T, B, NE, NW, SE, SW, NT, NB, ST, SB, ET, EB, WT, WB.
__host__ __device__ constexpr int dir_x(int d) {
    constexpr int v[kQ] = {0, 0, 0, 1, -1, 0, 0, 1, -1, 1, -1, 0, 0, 0, 0, 1, 1, -1, -1};
    return v[d];
}
__host__ __device__ constexpr int dir_y(int d) {
    constexpr int v[kQ] = {0, 1, -1, 0, 0, 0, 0, 1, 1, -1, -1, 1, 1, -1, -1, 0, 0, 0, 0};
    return v[d];
}
__host__ __device__ constexpr int dir_z(int d) {
    constexpr int v[kQ] = {0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1};
    return v[d];
}
__host__ __device__ constexpr int opposite(int d) {
    constexpr int v[kQ] = {0, 2, 1, 4, 3, 6, 5, 10, 9, 8, 7, 14, 13, 12, 11, 18, 17, 16, 15};
    return v[d];
}
__host__ __device__ constexpr float weight(int d) { return d == 0 ? 1.0f / 3.0f : d < 7 ? 1.0f / 18.0f : 1.0f / 36.0f; }

struct Grid {
    int sx, sy, sz;
    long long cells, margin, plane; // plane = cells + 2 * margin
    __host__ __device__ long long at(int d, long long cell) const { return d * plane + margin + cell; }
    __host__ __device__ long long offset(int d) const {
        return dir_x(d) + static_cast<long long>(dir_y(d)) * sx + static_cast<long long>(dir_z(d)) * sx * sy;
    }
};

// One cell's update; the same code runs on the device and in the host reference.
__host__ __device__ inline void stream_collide(const Grid g, const float* src, float* dst, const int* flags,
                                               long long cell) {
    float f[kQ];
#pragma unroll
    for (int d = 0; d < kQ; ++d) f[d] = src[g.at(d, cell)];
    const int flag = flags[cell];
    if (flag & kObstacle) { // bounce back: what arrived along d leaves along opposite(d)
#pragma unroll
        for (int d = 0; d < kQ; ++d) dst[g.at(d, cell + g.offset(d))] = f[opposite(d)];
        return;
    }
    float rho = 0.0f, ux = 0.0f, uy = 0.0f, uz = 0.0f;
#pragma unroll
    for (int d = 0; d < kQ; ++d) {
        rho += f[d];
        ux += dir_x(d) * f[d];
        uy += dir_y(d) * f[d];
        uz += dir_z(d) * f[d];
    }
    ux /= rho;
    uy /= rho;
    uz /= rho;
    if (flag & kAccel) {
        ux = 0.005f;
        uy = 0.002f;
        uz = 0.000f;
    }
    const float u2 = 1.5f * (ux * ux + uy * uy + uz * uz);
#pragma unroll
    for (int d = 0; d < kQ; ++d) {
        const float cu = dir_x(d) * ux + dir_y(d) * uy + dir_z(d) * uz;
        const float eq = weight(d) * kOmega * rho * (1.0f + cu * (4.5f * cu + 3.0f) - u2);
        dst[g.at(d, cell + g.offset(d))] = (1.0f - kOmega) * f[d] + eq;
    }
}

__global__ void perform_stream_collide(const Grid g, const float* src, float* dst, const int* flags) {
    const int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
    const long long cell = x + static_cast<long long>(y) * g.sx + static_cast<long long>(z) * g.sx * g.sy;
    stream_collide(g, src, dst, flags, cell);
}

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "lbm");
    const bool paper = size == workload::Size::paper;
    Grid g{};
    g.sx = 120;
    g.sy = paper ? 120 : 16;
    g.sz = paper ? 150 : 16;
    const int steps = paper ? LBM_PAPER_STEPS : 2;
    g.cells = static_cast<long long>(g.sx) * g.sy * g.sz;
    g.margin = 2LL * g.sx * g.sy;
    g.plane = g.cells + 2 * g.margin;

    // Flags: walls on the grid's faces, accelerated layers next to the z faces, random spherical obstacles inside.
    std::vector<int> flags(g.cells, 0);
    workload::Random rng(120120150);
    struct Sphere {
        float x, y, z, r;
    };
    std::vector<Sphere> spheres(paper ? 24 : 4);
    for (Sphere& s : spheres)
        s = {g.sx * unit(rng), g.sy * unit(rng), 2.0f + (g.sz - 4) * unit(rng),
             1.5f + 0.1f * std::min(g.sy, g.sz) * unit(rng)};
    int obstacles = 0;
    for (int z = 0; z < g.sz; ++z)
        for (int y = 0; y < g.sy; ++y)
            for (int x = 0; x < g.sx; ++x) {
                int& flag = flags[x + static_cast<long long>(y) * g.sx + static_cast<long long>(z) * g.sx * g.sy];
                if (x == 0 || x == g.sx - 1 || y == 0 || y == g.sy - 1 || z == 0 || z == g.sz - 1) flag = kObstacle;
                else if ((z == 1 || z == g.sz - 2) && x > 1 && x < g.sx - 2 && y > 1 && y < g.sy - 2) flag = kAccel;
                else
                    for (const Sphere& s : spheres) {
                        const float dx = x - s.x, dy = y - s.y, dz = z - s.z;
                        if (dx * dx + dy * dy + dz * dz < s.r * s.r) flag = kObstacle;
                    }
                obstacles += flag == kObstacle;
            }

    // Both grids start at rest (rho = 1): every distribution at its weight.
    std::vector<float> init(static_cast<std::size_t>(kQ * g.plane));
    for (int d = 0; d < kQ; ++d)
        for (long long i = 0; i < g.plane; ++i) init[d * g.plane + i] = weight(d);

    float* d_grid[2] = {workload::to_device(init), workload::to_device(init)};
    int* d_flags = workload::to_device(flags);
    const dim3 grid(g.sy, g.sz);
    int src = 0;
    for (int t = 0; t < steps; ++t) {
        perform_stream_collide<<<grid, g.sx>>>(g, d_grid[src], d_grid[1 - src], d_flags);
        CHECK_LAUNCH();
        src = 1 - src;
    }
    const std::vector<float> got = workload::to_host(d_grid[src], init.size());

    // Host reference: the same update over all cells.
    std::vector<float> ref[2] = {init, init};
    int rsrc = 0;
    for (int t = 0; t < steps; ++t) {
        for (long long cell = 0; cell < g.cells; ++cell)
            stream_collide(g, ref[rsrc].data(), ref[1 - rsrc].data(), flags.data(), cell);
        rsrc = 1 - rsrc;
    }
    const bool ok = workload::close_enough("distributions", got, ref[rsrc], 1e-4, 1e-6);

    CHECK(cudaFree(d_grid[0]));
    CHECK(cudaFree(d_grid[1]));
    CHECK(cudaFree(d_flags));
    return workload::finish("lbm", size, ok,
                            std::to_string(g.sx) + "x" + std::to_string(g.sy) + "x" + std::to_string(g.sz) +
                                ", obstacles=" + std::to_string(obstacles) + ", steps=" + std::to_string(steps) +
                                ", launches=" + std::to_string(steps));
}
