// Quiet-cycle replay and event-driven issue and fetch (sm.hpp, quiet_cycle_replay, IssueMasks, FetchMask; issue 4
// speed): where an SM skips the scan of its warp pools in cycles when nothing changed since a cycle without issue
// and replays that cycle's statistics, and where its issue and fetch stages re-evaluate only the warps some event
// touched, the results must equal the full per-cycle scans' exactly. The reference is the same scheduler with a
// non-const select (which turns the replay off) declaring scan_every_cycle (which turns the event-driven stages
// off): the same picks, so any difference in cycles or in any statistic is an error of the fast paths.
// The checks are three units, quiet_cycles.cpp (replay), quiet_cycles_event_driven.cpp (event-driven issue and fetch)
// and quiet_cycles_stateful.cpp (event-driven issue of the schedulers with state): as one, their 26 GPU variants
// needed 1.9 GiB to compile, over the 1.5 GiB a unit may take.
#pragma once
#include <doctest/doctest.h>

#include <gpuarch/support/run_machine.hpp>

#include "same_run.hpp"

#include <corpus/corpus.hpp>
#include <gpuarch/machines.hpp>
#include <gpuarch/sched/ccws.hpp>
#include <gpuarch/sched/gto.hpp>
#include <gpuarch/sched/locality_two_level.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sched/mascar.hpp>
#include <gpuarch/sched/oaws.hpp>
#include <gpuarch/sched/swl.hpp>
#include <gpuarch/sched/two_level.hpp>
#include <gpuarch/sched/two_level_active.hpp>

#include <string>

namespace gpuarch::pinned_quiet {
// Base's picks through a non-const select that declares scan_every_cycle: the SM must then scan every cycle.
template <class Base>
struct FullScan : Base {
    static constexpr bool scan_every_cycle = true;
    using Base::Base;
    template <timing::SchedulerView View>
    unsigned select(const View& view) {
        return Base::select(view);
    }
};

template <class Machine, class Scheduler>
void check_replay_matches_full_scan(const char* machine, const char* kernel) {
    using Replaying = typename Machine::template gpu<Scheduler>;
    using Scanning = typename Machine::template gpu<FullScan<Scheduler>>;
    static_assert(Replaying::SMType::replays_quiet_cycles(), "the shipped variant replays quiet cycles");
    static_assert(!Scanning::SMType::replays_quiet_cycles(), "scan_every_cycle turns the replay off");
    const auto replayed = examples::run_on_gpu<Machine, Replaying>(machine, "replay", kernel, kernels::Size::small, {});
    const auto scanned = examples::run_on_gpu<Machine, Scanning>(machine, "scan", kernel, kernels::Size::small, {});
    INFO(machine << " " << kernel << ": " << replayed.message << scanned.message);
    test::check_same_run(scanned, replayed);
}

// Schedulers and machines without the replay: the event-driven stages alone (fetch only on Southern Islands, whose
// per-cycle SIMD turn keeps the full issue scan).
template <class Machine, class Scheduler>
void check_event_driven_matches_full_scan(const char* machine, const char* kernel) {
    using Fast = typename Machine::template gpu<Scheduler>;
    using Scanning = typename Machine::template gpu<FullScan<Scheduler>>;
    const auto fast = examples::run_on_gpu<Machine, Fast>(machine, "fast", kernel, kernels::Size::small, {});
    const auto scanned = examples::run_on_gpu<Machine, Scanning>(machine, "scan", kernel, kernels::Size::small, {});
    INFO(machine << " " << kernel << ": " << fast.message << scanned.message);
    test::check_same_run(scanned, fast);
}

// Memory-bound kernels (long quiet stretches), barriers and shared memory, global atomics, divergence.
inline constexpr const char* kernels_checked[] = {"vector_add", "bfs", "nw", "histogram_global", "reduce_shared",
                                                  "sgemm_tiled", "kmeans_assign", "atax"};
} // namespace gpuarch::pinned_quiet
