#include "record.hpp"

#include <gpuarch/core/error.hpp>
#include <gpuarch/support/csv.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>
#include <system_error>
#include <utility>

namespace gpuarch::sweep {

namespace fs = std::filesystem;
using support::csv_field;

fs::path result_path(const fs::path& out, const std::string& id) { return out / "results" / (id + ".json"); }
fs::path log_path(const fs::path& out, const std::string& id) { return out / "logs" / (id + ".log"); }

namespace {

Record point_fields(const Point& point, std::string_view status) {
    Record r = Record::object();
    r["id"] = point_id(point);
    const nlohmann::json fields = point_json(point);
    for (const char* key :
         {"machine", "scheduler", "kernel", "size", "mshr_entries", "allocate_on_fill", "clustered_ctas"})
        r[key] = fields.at(key);
    r["status"] = std::string(status);
    return r;
}

// A JSON scalar as CSV text: strings raw, null as "preset" (the only null a record holds is a preset knob).
std::string scalar_text(const Record& value) {
    if (value.is_string()) return value.get<std::string>();
    if (value.is_null()) return "preset";
    return value.dump();
}

std::string stat_text(const Record& value) {
    if (!value.is_array()) return value.dump();
    std::string out;
    for (const auto& bucket : value) out += (out.empty() ? "" : " ") + bucket.dump();
    return out;
}

std::string top_stalls(const Record& stats, std::size_t count = 3) {
    std::vector<std::pair<std::uint64_t, std::string>> reasons;
    std::uint64_t total = 0;
    for (const auto& [name, value] : stats.items()) {
        if (name.rfind("sm.stall.", 0) != 0 || !value.is_number_unsigned()) continue;
        const auto v = value.get<std::uint64_t>();
        total += v;
        if (name != "sm.stall.issued" && v > 0) reasons.emplace_back(v, name.substr(9));
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

} // namespace

Record make_record(const Point& point, const examples::RunRow& row) {
    Record r = point_fields(point, row.passed ? "ok" : "failed");
    r["passed"] = row.passed;
    r["message"] = row.message;
    r["variant"] = row.variant;
    r["cycles"] = row.cycles;
    r["warp_instructions"] = row.warp_instructions;
    r["thread_instructions"] = row.thread_instructions;
    r["launches"] = row.launches;
    r["ipc"] = row.ipc();
    r["host_seconds"] = row.host_seconds;
    r["sim_seconds"] = row.sim_seconds;
    r["log"] = "logs/" + point_id(point) + ".log";
    Record stats = Record::object();
    for (const auto& e : row.stats.entries()) {
        if (e.is_histogram) stats[e.name] = e.buckets;
        else stats[e.name] = e.value;
    }
    r["stats"] = std::move(stats);
    return r;
}

Record make_error_record(const Point& point, std::string_view status, const std::string& message) {
    Record r = point_fields(point, status);
    r["passed"] = false;
    r["message"] = message;
    r["variant"] = "";
    r["cycles"] = 0;
    r["warp_instructions"] = 0;
    r["thread_instructions"] = 0;
    r["launches"] = 0;
    r["ipc"] = 0.0;
    r["host_seconds"] = 0.0;
    r["sim_seconds"] = 0.0;
    r["log"] = "logs/" + point_id(point) + ".log";
    r["stats"] = Record::object();
    return r;
}

Record execute_point(const Point& point) {
    try {
        examples::RunKnobs knobs;
        knobs.mshr_entries = point.mshr_entries;
        knobs.allocate_on_fill = point.allocate_on_fill;
        knobs.clustered_ctas = point.clustered_ctas;
        return make_record(point,
                           examples::run_variant(point.machine, point.scheduler, point.kernel, point.size, knobs));
    } catch (const std::exception& e) {
        return make_error_record(point, "failed", e.what());
    } catch (...) {
        return make_error_record(point, "failed", "an exception that is not a std::exception");
    }
}

void write_record(const fs::path& out, const std::string& id, const Record& record) {
    const fs::path final_path = result_path(out, id);
    fs::create_directories(final_path.parent_path());
    // The temporary name carries the pid: two writers of one point (a resumed sweep racing a stale one) never
    // share a temporary file, and the rename makes the last complete record win.
    const fs::path temp = final_path.parent_path() / ("." + id + ".json.tmp." + std::to_string(::getpid()));
    {
        std::ofstream os(temp, std::ios::binary | std::ios::trunc);
        os << record.dump() << '\n';
        os.flush();
        if (!os) throw Error("cannot write " + temp.string());
    }
    std::error_code ec;
    fs::rename(temp, final_path, ec);
    if (ec) throw Error("cannot rename " + temp.string() + " to " + final_path.string() + ": " + ec.message());
}

std::optional<Record> read_record(const fs::path& out, const std::string& id) {
    std::ifstream in(result_path(out, id), std::ios::binary);
    if (!in) return std::nullopt;
    try {
        Record r = Record::parse(in);
        if (!r.is_object() || !r.contains("status") || !r.contains("id") || r["id"] != id) return std::nullopt;
        return r;
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;
    }
}

std::string tail_of(const fs::path& file, std::size_t lines) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return "";
    std::deque<std::string> last;
    for (std::string line; std::getline(in, line);) {
        last.push_back(std::move(line));
        if (last.size() > lines) last.pop_front();
    }
    std::string out;
    for (const auto& line : last) out += line + '\n';
    return out;
}

Merged merge(const std::vector<Point>& points, const fs::path& out) {
    Merged m;
    for (std::size_t i = 0; i < points.size(); ++i) {
        auto record = read_record(out, point_id(points[i]));
        if (!record) {
            m.missing.push_back(i);
            continue;
        }
        if ((*record)["status"] == "ok") ++m.ok;
        else ++m.failed;
        m.present.push_back(i);
        m.records.push_back(std::move(*record));
    }
    return m;
}

void write_csv(std::ostream& os, const Merged& merged) {
    static const char* const fixed[] = {"id",
                                        "machine",
                                        "scheduler",
                                        "kernel",
                                        "size",
                                        "mshr_entries",
                                        "allocate_on_fill",
                                        "clustered_ctas",
                                        "status",
                                        "passed",
                                        "cycles",
                                        "ipc",
                                        "warp_instructions",
                                        "thread_instructions",
                                        "launches",
                                        "host_seconds",
                                        "sim_seconds",
                                        "variant",
                                        "message"};
    std::vector<std::string> stat_names;
    std::map<std::string, bool> seen;
    for (const auto& r : merged.records)
        if (r.contains("stats"))
            for (const auto& [name, value] : r["stats"].items())
                if (seen.emplace(name, true).second) stat_names.push_back(name);

    os << "id,index";
    for (std::size_t i = 1; i < std::size(fixed); ++i) os << ',' << fixed[i];
    for (const auto& name : stat_names) os << ',' << csv_field(name);
    os << '\n';
    for (std::size_t k = 0; k < merged.records.size(); ++k) {
        const Record& r = merged.records[k];
        os << csv_field(scalar_text(r["id"])) << ',' << merged.present[k];
        for (std::size_t i = 1; i < std::size(fixed); ++i)
            os << ',' << (r.contains(fixed[i]) ? csv_field(scalar_text(r[fixed[i]])) : std::string());
        const Record empty = Record::object();
        const Record& stats = r.contains("stats") ? r["stats"] : empty;
        for (const auto& name : stat_names)
            os << ',' << (stats.contains(name) ? csv_field(stat_text(stats[name])) : "");
        os << '\n';
    }
}

void write_csv_file(const fs::path& file, const Merged& merged) {
    fs::create_directories(file.parent_path());
    const fs::path temp = file.parent_path() / ("." + file.filename().string() + ".tmp." + std::to_string(::getpid()));
    {
        std::ofstream os(temp, std::ios::binary | std::ios::trunc);
        write_csv(os, merged);
        if (!os) throw Error("cannot write " + temp.string());
    }
    fs::rename(temp, file);
}

void print_summary(std::ostream& os, const Merged& merged) {
    os << std::left << std::setw(18) << "kernel" << std::setw(17) << "machine" << std::setw(12) << "scheduler"
       << std::setw(6) << "size" << std::setw(7) << "mshr" << std::setw(8) << "alloc" << std::setw(10) << "ctas"
       << std::right << std::setw(11) << "cycles" << std::setw(8) << "IPC"
       << "  " << std::left << std::setw(8) << "status"
       << "top stall reasons / error\n";
    for (const auto& r : merged.records) {
        const std::string alloc = r["allocate_on_fill"].is_null()     ? "preset"
                                  : r["allocate_on_fill"].get<bool>() ? "fill"
                                                                      : "miss";
        char ipc[32];
        std::snprintf(ipc, sizeof ipc, "%.2f", r["ipc"].get<double>());
        const bool ok = r["status"] == "ok";
        std::string detail = ok ? top_stalls(r["stats"]) : r["message"].get<std::string>();
        std::replace(detail.begin(), detail.end(), '\n', ' ');
        os << std::left << std::setw(18) << r["kernel"].get<std::string>() << std::setw(17)
           << r["machine"].get<std::string>() << std::setw(12) << r["scheduler"].get<std::string>() << std::setw(6)
           << r["size"].get<std::string>() << std::setw(7) << scalar_text(r["mshr_entries"]) << std::setw(8) << alloc
           << std::setw(10) << (r["clustered_ctas"].get<bool>() ? "clustered" : "rr") << std::right << std::setw(11)
           << r["cycles"].get<std::uint64_t>() << std::setw(8) << ipc << "  " << std::left << std::setw(8)
           << r["status"].get<std::string>() << detail.substr(0, 160) << '\n';
    }
    os << merged.records.size() << " of " << merged.records.size() + merged.missing.size()
       << " points have results: " << merged.ok << " ok, " << merged.failed << " failed or crashed, "
       << merged.missing.size() << " missing\n";
}

} // namespace gpuarch::sweep
