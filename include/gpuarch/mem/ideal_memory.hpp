#pragma once
// IdealMemory<Latency>: an L1-slot policy where every warp memory instruction, of any space, completes
// exactly `latency` cycles after it is accepted. Bandwidth is unlimited except that the LSU takes one warp
// instruction per cycle; nothing is ever sent down. It stands in before the real hierarchy is wired and gives
// exact cycle counts in micro-kernel tests.
// Contract: accept() at cycle t -> the Completion is handed out by drain_completed() after cycle(t + latency).
#include <cstdint>
#include <string_view>

#include <gpuarch/core/cycle.hpp>
#include <gpuarch/core/error.hpp>
#include <gpuarch/mem/access.hpp>
#include <gpuarch/mem/knobs.hpp>
#include <gpuarch/mem/queue.hpp>

namespace gpuarch::mem {

template <std::uint32_t Latency> class IdealMemory {
    static_assert(Latency > 0, "IdealMemory needs a latency of at least one cycle");

public:
    static constexpr std::uint32_t latency_knob = Latency;
    static constexpr auto name_storage = detail::templated_name<detail::FixedString("IdealMemory"), Latency>();
    static constexpr std::string_view name = name_storage.view();

    struct Config {
        std::uint32_t latency = Latency;
    };

    IdealMemory(const Config& config, std::uint32_t sm_id) : config_(config), sm_(sm_id) {
        if (config_.latency == 0) throw Error("IdealMemory needs a latency of at least one cycle");
    }

    bool can_accept() const { return !accepted_this_cycle_; }
    void accept(const WarpAccess& access, core::Cycle now) {
        if (!can_accept())
            throw Error("IdealMemory::accept was called twice in one cycle; it takes one warp instruction per cycle");
        accepted_this_cycle_ = true;
        ++accepted_;
        Completion c;
        c.warp = access.warp;
        c.token = access.token;
        c.pc = access.pc;
        c.kind = access.kind;
        c.space = access.space;
        c.accepted_at = now;
        in_flight_.push(Entry{now + config_.latency, c});
    }
    void cycle(core::Cycle now, Downstream&) {
        state_ = accepted_this_cycle_ ? LsuState::busy : LsuState::idle;
        accepted_this_cycle_ = false;
        while (!in_flight_.empty() && in_flight_.front().ready_at <= now) {
            completed_.push(in_flight_.front().completion);
            in_flight_.pop();
        }
        ++cycles_;
    }
    void receive(const MemPacket&, core::Cycle) {
        throw Error("IdealMemory never sends requests, so it cannot receive a response");
    }
    template <class F> void drain_completed(F&& done) {
        while (!completed_.empty()) {
            done(completed_.front());
            completed_.pop();
        }
    }
    L1View view() const {
        L1View v;
        v.lsu_queue_depth = 0;
        v.lsu_blocked = accepted_this_cycle_;
        v.lsu_state = state_;
        return v;
    }
    LsuState lsu_state() const { return state_; }
    bool idle() const { return in_flight_.empty() && completed_.empty(); }
    std::uint32_t sm() const { return sm_; }

    template <class V> void visit_stats(V& v) const {
        v.counter("cycles", cycles_, "core cycles simulated");
        v.counter("accepted", accepted_, "warp memory instructions accepted");
    }

private:
    struct Entry {
        core::Cycle ready_at = 0;
        Completion completion;
    };
    Config config_;
    std::uint32_t sm_;
    bool accepted_this_cycle_ = false;
    LsuState state_ = LsuState::idle;
    GrowingQueue<Entry> in_flight_{64};
    GrowingQueue<Completion> completed_{16};
    std::uint64_t cycles_ = 0;
    std::uint64_t accepted_ = 0;
};

} // namespace gpuarch::mem
