#pragma once
// Miss status holding registers: a fully associative table of outstanding line misses, each entry holding
// up to `max_requests` requests for its line (the allocating one included) that the fill will serve.
// Wang 2016 Sec. 2.1: entries are per cache line, fully associative, "merge duplicate requests to the same
// cache line", and free once the fill is back and its requests are served. Gong 2020 Table 6.3 caps the
// requests per entry (8).
// Contract: storage is preallocated (entries x max_requests); allocation takes the lowest free entry, so
// entry numbers (which travel as packet ids) are deterministic.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gpuarch/core/error.hpp>

namespace gpuarch::mem {

template <class Request> class MshrTable {
public:
    static constexpr std::uint32_t none = ~std::uint32_t{0};

    MshrTable(std::uint32_t entries, std::uint32_t max_requests)
        : max_requests_(max_requests), line_(entries, vacant), valid_(entries, 0), count_(entries, 0),
          requests_(std::size_t{entries} * max_requests) {
        if (entries == 0) throw Error("an MSHR table needs at least one entry");
        if (max_requests == 0) throw Error("an MSHR entry must hold at least the request that allocated it");
    }

    std::uint32_t entries() const { return static_cast<std::uint32_t>(line_.size()); }
    std::uint32_t max_requests() const { return max_requests_; }
    std::uint32_t busy() const { return busy_; }
    std::uint32_t free() const { return entries() - busy_; }
    bool full() const { return busy_ == entries(); }
    // Changes with every allocate, add and release, so that equal versions mean find, can_add and full answer the
    // same for every line.
    std::uint64_t version() const { return version_; }

    // The entry tracking `line`, or none.
    std::uint32_t find(std::uint64_t line) const {
        if (busy_ == 0 || line == vacant) return none;
        // A free entry holds `vacant`, so one comparison per entry tests both validity and line (a stalled load
        // repeats this search every cycle).
        for (std::uint32_t e = 0; e < entries(); ++e)
            if (line_[e] == line) return e;
        return none;
    }
    // Precondition: !full().
    std::uint32_t allocate(std::uint64_t line) {
        for (std::uint32_t e = 0; e < entries(); ++e) {
            if (!valid_[e]) {
                valid_[e] = 1;
                line_[e] = line;
                count_[e] = 0;
                ++busy_;
                ++version_;
                return e;
            }
        }
        throw Error("an MSHR entry was allocated while every entry was busy");
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
        valid_[e] = 0;
        line_[e] = vacant;
        count_[e] = 0;
        --busy_;
        ++version_;
    }

private:
    // The line of a free entry: no line number (an address divided by, or aligned to, a line of at least 4 bytes)
    // has every bit set.
    static constexpr std::uint64_t vacant = ~std::uint64_t{0};
    std::uint32_t max_requests_;
    std::vector<std::uint64_t> line_;
    std::vector<std::uint8_t> valid_;
    std::vector<std::uint32_t> count_;
    std::vector<Request> requests_;
    std::uint32_t busy_ = 0;
    std::uint64_t version_ = 0;
};

} // namespace gpuarch::mem
