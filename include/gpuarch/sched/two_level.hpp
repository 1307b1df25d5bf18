#pragma once
#include <cstdint>
#include <string_view>

#include <gpuarch/core/diagnostics.hpp>
#include <gpuarch/timing/concepts.hpp>

namespace gpuarch::sched {

// Two-level round-robin (Narasiman et al. 2010, Sec. 3.2): the warp pool is split into fetch groups of
// `FetchGroup` consecutive slots. Warps of the active group issue round-robin; only when no warp of the active
// group can issue does the scheduler move, round-robin, to the next group that has a ready warp. With one group
// covering the whole pool it is exactly loose round-robin.
//
// Statistics: group switches, split into those taken because every warp of the group waited on a long-latency
// operation (the intended case) and premature ones (warps merely in the pipeline or on short hazards;
// Narasiman 2010 Sec. 3.2: groups smaller than the pipeline depth switch prematurely).
template <unsigned FetchGroup> struct TwoLevel {
    static_assert(FetchGroup > 0, "TwoLevel needs a fetch group of at least one warp");
    static constexpr std::string_view name = [] {
        if constexpr (FetchGroup == 1) return std::string_view("TwoLevel<1>");
        else if constexpr (FetchGroup == 2) return std::string_view("TwoLevel<2>");
        else if constexpr (FetchGroup == 4) return std::string_view("TwoLevel<4>");
        else if constexpr (FetchGroup == 8) return std::string_view("TwoLevel<8>");
        else if constexpr (FetchGroup == 16) return std::string_view("TwoLevel<16>");
        else if constexpr (FetchGroup == 32) return std::string_view("TwoLevel<32>");
        else return std::string_view("TwoLevel");
    }();
    static constexpr unsigned fetch_group = FetchGroup;
    // select moves the active group only to a ready warp (timing/hooks.hpp, QuietWhenNothingReady).
    static constexpr bool select_changes_nothing_when_nothing_is_ready = true;

    explicit TwoLevel(const timing::SchedulerConfig& config)
        : pool_size_(config.pool_size), groups_((config.pool_size + FetchGroup - 1) / FetchGroup),
          last_in_group_(FetchGroup - 1) {}

    template <timing::SchedulerView View> unsigned select(const View& view) {
        const unsigned n = view.pool_size();
        if (n == 0) return timing::no_warp;
        const unsigned groups = (n + FetchGroup - 1) / FetchGroup;
        for (unsigned g = 0; g < groups; ++g) {
            const unsigned group = (active_ + g) % groups;
            const unsigned slot = ready_in_group(view, group, g == 0 ? last_in_group_ : FetchGroup - 1);
            if (slot == timing::no_warp) continue;
            if (g != 0) {
                // Leaving the active group: classify why it could not issue.
                if (all_long_latency(view, active_ % groups)) ++stall_switches_;
                else ++premature_switches_;
                active_ = group;
                last_in_group_ = FetchGroup - 1;
            }
            return slot;
        }
        return timing::no_warp;
    }
    void on_issue(unsigned slot, core::Cycle) {
        active_ = slot / FetchGroup;
        last_in_group_ = slot % FetchGroup;
    }
    void on_warp_start(unsigned) {}
    void on_warp_exit(unsigned) {}

    template <class V> void visit_stats(V& v) const {
        v.counter("group_switches_on_stall", stall_switches_, "fetch-group switches: every warp waited on memory");
        v.counter("group_switches_premature", premature_switches_, "fetch-group switches for other reasons");
    }

private:
    template <class View> static unsigned ready_in_group(const View& view, unsigned group, unsigned after) {
        const unsigned base = group * FetchGroup;
        for (unsigned k = 1; k <= FetchGroup; ++k) {
            const unsigned offset = (after + k) % FetchGroup;
            const unsigned slot = base + offset;
            if (slot < view.pool_size() && view.ready(slot)) return slot;
        }
        return timing::no_warp;
    }
    template <class View> static bool all_long_latency(const View& view, unsigned group) {
        bool any = false;
        for (unsigned slot = group * FetchGroup; slot < (group + 1) * FetchGroup && slot < view.pool_size(); ++slot) {
            if (!view.occupied(slot)) continue;
            any = true;
            if (!view.long_latency_pending(slot)) return false;
        }
        return any;
    }

    unsigned pool_size_ = 0;
    unsigned groups_ = 1;
    unsigned active_ = 0;
    unsigned last_in_group_ = 0;
    std::uint64_t stall_switches_ = 0, premature_switches_ = 0;
};

} // namespace gpuarch::sched
