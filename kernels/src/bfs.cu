// One level of a queue-based breadth-first search over a CSR graph. Each thread takes one vertex of the
// current frontier and visits its out-edges; the first thread to claim an unvisited vertex (dist == -1)
// with atomicCAS sets its distance and appends it to the next frontier through an atomic counter.
// The driver launches one level at a time until the next frontier is empty.
extern "C" __global__ void bfs_expand(const int* row_ptr, const int* adj, const int* frontier, int frontier_size,
                                      int* dist, int* next_frontier, int* next_size, int level)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < frontier_size) {
        int v = frontier[t];
        int end = row_ptr[v + 1];
        for (int e = row_ptr[v]; e < end; ++e) {
            int u = adj[e];
            if (dist[u] == -1 && atomicCAS(&dist[u], -1, level + 1) == -1) {
                int slot = atomicAdd(next_size, 1);
                next_frontier[slot] = u;
            }
        }
    }
}
