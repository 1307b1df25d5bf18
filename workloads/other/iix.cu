// iix: Mars' InvertedIndex (a MapReduce job on the GPU: for every link in a set of HTML pages, which pages link to
// it), as measured by Wang et al. 2016. Mars' runtime runs the map in two passes and groups with a GPU sort:
//   map_count: one thread per input record (a line of a page: offset, length, page id) scans its bytes for
//              'href="' and counts the links (Mars' MapCount, sizing the output);
//   host:      exclusive prefix sum of the counts gives every record its output offset;
//   map_emit:  the same scan again, now emitting one (hash of the URL, page id) pair per link at its offset;
//   bitonic sort of the pairs (one compare-exchange kernel launch per step, one thread per element);
//   mark_groups: one thread per pair flags the first pair of each URL group and counts the groups.
// The scanning kernels are byte-serial per thread with data-dependent trip counts and branches: divergent loads and
// control flow, the behaviour this benchmark stands for. Keys are 32-bit FNV-1a hashes of the URLs (Mars keeps the
// URL strings); the sort key is (hash, page id) so the grouped output is deterministic.
// Paper size: 16 MB of HTML, the smallest InvertedIndex input of the Mars paper (He et al., PACT 2008); Mars reads
// crawled web pages: synthetic pages with the same byte count stand in for them.
#include "common.cuh"

#include <algorithm>

namespace {

// Uniform in [0, 1) from 24 random bits.
float unit(workload::Random& rng) { return static_cast<float>(rng.below(1u << 24)) * (1.0f / 16777216.0f); }

constexpr int kBlock = 256;

struct Record {
    int offset;
    int length;
    int page;
};

__device__ __host__ inline bool starts_link(const char* p, const char* end) {
    // 'href="' at p
    return end - p >= 6 && p[0] == 'h' && p[1] == 'r' && p[2] == 'e' && p[3] == 'f' && p[4] == '=' && p[5] == '"';
}

// Scans one record; when keys is non-null, writes the (hash << 32 | page) keys of its links there.
__device__ __host__ inline int scan_record(const char* text, Record r, unsigned long long* keys) {
    const char* p = text + r.offset;
    const char* end = p + r.length;
    int links = 0;
    while (p < end) {
        if (*p == 'h' && starts_link(p, end)) {
            p += 6;
            unsigned int hash = 2166136261u;
            while (p < end && *p != '"') {
                hash = (hash ^ static_cast<unsigned char>(*p)) * 16777619u;
                ++p;
            }
            if (p < end) { // a closed link
                if (keys)
                    keys[links] = (static_cast<unsigned long long>(hash) << 32) | static_cast<unsigned int>(r.page);
                ++links;
            }
        }
        ++p;
    }
    return links;
}

__global__ void map_count(const char* text, const Record* records, int n, int* counts) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) counts[i] = scan_record(text, records[i], nullptr);
}

__global__ void map_emit(const char* text, const Record* records, int n, const int* offsets,
                         unsigned long long* keys) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) scan_record(text, records[i], keys + offsets[i]);
}

__global__ void bitonic_step(unsigned long long* keys, int j, int k) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int partner = i ^ static_cast<unsigned int>(j);
    if (partner <= i) return;
    const unsigned long long a = keys[i], b = keys[partner];
    const bool ascending = (i & static_cast<unsigned int>(k)) == 0;
    if ((a > b) == ascending) {
        keys[i] = b;
        keys[partner] = a;
    }
}

__global__ void mark_groups(const unsigned long long* keys, int n, int* first, int* groups) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int start = i == 0 || (keys[i] >> 32) != (keys[i - 1] >> 32);
    first[i] = start;
    if (start) atomicAdd(groups, 1);
}

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "iix");
    const bool paper = size == workload::Size::paper;
    const std::size_t text_bytes = paper ? (16u << 20) : (512u << 10);
    const int distinct_urls = paper ? 16384 : 2048;

    // Synthetic pages: lines of 20..200 bytes of words and tags; half of the lines hold a link, some two.
    // Link targets are skewed (a few popular URLs), as on the web.
    workload::Random rng(1608);
    const char* words[] = {"the", "data", "gpu", "<p>", "</p>", "<div class=\"x\">", "</div>", "memory", "warp",
                           "kernel", "map", "reduce", "index", "page", "<b>", "</b>", "cache", "thread"};
    const int nwords = sizeof(words) / sizeof(words[0]);
    std::string text;
    text.reserve(text_bytes + 512);
    std::vector<Record> records;
    int page = 0, lines_left = 0;
    while (text.size() < text_bytes) {
        if (lines_left == 0) {
            ++page;
            lines_left = 16 + static_cast<int>(rng.below(96));
        }
        --lines_left;
        const int start = static_cast<int>(text.size());
        const int target = 20 + static_cast<int>(rng.below(181));
        int links = 0;
        const std::uint32_t roll = rng.below(100);
        if (roll < 40) links = 1;
        else if (roll < 50) links = 2;
        std::string line;
        while (static_cast<int>(line.size()) < target) {
            if (links > 0 && rng.below(4) == 0) {
                // Skewed target: the square of a uniform number favours small URL ids.
                const float u = unit(rng);
                const int id = static_cast<int>(u * u * distinct_urls);
                line += "<a href=\"http://www.site" + std::to_string(id % 97) + ".com/dir/page" + std::to_string(id) +
                        ".html\">link</a> ";
                --links;
            } else {
                line += words[rng.below(nwords)];
                line += ' ';
            }
        }
        line += '\n';
        text += line;
        records.push_back({start, static_cast<int>(line.size()), page});
    }
    const int n = static_cast<int>(records.size());

    char* d_text = nullptr;
    CHECK(cudaMalloc(&d_text, text.size()));
    CHECK(cudaMemcpy(d_text, text.data(), text.size(), cudaMemcpyHostToDevice));
    Record* d_records = workload::to_device(records);
    int* d_counts = workload::device_zeros<int>(n);
    const int blocks = (n + kBlock - 1) / kBlock;
    int launches = 0;

    map_count<<<blocks, kBlock>>>(d_text, d_records, n, d_counts);
    CHECK_LAUNCH();
    ++launches;
    const std::vector<int> counts = workload::to_host(d_counts, n);
    std::vector<int> offsets(n);
    int total = 0;
    for (int i = 0; i < n; ++i) {
        offsets[i] = total;
        total += counts[i];
    }
    int padded = kBlock;
    while (padded < total) padded *= 2;
    int* d_offsets = workload::to_device(offsets);
    unsigned long long* d_keys = nullptr;
    CHECK(cudaMalloc(&d_keys, padded * sizeof(unsigned long long)));
    CHECK(cudaMemset(d_keys, 0xff, padded * sizeof(unsigned long long))); // padding sorts last
    map_emit<<<blocks, kBlock>>>(d_text, d_records, n, d_offsets, d_keys);
    CHECK_LAUNCH();
    ++launches;
    for (int k = 2; k <= padded; k *= 2)
        for (int j = k / 2; j > 0; j /= 2) {
            bitonic_step<<<padded / kBlock, kBlock>>>(d_keys, j, k);
            CHECK_LAUNCH();
            ++launches;
        }
    int* d_first = workload::device_zeros<int>(total);
    int* d_groups = workload::device_zeros<int>(1);
    mark_groups<<<(total + kBlock - 1) / kBlock, kBlock>>>(d_keys, total, d_first, d_groups);
    CHECK_LAUNCH();
    ++launches;
    const std::vector<unsigned long long> keys = workload::to_host(d_keys, total);
    const std::vector<int> first = workload::to_host(d_first, total);
    const int groups = workload::to_host(d_groups, 1)[0];

    // Host reference: scan, sort, group.
    std::vector<unsigned long long> want_keys;
    std::vector<int> want_counts(n);
    for (int i = 0; i < n; ++i) {
        unsigned long long buffer[64];
        const int c = scan_record(text.data(), records[i], buffer);
        want_counts[i] = c;
        want_keys.insert(want_keys.end(), buffer, buffer + c);
    }
    std::sort(want_keys.begin(), want_keys.end());
    std::vector<int> want_first(want_keys.size());
    int want_groups = 0;
    for (std::size_t i = 0; i < want_keys.size(); ++i) {
        want_first[i] = i == 0 || (want_keys[i] >> 32) != (want_keys[i - 1] >> 32);
        want_groups += want_first[i];
    }
    bool ok = workload::equal("counts", counts, want_counts);
    ok = workload::equal("pairs", keys, want_keys) && ok;
    ok = workload::equal("group_starts", first, want_first) && ok;
    ok = groups == want_groups && ok;

    CHECK(cudaFree(d_text));
    CHECK(cudaFree(d_records));
    CHECK(cudaFree(d_counts));
    CHECK(cudaFree(d_offsets));
    CHECK(cudaFree(d_keys));
    CHECK(cudaFree(d_first));
    CHECK(cudaFree(d_groups));
    return workload::finish("iix", size, ok,
                            std::to_string(text.size()) + " bytes, records=" + std::to_string(n) + ", pages=" +
                                std::to_string(page) + ", links=" + std::to_string(total) + ", urls=" +
                                std::to_string(groups) + ", launches=" + std::to_string(launches));
}
