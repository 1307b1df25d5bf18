#pragma once
// The precompiled SM variants of the example machines, selectable by name at run time.
//
// Each machine's variants are a Boost.MP11 type list compiled in its own translation unit
// (variants_<machine>.cpp); a run-time name maps to a compiled variant through mp_with_index, never through a
// base class. Examples, the comparison demo, sweeps and the reproduction command all run corpus kernels
// through `run_variant`.
#include <gpuarch/core/stats.hpp>

#include <corpus/common.hpp>

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuarch::examples {

struct RunRow {
    std::string kernel;
    std::string machine;
    std::string scheduler;
    std::string variant; // the full SM variant name and SM count
    std::string size;
    bool passed = false; // the kernel's output matched its CPU reference
    std::string message; // first mismatches, or the error that stopped the run
    std::uint64_t cycles = 0, warp_instructions = 0, thread_instructions = 0, launches = 0;
    double host_seconds = 0; // the whole run: parsing, inputs, simulation, reference check
    double sim_seconds = 0; // thread CPU seconds inside GPU::launch only
    core::StatsTable stats; // GPU-wide statistics summed over the kernel's launches

    double ipc() const { return cycles == 0 ? 0.0 : double(thread_instructions) / double(cycles); }
};

// Run-time knobs a variant accepts without recompiling.
struct RunKnobs {
    unsigned mshr_entries = 0; // 0: the machine preset's
    std::optional<bool> allocate_on_fill; // unset: the preset's (Wang 2016 runs allocate-on-fill)
    bool clustered_ctas = false; // Gong 2020 Ch. 6 placement instead of round-robin
    bool tick_idle_memory = false; // tick idle memory partitions every cycle (MemorySystemConfig::skip_idle off;
        // the reference for tests/pinned/idle_memory.cpp, same results, slower)
};

std::vector<std::string> machine_names(); // "fermi", "kepler", "southern_islands"
std::vector<std::string> scheduler_names(std::string_view machine); // "LRR", "GTO", "TwoLevel<8>"

// Runs corpus kernel `kernel` at `size` on `machine` with `scheduler`. Never throws for a kernel fault or a
// mismatch: the row says what happened. Throws gpuarch::Error for an unknown machine, scheduler or kernel.
RunRow run_variant(std::string_view machine, std::string_view scheduler, std::string_view kernel, kernels::Size size,
                   const RunKnobs& knobs = {});

// CPU time of the calling thread: simulation speed on one core, unaffected by other load on the host.
inline double thread_cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// The directory holding kernels/ptx (GPUARCH_KERNELS_DIR at build time; the environment variable of the same name
// overrides it).
std::string kernels_dir();

} // namespace gpuarch::examples
