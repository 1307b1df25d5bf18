#pragma once
// A hand-set scheduler view with an instruction preview and an L1 view, as the SM's PoolView offers, for the tests of
// the memory-aware schedulers (tests/sched, tests/oaws).
#include <cstdint>
#include <vector>

#include <gpuarch/ir/instruction.hpp>
#include <gpuarch/timing/concepts.hpp>
#include <gpuarch/timing/hooks.hpp>
#include <gpuarch/timing/interfaces.hpp>

namespace schedtest {
using namespace gpuarch;

inline const ir::Instruction& instruction_of(ir::OpClass c) {
    static const auto table = [] {
        std::vector<ir::Instruction> t(static_cast<std::size_t>(ir::OpClass::nop) + 1);
        for (std::size_t k = 0; k < t.size(); ++k) t[k].op_class = static_cast<ir::OpClass>(k);
        return t;
    }();
    return table[static_cast<std::size_t>(c)];
}

struct Warp {
    bool occupied = true;
    bool ready = true;
    std::uint64_t age = 0;
    bool long_latency = false;
    ir::OpClass next = ir::OpClass::fp32;
    unsigned lanes = 32;
    ir::Pc pc = 0;
    bool has_next = true;
    bool at_barrier = false;
};

struct MemView {
    std::vector<Warp> warps;
    timing::L1View l1_{32, 32, 0, false};
    core::Cycle now_ = 0;

    // n warps, ages 10, 20, 30, ..., all ready with an fp32 instruction next.
    static MemView of(unsigned n) {
        MemView v;
        for (unsigned i = 0; i < n; ++i) v.warps.push_back(Warp{true, true, 10ULL * (i + 1)});
        return v;
    }
    MemView& load(unsigned w, ir::Pc pc, unsigned lanes = 32) {
        warps[w].next = ir::OpClass::load_global;
        warps[w].pc = pc;
        warps[w].lanes = lanes;
        return *this;
    }
    MemView& compute(unsigned w) {
        warps[w].next = ir::OpClass::fp32;
        return *this;
    }
    MemView& store(unsigned w) {
        warps[w].next = ir::OpClass::store_global;
        return *this;
    }

    unsigned pool_size() const { return static_cast<unsigned>(warps.size()); }
    bool occupied(unsigned i) const { return warps[i].occupied; }
    bool ready(unsigned i) const { return warps[i].occupied && warps[i].ready; }
    std::uint64_t age(unsigned i) const { return warps[i].age; }
    bool long_latency_pending(unsigned i) const { return warps[i].long_latency; }
    const ir::Instruction* next_instruction(unsigned i) const {
        return warps[i].occupied && warps[i].has_next ? &instruction_of(warps[i].next) : nullptr;
    }
    unsigned next_active_lanes(unsigned i) const { return warps[i].lanes; }
    ir::Pc next_pc(unsigned i) const { return warps[i].pc; }
    timing::L1View l1() const { return l1_; }
    core::Cycle now() const { return now_; }
};
static_assert(timing::SchedulerView<MemView>);

// The same plus barrier visibility.
struct BarrierMemView : MemView {
    bool waiting_at_barrier(unsigned i) const { return warps[i].at_barrier; }
};

// The same plus the SM's state epoch and ready mask (timing::ShowsStateEpoch, the SM's view under event-driven
// issue). A test advances `epoch` wherever the SM would: when a warp's head instruction, occupancy or age changed.
struct EpochMemView : MemView {
    std::uint64_t epoch = 1;
    static EpochMemView of(unsigned n) {
        EpochMemView v;
        static_cast<MemView&>(v) = MemView::of(n);
        return v;
    }
    std::uint64_t state_epoch() const { return epoch; }
    std::uint64_t ready_mask() const {
        std::uint64_t bits = 0;
        for (unsigned i = 0; i < pool_size(); ++i)
            if (ready(i)) bits |= std::uint64_t{1} << i;
        return bits;
    }
};
static_assert(timing::ShowsStateEpoch<EpochMemView>);

// A divergent load's report: `lines` lines touching `sets` sets, `misses` of them missed.
inline timing::MemoryFeedback divergent(ir::Pc pc, unsigned lines, unsigned sets, unsigned misses,
                                        unsigned lanes = 32) {
    timing::MemoryFeedback fb;
    fb.pc = pc;
    fb.is_load = true;
    fb.active_lanes = lanes;
    fb.lines = lines;
    fb.sets = sets;
    fb.misses = misses;
    fb.coherent = lines <= 2;
    return fb;
}

template <class S> void start(S& s, unsigned n) {
    for (unsigned i = 0; i < n; ++i) s.on_warp_start(i);
}

} // namespace schedtest
