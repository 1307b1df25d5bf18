#pragma once
// MissAverse: a scheduler that needs a hook, written outside the library in one header (docs/new_policy.md, part 5).
//
// Policy: greedy-then-oldest (Rogers 2012 Sec. 3), except that a warp whose last load missed on more than half of
// the cache lines it touched waits behind every ready warp whose last load did not. The idea is a toy: a warp that
// just missed is likely to miss again, so the others go first and the missing warp's requests queue behind theirs.
// No paper stands behind it; the header makes no claim beyond the behaviour its test pins
// (tests/policies/miss_averse_test.cpp).
//
// The hook: what a load did in the L1 is not in the SchedulerView; the SM tells schedulers that model
// timing::ObservesMemoryCompletion (timing/hooks.hpp) by calling on_memory_complete(slot, feedback) when a memory
// instruction's data is back, with its lines and misses (timing::MemoryFeedback). Declaring the member is all it
// takes: the SM tests the concept and calls it. The static_assert at the bottom makes a misspelt hook an error
// instead of a silent no-op.
#include <cstdint>
#include <string_view>
#include <vector>

#include <gpuarch/sched/memory_aware.hpp>
#include <gpuarch/timing/concepts.hpp>
#include <gpuarch/timing/hooks.hpp>
#include <gpuarch/timing/interfaces.hpp>

namespace gpuarch::policies {

class MissAverse {
public:
    static constexpr std::string_view name = "MissAverse";

    explicit MissAverse(const timing::SchedulerConfig& config) : missed_(config.pool_size, false) {}

    template <timing::SchedulerView View> unsigned select(const View& view) const {
        const unsigned pick = sched::greedy_then_oldest(view, greedy_, [this](unsigned s) { return !missed_[s]; });
        if (pick != timing::no_warp) return pick;
        return sched::greedy_then_oldest(view, greedy_, [](unsigned) { return true; });
    }
    void on_issue(unsigned slot, core::Cycle) { greedy_ = slot; }
    void on_warp_start(unsigned slot) { missed_[slot] = false; }
    void on_warp_exit(unsigned slot) {
        if (greedy_ == slot) greedy_ = timing::no_warp;
    }

    // The hook (timing::ObservesMemoryCompletion): stores and atomics say nothing about the warp's next load.
    void on_memory_complete(unsigned slot, const timing::MemoryFeedback& feedback) {
        if (!feedback.is_load || feedback.lines == 0) return;
        missed_[slot] = 2 * feedback.misses > feedback.lines;
        ++feedback_;
        if (missed_[slot]) ++missing_loads_;
    }

    template <class V> void visit_stats(V& v) const {
        v.counter("miss_averse.loads_seen", feedback_, "loads whose L1 outcome the scheduler was told");
        v.counter("miss_averse.missing_loads", missing_loads_, "of which missed on more than half of their lines");
    }

private:
    std::vector<bool> missed_; // per pool slot: the warp's last load missed on most of its lines
    unsigned greedy_ = timing::no_warp; // the warp that issued last
    std::uint64_t feedback_ = 0, missing_loads_ = 0;
};

static_assert(timing::check_scheduler<MissAverse>(), "MissAverse is a Scheduler");
static_assert(timing::ObservesMemoryCompletion<MissAverse>, "MissAverse hears about every load's misses");

} // namespace gpuarch::policies
