#pragma once
// Sampling across the launches of a run (docs/sampling.md): functional fast-forward to a chosen launch, and
// sampled timing of repeated launches. A host (the CUDA runtime, a user's own driver) asks `plan` before each
// launch how to run it, runs it so, and reports detailed launches back with `record`.
//
// Contract:
// - Fast-forward. Launches before the target run on the functional engine only (results in memory as always, no
//   cycles) and count in no total. The target is a launch index (0-based over the run) or a kernel name, mangled
//   or demangled, optionally `NAME#K` for that kernel's K-th launch (0-based). With an index target,
//   `warm_launches` launches just before it run in detail so that the caches hold what they left ("warm"); their
//   figures are reported as warm-up and count in no total. Zero warm launches start the target cold.
// - Repeated launches. Launches with the same signature (kernel, grid, block, dynamic shared memory; the caller
//   builds the string) form a series. The first `warmup` of a series and every `period`-th after them run in
//   detail; the others run on the functional engine, and their cycles and statistics are estimated from the
//   series' detailed launches by their exact thread instructions (sample/ratio_estimate.hpp), each with a stated
//   error. The `warmup` launches start from caches the series has not warmed yet and are left out of the
//   estimate, which needs two detailed launches after them. A launch is estimated only while the stated error is
//   within `tolerance` of the estimate: a series whose launches differ (a BFS frontier that grows and shrinks)
//   keeps running in detail.
// - Deterministic: the plan depends only on the sequence of launches and the detailed launches' figures.
#include <charconv>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <gpuarch/core/error.hpp>
#include <gpuarch/core/stats.hpp>
#include <gpuarch/sample/ratio_estimate.hpp>

namespace gpuarch::sample {

struct LaunchSamplingOptions {
    std::string fast_forward; // "" = none; a launch index; a kernel name; NAME#K
    unsigned warm_launches = 0; // with an index target: launches before it run in detail as warm-up
    bool repeated = false; // sample repeated launches
    unsigned warmup = 2; // detailed launches of a series left out of its estimate; two more precede any estimate
    unsigned period = 10; // every period-th launch of a series runs in detail (0: none is estimated)
    double tolerance = 0.02; // estimate only while the stated error is at most this fraction of the estimate
};

enum class LaunchMode : std::uint8_t {
    fast_forward, // functional only, before the target
    warm_up, // in detail, before the target; counts in no total
    detailed, // in detail
    estimated, // functional, cycles and statistics estimated from the series
};

constexpr std::string_view to_string(LaunchMode m) {
    switch (m) {
    case LaunchMode::fast_forward: return "fast-forward";
    case LaunchMode::warm_up: return "warm-up";
    case LaunchMode::detailed: return "detailed";
    case LaunchMode::estimated: return "estimated";
    }
    return "?";
}

class LaunchSampler {
public:
    explicit LaunchSampler(LaunchSamplingOptions options) : options_(std::move(options)) {
        const std::string& target = options_.fast_forward;
        if (target.empty()) {
            reached_ = true;
        } else if (auto index = parse_index(target)) {
            target_index_ = *index;
        } else {
            const auto hash = target.rfind('#');
            target_name_ = target.substr(0, hash);
            if (hash != std::string::npos) {
                auto k = parse_index(std::string_view(target).substr(hash + 1));
                if (!k || target_name_.empty())
                    throw Error("sample.fast_forward = '" + target +
                                "': expected a launch index, a kernel name or NAME#K with K a launch count");
                target_occurrence_ = *k;
            }
            if (options_.warm_launches != 0)
                throw Error("sample.warm_launches = " + std::to_string(options_.warm_launches) +
                            " needs a launch index in sample.fast_forward (got the kernel name '" + target +
                            "'): the launches before a named target are not known in advance; gpuarch-run "
                            "--functional --stats FILE lists every launch with its index");
        }
    }

    const LaunchSamplingOptions& options() const { return options_; }
    // Whether the fast-forward target has launched (true without one): a host warns at exit when it has not.
    bool reached() const { return reached_; }

    // How to run the next launch. `signature` identifies its series.
    LaunchMode plan(std::string_view kernel, std::string_view display_name, const std::string& signature) {
        const std::uint64_t index = launches_++;
        if (!reached_) {
            if (target_index_) {
                if (index >= *target_index_) reached_ = true;
                else
                    return *target_index_ - index <= options_.warm_launches ? LaunchMode::warm_up
                                                                            : LaunchMode::fast_forward;
            } else if (kernel == target_name_ || display_name == target_name_) {
                if (named_seen_++ == target_occurrence_) reached_ = true;
                else return LaunchMode::fast_forward;
            } else {
                return LaunchMode::fast_forward;
            }
        }
        Series& s = series_[signature];
        const std::uint64_t n = s.launches++;
        const std::uint64_t first_estimate = std::uint64_t{options_.warmup} + 2;
        if (!options_.repeated || options_.period == 0 || s.detailed < first_estimate) return LaunchMode::detailed;
        if ((n - first_estimate) % options_.period == options_.period - 1) return LaunchMode::detailed;
        if (s.batches.cycles_per_instruction().relative_error() > options_.tolerance) return LaunchMode::detailed;
        return LaunchMode::estimated;
    }

    // A launch that `plan` said to run in detail has run: its thread instructions, cycles and statistics.
    void record(const std::string& signature, std::uint64_t thread_instructions, double cycles,
                core::StatsTable stats) {
        Series& s = series_[signature];
        if (s.detailed++ < options_.warmup) return; // caches the series has not warmed: unlike the launches after
        s.batches.add_batch(double(thread_instructions), cycles, std::move(stats));
    }

    // The estimated figures of a launch that `plan` said to estimate, from its exact thread instructions.
    BatchedStatistics::Extrapolation estimate(const std::string& signature, std::uint64_t thread_instructions) const {
        auto it = series_.find(signature);
        if (it == series_.end())
            throw Error("sample: no detailed launch of series '" + signature + "' to estimate from");
        return it->second.batches.extrapolate(double(thread_instructions));
    }
    // Detailed launches of the series that the estimate uses.
    std::size_t batches(const std::string& signature) const {
        auto it = series_.find(signature);
        return it == series_.end() ? 0 : it->second.batches.batches();
    }

private:
    static std::optional<std::uint64_t> parse_index(std::string_view text) {
        std::uint64_t v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
        return v;
    }

    struct Series {
        std::uint64_t launches = 0; // planned after the target
        std::uint64_t detailed = 0; // recorded
        BatchedStatistics batches;
    };

    LaunchSamplingOptions options_;
    bool reached_ = false;
    std::optional<std::uint64_t> target_index_;
    std::string target_name_;
    std::uint64_t target_occurrence_ = 0, named_seen_ = 0;
    std::uint64_t launches_ = 0;
    std::map<std::string, Series> series_;
};

} // namespace gpuarch::sample
