#pragma once
#include <bit>
#include <concepts>
#include <cstdint>
#include <string_view>

#include <gpuarch/timing/concepts.hpp>

namespace gpuarch::sched {

// Greedy-then-oldest (Rogers et al., MICRO 2012, Sec. 3): keep issuing the warp that issued last while it is
// ready; when it stalls, issue the oldest ready warp (smallest launch age).
struct GTO {
    static constexpr std::string_view name = "GTO";

    explicit GTO(const timing::SchedulerConfig&) {}

    template <timing::SchedulerView View> unsigned select(const View& view) const {
        if (greedy_ != timing::no_warp && greedy_ < view.pool_size() && view.ready(greedy_)) return greedy_;
        return oldest_ready(view);
    }
    template <timing::SchedulerView View> static unsigned oldest_ready(const View& view) {
        unsigned best = timing::no_warp;
        std::uint64_t best_age = 0;
        // Views that offer the ready slots as one mask (the SM's, for pools of at most 64 slots) are scanned by
        // their set bits only; the pick is the same: the first slot of the smallest age.
        if constexpr (requires {
                          { view.ready_mask() } -> std::convertible_to<std::uint64_t>;
                      }) {
            if (view.pool_size() <= 64) {
                for (std::uint64_t bits = view.ready_mask(); bits != 0; bits &= bits - 1) {
                    const auto slot = static_cast<unsigned>(std::countr_zero(bits));
                    const std::uint64_t age = view.age(slot);
                    if (best == timing::no_warp || age < best_age) {
                        best = slot;
                        best_age = age;
                    }
                }
                return best;
            }
        }
        for (unsigned slot = 0; slot < view.pool_size(); ++slot) {
            if (!view.ready(slot)) continue;
            const std::uint64_t age = view.age(slot);
            if (best == timing::no_warp || age < best_age) {
                best = slot;
                best_age = age;
            }
        }
        return best;
    }
    void on_issue(unsigned slot, core::Cycle) { greedy_ = slot; }
    void on_warp_start(unsigned) {}
    void on_warp_exit(unsigned slot) {
        if (greedy_ == slot) greedy_ = timing::no_warp;
    }
    template <class V> void visit_stats(V&) const {}

private:
    unsigned greedy_ = timing::no_warp;
};

} // namespace gpuarch::sched
