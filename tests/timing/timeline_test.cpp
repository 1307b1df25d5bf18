// Interval statistics (timeline.hpp, docs/timeline.md): a launch's intervals tile its cycles, their increments sum
// exactly to the launch's statistics, per SM and for the memory system, and recording them changes no result.
// Per-line statistics (timing/line_stats.hpp): summed over a kernel's instructions they give its instruction counts
// and every stall outcome but idle.
#include <doctest/doctest.h>

#include <gpuarch/support/variants.hpp>

#include <corpus/corpus.hpp>
#include <gpuarch/func/module.hpp>
#include <gpuarch/machines.hpp>
#include <gpuarch/regfile/banked_rf.hpp>
#include <gpuarch/sched/ccws.hpp>
#include <gpuarch/sched/gto.hpp>
#include <gpuarch/sched/lrr.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace gpuarch;

namespace {

// What the callback saw of one launch: per counter the sum over intervals (GPU-wide, as LaunchResult::stats
// names it), and each interval's bounds.
struct Recorded {
    std::map<std::string, std::uint64_t> sums;
    std::vector<std::uint64_t> per_sm_cycles; // sum over intervals of each SM's `cycles`
    std::vector<std::pair<core::Cycle, core::Cycle>> bounds;
};

struct Run {
    std::vector<LaunchResult> launches;
    std::vector<Recorded> recorded;
    bool passed = false;
};

template <class Gpu, class Machine> Run run(std::string_view kernel, core::Cycle interval) {
    Run out;
    func::Device device;
    const kernels::CaseInfo& info = kernels::find_case(kernel);
    const auto module = func::Module::from_file(examples::kernels_dir() + "/ptx/" + std::string(info.ptx_file));
    auto gpu = std::make_unique<Gpu>(Machine::template config<Gpu>());
    TimingOptions options;
    options.timeline_interval = interval;
    options.line_stats = interval != 0;
    if (interval != 0)
        options.timeline = [&out](const TimelineInterval& t) {
            Recorded& r = out.recorded.back();
            r.bounds.emplace_back(t.begin, t.end);
            r.per_sm_cycles.resize(t.sms);
            for (unsigned sm = 0; sm < t.sms; ++sm) {
                const auto row = t.sm_row(sm);
                for (std::size_t k = 0; k < row.size(); ++k) {
                    r.sums["sm." + t.sm_names[k]] += row[k];
                    if (t.sm_names[k] == "cycles") r.per_sm_cycles[sm] += row[k];
                }
            }
            for (std::size_t k = 0; k < t.mem_names.size(); ++k) r.sums["mem." + t.mem_names[k]] += t.mem_values[k];
        };
    auto launcher = [&](const func::Module& m, std::string_view entry, const func::LaunchConfig& launch,
                        const func::Args& args) {
        out.recorded.emplace_back();
        out.launches.push_back(gpu->launch(device, m, entry, launch, args, options));
    };
    out.passed = kernels::run_case(kernel, device, module, launcher, kernels::Size::small).passed;
    return out;
}

template <class Machine, class Gpu> void check_timeline(std::string_view kernel, core::Cycle interval) {
    INFO(kernel << " every " << interval << " cycles on " << Gpu::variant_name());
    const Run plain = run<Gpu, Machine>(kernel, 0);
    const Run timed = run<Gpu, Machine>(kernel, interval);
    REQUIRE(plain.passed);
    REQUIRE(timed.passed);
    REQUIRE(plain.launches.size() == timed.launches.size());
    core::Cycle gpu_cycle = 0; // the GPU's cycle count runs on across launches
    for (std::size_t i = 0; i < timed.launches.size(); ++i) {
        const LaunchResult& result = timed.launches[i];
        const Recorded& r = timed.recorded[i];
        INFO("launch " << i << " (" << result.kernel << "), " << result.cycles << " cycles");
        // Recording changes nothing.
        CHECK(result.cycles == plain.launches[i].cycles);
        CHECK(result.stats == plain.launches[i].stats);
        // The intervals tile the launch: N cycles each, the last one up to N.
        REQUIRE(!r.bounds.empty());
        CHECK(r.bounds.front().first == gpu_cycle);
        CHECK(r.bounds.back().second == gpu_cycle + result.cycles);
        for (std::size_t k = 0; k < r.bounds.size(); ++k) {
            const core::Cycle length = r.bounds[k].second - r.bounds[k].first;
            if (k + 1 < r.bounds.size()) {
                CHECK(length == interval);
                CHECK(r.bounds[k].second == r.bounds[k + 1].first);
            } else {
                CHECK(length > 0);
                CHECK(length <= interval);
            }
        }
        gpu_cycle += result.cycles;
        // Every counter's increments sum to the launch's figure; a histogram's `.sum` to its sum of sizes.
        std::size_t counters = 0, histograms = 0;
        for (const core::StatEntry& e : result.stats.entries()) {
            INFO(e.name);
            if (e.is_histogram) {
                std::uint64_t sizes = 0;
                for (std::size_t k = 0; k < e.buckets.size(); ++k) sizes += k * e.buckets[k];
                REQUIRE(r.sums.count(e.name + ".sum") == 1);
                CHECK(r.sums.at(e.name + ".sum") == sizes);
                ++histograms;
            } else {
                REQUIRE(r.sums.count(e.name) == 1);
                CHECK(r.sums.at(e.name) == e.value);
                ++counters;
            }
        }
        CHECK(counters + histograms == r.sums.size());
        CHECK(histograms > 0);
        // The per-line counters sum to the launch's instruction counts and stall outcomes (idle has no line).
        REQUIRE(!result.lines.empty());
        CHECK(plain.launches[i].lines.empty());
        timing::LineCounters all;
        for (const auto& line : result.lines) all += line;
        CHECK(all.warp_instructions == result.warp_instructions);
        CHECK(all.thread_instructions == result.thread_instructions);
        for (std::size_t k = 0; k < timing::issue_outcome_count; ++k) {
            const auto outcome = static_cast<timing::IssueOutcome>(k);
            INFO("stall." << timing::name(outcome));
            const std::uint64_t total = result.stats.counter("sm.stall." + std::string(timing::name(outcome)));
            CHECK(all.cycles[k] == (outcome == timing::IssueOutcome::idle ? 0 : total));
        }
        CHECK(all.loads > 0);
        CHECK(all.load_misses <= all.load_accesses);
        CHECK(all.load_latency_cycles >= all.loads);
        // Each SM ticks every cycle of the launch.
        for (std::uint64_t c : r.per_sm_cycles) CHECK(c == result.cycles);
        // Ready warps are at most the resident ones (a scheduler-cycle counts its own pool's ready warps).
        CHECK(result.stats.counter("sm.ready_warp_cycles") <= result.stats.counter("sm.resident_warp_cycles"));
        CHECK(result.stats.counter("sm.ready_warp_cycles") >= result.stats.counter("sm.stall.issued"));
    }
}

} // namespace

TEST_CASE("timeline: intervals tile each launch and sum to its statistics, and recording changes nothing") {
    using Fermi = machines::Fermi;
    using GTX480 = machines::GTX480;
    // Quiet-cycle replay with a const select (GTO), with a stateful one (CCWS), and the full scan of a banked
    // register file (LRR); intervals that divide a launch's cycles unevenly.
    check_timeline<Fermi, Fermi::gpu<sched::GTO, 3>>("atax", 1000);
    check_timeline<Fermi, Fermi::gpu<sched::GTO, 3>>("reduce_shared", 333);
    check_timeline<GTX480, GTX480::gpu<sched::CCWS<>, 4>>("bicg", 1000);
    check_timeline<Fermi, Fermi::gpu<sched::LRR, 2, regfile::BankedRF<4, 4>>>("histogram_shared", 777);
}

// TimingOptions::progress: called after every `progress_interval` cycles of a launch while it runs (counted from the
// launch's start), with the CTAs finished so far; an interval of 0 calls it never.
TEST_CASE("progress reports come every interval of a launch's cycles, with the CTAs finished so far") {
    using Fermi = machines::Fermi;
    using Gpu = Fermi::gpu<sched::GTO, 3>;
    for (const core::Cycle interval : {core::Cycle{0}, core::Cycle{97}, core::Cycle{1000}}) {
        INFO("every " << interval << " cycles");
        func::Device device;
        const kernels::CaseInfo& info = kernels::find_case("reduce_shared");
        const auto module = func::Module::from_file(examples::kernels_dir() + "/ptx/" + std::string(info.ptx_file));
        auto gpu = std::make_unique<Gpu>(Fermi::config<Gpu>());
        struct Report {
            core::Cycle cycles;
            std::uint64_t done, total;
        };
        std::vector<std::vector<Report>> reports;
        std::vector<LaunchResult> results;
        TimingOptions options;
        options.progress_interval = interval;
        options.progress = [&](core::Cycle cycles, std::uint64_t done, std::uint64_t total) {
            reports.back().push_back(Report{cycles, done, total});
        };
        auto launcher = [&](const func::Module& m, std::string_view entry, const func::LaunchConfig& launch,
                            const func::Args& args) {
            reports.emplace_back();
            results.push_back(gpu->launch(device, m, entry, launch, args, options));
        };
        REQUIRE(kernels::run_case("reduce_shared", device, module, launcher, kernels::Size::small).passed);
        std::size_t calls = 0;
        for (std::size_t i = 0; i < results.size(); ++i) {
            INFO("launch " << i << ", " << results[i].cycles << " cycles");
            for (std::size_t k = 0; k < reports[i].size(); ++k) {
                CHECK(reports[i][k].cycles == (k + 1) * interval);
                CHECK(reports[i][k].cycles < results[i].cycles);
                CHECK(reports[i][k].done <= reports[i][k].total);
                if (k > 0) CHECK(reports[i][k].done >= reports[i][k - 1].done);
            }
            // A launch ends in the cycle its last CTA finishes, then drains its writes: the reports stop at most one
            // interval, plus the drain, short of its end.
            if (interval != 0 && results[i].cycles > 2 * interval) CHECK(!reports[i].empty());
            calls += reports[i].size();
        }
        if (interval == 0) CHECK(calls == 0);
        else CHECK(calls > 0);
    }
}
