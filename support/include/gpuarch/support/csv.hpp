#pragma once
// CSV output shared by the tools (sweep's tables, gpuarch-run's timeline).
#include <string>

namespace gpuarch::support {

// One field as RFC 4180 writes it: quoted when it holds a comma, a quote or a line break, its quotes doubled
// (kernel names and PTX text carry commas).
inline std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + '"';
}

} // namespace gpuarch::support
