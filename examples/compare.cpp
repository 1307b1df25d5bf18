// The comparison demo: every corpus kernel on the Fermi-, Kepler- and Southern-Islands-like machines with each
// scheduler (LRR, GTO, TwoLevel<8>). Checks every output against its CPU reference, prints the headline table
// (speedup over LRR per kernel and machine) and the per-variant details, and writes CSV and JSON for plotting.
//
//   compare [--size small|large] [--out DIR] [--kernels a,b] [--machines fermi,kepler] [--schedulers LRR,GTO]
//           [--details FILE] [--no-details] [--quiet]          (compare --help says what each does)
//
// The headline table comes first on stdout; the per-variant details follow it, or go to FILE with --details
// (scripts/demo.sh does that, so the headline table and the plot are what the demo shows). Progress (a bar with
// the total and an ETA on a terminal, a start and an end line in a log) goes to stderr; --quiet silences it.
#include <gpuarch/support/cli.hpp>
#include <gpuarch/support/names.hpp>
#include <gpuarch/support/progress.hpp>
#include <gpuarch/support/report.hpp>
#include <gpuarch/support/variants.hpp>

#include <corpus/corpus.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    using namespace gpuarch;
    namespace cli = examples::cli;
    CLI::App app{"The comparison demo: corpus kernels on the Fermi-, Kepler- and Southern-Islands-like machines with "
                 "each scheduler. Checks every output against its CPU reference, prints the speedup of each scheduler "
                 "over LRR per kernel and machine, then the per-variant details, and writes DIR/compare.csv and "
                 "DIR/compare.json.",
                 "compare"};
    kernels::Size size = kernels::Size::small;
    std::string out_dir = "out", details_file;
    std::vector<std::string> kernel_names, machine_names, schedulers;
    bool no_details = false, quiet = false;
    cli::add_size(app, size);
    app.add_option("--out", out_dir, "directory for compare.csv and compare.json (default out)")->type_name("DIR");
    cli::add_names(app, "--kernels", kernel_names, examples::corpus_kernel_names(), "corpus kernels (default: all)");
    cli::add_names(app, "--machines", machine_names, examples::machine_names(), "machines (default: all)");
    cli::add_names(app, "--schedulers", schedulers, examples::scheduler_names(examples::machine_names()),
                   "schedulers (default: all of each machine's; LRR is the baseline and always runs)");
    app.add_option("--details", details_file, "write the per-variant details to FILE instead of stdout")
        ->type_name("FILE");
    app.add_flag("--no-details", no_details, "print only the headline table, not the per-variant details");
    cli::add_quiet(app, quiet);
    cli::describe_exit_codes(app, cli::exit_codes("a kernel's output did not match its CPU reference, or a file "
                                                  "could not be written"));
    if (const auto status = cli::parse(app, argc, argv)) return *status;
    if (kernel_names.empty()) kernel_names = examples::corpus_kernel_names();
    if (machine_names.empty()) machine_names = examples::machine_names();
    // The variants to run, and a scheduler none of the chosen machines has is a usage error (before any run).
    std::vector<std::pair<std::string, std::vector<std::string>>> plan; // machine -> its schedulers to run
    std::size_t total = 0;
    for (const auto& m : machine_names) {
        std::vector<std::string> chosen;
        for (const auto& s : examples::scheduler_names(m))
            if (schedulers.empty() || s == "LRR" ||
                std::find(schedulers.begin(), schedulers.end(), s) != schedulers.end())
                chosen.push_back(s);
        total += chosen.size() * kernel_names.size();
        plan.emplace_back(m, std::move(chosen));
    }
    const auto chosen_machines_schedulers = examples::scheduler_names(machine_names);
    for (const auto& s : schedulers)
        if (std::find(chosen_machines_schedulers.begin(), chosen_machines_schedulers.end(), s) ==
            chosen_machines_schedulers.end())
            return cli::usage_error(app, "--schedulers: none of the chosen machines has " + s);

    std::vector<examples::RunRow> rows;
    bool all_passed = true;
    {
        examples::Progress progress("compare", total, quiet);
        for (const auto& [m, machine_schedulers] : plan)
            for (const auto& k : kernel_names)
                for (const auto& s : machine_schedulers) {
                    rows.push_back(examples::run_variant(m, s, k, size));
                    all_passed = all_passed && rows.back().passed;
                    progress.step(m + " " + s + " " + k, rows.back().passed);
                }
    }

    // Headline: speedup of each scheduler over LRR, per machine and kernel.
    std::map<std::pair<std::string, std::string>, std::uint64_t> lrr;
    for (const auto& r : rows)
        if (r.scheduler == "LRR") lrr[{r.machine, r.kernel}] = r.cycles;
    std::cout << "Speedup over LRR (cycles of LRR / cycles of the scheduler), " << kernels::size_name(size)
              << " inputs; every output checked against its CPU reference\n\n";
    std::cout << std::left << std::setw(18) << "kernel" << std::setw(18) << "machine" << std::right << std::setw(11)
              << "LRR cycles";
    // The columns: every scheduler any machine has, in first-seen order. A machine without one (e.g. the
    // MemoryFirst example of docs/new_policy.md, compiled for Fermi only) shows "-" there.
    std::vector<std::string> others;
    for (const auto& [m, machine_schedulers] : plan)
        for (const auto& s : machine_schedulers)
            if (s != "LRR" && std::find(others.begin(), others.end(), s) == others.end()) others.push_back(s);
    for (const auto& s : others) std::cout << std::setw(13) << s;
    std::cout << "  check\n";
    std::map<std::string, std::pair<double, int>> geo; // scheduler -> (sum of log speedup, count)
    for (const auto& m : machine_names)
        for (const auto& k : kernel_names) {
            std::cout << std::left << std::setw(18) << k << std::setw(18) << m << std::right << std::setw(11)
                      << lrr[{m, k}];
            bool ok = true;
            for (const auto& r : rows)
                if (r.machine == m && r.kernel == k) ok = ok && r.passed;
            for (const auto& s : others) {
                bool found = false;
                for (const auto& r : rows)
                    if (r.machine == m && r.kernel == k && r.scheduler == s) {
                        found = true;
                        const double speedup = r.cycles == 0 ? 0.0 : double(lrr[{m, k}]) / double(r.cycles);
                        char text[32];
                        std::snprintf(text, sizeof text, "%.3f", speedup);
                        std::cout << std::setw(13) << text;
                        if (speedup > 0) {
                            geo[s].first += std::log(speedup);
                            ++geo[s].second;
                        }
                    }
                if (!found) std::cout << std::setw(13) << "-";
            }
            std::cout << "  " << (ok ? "ok" : "FAIL") << '\n';
        }
    std::cout << std::left << std::setw(47) << "geometric mean";
    for (const auto& s : others) {
        char text[32];
        std::snprintf(text, sizeof text, "%.3f", geo[s].second ? std::exp(geo[s].first / geo[s].second) : 0.0);
        std::cout << std::right << std::setw(13) << text;
    }
    std::cout << "\n\n";
    if (!details_file.empty()) {
        if (const std::filesystem::path parent = std::filesystem::path(details_file).parent_path(); !parent.empty())
            std::filesystem::create_directories(parent);
        std::ofstream out(details_file);
        examples::print_table(out, rows);
        if (!out) {
            std::cerr << "compare: cannot write " << details_file << '\n';
            return cli::exit_failed;
        }
        std::cout << "per-variant details (cycles, IPC, top stall reasons): " << details_file << '\n';
    } else if (!no_details) {
        examples::print_table(std::cout, rows);
        std::cout << '\n';
    }

    const std::filesystem::path out_path = out_dir;
    std::filesystem::create_directories(out_path);
    std::ofstream csv(out_path / "compare.csv");
    csv << "kernel,machine,scheduler,cycles,ipc,warp_instructions,thread_instructions,passed\n";
    for (const auto& r : rows)
        csv << r.kernel << ',' << r.machine << ',' << r.scheduler << ',' << r.cycles << ',' << r.ipc() << ','
            << r.warp_instructions << ',' << r.thread_instructions << ',' << (r.passed ? 1 : 0) << '\n';
    std::ofstream json(out_path / "compare.json");
    examples::print_json(json, rows);
    std::cout << "wrote " << (out_path / "compare.csv").string() << " and " << (out_path / "compare.json").string()
              << '\n';
    return all_passed ? 0 : 1;
}
