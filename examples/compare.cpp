// The comparison demo: every corpus kernel on the Fermi-, Kepler- and Southern-Islands-like machines with each
// scheduler (LRR, GTO, TwoLevel<8>). Checks every output against its CPU reference, prints the headline table
// (speedup over LRR per kernel and machine) and the per-variant details, and writes CSV and JSON for plotting.
//
//   compare [--large] [--out DIR] [--kernels a,b,c] [--machines fermi,kepler] [--quiet] [--details FILE]
//
// The headline table comes first on stdout; the per-variant details follow it, or go to FILE with --details
// (scripts/demo.sh does that, so the headline table and the plot are what the demo shows).
#include "lib/cli.hpp"
#include "lib/report.hpp"
#include "lib/variants.hpp"

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
    kernels::Size size = kernels::Size::small;
    std::filesystem::path out_dir = "out";
    std::vector<std::string> kernel_names, machine_names = examples::machine_names();
    bool details = true;
    std::filesystem::path details_file;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::cerr << "compare: " << arg << " needs a value\n";
                std::exit(2);
            }
            return argv[++i];
        };
        if (arg == "--large") size = kernels::Size::large;
        else if (arg == "--out") out_dir = value();
        else if (arg == "--kernels") kernel_names = examples::comma_list(value());
        else if (arg == "--machines") machine_names = examples::comma_list(value());
        else if (arg == "--quiet") details = false;
        else if (arg == "--details") details_file = value();
        else {
            std::cerr << "usage: compare [--large] [--out DIR] [--kernels a,b] [--machines fermi,kepler,southern_islands] "
                         "[--quiet] [--details FILE]\n";
            return arg == "--help" ? 0 : 2;
        }
    }
    if (kernel_names.empty())
        for (const auto& c : kernels::corpus_cases()) kernel_names.emplace_back(c.name);

    std::vector<examples::RunRow> rows;
    bool all_passed = true;
    try {
        for (const auto& m : machine_names)
            for (const auto& k : kernel_names)
                for (const auto& s : examples::scheduler_names(m)) {
                    rows.push_back(examples::run_variant(m, s, k, size));
                    all_passed = all_passed && rows.back().passed;
                    std::cerr << "\r" << rows.size() << " runs" << std::flush;
                }
        std::cerr << "\n";
    } catch (const std::exception& e) {
        std::cerr << "compare: " << e.what() << '\n';
        return 2;
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
    for (const auto& m : machine_names)
        for (const auto& s : examples::scheduler_names(m))
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
        if (details_file.has_parent_path()) std::filesystem::create_directories(details_file.parent_path());
        std::ofstream out(details_file);
        examples::print_table(out, rows);
        if (!out) {
            std::cerr << "compare: cannot write " << details_file.string() << '\n';
            return 2;
        }
        std::cout << "per-variant details (cycles, IPC, top stall reasons): " << details_file.string() << '\n';
    } else if (details) {
        examples::print_table(std::cout, rows);
        std::cout << '\n';
    }

    std::filesystem::create_directories(out_dir);
    std::ofstream csv(out_dir / "compare.csv");
    csv << "kernel,machine,scheduler,cycles,ipc,warp_instructions,thread_instructions,passed\n";
    for (const auto& r : rows)
        csv << r.kernel << ',' << r.machine << ',' << r.scheduler << ',' << r.cycles << ',' << r.ipc() << ','
            << r.warp_instructions << ',' << r.thread_instructions << ',' << (r.passed ? 1 : 0) << '\n';
    std::ofstream json(out_dir / "compare.json");
    examples::print_json(json, rows);
    std::cout << "wrote " << (out_dir / "compare.csv").string() << " and " << (out_dir / "compare.json").string()
              << '\n';
    return all_passed ? 0 : 1;
}
