#pragma once
// MemoryFirst: a scheduler written outside the library, in one header (the worked example of docs/new_policy.md).
//
// Policy: among the ready warps, issue a global/local load first (the oldest such warp), so its long memory
// latency starts as early as possible and overlaps the compute of the others; when no ready warp is at a load,
// fall back to greedy-then-oldest (Rogers 2012 Sec. 3). Loads-first is a common heuristic, not a published
// design; this header makes no claim beyond the behaviour its test pins (tests/policies/memory_first_test.cpp).
//
// What it relies on (include/gpuarch/timing/concepts.hpp, docs/concepts.md "Scheduler"):
//  * view.ready(slot), view.age(slot), view.pool_size(): every SchedulerView has them;
//  * sched::next_access(view, slot): the warp's next decoded instruction. The view must preview instructions
//    (timing::PreviewsInstructions in timing/hooks.hpp; the SM's does): on a view that does not, MemoryFirst stops
//    compilation with that sentence instead of quietly running as GTO.
#include <cstdint>
#include <string_view>

#include <gpuarch/sched/memory_aware.hpp>
#include <gpuarch/timing/concepts.hpp>

namespace gpuarch::policies {

struct MemoryFirst {
    static constexpr std::string_view name = "MemoryFirst";

    explicit MemoryFirst(const timing::SchedulerConfig&) {}

    template <timing::SchedulerView View> unsigned select(const View& view) const {
        unsigned best = timing::no_warp;
        std::uint64_t best_age = 0;
        for (unsigned slot = 0; slot < view.pool_size(); ++slot) {
            if (!view.ready(slot) || sched::next_access(view, slot) != sched::NextAccess::cached_load) continue;
            if (best == timing::no_warp || view.age(slot) < best_age) {
                best = slot;
                best_age = view.age(slot);
            }
        }
        if (best != timing::no_warp) return best;
        return sched::greedy_then_oldest(view, greedy_, [](unsigned) { return true; });
    }

    void on_issue(unsigned slot, core::Cycle) { greedy_ = slot; }
    void on_warp_start(unsigned) {}
    void on_warp_exit(unsigned slot) {
        if (greedy_ == slot) greedy_ = timing::no_warp;
    }
    template <class V> void visit_stats(V&) const {}

private:
    unsigned greedy_ = timing::no_warp; // the warp that issued last (GTO's greedy warp)
};

static_assert(timing::check_scheduler<MemoryFirst>(), "MemoryFirst is a Scheduler");

} // namespace gpuarch::policies
