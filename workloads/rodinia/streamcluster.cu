// streamcluster: Rodinia's StreamCluster (online k-median clustering), as measured by Wang et al. 2016. The GPU
// part is pgain's cost computation for a candidate centre x: one thread per point (blocks of 512) reads its point
// struct (weight, assignment, cost: an array of structs), computes its weighted squared distance to x from the
// feature-major coordinate array, and either marks the point to switch to x (recording the saving in slot K of its
// work_mem row) or records what closing its current centre would cost (slot center_table[assign]). The host then
// adds up each centre's column of work_mem, decides whether opening x (and closing centres) pays, and updates the
// assignments; this repeats for a sequence of candidates, as Rodinia's local search does.
// Paper size: Rodinia's default command line "sc_gpu 10 20 256 65536 65536 1000 none output.txt 1" (65536 random
// points of dimension 256); 32 candidates are evaluated (Rodinia's count depends on its random search).
#include "common.cuh"

namespace {

// Uniform in [0, 1) from 24 random bits.
float unit(workload::Random& rng) { return static_cast<float>(rng.below(1u << 24)) * (1.0f / 16777216.0f); }

constexpr int kBlock = 512; // Rodinia's THREADS_PER_BLOCK

// Rodinia's Point: weight, coordinate pointer, assigned centre, cost (32 bytes with padding).
struct Point {
    float weight;
    float* coord;
    long long assign;
    float cost;
};

// Explicit roundings keep the device's arithmetic bit-identical to the host replica's.
__device__ float device_dist(int p1, int p2, int num, int dim, const float* coord) {
    float sum = 0.0f;
    for (int i = 0; i < dim; ++i) {
        const float t = __fsub_rn(coord[i * num + p1], coord[i * num + p2]);
        sum = __fadd_rn(sum, __fmul_rn(t, t));
    }
    return sum;
}

__global__ void compute_cost(int num, int dim, int x, const Point* p, int K, int stride, const float* coord,
                             float* work_mem, const int* center_table, char* switch_membership) {
    const int bid = blockIdx.x + gridDim.x * blockIdx.y;
    const int tid = blockDim.x * bid + threadIdx.x;
    if (tid >= num) return;
    float* lower = &work_mem[static_cast<long long>(tid) * stride];
    const float x_cost = __fmul_rn(device_dist(tid, x, num, dim, coord), p[tid].weight);
    if (x_cost < p[tid].cost) {
        switch_membership[tid] = 1;
        lower[K] = __fadd_rn(lower[K], __fsub_rn(x_cost, p[tid].cost));
    } else {
        const int c = center_table[p[tid].assign];
        lower[c] = __fadd_rn(lower[c], __fsub_rn(p[tid].cost, x_cost));
    }
}

float host_dist(int p1, int p2, int num, int dim, const std::vector<float>& coord) {
    float sum = 0.0f;
    for (int i = 0; i < dim; ++i) {
        const std::size_t row = static_cast<std::size_t>(i) * num;
        volatile float t = coord[row + p1] - coord[row + p2];
        volatile float sq = t * t;
        sum = sum + sq;
    }
    return sum;
}

struct State {
    std::vector<Point> points;
    std::vector<char> is_center;
    long long centers = 0;
};

// The host half of pgain, shared by the GPU run and the reference: given the per-point work_mem rows and switch
// flags for candidate x, open x if that saves cost. Returns the gain.
double apply_gain(int x, float z, int num, int dim, const std::vector<float>& coord,
                  const std::vector<int>& center_table, int K, const std::vector<float>& work_mem,
                  const std::vector<char>& switch_membership, State& s) {
    const int stride = K + 1;
    int to_close = 0;
    double cost_of_opening_x = z;
    std::vector<double> lower(K, 0.0);
    for (int i = 0; i < num; ++i) {
        if (!s.is_center[i]) continue;
        double low = z;
        for (int j = 0; j < num; ++j) low += work_mem[static_cast<std::size_t>(j) * stride + center_table[i]];
        lower[center_table[i]] = low;
        if (low > 0) {
            ++to_close;
            cost_of_opening_x -= low;
        }
    }
    for (int j = 0; j < num; ++j) cost_of_opening_x += work_mem[static_cast<std::size_t>(j) * stride + K];
    if (cost_of_opening_x < 0) {
        for (int i = 0; i < num; ++i) {
            const bool close_center = lower[center_table[s.points[i].assign]] > 0;
            if (switch_membership[i] || close_center) {
                volatile float d = host_dist(i, x, num, dim, coord);
                s.points[i].cost = d * s.points[i].weight;
                s.points[i].assign = x;
            }
        }
        for (int i = 0; i < num; ++i)
            if (s.is_center[i] && lower[center_table[i]] > 0) s.is_center[i] = 0;
        s.is_center[x] = 1;
        s.centers += 1 - to_close;
        return -cost_of_opening_x;
    }
    return 0.0;
}

int make_center_table(const State& s, std::vector<int>& table) {
    int count = 0;
    for (std::size_t i = 0; i < s.is_center.size(); ++i)
        if (s.is_center[i]) table[i] = count++;
    return count;
}

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "streamcluster");
    const bool paper = size == workload::Size::paper;
    const int num = paper ? 65536 : 16384;
    const int dim = paper ? 256 : 32;
    const int candidates = paper ? 32 : 6;

    // Random points in [0,1)^dim, feature-major (coord[i * num + p]), as Rodinia's GPU version lays them out.
    workload::Random rng(65536);
    std::vector<float> coord(static_cast<std::size_t>(num) * dim);
    for (float& v : coord) v = unit(rng);
    std::vector<int> order(candidates);
    for (int& c : order) c = static_cast<int>(rng.below(static_cast<std::uint32_t>(num)));

    // Initial solution: point 0 is the only centre.
    State initial;
    initial.points.resize(num);
    initial.is_center.assign(num, 0);
    initial.is_center[0] = 1;
    initial.centers = 1;
    double total = 0.0;
    for (int i = 0; i < num; ++i) {
        initial.points[i].weight = 1.0f;
        initial.points[i].coord = nullptr;
        initial.points[i].assign = 0;
        initial.points[i].cost = host_dist(i, 0, num, dim, coord);
        total += initial.points[i].cost;
    }
    const float z = static_cast<float>(total / 200.0); // facility cost: a few centres pay

    float* d_coord = workload::to_device(coord);
    Point* d_points = workload::device_zeros<Point>(num);
    int* d_center_table = workload::device_zeros<int>(num);
    char* d_switch = workload::device_zeros<char>(num);
    float* d_work = nullptr;
    std::size_t work_capacity = 0;

    // ---- GPU-driven run ----
    State s = initial;
    std::vector<int> center_table(num, 0);
    std::vector<double> gains;
    const int blocks = (num + kBlock - 1) / kBlock;
    for (int x : order) {
        const int K = make_center_table(s, center_table);
        const int stride = K + 1;
        const std::size_t work_size = static_cast<std::size_t>(num) * stride;
        if (work_size > work_capacity) {
            if (d_work) CHECK(cudaFree(d_work));
            CHECK(cudaMalloc(&d_work, work_size * sizeof(float)));
            work_capacity = work_size;
        }
        CHECK(cudaMemset(d_work, 0, work_size * sizeof(float)));
        CHECK(cudaMemset(d_switch, 0, num));
        CHECK(cudaMemcpy(d_points, s.points.data(), num * sizeof(Point), cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(d_center_table, center_table.data(), num * sizeof(int), cudaMemcpyHostToDevice));
        compute_cost<<<blocks, kBlock>>>(num, dim, x, d_points, K, stride, d_coord, d_work, d_center_table, d_switch);
        CHECK_LAUNCH();
        const std::vector<float> work = workload::to_host(d_work, work_size);
        const std::vector<char> sw = workload::to_host(d_switch, num);
        gains.push_back(apply_gain(x, z, num, dim, coord, center_table, K, work, sw, s));
    }

    // ---- Host reference: the same loop with the kernel replicated on the CPU ----
    State r = initial;
    std::vector<double> ref_gains;
    for (int x : order) {
        const int K = make_center_table(r, center_table);
        const int stride = K + 1;
        std::vector<float> work(static_cast<std::size_t>(num) * stride, 0.0f);
        std::vector<char> sw(num, 0);
        for (int i = 0; i < num; ++i) {
            volatile float x_cost = host_dist(i, x, num, dim, coord) * r.points[i].weight;
            if (x_cost < r.points[i].cost) {
                sw[i] = 1;
                volatile float d = x_cost - r.points[i].cost;
                work[static_cast<std::size_t>(i) * stride + K] += d;
            } else {
                volatile float d = r.points[i].cost - x_cost;
                work[static_cast<std::size_t>(i) * stride + center_table[r.points[i].assign]] += d;
            }
        }
        ref_gains.push_back(apply_gain(x, z, num, dim, coord, center_table, K, work, sw, r));
    }

    std::vector<long long> assign(num), ref_assign(num);
    std::vector<float> cost(num), ref_cost(num);
    for (int i = 0; i < num; ++i) {
        assign[i] = s.points[i].assign;
        ref_assign[i] = r.points[i].assign;
        cost[i] = s.points[i].cost;
        ref_cost[i] = r.points[i].cost;
    }
    bool ok = workload::equal("assign", assign, ref_assign);
    ok = workload::close_enough("cost", cost, ref_cost, 0.0, 0.0) && ok;
    ok = workload::equal("gain", gains, ref_gains) && ok;
    ok = s.centers == r.centers && ok;

    CHECK(cudaFree(d_coord));
    CHECK(cudaFree(d_points));
    CHECK(cudaFree(d_center_table));
    CHECK(cudaFree(d_switch));
    if (d_work) CHECK(cudaFree(d_work));
    return workload::finish("streamcluster", size, ok,
                            "points=" + std::to_string(num) + ", dim=" + std::to_string(dim) + ", candidates=" +
                                std::to_string(candidates) + ", centres=" + std::to_string(s.centers) +
                                ", launches=" + std::to_string(candidates));
}
