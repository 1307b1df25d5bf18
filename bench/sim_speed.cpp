// Simulation speed on the kernel corpus.
//
//   sim_speed [--functional-only] [--small] [--machines fermi,kepler,southern_islands] [--kernels a,b]
//             [--scheduler GTO] [--threads N] [--json FILE]
//
// Timing mode (default): for each machine preset (Fermi 15 SMs, Kepler 14, Southern Islands 32, each with its full
// memory hierarchy) and kernel, simulated GPU cycles, warp- and thread-instructions per host second, counted inside
// GPU::launch only (thread CPU time, so other load on the host does not distort it), and the process's peak
// resident memory so far. Rates are per host core: the SMs tick on one host thread unless --threads N asks for
// the parallel tick (then the rates use wall time, and thread CPU time would undercount; both are reported).
// Functional-only mode: thread-instructions per
// second of func::launch. Reference figures to compare with are in docs/performance.md.
#include <lib/cli.hpp>
#include <lib/variants.hpp>

#include <corpus/corpus.hpp>
#include <gpuarch/func/host.hpp>

#include <sys/resource.h>

#include <cstdlib>

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
    bool functional_only = false;
    kernels::Size size = kernels::Size::large;
    std::vector<std::string> machines = examples::machine_names(), names;
    std::string scheduler = "GTO", json_path, threads = "1";
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
        if (arg == "--functional-only") functional_only = true;
        else if (arg == "--small") size = kernels::Size::small;
        else if (arg == "--machines") machines = examples::comma_list(value());
        else if (arg == "--kernels") names = examples::comma_list(value());
        else if (arg == "--scheduler") scheduler = value();
        else if (arg == "--json") json_path = value();
        else if (arg == "--threads") threads = value();
        else {
            std::cerr << "usage: sim_speed [--functional-only] [--small] [--machines a,b] [--kernels a,b] "
                         "[--scheduler S] [--threads N] [--json FILE]\n";
            return arg == "--help" ? 0 : 2;
        }
    }
    if (names.empty())
        for (const auto& c : kernels::corpus_cases()) names.emplace_back(c.name);
    // GPU::launch reads GPUARCH_HOST_THREADS when TimingOptions::host_threads is 0 (run_variant's default).
    ::setenv("GPUARCH_HOST_THREADS", threads.c_str(), 1);
    const bool parallel = threads != "1";

    std::ostringstream json;
    json << "[\n";
    bool first = true;
    if (functional_only) {
        std::printf("%-18s %14s %10s %12s %10s\n", "kernel", "thread-inst", "seconds", "Minst/s", "peak MiB");
        for (const auto& name : names) {
            const auto& info = kernels::find_case(name);
            func::Device device;
            const auto module = func::Module::from_file(examples::kernels_dir() + "/ptx/" + std::string(info.ptx_file));
            double seconds = 0;
            std::uint64_t thread_inst = 0;
            auto launcher = [&](const func::Module& m, std::string_view entry, const func::LaunchConfig& c,
                                const func::Args& a) {
                const double t0 = examples::thread_cpu_seconds();
                const auto stats = func::launch(device, m, entry, c, a);
                seconds += examples::thread_cpu_seconds() - t0;
                thread_inst += stats.thread_instructions;
            };
            const auto result = kernels::run_case(name, device, module, launcher, size);
            const double rate = seconds > 0 ? double(thread_inst) / seconds : 0.0;
            std::printf("%-18s %14llu %10.4f %12.1f %10.1f %s\n", name.c_str(),
                        static_cast<unsigned long long>(thread_inst), seconds, rate / 1e6, peak_rss_kib() / 1024.0,
                        result.passed ? "" : "FAILED");
            json << (first ? "" : ",\n") << "  {\"mode\":\"functional\",\"kernel\":\"" << name
                 << "\",\"thread_instructions\":" << thread_inst << ",\"seconds\":" << seconds
                 << ",\"thread_instructions_per_second\":" << rate << ",\"passed\":" << (result.passed ? "true" : "false")
                 << '}';
            first = false;
        }
    } else {
        std::printf("%-17s %-18s %11s %9s %11s %11s %12s %9s\n", "machine", "kernel", "cycles", "seconds", "cycles/s",
                    "warp-inst/s", "thread-inst/s", "peak MiB");
        for (const auto& machine : machines)
            for (const auto& name : names) {
                const auto row = examples::run_variant(machine, scheduler, name, size);
                // One thread: its CPU time inside GPU::launch. Parallel: the whole run's wall time (it includes
                // input setup and the reference check, so it understates the parallel rate slightly).
                const double s = parallel ? row.host_seconds : row.sim_seconds;
                auto rate = [&](double v) { return s > 0 ? v / s : 0.0; };
                std::printf("%-17s %-18s %11llu %9.3f %11.0f %11.0f %12.0f %9.1f %s\n", machine.c_str(), name.c_str(),
                            static_cast<unsigned long long>(row.cycles), s, rate(double(row.cycles)),
                            rate(double(row.warp_instructions)), rate(double(row.thread_instructions)),
                            peak_rss_kib() / 1024.0, row.passed ? "" : "FAILED");
                json << (first ? "" : ",\n") << "  {\"mode\":\"timing\",\"machine\":\"" << machine << "\",\"kernel\":\""
                     << name << "\",\"scheduler\":\"" << scheduler << "\",\"host_threads\":" << threads
                     << ",\"cycles\":" << row.cycles
                     << ",\"warp_instructions\":" << row.warp_instructions
                     << ",\"thread_instructions\":" << row.thread_instructions << ",\"seconds\":" << s
                     << ",\"cycles_per_second\":" << rate(double(row.cycles))
                     << ",\"warp_instructions_per_second\":" << rate(double(row.warp_instructions))
                     << ",\"thread_instructions_per_second\":" << rate(double(row.thread_instructions))
                     << ",\"peak_rss_kib\":" << peak_rss_kib() << ",\"passed\":" << (row.passed ? "true" : "false")
                     << '}';
                first = false;
                std::fflush(stdout);
            }
    }
    json << "\n]\n";
    if (!json_path.empty()) std::ofstream(json_path) << json.str();
    return 0;
}
