#pragma once
// The names a command line may use (cli.hpp checks them while parsing, before any simulation): corpus kernels,
// machines and the schedulers compiled for them.
#include "variants.hpp"

#include <corpus/corpus.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace gpuarch::examples {

// Every corpus kernel, in the corpus's order.
inline std::vector<std::string> corpus_kernel_names() {
    std::vector<std::string> out;
    for (const kernels::CaseInfo& c : kernels::corpus_cases()) out.emplace_back(c.name);
    return out;
}

// Every scheduler any of `machines` has, in first-seen order.
inline std::vector<std::string> scheduler_names(const std::vector<std::string>& machines) {
    std::vector<std::string> out;
    for (const std::string& m : machines)
        for (std::string& s : scheduler_names(m))
            if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(std::move(s));
    return out;
}

} // namespace gpuarch::examples
