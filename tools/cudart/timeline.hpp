#pragma once
// The run directory of `gpuarch-run --timeline N` (docs/timeline.md): interval statistics streamed to CSV while the
// program runs, so memory use does not grow with the run's length.
//   meta.json          the program, its arguments, the variant and the interval
//   intervals.csv      one row per interval: launch, kernel, begin, end, then every counter summed over the SMs
//                      (`sm.` names) and the memory system's (`mem.` names)
//   sm_intervals.csv   one row per SM per interval: launch, begin, end, sm, then the per-SM columns below
//   totals.json        the end-of-run statistics (the Reporter writes it, as for --stats)
//   lines.csv          per instruction of every kernel that ran, summed over its launches (timing/line_stats.hpp):
//                      kernel, ptx_file, ptx_line, pc, instruction (the PTX line's text), executions, thread
//                      instructions, issue_cycles, stall.<reason> scheduler-cycles, loads, their L1 accesses and
//                      misses, load_latency_sum
//   ptx/               each module's PTX, which lines.csv's ptx_file and ptx_line point into
#include <gpuarch/ir/module.hpp>
#include <gpuarch/timeline.hpp>
#include <gpuarch/timing/line_stats.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace gpuarch::cudart {

struct TimelineMeta {
    std::string program;
    std::vector<std::string> args;
    std::string machine, scheduler, register_file, variant;
    std::uint64_t interval = 0;
    unsigned sms = 0;
};

class TimelineWriter {
public:
    // Creates `dir` (and its parents) and writes meta.json; throws gpuarch::Error when it cannot. The interval files
    // may grow to `max_bytes` together (0: no limit); the interval that would pass it throws instead, so that a
    // tiny interval on a long run stops with a message rather than filling the disk.
    TimelineWriter(std::filesystem::path dir, const TimelineMeta& meta, std::uint64_t max_bytes);

    // One interval of launch `launch` (the index of its entry in totals.json's launches) of kernel `kernel`.
    void write(std::size_t launch, const std::string& kernel, const TimelineInterval& interval);
    void flush();

    // Adds a launch's per-line counters to its kernel's; `module` numbers the program's modules, whose PTX text is
    // copied once into ptx/.
    void add_lines(std::size_t module, const std::string& ptx_text, const std::string& ptx_path,
                   const ir::Kernel& kernel, const std::string& display_name,
                   const std::vector<timing::LineCounters>& lines);
    // lines.csv and ptx/, at exit.
    void write_lines();

    const std::filesystem::path& dir() const { return dir_; }

    // The per-SM columns of sm_intervals.csv, where the SM declares them: what a heat map and the per-SM views need.
    static bool per_sm_column(const std::string& name);

private:
    void start(const TimelineInterval& interval);
    void append_number(std::uint64_t value);
    void append_field(std::uint64_t value); // a comma, then the number

    std::filesystem::path dir_;
    std::ofstream gpu_, per_sm_;
    bool started_ = false;
    std::vector<std::string> sm_names_, mem_names_; // the columns, as the first interval named them
    std::vector<std::size_t> per_sm_columns_; // indices into sm_names_
    std::vector<std::uint64_t> sums_;
    std::string line_; // the rows being formatted
    std::uint64_t max_bytes_ = 0, bytes_ = 0; // the limit on the interval files, and what they hold
    struct KernelLines {
        std::size_t module = 0;
        std::string name, display_name, ptx_file;
        std::vector<std::uint32_t> ptx_lines; // per PC
        std::vector<timing::LineCounters> counters; // per PC
    };
    std::vector<KernelLines> kernels_; // in the order of their first launch
    std::vector<std::pair<std::string, std::string>> ptx_files_; // (file under dir_, PTX text)
};

} // namespace gpuarch::cudart
