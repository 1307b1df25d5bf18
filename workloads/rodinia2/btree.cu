// B+ tree (Rodinia 3.1 "b+tree"): the host builds a B+ tree of order 256 over the records and flattens it into an
// array of fixed-size nodes in breadth-first order (root first); the GPU answers batches of queries with one CTA per
// query and one thread per key slot of a node (256 threads). findK (point queries, command `k`): at every level each
// thread tests whether the query key falls between its slot's key and the next one, the matching thread records the
// child, thread 0 moves the CTA's current node down a level; at the leaf the thread whose key equals the query reads
// the record. findRangeK (range queries, command `j`) walks two paths at once, for the range's start and end keys,
// and returns the start record's index and the range's record count. Nodes, current-node and offset arrays live in
// global memory, as in the benchmark.
#include <climits>
#include <string>

#include "common.cuh"

namespace {

constexpr int kOrder = 256;

struct Node {
    int location;
    int indices[kOrder + 1];  // child node (inner) or record index (leaf) of each slot
    int keys[kOrder + 1];     // lowest key of each slot; INT_MAX past the last used slot
    bool is_leaf;
    int num_keys;
};

struct Record {
    int value;
};

__global__ void find_k(long height, const Node* knodes, long knodes_elem, const Record* records, long* curr_knode,
                       long* offset, const int* keys, Record* ans) {
    const int thid = threadIdx.x;
    const int bid = blockIdx.x;
    for (long level = 0; level < height; ++level) {
        const Node& node = knodes[curr_knode[bid]];
        if (node.keys[thid] <= keys[bid] && node.keys[thid + 1] > keys[bid]) {
            if (node.indices[thid] < knodes_elem) offset[bid] = node.indices[thid];
        }
        __syncthreads();
        if (thid == 0) curr_knode[bid] = offset[bid];
        __syncthreads();
    }
    const Node& leaf = knodes[curr_knode[bid]];
    if (leaf.keys[thid] == keys[bid]) ans[bid].value = records[leaf.indices[thid]].value;
}

__global__ void find_range_k(long height, const Node* knodes, long knodes_elem, long* curr_knode, long* offset,
                             long* last_knode, long* offset_2, const int* start, const int* end, int* rec_start,
                             int* rec_length) {
    const int thid = threadIdx.x;
    const int bid = blockIdx.x;
    for (long level = 0; level < height; ++level) {
        const Node& first = knodes[curr_knode[bid]];
        if (first.keys[thid] <= start[bid] && first.keys[thid + 1] > start[bid]) {
            if (first.indices[thid] < knodes_elem) offset[bid] = first.indices[thid];
        }
        const Node& last = knodes[last_knode[bid]];
        if (last.keys[thid] <= end[bid] && last.keys[thid + 1] > end[bid]) {
            if (last.indices[thid] < knodes_elem) offset_2[bid] = last.indices[thid];
        }
        __syncthreads();
        if (thid == 0) {
            curr_knode[bid] = offset[bid];
            last_knode[bid] = offset_2[bid];
        }
        __syncthreads();
    }
    const Node& first = knodes[curr_knode[bid]];
    if (first.keys[thid] == start[bid]) rec_start[bid] = first.indices[thid];
    __syncthreads();
    const Node& last = knodes[last_knode[bid]];
    if (last.keys[thid] == end[bid]) rec_length[bid] = last.indices[thid] - rec_start[bid] + 1;
}

// Bulk-loads the tree level by level from the sorted keys. Nodes are filled to a random count between half and
// full, as a tree grown by insertions with splits is. Returns the number of inner levels (the walk's height).
long build_tree(const std::vector<int>& sorted_keys, std::vector<Node>& nodes, workload::Random& rng) {
    struct Item {
        int key;    // lowest key under the item
        int index;  // record index (leaves) or node index in `level_nodes` order
    };
    std::vector<Item> items(sorted_keys.size());
    for (std::size_t i = 0; i < items.size(); ++i) items[i] = {sorted_keys[i], static_cast<int>(i)};

    std::vector<std::vector<Node>> levels;  // leaves first
    bool leaf = true;
    do {
        std::vector<Node> level;
        std::vector<Item> parents;
        std::size_t i = 0;
        while (i < items.size()) {
            const std::size_t left = items.size() - i;
            std::size_t fill = kOrder / 2 + rng.below(kOrder / 2);  // 128..255 of the 256 slots
            if (left <= kOrder - 1) fill = left;
            else if (fill > left) fill = left;
            Node node{};
            node.is_leaf = leaf;
            node.num_keys = static_cast<int>(fill);
            for (int s = 0; s <= kOrder; ++s) {
                node.keys[s] = INT_MAX;
                node.indices[s] = 0;
            }
            for (std::size_t s = 0; s < fill; ++s) {
                node.keys[s] = items[i + s].key;
                node.indices[s] = items[i + s].index;
            }
            parents.push_back({items[i].key, static_cast<int>(level.size())});
            level.push_back(node);
            i += fill;
        }
        levels.push_back(std::move(level));
        items = std::move(parents);
        leaf = false;
    } while (items.size() > 1);

    // Breadth-first layout: root level first. Inner slots hold indices into the level below; rebase them.
    nodes.clear();
    std::vector<std::size_t> base(levels.size());
    std::size_t total = 0;
    for (std::size_t l = levels.size(); l-- > 0;) {
        base[l] = total;
        total += levels[l].size();
    }
    nodes.resize(total);
    for (std::size_t l = 0; l < levels.size(); ++l) {
        for (std::size_t k = 0; k < levels[l].size(); ++k) {
            Node node = levels[l][k];
            node.location = static_cast<int>(base[l] + k);
            if (!node.is_leaf)
                for (int s = 0; s < node.num_keys; ++s) node.indices[s] += static_cast<int>(base[l - 1]);
            nodes[base[l] + k] = node;
        }
    }
    // An inner node's first slot covers every key below its second slot (the walk only reaches a node whose
    // range holds the query); leaves keep their real keys for the final equality test.
    for (std::size_t l = levels.size(); l-- > 1;)
        for (std::size_t k = 0; k < levels[l].size(); ++k) nodes[base[l] + k].keys[0] = INT_MIN;
    return static_cast<long>(levels.size()) - 1;
}

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "btree");
    // Rodinia's run script: `b+tree file mil.txt command command.txt`: one million records, then the commands
    // `j 6000 3000` (6000 range queries of 3000 keys) and `k 10000` (10000 point queries).
    const bool paper = size == workload::Size::paper;
    const int records_count = paper ? 1000000 : 100000;
    const int point_queries = paper ? 10000 : 480;
    const int range_queries = paper ? 6000 : 240;
    const int range = 3000;

    workload::Random rng(2024);
    // Record keys 0..N-1 (as mil.txt's), record i holding key i and a value derived from it.
    std::vector<int> sorted_keys(records_count);
    std::vector<Record> records(records_count);
    for (int i = 0; i < records_count; ++i) {
        sorted_keys[i] = i;
        records[i].value = i * 7 + 3;
    }
    std::vector<Node> nodes;
    const long height = build_tree(sorted_keys, nodes, rng);
    const long knodes_elem = static_cast<long>(nodes.size());

    Node* d_nodes = workload::to_device(nodes);
    Record* d_records = workload::to_device(records);

    // Point queries.
    std::vector<int> keys(point_queries);
    for (int& k : keys) k = static_cast<int>(rng.below(records_count));
    std::vector<long> zeros_k(point_queries, 0);
    std::vector<Record> ans(point_queries, Record{-1});
    long* d_curr = workload::to_device(zeros_k);
    long* d_offset = workload::to_device(zeros_k);
    int* d_keys = workload::to_device(keys);
    Record* d_ans = workload::to_device(ans);
    find_k<<<point_queries, kOrder>>>(height, d_nodes, knodes_elem, d_records, d_curr, d_offset, d_keys, d_ans);
    CHECK_LAUNCH();
    const std::vector<Record> got_ans = workload::to_host(d_ans, ans.size());

    // Range queries.
    std::vector<int> start(range_queries), end(range_queries);
    for (int q = 0; q < range_queries; ++q) {
        start[q] = static_cast<int>(rng.below(records_count));
        end[q] = start[q] + range < records_count ? start[q] + range : records_count - 1;
    }
    std::vector<long> zeros_j(range_queries, 0);
    std::vector<int> minus(range_queries, -1), zero_len(range_queries, 0);
    long* d_curr_j = workload::to_device(zeros_j);
    long* d_offset_j = workload::to_device(zeros_j);
    long* d_last_j = workload::to_device(zeros_j);
    long* d_offset2_j = workload::to_device(zeros_j);
    int* d_start = workload::to_device(start);
    int* d_end = workload::to_device(end);
    int* d_rec_start = workload::to_device(minus);
    int* d_rec_length = workload::to_device(zero_len);
    find_range_k<<<range_queries, kOrder>>>(height, d_nodes, knodes_elem, d_curr_j, d_offset_j, d_last_j, d_offset2_j,
                                            d_start, d_end, d_rec_start, d_rec_length);
    CHECK_LAUNCH();
    const std::vector<int> got_start = workload::to_host(d_rec_start, range_queries);
    const std::vector<int> got_length = workload::to_host(d_rec_length, range_queries);

    // Reference: keys are the record indices, so a hit returns record[key] and a range spans end - start + 1.
    std::vector<int> got_values(point_queries), want_values(point_queries);
    for (int q = 0; q < point_queries; ++q) {
        got_values[q] = got_ans[q].value;
        want_values[q] = records[keys[q]].value;
    }
    std::vector<int> want_length(range_queries);
    for (int q = 0; q < range_queries; ++q) want_length[q] = end[q] - start[q] + 1;
    bool ok = workload::equal("findK", got_values, want_values);
    ok = workload::equal("findRangeK start", got_start, start) && ok;
    ok = workload::equal("findRangeK length", got_length, want_length) && ok;

    for (void* p : {static_cast<void*>(d_nodes), static_cast<void*>(d_records), static_cast<void*>(d_curr),
                    static_cast<void*>(d_offset), static_cast<void*>(d_keys), static_cast<void*>(d_ans),
                    static_cast<void*>(d_curr_j), static_cast<void*>(d_offset_j), static_cast<void*>(d_last_j),
                    static_cast<void*>(d_offset2_j), static_cast<void*>(d_start), static_cast<void*>(d_end),
                    static_cast<void*>(d_rec_start), static_cast<void*>(d_rec_length)})
        CHECK(cudaFree(p));
    return workload::finish("btree", size, ok,
                            std::to_string(records_count) + " records, " + std::to_string(knodes_elem) +
                                " nodes, height " + std::to_string(height) + ", " + std::to_string(point_queries) +
                                " findK + " + std::to_string(range_queries) + " findRangeK queries");
}
