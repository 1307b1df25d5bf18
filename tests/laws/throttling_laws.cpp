// Laws of the throttling schedulers (SWL, CCWS, OAWS, MASCAR, and TwoLevelActive's pending pool). They withhold ready warps on purpose, so the
// work-conservation law of scheduler_laws.cpp ("no_warp only if no warp is ready") does not hold for them when the
// view shows memory instructions. In its place (docs/oaws.md, "Laws"):
//   1. select never returns a warp that is not ready;
//   2. select returns no_warp only if every ready warp is withheld, and never returns a withheld warp, where
//      `withholds(view, slot)` is the policy's own statement of whom it excludes this cycle;
//   3. for the GTO-based throttlers (OAWS, SWL, CCWS) the pick is exactly GTO's pick among the warps not withheld:
//      throttling only removes candidates, it never reorders them;
//   4. select is a deterministic function of the notification history and the view;
//   5. when no warp's next instruction touches memory, OAWS, CCWS and MASCAR select exactly as GTO. (On a view
//      without an instruction preview they do not compile: tests/failtest/memory_aware_scheduler_without_preview.cpp.)
#include <doctest/doctest.h>

#include "../support/split_mix.hpp"

#include <gpuarch/sched/ccws.hpp>
#include <gpuarch/sched/gto.hpp>
#include <gpuarch/sched/mascar.hpp>
#include <gpuarch/sched/oaws.hpp>
#include <gpuarch/sched/swl.hpp>
#include <gpuarch/sched/two_level_active.hpp>

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace {
using namespace gpuarch;

using test_support::SplitMix;

ir::Instruction instruction(ir::OpClass c) {
    ir::Instruction i;
    i.op_class = c;
    return i;
}
const std::array<ir::Instruction, 6> kinds{
    instruction(ir::OpClass::load_global),  instruction(ir::OpClass::load_global),
    instruction(ir::OpClass::store_global), instruction(ir::OpClass::fp32),
    instruction(ir::OpClass::load_shared),  instruction(ir::OpClass::int_alu)};

// A view with an instruction preview and an L1, as the SM's PoolView.
struct MemoryView {
    std::vector<bool> occupied_, ready_, long_latency_;
    std::vector<std::uint64_t> age_;
    std::vector<const ir::Instruction*> next_;
    std::vector<unsigned> lanes_;
    std::vector<ir::Pc> pc_;
    timing::L1View l1_{};
    core::Cycle now_ = 0;

    unsigned pool_size() const { return static_cast<unsigned>(ready_.size()); }
    bool occupied(unsigned i) const { return occupied_[i]; }
    bool ready(unsigned i) const { return ready_[i]; }
    std::uint64_t age(unsigned i) const { return age_[i]; }
    bool long_latency_pending(unsigned i) const { return long_latency_[i]; }
    const ir::Instruction* next_instruction(unsigned i) const { return next_[i]; }
    unsigned next_active_lanes(unsigned i) const { return lanes_[i]; }
    ir::Pc next_pc(unsigned i) const { return pc_[i]; }
    timing::L1View l1() const { return l1_; }
    core::Cycle now() const { return now_; }
};
static_assert(sched::InstructionPreview<MemoryView>);

// Warps live in slots for a while (ages fixed while they live), readiness and instructions change every cycle.
struct World {
    SplitMix rng;
    unsigned pool;
    std::vector<bool> live;
    std::vector<std::uint64_t> ages;
    std::uint64_t next_age = 0;
    core::Cycle now = 0;

    World(std::uint64_t seed, unsigned p) : rng{seed}, pool(p), live(p, false), ages(p, 0) {}

    template <class S> void start_all(S& s) {
        for (unsigned i = 0; i < pool; ++i) start(s, i);
    }
    template <class S> void start(S& s, unsigned i) {
        live[i] = true;
        ages[i] = next_age += 1 + rng.below(3);
        s.on_warp_start(i);
    }
    template <class S> void churn(S& s) {
        const unsigned i = rng.below(pool);
        if (live[i] && rng.below(8) == 0) {
            live[i] = false;
            s.on_warp_exit(i);
        } else if (!live[i] && rng.below(2) == 0) {
            start(s, i);
        }
    }
    MemoryView view() {
        MemoryView v;
        for (unsigned i = 0; i < pool; ++i) {
            const bool rdy = live[i] && rng.below(3) != 0;
            v.occupied_.push_back(live[i]);
            v.ready_.push_back(rdy);
            v.long_latency_.push_back(live[i] && !rdy && rng.below(2) == 0);
            v.age_.push_back(ages[i]);
            v.next_.push_back(live[i] ? &kinds[rng.below(kinds.size())] : nullptr);
            v.lanes_.push_back(live[i] ? 1 + rng.below(32) : 0);
            v.pc_.push_back(static_cast<ir::Pc>(rng.below(4)));
        }
        v.l1_.mshr_total = 32;
        v.l1_.mshr_free = rng.below(33);
        v.now_ = now++;
        return v;
    }
    // Feeds the memory-system notifications a scheduler may react to.
    template <class S> void feedback(S& s) {
        const unsigned slot = rng.below(pool);
        if (!live[slot]) return;
        timing::MemoryFeedback fb;
        fb.pc = static_cast<ir::Pc>(rng.below(4));
        fb.active_lanes = 32;
        fb.lines = 1 + rng.below(32);
        fb.coherent = fb.lines <= 2;
        fb.sets = 1 + rng.below(fb.lines);
        fb.misses = rng.below(fb.lines + 1);
        if constexpr (requires { s.on_memory_issued(0U, fb); })
            if (rng.below(2) == 0) s.on_memory_issued(slot, fb);
        if constexpr (requires { s.on_memory_complete(0U, fb); }) s.on_memory_complete(slot, fb);
        if constexpr (requires(timing::LocalityEvent e) { s.on_locality_event(0U, e); }) {
            timing::LocalityEvent e;
            e.kind = rng.below(2) == 0 ? timing::LocalityEvent::miss : timing::LocalityEvent::eviction;
            e.line = std::uint64_t{rng.below(16)} * 128;
            s.on_locality_event(slot, e);
        }
    }
};

// GTO's choice among the ready warps that `allowed` admits, given the warp that issued last.
template <class Allowed> unsigned gto_reference(const MemoryView& v, unsigned greedy, Allowed allowed) {
    if (greedy != timing::no_warp && v.ready(greedy) && allowed(greedy)) return greedy;
    unsigned best = timing::no_warp;
    for (unsigned i = 0; i < v.pool_size(); ++i)
        if (v.ready(i) && allowed(i) && (best == timing::no_warp || v.age(i) < v.age(best))) best = i;
    return best;
}

template <class S> void check_throttler_laws(bool gto_based) {
    static_assert(timing::check_scheduler<S>());
    for (unsigned pool : {1U, 6U, 24U}) {
        World world(pool * 7 + 1, pool);
        S s(timing::SchedulerConfig{pool, 0});
        world.start_all(s);
        unsigned greedy = timing::no_warp;
        std::uint64_t withheld_picks = 0;
        for (int step = 0; step < 3000; ++step) {
            world.churn(s);
            if (greedy != timing::no_warp && !world.live[greedy]) greedy = timing::no_warp;
            world.feedback(s);
            const MemoryView v = world.view();
            const unsigned pick = s.select(v);
            bool any_free_ready = false;
            for (unsigned i = 0; i < pool; ++i)
                if (v.ready(i) && !s.withholds(v, i)) any_free_ready = true;
            if (pick == timing::no_warp) {
                REQUIRE_FALSE(any_free_ready); // idles only when every ready warp is withheld
            } else {
                REQUIRE(pick < pool);
                REQUIRE(v.ready(pick)); // never a warp that is not ready
                REQUIRE_FALSE(s.withholds(v, pick)); // never a warp its policy excludes
            }
            if (gto_based) {
                const unsigned expected = gto_reference(v, greedy, [&](unsigned i) { return !s.withholds(v, i); });
                REQUIRE(pick == expected); // throttling removes candidates, never reorders them
            }
            for (unsigned i = 0; i < pool; ++i) withheld_picks += v.ready(i) && s.withholds(v, i) ? 1 : 0;
            if (pick != timing::no_warp) {
                s.on_issue(pick, v.now());
                greedy = pick;
            }
        }
        if (pool > 1) CHECK(withheld_picks > 0); // the random views do exercise the throttling
    }
}

template <class S> void check_determinism() {
    World wa(11, 24), wb(11, 24);
    S a(timing::SchedulerConfig{24, 0}), b(timing::SchedulerConfig{24, 0});
    wa.start_all(a);
    wb.start_all(b);
    for (int step = 0; step < 2000; ++step) {
        wa.churn(a);
        wb.churn(b);
        wa.feedback(a);
        wb.feedback(b);
        const MemoryView va = wa.view(), vb = wb.view();
        const unsigned pa = a.select(va), pb = b.select(vb);
        REQUIRE(pa == pb);
        if (pa != timing::no_warp) {
            a.on_issue(pa, va.now());
            b.on_issue(pb, vb.now());
        }
    }
}

// The plain view of scheduler_laws.cpp: no instruction preview.
// The same view with every warp's next instruction replaced by an ALU op: nothing for a memory-aware policy to hold
// back.
MemoryView compute_only(MemoryView v) {
    for (auto& next : v.next_)
        if (next != nullptr) next = &kinds[3];
    return v;
}

} // namespace

TEST_CASE_TEMPLATE("a GTO-based throttler picks exactly GTO's warp among those its policy does not withhold", S,
                   sched::OAWSStatic<50>, sched::OAWSStatic<100>, sched::OAWSDynamic<>, sched::SWL<1>, sched::SWL<3>,
                   sched::CCWS<>) {
    check_throttler_laws<S>(true);
}

TEST_CASE("MASCAR never issues a warp that is not ready and idles only when every ready warp is withheld") {
    check_throttler_laws<sched::MASCAR<>>(false);
}

// TwoLevelActive withholds its pending warps (GPGPU-Sim's two_level_active is not work-conserving).
TEST_CASE_TEMPLATE(
    "TwoLevelActive never issues a warp that is not ready and idles only when every ready warp is pending", S,
    sched::TwoLevelActive<2>, sched::TwoLevelActive<4>) {
    check_throttler_laws<S>(false);
}

TEST_CASE_TEMPLATE("a throttling scheduler is a deterministic function of its history and the view", S,
                   sched::OAWSStatic<50>, sched::OAWSDynamic<>, sched::SWL<2>, sched::CCWS<>, sched::MASCAR<>,
                   sched::TwoLevelActive<4>) {
    check_determinism<S>();
}

// S and GTO side by side on 24 warps of one World (feedback to S only): the same pick every cycle. With
// `only_compute` both see each cycle's view with every next instruction an ALU op.
template <class S, bool only_compute> void check_selects_as_gto(std::uint64_t seed, int steps) {
    World world(seed, 24);
    S s(timing::SchedulerConfig{24, 0});
    sched::GTO gto(timing::SchedulerConfig{24, 0});
    world.start_all(s);
    for (unsigned i = 0; i < 24; ++i) gto.on_warp_start(i);
    for (int step = 0; step < steps; ++step) {
        world.feedback(s);
        const MemoryView mv = only_compute ? compute_only(world.view()) : world.view();
        const unsigned a = s.select(mv), b = gto.select(mv);
        REQUIRE(a == b);
        if (a != timing::no_warp) {
            s.on_issue(a, mv.now());
            gto.on_issue(b, mv.now());
        }
    }
}

TEST_CASE_TEMPLATE("when no warp's next instruction touches memory, OAWS, CCWS and MASCAR select exactly as GTO", S,
                   sched::OAWSStatic<50>, sched::OAWSDynamic<>, sched::CCWS<>, sched::MASCAR<>) {
    check_selects_as_gto<S, true>(5, 2000);
}

TEST_CASE("OAWSStatic<0> selects exactly as GTO whatever the view shows") {
    check_selects_as_gto<sched::OAWSStatic<0>, false>(9, 3000);
}
