#pragma once
// The estimator behind sampled timing (docs/sampling.md).
//
// A quantity y that grows with work x (cycles, or any statistic, against thread instructions) is measured in
// detail over B batches (waves of CTAs, or whole launches). The y of work not simulated is estimated as R * x with
// the ratio estimator R = sum(y) / sum(x). Its standard error comes from the batches' spread around R, the
// batch-means method with the large-sample variance of a ratio estimator (Cochran, Sampling Techniques, 3rd ed.,
// 1977, Ch. 6, without the finite-population correction, which only shrinks it):
//
//     SE(R) = sqrt( sum_b (y_b - R x_b)^2 / (B (B - 1)) ) / mean(x)
//
// A stated error is the two-sided 95% quantile of Student's t with B - 1 degrees of freedom times the standard
// error (the batch-means confidence interval; with few batches the spread itself is uncertain, which the normal
// quantile 1.96 would ignore). That is 95% coverage if the batches behaved like independent draws; they are
// stretches of one run, so the bound is an estimate, not a guarantee, and bench/sampling.py measures the real
// error against full runs.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <span>
#include <vector>

#include <gpuarch/core/stats.hpp>

namespace gpuarch::sample {

// Student's t two-sided 95% quantile, t_{0.975} with `df` degrees of freedom (standard tables, e.g. NIST/SEMATECH
// e-Handbook of Statistical Methods, Sec. 1.3.6.7.2); above 30, the value at 30 (2.042; 1.96 in the limit).
constexpr double t_quantile_975(std::size_t df) {
    constexpr double table[] = {0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                2.201, 2.179,  2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080,
                                2.074, 2.069,  2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    if (df == 0) return std::numeric_limits<double>::infinity();
    return df < std::size(table) ? table[df] : table[30];
}

struct RatioEstimate {
    double ratio = 0; // sum(y) / sum(x)
    double standard_error = std::numeric_limits<double>::infinity(); // of `ratio`; infinite below two batches
    std::size_t batches = 0;
    double quantile() const {
        return batches < 2 ? std::numeric_limits<double>::infinity() : t_quantile_975(batches - 1);
    }
    // The stated error of R * work.
    double error_for(double work) const {
        return standard_error == 0 || work == 0 ? 0.0 : quantile() * standard_error * work;
    }
    // The stated error relative to the estimate itself (0 when the ratio is 0 and known exactly).
    double relative_error() const {
        if (standard_error == 0) return 0.0;
        if (ratio == 0) return std::numeric_limits<double>::infinity();
        return quantile() * standard_error / ratio;
    }
};

// `work[b]` and `value[b]` are batch b's x and y; batches of no work are left out.
inline RatioEstimate estimate_ratio(std::span<const double> work, std::span<const double> value) {
    double sum_x = 0, sum_y = 0;
    std::size_t batches = 0;
    for (std::size_t b = 0; b < work.size(); ++b) {
        if (work[b] <= 0) continue;
        sum_x += work[b];
        sum_y += value[b];
        ++batches;
    }
    RatioEstimate e;
    e.batches = batches;
    if (batches == 0) return e;
    e.ratio = sum_y / sum_x;
    if (batches < 2) return e;
    double squares = 0;
    for (std::size_t b = 0; b < work.size(); ++b) {
        if (work[b] <= 0) continue;
        const double residual = value[b] - e.ratio * work[b];
        squares += residual * residual;
    }
    const double n = double(batches);
    e.standard_error = std::sqrt(squares / (n * (n - 1))) / (sum_x / n);
    return e;
}

// Statistics measured over batches of detailed simulation, and their extrapolation to work not simulated.
// Each batch is a table of the counters accumulated during it (a difference of two snapshots) and the thread
// instructions and cycles it covered.
class BatchedStatistics {
public:
    void add_batch(double thread_instructions, double cycles, core::StatsTable stats) {
        work_.push_back(thread_instructions);
        cycles_.push_back(cycles);
        stats_.push_back(std::move(stats));
    }
    std::size_t batches() const { return work_.size(); }
    double work() const {
        double w = 0;
        for (double x : work_) w += x;
        return w;
    }
    RatioEstimate cycles_per_instruction() const { return estimate_ratio(work_, cycles_); }

    // Every batch's statistics summed.
    core::StatsTable total() const {
        core::StatsTable t;
        for (const auto& s : stats_) t.merge(s);
        return t;
    }

    // The figures for `thread_instructions` more work of the same kind: cycles and every statistic by their ratio
    // to thread instructions over all batches, each with its stated error.
    struct Extrapolation {
        double cycles = 0, cycles_error = 0;
        core::StatsTable stats, stats_error;
    };
    Extrapolation extrapolate(double thread_instructions) const {
        Extrapolation out;
        const RatioEstimate cpi = cycles_per_instruction();
        out.cycles = cpi.ratio * thread_instructions;
        out.cycles_error = cpi.error_for(thread_instructions);
        const double measured = work();
        if (measured > 0) out.stats.add_scaled(total(), thread_instructions / measured);
        out.stats_error = error_for(thread_instructions);
        return out;
    }

    // The stated error (RatioEstimate::error_for) of every counter and histogram bucket extrapolated to
    // `thread_instructions` more work, rounded up; entries the batches measured exactly (no spread) are 0.
    core::StatsTable error_for(double thread_instructions) const {
        core::StatsTable out;
        if (stats_.empty()) return out;
        std::vector<double> y(stats_.size());
        auto bound = [&](auto&& value_of) {
            for (std::size_t b = 0; b < stats_.size(); ++b) y[b] = value_of(stats_[b]);
            const double e = estimate_ratio(work_, y).error_for(thread_instructions);
            return std::isfinite(e) ? static_cast<std::uint64_t>(std::ceil(e))
                                    : std::numeric_limits<std::uint64_t>::max();
        };
        for (const core::StatEntry& entry : stats_.front().entries()) {
            if (!entry.is_histogram) {
                out.add_counter(entry.name, bound([&](const core::StatsTable& t) {
                                    return t.contains(entry.name) ? double(t.counter(entry.name)) : 0.0;
                                }),
                                entry.description);
                continue;
            }
            std::vector<std::uint64_t> buckets(entry.buckets.size());
            for (std::size_t i = 0; i < buckets.size(); ++i)
                buckets[i] = bound([&](const core::StatsTable& t) {
                    if (!t.contains(entry.name)) return 0.0;
                    const auto& h = t.histogram(entry.name);
                    return i < h.size() ? double(h[i]) : 0.0;
                });
            out.add_histogram(entry.name, buckets, entry.description);
        }
        return out;
    }

private:
    std::vector<double> work_, cycles_;
    std::vector<core::StatsTable> stats_;
};

} // namespace gpuarch::sample
