#pragma once
// What GPU<SM, N>::launch takes and returns (TimingOptions, LaunchResult), apart from the GPU itself.
//
// Contract: this header names no SM, scheduler or memory-system type, so code that only passes options and results
// along (the CUDA runtime, gpuarch-run, reports) includes it instead of gpu.hpp and does not recompile when an SM
// header changes. gpu.hpp includes it; the types are the same.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <gpuarch/core/cycle.hpp>
#include <gpuarch/core/stats.hpp>
#include <gpuarch/sample/cta_sampler.hpp>
#include <gpuarch/timeline.hpp>
#include <gpuarch/timing/line_stats.hpp>

namespace gpuarch {

// How CTAs are placed on SMs.
enum class CtaPlacement : std::uint8_t {
    round_robin, // CTA i goes to the next SM (round-robin) that has room: GPGPU-Sim's and Multi2Sim's default
    clustered, // adjacent CTAs fill one SM before the next (Gong 2020 Ch. 6, locality-aware dispatch)
};

struct TimingOptions {
    // Registers per thread for occupancy; 0 = read the `.resources` file that kernels/regen writes beside the
    // PTX (ptxas -v). A launch with neither is an error: guessing would silently change occupancy.
    unsigned registers_per_thread = 0;
    CtaPlacement placement = CtaPlacement::round_robin;
    // Kernel-launch locality hint, Gong 2020 Table 6.1 (`Kernel<<<grid, block, hint>>>`): 0 not specified,
    // 1 multiple cache lines shared among blocks, 2 boundary cache lines shared, 3 some data and constants shared.
    // Hints 1-3 place CTAs clustered (whatever `placement` says) and reach the schedulers (on_launch_hint), where
    // sched::LocalityTwoLevel groups warps by it; 0 keeps `placement`. Values above 3 are rejected.
    unsigned launch_hint = 0;
    // Consecutive CTAs an SM takes per turn under clustered placement (Gong 2020 Sec. 6.3.2 says "adjacent blocks"
    // go to the same SM without a number): 0 = balanced, ceil(CTAs / SMs) but at most what fits on an SM, so the
    // grid covers every SM; a large value fills each SM before the next.
    unsigned cluster_ctas = 0;
    // A launch that makes no progress (nothing issued, nothing retired, no memory traffic) for this many cycles
    // is reported as a deadlock rather than spinning forever.
    core::Cycle deadlock_cycles = 1'000'000;
    std::uint64_t instruction_limit = 2'000'000'000; // warp instructions, across the launch
    // A launch still running after this many cycles is stopped (0: no limit): a runaway kernel ends with a
    // KernelError of kind `limit` naming a running warp's CTA, thread, PC and PTX line.
    core::Cycle max_cycles = 0;
    // Livelock: warps keep issuing, but for this many cycles no CTA finished and device memory did not change
    // (compared by a digest taken halfway and at the end of the window, so a run that makes progress pays
    // nothing). Reported like a deadlock, as a KernelError of kind `deadlock`. 0: off.
    core::Cycle livelock_cycles = 0;
    // Called every `progress_interval` cycles of a launch with the cycles so far and the CTAs finished out of the
    // grid's (for a progress line); empty, or an interval of 0: never. Runs on the simulating thread.
    std::function<void(core::Cycle cycles, std::uint64_t ctas_done, std::uint64_t ctas_total)> progress;
    core::Cycle progress_interval = 1 << 16;
    // Interval statistics (timeline.hpp, docs/timeline.md): after every `timeline_interval` cycles of a launch and
    // at its end, `timeline` gets every counter's increments per SM and for the memory system; summed over the
    // launch they equal LaunchResult::stats. 0: off, and the launch reads no counter for it. Runs on the
    // simulating thread.
    core::Cycle timeline_interval = 0;
    std::function<void(const TimelineInterval&)> timeline;
    // Per-PTX-line statistics (timing/line_stats.hpp): LaunchResult::lines counts, per instruction of the kernel,
    // its executions, the scheduler-cycles charged to it by issue outcome, and its loads' L1 accesses, misses and
    // latency. Off: nothing is counted. An SM variant that cannot count them refuses the launch.
    bool line_stats = false;
    // Host threads that tick the SMs: each cycle every SM's timing phase (SM::cycle_timing) and the
    // private part of its fetch stage (functional steps that touch only its own CTAs, SM::cycle_fetch_private)
    // run in parallel, then the rest of the fetch stages (from each SM's first step that touches the shared
    // Device: global and generic memory accesses) serially in SM index order, then the memory system. Results are
    // bit-identical to one thread. 0 = the environment variable GPUARCH_HOST_THREADS when set, else one thread.
    // With more than one, detail::AdaptiveTick runs a cycle in parallel only while that measured faster than
    // serial. Off by default because it rarely wins and a busy host makes it lose badly (docs/performance.md,
    // "When to turn parallel ticking on"): on an idle 2-core host only hotspot gained (up to 1.38x) while bfs and
    // nw, with little work per cycle, lost to the per-cycle barrier, and with every core busy a barrier can cost
    // tens of microseconds, which the adaptive probes did not always notice (a 5x slower `kepler --json`).
    unsigned host_threads = 0;
    // A cooperative launch (cudaLaunchCooperativeKernel; see func::LaunchOptions::cooperative): the grid must be
    // resident at once, CTAs per SM (the variant's occupancy for this kernel) x SMs, else the launch is refused
    // with a KernelError of kind cooperative_too_large, as CUDA refuses it with
    // cudaErrorCooperativeLaunchTooLarge.
    bool cooperative = false;
    // Sampled timing within the launch (sample/cta_sampler.hpp, docs/sampling.md): off by default, so every CTA
    // runs in detail. On, a launch of many waves simulates the first two, the last and about `batches` waves
    // spread between them in detail; the other CTAs run on the functional engine (their results land in memory as
    // in a full run), and their cycles and statistics are extrapolated, each with a stated error (LaunchResult).
    sample::CtaSamplingOptions cta_sampling;
};

struct LaunchResult {
    std::string kernel;
    core::Cycle cycles = 0;
    std::uint64_t warp_instructions = 0;
    std::uint64_t thread_instructions = 0;
    unsigned ctas = 0;
    unsigned resident_ctas_per_sm = 0; // occupancy limit for this launch
    core::StatsTable stats; // GPU-wide: every SM's counters summed, plus the memory system's
    // Sampled timing (TimingOptions::cta_sampling): CTAs simulated in detail; the others ran on the functional
    // engine and `cycles`, `stats` include their extrapolated share. The instruction counts are always exact.
    std::uint64_t detailed_ctas = 0;
    double cycles_error =
        0; // stated error of `cycles` (a 95% interval's half-width, sample/ratio_estimate.hpp); 0: exact
    core::StatsTable stats_error; // the same for every entry of `stats`; empty when exact
    // Per PC of the kernel, summed over the SMs, with TimingOptions::line_stats (else empty). Counts the CTAs
    // simulated in detail: a sampled launch's extrapolated share is in `stats` only.
    std::vector<timing::LineCounters> lines;

    bool sampled() const { return detailed_ctas < ctas; }
    double ipc() const { return cycles == 0 ? 0.0 : double(thread_instructions) / double(cycles); }
    double warp_ipc() const { return cycles == 0 ? 0.0 : double(warp_instructions) / double(cycles); }
};

} // namespace gpuarch
