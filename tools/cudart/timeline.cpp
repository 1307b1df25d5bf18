#include "timeline.hpp"

#include <gpuarch/core/error.hpp>
#include <gpuarch/support/csv.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <map>

namespace gpuarch::cudart {

using support::csv_field;

namespace {

// The outcomes lines.csv has a stall.<outcome> column for: idle has no instruction to charge, and issued cycles
// are the issue_cycles column.
bool is_line_stall(std::size_t outcome) {
    const auto o = static_cast<timing::IssueOutcome>(outcome);
    return o != timing::IssueOutcome::idle && o != timing::IssueOutcome::issued;
}

std::ofstream open_csv(const std::filesystem::path& path) {
    std::ofstream out(path);
    if (!out) throw Error("timeline: cannot write '" + path.string() + "'");
    return out;
}

} // namespace

TimelineWriter::TimelineWriter(std::filesystem::path dir, const TimelineMeta& meta, std::uint64_t max_bytes)
    : dir_(std::move(dir)), max_bytes_(max_bytes) {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec) throw Error("timeline: cannot create the directory '" + dir_.string() + "': " + ec.message());
    // A directory reused from an earlier run must not keep that run's files beside this run's.
    for (const char* name : {"intervals.csv", "sm_intervals.csv", "totals.json", "lines.csv"})
        std::filesystem::remove(dir_ / name, ec);
    std::filesystem::remove_all(dir_ / "ptx", ec);
    nlohmann::ordered_json j;
    j["format"] = "gpuarch-timeline 1";
    j["program"] = meta.program;
    j["args"] = meta.args;
    j["machine"] = meta.machine;
    j["scheduler"] = meta.scheduler;
    j["register_file"] = meta.register_file;
    j["variant"] = meta.variant;
    j["interval"] = meta.interval;
    j["sms"] = meta.sms;
    std::ofstream out(dir_ / "meta.json");
    if (!out) throw Error("timeline: cannot write '" + (dir_ / "meta.json").string() + "'");
    out << j.dump(1) << "\n";
    gpu_ = open_csv(dir_ / "intervals.csv");
    per_sm_ = open_csv(dir_ / "sm_intervals.csv");
}

bool TimelineWriter::per_sm_column(const std::string& name) {
    static const char* const names[] = {"cycles",           "active_cycles",     "warp_instructions",
                                        "thread_instructions", "resident_warp_cycles", "ready_warp_cycles",
                                        "issue_slots",      "l1.accesses",       "l1.misses",
                                        "l1.mshr_occupancy.sum"};
    return name.rfind("stall.", 0) == 0 || std::find(std::begin(names), std::end(names), name) != std::end(names);
}

void TimelineWriter::start(const TimelineInterval& interval) {
    sm_names_.assign(interval.sm_names.begin(), interval.sm_names.end());
    mem_names_.assign(interval.mem_names.begin(), interval.mem_names.end());
    gpu_ << "launch,kernel,begin,end";
    for (const auto& n : sm_names_) gpu_ << ",sm." << n;
    for (const auto& n : mem_names_) gpu_ << ",mem." << n;
    gpu_ << "\n";
    per_sm_ << "launch,begin,end,sm";
    for (std::size_t k = 0; k < sm_names_.size(); ++k)
        if (per_sm_column(sm_names_[k])) {
            per_sm_columns_.push_back(k);
            per_sm_ << "," << sm_names_[k];
        }
    per_sm_ << "\n";
    started_ = true;
}

void TimelineWriter::write(std::size_t launch, const std::string& kernel, const TimelineInterval& interval) {
    if (!started_) start(interval);
    // One variant per run, so every launch declares the same counters; a different set would shift the columns.
    if (!std::equal(sm_names_.begin(), sm_names_.end(), interval.sm_names.begin(), interval.sm_names.end()) ||
        !std::equal(mem_names_.begin(), mem_names_.end(), interval.mem_names.begin(), interval.mem_names.end()))
        throw Error("timeline: launch " + std::to_string(launch) + " declares other counters than the first launch");
    const std::size_t columns = sm_names_.size();
    sums_.assign(columns, 0);
    // Rows are formatted with to_chars into one buffer per file: ostream's number formatting was most of the cost
    // of an interval.
    line_.clear();
    for (unsigned sm = 0; sm < interval.sms; ++sm) {
        const auto row = interval.sm_row(sm);
        for (std::size_t k = 0; k < columns; ++k) sums_[k] += row[k];
        append_number(launch);
        for (std::uint64_t v : {std::uint64_t{interval.begin}, std::uint64_t{interval.end}, std::uint64_t{sm}})
            append_field(v);
        for (std::size_t k : per_sm_columns_) append_field(row[k]);
        line_ += '\n';
    }
    const std::size_t per_sm_bytes = line_.size();
    per_sm_.write(line_.data(), static_cast<std::streamsize>(line_.size()));
    line_.clear();
    append_number(launch);
    line_ += ',';
    line_ += csv_field(kernel);
    for (std::uint64_t v : {std::uint64_t{interval.begin}, std::uint64_t{interval.end}}) append_field(v);
    for (std::uint64_t v : sums_) append_field(v);
    for (std::uint64_t v : interval.mem_values) append_field(v);
    line_ += '\n';
    gpu_.write(line_.data(), static_cast<std::streamsize>(line_.size()));
    if (!gpu_ || !per_sm_) throw Error("timeline: writing under '" + dir_.string() + "' failed (disk full?)");
    bytes_ += per_sm_bytes + line_.size();
    if (max_bytes_ != 0 && bytes_ > max_bytes_) {
        flush();
        throw Error("timeline: the interval files under '" + dir_.string() + "' reached timeline.max_mb = " +
                    std::to_string(max_bytes_ >> 20) + " MiB at cycle " + std::to_string(interval.end) +
                    "; use a longer interval (--timeline N) or raise timeline.max_mb (0: no limit)");
    }
}

void TimelineWriter::append_number(std::uint64_t value) {
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    line_.append(digits, end);
}

void TimelineWriter::append_field(std::uint64_t value) {
    line_ += ',';
    append_number(value);
}

void TimelineWriter::add_lines(std::size_t module, const std::string& ptx_text, const std::string& ptx_path,
                               const ir::Kernel& kernel, const std::string& display_name,
                               const std::vector<timing::LineCounters>& lines) {
    auto it = std::find_if(kernels_.begin(), kernels_.end(),
                           [&](const KernelLines& k) { return k.module == module && k.name == kernel.name; });
    if (it == kernels_.end()) {
        const std::string file =
            "ptx/module" + std::to_string(module) + "_" + std::filesystem::path(ptx_path).filename().string();
        if (std::none_of(ptx_files_.begin(), ptx_files_.end(), [&](const auto& f) { return f.first == file; }))
            ptx_files_.emplace_back(file, ptx_text);
        KernelLines k;
        k.module = module;
        k.name = kernel.name;
        k.display_name = display_name;
        k.ptx_file = file;
        for (const ir::Instruction& inst : kernel.code) k.ptx_lines.push_back(inst.line);
        k.counters.assign(kernel.code.size(), timing::LineCounters{});
        kernels_.push_back(std::move(k));
        it = kernels_.end() - 1;
    }
    for (std::size_t pc = 0; pc < lines.size() && pc < it->counters.size(); ++pc) it->counters[pc] += lines[pc];
}

void TimelineWriter::write_lines() {
    if (kernels_.empty()) return;
    std::error_code ec;
    std::filesystem::create_directories(dir_ / "ptx", ec);
    std::map<std::string, std::vector<std::string>> source; // PTX text by line, per copied file
    for (const auto& [file, text] : ptx_files_) {
        std::ofstream(dir_ / file) << text;
        auto& lines = source[file];
        std::size_t begin = 0;
        while (begin <= text.size()) {
            const std::size_t end = std::min(text.find('\n', begin), text.size());
            lines.push_back(text.substr(begin, end - begin));
            begin = end + 1;
        }
    }
    std::ofstream out = open_csv(dir_ / "lines.csv");
    out << "kernel,ptx_file,ptx_line,pc,instruction,executions,thread_instructions,issue_cycles";
    for (std::size_t k = 0; k < timing::issue_outcome_count; ++k)
        if (is_line_stall(k)) out << ",stall." << timing::name(static_cast<timing::IssueOutcome>(k));
    out << ",loads,l1_accesses,l1_misses,load_latency_sum\n";
    for (const KernelLines& k : kernels_) {
        const auto& text = source[k.ptx_file];
        for (std::size_t pc = 0; pc < k.counters.size(); ++pc) {
            const timing::LineCounters& c = k.counters[pc];
            const std::uint32_t line = k.ptx_lines[pc];
            std::string instruction = line >= 1 && line <= text.size() ? text[line - 1] : std::string();
            const auto first = instruction.find_first_not_of(" \t");
            instruction = first == std::string::npos ? std::string() : instruction.substr(first);
            out << csv_field(k.display_name) << ',' << csv_field(k.ptx_file) << ',' << line << ',' << pc << ','
                << csv_field(instruction) << ',' << c.warp_instructions << ',' << c.thread_instructions << ','
                << c.cycles[static_cast<std::size_t>(timing::IssueOutcome::issued)];
            for (std::size_t o = 0; o < timing::issue_outcome_count; ++o)
                if (is_line_stall(o)) out << ',' << c.cycles[o];
            out << ',' << c.loads << ',' << c.load_accesses << ',' << c.load_misses << ',' << c.load_latency_cycles
                << '\n';
        }
    }
}

void TimelineWriter::flush() {
    gpu_.flush();
    per_sm_.flush();
}

} // namespace gpuarch::cudart
