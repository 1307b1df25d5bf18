#pragma once
// MASCAR's memory-aware scheduling (Sethia, Jamshidi, Mahlke, HPCA 2015, Sec. 4.1), as Wang 2016 Sec. 5 configures
// it: "exclusively prioritizes memory instructions from one 'owner' warp when the memory subsystem is saturated;
// otherwise, memory instructions of all warps are prioritized over any computation instruction"; "saturation here
// means that MSHR has only 1 entry or the queue inside memory port has only 1 slot".
//
// Modes:
//  * Equal-priority mode (not saturated): warps whose next instruction is a memory instruction issue first, GTO
//    among them; then the others, GTO.
//  * Memory-priority mode (saturated): one owner warp keeps the memory path. Its memory instruction issues first;
//    other warps issue compute instructions (GTO) to overlap the outstanding memory; the other warps' memory
//    instructions to global/local data wait. The owner keeps ownership until it reaches an instruction that depends
//    on one of its own pending long-latency loads (Sethia 2015: the owner issues "until it reaches an instruction
//    dependent on its own long-latency load"), or exits; the next owner is the oldest ready warp whose next
//    instruction is a memory instruction.
// The other half of MASCAR, cache-access re-execution, is an L1 knob: mem::ReexecutionQueue<32> (mem/l1.hpp), so a
// MASCAR study composes this scheduler with an L1 that has it. Sethia 2015 also lets non-owner loads that hit the L1
// proceed during saturation; without an owner signal from scheduler to L1, this model holds non-owner memory
// instructions at issue instead [our approximation; docs/oaws.md].
// Saturation reads the L1's free MSHR entries and, when the view shows the memory port (`miss_queue_total` > 0),
// its free slots.
#include <cstdint>
#include <string_view>

#include <gpuarch/sched/memory_aware.hpp>
#include <gpuarch/timing/concepts.hpp>

namespace gpuarch::sched {

template <unsigned SaturatedMshrFree = 1, unsigned SaturatedQueueFree = 1> struct MASCAR {
    static constexpr std::string_view name = "MASCAR";

    explicit MASCAR(const timing::SchedulerConfig&) {}

    template <timing::SchedulerView View> unsigned select(const View& view) {
        saturated_ = saturated(view.l1());
        if (!saturated_) {
            ++ep_cycles_;
            owner_ = timing::no_warp;
            const unsigned memory =
                greedy_then_oldest(view, greedy_, [&](unsigned s) { return next_is_memory(view, s); });
            if (memory != timing::no_warp) return memory;
            return greedy_then_oldest(view, greedy_, [](unsigned) { return true; });
        }
        ++mp_cycles_;
        update_owner(view);
        if (owner_ != timing::no_warp && view.ready(owner_) && next_uses_data_path(view, owner_)) return owner_;
        const unsigned pick = greedy_then_oldest(view, greedy_, [&](unsigned s) { return !withheld(view, s); });
        if (pick == timing::no_warp && any_ready(view)) ++withheld_cycles_;
        return pick;
    }
    // A cycle in which no warp is ready (timing::QuietCycleHook): what select does then. The mode follows the L1,
    // which changes without the warps' state changing, and an owner that waits on its own load is replaced.
    template <timing::SchedulerView View> void on_quiet_cycle(const View& view) {
        saturated_ = saturated(view.l1());
        if (!saturated_) {
            ++ep_cycles_;
            owner_ = timing::no_warp;
            return;
        }
        ++mp_cycles_;
        update_owner(view);
    }
    // `count` quiet cycles in a row (timing::QuietCyclesHook). The view does not change in them, so after the first
    // each one finds the same mode and keeps the owner the first chose (a valid owner stays; a recomputed one is the
    // same warp, which counts no switch): only the mode's cycle count moves.
    template <timing::SchedulerView View> void on_quiet_cycles(const View& view, std::uint64_t count) {
        if (count == 0) return;
        on_quiet_cycle(view);
        (saturated_ ? mp_cycles_ : ep_cycles_) += count - 1;
    }
    // Whether ready warp `slot` is held back (memory-priority mode, a data-path memory instruction of a non-owner).
    template <timing::SchedulerView View> bool withholds(const View& view, unsigned slot) const {
        return saturated_ && withheld(view, slot);
    }

    void on_issue(unsigned slot, core::Cycle) { greedy_ = slot; }
    void on_warp_start(unsigned) {}
    void on_warp_exit(unsigned slot) {
        if (greedy_ == slot) greedy_ = timing::no_warp;
        if (owner_ == slot) owner_ = timing::no_warp;
    }

    bool memory_priority_mode() const { return saturated_; }
    unsigned owner() const { return owner_; }

    template <class V> void visit_stats(V& v) const {
        v.counter("mascar_ep_cycles", ep_cycles_, "cycles in equal-priority mode (memory not saturated)");
        v.counter("mascar_mp_cycles", mp_cycles_, "cycles in memory-priority mode (saturated)");
        v.counter("mascar_owner_switches", owner_switches_, "times a new owner warp took the memory path");
        v.counter("mascar_withheld_cycles", withheld_cycles_, "cycles only non-owner memory instructions were ready");
    }

private:
    template <class L1View> static bool saturated(const L1View& l1) {
        bool s = l1.mshr_free <= SaturatedMshrFree;
        // A view without the memory port's occupancy (miss_queue_total 0) leaves only the MSHR test.
        if constexpr (requires {
                          l1.miss_queue_free;
                          l1.miss_queue_total;
                      })
            s = s || (l1.miss_queue_total > 0 && l1.miss_queue_free <= SaturatedQueueFree);
        return s;
    }
    template <class View> bool withheld(const View& view, unsigned slot) const {
        return slot != owner_ && next_uses_data_path(view, slot);
    }
    template <class View> void update_owner(const View& view) {
        if (owner_ != timing::no_warp && view.occupied(owner_) && !view.long_latency_pending(owner_)) return;
        const unsigned next =
            greedy_then_oldest(view, timing::no_warp, [&](unsigned s) { return next_uses_data_path(view, s); });
        if (next != owner_ && next != timing::no_warp) ++owner_switches_;
        owner_ = next;
    }

    bool saturated_ = false;
    unsigned greedy_ = timing::no_warp;
    unsigned owner_ = timing::no_warp;
    std::uint64_t ep_cycles_ = 0, mp_cycles_ = 0, owner_switches_ = 0, withheld_cycles_ = 0;
};

} // namespace gpuarch::sched
