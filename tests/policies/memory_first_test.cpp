// The worked example of docs/new_policy.md: examples/policies/memory_first.hpp satisfies the Scheduler concept,
// obeys the scheduler laws of tests/laws/scheduler_laws.cpp, and does what its comment says. (Its run on real
// kernels is tests/timing/corpus_on_machines.cpp: the Fermi machine's scheduler list in gpuarch_support includes it.)
#include "../../examples/policies/memory_first.hpp"

#include <doctest/doctest.h>

#include "../support/pool_view.hpp"

#include <gpuarch/sched/gto.hpp>

#include <cstdint>
#include <vector>

namespace {
using namespace gpuarch;
using policies::MemoryFirst;

// A view that shows each warp's next instruction, as the SM's does (timing::PreviewsInstructions). Every slot holds
// a warp and none waits on a long-latency result.
struct PreviewView : test_support::PoolView {
    std::vector<ir::Instruction> next_;
    const ir::Instruction* next_instruction(unsigned i) const { return &next_[i]; }
    unsigned next_active_lanes(unsigned) const { return 32; }
    ir::Pc next_pc(unsigned) const { return 0; }
};
static_assert(sched::InstructionPreview<PreviewView>);
static_assert(!sched::InstructionPreview<test_support::PoolView>);

ir::Instruction op(ir::OpClass c) {
    ir::Instruction i;
    i.op_class = c;
    return i;
}
const ir::Instruction load = op(ir::OpClass::load_global), add = op(ir::OpClass::int_alu);

using test_support::SplitMix;
PreviewView random_view(SplitMix& rng, unsigned pool) {
    PreviewView v;
    for (unsigned i = 0; i < pool; ++i) {
        v.ready_.push_back(rng.next() % 3 == 0);
        v.age_.push_back(rng.next() % 1000);
        v.next_.push_back(rng.next() % 4 == 0 ? load : add);
    }
    return v;
}
} // namespace

TEST_CASE("MemoryFirst is a Scheduler: the SM's checks accept it") {
    static_assert(timing::check_scheduler<MemoryFirst>());
    static_assert(timing::Scheduler<MemoryFirst>);
    CHECK(MemoryFirst::name == "MemoryFirst");
}

TEST_CASE("MemoryFirst issues the oldest ready load first, then falls back to greedy-then-oldest") {
    MemoryFirst s(timing::SchedulerConfig{4, 0});
    // slot 0: compute, oldest; slot 1: load, age 5; slot 2: load, age 3; slot 3: load, oldest of all, not ready.
    PreviewView v{{{true, true, true, false}, {0, 5, 3, 1}}, {add, load, load, load}};
    CHECK(s.select(v) == 2); // the oldest *ready* load, not the oldest warp (0) nor the oldest load (3)
    s.on_issue(2, 0);
    v.next_[2] = add;
    CHECK(s.select(v) == 1); // the other load still goes before the greedy warp
    s.on_issue(1, 1);
    v.next_[1] = add;
    CHECK(s.select(v) == 1); // no load ready: greedy, the warp that issued last
    v.ready_[1] = false;
    CHECK(s.select(v) == 0); // greedy warp stalled: the oldest ready warp
    v.ready_ = {false, false, false, false};
    CHECK(s.select(v) == timing::no_warp);
    s.on_warp_exit(1);
    v.ready_ = {true, true, false, false};
    CHECK(s.select(v) == 0); // the greedy warp exited: oldest first
}

TEST_CASE("MemoryFirst obeys the scheduler laws: only ready warps, idle only when none is ready, deterministic") {
    for (unsigned pool : {1U, 5U, 16U, 48U}) {
        SplitMix rng{pool}, replay{pool};
        MemoryFirst a(timing::SchedulerConfig{pool, 0}), b(timing::SchedulerConfig{pool, 0});
        for (int step = 0; step < 2000; ++step) {
            const PreviewView v = random_view(rng, pool), w = random_view(replay, pool);
            const unsigned pick = a.select(v);
            REQUIRE(pick == b.select(w)); // same history, same view: same choice
            bool any_ready = false, load_ready = false;
            for (unsigned i = 0; i < pool; ++i) {
                any_ready = any_ready || v.ready(i);
                load_ready = load_ready || (v.ready(i) && v.next_[i].op_class == ir::OpClass::load_global);
            }
            if (pick == timing::no_warp) {
                REQUIRE_FALSE(any_ready);
                continue;
            }
            REQUIRE(v.ready(pick));
            REQUIRE((!load_ready || v.next_[pick].op_class == ir::OpClass::load_global)); // loads first
            a.on_issue(pick, static_cast<core::Cycle>(step));
            b.on_issue(pick, static_cast<core::Cycle>(step));
        }
    }
}

TEST_CASE("when no warp is at a load, MemoryFirst selects exactly as GTO") {
    SplitMix rng{11};
    MemoryFirst m(timing::SchedulerConfig{24, 0});
    sched::GTO g(timing::SchedulerConfig{24, 0});
    for (int step = 0; step < 2000; ++step) {
        PreviewView v = random_view(rng, 24);
        for (auto& next : v.next_) next = add;
        const unsigned pick = m.select(v);
        REQUIRE(pick == g.select(v));
        if (pick != timing::no_warp) {
            m.on_issue(pick, 0);
            g.on_issue(pick, 0);
        }
    }
}
