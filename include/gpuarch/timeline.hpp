#pragma once
// Interval statistics for a timeline (docs/timeline.md): the counters that every SM and the memory system declare
// through visit_stats, read every N cycles of a launch without building a StatsTable.
//
// Contract. GPU::launch, with TimingOptions::timeline_interval = N > 0, calls TimingOptions::timeline with a
// TimelineInterval after every N cycles of the launch and once more at its end (after the memory system drained,
// so the last interval may be shorter). Each interval holds the increments of every counter over its cycles, per
// SM and for the memory system: summed over a launch's intervals they equal the launch's LaunchResult::stats
// exactly (a sampled launch's stats add the extrapolated share of the CTAs it did not simulate, which no interval
// holds). A histogram appears as one column, `<name>.sum`, the sum of its event sizes (k x bucket k: for the L1's
// mshr_occupancy, MSHR-entry-cycles). N = 0 costs nothing: the launch never reads a counter for it.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <gpuarch/core/cycle.hpp>
#include <gpuarch/core/error.hpp>

namespace gpuarch {

// One interval of a launch, valid during the callback.
struct TimelineInterval {
    std::string_view kernel;
    core::Cycle begin = 0, end = 0; // GPU cycles, counted on across the GPU's launches
    unsigned sms = 0;
    std::span<const std::string> sm_names; // one SM's counters ("warp_instructions", "l1.misses", ...)
    std::span<const std::uint64_t> sm_values; // sms rows of sm_names.size(): SM s's increments in this interval
    std::span<const std::string> mem_names; // the memory system's counters ("dram_reads", ...)
    std::span<const std::uint64_t> mem_values;

    std::span<const std::uint64_t> sm_row(unsigned sm) const {
        return sm_values.subspan(std::size_t{sm} * sm_names.size(), sm_names.size());
    }
};

// Reads a component's counters into a flat row, in the order its visit_stats declares them. The first read
// learns the names (nested components' names joined with '.', as StatsTable::collect names them); a name declared
// more than once (one per scheduler of an SM) is one column holding their sum, as in a StatsTable. Later reads of
// the same component type only add values, which keeps a read to a few hundred additions.
class CounterReader {
public:
    const std::vector<std::string>& names() const { return names_; }

    // Overwrites `row` (resized to names().size()) with the component's counters now.
    template <class Component> void read(const Component& component, std::vector<std::uint64_t>& row) {
        if (!learned_) {
            Learner learner{*this, {}};
            component.visit_stats(learner);
            learned_ = true;
        }
        row.assign(names_.size(), 0);
        Adder adder{columns_.data(), columns_.size(), row.data(), 0};
        component.visit_stats(adder);
        if (adder.next != columns_.size())
            throw Error("a component declared " + std::to_string(adder.next) + " statistics where it first declared " +
                        std::to_string(columns_.size()) + "; the timeline needs a fixed set");
    }

private:
    static std::uint64_t histogram_sum(const std::vector<std::uint64_t>& buckets) {
        std::uint64_t sum = 0;
        for (std::size_t k = 0; k < buckets.size(); ++k) sum += k * buckets[k];
        return sum;
    }
    struct Learner {
        CounterReader& reader;
        std::string prefix;
        void add(std::string name) {
            auto [it, fresh] = reader.index_.try_emplace(name, reader.names_.size());
            if (fresh) reader.names_.push_back(std::move(name));
            reader.columns_.push_back(it->second);
        }
        std::string full(std::string_view name) const {
            return prefix.empty() ? std::string(name) : prefix + "." + std::string(name);
        }
        void counter(std::string_view name, std::uint64_t, std::string_view = {}) { add(full(name)); }
        void histogram(std::string_view name, const std::vector<std::uint64_t>&, std::string_view = {}) {
            add(full(name) + ".sum");
        }
        template <class Nested> void nested(std::string_view name, const Nested& component) {
            Learner inner{reader, full(name)};
            component.visit_stats(inner);
        }
    };
    struct Adder {
        const std::size_t* columns;
        std::size_t count;
        std::uint64_t* row;
        std::size_t next;
        void add(std::uint64_t value) {
            if (next < count) row[columns[next]] += value;
            ++next;
        }
        void counter(std::string_view, std::uint64_t value, std::string_view = {}) { add(value); }
        void histogram(std::string_view, const std::vector<std::uint64_t>& buckets, std::string_view = {}) {
            add(histogram_sum(buckets));
        }
        template <class Nested> void nested(std::string_view, const Nested& component) { component.visit_stats(*this); }
    };

    bool learned_ = false;
    std::vector<std::string> names_;
    std::unordered_map<std::string, std::size_t> index_;
    std::vector<std::size_t> columns_; // column of the k-th counter visit_stats declares
};

} // namespace gpuarch
