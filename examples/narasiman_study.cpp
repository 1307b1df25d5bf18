// Narasiman et al. 2010 ("Improving GPU Performance via Large Warps and Two-Level Warp Scheduling") on the kernel
// corpus: the barrel-processing core of Table 1 (barrel::Narasiman2010) with round-robin, the Large Warp
// Microarchitecture, two-level fetch scheduling and both combined, plus the paper's sweeps. Prints Markdown tables
// (docs/large_warps.md reproduces them and says where and why they differ from the paper).
//
//   narasiman_study [--size small|large] [--cta-threads N] [--jobs N] [--quick] [--repro FILE] [--kernels a,b]
//                   [--quiet]
//
//   --size         corpus input size (default large: every case runs many waves of 1024 threads)
//   --cta-threads  re-block each launch into CTAs of N threads (default 512; 0 keeps the drivers' CTAs). The paper's
//                  workloads have no CTAs: 1024 threads form 4 large warps of 256 or 2 of 512. A CUDA large warp
//                  cannot span CTAs, so 128-thread CTAs would leave half of every 256-thread large warp empty. Every
//                  case studied indexes its data by global thread index and uses no shared memory or barrier, so
//                  the CTA size is free; the corpus drivers check every output against the CPU reference.
//   --jobs         simulations run in parallel (default 2)
//   --quick        small inputs and four cases (plus coin): checks that every table is produced (CTest repro.quick)
//   --repro FILE   also write the published numbers beside ours as JSON (support/include/gpuarch/support/repro.hpp; tools/repro)
//   --kernels      corpus cases and/or coin (default: the branch- or memory-divergent and memory-bound cases that
//                  can be re-blocked, see `study_cases`)
//   --quiet        no progress on stderr
//
// Figures reproduced: Fig. 9 (IPC of RR, LWM, 2Lev, LWM+2Lev), Fig. 10 / Table 2 (FU utilization, active threads
// per retired warp, the paper's intensity classes), Fig. 11 (large-warp size 32..512), Fig. 12 (LWM optimizations),
// Fig. 13 (fetch-group size 1..32), Fig. 14 (the best fetch group per warp size).
//
// One case is not from the corpus and is reported apart: "coin", a compute-bound kernel whose threads take a
// data-dependent branch with uncorrelated outcomes (a quarter of them a long path), the regime of the paper's
// branch-intensive benchmarks (blackjack, sort: high branch intensity, low idle-FU intensity, Table 2), which the
// corpus lacks. Its output is checked against a CPU reference like every corpus case.
#include <gpuarch/barrel/narasiman_machine.hpp>
#include <gpuarch/func/host.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sched/two_level.hpp>

#include "corpus/corpus.hpp"
#include "narasiman_study.hpp"
#include <gpuarch/support/cli.hpp>
#include <gpuarch/support/progress.hpp>
#include <gpuarch/support/repro.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#ifndef GPUARCH_KERNELS_DIR
#error "GPUARCH_KERNELS_DIR must name the kernels/ directory (the CMake build defines it)"
#endif

namespace {
using namespace gpuarch;
using namespace gpuarch::examples::narasiman;
namespace repro = examples::repro;

struct Variant {
    std::string_view label;
    Result (*run)(std::string_view, const Options&);
};

// Every configuration the study runs. "RR" is the paper's baseline: 32 warps of 32 threads, round-robin fetch.
const std::array<Variant, 16> variants{{
    {"RR", &run_case<Machine<32, LRR>>},
    {"LWM64", &run_case<Machine<64, LRR>>},
    {"LWM128", &run_case<Machine<128, LRR>>},
    {"LWM256", &run_case<Machine<256, LRR>>},
    {"LWM512", &run_case<Machine<512, LRR>>},
    {"2Lev1", &run_case<Machine<32, TwoLevel<1>>>},
    {"2Lev2", &run_case<Machine<32, TwoLevel<2>>>},
    {"2Lev4", &run_case<Machine<32, TwoLevel<4>>>},
    {"2Lev8", &run_case<Machine<32, TwoLevel<8>>>},
    {"2Lev16", &run_case<Machine<32, TwoLevel<16>>>},
    {"LWM256-nomemopt", &run_case<Machine<256, LRR, frontend::RowWiseGlobalMemory<false>>>},
    {"LWM256-nojumpopt", &run_case<Machine<256, LRR, frontend::SingleSubWarpJumps<false>>>},
    {"LWM64+2Lev4", &run_case<Machine<64, TwoLevel<4>>>},
    {"LWM128+2Lev2", &run_case<Machine<128, TwoLevel<2>>>},
    {"LWM256+2Lev2", &run_case<Machine<256, TwoLevel<2>>>},
    {"LWM512+2Lev1", &run_case<Machine<512, TwoLevel<1>>>},
}};

using Results = std::map<std::pair<std::string, std::string>, Result>; // (variant, case)

Results run_all(const Options& opt) {
    std::vector<std::pair<const Variant*, std::string>> work;
    for (const std::string& c : opt.cases)
        for (const Variant& v : variants) work.emplace_back(&v, c);
    Results results;
    std::mutex lock;
    std::atomic<std::size_t> next{0};
    examples::Progress progress("narasiman_study", work.size(), opt.quiet);
    auto worker = [&] {
        for (std::size_t i = next++; i < work.size(); i = next++) {
            const auto& [variant, name] = work[i];
            Result r = variant->run(name, opt);
            if (!r.passed) progress.note("FAILED: " + std::string(variant->label) + " on " + name + ": " + r.message);
            progress.step(std::string(variant->label) + " " + name, r.passed);
            const std::lock_guard<std::mutex> guard(lock);
            results.emplace(std::make_pair(std::string(variant->label), name), std::move(r));
        }
    };
    std::vector<std::thread> threads;
    for (unsigned j = 0; j < std::max(1U, opt.jobs); ++j) threads.emplace_back(worker);
    for (auto& t : threads) t.join();
    return results;
}

// ------------------------------------------------------------------------------------------- formatting
using repro::fixed;

struct Table {
    const Results& results;
    const std::vector<std::string>& cases;
    std::ostream& os; // the Markdown goes here (stdout and, with --repro, the JSON's tables_markdown)

    const Result& at(std::string_view variant, const std::string& c) const {
        return results.at(std::make_pair(std::string(variant), c));
    }
    bool ok(const std::string& c, std::initializer_list<std::string_view> vs) const {
        for (auto v : vs)
            if (!at(v, c).passed) return false;
        return at("RR", c).passed;
    }
    double speedup(std::string_view variant, const std::string& c) const {
        return double(at("RR", c).cycles) / double(at(variant, c).cycles);
    }

    // Geometric and arithmetic mean speedup of `variant` over RR across the cases both ran correctly.
    std::pair<double, double> means(std::string_view variant) const {
        double log_sum = 0, sum = 0;
        unsigned n = 0;
        for (const std::string& c : cases) {
            if (!at("RR", c).passed || !at(variant, c).passed) continue;
            log_sum += std::log(speedup(variant, c));
            sum += speedup(variant, c);
            ++n;
        }
        return n == 0 ? std::pair{0.0, 0.0} : std::pair{std::exp(log_sum / n), sum / n};
    }

    // Speedups over RR per case, then the geometric and arithmetic means (the paper does not say which it uses).
    void speedups(std::string_view title, const std::vector<std::pair<std::string_view, std::string_view>>& columns,
                  bool with_rr_ipc) const {
        os << "\n### " << title << "\n\n| case |";
        if (with_rr_ipc) os << " RR IPC |";
        for (auto& [v, head] : columns) os << ' ' << head << " |";
        os << "\n|---|";
        if (with_rr_ipc) os << "---:|";
        for (std::size_t i = 0; i < columns.size(); ++i) os << "---:|";
        os << '\n';
        std::vector<double> log_sum(columns.size(), 0.0), sum(columns.size(), 0.0);
        unsigned n = 0;
        for (const std::string& c : cases) {
            bool good = at("RR", c).passed;
            for (auto& col : columns) good = good && at(col.first, c).passed;
            os << "| " << c << " |";
            if (with_rr_ipc) os << ' ' << fixed(at("RR", c).ipc(), 2) << " |";
            for (std::size_t i = 0; i < columns.size(); ++i) {
                if (!at(columns[i].first, c).passed) {
                    os << " FAILED |";
                    continue;
                }
                const double s = speedup(columns[i].first, c);
                os << ' ' << fixed(s, 3) << " |";
                if (good) {
                    log_sum[i] += std::log(s);
                    sum[i] += s;
                }
            }
            os << '\n';
            n += good ? 1 : 0;
        }
        os << "| **geometric mean** |";
        if (with_rr_ipc) os << " |";
        for (std::size_t i = 0; i < columns.size(); ++i)
            os << " **" << fixed(n ? std::exp(log_sum[i] / n) : 0.0, 3) << "** |";
        os << "\n| arithmetic mean |";
        if (with_rr_ipc) os << " |";
        for (std::size_t i = 0; i < columns.size(); ++i) os << ' ' << fixed(n ? sum[i] / n : 0.0, 3) << " |";
        os << '\n';
    }

    // Fig. 1 / 10: share of active cycles with k lanes starting work, bucketed; Table 2's classes on RR.
    void utilization(const std::vector<std::string_view>& vs) const {
        os << "\n### FU utilization (Fig. 1 / Fig. 10) and the Table 2 classes\n\n"
              "Share of active cycles by lanes starting work in the execute stage (0 = idle FUs), and the "
              "average active threads per retired (sub-)warp. Classes from RR with the paper's thresholds: "
              "branch intensity by active threads per warp (>30 low, 20-30 medium, <20 high), idle-FU intensity "
              "by idle cycles (<20% low, 20-40% medium, >40% high).\n\n"
              "| case | config | idle | 1-8 | 9-16 | 17-24 | 25-31 | 32 | threads/warp | classes (RR) |\n"
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
        for (const std::string& c : cases) {
            for (auto v : vs) {
                const Result& r = at(v, c);
                if (!r.passed) continue;
                const auto& h = r.stats.histogram("sm.fu_active_lanes");
                const double cycles = double(r.c("sm.active_cycles"));
                auto share = [&](std::size_t lo, std::size_t hi) {
                    std::uint64_t s = 0;
                    for (std::size_t k = lo; k <= hi && k < h.size(); ++k) s += h[k];
                    return fixed(100.0 * double(s) / cycles, 1);
                };
                const double per_warp = double(r.c("sm.retired_active_lanes")) / double(r.c("sm.retired_subwarps"));
                os << "| " << c << " | " << v << " | " << share(0, 0) << " | " << share(1, 8) << " | " << share(9, 16)
                   << " | " << share(17, 24) << " | " << share(25, 31) << " | " << share(32, 32) << " | "
                   << fixed(per_warp, 1) << " | ";
                if (v == "RR") {
                    const double idle = double(h[0]) / cycles;
                    os << "branch "
                       << (per_warp > 30    ? "low"
                           : per_warp >= 20 ? "medium"
                                            : "high")
                       << ", idle FU "
                       << (idle < 0.2    ? "low"
                           : idle <= 0.4 ? "medium"
                                         : "high");
                }
                os << " |\n";
            }
        }
    }

    // The mechanisms at work: sub-warping, fetch stalls, the optimizations, fetch-group switches.
    void mechanisms() const {
        os << "\n### Mechanism statistics\n\n"
              "sub-warps/instr: sub-warps per large-warp instruction; sub-warping stall: share of cycles the "
              "sub-warping logic held fetch; jump saved: sub-warping cycles the single-sub-warp jump saved (share "
              "of cycles); row-wise extra: sub-warps the row-wise global-memory cut added over packing; switches: "
              "fetch-group switches on a stall / premature, per 1000 cycles; DRAM row misses: activates per 100 DRAM "
              "requests for RR / LWM256 / 2Lev8 / LWM256+2Lev2 (FCFS open-row: each costs a 300-cycle row "
              "conflict).\n\n"
              "| case | LWM256 sub-warps/instr | LWM256 sub-warping stall | jump saved | row-wise extra | "
              "2Lev8 switches stall/premature | LWM256+2Lev2 switches stall/premature | DRAM row misses |\n"
              "|---|---:|---:|---:|---:|---:|---:|---|\n";
        for (const std::string& c : cases) {
            if (!ok(c, {"LWM256", "2Lev8", "LWM256+2Lev2"})) continue;
            const Result& l = at("LWM256", c);
            const Result& t = at("2Lev8", c);
            const Result& lt = at("LWM256+2Lev2", c);
            const double cyc = double(l.cycles);
            auto per_k = [](const Result& r, std::string_view n) {
                return fixed(1000.0 * double(r.c(n)) / double(r.cycles), 2);
            };
            os << "| " << c << " | "
               << fixed(double(l.c("sm.warp_instructions")) / double(l.c("sm.large_warp_instructions")), 2) << " | "
               << fixed(100.0 * double(l.c("sm.fetch.subwarping_stall_cycles")) / cyc, 1) << "% | "
               << fixed(100.0 * double(l.c("sm.jump.cycles_saved")) / cyc, 1) << "% | "
               << l.c("sm.row_wise.extra_subwarps") << " | " << per_k(t, "sm.sched.group_switches_on_stall") << " / "
               << per_k(t, "sm.sched.group_switches_premature") << " | "
               << per_k(lt, "sm.sched.group_switches_on_stall") << " / "
               << per_k(lt, "sm.sched.group_switches_premature") << " | ";
            bool first = true;
            for (auto v : {"RR", "LWM256", "2Lev8", "LWM256+2Lev2"}) {
                const Result& r = at(v, c);
                const double requests = double(r.c("mem.dram_reads") + r.c("mem.dram_writes"));
                os << (first ? "" : " / ")
                   << (requests > 0 ? fixed(100.0 * double(r.c("mem.dram_activates")) / requests, 1) : "-");
                first = false;
            }
            os << " |\n";
        }
    }
};

// The --quick cases: one of each kind the study covers (branch-divergent, memory-divergent, strided, memory-bound
// coherent), small inputs. Enough to check that every table is produced, not to reproduce the figures.
constexpr std::array<std::string_view, 4> quick_cases{"spmv_csr_scalar", "mvt", "transpose_naive", "saxpy"};

// The published numbers (Narasiman 2010 Sec. 6, digest Sec. 4) beside ours. The paper does not say whether its
// averages are arithmetic or geometric; "ours" is the geometric mean and the note gives the arithmetic one.
void add_repro_rows(repro::Report& report, const Table& t, const Table* regime, const std::string& config) {
    auto mean_row = [&](std::string item, std::string_view variant, std::string published) {
        const auto [geo, arith] = t.means(variant);
        report.add(std::move(item), std::move(published), repro::gain_pct(geo), config,
                   "geometric mean over the cases; arithmetic " + repro::gain_pct(arith));
    };
    mean_row("Fig. 9 / Sec. 6.1: LWM (256-thread large warps) average speedup over RR", "LWM256", "+7.6%");
    mean_row("Fig. 9 / Sec. 6.1: two-level scheduling (2Lev8) average speedup over RR", "2Lev8", "+10.1%");
    mean_row("Fig. 9 / Sec. 6.1: LWM256+2Lev2 average speedup over RR", "LWM256+2Lev2", "+17.0%");
    auto best_of = [&](std::vector<std::pair<std::string_view, std::string>> options) {
        std::string best;
        double value = 0;
        for (auto& [variant, label] : options)
            if (const double g = variant == "RR" ? 1.0 : t.means(variant).first; g > value) value = g, best = label;
        return best;
    };
    report.add("Fig. 11: best large-warp size under round-robin", "256",
               best_of({{"RR", "32"}, {"LWM64", "64"}, {"LWM128", "128"}, {"LWM256", "256"}, {"LWM512", "512"}}),
               config, "geometric means over the cases");
    report.add("Fig. 11: warp size 512 against 256", "\"slightly worse\"",
               repro::signed_pct(t.means("LWM512").first / t.means("LWM256").first - 1.0), config,
               "ratio of the geometric mean speedups");
    report.add("Fig. 12: the unconditional-control-flow (jump) optimization", "about 1%",
               repro::signed_pct(t.means("LWM256").first / t.means("LWM256-nojumpopt").first - 1.0), config,
               "LWM256 against LWM256 without it");
    report.add("Fig. 12: the memory-divergence (row-wise) optimization", "\"not much benefit\"",
               repro::signed_pct(t.means("LWM256").first / t.means("LWM256-nomemopt").first - 1.0), config,
               "LWM256 against LWM256 without it");
    report.add(
        "Fig. 13: best fetch-group size on 32 baseline warps", "8",
        best_of({{"2Lev1", "1"}, {"2Lev2", "2"}, {"2Lev4", "4"}, {"2Lev8", "8"}, {"2Lev16", "16"}, {"RR", "32"}}),
        config, "geometric means over the cases");
    report.add("Fig. 14: best warp size with its pipeline-filling fetch group", "LWM256+2Lev2",
               best_of({{"2Lev8", "Warp32+2Lev8"},
                        {"LWM64+2Lev4", "LWM64+2Lev4"},
                        {"LWM128+2Lev2", "LWM128+2Lev2"},
                        {"LWM256+2Lev2", "LWM256+2Lev2"},
                        {"LWM512+2Lev1", "LWM512+2Lev1"}}),
               config, "geometric means over the cases");
    if (regime != nullptr)
        report.add("Fig. 9: LWM on the compute-bound branch-intensive regime (paper: blackjack, sort)",
                   "\"significantly improves performance\"", repro::gain_pct(regime->means("LWM256").first),
                   config + "; the synthetic \"coin\" kernel (not in the corpus)");
}

repro::Plot speedup_plot(const Table& t, std::string file, std::string title,
                         const std::vector<std::pair<std::string_view, std::string>>& series) {
    repro::Plot p{std::move(file), std::move(title), "bar", "speedup over RR", {}, {}};
    for (const std::string& c : t.cases) p.labels.push_back(c);
    for (auto& [variant, name] : series) {
        std::vector<double> v;
        for (const std::string& c : t.cases)
            v.push_back(t.at("RR", c).passed && t.at(variant, c).passed ? t.speedup(variant, c) : 0.0);
        p.series.emplace_back(name, std::move(v));
    }
    return p;
}

repro::Plot sweep_plot(const Table& t, std::string file, std::string title, std::string xlabel_series,
                       const std::vector<std::pair<std::string_view, std::string>>& points) {
    repro::Plot p{std::move(file), std::move(title), "line", "geometric-mean speedup over RR", {}, {}};
    std::vector<double> v;
    for (auto& [variant, label] : points) {
        p.labels.push_back(label);
        v.push_back(variant == "RR" ? 1.0 : t.means(variant).first);
    }
    p.series.emplace_back(std::move(xlabel_series), std::move(v));
    return p;
}
} // namespace

int main(int argc, char** argv) {
    namespace cli = examples::cli;
    Options opt;
    bool quick = false;
    std::string repro_file;
    CLI::App app{"Narasiman 2010 (large warps, two-level warp scheduling) on the kernel corpus: prints the paper's "
                 "figures as Markdown tables.",
                 "narasiman_study"};
    std::vector<std::string> valid_cases{"coin"};
    for (const kernels::CaseInfo& c : kernels::corpus_cases()) valid_cases.emplace_back(c.name);
    cli::add_size(app, opt.size);
    app.add_option("--cta-threads", opt.cta_threads,
                   "re-block each launch into CTAs of N threads; 0 keeps the drivers' CTAs (default 512)")
        ->type_name("N");
    cli::add_jobs(app, opt.jobs);
    app.add_flag("--quick", quick, "small inputs and four cases (plus coin): checks that every table is produced");
    app.add_option("--repro", repro_file, "also write the published numbers beside ours as JSON (tools/repro)")
        ->type_name("FILE");
    cli::add_names(app, "--kernels", opt.cases, valid_cases,
                   "corpus cases and/or coin (default: the divergent and memory-bound cases that can be re-blocked)");
    cli::add_quiet(app, opt.quiet);
    cli::describe_exit_codes(app, cli::exit_codes("a simulation failed its reference check, or FILE could not be "
                                                  "written"));
    if (const auto status = cli::parse(app, argc, argv)) return *status;
    if (quick) opt.size = kernels::Size::small;
    if (opt.cases.empty()) {
        if (quick)
            for (auto c : quick_cases) opt.cases.emplace_back(c);
        else
            for (auto c : study_cases) opt.cases.emplace_back(c);
    }
    // The corpus cases make the tables; "coin" (if run) is reported apart.
    std::vector<std::string> corpus_cases, regime_cases;
    for (const std::string& c : opt.cases) (c == "coin" ? regime_cases : corpus_cases).push_back(c);
    if (regime_cases.empty()) opt.cases.emplace_back("coin"), regime_cases.emplace_back("coin");

    const auto start = std::chrono::steady_clock::now();
    const Results results = run_all(opt);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    std::ostringstream md;
    md << "## Narasiman 2010 on the corpus\n\nMachine: barrel::Narasiman2010 (" << Machine<32, LRR>::variant_name()
       << "), size " << kernels::size_name(opt.size) << ", CTAs of "
       << (opt.cta_threads == 0 ? std::string("the drivers' size") : std::to_string(opt.cta_threads) + " threads")
       << ". Speedup = RR cycles / variant cycles (the thread-instruction count is the same in every variant).\n";
    const std::string config =
        "barrel::Narasiman2010 (1024 threads, 32-lane barrel core, Table 1), " +
        std::string(kernels::size_name(opt.size)) + " inputs, " + std::to_string(corpus_cases.size()) +
        " corpus cases, CTAs of " +
        (opt.cta_threads == 0 ? std::string("the drivers' size") : std::to_string(opt.cta_threads) + " threads");
    repro::Report report{"narasiman", "Narasiman 2010", "Large warps and two-level warp scheduling", {}, {}, {}};
    const Table regime{results, regime_cases, md};
    if (!corpus_cases.empty()) {
        const Table t{results, corpus_cases, md};
        t.speedups("Fig. 9: large warps, two-level scheduling, both (speedup over RR)",
                   {{"LWM256", "LWM256"}, {"2Lev8", "2Lev8"}, {"LWM256+2Lev2", "LWM256+2Lev2"}}, true);
        t.speedups("Fig. 11: large-warp size (round-robin)",
                   {{"LWM64", "64"}, {"LWM128", "128"}, {"LWM256", "256"}, {"LWM512", "512"}}, false);
        t.speedups("Fig. 13: fetch-group size on 32 baseline warps (32 = RR by definition)",
                   {{"2Lev1", "1"}, {"2Lev2", "2"}, {"2Lev4", "4"}, {"2Lev8", "8"}, {"2Lev16", "16"}}, false);
        t.speedups(
            "Fig. 12: LWM optimizations (LWM256, round-robin)",
            {{"LWM256", "both"}, {"LWM256-nomemopt", "no row-wise memory"}, {"LWM256-nojumpopt", "no jump opt."}},
            false);
        t.speedups("Fig. 14: each warp size with the smallest fetch group that fills the 7-stage pipeline",
                   {{"2Lev8", "Warp32+2Lev8"},
                    {"LWM64+2Lev4", "LWM64+2Lev4"},
                    {"LWM128+2Lev2", "LWM128+2Lev2"},
                    {"LWM256+2Lev2", "LWM256+2Lev2"},
                    {"LWM512+2Lev1", "LWM512+2Lev1"}},
                   false);
        t.utilization({"RR", "LWM256", "2Lev8", "LWM256+2Lev2"});
        t.mechanisms();
        add_repro_rows(report, t, &regime, config);
        report.plots.push_back(
            speedup_plot(t, "narasiman_fig9.png", "Narasiman 2010 Fig. 9 on the corpus: speedup over RR",
                         {{"LWM256", "LWM256"}, {"2Lev8", "2Lev8"}, {"LWM256+2Lev2", "LWM256+2Lev2"}}));
        const std::vector<std::pair<std::string_view, std::string>> sizes{
            {"RR", "32"}, {"LWM64", "64"}, {"LWM128", "128"}, {"LWM256", "256"}, {"LWM512", "512"}};
        repro::Plot fig11 = sweep_plot(t, "narasiman_fig11.png",
                                       "Narasiman 2010 Fig. 11: large-warp size (round-robin)", "corpus", sizes);
        fig11.series.push_back(sweep_plot(regime, "", "", "coin (branch-intensive regime)", sizes).series.front());
        report.plots.push_back(std::move(fig11));
        report.plots.push_back(sweep_plot(
            t, "narasiman_fig13.png", "Narasiman 2010 Fig. 13: fetch-group size (32 warps)", "corpus",
            {{"2Lev1", "1"}, {"2Lev2", "2"}, {"2Lev4", "4"}, {"2Lev8", "8"}, {"2Lev16", "16"}, {"RR", "32"}}));
    }

    md << "\n## Regime check: compute-bound, uncorrelated branch divergence (not a corpus kernel)\n\n"
          "\"coin\": every thread takes a 16-instruction path a quarter of the time and a 4-instruction path "
          "otherwise, decided by its own LCG (no memory traffic in the loop). This is the regime of the paper's "
          "branch-intensive benchmarks, which the corpus lacks.\n";
    regime.speedups("coin: large warps, two-level scheduling, both",
                    {{"LWM256", "LWM256"}, {"2Lev8", "2Lev8"}, {"LWM256+2Lev2", "LWM256+2Lev2"}}, true);
    regime.speedups("coin: large-warp size", {{"LWM64", "64"}, {"LWM128", "128"}, {"LWM256", "256"}, {"LWM512", "512"}},
                    false);
    regime.utilization({"RR", "LWM256"});
    std::cout << md.str();

    unsigned failures = 0;
    for (const auto& [key, r] : results) failures += r.passed ? 0 : 1;
    std::cout << "\n"
              << results.size() << " simulations (" << variants.size() << " configurations x " << opt.cases.size()
              << " cases), " << failures << " failed, " << fixed(seconds, 1) << " s with " << opt.jobs << " jobs.\n";
    // The summary line (host seconds) is printed after the tables and kept out of the JSON.
    report.tables_markdown = md.str();
    return report.finish("narasiman_study", repro_file, failures == 0);
}
