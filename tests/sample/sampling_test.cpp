// The sampling estimators and plans (sample/, docs/sampling.md) on hand-worked cases.
#include <doctest/doctest.h>

#include <gpuarch/core/error.hpp>
#include <gpuarch/sample/cta_sampler.hpp>
#include <gpuarch/sample/launch_sampler.hpp>
#include <gpuarch/sample/ratio_estimate.hpp>

#include <string>
#include <vector>

using namespace gpuarch;
using sample::LaunchMode;

TEST_CASE("the ratio estimator's error comes from the batches' spread around the ratio") {
    const std::vector<double> work{100, 100, 100}, cycles{200, 220, 180};
    const auto e = sample::estimate_ratio(work, cycles);
    CHECK(e.ratio == doctest::Approx(2.0));
    // Residuals 0, +20, -20: SE = sqrt(800 / (3 * 2)) / 100.
    CHECK(e.standard_error == doctest::Approx(0.115470).epsilon(1e-5));
    // Stated errors use Student's t for 2 degrees of freedom, 4.303.
    CHECK(e.error_for(1000) == doctest::Approx(4.303 * 115.470).epsilon(1e-4));
    CHECK(e.relative_error() == doctest::Approx(4.303 * 0.115470 / 2).epsilon(1e-4));
    CHECK(sample::t_quantile_975(9) == doctest::Approx(2.262));
    CHECK(sample::t_quantile_975(1000) == doctest::Approx(2.042));

    // Batches in exact proportion have no spread; one batch has no error estimate at all.
    CHECK(sample::estimate_ratio(std::vector<double>{10, 30}, std::vector<double>{15, 45}).standard_error == 0);
    CHECK_FALSE(std::isfinite(sample::estimate_ratio(std::vector<double>{10}, std::vector<double>{15}).error_for(1)));
}

TEST_CASE("batched statistics extrapolate every counter by thread instructions, with its error") {
    sample::BatchedStatistics b;
    for (double x : {100.0, 300.0}) {
        core::StatsTable t;
        t.add_counter("misses", static_cast<std::uint64_t>(x / 10));
        t.add_histogram("occupancy", {static_cast<std::uint64_t>(x), 0, 7});
        b.add_batch(x, 2 * x, t);
    }
    const auto e = b.extrapolate(1000);
    CHECK(e.cycles == doctest::Approx(2000));
    CHECK(e.cycles_error == 0);
    CHECK(e.stats.counter("misses") == 100);
    CHECK(e.stats.histogram("occupancy") == std::vector<std::uint64_t>{1000, 0, 35});
    // misses and the first bucket are exact multiples of the work; the third bucket (7 and 7) is not.
    CHECK(e.stats_error.counter("misses") == 0);
    CHECK(e.stats_error.histogram("occupancy")[0] == 0);
    CHECK(e.stats_error.histogram("occupancy")[2] > 0);
}

TEST_CASE("CTA sampling: the ramp and the last wave in detail, a chunk of two waves every period between") {
    // 20 waves of 10 CTAs; 17 between the ramp (waves 0, 1) and the last (19); 4 batches: period 4.
    const sample::CtaSampler s({.enabled = true, .batches = 4}, 10, 200, false);
    REQUIRE(s.active());
    CHECK(s.period() == 4);
    std::vector<std::uint64_t> detailed_waves, opens, closes;
    for (std::uint64_t w = 0; w < 20; ++w) {
        if (s.detailed(w * 10)) detailed_waves.push_back(w);
        if (s.opens_batch(w * 10)) opens.push_back(w);
        if (s.closes_batch(w * 10)) closes.push_back(w);
    }
    CHECK(detailed_waves == std::vector<std::uint64_t>{0, 1, 2, 3, 6, 7, 10, 11, 14, 15, 18, 19});
    // A chunk's first wave re-warms; its second is measured until the next chunk (or the last wave) starts.
    CHECK(opens == std::vector<std::uint64_t>{3, 7, 11, 15});
    CHECK(closes == std::vector<std::uint64_t>{2, 6, 10, 14, 18, 19});
    CHECK(s.detailed(35));
    CHECK_FALSE(s.detailed(40));
    CHECK(s.next_detailed(40) == 60);
    CHECK(s.next_detailed(160) == 180);
    CHECK(s.next_detailed(155) == 155);
    for (std::uint64_t c : {21, 31, 200}) {
        CHECK_FALSE(s.opens_batch(c));
        CHECK_FALSE(s.closes_batch(c));
    }

    // A partial last wave: 21 waves (0..20); the chunk at 18, 19 is measured until the last wave starts.
    const sample::CtaSampler t({.enabled = true, .batches = 4}, 10, 205, false);
    CHECK(t.detailed(190));
    CHECK(t.opens_batch(190));
    CHECK(t.closes_batch(200));
    CHECK(t.next_detailed(160) == 180);
}

TEST_CASE("CTA sampling leaves small, cooperative and unsampled launches whole") {
    CHECK_FALSE(sample::CtaSampler({.enabled = true, .batches = 4}, 10, 100, false).active()); // period 1
    CHECK_FALSE(sample::CtaSampler({.enabled = true, .batches = 4}, 10, 140, false).active()); // period 2
    CHECK_FALSE(sample::CtaSampler({.enabled = true, .batches = 4}, 10, 200, true).active()); // cooperative
    CHECK_FALSE(sample::CtaSampler({.enabled = false, .batches = 4}, 10, 200, false).active());
    const sample::CtaSampler off({}, 10, 200, false);
    for (std::uint64_t c = 0; c < 200; ++c) CHECK(off.detailed(c));
}

namespace {
std::vector<LaunchMode> plan_all(sample::LaunchSampler& s, const std::vector<std::string>& kernels) {
    std::vector<LaunchMode> out;
    for (const auto& k : kernels) out.push_back(s.plan(k, "demangled " + k, k + " (1,1,1)"));
    return out;
}
} // namespace

TEST_CASE("fast-forward to a launch index, with warm-up launches before it") {
    sample::LaunchSampler s({.fast_forward = "3", .warm_launches = 1});
    CHECK(plan_all(s, {"a", "b", "a", "b", "a"}) ==
          std::vector<LaunchMode>{LaunchMode::fast_forward, LaunchMode::fast_forward, LaunchMode::warm_up,
                                  LaunchMode::detailed, LaunchMode::detailed});
}

TEST_CASE("fast-forward to a kernel by its mangled or demangled name, and to its K-th launch") {
    sample::LaunchSampler first({.fast_forward = "b"});
    CHECK(plan_all(first, {"a", "b", "a"}) ==
          std::vector<LaunchMode>{LaunchMode::fast_forward, LaunchMode::detailed, LaunchMode::detailed});
    sample::LaunchSampler second({.fast_forward = "demangled b#1"});
    CHECK(plan_all(second, {"a", "b", "b", "a"}) ==
          std::vector<LaunchMode>{LaunchMode::fast_forward, LaunchMode::fast_forward, LaunchMode::detailed,
                                  LaunchMode::detailed});
    CHECK_THROWS_WITH_AS(sample::LaunchSampler({.fast_forward = "b", .warm_launches = 2}),
                         doctest::Contains("needs a launch index"), Error);
    CHECK_THROWS_WITH_AS(sample::LaunchSampler({.fast_forward = "b#x"}), doctest::Contains("NAME#K"), Error);
}

TEST_CASE(
    "repeated launches: warm-up, two more and every period-th in detail, the rest estimated while the error allows") {
    sample::LaunchSampler s({.fast_forward = "", .repeated = true, .warmup = 1, .period = 4, .tolerance = 0.05});
    const std::string series = "k (4,1,1)";
    auto step = [&](std::uint64_t instructions, double cycles_per_instruction) {
        const LaunchMode m = s.plan("k", "k", series);
        if (m == LaunchMode::detailed) {
            core::StatsTable t;
            t.add_counter("l1.misses", instructions / 4);
            s.record(series, instructions, cycles_per_instruction * double(instructions), t);
        }
        return m;
    };
    std::vector<LaunchMode> modes;
    for (int i = 0; i < 8; ++i) modes.push_back(step(1000, 2.0));
    CHECK(modes == std::vector<LaunchMode>{LaunchMode::detailed, LaunchMode::detailed, LaunchMode::detailed,
                                           LaunchMode::estimated, LaunchMode::estimated, LaunchMode::estimated,
                                           LaunchMode::detailed, LaunchMode::estimated});
    CHECK(s.batches(series) == 3); // the warm-up launch is left out
    const auto e = s.estimate(series, 500);
    CHECK(e.cycles == doctest::Approx(1000));
    CHECK(e.cycles_error == 0);
    CHECK(e.stats.counter("l1.misses") == 125);

    // A series whose detailed launches disagree is not estimated.
    sample::LaunchSampler noisy({.fast_forward = "", .repeated = true, .warmup = 1, .period = 4, .tolerance = 0.05});
    for (double cpi : {2.0, 2.0, 3.0}) {
        REQUIRE(noisy.plan("k", "k", series) == LaunchMode::detailed);
        noisy.record(series, 1000, cpi * 1000, {});
    }
    CHECK(noisy.plan("k", "k", series) == LaunchMode::detailed);

    // Period 0: every launch in detail.
    sample::LaunchSampler never({.fast_forward = "", .repeated = true, .period = 0});
    for (int i = 0; i < 5; ++i) CHECK(never.plan("k", "k", series) == LaunchMode::detailed);
}
