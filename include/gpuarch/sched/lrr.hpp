#pragma once
#include <bit>
#include <concepts>
#include <cstdint>
#include <string_view>

#include <gpuarch/timing/concepts.hpp>
#include <gpuarch/timing/hooks.hpp>

namespace gpuarch::sched {

// Loose round-robin: starting after the warp that issued last, the first ready warp issues.
struct LRR {
    static constexpr std::string_view name = "LRR";

    explicit LRR(const timing::SchedulerConfig& config) : pool_size_(config.pool_size) {}

    // The first ready slot of (last_ + 1) % n, (last_ + 2) % n, ..., last_ % n. Through a view that offers its ready
    // slots as one mask (the SM's, pools of at most 64 slots) that is two bit scans; through a view that notes what
    // it is asked (timing::NotesReadyAsks: HAWS's view records the warps its base found not ready) LRR asks ready()
    // of each slot in that order up to the first ready one, as the mask scan stands for.
    template <timing::SchedulerView View> unsigned select(const View& view) const {
        const unsigned n = view.pool_size();
        if (n == 0) return timing::no_warp;
        const unsigned start = (last_ + 1) % n;
        if constexpr (!timing::NotesReadyAsks<View> && requires {
                          { view.ready_mask() } -> std::convertible_to<std::uint64_t>;
                      }) {
            if (n <= 64) {
                const std::uint64_t in_pool = n == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
                const std::uint64_t ready = view.ready_mask() & in_pool;
                const std::uint64_t from_start = ready & (~std::uint64_t{0} << start);
                if (from_start != 0) return static_cast<unsigned>(std::countr_zero(from_start));
                return ready != 0 ? static_cast<unsigned>(std::countr_zero(ready)) : timing::no_warp;
            }
        }
        // One division per select, then a step around the pool (a division per slot was most of LRR's time).
        for (unsigned k = 0, slot = start; k < n; ++k, slot = slot + 1 == n ? 0 : slot + 1)
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
