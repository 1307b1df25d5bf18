#pragma once
// Tables and JSON for example output.
#include "variants.hpp"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace gpuarch::examples {

// The three most frequent reasons a scheduler did not issue, as "reason pct%" (share of scheduler-cycles).
inline std::string top_stalls(const RunRow& row, std::size_t count = 3) {
    std::vector<std::pair<std::uint64_t, std::string>> reasons;
    std::uint64_t total = 0;
    for (const auto& e : row.stats.entries()) {
        if (e.name.rfind("sm.stall.", 0) != 0) continue;
        total += e.value;
        if (e.name != "sm.stall.issued" && e.value > 0) reasons.emplace_back(e.value, e.name.substr(9));
    }
    std::stable_sort(reasons.begin(), reasons.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::ostringstream os;
    for (std::size_t i = 0; i < reasons.size() && i < count; ++i) {
        char pct[32];
        std::snprintf(pct, sizeof pct, "%.0f%%", total == 0 ? 0.0 : 100.0 * double(reasons[i].first) / double(total));
        os << (i ? ", " : "") << reasons[i].second << ' ' << pct;
    }
    return os.str();
}

inline void print_table(std::ostream& os, const std::vector<RunRow>& rows) {
    os << std::left << std::setw(18) << "kernel" << std::setw(18) << "machine" << std::setw(13) << "scheduler"
       << std::right << std::setw(11) << "cycles" << std::setw(9) << "IPC"
       << "  " << std::left << std::setw(6) << "check"
       << "top stall reasons\n";
    for (const auto& r : rows) {
        char ipc[32];
        std::snprintf(ipc, sizeof ipc, "%.2f", r.ipc());
        os << std::left << std::setw(18) << r.kernel << std::setw(18) << r.machine << std::setw(13) << r.scheduler
           << std::right << std::setw(11) << r.cycles << std::setw(9) << ipc << "  " << std::left << std::setw(6)
           << (r.passed ? "ok" : "FAIL") << (r.passed ? top_stalls(r) : r.message.substr(0, 160)) << '\n';
    }
}

inline std::string to_json(const RunRow& r) {
    std::ostringstream os;
    os << "{\"kernel\":\"" << r.kernel << "\",\"machine\":\"" << r.machine << "\",\"scheduler\":\""
       << core::StatsTable::json_escape(r.scheduler) << "\",\"variant\":\"" << core::StatsTable::json_escape(r.variant)
       << "\",\"size\":\"" << r.size << "\",\"passed\":" << (r.passed ? "true" : "false") << ",\"message\":\""
       << core::StatsTable::json_escape(r.message) << "\",\"cycles\":" << r.cycles
       << ",\"warp_instructions\":" << r.warp_instructions << ",\"thread_instructions\":" << r.thread_instructions
       << ",\"launches\":" << r.launches << ",\"ipc\":" << r.ipc() << ",\"stats\":" << r.stats.to_json() << '}';
    return os.str();
}

inline void print_json(std::ostream& os, const std::vector<RunRow>& rows) {
    os << "[\n";
    for (std::size_t i = 0; i < rows.size(); ++i)
        os << "  " << to_json(rows[i]) << (i + 1 < rows.size() ? ",\n" : "\n");
    os << "]\n";
}

} // namespace gpuarch::examples
