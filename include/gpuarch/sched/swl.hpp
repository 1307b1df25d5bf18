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
//  * Withheld cycles (timing::WithheldCycleHook): where the view tells barrier waits, a select reads only the warps'
//    ages, barrier waits and ready mask and the greedy warp, all of which the SM's state epoch covers, so a select
//    that withheld every ready warp repeats while the epoch and the ready mask stand, and the SM replays or sleeps
//    through such cycles. Not with the starvation guard, which reads the cycle number.
#include <array>
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

    template <timing::SchedulerView View> unsigned select(const View& view) {
        // GTO among the admitted warps (greedy_then_oldest restricted to them): the greedy warp if it is admitted
        // and ready, else the oldest ready admitted warp, which admit() finds on its walk from the oldest.
        const unsigned oldest_ready = admit(view);
        const unsigned pick =
            greedy_ < view.pool_size() && admitted_[greedy_] != 0 && view.ready(greedy_) ? greedy_ : oldest_ready;
        // Remembered only where repeats_withheld may answer yes: with the starvation guard (no barrier view) a
        // withheld select is not repeatable, and the guard may still pick a warp below.
        if constexpr (timing::ShowsStateEpoch<View> && BarrierView<View>) withheld_.remember(view, pick, NoInputs{});
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
    // timing::QuietCycleHook: what a select does where no warp is ready. It recomputes the admitted warps from the
    // view, clears the starvation timer and counts nothing; the admitted warps are recomputed before every use
    // (admit), so only the starvation timer stops.
    template <timing::SchedulerView View> void on_quiet_cycle(const View&) { starving_since_ = none; }
    template <timing::SchedulerView View> void on_quiet_cycles(const View&, std::uint64_t) { starving_since_ = none; }
    // timing::WithheldCycleHook. Whether a select now would repeat the last one, which withheld every ready warp: the
    // same state epoch and ready mask (the header's contract), under a view that tells barrier waits.
    template <timing::SchedulerView View> bool repeats_withheld(const View& view) const {
        if constexpr (timing::ShowsStateEpoch<View> && BarrierView<View>)
            return withheld_.matches_if(view, [](NoInputs) { return true; });
        else
            return (void)view, false;
    }
    // What `count` such selects do: each counts a withheld cycle.
    template <timing::SchedulerView View> void on_withheld_cycles(const View&, std::uint64_t count) {
        withheld_cycles_ += count;
        withheld_.repeat_times(count);
    }
    // Of the selects that withheld every ready warp, those the SM repeated instead of asking (a host-time figure).
    std::uint64_t withheld_selects_repeated() const { return withheld_.repeated(); }

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
    // Marks the admitted warps and returns the oldest of them that is ready (no_warp if none is). The walk goes from
    // the oldest warp (ranks_.order(): by age, ties by slot, the order greedy_then_oldest prefers).
    // admitted_ is cleared through the list of the previous admission (at most K slots): assigning the whole pool
    // in every select was 5% of gemm's host instructions under SWL<2>.
    template <class View> unsigned admit(const View& view) {
        ranks_.refresh(view);
        if (admitted_.size() != view.pool_size()) {
            admitted_.assign(view.pool_size(), 0);
        } else {
            for (unsigned k = 0; k < admitted_count_; ++k) admitted_[admitted_list_[k]] = 0;
        }
        admitted_count_ = 0;
        unsigned oldest_ready = timing::no_warp;
        for (unsigned slot : ranks_.order()) {
            if (admitted_count_ == K) break;
            if constexpr (BarrierView<View>)
                if (view.waiting_at_barrier(slot)) continue;
            admitted_[slot] = 1;
            admitted_list_[admitted_count_++] = slot;
            if (oldest_ready == timing::no_warp && view.ready(slot)) oldest_ready = slot;
        }
        return oldest_ready;
    }

    static constexpr core::Cycle none = ~core::Cycle{0};
    // A withheld select reads nothing beyond what WithheldSelect compares (the epoch and the ready mask).
    struct NoInputs {
        bool operator==(const NoInputs&) const = default;
    };
    WithheldSelect<NoInputs> withheld_;
    AgeRank ranks_;
    std::vector<std::uint8_t> admitted_; // per pool slot: admitted by the last admit()
    std::array<unsigned, K> admitted_list_{}; // the slots admitted_ marks, admitted_count_ of them
    unsigned admitted_count_ = 0;
    unsigned greedy_ = timing::no_warp;
    core::Cycle starving_since_ = none;
    std::uint64_t withheld_cycles_ = 0, guard_cycles_ = 0;
};

} // namespace gpuarch::sched
