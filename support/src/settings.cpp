#include <gpuarch/support/settings.hpp>

#include <gpuarch/core/error.hpp>

#include <algorithm>
#include <charconv>
#include <fstream>

namespace gpuarch::support {

namespace {
using Type = SettingKey::Type;
} // namespace

const std::vector<SettingKey>& setting_keys() {
    static const std::vector<SettingKey> keys{
        // The variant: names map to prebuilt compile-time types (support/src/registry.cpp).
        {"machine", Type::text, "kepler", "", "machine preset (gpuarch-run --list shows them)"},
        {"scheduler", Type::text, "gto", "", "warp scheduler policy, GPGPU-Sim's name where one exists"},
        {"register_file", Type::text, "ideal", "", "register-file policy"},
        // How kernels run.
        {"functional", Type::boolean, "false", "",
         "execute kernels on the functional engine only (no timing; cycles are reported as 0)"},
        {"host_threads", Type::unsigned_integer, "1", "",
         "host threads that tick the SMs (0: GPUARCH_HOST_THREADS, else 1; more than 1 ticks in parallel where "
         "measured faster, docs/performance.md); results are identical for every value"},
        {"placement", Type::choice, "round_robin", "round_robin|clustered",
         "CTA placement: round-robin (GPGPU-Sim's default) or adjacent CTAs on one SM (Gong 2020 Ch. 6)"},
        {"registers", Type::choice, "auto", "auto|cubin|ptxas",
         "where registers per thread come from: the program's own cubin, ptxas on the extracted PTX, or the cubin "
         "then ptxas (auto)"},
        {"registers_per_thread", Type::unsigned_integer, "0", "",
         "force this register count for every kernel (0: from `registers`)"},
        {"device_memory_mb", Type::unsigned_integer, "4096", "", "simulated device memory capacity in MiB"},
        // Limits that stop a kernel that will not finish.
        {"max_cycles", Type::unsigned_integer, "20000000", "",
         "stop a launch after this many simulated cycles (0: no limit); at the documented speeds a runaway kernel "
         "stops within a minute"},
        {"max_warp_instructions", Type::unsigned_integer, "40000000", "",
         "stop a launch after this many warp instructions (0: no limit)"},
        {"deadlock_cycles", Type::unsigned_integer, "1000000", "",
         "report a deadlock after this many cycles without an issued instruction"},
        {"livelock_cycles", Type::unsigned_integer, "20000000", "",
         "report a livelock after this many cycles in which warps issue but no CTA finishes and nothing is "
         "written to global or shared memory (0: off)"},
        // Output.
        {"stats", Type::text, "", "", "write every launch's statistics to this JSON file at exit"},
        {"progress", Type::choice, "auto", "auto|on|off",
         "a progress line on stderr for long kernels (auto: only when stderr is a terminal)"},
        {"quiet", Type::boolean, "false", "", "no per-kernel statistics on stderr (totals only)"},
        {"timeline", Type::unsigned_integer, "0", "",
         "interval statistics every N simulated cycles of each launch, streamed to CSV in `timeline.dir` for "
         "gpuarch-report (docs/timeline.md; 0: off)"},
        {"timeline.dir", Type::text, "", "",
         "the timeline's run directory (empty: PROGRAM.MACHINE.SCHEDULER.timeline in the working directory)"},
        {"timeline.max_mb", Type::unsigned_integer, "4096", "",
         "stop the run with an error when the timeline's interval files pass this many MiB (0: no limit)"},
        {"stats_format", Type::choice, "gpuarch", "gpuarch|gpgpusim",
         "the statistics on stderr: gpuarch's own, or GPGPU-Sim's names and definitions (docs/gtx480.md)"},
        // Machine knobs; empty default = the machine preset's value.
        {"l1.mshr_entries", Type::unsigned_integer, "", "", "L1 MSHR entries"},
        {"l1.mshr_max_requests", Type::unsigned_integer, "", "", "requests one L1 MSHR entry merges"},
        {"l1.miss_queue", Type::unsigned_integer, "", "", "L1 miss-queue depth"},
        {"l1.hit_latency", Type::unsigned_integer, "", "", "L1 hit latency in cycles"},
        {"l1.sets", Type::unsigned_integer, "", "", "L1 data-cache sets"},
        {"l1.ways", Type::unsigned_integer, "", "", "L1 data-cache ways"},
        {"l1.line_bytes", Type::unsigned_integer, "", "", "L1 line size in bytes"},
        {"l1.allocation", Type::choice, "", "on_fill|on_miss", "L1 line allocation policy"},
        {"l1.cache_global_loads", Type::boolean, "", "", "whether global loads are cached in the L1"},
        {"l1.cache_texture_loads", Type::boolean, "", "",
         "whether texture fetches and surface loads are cached in the L1 (the texture cache)"},
        {"l1.flush_between_kernels", Type::boolean, "", "",
         "whether the L1 data cache is invalidated before each launch (GPGPU-Sim's -gpgpu_flush_l1_cache)"},
        {"l1.reexecution_entries", Type::unsigned_integer, "", "",
         "MASCAR cache-access re-execution queue entries (0: none)"},
        {"l2.sets", Type::unsigned_integer, "", "", "sets of one L2 slice"},
        {"l2.ways", Type::unsigned_integer, "", "", "ways of one L2 slice"},
        {"l2.latency", Type::unsigned_integer, "", "", "minimum L2 latency in core cycles"},
        {"l2.mshr_entries", Type::unsigned_integer, "", "", "MSHR entries of one L2 slice"},
        {"dram.latency", Type::unsigned_integer, "", "", "minimum DRAM latency in core cycles"},
        {"dram.queue_capacity", Type::unsigned_integer, "", "", "DRAM request-queue entries per channel"},
        {"dram.banks", Type::unsigned_integer, "", "", "DRAM banks per channel"},
        {"dram.bank_groups", Type::unsigned_integer, "", "", "DRAM bank groups per channel (tCCDL within a group)"},
        {"dram.return_queue", Type::unsigned_integer, "", "",
         "completed DRAM requests a channel holds for its L2 slice (0: twice the request queue plus 8)"},
        {"memory.partitions", Type::unsigned_integer, "", "", "memory partitions (L2 slice + DRAM channel each)"},
        // Sampling for long runs (docs/sampling.md).
        {"sample", Type::boolean, "false", "",
         "sampled timing: long launches simulate some CTAs in detail and repeated launches some launches; the "
         "rest run on the functional engine and their cycles and statistics are extrapolated, each with a stated "
         "error"},
        {"sample.ctas", Type::boolean, "true", "", "with `sample`: sample the CTAs of long launches"},
        {"sample.batches", Type::unsigned_integer, "10", "",
         "with `sample`: waves of CTAs simulated in detail, spread over a long launch, besides its first two and "
         "its last"},
        {"sample.launch_warmup", Type::unsigned_integer, "2", "",
         "with `sample`: launches of a repeated kernel (same grid and block) that warm the caches and are left "
         "out of its estimates; two more run in detail before the first estimate"},
        {"sample.launch_period", Type::unsigned_integer, "10", "",
         "with `sample`: every N-th launch of a repeated kernel runs in detail (0: every launch)"},
        {"sample.launch_tolerance", Type::number, "0.02", "",
         "with `sample`: a repeated launch is estimated only while the stated error is at most this fraction"},
        {"sample.fast_forward", Type::text, "", "",
         "run launches before this one on the functional engine only: a launch index (0-based), a kernel name, or "
         "NAME#K for its K-th launch (empty: none)"},
        {"sample.warm_launches", Type::unsigned_integer, "0", "",
         "with an index in `sample.fast_forward`: launches just before it run in detail to warm the caches (not "
         "counted; 0: the target starts cold)"},
    };
    return keys;
}

namespace {

const SettingKey* find_key(std::string_view key) {
    for (const auto& k : setting_keys())
        if (k.key == key) return &k;
    return nullptr;
}

std::string trim(std::string_view s) {
    const auto b = s.find_first_not_of(" \t\r");
    if (b == std::string_view::npos) return {};
    const auto e = s.find_last_not_of(" \t\r");
    return std::string(s.substr(b, e - b + 1));
}

std::string prefixed(std::string_view origin, const std::string& message) {
    return origin.empty() ? message : std::string(origin) + ": " + message;
}

std::optional<std::uint64_t> parse_uint(std::string_view v) {
    std::uint64_t out = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (ec != std::errc() || end != v.data() + v.size() || v.empty()) return std::nullopt;
    return out;
}

std::optional<double> parse_number(std::string_view v) {
    double out = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (ec != std::errc() || end != v.data() + v.size() || v.empty() || !(out >= 0)) return std::nullopt;
    return out;
}

std::optional<bool> parse_bool(std::string_view v) {
    if (v == "true" || v == "1" || v == "on" || v == "yes") return true;
    if (v == "false" || v == "0" || v == "off" || v == "no") return false;
    return std::nullopt;
}

} // namespace

void Settings::set(std::string_view key_text, std::string_view value_text, std::string_view origin) {
    const std::string key = trim(key_text);
    const std::string value = trim(value_text);
    const SettingKey* k = find_key(key);
    if (k == nullptr) {
        std::string valid;
        for (const auto& s : setting_keys()) valid += (valid.empty() ? "" : ", ") + std::string(s.key);
        throw Error(prefixed(origin, "unknown setting '" + key + "'; valid settings: " + valid));
    }
    switch (k->type) {
    case Type::unsigned_integer:
        if (!parse_uint(value))
            throw Error(prefixed(origin, "setting '" + key + "' needs a non-negative integer, got '" + value + "'"));
        break;
    case Type::number:
        if (!parse_number(value))
            throw Error(prefixed(origin, "setting '" + key + "' needs a non-negative number, got '" + value + "'"));
        break;
    case Type::boolean:
        if (!parse_bool(value))
            throw Error(prefixed(origin, "setting '" + key + "' needs true or false, got '" + value + "'"));
        break;
    case Type::choice: {
        bool ok = false;
        std::string_view rest = k->choices;
        while (!rest.empty()) {
            const auto bar = rest.find('|');
            ok = ok || rest.substr(0, bar) == value;
            rest = bar == std::string_view::npos ? std::string_view{} : rest.substr(bar + 1);
        }
        if (!ok) {
            std::string valid(k->choices);
            std::replace(valid.begin(), valid.end(), '|', ',');
            throw Error(prefixed(origin, "setting '" + key + "' has no value '" + value + "'; valid values: " + valid));
        }
        break;
    }
    case Type::text: break;
    }
    values_[key] = value;
}

void Settings::load_file(const std::filesystem::path& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw Error("config file '" + path.string() + "' is a directory");
    std::ifstream in(path);
    if (!in) throw Error("cannot open config file '" + path.string() + "'");
    std::string line;
    unsigned number = 0;
    while (std::getline(in, line)) {
        ++number;
        const std::string origin = path.string() + ":" + std::to_string(number);
        if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
        const std::string text = trim(line);
        if (text.empty()) continue;
        const auto eq = text.find('=');
        if (eq == std::string::npos) throw Error(origin + ": expected 'key = value', got '" + text + "'");
        set(text.substr(0, eq), text.substr(eq + 1), origin);
    }
}

void Settings::load_list(std::string_view list, std::string_view origin) {
    while (!list.empty()) {
        const auto end = list.find_first_of(";\n");
        const std::string item = trim(list.substr(0, end));
        list = end == std::string_view::npos ? std::string_view{} : list.substr(end + 1);
        if (item.empty()) continue;
        const auto eq = item.find('=');
        if (eq == std::string::npos) throw Error(prefixed(origin, "expected key=value, got '" + item + "'"));
        set(item.substr(0, eq), item.substr(eq + 1), origin);
    }
}

std::string Settings::to_list() const {
    std::string out;
    for (const auto& [k, v] : values_) out += k + "=" + v + "\n";
    return out;
}

std::string Settings::get(std::string_view key) const {
    if (auto it = values_.find(std::string(key)); it != values_.end()) return it->second;
    const SettingKey* k = find_key(key);
    if (k == nullptr) throw Error("internal: no setting '" + std::string(key) + "'");
    return std::string(k->default_value);
}

std::uint64_t Settings::get_uint(std::string_view key) const {
    const std::string v = get(key);
    const auto n = parse_uint(v);
    if (!n) throw Error("setting '" + std::string(key) + "' has no numeric value");
    return *n;
}

double Settings::get_number(std::string_view key) const {
    const auto n = parse_number(get(key));
    if (!n) throw Error("setting '" + std::string(key) + "' has no numeric value");
    return *n;
}

bool Settings::get_bool(std::string_view key) const {
    const auto b = parse_bool(get(key));
    return b.value_or(false);
}

std::optional<std::uint64_t> Settings::uint_if_set(std::string_view key) const {
    if (!has(key)) return std::nullopt;
    return get_uint(key);
}

std::vector<std::pair<std::string, std::string>> Settings::explicit_with_prefix(std::string_view prefix) const {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [k, v] : values_)
        if (std::string_view(k).substr(0, prefix.size()) == prefix) out.emplace_back(k, v);
    return out;
}

} // namespace gpuarch::support
