#pragma once
// Miss status holding registers: a fully associative table of outstanding line misses, each entry holding
// up to `max_requests` requests for its line (the allocating one included) that the fill will serve.
// Wang 2016 Sec. 2.1: entries are per cache line, fully associative, "merge duplicate requests to the same
// cache line", and free once the fill is back and its requests are served. Gong 2020 Table 6.3 caps the
// requests per entry (8).
// Contract: storage is preallocated (entries x max_requests); allocation takes the lowest free entry, so
// entry numbers (which travel as packet ids) are deterministic.
// Speed: find() looks the line up in an open-addressed index (linear probing, kept at most a quarter full) instead
// of comparing every entry; a divergent load misses on up to 32 lines per instruction, each one a search. A quarter
// full rather than half shortens the probe runs that release's backward-shift deletion walks when the table is full
// (release was 1.7% of atax's host instructions on GTX480; the larger index saves about 1%).
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gpuarch/core/error.hpp>
#include <gpuarch/mem/index_set.hpp>

namespace gpuarch::mem {

template <class Request> class MshrTable {
public:
    static constexpr std::uint32_t none = ~std::uint32_t{0};

    MshrTable(std::uint32_t entries, std::uint32_t max_requests)
        : max_requests_(max_requests), line_(entries, vacant), valid_(entries, 0), count_(entries, 0),
          requests_(std::size_t{entries} * max_requests), free_(entries),
          index_line_(std::bit_ceil(std::size_t{entries} * 4), vacant), index_entry_(index_line_.size(), none),
          index_shift_(64 - static_cast<unsigned>(std::countr_zero(index_line_.size()))) {
        if (entries == 0) throw Error("an MSHR table needs at least one entry");
        if (max_requests == 0) throw Error("an MSHR entry must hold at least the request that allocated it");
        free_.insert_all();
    }

    std::uint32_t entries() const { return static_cast<std::uint32_t>(line_.size()); }
    std::uint32_t max_requests() const { return max_requests_; }
    std::uint32_t busy() const { return busy_; }
    std::uint32_t free() const { return entries() - busy_; }
    bool full() const { return busy_ == entries(); }
    // Changes with every allocate, add and release, so that equal versions mean find, can_add and full answer the
    // same for every line.
    std::uint64_t version() const { return version_; }
    // Changes with every allocate only. Between equal counts no line gained an entry and busy() did not grow, so
    // `find(line) == none` and `!full()` still hold wherever they held (releases only free entries).
    std::uint64_t allocations() const { return allocations_; }

    // The entry tracking `line`, or none.
    std::uint32_t find(std::uint64_t line) const {
        if (busy_ == 0 || line == vacant) return none;
        for (std::size_t k = home(line);; k = next(k)) {
            if (index_line_[k] == line) return index_entry_[k];
            if (index_line_[k] == vacant) return none;
        }
    }
    // Precondition: !full(), and no entry tracks `line` yet (find(line) == none).
    std::uint32_t allocate(std::uint64_t line) {
        const std::uint32_t e = free_.first();
        if (e == IndexSet::none) throw Error("an MSHR entry was allocated while every entry was busy");
        free_.erase(e);
        valid_[e] = 1;
        line_[e] = line;
        count_[e] = 0;
        ++busy_;
        ++version_;
        ++allocations_;
        std::size_t k = home(line);
        while (index_line_[k] != vacant) k = next(k);
        index_line_[k] = line;
        index_entry_[k] = e;
        return e;
    }
    bool valid(std::uint32_t e) const { return e < entries() && valid_[e]; }
    bool can_add(std::uint32_t e) const { return count_[e] < max_requests_; }
    void add(std::uint32_t e, const Request& r) {
        if (!can_add(e)) throw Error("an MSHR entry received more requests than it can hold");
        requests_[std::size_t{e} * max_requests_ + count_[e]] = r;
        ++count_[e];
        ++version_;
    }
    std::uint64_t line(std::uint32_t e) const { return line_[e]; }
    std::uint32_t request_count(std::uint32_t e) const { return count_[e]; }
    std::span<const Request> requests(std::uint32_t e) const {
        return std::span<const Request>(requests_.data() + std::size_t{e} * max_requests_, count_[e]);
    }
    void release(std::uint32_t e) {
        if (!valid(e)) throw Error("a fill arrived for MSHR entry " + std::to_string(e) + ", which is not allocated");
        unindex(line_[e]);
        valid_[e] = 0;
        line_[e] = vacant;
        count_[e] = 0;
        free_.insert(e);
        --busy_;
        ++version_;
    }

private:
    // The line of a free entry: no line number (an address divided by, or aligned to, a line of at least 4 bytes)
    // has every bit set.
    static constexpr std::uint64_t vacant = ~std::uint64_t{0};

    // The index slot where `line`'s search starts (Fibonacci hashing: line addresses share their low bits).
    std::size_t home(std::uint64_t line) const {
        return static_cast<std::size_t>((line * 0x9E3779B97F4A7C15ULL) >> index_shift_);
    }
    std::size_t next(std::size_t k) const { return (k + 1) & (index_line_.size() - 1); }
    // Removes `line` from the index, moving back the later slots of its probe run so that every search still
    // reaches its line before a vacant slot (backward-shift deletion, no tombstones).
    void unindex(std::uint64_t line) {
        std::size_t hole = home(line);
        while (index_line_[hole] != line) hole = next(hole);
        for (std::size_t k = next(hole); index_line_[k] != vacant; k = next(k)) {
            // The slot at k may fill the hole when its home does not lie cyclically in (hole, k].
            const std::size_t h = home(index_line_[k]);
            const bool home_after_hole = hole <= k ? (hole < h && h <= k) : (hole < h || h <= k);
            if (home_after_hole) continue;
            index_line_[hole] = index_line_[k];
            index_entry_[hole] = index_entry_[k];
            hole = k;
        }
        index_line_[hole] = vacant;
        index_entry_[hole] = none;
    }

    std::uint32_t max_requests_;
    std::vector<std::uint64_t> line_;
    std::vector<std::uint8_t> valid_;
    std::vector<std::uint32_t> count_;
    std::vector<Request> requests_;
    IndexSet free_; // the free entries
    std::vector<std::uint64_t> index_line_; // the index: a tracked line per slot, or vacant
    std::vector<std::uint32_t> index_entry_; // the entry tracking that slot's line
    unsigned index_shift_; // 64 - log2(index slots)
    std::uint32_t busy_ = 0;
    std::uint64_t version_ = 0;
    std::uint64_t allocations_ = 0;
};

} // namespace gpuarch::mem
