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
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
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

    explicit TwoLevelActive(const timing::SchedulerConfig& config) : pending_(config.pool_size) {
        for (unsigned slot = 0; slot < config.pool_size; ++slot)
            (active_count_ < Active ? void(active_[active_count_++] = slot) : pending_.push_back(slot));
        in_active_.assign(config.pool_size, 0);
        for (unsigned slot : active()) in_active_[slot] = 1;
    }

    template <timing::SchedulerView View> unsigned select(const View& view) {
        leave_steady();
        // The demotion test from one mask where the view offers it (the same slots as waits(): PoolView::waiting_mask).
        if constexpr (requires { view.waiting_mask(); }) {
            const std::uint64_t waiting = view.waiting_mask();
            refill(view, [waiting](unsigned slot) { return ((waiting >> slot) & 1U) != 0; });
        } else {
            refill(view);
        }
        for (std::size_t k = 0; k < active_count_; ++k)
            if (view.ready(active_[k])) return active_[k];
        if (any_ready(view)) ++withheld_cycles_; // no active warp is ready, so a ready one is pending
        return timing::no_warp;
    }
    // A cycle in which no warp is ready (timing::QuietCycleHook): what select does then. Waiting warps still move
    // from the active pool to the pending queue and back, as in GPGPU-Sim, whose order_warps runs every cycle.
    // In a run of quiet cycles the view does not change, so once the pools settle into a rotation (below) each
    // further cycle is one step of it, O(1) instead of a refill.
    template <timing::SchedulerView View> void on_quiet_cycle(const View& view) {
        if (steady_.on) {
            steady_.advance(demotions_);
            return;
        }
        refill(view);
        enter_steady(view);
    }

    // `count` quiet cycles in a row (timing::QuietCyclesHook): single cycles until the pools settle into the
    // rotation, then the rest of the run in one step of it.
    template <timing::SchedulerView View> void on_quiet_cycles(const View& view, std::uint64_t count) {
        for (; count > 0 && !steady_.on; --count) on_quiet_cycle(view);
        if (count > 0) steady_.advance(demotions_, count);
    }

    // Whether ready warp `slot` is pending (outside the active pool) in the state of the last select (a select
    // ends the rotation below, so the pools are current).
    template <timing::SchedulerView View> bool withholds(const View&, unsigned slot) const {
        return slot >= in_active_.size() || in_active_[slot] == 0;
    }

    // The slot after the issued one comes first.
    void on_issue(unsigned slot, core::Cycle) {
        leave_steady();
        const auto pool = active();
        const auto issued = std::find(pool.begin(), pool.end(), slot);
        if (issued != pool.end()) std::rotate(pool.begin(), issued + 1, pool.end());
    }
    void on_warp_start(unsigned) { leave_steady(); }
    void on_warp_exit(unsigned) { leave_steady(); }

    // The active pool and the pending queue in order (for tests).
    std::vector<unsigned> active_slots() const {
        auto copy = *this;
        copy.leave_steady();
        return {copy.active().begin(), copy.active().end()};
    }
    std::vector<unsigned> pending_slots() const {
        auto copy = *this;
        copy.leave_steady();
        std::vector<unsigned> slots;
        for (std::size_t k = 0; k < copy.pending_.size(); ++k) slots.push_back(copy.pending_[k]);
        return slots;
    }

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
        refill(view, [&view, this](unsigned slot) { return waits(view, slot); });
    }
    // `waiting(slot)`: waits(view, slot), however the caller knows it.
    template <class View, class Waiting> void refill(const View& view, Waiting&& waiting) {
        std::size_t kept = 0;
        for (std::size_t k = 0; k < active_count_; ++k) {
            const unsigned slot = active_[k];
            if (waiting(slot)) {
                pending_.push_back(slot);
                in_active_[slot] = 0;
                if (view.occupied(slot)) ++demotions_; // empty slots cycle through too; they are not counted
            } else {
                active_[kept++] = slot;
            }
        }
        active_count_ = kept;
        while (active_count_ < Active && !pending_.empty()) {
            const unsigned slot = pending_.pop_front();
            active_[active_count_++] = slot;
            in_active_[slot] = 1;
        }
    }

    // The rotation of quiet cycles. While the view stands still, a refill keeps the active slots that do not wait
    // (`kept`, a prefix of the active pool) and demotes the r others; when those r and every pending slot all wait,
    // the next refill demotes the r again and promotes the r at the pending queue's front, which all wait too. The
    // r promoted slots followed by the pending queue, `ring`, then rotate by r per cycle: `offset` says how far.
    template <class View> void enter_steady(const View& view) {
        std::size_t kept = 0;
        while (kept < active_count_ && !waits(view, active_[kept])) ++kept;
        for (std::size_t k = kept; k < active_count_; ++k)
            if (!waits(view, active_[k])) return;
        for (std::size_t k = 0; k < pending_.size(); ++k)
            if (!waits(view, pending_[k])) return;
        steady_.kept = kept;
        steady_.ring.assign(active_.begin() + static_cast<std::ptrdiff_t>(kept), active_.begin() + active_count_);
        steady_.r = steady_.ring.size();
        for (std::size_t k = 0; k < pending_.size(); ++k) steady_.ring.push_back(pending_[k]);
        // occupied_before[i]: occupied slots among ring[0..i) over two laps, so any window of r is one difference.
        // The second lap repeats the first: a whole lap's count plus the first lap's prefix.
        const std::size_t n = steady_.ring.size();
        steady_.occupied_before.assign(2 * n + 1, 0);
        for (std::size_t i = 0; i < n; ++i)
            steady_.occupied_before[i + 1] = steady_.occupied_before[i] + (view.occupied(steady_.ring[i]) ? 1 : 0);
        for (std::size_t i = 1; i <= n; ++i)
            steady_.occupied_before[n + i] = steady_.occupied_before[n] + steady_.occupied_before[i];
        steady_.offset = 0;
        steady_.on = true;
    }
    // Writes the rotated pools back into active_ and pending_.
    void leave_steady() {
        if (!steady_.on) return;
        steady_.on = false;
        const std::size_t n = steady_.ring.size();
        if (steady_.offset == 0 || n == 0) return;
        active_count_ = steady_.kept;
        for (std::size_t i = 0; i < steady_.r; ++i) active_[active_count_++] = steady_.ring[(steady_.offset + i) % n];
        pending_.clear();
        for (std::size_t i = steady_.r; i < n; ++i) pending_.push_back(steady_.ring[(steady_.offset + i) % n]);
        for (unsigned slot : steady_.ring) in_active_[slot] = 0;
        for (std::size_t i = steady_.kept; i < active_count_; ++i) in_active_[active_[i]] = 1;
    }
    struct Steady {
        bool on = false;
        std::size_t kept = 0, r = 0, offset = 0;
        std::vector<unsigned> ring;
        std::vector<std::uint32_t> occupied_before;
        // One quiet cycle: the r slots at the front are demoted (the occupied ones counted) and come back behind.
        void advance(std::uint64_t& demotions) {
            const std::size_t n = ring.size();
            if (r == 0 || n == 0) return;
            demotions += occupied_before[offset + r] - occupied_before[offset];
            // offset < n and r <= n: one subtraction wraps it (a division here was most of a replayed cycle's cost).
            offset += r;
            if (offset >= n) offset -= n;
        }
        // `cycles` quiet cycles: their windows of r follow each other around the ring, so together they demote the
        // occupied slots of one stretch of cycles * r ring places from `offset` (whole laps, then a remainder).
        void advance(std::uint64_t& demotions, std::uint64_t cycles) {
            const std::size_t n = ring.size();
            if (r == 0 || n == 0) return;
            const std::uint64_t places = cycles * r, laps = places / n;
            const auto rest = static_cast<std::size_t>(places % n);
            demotions += laps * occupied_before[n] + (occupied_before[offset + rest] - occupied_before[offset]);
            offset = (offset + rest) % n;
        }
    };

    // The pending queue: a ring with room for every slot, since a slot is in the active pool or here, never both
    // (a std::deque and a resized std::vector for the pool cost a third of a refill at paper size, session 35).
    class SlotRing {
    public:
        explicit SlotRing(std::size_t capacity) : slots_(capacity == 0 ? 1 : capacity) {}
        std::size_t size() const { return count_; }
        bool empty() const { return count_ == 0; }
        unsigned operator[](std::size_t k) const { return slots_[wrap(head_ + k)]; }
        void push_back(unsigned slot) { slots_[wrap(head_ + count_++)] = slot; }
        unsigned pop_front() {
            const unsigned slot = slots_[head_];
            head_ = wrap(head_ + 1);
            --count_;
            return slot;
        }
        void clear() { head_ = count_ = 0; }

    private:
        std::size_t wrap(std::size_t k) const { return k >= slots_.size() ? k - slots_.size() : k; }
        std::vector<unsigned> slots_;
        std::size_t head_ = 0, count_ = 0;
    };
    std::span<unsigned> active() { return {active_.data(), active_count_}; }
    std::span<const unsigned> active() const { return {active_.data(), active_count_}; }

    std::array<unsigned, Active> active_{};
    std::size_t active_count_ = 0;
    SlotRing pending_;
    std::vector<std::uint8_t> in_active_;
    Steady steady_;
    std::uint64_t demotions_ = 0, withheld_cycles_ = 0;
};

} // namespace gpuarch::sched
