#pragma once
// Driver, graph generator and CPU reference for kernels/src/bfs.cu. Distances are integers: bit-exact. The order
// of vertices inside a frontier depends on atomic ordering, so frontiers are compared as sets (through the
// distances and the per-level sizes), never element by element.
#include "common.hpp"

#include <deque>

namespace gpuarch::kernels {

struct CsrGraph {
    std::int32_t vertices = 0;
    std::vector<std::int32_t> row_ptr, adj;
};

// Directed graph: out-degrees mostly 0..6 with a hub of degree 40..80 every 64th vertex, targets uniform. With an
// average degree near 4 the source reaches most vertices in a handful of levels of very uneven width.
inline CsrGraph bfs_graph(std::int32_t vertices, std::uint64_t seed) {
    SplitMix64 rng(seed);
    CsrGraph g;
    g.vertices = vertices;
    g.row_ptr.push_back(0);
    for (std::int32_t v = 0; v < vertices; ++v) {
        const std::int32_t degree = (v % 64 == 0) ? rng.uniform_int(40, 80) : rng.uniform_int(0, 6);
        for (std::int32_t e = 0; e < degree; ++e)
            g.adj.push_back(static_cast<std::int32_t>(rng.below(static_cast<std::uint32_t>(vertices))));
        g.row_ptr.push_back(static_cast<std::int32_t>(g.adj.size()));
    }
    return g;
}

inline std::vector<std::int32_t> bfs_reference(const CsrGraph& g, std::int32_t source) {
    std::vector<std::int32_t> dist(static_cast<std::size_t>(g.vertices), -1);
    std::deque<std::int32_t> queue{source};
    dist[static_cast<std::size_t>(source)] = 0;
    while (!queue.empty()) {
        const auto v = static_cast<std::size_t>(queue.front());
        queue.pop_front();
        for (auto e = static_cast<std::size_t>(g.row_ptr[v]); e < static_cast<std::size_t>(g.row_ptr[v + 1]); ++e) {
            const auto u = static_cast<std::size_t>(g.adj[e]);
            if (dist[u] == -1) {
                dist[u] = dist[v] + 1;
                queue.push_back(g.adj[e]);
            }
        }
    }
    return dist;
}

// One launch per level (blocks of 128 threads, one per frontier vertex) until the next frontier is empty.
// small: 2000 vertices; large: 40000 vertices. Source: vertex 0 (a hub).
template <class Launcher>
CaseResult run_bfs(func::Device& device, const func::Module& module, Launcher&& launch, Size size) {
    const std::int32_t vertices = size == Size::small ? 2000 : 40000;
    constexpr std::uint32_t block = 128;
    constexpr std::int32_t source = 0;
    const CsrGraph g = bfs_graph(vertices, 0x7ec7'0add'0000'000eULL);
    const std::vector<std::int32_t> want = bfs_reference(g, source);

    std::vector<std::int32_t> dist(static_cast<std::size_t>(vertices), -1);
    dist[source] = 0;
    const std::size_t bytes = static_cast<std::size_t>(vertices) * sizeof(std::int32_t);
    DeviceBuffer drow(device, g.row_ptr), dadj(device, g.adj), ddist(device, dist);
    DeviceBuffer frontier = poisoned_buffer(device, bytes);
    DeviceBuffer next = poisoned_buffer(device, bytes);
    DeviceBuffer next_size(device, sizeof(std::int32_t));
    const std::int32_t first[] = {source};
    frontier.upload(std::span<const std::int32_t>(first));

    Checker check;
    std::int32_t frontier_size = 1;
    std::int32_t level = 0;
    while (frontier_size > 0) {
        if (level > vertices) {
            check.expect(false, "bfs did not terminate within |V| levels");
            return check.result();
        }
        next_size.zero();
        launch(module, "bfs_expand", config_1d(ceil_div(static_cast<std::uint64_t>(frontier_size), block), block),
               func::Args(drow.ptr(), dadj.ptr(), frontier.ptr(), frontier_size, ddist.ptr(), next.ptr(),
                          next_size.ptr(), level));
        frontier_size = next_size.download<std::int32_t>(1)[0];
        const auto expected_size = static_cast<std::int32_t>(std::count(want.begin(), want.end(), level + 1));
        check.expect(frontier_size == expected_size, "level " + std::to_string(level + 1) + " frontier holds " +
                                                         std::to_string(frontier_size) + " vertices, want " +
                                                         std::to_string(expected_size));
        if (frontier_size != expected_size) break;
        std::swap(frontier, next);
        ++level;
    }
    check.exact("dist", ddist.download<std::int32_t>(static_cast<std::size_t>(vertices)), want);
    return check.result();
}

} // namespace gpuarch::kernels
