// Memory partitions that wait for their next event (MemorySystemConfig::skip_idle, docs/memory.md) on whole corpus
// kernels on the GTX480 preset, whose DRAM runs at a clock ratio that is not whole (924 MHz against the core's
// 700 MHz) and has bank groups: the same GPU with every partition ticked every cycle (RunKnobs::tick_idle_memory)
// must give the same cycles and every statistic. tests/pinned/idle_memory.cpp does the same on Fermi, Kepler and
// Southern Islands; tests/mem/idle_partitions_test.cpp drives the memory system alone with random traffic.
#include <doctest/doctest.h>

#include <gpuarch/support/run_machine.hpp>

#include "../pinned/same_run.hpp"

#include <corpus/corpus.hpp>
#include <gpuarch/machines.hpp>
#include <gpuarch/sched/gto.hpp>

using namespace gpuarch;

TEST_CASE("waiting memory partitions give the per-cycle results on corpus kernels (GTX480)") {
    using Gpu = machines::GTX480::gpu<sched::GTO>;
    // Memory-bound loads, global atomics (the L2's atomic unit), stores with write-backs, and a multi-launch kernel
    // whose memory system waits between launches.
    for (const char* kernel : {"atax", "histogram_global", "transpose_naive", "bfs"}) {
        examples::RunKnobs ticking;
        ticking.tick_idle_memory = true;
        const auto waiting =
            examples::run_on_gpu<machines::GTX480, Gpu>("gtx480", "GTO", kernel, kernels::Size::small, {});
        const auto ticked =
            examples::run_on_gpu<machines::GTX480, Gpu>("gtx480", "GTO", kernel, kernels::Size::small, ticking);
        INFO("gtx480 " << kernel << ": " << waiting.message << ticked.message);
        test::check_same_run(ticked, waiting);
        CHECK(ticked.stats.counter("mem.l2_cycles") > 0);
        CHECK(ticked.stats.counter("mem.dram_queue_occupancy") > 0);
    }
}
