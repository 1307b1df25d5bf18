#pragma once
// What the CUDA runtime reports: a block of statistics on stderr at each kernel's end, totals at exit, every launch
// and counter as JSON (setting `stats`), and a progress line for long kernels when stderr is a terminal.
#include <gpuarch/core/stats.hpp>
#include <gpuarch/func/dim3.hpp>
#include <gpuarch/support/simulator.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace gpuarch::cudart {

// One statistic under GPGPU-Sim's name (gpgpusim_stats below).
struct GpgpusimStat {
    std::string name;
    double value = 0;
    bool integer = true; // printed as an integer; otherwise with four decimals, as GPGPU-Sim prints rates
    std::string text() const;
};

struct LaunchReport {
    std::string kernel; // the PTX entry (mangled for C++ kernels)
    std::string display_name; // demangled
    func::Dim3 grid, block;
    std::uint32_t dynamic_shared = 0, static_shared = 0;
    unsigned registers = 0;
    std::string register_source; // "cubin sm_75", "ptxas sm_75", "setting"
    std::uint64_t cycles = 0, warp_instructions = 0, thread_instructions = 0, ctas = 0;
    unsigned resident_ctas_per_sm = 0;
    double host_seconds = 0;
    std::string error; // empty when the launch completed
    core::StatsTable stats;
    std::vector<GpgpusimStat> gpgpusim; // with stats_format = gpgpusim, computed once when the launch completes
    // Sampling (docs/sampling.md): how the launch ran (sample::to_string(LaunchMode), "" without sampling), the
    // CTAs simulated in detail, and the stated errors of the extrapolated or estimated figures (0 / empty: exact).
    std::string sampling;
    std::uint64_t detailed_ctas = 0;
    double cycles_error = 0;
    core::StatsTable stats_error;
    // Whether the run's totals include this launch: not when fast-forwarded or run as warm-up.
    bool counted() const { return sampling != "fast-forward" && sampling != "warm-up"; }
    // Whether its figures are partly extrapolated: an estimated launch, or one whose CTAs were sampled.
    bool sampled() const {
        return sampling == "estimated" || ((sampling == "detailed" || sampling == "warm-up") && detailed_ctas < ctas);
    }
};

// The headline figures of a launch, computed from its statistics table (names as core::StatsTable collects them
// from GPU<...>: "sm." for the SMs, "mem." for the memory system).
struct Summary {
    double ipc = 0; // thread instructions per cycle
    double achieved_occupancy = 0; // average resident warps per active SM cycle / warps an SM holds
    std::uint64_t l1_accesses = 0, l1_misses = 0, l2_accesses = 0, l2_misses = 0;
    std::uint64_t dram_reads = 0, dram_writes = 0, dram_bytes = 0;
    std::vector<std::pair<std::string, std::uint64_t>> stalls; // issue outcomes other than "issued", largest first
    std::uint64_t issue_slots_total = 0;
};
Summary summarise(const LaunchReport& r, const support::MachineInfo& machine);

// A launch's (or a run's) statistics under GPGPU-Sim's names and definitions, in the order GPGPU-Sim prints them
// (docs/gtx480.md, "Statistics with GPGPU-Sim's definitions"). `tot_cycles`/`tot_insn` are the run's totals up to and
// including this launch (GPGPU-Sim's gpu_tot_*).
std::vector<GpgpusimStat> gpgpusim_stats(const core::StatsTable& t, std::uint64_t cycles, std::uint64_t insn,
                                         std::uint64_t tot_cycles, std::uint64_t tot_insn,
                                         const support::MachineInfo& machine);

class Reporter {
public:
    struct Options {
        bool quiet = false; // no per-kernel block
        bool progress = false; // progress lines on stderr (on a terminal)
        std::vector<std::string> json_paths; // write every launch to each of these files at exit (--stats, the timeline)
        std::string variant; // the simulator's description
        bool functional = false;
        bool gpgpusim_format = false; // setting stats_format = gpgpusim
    };

    void configure(Options o, support::MachineInfo machine) {
        options_ = std::move(o);
        machine_ = std::move(machine);
    }
    // A launch begins: its progress lines measure from now.
    void launch_started() { launch_start_ = std::chrono::steady_clock::now(); }
    // Progress callback target: prints at most a few lines per second, only when enabled.
    void progress(const std::string& kernel, std::uint64_t cycles, std::uint64_t ctas_done, std::uint64_t ctas_total);
    void launch_finished(LaunchReport r);
    // Launches reported so far: the index the next one gets in the JSON's `launches`.
    std::size_t launches_reported() const { return launches_.size(); }
    // Totals on stderr and the JSON file; called once, at exit.
    void finish();

private:
    void clear_progress_line();
    // Every completed launch's statistics merged (counters summed).
    core::StatsTable run_stats() const;

    Options options_;
    support::MachineInfo machine_;
    std::vector<LaunchReport> launches_;
    std::uint64_t tot_cycles_ = 0, tot_insn_ = 0; // GPGPU-Sim's gpu_tot_sim_cycle / gpu_tot_sim_insn so far
    bool progress_shown_ = false;
    std::chrono::steady_clock::time_point launch_start_ = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point last_progress_{};
    bool finished_ = false;
};

std::string demangle(const std::string& name);
// "(x,y,z)"
std::string dims(const func::Dim3& d);

} // namespace gpuarch::cudart
