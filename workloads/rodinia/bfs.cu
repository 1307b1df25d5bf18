// bfs: Rodinia's breadth-first search (Harish & Narayanan's level-synchronous GPU BFS), as measured by
// Wang et al. 2016. The graph is stored in CSR form (node -> first edge, edge count; edge -> destination). Each BFS
// level runs two kernels over all nodes, one thread per node:
//   expand: a node in the frontier (mask set) clears its mask and sets cost/updating-mask of unvisited neighbours;
//   update: a node with the updating mask joins the next frontier, is marked visited and raises the "continue" flag.
// The host repeats both kernels until no node was updated. Input: a random undirected graph with an average degree
// of 6, generated here in place of Rodinia's graph1MW_6.txt (1M nodes) data file.
#include "common.cuh"

#include <queue>

namespace {

constexpr int kBlock = 512; // Rodinia's MAX_THREADS_PER_BLOCK

struct Node {
    int first; // index of the first edge
    int count; // number of edges
};

__global__ void expand_frontier(const Node* nodes, const int* edges, bool* mask, bool* updating, const bool* visited,
                                int* cost, int n) {
    const int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || !mask[v]) return;
    mask[v] = false;
    const Node node = nodes[v];
    const int next_cost = cost[v] + 1;
    for (int e = node.first; e < node.first + node.count; ++e) {
        const int w = edges[e];
        if (!visited[w]) {
            cost[w] = next_cost;
            updating[w] = true;
        }
    }
}

__global__ void update_frontier(bool* mask, bool* updating, bool* visited, bool* again, int n) {
    const int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || !updating[v]) return;
    mask[v] = true;
    visited[v] = true;
    *again = true;
    updating[v] = false;
}

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "bfs");
    const int n = size == workload::Size::paper ? 1 << 20 : 1 << 15;
    const int half_degree = 3; // each node adds 3 undirected edges: average degree 6

    // Random undirected graph: node v links to half_degree random nodes; both directions are stored.
    workload::Random rng(2016);
    std::vector<std::vector<int>> adj(n);
    for (int v = 0; v < n; ++v) {
        for (int k = 0; k < half_degree; ++k) {
            const int w = static_cast<int>(rng.below(static_cast<std::uint32_t>(n)));
            adj[v].push_back(w);
            adj[w].push_back(v);
        }
    }
    std::vector<Node> nodes(n);
    std::vector<int> edges;
    edges.reserve(static_cast<std::size_t>(n) * 2 * half_degree);
    for (int v = 0; v < n; ++v) {
        nodes[v] = {static_cast<int>(edges.size()), static_cast<int>(adj[v].size())};
        edges.insert(edges.end(), adj[v].begin(), adj[v].end());
    }
    const int source = 0;

    std::vector<char> mask(n, 0), visited(n, 0);
    std::vector<int> cost(n, -1);
    mask[source] = 1;
    visited[source] = 1;
    cost[source] = 0;

    Node* d_nodes = workload::to_device(nodes);
    int* d_edges = workload::to_device(edges);
    bool* d_mask = nullptr;
    bool* d_visited = nullptr;
    CHECK(cudaMalloc(&d_mask, n));
    CHECK(cudaMalloc(&d_visited, n));
    CHECK(cudaMemcpy(d_mask, mask.data(), n, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_visited, visited.data(), n, cudaMemcpyHostToDevice));
    bool* d_updating = workload::device_zeros<bool>(n);
    bool* d_again = workload::device_zeros<bool>(1);
    int* d_cost = workload::to_device(cost);

    const int blocks = (n + kBlock - 1) / kBlock;
    int levels = 0;
    bool again = true;
    while (again) {
        again = false;
        CHECK(cudaMemcpy(d_again, &again, sizeof(bool), cudaMemcpyHostToDevice));
        expand_frontier<<<blocks, kBlock>>>(d_nodes, d_edges, d_mask, d_updating, d_visited, d_cost, n);
        CHECK_LAUNCH();
        update_frontier<<<blocks, kBlock>>>(d_mask, d_updating, d_visited, d_again, n);
        CHECK_LAUNCH();
        CHECK(cudaMemcpy(&again, d_again, sizeof(bool), cudaMemcpyDeviceToHost));
        ++levels;
    }
    const std::vector<int> got = workload::to_host(d_cost, n);

    // Host reference: a queue-based BFS gives each node's hop distance (-1 when unreachable).
    std::vector<int> want(n, -1);
    std::queue<int> queue;
    want[source] = 0;
    queue.push(source);
    while (!queue.empty()) {
        const int v = queue.front();
        queue.pop();
        for (int e = nodes[v].first; e < nodes[v].first + nodes[v].count; ++e) {
            const int w = edges[e];
            if (want[w] < 0) {
                want[w] = want[v] + 1;
                queue.push(w);
            }
        }
    }
    const bool ok = workload::equal("cost", got, want);

    CHECK(cudaFree(d_nodes));
    CHECK(cudaFree(d_edges));
    CHECK(cudaFree(d_mask));
    CHECK(cudaFree(d_visited));
    CHECK(cudaFree(d_updating));
    CHECK(cudaFree(d_again));
    CHECK(cudaFree(d_cost));
    return workload::finish("bfs", size, ok,
                            "nodes=" + std::to_string(n) + ", edges=" + std::to_string(edges.size()) +
                                ", levels=" + std::to_string(levels) + ", launches=" + std::to_string(2 * levels));
}
