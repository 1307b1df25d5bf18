#pragma once
// pipeline::CtaTable<Frontend>: the CTAs resident on one core, the bookkeeping SM and barrel::BarrelSM share.
//
// It owns the CTA slots (each with its functional state and the core's warp slots that hold its warps), the
// barrier arrivals, and the occupancy count (timing::detail::Occupancy). The core owns its warps: it places a new
// CTA's warps, and is called back, warp slot by warp slot, when a barrier releases. Contract of the lifecycle:
//   open(...)         claims a free slot and starts the CTA functionally (the core then fills warp_slots);
//   admit(shape)      counts the CTA against the occupancy limits, once its warps are placed;
//   arrive(slot, ...) a warp reached a CTA-wide barrier; when every live warp has, all are released;
//   warp_exited(...)  a warp finished; the CTA's last warp frees the slot and counts the CTA as finished, an
//                     earlier one may complete a barrier the remaining warps all wait at.
#include <cstdint>
#include <memory>
#include <vector>

#include <gpuarch/func/kernel_execution.hpp>
#include <gpuarch/timing/cta_shape.hpp>
#include <gpuarch/timing/detail/occupancy.hpp>

namespace gpuarch::pipeline {

template <class Frontend> class CtaTable {
public:
    struct Slot {
        bool active = false;
        // Kept between CTAs, so that the slot's next CTA reuses its buffers (no allocation per CTA).
        std::unique_ptr<func::CtaState> state;
        std::vector<unsigned> warp_slots; // the core's warp slots holding this CTA's warps, in warp order
        unsigned live_warps = 0, arrived = 0;
    };

    CtaTable() : slots_(Frontend::max_ctas) {}

    bool can_accept(const CtaShape& shape) const { return occupancy_.can_accept(shape); }
    unsigned resident() const { return occupancy_.resident_ctas(); }
    unsigned used_warps() const { return occupancy_.used_warps(); }
    Slot& operator[](unsigned slot) { return slots_[slot]; }
    const Slot& operator[](unsigned slot) const { return slots_[slot]; }

    // Claims a free slot, starts CTA `linear_cta` of `execution` in it on core `core_id`, and returns the slot.
    // Precondition: can_accept(the launch's shape).
    unsigned open(func::KernelExecution& execution, std::uint64_t linear_cta, std::uint32_t core_id) {
        unsigned slot = 0;
        while (slots_[slot].active) ++slot;
        Slot& cta = slots_[slot];
        cta.active = true;
        if (!cta.state) cta.state = std::make_unique<func::CtaState>();
        execution.start_cta(*cta.state, linear_cta, core_id);
        cta.live_warps = static_cast<unsigned>(cta.state->warp_count());
        cta.arrived = 0;
        cta.warp_slots.clear();
        return slot;
    }
    void admit(const CtaShape& shape) { occupancy_.add(shape); }

    // A warp of CTA `slot` reached a barrier that waits for the whole CTA (bar.sync, bar.red; not bar.arrive).
    // When every live warp has arrived, calls release(w) for each of the CTA's warp slots.
    template <class Release> void arrive(unsigned slot, Release&& release) {
        ++slots_[slot].arrived;
        release_if_complete(slots_[slot], release);
    }
    // A warp of CTA `slot` finished. Returns true when it was the CTA's last: the slot is free again and the CTA
    // counts as finished (take_finished). Otherwise the warps still live may now all be at the barrier.
    template <class Release> bool warp_exited(unsigned slot, const CtaShape& shape, Release&& release) {
        Slot& cta = slots_[slot];
        --cta.live_warps;
        if (cta.live_warps > 0) {
            release_if_complete(cta, release);
            return false;
        }
        cta.active = false;
        occupancy_.remove(shape);
        ++finished_;
        return true;
    }
    // CTAs that finished since the last call (the dispatcher refills the core).
    unsigned take_finished() {
        const unsigned n = finished_;
        finished_ = 0;
        return n;
    }

private:
    template <class Release> void release_if_complete(Slot& cta, Release& release) {
        if (cta.arrived == 0 || cta.arrived < cta.live_warps) return;
        cta.arrived = 0;
        for (unsigned w : cta.warp_slots) release(w);
    }

    std::vector<Slot> slots_;
    timing::detail::Occupancy<Frontend> occupancy_;
    unsigned finished_ = 0;
};

} // namespace gpuarch::pipeline
