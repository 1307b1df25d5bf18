#pragma once
// GPGPU-Sim's two-level active scheduler, `two_level_active:<Active>:0:1` in its configuration files (the GTX480
// configuration, configs/tested-cfgs/SM2_GTX480, lists `two_level_active:6:0:1`): an active pool of at most
// `Active` warps issues loose round-robin; warps that wait are demoted to the back of a pending queue, and the
// pending queue's front is promoted to refill the active pool. It is not Narasiman's TwoLevel<G> (two_level.hpp),
// whose fetch groups are fixed sets of consecutive slots: here membership changes every cycle a warp stalls on
// memory, and a demoted warp rejoins only after every warp ahead of it in the pending queue (docs/schedulers.md,
// "TwoLevelActive and TwoLevel").
//
// Contract, per select (GPGPU-Sim's order_warps, then its issue loop):
//  * Demotion: every active slot that is empty (no warp, or the warp exited), waits at a barrier (when the view
//    tells barrier waits, BarrierView), or whose next instruction waits on a pending global or local load
//    (long_latency_pending: GPGPU-Sim's scoreboard "long operation") moves, in active order, to the back of the
//    pending queue.
//  * Promotion: the pending queue's front moves to the back of the active pool until the pool holds `Active`
//    slots or the queue is empty (a warp demoted this cycle can come straight back when nothing else waits).
//  * Issue: the first ready slot in active order issues; after an issue the active pool rotates so that the slot
//    after the issued one comes first (the inner level is loose round-robin).
//  * Not work-conserving, as in GPGPU-Sim: a ready pending warp does not issue while it is pending, even when no
//    active warp is ready; withholds() names the pending slots.
//  * Initial state: the scheduler's first `Active` slots are active and the others pending, in slot order, as
//    GPGPU-Sim assigns its supervised warps.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <string_view>
#include <vector>

#include <gpuarch/sched/memory_aware.hpp>
#include <gpuarch/timing/concepts.hpp>

namespace gpuarch::sched {

template <unsigned Active> struct TwoLevelActive {
    static_assert(Active > 0, "TwoLevelActive needs an active pool of at least one warp");
    static constexpr unsigned active_pool = Active;
    static constexpr auto name_storage =
        detail::numbered<detail::length("TwoLevelActive<") + detail::digits(Active) + 1>("TwoLevelActive<", Active,
                                                                                         ">");
    static constexpr std::string_view name = name_storage.view();

    explicit TwoLevelActive(const timing::SchedulerConfig& config) {
        for (unsigned slot = 0; slot < config.pool_size; ++slot)
            (active_.size() < Active ? active_.push_back(slot) : pending_.push_back(slot));
        in_active_.assign(config.pool_size, 0);
        for (unsigned slot : active_) in_active_[slot] = 1;
    }

    template <timing::SchedulerView View> unsigned select(const View& view) {
        refill(view);
        for (std::size_t k = 0; k < active_.size(); ++k)
            if (view.ready(active_[k])) return active_[k];
        for (unsigned slot : pending_)
            if (view.ready(slot)) {
                ++withheld_cycles_;
                break;
            }
        return timing::no_warp;
    }

    // Whether ready warp `slot` is pending (outside the active pool) in the state of the last select.
    template <timing::SchedulerView View> bool withholds(const View&, unsigned slot) const {
        return slot >= in_active_.size() || in_active_[slot] == 0;
    }

    // The slot after the issued one comes first.
    void on_issue(unsigned slot, core::Cycle) {
        const auto issued = std::find(active_.begin(), active_.end(), slot);
        if (issued != active_.end()) std::rotate(active_.begin(), issued + 1, active_.end());
    }
    void on_warp_start(unsigned) {}
    void on_warp_exit(unsigned) {}

    template <class V> void visit_stats(V& v) const {
        v.counter("two_level_demotions", demotions_, "live warps moved from the active pool to the pending queue");
        v.counter("two_level_withheld_cycles", withheld_cycles_,
                  "cycles no active warp was ready but a pending one was");
    }

private:
    template <class View> bool waits(const View& view, unsigned slot) const {
        if (!view.occupied(slot) || view.long_latency_pending(slot)) return true;
        if constexpr (BarrierView<View>) return view.waiting_at_barrier(slot);
        return false;
    }

    template <class View> void refill(const View& view) {
        std::size_t kept = 0;
        for (std::size_t k = 0; k < active_.size(); ++k) {
            const unsigned slot = active_[k];
            if (waits(view, slot)) {
                pending_.push_back(slot);
                in_active_[slot] = 0;
                if (view.occupied(slot)) ++demotions_; // empty slots cycle through too; they are not counted
            } else {
                active_[kept++] = slot;
            }
        }
        active_.resize(kept);
        while (active_.size() < Active && !pending_.empty()) {
            active_.push_back(pending_.front());
            in_active_[pending_.front()] = 1;
            pending_.pop_front();
        }
    }

    std::vector<unsigned> active_;
    std::deque<unsigned> pending_;
    std::vector<std::uint8_t> in_active_;
    std::uint64_t demotions_ = 0, withheld_cycles_ = 0;
};

} // namespace gpuarch::sched
