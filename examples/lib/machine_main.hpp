#pragma once
// The body of examples/fermi.cpp, kepler.cpp and southern_islands.cpp: run the chosen corpus kernels (default:
// all) on one machine with each of its schedulers, check outputs, print a table or JSON.
#include "report.hpp"
#include "variants.hpp"

#include <corpus/corpus.hpp>

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace gpuarch::examples {

inline int machine_main(const char* machine, int argc, char** argv) {
    std::vector<std::string> kernels;
    bool json = false;
    kernels::Size size = kernels::Size::small;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--json") json = true;
        else if (arg == "--large") size = kernels::Size::large;
        else if (arg == "--help" || arg == "-h") {
            std::cout << "usage: " << argv[0] << " [--json] [--large] [kernel ...]\nkernels:";
            for (const auto& c : kernels::corpus_cases()) std::cout << ' ' << c.name;
            std::cout << '\n';
            return 0;
        } else kernels.push_back(arg);
    }
    if (kernels.empty())
        for (const auto& c : kernels::corpus_cases()) kernels.emplace_back(c.name);
    std::vector<RunRow> rows;
    bool all_passed = true;
    try {
        for (const auto& k : kernels) {
            kernels::find_case(k);
            for (const auto& s : scheduler_names(machine)) {
                rows.push_back(run_variant(machine, s, k, size));
                all_passed = all_passed && rows.back().passed;
            }
        }
    } catch (const std::exception& e) {
        std::cerr << argv[0] << ": " << e.what() << '\n';
        return 2;
    }
    if (json) print_json(std::cout, rows);
    else print_table(std::cout, rows);
    return all_passed ? 0 : 1;
}

} // namespace gpuarch::examples
