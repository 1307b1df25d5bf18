// Scaling of simulation time (issue 11): host time against the SM count (1, 2, 4, 8, 15, 30 Fermi SMs with the
// full memory hierarchy, GTO; Kepler with 1 and 14 SMs for issue 4's per-SM rate) and against kernel size (the corpus drivers' small and large inputs), and the
// parallel-SM speedup (the same runs on 1..T host threads).
//
//   scaling [--kernels a,b] [--sms 1,2,4,8,15,30] [--sizes small,large] [--threads 1,2] [--repeat N]
//           [--machine fermi|kepler] [--json FILE] [--quiet]        (kepler: --sms 1,14; scaling --help says more)
//   scaling --barrier THREADS      (cost of one parallel-tick barrier round with empty jobs, 15 items)
//
// Per run: simulated cycles, warp- and thread-instructions (identical for every thread count: the parallel tick is
// bit-identical), wall seconds, process CPU seconds (every host thread) and the main thread's CPU seconds, all
// measured around GPU::launch only; the best of --repeat runs by wall time. scripts/plot_scaling.py plots the JSON.
#include <gpuarch/support/cli.hpp>
#include <gpuarch/support/names.hpp>
#include <gpuarch/support/progress.hpp>
#include <gpuarch/support/variants.hpp>

#include <corpus/corpus.hpp>
#include <gpuarch/func/host.hpp>
#include <gpuarch/machines.hpp>
#include <gpuarch/sched/gto.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {
using namespace gpuarch;

double process_cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}
double wall_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string load_average() {
    std::ifstream in("/proc/loadavg");
    std::string a, b, c;
    in >> a >> b >> c;
    return a + " " + b + " " + c;
}

struct Measurement {
    bool passed = false;
    std::string message;
    std::uint64_t cycles = 0, warp_instructions = 0, thread_instructions = 0, launches = 0;
    double wall = 0, process_cpu = 0, thread_cpu = 0;
};

template <class Machine, unsigned N> Measurement run(const std::string& kernel, kernels::Size size, unsigned threads) {
    using Gpu = typename Machine::template gpu<sched::GTO, N>;
    Measurement m;
    const auto& info = kernels::find_case(kernel);
    func::Device device;
    const auto module = func::Module::from_file(examples::kernels_dir() + "/ptx/" + std::string(info.ptx_file));
    auto gpu = std::make_unique<Gpu>(Machine::template config<Gpu>());
    TimingOptions options;
    options.host_threads = threads;
    auto launcher = [&](const func::Module& mod, std::string_view entry, const func::LaunchConfig& launch,
                        const func::Args& args) {
        const double w0 = wall_seconds(), p0 = process_cpu_seconds(), t0 = examples::thread_cpu_seconds();
        const LaunchResult r = gpu->launch(device, mod, entry, launch, args, options);
        m.wall += wall_seconds() - w0;
        m.process_cpu += process_cpu_seconds() - p0;
        m.thread_cpu += examples::thread_cpu_seconds() - t0;
        m.cycles += r.cycles;
        m.warp_instructions += r.warp_instructions;
        m.thread_instructions += r.thread_instructions;
        ++m.launches;
    };
    const auto result = kernels::run_case(kernel, device, module, launcher, size);
    m.passed = result.passed;
    m.message = result.message;
    return m;
}

Measurement run_sms(const std::string& machine, unsigned sms, const std::string& kernel, kernels::Size size,
                    unsigned threads) {
    if (machine == "kepler") {
        // Issue 4's per-SM target is for a Kepler SM: one SM, and the 14-SM preset.
        switch (sms) {
        case 1: return run<machines::Kepler, 1>(kernel, size, threads);
        case 14: return run<machines::Kepler, 14>(kernel, size, threads);
        default: throw Error("scaling: Kepler is instantiated with 1 and 14 SMs only");
        }
    }
    if (machine != "fermi") throw Error("scaling: no machine named '" + machine + "' (fermi, kepler)");
    switch (sms) {
    case 1: return run<machines::Fermi, 1>(kernel, size, threads);
    case 2: return run<machines::Fermi, 2>(kernel, size, threads);
    case 4: return run<machines::Fermi, 4>(kernel, size, threads);
    case 8: return run<machines::Fermi, 8>(kernel, size, threads);
    case 15: return run<machines::Fermi, 15>(kernel, size, threads);
    case 30: return run<machines::Fermi, 30>(kernel, size, threads);
    default:
        throw Error("scaling: no Fermi GPU instantiated with " + std::to_string(sms) + " SMs (1, 2, 4, 8, 15, 30)");
    }
}
} // namespace

int main(int argc, char** argv) {
    namespace cli = examples::cli;
    std::vector<std::string> kernels_list, size_names;
    std::vector<unsigned> sms, threads;
    unsigned repeat = 1, barrier = 0;
    std::string json_path, machine = "fermi";
    bool quiet = false;
    // The SM counts each machine is instantiated with here (run_sms).
    const std::vector<unsigned> fermi_sms{1, 2, 4, 8, 15, 30}, kepler_sms{1, 14};
    CLI::App app{"Host time of a simulation against the SM count, the kernel size and the host threads that tick the "
                 "SMs (the parallel tick is bit-identical, so cycles are the same for every thread count).",
                 "scaling"};
    cli::add_names(app, "--kernels", kernels_list, examples::corpus_kernel_names(),
                   "corpus kernels (default vector_add,sgemm_tiled,hotspot,histogram_global,bfs)");
    app.add_option("--machine", machine, "the machine (default fermi)")
        ->check(CLI::IsMember({"fermi", "kepler"}))
        ->type_name("NAME");
    app.add_option("--sms", sms, "SM counts (default: fermi 1,2,4,8,15,30; kepler 1,14)")
        ->delimiter(',')
        ->allow_extra_args(false)
        ->type_name("LIST");
    cli::add_names(app, "--sizes", size_names, {"small", "large"}, "input sizes (default small,large)");
    app.add_option("--threads", threads, "host-thread counts to tick the SMs with (default 1)")
        ->delimiter(',')
        ->allow_extra_args(false)
        ->check(CLI::Range(1U, 1024U))
        ->type_name("LIST");
    app.add_option("--repeat", repeat, "runs per configuration; the fastest by wall time is reported (default 1)")
        ->check(CLI::Range(1U, 1000U))
        ->type_name("N");
    app.add_option("--json", json_path, "also write every row as JSON to FILE")->type_name("FILE");
    app.add_option("--barrier", barrier,
                   "instead: the cost of one parallel-tick barrier round with N threads and empty jobs (15 items)")
        ->check(CLI::Range(1U, 1024U))
        ->type_name("N");
    cli::add_quiet(app, quiet);
    cli::describe_exit_codes(app, cli::exit_codes("a run failed its reference check, or FILE could not be written"));
    if (const auto status = cli::parse(app, argc, argv)) return *status;
    if (barrier != 0) {
        const unsigned t = barrier;
        detail::TickTeam team(t);
        std::vector<std::uint64_t> sink(15);
        auto job = [&](unsigned item) { ++sink[item]; };
        constexpr unsigned rounds = 200'000;
        const double w0 = wall_seconds(), p0 = process_cpu_seconds();
        for (unsigned r = 0; r < rounds; ++r) team.run(15, job);
        const double w = wall_seconds() - w0, p = process_cpu_seconds() - p0;
        std::printf("barrier: %u threads, %u rounds: %.3f us wall, %.3f us CPU per round (load average %s)\n", t,
                    rounds, w / rounds * 1e6, p / rounds * 1e6, load_average().c_str());
        return sink[0] == rounds ? 0 : 1;
    }
    if (kernels_list.empty()) kernels_list = {"vector_add", "sgemm_tiled", "hotspot", "histogram_global", "bfs"};
    if (threads.empty()) threads = {1};
    const std::vector<unsigned>& instantiated = machine == "kepler" ? kepler_sms : fermi_sms;
    if (sms.empty()) sms = instantiated;
    for (const unsigned n : sms)
        if (std::find(instantiated.begin(), instantiated.end(), n) == instantiated.end()) {
            std::string valid;
            for (const unsigned v : instantiated) valid += (valid.empty() ? "" : ",") + std::to_string(v);
            return cli::usage_error(app, "--sms: " + machine + " is instantiated with " + valid + " SMs, not " +
                                             std::to_string(n));
        }
    std::vector<kernels::Size> sizes;
    for (const auto& s : size_names) sizes.push_back(s == "large" ? kernels::Size::large : kernels::Size::small);
    if (sizes.empty()) sizes = {kernels::Size::small, kernels::Size::large};
    std::printf("%-17s %-6s %4s %7s %11s %12s %9s %9s %9s %11s %12s %s\n", "kernel", "size", "SMs", "threads", "cycles",
                "warp-inst", "wall s", "cpu s", "main s", "cycles/s", "warp-inst/s", "");
    std::ostringstream json;
    json << "[\n";
    bool first = true;
    int status = 0;
    examples::Progress progress("scaling", kernels_list.size() * sizes.size() * sms.size() * threads.size(), quiet);
    for (const auto& kernel : kernels_list)
        for (const auto size : sizes)
            for (const unsigned n : sms)
                for (const unsigned t : threads) {
                    Measurement best;
                    for (unsigned r = 0; r < repeat; ++r) {
                        Measurement m = run_sms(machine, n, kernel, size, t);
                        if (r == 0 || m.wall < best.wall) best = m;
                    }
                    if (!best.passed) status = 1;
                    // Rates per host second: the main thread's CPU time with one thread (unaffected by other load
                    // on the host), wall time with several.
                    const double secs = t == 1 ? best.thread_cpu : best.wall;
                    progress.clear();
                    std::printf("%-17s %-6s %4u %7u %11llu %12llu %9.3f %9.3f %9.3f %11.0f %12.0f %s\n", kernel.c_str(),
                                std::string(kernels::size_name(size)).c_str(), n, t,
                                static_cast<unsigned long long>(best.cycles),
                                static_cast<unsigned long long>(best.warp_instructions), best.wall, best.process_cpu,
                                best.thread_cpu, secs > 0 ? double(best.cycles) / secs : 0.0,
                                secs > 0 ? double(best.warp_instructions) / secs : 0.0,
                                best.passed ? "" : ("FAILED " + best.message).c_str());
                    std::fflush(stdout);
                    json << (first ? "" : ",\n") << "  {\"machine\":\"" << machine << "\",\"kernel\":\"" << kernel
                         << "\",\"size\":\"" << kernels::size_name(size) << "\",\"sms\":" << n << ",\"threads\":" << t
                         << ",\"cycles\":" << best.cycles << ",\"warp_instructions\":" << best.warp_instructions
                         << ",\"thread_instructions\":" << best.thread_instructions << ",\"launches\":" << best.launches
                         << ",\"wall_seconds\":" << best.wall << ",\"process_cpu_seconds\":" << best.process_cpu
                         << ",\"main_thread_cpu_seconds\":" << best.thread_cpu
                         << ",\"passed\":" << (best.passed ? "true" : "false") << '}';
                    first = false;
                    progress.step(kernel + " " + std::string(kernels::size_name(size)) + " " + std::to_string(n) +
                                      " SMs " + std::to_string(t) + " threads",
                                  best.passed);
                }
    progress.finish();
    json << "\n]\n";
    if (!json_path.empty()) {
        std::ofstream out(json_path);
        out << json.str();
        if (!out) {
            std::cerr << "scaling: cannot write " << json_path << '\n';
            return cli::exit_failed;
        }
    }
    return status;
}
