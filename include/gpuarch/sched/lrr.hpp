#pragma once
#include <cstdint>
#include <string_view>

#include <gpuarch/timing/concepts.hpp>

namespace gpuarch::sched {

// Loose round-robin: starting after the warp that issued last, the first ready warp issues.
struct LRR {
    static constexpr std::string_view name = "LRR";

    explicit LRR(const timing::SchedulerConfig& config) : pool_size_(config.pool_size) {}

    template <timing::SchedulerView View> unsigned select(const View& view) const {
        const unsigned n = view.pool_size();
        for (unsigned k = 1; k <= n; ++k) {
            const unsigned slot = (last_ + k) % n;
            if (view.ready(slot)) return slot;
        }
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
