#pragma once
// Statistics: named counters and histograms.
//
// Contract: a component keeps its counters as plain integer members (so the per-cycle path is an increment,
// nothing more) and declares them once, with a description, in a `visit_stats(Visitor&)` member:
//
//     template <class V> void visit_stats(V& v) const {
//         v.counter("hits", hits_, "accesses that found their line");
//         v.histogram("mshr_occupancy", occupancy_, "cycles with k MSHRs busy");
//     }
//
// `StatsTable::collect(prefix, component)` copies them under "prefix.name". Tables from several SMs merge by
// name (counters add, histograms add bucket-wise), which gives the per-GPU aggregate; they print as an
// aligned text table and as JSON. The order of rows is the order of declaration, so output is deterministic.
#include <cstdint>
#include <algorithm>
#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <gpuarch/core/error.hpp>

namespace gpuarch::core {

struct StatEntry {
    std::string name;
    std::string description;
    bool is_histogram = false;
    std::uint64_t value = 0; // counters
    std::vector<std::uint64_t> buckets; // histograms: bucket k counts events of size k
};

class StatsTable {
public:
    void add_counter(std::string name, std::uint64_t value, std::string_view description = {}) {
        StatEntry& e = entry(std::move(name), description, false);
        e.value += value;
    }
    void add_histogram(std::string name, const std::vector<std::uint64_t>& buckets, std::string_view description = {}) {
        StatEntry& e = entry(std::move(name), description, true);
        if (e.buckets.size() < buckets.size()) e.buckets.resize(buckets.size(), 0);
        for (std::size_t i = 0; i < buckets.size(); ++i) e.buckets[i] += buckets[i];
    }

    // Copies a component's declared statistics under `prefix.` (no prefix when empty).
    template <class Component> void collect(std::string_view prefix, const Component& component) {
        Collector collector{*this, prefix};
        component.visit_stats(collector);
    }

    // Adds another table entry by entry (aggregation over SMs).
    void merge(const StatsTable& other) {
        for (const auto& e : other.entries_) {
            if (e.is_histogram) add_histogram(e.name, e.buckets, e.description);
            else add_counter(e.name, e.value, e.description);
        }
    }

    // This table less an earlier snapshot of the same source (per-launch figures from cumulative counters).
    // Entries absent from `earlier` are kept whole.
    StatsTable minus(const StatsTable& earlier) const {
        StatsTable out = *this;
        for (auto& e : out.entries_) {
            auto it = earlier.index_.find(e.name);
            if (it == earlier.index_.end()) continue;
            const StatEntry& old = earlier.entries_[it->second];
            if (e.is_histogram) {
                for (std::size_t i = 0; i < e.buckets.size() && i < old.buckets.size(); ++i)
                    e.buckets[i] -= old.buckets[i];
            } else {
                e.value -= old.value;
            }
        }
        return out;
    }

    // Adds `other` times `factor` (>= 0), each counter and bucket rounded to the nearest integer: the
    // extrapolated part of a sampled launch (docs/sampling.md).
    void add_scaled(const StatsTable& other, double factor) {
        auto scale = [factor](std::uint64_t v) { return static_cast<std::uint64_t>(double(v) * factor + 0.5); };
        for (const auto& e : other.entries_) {
            if (e.is_histogram) {
                std::vector<std::uint64_t> buckets(e.buckets.size());
                for (std::size_t i = 0; i < buckets.size(); ++i) buckets[i] = scale(e.buckets[i]);
                add_histogram(e.name, buckets, e.description);
            } else {
                add_counter(e.name, scale(e.value), e.description);
            }
        }
    }

    bool contains(std::string_view name) const { return index_.find(std::string(name)) != index_.end(); }
    // Value of a counter; throws gpuarch::Error naming it when absent (a typo must not read as zero).
    std::uint64_t counter(std::string_view name) const { return find(name).value; }
    const std::vector<std::uint64_t>& histogram(std::string_view name) const { return find(name).buckets; }
    const std::vector<StatEntry>& entries() const { return entries_; }

    void print_table(std::ostream& os) const {
        std::size_t width = 4;
        for (const auto& e : entries_) width = std::max(width, e.name.size());
        for (const auto& e : entries_) {
            os << e.name << std::string(width - e.name.size() + 2, ' ');
            if (e.is_histogram) {
                os << '[';
                for (std::size_t i = 0; i < e.buckets.size(); ++i) os << (i ? " " : "") << e.buckets[i];
                os << ']';
            } else {
                os << e.value;
            }
            os << '\n';
        }
    }

    std::string to_json() const {
        std::ostringstream os;
        os << '{';
        bool first = true;
        for (const auto& e : entries_) {
            os << (first ? "" : ",") << '"' << json_escape(e.name) << "\":";
            first = false;
            if (e.is_histogram) {
                os << '[';
                for (std::size_t i = 0; i < e.buckets.size(); ++i) os << (i ? "," : "") << e.buckets[i];
                os << ']';
            } else {
                os << e.value;
            }
        }
        os << '}';
        return os.str();
    }

    bool operator==(const StatsTable& o) const {
        if (entries_.size() != o.entries_.size()) return false;
        for (std::size_t i = 0; i < entries_.size(); ++i) {
            const auto &a = entries_[i], &b = o.entries_[i];
            if (a.name != b.name || a.value != b.value || a.buckets != b.buckets) return false;
        }
        return true;
    }

    static std::string json_escape(std::string_view text) {
        std::string out;
        for (char c : text) {
            if (c == '"' || c == '\\') {
                out += '\\';
                out += c;
            } else if (static_cast<unsigned char>(c) < 0x20) {
                out += ' ';
            } else {
                out += c;
            }
        }
        return out;
    }

private:
    struct Collector {
        StatsTable& table;
        std::string_view prefix;
        std::string full(std::string_view name) const {
            return prefix.empty() ? std::string(name) : std::string(prefix) + "." + std::string(name);
        }
        void counter(std::string_view name, std::uint64_t value, std::string_view description = {}) {
            table.add_counter(full(name), value, description);
        }
        void histogram(std::string_view name, const std::vector<std::uint64_t>& buckets,
                       std::string_view description = {}) {
            table.add_histogram(full(name), buckets, description);
        }
        template <class Nested> void nested(std::string_view name, const Nested& component) {
            Collector inner{table, {}};
            const std::string scoped = full(name);
            inner.prefix = scoped;
            component.visit_stats(inner);
        }
    };

    StatEntry& entry(std::string name, std::string_view description, bool histogram) {
        auto it = index_.find(name);
        if (it != index_.end()) {
            StatEntry& e = entries_[it->second];
            if (e.is_histogram != histogram)
                throw Error("statistic '" + name + "' is declared both as a counter and as a histogram");
            return e;
        }
        index_.emplace(name, entries_.size());
        entries_.push_back(StatEntry{std::move(name), std::string(description), histogram, 0, {}});
        return entries_.back();
    }
    const StatEntry& find(std::string_view name) const {
        auto it = index_.find(std::string(name));
        if (it == index_.end()) throw Error("no statistic named '" + std::string(name) + "'");
        return entries_[it->second];
    }

    std::vector<StatEntry> entries_;
    std::map<std::string, std::size_t, std::less<>> index_;
};

// A histogram with a fixed number of buckets; values past the last bucket land in it (saturating).
class Histogram {
public:
    explicit Histogram(std::size_t buckets = 1) : buckets_(buckets, 0) {}
    void add(std::size_t value, std::uint64_t count = 1) {
        buckets_[value < buckets_.size() ? value : buckets_.size() - 1] += count;
    }
    const std::vector<std::uint64_t>& buckets() const { return buckets_; }
    std::uint64_t total() const {
        std::uint64_t sum = 0;
        for (auto b : buckets_) sum += b;
        return sum;
    }

private:
    std::vector<std::uint64_t> buckets_;
};

} // namespace gpuarch::core
