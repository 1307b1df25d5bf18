// Simulation speed on the kernel corpus.
//
//   sim_speed [--functional-only [--repeat N]] [--size small|large] [--machines fermi,kepler,southern_islands]
//             [--kernels a,b] [--schedulers GTO] [--threads N] [--json FILE] [--quiet]  (--help says the rest)
//
// Timing mode (default): for each machine preset (Fermi 15 SMs, Kepler 14, Southern Islands 32, each with its full
// memory hierarchy) and kernel, simulated GPU cycles, warp- and thread-instructions per host second, counted inside
// GPU::launch only (thread CPU time, so other load on the host does not distort it), and the process's peak
// resident memory so far. Rates are per host core: the SMs tick on one host thread unless --threads N asks for
// the parallel tick (then the rates use wall time, and thread CPU time would undercount; both are reported).
// Functional-only mode: thread-instructions per
// second of func::launch (the fastest of N runs with --repeat N). Reference figures are in docs/performance.md.
#include <gpuarch/support/cli.hpp>
#include <gpuarch/support/names.hpp>
#include <gpuarch/support/progress.hpp>
#include <gpuarch/support/variants.hpp>

#include <corpus/corpus.hpp>
#include <gpuarch/func/host.hpp>

#include <sys/resource.h>

#include <cstdlib>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {
long peak_rss_kib() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}
} // namespace

int main(int argc, char** argv) {
    using namespace gpuarch;
    namespace cli = examples::cli;
    bool functional_only = false, quiet = false;
    kernels::Size size = kernels::Size::large;
    std::vector<std::string> machines, names, schedulers;
    std::string json_path;
    unsigned threads = 1, repeat = 1;
    CLI::App app{"Simulation speed on the kernel corpus: simulated cycles and instructions per host second per kernel "
                 "and machine (timing), or thread-instructions per second of the functional engine.",
                 "sim_speed"};
    app.add_flag("--functional-only", functional_only, "measure the functional engine alone (no timing)");
    cli::add_size(app, size);
    cli::add_names(app, "--machines", machines, examples::machine_names(), "machines (default: all)");
    cli::add_names(app, "--kernels", names, examples::corpus_kernel_names(), "corpus kernels (default: all)");
    cli::add_names(app, "--schedulers", schedulers, examples::scheduler_names(examples::machine_names()),
                   "schedulers, each run on every machine that has it (default GTO)");
    app.add_option("--threads", threads, "host threads that tick the SMs of one simulation (default 1)")
        ->check(CLI::Range(1U, 1024U))
        ->type_name("N");
    app.add_option("--repeat", repeat,
                   "with --functional-only: run each kernel N times and report the fastest (a busy host's noise "
                   "only slows runs down)")
        ->check(CLI::Range(1U, 1000U))
        ->type_name("N");
    app.add_option("--json", json_path, "also write every row as JSON to FILE")->type_name("FILE");
    cli::add_quiet(app, quiet);
    cli::describe_exit_codes(app, cli::exit_codes("FILE could not be written"));
    if (const auto status = cli::parse(app, argc, argv)) return *status;
    if (machines.empty()) machines = examples::machine_names();
    if (names.empty()) names = examples::corpus_kernel_names();
    if (schedulers.empty()) schedulers = {"GTO"};
    // Every (machine, scheduler) the machines have; a scheduler none of them has is a usage error.
    std::vector<std::pair<std::string, std::string>> variants;
    for (const auto& s : schedulers) {
        bool any = false;
        for (const auto& m : machines) {
            const auto own = examples::scheduler_names(m);
            if (std::find(own.begin(), own.end(), s) == own.end()) continue;
            variants.emplace_back(m, s);
            any = true;
        }
        if (!any) return cli::usage_error(app, "--schedulers: none of the chosen machines has " + s);
    }
    // GPU::launch reads GPUARCH_HOST_THREADS when TimingOptions::host_threads is 0 (run_variant's default).
    ::setenv("GPUARCH_HOST_THREADS", std::to_string(threads).c_str(), 1);
    const bool parallel = threads != 1;

    std::ostringstream json;
    json << "[\n";
    bool first = true;
    if (functional_only) {
        std::printf("%-18s %14s %10s %12s %10s\n", "kernel", "thread-inst", "seconds", "Minst/s", "peak MiB");
        examples::Progress progress("sim_speed", names.size(), quiet);
        for (const auto& name : names) {
            const auto& info = kernels::find_case(name);
            const auto module = func::Module::from_file(examples::kernels_dir() + "/ptx/" + std::string(info.ptx_file));
            double seconds = 0;
            std::uint64_t thread_inst = 0;
            kernels::CaseResult result;
            for (unsigned run = 0; run < repeat; ++run) {
                func::Device device;
                double run_seconds = 0;
                thread_inst = 0;
                auto launcher = [&](const func::Module& m, std::string_view entry, const func::LaunchConfig& c,
                                    const func::Args& a) {
                    const double t0 = examples::thread_cpu_seconds();
                    const auto stats = func::launch(device, m, entry, c, a);
                    run_seconds += examples::thread_cpu_seconds() - t0;
                    thread_inst += stats.thread_instructions;
                };
                result = kernels::run_case(name, device, module, launcher, size);
                if (run == 0 || run_seconds < seconds) seconds = run_seconds;
                if (!result.passed) break;
            }
            const double rate = seconds > 0 ? double(thread_inst) / seconds : 0.0;
            progress.clear();
            std::printf("%-18s %14llu %10.4f %12.1f %10.1f %s\n", name.c_str(),
                        static_cast<unsigned long long>(thread_inst), seconds, rate / 1e6, peak_rss_kib() / 1024.0,
                        result.passed ? "" : "FAILED");
            std::fflush(stdout);
            progress.step(name, result.passed);
            json << (first ? "" : ",\n") << "  {\"mode\":\"functional\",\"kernel\":\"" << name
                 << "\",\"thread_instructions\":" << thread_inst << ",\"seconds\":" << seconds
                 << ",\"thread_instructions_per_second\":" << rate
                 << ",\"passed\":" << (result.passed ? "true" : "false") << '}';
            first = false;
        }
    } else {
        std::printf("%-17s %-12s %-18s %11s %9s %11s %11s %12s %9s\n", "machine", "scheduler", "kernel", "cycles",
                    "seconds", "cycles/s", "warp-inst/s", "thread-inst/s", "peak MiB");
        examples::Progress progress("sim_speed", variants.size() * names.size(), quiet);
        for (const auto& [machine, scheduler] : variants)
            for (const auto& name : names) {
                const auto row = examples::run_variant(machine, scheduler, name, size);
                // One thread: its CPU time inside GPU::launch. Parallel: the whole run's wall time (it includes
                // input setup and the reference check, so it understates the parallel rate slightly).
                const double s = parallel ? row.host_seconds : row.sim_seconds;
                auto rate = [&](double v) { return s > 0 ? v / s : 0.0; };
                progress.clear();
                std::printf("%-17s %-12s %-18s %11llu %9.3f %11.0f %11.0f %12.0f %9.1f %s\n", machine.c_str(),
                            scheduler.c_str(), name.c_str(), static_cast<unsigned long long>(row.cycles), s,
                            rate(double(row.cycles)), rate(double(row.warp_instructions)),
                            rate(double(row.thread_instructions)), peak_rss_kib() / 1024.0, row.passed ? "" : "FAILED");
                json << (first ? "" : ",\n") << "  {\"mode\":\"timing\",\"machine\":\"" << machine << "\",\"kernel\":\""
                     << name << "\",\"scheduler\":\"" << scheduler << "\",\"host_threads\":" << threads
                     << ",\"cycles\":" << row.cycles << ",\"warp_instructions\":" << row.warp_instructions
                     << ",\"thread_instructions\":" << row.thread_instructions << ",\"seconds\":" << s
                     << ",\"cycles_per_second\":" << rate(double(row.cycles))
                     << ",\"warp_instructions_per_second\":" << rate(double(row.warp_instructions))
                     << ",\"thread_instructions_per_second\":" << rate(double(row.thread_instructions))
                     << ",\"peak_rss_kib\":" << peak_rss_kib() << ",\"passed\":" << (row.passed ? "true" : "false")
                     << '}';
                first = false;
                std::fflush(stdout);
                progress.step(machine + " " + scheduler + " " + name, row.passed);
            }
    }
    json << "\n]\n";
    if (!json_path.empty()) {
        std::ofstream out(json_path);
        out << json.str();
        if (!out) {
            std::cerr << "sim_speed: cannot write " << json_path << '\n';
            return cli::exit_failed;
        }
    }
    return cli::exit_ok;
}
