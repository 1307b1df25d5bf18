#pragma once
#include <cstdint>
#include <string_view>

#include <gpuarch/timing/concepts.hpp>

namespace gpuarch::sched {

// Loose round-robin: starting after the warp that issued last, the first ready warp issues.
struct LRR {
    static constexpr std::string_view name = "LRR";

    explicit LRR(const timing::SchedulerConfig& config) : pool_size_(config.pool_size) {}

    // Asks ready() of each slot in turn, never the view's ready mask: HAWS's view notes the warps its base found not
    // ready (sched/haws.hpp, AttemptView), so the slots asked are part of the result.
    template <timing::SchedulerView View> unsigned select(const View& view) const {
        const unsigned n = view.pool_size();
        if (n == 0) return timing::no_warp;
        // The slots (last_ + 1) % n, (last_ + 2) % n, ..., last_ % n, with one division instead of one per slot (a
        // division per slot was most of LRR's time).
        for (unsigned k = 0, slot = (last_ + 1) % n; k < n; ++k, slot = slot + 1 == n ? 0 : slot + 1)
            if (view.ready(slot)) return slot;
        return timing::no_warp;
    }
    void on_issue(unsigned slot, core::Cycle) { last_ = slot; }
    void on_warp_start(unsigned) {}
    void on_warp_exit(unsigned) {}
    template <class V> void visit_stats(V&) const {}

private:
    unsigned pool_size_ = 0;
    unsigned last_ = pool_size_ == 0 ? 0 : pool_size_ - 1; // so that slot 0 is considered first
};

} // namespace gpuarch::sched
