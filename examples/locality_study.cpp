// Hint-assisted locality-aware scheduling (Gong 2020 Ch. 6) on the Kepler machine (14 SMs, Table 6.3 memory):
// speedup over round-robin, cross-SM duplicate MSHR allocations (2000-cycle window, Sec. 6.1) and requests per MSHR
// entry, for the corpus kernels in the thesis's three locality classes (Table 6.2 analogues).
//
//   usage: locality_study [--size small|large] [--jobs N] [--quick] [--repro FILE] [--kernels a,b] [--quiet]
//
// Per kernel, three runs on the same inputs:
//   RR        machines::Kepler::gpu<sched::LRR>, launch hint 0, one CTA per SM per turn (clustered placement with
//             cluster_ctas = 1, which is exact round-robin; the default round_robin dispatcher of gpu.hpp skips SMs
//             within a pass, see docs/locality.md), loose round-robin warps: the thesis baseline (Table 6.3
//             "Scheduler Policy: Round Robin");
//   cluster   the same scheduler with the kernel's launch hint: adjacent CTAs on one SM, warps still round-robin
//             (isolates the CTA dispatcher);
//   locality  machines::Kepler::gpu<sched::LocalityTwoLevel<>> with the hint: the dispatcher plus hint-specific
//             two-level warp grouping (the thesis's scheme).
// --quick: small inputs on sgemm_naive, jacobi2d and histogram_shared (every table is still produced).
// --repro FILE: also write the published numbers beside ours as JSON (support/include/gpuarch/support/repro.hpp, tools/repro).
// Exit status: 0 when every run reproduced its CPU reference, 1 otherwise, 2 for a usage error.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gpuarch/core/error.hpp>
#include <gpuarch/func/device.hpp>
#include <gpuarch/func/module.hpp>
#include <gpuarch/machines.hpp>
#include <gpuarch/mem/duplicate_tracker.hpp>
#include <gpuarch/sched/locality_two_level.hpp>
#include <gpuarch/sched/lrr.hpp>

#include <corpus/corpus.hpp>

#include <gpuarch/support/cli.hpp>
#include <gpuarch/support/progress.hpp>
#include <gpuarch/support/repro.hpp>
#include <gpuarch/support/variants.hpp>

namespace {

using namespace gpuarch;
namespace repro = examples::repro;

using RrGpu = machines::Kepler::gpu<sched::LRR>;
using LocalityGpu = machines::Kepler::gpu<sched::LocalityTwoLevel<>>;

// Gong 2020 Table 6.2 classes, mapped onto the corpus: GEMM/2MM/MT -> type 1, JS/CONV -> type 2 (hotspot is a
// stencil like JS), HS/SC/BS/MVT -> type 3.
struct StudyKernel {
    const char* name;
    unsigned hint;
    const char* thesis_analogue;
};
const StudyKernel study_kernels[] = {
    {"sgemm_naive", 1, "GEMM"},   {"sgemm_tiled", 1, "GEMM"},    {"transpose_naive", 1, "MT"},
    {"transpose_tiled", 1, "MT"}, {"jacobi2d", 2, "JS"},         {"conv2d", 2, "CONV"},
    {"hotspot", 2, "JS-like"},    {"histogram_shared", 3, "HS"}, {"histogram_global", 3, "HS"},
    {"scan_block", 3, "SC"},      {"bitonic_sort", 3, "BS"},     {"mvt", 3, "MVT"},
};

enum class Mode { rr, cluster, locality };
const char* mode_name(Mode m) { return m == Mode::rr ? "RR" : m == Mode::cluster ? "cluster" : "locality"; }

struct Result {
    bool passed = false;
    std::string message;
    std::uint64_t cycles = 0, allocations = 0, duplicates = 0, entries = 0, requests = 0;
    double dup_fraction() const { return allocations == 0 ? 0.0 : double(duplicates) / double(allocations); }
    double requests_per_entry() const { return entries == 0 ? 0.0 : double(requests) / double(entries); }
};

template <class Gpu> Result run(const StudyKernel& k, unsigned hint, kernels::Size size, unsigned cluster_ctas) {
    Result out;
    try {
        const kernels::CaseInfo& info = kernels::find_case(k.name);
        func::Device device;
        const auto module = func::Module::from_file(std::filesystem::path(examples::kernels_dir()) / "ptx" /
                                                    std::string(info.ptx_file));
        mem::DuplicateMshrTracker tracker; // Gong 2020 Sec. 6.1: 2000-cycle window
        auto config = machines::Kepler::config<Gpu>();
        config.l1.duplicate_tracker = &tracker;
        auto gpu = std::make_unique<Gpu>(config);
        TimingOptions options;
        options.launch_hint = hint;
        options.placement = CtaPlacement::clustered;
        options.cluster_ctas = cluster_ctas;
        auto launcher = [&](const func::Module& m, std::string_view entry, const func::LaunchConfig& launch,
                            const func::Args& args) {
            const LaunchResult r = gpu->launch(device, m, entry, launch, args, options);
            out.cycles += r.cycles;
            // Requests per MSHR entry (Gong 2020 Fig. 6.12): the L1's histogram of requests each entry served
            // when its fill returned.
            if (!r.stats.contains("sm.l1.mshr_requests_per_entry"))
                throw Error("the L1 reports no sm.l1.mshr_requests_per_entry histogram");
            const std::vector<std::uint64_t>& h = r.stats.histogram("sm.l1.mshr_requests_per_entry");
            for (std::size_t k = 0; k < h.size(); ++k) {
                out.entries += h[k];
                out.requests += k * h[k];
            }
        };
        const kernels::CaseResult result = kernels::run_case(k.name, device, module, launcher, size);
        out.passed = result.passed;
        out.message = result.message;
        out.allocations = tracker.allocations();
        out.duplicates = tracker.duplicates();
    } catch (const std::exception& e) {
        out.passed = false;
        out.message = e.what();
    }
    return out;
}

Result run_mode(const StudyKernel& k, Mode mode, kernels::Size size) {
    switch (mode) {
    case Mode::rr: return run<RrGpu>(k, 0, size, 1);
    case Mode::cluster: return run<RrGpu>(k, k.hint, size, 0);
    case Mode::locality: return run<LocalityGpu>(k, k.hint, size, 0);
    }
    return {};
}

std::string fmt(const char* f, double x) {
    char b[48];
    std::snprintf(b, sizeof b, f, x);
    return b;
}

double geomean(const std::vector<double>& v) {
    if (v.empty()) return std::nan("");
    double s = 0;
    for (double x : v) s += std::log(x);
    return std::exp(s / double(v.size()));
}
double mean(const std::vector<double>& v) {
    if (v.empty()) return std::nan("");
    double s = 0;
    for (double x : v) s += x;
    return s / double(v.size());
}

} // namespace

int main(int argc, char** argv) {
    kernels::Size size = kernels::Size::large;
    unsigned jobs = std::max(1U, std::min(2U, std::thread::hardware_concurrency()));
    bool quick = false;
    std::string repro_file;
    std::vector<std::string> chosen;
    bool quiet = false;
    namespace cli = examples::cli;
    CLI::App app{"Gong 2020 Ch. 6 (hint-assisted locality-aware scheduling) on Kepler x14: speedup over round-robin, "
                 "cross-SM duplicate MSHR allocations and requests per MSHR entry, as Markdown.",
                 "locality_study"};
    std::vector<std::string> study_names;
    for (const StudyKernel& k : study_kernels) study_names.emplace_back(k.name);
    cli::add_size(app, size);
    cli::add_jobs(app, jobs);
    app.add_flag("--quick", quick, "small inputs on three kernels: checks that every table is produced");
    app.add_option("--repro", repro_file, "also write the published numbers beside ours as JSON (tools/repro)")
        ->type_name("FILE");
    cli::add_names(app, "--kernels", chosen, study_names, "study kernels (default: all)");
    cli::add_quiet(app, quiet);
    cli::describe_exit_codes(app, cli::exit_codes("a simulation failed its reference check, or FILE could not be "
                                                  "written"));
    if (const auto status = cli::parse(app, argc, argv)) return *status;
    if (quick) {
        size = kernels::Size::small;
        if (chosen.empty()) chosen = {"sgemm_naive", "jacobi2d", "histogram_shared"};
    }
    std::vector<StudyKernel> ks;
    for (const StudyKernel& k : study_kernels)
        if (chosen.empty() || std::find(chosen.begin(), chosen.end(), k.name) != chosen.end()) ks.push_back(k);

    // Every (kernel, mode) run, spread over `jobs` threads (each run is deterministic and independent).
    const Mode modes[] = {Mode::rr, Mode::cluster, Mode::locality};
    std::vector<std::pair<std::size_t, Mode>> work;
    for (std::size_t i = 0; i < ks.size(); ++i)
        for (Mode m : modes) work.emplace_back(i, m);
    std::vector<Result> results(work.size());
    std::mutex next_lock;
    std::size_t next = 0;
    if (!quiet)
        std::cerr << "locality_study: " << work.size() << " runs on " << jobs << " thread(s), "
                  << kernels::size_name(size) << " inputs, Kepler x14\n";
    examples::Progress progress("locality_study", work.size(), quiet);
    auto worker = [&] {
        while (true) {
            std::size_t j;
            {
                std::lock_guard<std::mutex> g(next_lock);
                if (next == work.size()) return;
                j = next++;
            }
            results[j] = run_mode(ks[work[j].first], work[j].second, size);
            progress.step(std::string(mode_name(work[j].second)) + " " + std::string(ks[work[j].first].name),
                          results[j].passed);
        }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < jobs; ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
    progress.finish();
    auto result = [&](std::size_t i, Mode m) -> const Result& { return results[i * 3 + static_cast<std::size_t>(m)]; };

    bool all_passed = true;
    for (std::size_t j = 0; j < work.size(); ++j)
        if (!results[j].passed) {
            all_passed = false;
            std::cout << "FAILED " << ks[work[j].first].name << " (" << mode_name(work[j].second)
                      << "): " << results[j].message.substr(0, 300) << "\n";
        }

    std::ostringstream md;
    md << "### Locality-aware scheduling on Kepler x14 (" << kernels::size_name(size) << " inputs)\n\n"
       << "Speedup = RR cycles / cycles. Duplicates: MSHR allocations of a line another SM allocated within 2000 "
          "cycles (Gong 2020 Sec. 6.1), as a share of all allocations. Requests per entry: line requests an MSHR entry "
          "served, averaged over entries (L1 "
          "histogram mshr_requests_per_entry).\n\n"
       << "| kernel | thesis analogue | hint | RR cycles | cluster speedup | locality speedup | RR duplicates | "
          "locality duplicates | duplicate drop | RR req/entry | locality req/entry |\n"
       << "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    std::vector<double> speed12, cluster12, drop12, speed3, dup_base_all, dup_loc_all;
    double best = 0;
    std::string best_kernel;
    repro::Plot speed_plot{"locality_speedup.png",
                           "Gong 2020 Fig. 6.10 on the corpus: speedup over round-robin (Kepler x14)",
                           "bar",
                           "speedup over RR",
                           {},
                           {}};
    repro::Plot dup_plot{"locality_duplicates.png",
                         "Gong 2020 Fig. 6.1/6.11 on the corpus: duplicate MSHR allocations",
                         "bar",
                         "share of MSHR allocations",
                         {},
                         {}};
    std::vector<double> s_cluster, s_loc, d_rr, d_loc;
    std::map<std::string, double> req_ratio;
    for (std::size_t i = 0; i < ks.size(); ++i) {
        const Result& rr = result(i, Mode::rr);
        const Result& cl = result(i, Mode::cluster);
        const Result& lo = result(i, Mode::locality);
        if (!rr.passed || !cl.passed || !lo.passed || rr.cycles == 0 || cl.cycles == 0 || lo.cycles == 0) continue;
        const double sc = double(rr.cycles) / double(cl.cycles), sl = double(rr.cycles) / double(lo.cycles);
        // Relative drop in duplicate allocations; undefined for a kernel with none at baseline.
        const bool has_drop = rr.duplicates > 0;
        const double drop = has_drop ? 1.0 - double(lo.duplicates) / double(rr.duplicates) : 0.0;
        md << "| " << ks[i].name << " | " << ks[i].thesis_analogue << " | " << ks[i].hint << " | " << rr.cycles << " | "
           << fmt("%.3f", sc) << " | " << fmt("%.3f", sl) << " | " << repro::pct(rr.dup_fraction()) << " | "
           << repro::pct(lo.dup_fraction()) << " | " << (has_drop ? repro::pct(drop) : std::string("n/a")) << " | "
           << fmt("%.2f", rr.requests_per_entry()) << " | " << fmt("%.2f", lo.requests_per_entry()) << " |\n";
        speed_plot.labels.push_back(ks[i].name);
        dup_plot.labels.push_back(ks[i].name);
        s_cluster.push_back(sc);
        s_loc.push_back(sl);
        d_rr.push_back(rr.dup_fraction());
        d_loc.push_back(lo.dup_fraction());
        dup_base_all.push_back(rr.dup_fraction());
        dup_loc_all.push_back(lo.dup_fraction());
        if (rr.requests_per_entry() > 0) req_ratio[ks[i].name] = lo.requests_per_entry() / rr.requests_per_entry();
        if (ks[i].hint == 3) speed3.push_back(sl);
        if (ks[i].hint == 1 || ks[i].hint == 2) {
            speed12.push_back(sl);
            cluster12.push_back(sc);
            if (has_drop) drop12.push_back(drop);
            if (sl > best) {
                best = sl;
                best_kernel = ks[i].name;
            }
        }
    }
    speed_plot.series = {{"cluster only (LRR)", s_cluster}, {"locality (LocalityTwoLevel)", s_loc}};
    dup_plot.series = {{"RR", d_rr}, {"locality", d_loc}};
    md << "\nType 1+2 geometric-mean speedup: locality " << repro::gain_pct(geomean(speed12)) << ", cluster only "
       << repro::gain_pct(geomean(cluster12)) << "; type 3: locality " << repro::gain_pct(geomean(speed3))
       << ". Mean duplicate share: RR " << repro::pct(mean(dup_base_all)) << ", locality "
       << repro::pct(mean(dup_loc_all)) << ".\n";

    const std::string config =
        "Kepler x14 (Gong 2020 Tables 4.1, 6.3), RR = LRR + one CTA per SM per turn; locality = "
        "LocalityTwoLevel<4> + clustered CTAs (ceil(CTAs/SMs) per SM), launch hint per Table 6.2 "
        "class, " +
        std::string(kernels::size_name(size)) + " inputs";
    repro::Report report{"locality", "Gong 2020", "Hint-assisted locality-aware scheduling", {}, {}, {}};
    report.add("Sec. 6.4.5 / Fig. 6.10 average speedup over RR, type 1 and 2 workloads", "+13%",
               repro::gain_pct(geomean(speed12), 0), config, "geometric mean over the type 1 and 2 corpus kernels");
    report.add("Fig. 6.10 maximum speedup over RR (MT)", "+19%",
               best_kernel.empty() ? "n/a" : repro::gain_pct(best, 0) + " (" + best_kernel + ")", config, "");
    report.add("Fig. 6.1 duplicate MSHR allocations at baseline (average)", "60%", repro::pct(mean(dup_base_all), 0),
               config, "2000-cycle window, all study kernels");
    report.add("Fig. 6.11 duplicate MSHR reduction, high-locality workloads", "at least 10%",
               drop12.empty() ? "n/a"
                              : repro::pct(*std::min_element(drop12.begin(), drop12.end()), 0) + " min, " +
                                    repro::pct(mean(drop12), 0) + " mean",
               config, "relative drop in duplicate allocations, type 1 and 2 kernels with duplicates at baseline");
    const auto ratio_of = [&](const char* k) {
        return req_ratio.count(k) ? fmt("%.2fx", req_ratio.at(k)) + " (" + k + ")" : std::string();
    };
    std::string req = ratio_of("transpose_naive");
    const std::string sc = ratio_of("scan_block");
    if (!sc.empty()) req += (req.empty() ? "" : ", ") + sc;
    report.add("Fig. 6.12 requests per MSHR entry, locality / RR (MT, SC)", "roughly 2x", req.empty() ? "n/a" : req,
               config, "");
    report.plots = {speed_plot, dup_plot};

    return report.finish(std::cout, md.str(), "locality_study", repro_file, all_passed);
}
