#pragma once
// Static warp limiting, SWL<K> (Rogers et al., MICRO 2012, "static wavefront limiting"; Wang 2016 Sec. 5 and
// Table 3 tune K per benchmark as "SWL-Best"): only the K oldest warps of the scheduler may issue, GTO among them.
//
// Contract:
//  * K counts warps per scheduler, as GPGPU-Sim's warp limiting does (each scheduler unit limits the warps it
//    supervises; Wang's SWL-Best of 1 for GES leaves one warp per scheduler, in line with OAWS's "each warp scheduler
//    needs at least one active warp").
//  * The K admitted warps are the oldest occupied warps that do not wait at a barrier. A warp at a barrier must not
//    hold a slot, or a CTA whose oldest warps wait for its younger ones would never finish. The view tells barrier
//    waits through `waiting_at_barrier(i)`; while it does not, a
//    starvation guard lifts the limit when no admitted warp has been ready for `StarvationGuard` cycles while another
//    warp was, until an admitted warp is ready again (counted in `swl_guard_cycles`).
//  * select never returns a warp that is not ready; it returns no_warp while warps are ready exactly when all of them
//    are outside the limit (withholds() tells which).
#include <cstdint>
#include <string_view>
#include <vector>

#include <gpuarch/sched/memory_aware.hpp>
#include <gpuarch/timing/concepts.hpp>

namespace gpuarch::sched {

template <unsigned K, unsigned StarvationGuard = 2000> struct SWL {
    static_assert(K > 0, "SWL needs a warp limit of at least one warp");
    static constexpr unsigned limit = K;
    static constexpr auto name_storage =
        detail::numbered<detail::length("SWL<") + detail::digits(K) + 1>("SWL<", K, ">");
    static constexpr std::string_view name = name_storage.view();

    explicit SWL(const timing::SchedulerConfig&) {}

    // timing::QuietWhenNothingReady: on a view where no warp is ready, select recomputes the admitted warps from the
    // view (the same on the same view), clears the starvation timer and counts nothing, so a second such select
    // changes nothing.
    static constexpr bool select_changes_nothing_when_nothing_is_ready = true;

    template <timing::SchedulerView View> unsigned select(const View& view) {
        admit(view);
        const unsigned pick = greedy_then_oldest(view, greedy_, [this](unsigned s) { return admitted_[s] != 0; });
        if (pick != timing::no_warp) {
            starving_since_ = none;
            return pick;
        }
        if (!any_ready(view)) { // no warp outside the limit is ready either
            starving_since_ = none;
            return timing::no_warp;
        }
        ++withheld_cycles_;
        if constexpr (!BarrierView<View>) {
            if (starving_since_ == none) starving_since_ = view.now();
            if (view.now() - starving_since_ >= StarvationGuard) {
                ++guard_cycles_;
                return greedy_then_oldest(view, greedy_, [](unsigned) { return true; });
            }
        }
        return timing::no_warp;
    }
    // Whether ready warp `slot` is outside the limit (in the state of the last select with this view).
    template <timing::SchedulerView View> bool withholds(const View& view, unsigned slot) {
        admit(view);
        return admitted_[slot] == 0;
    }

    void on_issue(unsigned slot, core::Cycle) { greedy_ = slot; }
    void on_warp_start(unsigned) { ranks_.invalidate(); }
    void on_warp_exit(unsigned slot) {
        if (greedy_ == slot) greedy_ = timing::no_warp;
        ranks_.invalidate();
    }

    template <class V> void visit_stats(V& v) const {
        v.counter("swl_withheld_cycles", withheld_cycles_, "cycles only warps outside the limit were ready");
        v.counter("swl_guard_cycles", guard_cycles_, "cycles the starvation guard lifted the limit");
    }

private:
    template <class View> void admit(const View& view) {
        ranks_.refresh(view);
        admitted_.assign(view.pool_size(), 0);
        unsigned n = 0;
        for (unsigned slot : ranks_.order()) {
            if (n == K) break;
            if constexpr (BarrierView<View>)
                if (view.waiting_at_barrier(slot)) continue;
            admitted_[slot] = 1;
            ++n;
        }
    }

    static constexpr core::Cycle none = ~core::Cycle{0};
    AgeRank ranks_;
    std::vector<std::uint8_t> admitted_;
    unsigned greedy_ = timing::no_warp;
    core::Cycle starving_since_ = none;
    std::uint64_t withheld_cycles_ = 0, guard_cycles_ = 0;
};

} // namespace gpuarch::sched
