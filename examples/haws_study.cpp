// Hint-assisted warp scheduling (Gong 2020 Ch. 5) on the kernel corpus: HAWS over GTO on the Southern Islands
// machine (Sec. 5.4.1-5.4.4, Figs. 5.10-5.15) and HAWS over round-robin on the Kepler machine (Sec. 5.4.5, Fig. 5.16).
//
//   usage: haws_study [--size small|large] [--quick] [--jobs N] [--repro FILE] [--kernels a,b] [--quiet]
//   Default: every corpus kernel at its large size on the full machines (32 and 14 SMs).
//   --quick: small inputs on four kernels (checks that every table is produced). --repro FILE: also write the
//   published numbers beside ours as JSON (support/include/gpuarch/support/repro.hpp, tools/repro). Exits non-zero when a run fails.
//
// Hints come from the compiler pass (ir/hint_pass.hpp). The HAWS variants are compiled here only (not in
// gpuarch_support), so that no other program pays for them.
#include <gpuarch/support/cli.hpp>
#include <gpuarch/support/names.hpp>
#include <gpuarch/support/progress.hpp>
#include <gpuarch/support/repro.hpp>
#include <gpuarch/support/run_machine.hpp>

#include <gpuarch/func/host.hpp>
#include <gpuarch/machines.hpp>
#include <gpuarch/sched/gto.hpp>
#include <gpuarch/sched/haws.hpp>
#include <gpuarch/sched/lrr.hpp>

#include <corpus/corpus.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace gpuarch;
namespace repro = examples::repro;

namespace {

using SiBase = machines::SouthernIslands::gpu<sched::GTO>;
using SiHaws = machines::SouthernIslands::gpu<sched::HAWSScheduler<sched::RCU<8>, sched::GTO>>;
using KeplerBase = machines::Kepler::gpu<sched::LRR>;
using KeplerHaws = machines::Kepler::gpu<sched::HAWSScheduler<sched::RCU<8>, sched::LRR>>;

struct Run {
    bool passed = false;
    std::string message;
    std::uint64_t cycles = 0, warp_instructions = 0;
    core::StatsTable stats;
    std::uint64_t counter(const char* name) const { return stats.contains(name) ? stats.counter(name) : 0; }
};

// One corpus case on one HAWS or base GPU, through the examples' shared runner (support/include/gpuarch/support/run_machine.hpp).
template <class Machine, class GpuType> Run run(const std::string& kernel, kernels::Size size) {
    examples::RunRow r = examples::run_on_gpu<Machine, GpuType>("", GpuType::variant_name(), kernel, size, {});
    return Run{r.passed, std::move(r.message), r.cycles, r.warp_instructions, std::move(r.stats)};
}

struct Pair {
    std::string kernel;
    bool memory = false;
    Run base, haws;
    double speedup() const { return haws.cycles == 0 ? 0.0 : double(base.cycles) / double(haws.cycles); }
    double per_episode() const {
        const auto ep = haws.counter("sm.sched.haws.episodes");
        return ep == 0 ? 0.0 : double(haws.counter("sm.sched.haws.hint_issued")) / double(ep);
    }
    static double share(std::uint64_t part, std::uint64_t whole) {
        return whole == 0 ? 0.0 : double(part) / double(whole);
    }
    double alu_share() const {
        return share(haws.counter("sm.sched.haws.hint_alu"), haws.counter("sm.sched.haws.total_alu"));
    }
    double memory_share() const {
        return share(haws.counter("sm.sched.haws.hint_memory"), haws.counter("sm.sched.haws.total_memory"));
    }
    // Scheduler-cycles in which nothing issued and the closest warp waited on a long-latency RAW (Fig. 5.12).
    std::uint64_t long_stalls(const Run& r) const { return r.counter("sm.stall.raw_long_latency"); }
    double long_stall_reduction() const {
        const auto b = long_stalls(base);
        return b == 0 ? 0.0 : 1.0 - double(long_stalls(haws)) / double(b);
    }
};

using repro::pct;
using repro::signed_pct;
std::string fmt(double v) { return repro::fixed(v, 2); }

// Runs base and HAWS for every kernel on `jobs` threads (each run is independent and deterministic).
template <class Machine, class Base, class Haws>
std::vector<Pair> run_machine(const std::vector<std::string>& kernels, kernels::Size size, unsigned jobs,
                              examples::Progress& progress) {
    std::vector<Pair> pairs(kernels.size());
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
        for (std::size_t i = next++; i < 2 * kernels.size(); i = next++) {
            Pair& p = pairs[i / 2];
            p.kernel = kernels[i / 2];
            p.memory = kernels::has_tag(kernels::find_case(p.kernel), "memory");
            if (i % 2 == 0) p.base = run<Machine, Base>(p.kernel, size);
            else p.haws = run<Machine, Haws>(p.kernel, size);
            const Run& done = i % 2 == 0 ? p.base : p.haws;
            progress.step((i % 2 == 0 ? Base::variant_name() : Haws::variant_name()) + " " + kernels[i / 2],
                          done.passed);
        }
    };
    std::vector<std::thread> threads;
    for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(worker);
    worker();
    for (auto& t : threads) t.join();
    return pairs;
}

struct Summary {
    double memory_mean = 0, memory_max = 0, compute_mean = 0, all_mean = 0, per_episode = 0, stall_reduction_memory = 0;
    double per_stall = 0; // hint-issued instructions per long-latency stall point, with or without a chain
    std::string max_kernel;
    unsigned memory_count = 0, compute_count = 0;
};

// Arithmetic means of speedups, as the thesis reports averages ("on average").
Summary summarize(const std::vector<Pair>& pairs) {
    Summary s;
    double mem = 0, comp = 0, all = 0, stall = 0;
    std::uint64_t episodes = 0, issued = 0;
    for (const auto& p : pairs) {
        const double g = p.speedup() - 1.0;
        all += g;
        episodes += p.haws.counter("sm.sched.haws.episodes");
        issued += p.haws.counter("sm.sched.haws.hint_issued");
        if (p.memory) {
            mem += g;
            stall += p.long_stall_reduction();
            ++s.memory_count;
            if (s.max_kernel.empty() || g > s.memory_max) {
                s.memory_max = g;
                s.max_kernel = p.kernel;
            }
        } else {
            comp += g;
            ++s.compute_count;
        }
    }
    if (s.memory_count) {
        s.memory_mean = mem / s.memory_count;
        s.stall_reduction_memory = stall / s.memory_count;
    }
    if (s.compute_count) s.compute_mean = comp / s.compute_count;
    if (!pairs.empty()) s.all_mean = all / double(pairs.size());
    s.per_episode = episodes == 0 ? 0.0 : double(issued) / double(episodes);
    std::uint64_t unchained = 0;
    for (const auto& p : pairs) unchained += p.haws.counter("sm.sched.haws.stalls_without_chain");
    s.per_stall = episodes + unchained == 0 ? 0.0 : double(issued) / double(episodes + unchained);
    return s;
}

std::string table(const char* title, const char* base_name, const std::vector<Pair>& pairs) {
    std::ostringstream out;
    out << "### " << title << "\n\n"
        << "| kernel | type | " << base_name << " cycles | HAWS cycles | speedup | episodes | instr./episode | "
        << "ALU in hint mode | LL memory in hint mode | LL-RAW stalls " << base_name << " | LL-RAW stalls HAWS | "
        << "change | copies | flushed | RCU full |\n"
        << "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    for (const auto& p : pairs)
        out << "| " << p.kernel << " | " << (p.memory ? "M" : "C") << " | " << p.base.cycles << " | " << p.haws.cycles
            << " | " << signed_pct(p.speedup() - 1.0) << " | " << p.haws.counter("sm.sched.haws.episodes") << " | "
            << fmt(p.per_episode()) << " | " << pct(p.alu_share(), 2) << " | " << pct(p.memory_share(), 2) << " | "
            << p.long_stalls(p.base) << " | " << p.long_stalls(p.haws) << " | " << signed_pct(-p.long_stall_reduction())
            << " | " << p.haws.counter("sm.sched.haws.copies") << " | " << p.haws.counter("sm.sched.haws.flushed")
            << " | " << p.haws.counter("sm.sched.haws.rcu_full") << " |\n";
    const Summary s = summarize(pairs);
    out << "\nMemory-bound (M, " << s.memory_count << " kernels): mean speedup " << signed_pct(s.memory_mean)
        << ", max " << signed_pct(s.memory_max) << " (" << s.max_kernel << "), mean long-latency RAW stall change "
        << signed_pct(-s.stall_reduction_memory) << ". Compute-bound (C, " << s.compute_count << "): mean speedup "
        << signed_pct(s.compute_mean) << ". Instructions per hint episode, all kernels: " << fmt(s.per_episode)
        << "; per long-latency stall point (episodes plus stalls at instructions without a chain): " << fmt(s.per_stall)
        << ".\n\n";
    return out.str();
}

} // namespace

int main(int argc, char** argv) {
    bool quick = false;
    kernels::Size size = kernels::Size::large;
    unsigned jobs = std::max(1U, std::thread::hardware_concurrency());
    std::string repro_file;
    std::vector<std::string> selected;
    bool quiet = false;
    namespace cli = examples::cli;
    CLI::App app{"Gong 2020 Ch. 5 (hint-assisted warp scheduling) on the kernel corpus: HAWS over GTO on Southern "
                 "Islands and over round-robin on Kepler; prints the thesis's figures as Markdown.",
                 "haws_study"};
    cli::add_size(app, size);
    app.add_flag("--quick", quick, "small inputs on four kernels: checks that every table is produced");
    cli::add_jobs(app, jobs);
    app.add_option("--repro", repro_file, "also write the published numbers beside ours as JSON (tools/repro)")
        ->type_name("FILE");
    cli::add_names(app, "--kernels", selected, examples::corpus_kernel_names(), "corpus kernels (default: all)");
    cli::add_quiet(app, quiet);
    cli::describe_exit_codes(app, cli::exit_codes("a simulation failed its reference check, or FILE could not be "
                                                  "written"));
    if (const auto status = cli::parse(app, argc, argv)) return *status;
    if (quick) {
        size = kernels::Size::small;
        if (selected.empty()) selected = {"sgemm_naive", "spmv_csr_scalar", "hotspot", "mandelbrot"};
    }
    if (selected.empty())
        for (const auto& info : kernels::corpus_cases()) selected.emplace_back(info.name);

    try {
        std::vector<Pair> si, kepler;
        {
            examples::Progress progress("haws_study", 4 * selected.size(), quiet);
            si = run_machine<machines::SouthernIslands, SiBase, SiHaws>(selected, size, jobs, progress);
            kepler = run_machine<machines::Kepler, KeplerBase, KeplerHaws>(selected, size, jobs, progress);
        }
        bool ok = true;
        for (const auto* pairs : {&si, &kepler})
            for (const auto& p : *pairs)
                for (const Run* r : {&p.base, &p.haws})
                    if (!r->passed) {
                        std::cerr << "FAILED " << p.kernel << ": " << r->message << "\n";
                        ok = false;
                    }

        const std::string size_name(kernels::size_name(size));
        const std::string si_config = "SouthernIslands x" + std::to_string(SiHaws::sm_count) +
                                      ", HAWS<RCU<8>,GTO> vs GTO, compiler hints, corpus " + size_name;
        const std::string kepler_config = "Kepler x" + std::to_string(KeplerHaws::sm_count) +
                                          ", HAWS<RCU<8>,LRR> vs LRR, compiler hints, corpus " + size_name;
        std::string tables = table("Southern Islands: HAWS over GTO (Gong 2020 Figs. 5.10-5.15)", "GTO", si) +
                             table("Kepler: HAWS over round-robin (Gong 2020 Fig. 5.16)", "LRR", kepler);
        const auto cost = sched::haws_hardware_cost();
        tables += "Hardware cost per SM (Gong 2020 Sec. 5.3.6, 40 warps, RCU depth 8): RCU " +
                  std::to_string(cost.rcu_bits) + " bits, SIMT-stack copy " + std::to_string(cost.simt_copy_bits) +
                  " bits, rename tables " + std::to_string(cost.rename_bits) + " bits, total " +
                  std::to_string(cost.total_bytes()) + " bytes = " + fmt(double(cost.total_bytes()) / 1024.0) +
                  " KiB.\n";
        std::cout << "## HAWS study (" << size_name << " inputs)\n\n" << tables;

        const Summary s = summarize(si), k = summarize(kepler);
        repro::Report report{"haws", "Gong 2020", "Hint-assisted warp scheduling (HAWS)", {}, tables, {}};
        report.add("Fig. 5.10 memory-intensive average speedup over GTO (SI)", "+14.6%", signed_pct(s.memory_mean),
                   si_config + ", memory-tagged kernels", "arithmetic mean");
        report.add("Fig. 5.10 maximum speedup over GTO (SI)", "+34.2%",
                   signed_pct(s.memory_max) + " (" + s.max_kernel + ")", si_config + ", memory-tagged kernels",
                   "thesis: BS");
        report.add("Fig. 5.10 non-memory-intensive average speedup (SI)", "+2.3%", signed_pct(s.compute_mean),
                   si_config + ", compute-tagged kernels", "arithmetic mean");
        report.add("Fig. 5.13 instructions per HAWS switch (SI)", "0.55", fmt(s.per_episode), si_config,
                   "hint-issued instructions / episodes, all kernels");
        report.add("Fig. 5.13 instructions per long-latency stall point (SI)", "0.55", fmt(s.per_stall), si_config,
                   "hint-issued instructions / (episodes + stalls at instructions without a hint chain)");
        report.add("Fig. 5.12 long-latency RAW stall change, memory-intensive (SI)", "up to -14.9%",
                   signed_pct(-s.stall_reduction_memory), si_config + ", memory-tagged kernels",
                   "mean of per-kernel changes in stall.raw_long_latency");
        report.add("Fig. 5.16 average speedup over round-robin (Kepler)", "+15%", signed_pct(k.all_mean, 0),
                   kepler_config, "thesis: 5 hand-hinted workloads; here every kernel, compiler hints");
        report.add("Sec. 5.3.6 HAWS storage per SM", "7.34 KBytes",
                   fmt(double(cost.total_bytes()) / 1024.0) + " KBytes",
                   "40 warps, RCU<8>, 8-entry SIMT copy (64-bit mask), 8-entry scalar + vector rename tables",
                   "computed from the thesis's field widths");
        repro::Plot plot{"haws_speedup.png",
                         "HAWS speedup over its base scheduler (Gong 2020 Figs. 5.10, 5.16)",
                         "bar",
                         "speedup",
                         {},
                         {}};
        std::vector<double> si_speedup, kepler_speedup;
        for (std::size_t i = 0; i < si.size(); ++i) {
            plot.labels.push_back(si[i].kernel);
            si_speedup.push_back(si[i].speedup());
            kepler_speedup.push_back(kepler[i].speedup());
        }
        plot.series = {{"SI: HAWS/GTO", si_speedup}, {"Kepler: HAWS/LRR", kepler_speedup}};
        report.plots.push_back(plot);
        return report.finish("haws_study", repro_file, ok);
    } catch (const std::exception& e) {
        std::cerr << "haws_study: " << e.what() << "\n";
        return 1;
    }
}
