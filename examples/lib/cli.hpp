#pragma once
// Command-line helpers shared by the example programs and the benchmarks.
#include <sstream>
#include <string>
#include <vector>

namespace gpuarch::examples {

// A comma-separated option value as its items: "fermi,,kepler" -> {"fermi", "kepler"} (empty items are dropped).
inline std::vector<std::string> comma_list(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) out.push_back(item);
    return out;
}

} // namespace gpuarch::examples
