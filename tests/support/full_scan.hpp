#pragma once
// A shipped scheduler against itself through the full per-cycle scans (tests/timing/quiet_replay_stateful_test.cpp):
// FullScan<S> has S's picks through a non-const select that declares scan_every_cycle, which turns quiet-cycle replay
// and the event-driven stages off. Any difference in cycles or in any statistic is an error of the fast paths.
// (tests/pinned/quiet_cycles.cpp keeps its own copy: the pinned folder stays as it is for behaviour-preserving work.)
#include <doctest/doctest.h>

#include <gpuarch/support/run_machine.hpp>

#include <corpus/corpus.hpp>
#include <gpuarch/timing/concepts.hpp>

namespace gpuarch::test_support {

template <class Base>
struct FullScan : Base {
    static constexpr bool scan_every_cycle = true;
    using Base::Base;
    template <timing::SchedulerView View>
    unsigned select(const View& view) {
        return Base::select(view);
    }
};

// The shipped variant replays quiet cycles, and its cycles, instructions and every statistic equal the full scan's.
template <class Machine, class Scheduler>
void check_replay_matches_full_scan(const char* machine, const char* kernel) {
    using Replaying = typename Machine::template gpu<Scheduler>;
    using Scanning = typename Machine::template gpu<FullScan<Scheduler>>;
    static_assert(Replaying::SMType::replays_quiet_cycles(), "the shipped variant replays quiet cycles");
    static_assert(!Scanning::SMType::replays_quiet_cycles(), "scan_every_cycle turns the replay off");
    const auto replayed = examples::run_on_gpu<Machine, Replaying>(machine, "replay", kernel, kernels::Size::small, {});
    const auto scanned = examples::run_on_gpu<Machine, Scanning>(machine, "scan", kernel, kernels::Size::small, {});
    INFO(machine << " " << kernel << ": " << replayed.message << scanned.message);
    REQUIRE(scanned.passed);
    CHECK(replayed.passed);
    CHECK(replayed.cycles == scanned.cycles);
    CHECK(replayed.warp_instructions == scanned.warp_instructions);
    CHECK(replayed.thread_instructions == scanned.thread_instructions);
    CHECK(replayed.stats == scanned.stats); // every stall class, Gong class, LSU, memory and scheduler counter
}

// Memory-bound kernels (long quiet stretches), barriers and shared memory, global atomics, divergence.
inline constexpr const char* quiet_replay_kernels[] = {"vector_add", "bfs", "nw", "histogram_global", "reduce_shared",
                                                       "sgemm_tiled", "kmeans_assign", "atax"};

} // namespace gpuarch::test_support
