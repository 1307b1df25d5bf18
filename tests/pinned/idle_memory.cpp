// Idle-partition skipping in the memory system (MemorySystemConfig::skip_idle, issues 4 and 11) on whole corpus
// kernels: the same GPU with every partition ticked every cycle (RunKnobs::tick_idle_memory) must give the same
// cycles and every statistic (each SM's stall, LSU and cache counters, and the memory system's interconnect, L2
// and DRAM counters, cycle counts included). Memory-bound kernels, global atomics (the L2's atomic unit), stores
// (write-backs), and multi-launch kernels whose memory system idles between launches.
#include <doctest/doctest.h>

#include <gpuarch/support/run_machine.hpp>

#include "same_run.hpp"

#include <corpus/corpus.hpp>
#include <gpuarch/machines.hpp>
#include <gpuarch/sched/gto.hpp>

using namespace gpuarch;

namespace {

template <class Machine>
void check_skip_matches_ticking(const char* machine, const char* kernel) {
    using Gpu = typename Machine::template gpu<sched::GTO>;
    examples::RunKnobs ticking;
    ticking.tick_idle_memory = true;
    const auto skipped = examples::run_on_gpu<Machine, Gpu>(machine, "GTO", kernel, kernels::Size::small, {});
    const auto ticked = examples::run_on_gpu<Machine, Gpu>(machine, "GTO", kernel, kernels::Size::small, ticking);
    INFO(machine << " " << kernel << ": " << skipped.message << ticked.message);
    test::check_same_run(ticked, skipped);
    // The comparison covers the memory system's cycle counters: they must be non-zero for it to mean anything.
    CHECK(ticked.stats.counter("mem.l2_cycles") > 0);
    CHECK(ticked.stats.counter("mem.dram_cycles") > 0);
}

constexpr const char* kernels_checked[] = {"vector_add", "bfs", "histogram_global", "atax", "nw", "transpose_naive"};

} // namespace

TEST_CASE("skipping idle memory partitions gives the per-cycle results on corpus kernels (Fermi, Kepler, SI)") {
    for (const char* kernel : kernels_checked) {
        check_skip_matches_ticking<machines::Fermi>("fermi", kernel);
        check_skip_matches_ticking<machines::Kepler>("kepler", kernel);
        check_skip_matches_ticking<machines::SouthernIslands>("southern_islands", kernel);
    }
}
