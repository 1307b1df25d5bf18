#pragma once
// The optional hooks between the SM and its policies, each a named concept.
//
// A slot's concept (timing/concepts.hpp) is what every model must provide. The hooks below are what some models
// provide and the SM then calls; a model without one is not told, and each block says what that means. The SM tests
// exactly these concepts (sm.hpp), so this file is the whole list. Capabilities of the scheduler's view, which the SM
// always provides, come last: a scheduler that needs one states it with the concept, and a view without it fails to
// compile with the concept's name instead of running a fallback.
#include <concepts>
#include <cstdint>

#include <gpuarch/core/dim3.hpp>
#include <gpuarch/ir/instruction.hpp>
#include <gpuarch/timing/concepts.hpp>
#include <gpuarch/timing/interfaces.hpp>

namespace gpuarch::timing {

// ---- Scheduler hooks ------------------------------------------------------------------------------------------

// SharesSmState: the scheduler family keeps state once per SM, shared by the SM's schedulers (Wang 2016 Sec. 4.4:
// OAWS's in-flight miss count, OCW counter and classifier). The SM owns one `S::SmShared` and calls
// attach(shared, schedulers) on each scheduler once, at construction. Without it: each scheduler stands alone.
template <class S>
concept SharesSmState = requires(S s, typename S::SmShared& shared, unsigned schedulers) {
    s.attach(shared, schedulers);
};

// ObservesKernelLaunch: on_kernel_launch() when a launch binds, before its first warp starts (OAWS clears its
// classifier, CCWS its victim tags, LocalityTwoLevel its groups). Without it: state carries over between launches.
template <class S>
concept ObservesKernelLaunch = requires(S s) {
    s.on_kernel_launch();
};

// TakesLaunchHint: on_launch_hint(h) after bind and before the first CTA, with the launch's locality hint 0-3
// (Gong 2020 Table 6.1). Without it: the hint is not used.
template <class S>
concept TakesLaunchHint = requires(S s, unsigned hint) {
    s.on_launch_hint(hint);
};

// ObservesWarpOrigin: on_warp_origin(slot, cta, warp_in_cta, warps_in_cta) right after on_warp_start(slot): where
// the warp sits in the grid (Gong 2020 Sec. 6.3.2 groups warps by it). Without it: the scheduler sees pool slots only.
template <class S>
concept ObservesWarpOrigin = requires(S s, unsigned slot, const core::Dim3& cta) {
    s.on_warp_origin(slot, cta, slot, slot);
};

// ObservesMemoryCompletion: on_memory_complete(slot, feedback) when a memory instruction's data is back, with what
// the L1 saw of it (MemoryFeedback: lines, sets, misses; OAWS's classifier trains on it, Wang 2016 Sec. 4.1).
// Without it: the scheduler learns nothing about memory.
template <class S>
concept ObservesMemoryCompletion = requires(S s, unsigned slot, const MemoryFeedback& fb) {
    s.on_memory_complete(slot, fb);
};

// ObservesMemoryIssue: on_memory_issued(slot, feedback) when every access of a memory instruction has left the LSU
// (Wang 2016 Sec. 4.2: Miss_inflight drops then). Needs an L1 that ReportsMemoryIssue. Without it: not told.
template <class S>
concept ObservesMemoryIssue = requires(S s, unsigned slot, const MemoryFeedback& fb) {
    s.on_memory_issued(slot, fb);
};

// ObservesLocality: on_locality_event(slot, event) for each data-cache miss of the warp, with the victim tags it
// hit (Rogers 2012's lost-locality detector, CCWS). Needs an L1 that ReportsLocalityEvents. Without it: not told.
template <class S>
concept ObservesLocality = requires(S s, unsigned slot, const LocalityEvent& event) {
    s.on_locality_event(slot, event);
};

// ScansEveryCycle: `static constexpr bool scan_every_cycle` (any value) keeps the SM's full per-cycle scans of the
// issue and fetch stages and turns quiet-cycle replay off: the reference the event-driven stages and the replay are
// tested against (tests/pinned/quiet_cycles.cpp).
template <class S>
concept ScansEveryCycle = requires {
    S::scan_every_cycle;
};

// Quiet-cycle replay (sm.hpp, quiet_cycle_replay): after a cycle in which nothing issued, the SM skips the issue
// stage's scan of its pools until some event changes a warp's state, and replays that cycle's statistics. A
// scheduler with state (a non-const select) takes part through one of two declared contracts, and then only
// cycles in which no warp of the SM was ready are replayed. Its contract says "my choice does not change while
// nothing I observe changes":
//
// QuietWhenNothingReady: the scheduler declares
//     static constexpr bool select_changes_nothing_when_nothing_is_ready = true;
// Contract: a select on a view where no slot is ready returns no_warp, and a second such select on the same view,
// at any later cycle, leaves the scheduler, its statistics included, exactly as the first left it. TwoLevel and
// LocalityTwoLevel (they move their active group only to a ready warp) declare it.
template <class S>
concept QuietWhenNothingReady = S::select_changes_nothing_when_nothing_is_ready == true;

// QuietCycleHook: the scheduler has `void on_quiet_cycle(const View&)`. Contract: on a view where no slot is ready,
// select returns no_warp, and on_quiet_cycle(view) changes the scheduler exactly as that select would; in a
// replayed cycle the SM calls it instead of select. For schedulers that count or age something every cycle: CCWS
// (score decay), MASCAR (its mode follows the L1), OAWS (the dynamic window's size), TwoLevelActive (demotion); and
// SWL (its starvation timer stops), which needs the hook for WithheldCycleHook.
template <class S, class View>
concept QuietCycleHook = requires(S s, const View& view) {
    s.on_quiet_cycle(view);
};

// QuietCyclesHook: a QuietCycleHook scheduler that also has `void on_quiet_cycles(const View&, std::uint64_t n)`.
// Contract: it changes the scheduler exactly as n calls of on_quiet_cycle(view) in n consecutive cycles, the last
// at view.now(). The SM replays the first two cycles of a run of quiet cycles one by one and the rest with one call
// per scheduler (IssueStage::replay_quiet_cycles): an SM asleep for a million cycles costs TwoLevelActive one step of
// its rotation's arithmetic instead of a million. TwoLevelActive, MASCAR and OAWS offer it; CCWS, whose scores decay
// cycle by cycle, does not.
template <class S, class View>
concept QuietCyclesHook = QuietCycleHook<S, View> && requires(S s, const View& view, std::uint64_t n) {
    s.on_quiet_cycles(view, n);
};

// WithheldCycleHook: a QuietCycleHook scheduler that also has `bool repeats_withheld(const View&) const` and
// `void on_withheld_cycles(const View&, std::uint64_t n)`. Contract: after a select that returned no_warp although
// some slot of its view was ready (it withheld every ready warp), repeats_withheld(view), asked of a view with the
// same state epoch and ready mask, says whether the next select would withhold them again and change nothing but
// what on_withheld_cycles counts; on_withheld_cycles(view, n) then changes the scheduler exactly as n such selects
// in n consecutive cycles, the last at view.now(). The SM replays a cycle in which every ready warp was withheld as
// it replays a quiet cycle, while the state epoch is unchanged and every scheduler that withheld repeats, and may
// sleep through such cycles (sm.hpp, waits_on_l1): on syrk (GTX480) OAWS withholds the ready loads of most warps in
// most cycles while the L1 retries a load, cycles that are then slept. OAWS offers it: what its select reads besides
// the view (the L1's free MSHR entries, its classifier and window) stays put while the SM sleeps, and the SM asks
// repeats_withheld again in every cycle it is awake. CCWS offers it too, with `core::Cycle withheld_until(const View&)
// const`: the first cycle whose select may differ with nothing else changing (its scores decay cycle by cycle, and
// at that decay the warps it allows loads may change). repeats_withheld says no from that cycle on, and an SM sleeps
// no further (IssueStage::replays_until). SWL offers it where the view tells barrier waits (sched/swl.hpp).
template <class S, class View>
concept WithheldCycleHook = QuietCycleHook<S, View> && requires(S s, const S cs, const View& view, std::uint64_t n) {
    { cs.repeats_withheld(view) } -> std::convertible_to<bool>;
    s.on_withheld_cycles(view, n);
};

// WithheldUntilHook: a WithheldCycleHook scheduler that also has `core::Cycle withheld_until(const View&) const`.
// Contract: asked after repeats_withheld(view) said yes, it names the first cycle from which repeats_withheld may say
// no with nothing else changing (never, the largest Cycle, when no such cycle comes); an SM that sleeps through
// repeated withheld cycles wakes no later than that (IssueStage::replays_until). CCWS offers it.
template <class S, class View>
concept WithheldUntilHook = WithheldCycleHook<S, View> && requires(const S cs, const View& view) {
    { cs.withheld_until(view) } -> std::convertible_to<core::Cycle>;
};

// ConstSelect: select is const; nothing a select does can change the scheduler.
template <class S, class View>
concept ConstSelect = requires(const S s, const View& view) {
    s.select(view);
};

// ReplaysQuietCycles: the scheduler takes part in quiet-cycle replay (const select, or one of the contracts above).
// Without it: asked every cycle.
template <class S, class View>
concept ReplaysQuietCycles = ConstSelect<S, View> || QuietWhenNothingReady<S> || QuietCycleHook<S, View>;

// ---- L1 hooks ---------------------------------------------------------------------------------------------------

// ReportsMemoryIssue: drain_issued(done) calls done(completion) for each instruction whose accesses all left the LSU
// this cycle; the SM forwards them to ObservesMemoryIssue schedulers. Without it: those schedulers are not told.
template <class L>
concept ReportsMemoryIssue = requires(L l) {
    l.drain_issued([](const auto&) {});
};

// ReportsLocalityEvents: drain_locality_events(f) calls f(warp, event) for each data-cache miss this cycle; the SM
// forwards them to the warp's ObservesLocality scheduler. Without it: those schedulers are not told.
template <class L>
concept ReportsLocalityEvents = requires(L l) {
    l.drain_locality_events([](std::uint32_t, const LocalityEvent&) {});
};

// ---- Register-file hooks -------------------------------------------------------------------------------------------

// ReportsBankConflicts: conflicted_last_cycle(scheduler) (or, for one arbiter per SM, conflicted_last_cycle()) says
// whether a bank conflict held a read back in the last cycle, so a read it cannot accept is a bank_conflict stall.
// Without it: such a stall counts as structural.
template <class R>
concept ReportsBankConflictsPerScheduler = requires(const R r, unsigned s) {
    { r.conflicted_last_cycle(s) } -> std::convertible_to<bool>;
};
template <class R>
concept ReportsBankConflicts = requires(const R r) {
    { r.conflicted_last_cycle() } -> std::convertible_to<bool>;
};

// AcceptsEveryRead: `accepts_every_read` declares that can_accept(read) is always true and the file keeps no
// per-cycle port state (IdealRF), which quiet-cycle replay and event-driven issue rely on.
template <class R>
concept AcceptsEveryRead = requires {
    R::accepts_every_read;
};

// IgnoresResultValues: a register file or execution model that never reads the per-lane result values it is given
// (RegisterWrite::values, ExecOp::values). When the SM's register file and execution model both declare it, the
// functional engine does not copy each instruction's result values for them (StepResult::record_values: a block
// copy of a register row per warp instruction, about 3% of syrk's host time on GTX480). A model that reads values
// must not declare it; a model that declares nothing is given the values.
template <class P>
concept IgnoresResultValues = requires {
    requires P::ignores_result_values;
};

// ---- Scheduler-view capabilities (the SM's PoolView provides them all) -----------------------------------------

// PreviewsInstructions: each warp's next decoded instruction, its executed lanes and its PC (OAWS, CCWS and MASCAR
// read them to predict memory behaviour).
template <class V>
concept PreviewsInstructions = SchedulerView<V> && requires(const V v, unsigned i) {
    { v.next_instruction(i) } -> std::convertible_to<const ir::Instruction*>;
    { v.next_active_lanes(i) } -> std::convertible_to<unsigned>;
    { v.next_pc(i) } -> std::convertible_to<ir::Pc>;
};

// ReportsBarrierWaits: whether a warp waits at a CTA barrier (a warp limiter must not count it, or the CTA
// deadlocks; two-level pools must not hold a place for it).
template <class V>
concept ReportsBarrierWaits = requires(const V v, unsigned i) {
    { v.waiting_at_barrier(i) } -> std::convertible_to<bool>;
};

// NotesReadyAsks: a view whose ready() notes which slots it is asked (HAWSScheduler's AttemptView, sched/haws.hpp,
// records the warps its base scheduler found not ready as failed issue attempts). Through such a view the slots a
// scheduler asks are part of its result, so it must ask them one by one in its policy's order; through any other
// view a scheduler may read ready_mask() instead (LRR does).
template <class V>
concept NotesReadyAsks = requires {
    requires V::notes_ready_asks;
};

// ShowsStateEpoch: a number that changes whenever a warp's occupancy, age or head instruction may have changed,
// and a mask of the ready slots (pools of at most 64 slots). The SM's view has them under event-driven issue only
// (SM::event_driven_issue). Unlike the capabilities above, no scheduler requires it: OAWS and CCWS use it, where the
// view has it, to repeat a select that withheld every ready warp without asking about each warp again.
template <class V>
concept ShowsStateEpoch = requires(const V v) {
    { v.state_epoch() } -> std::convertible_to<std::uint64_t>;
    { v.ready_mask() } -> std::convertible_to<std::uint64_t>;
};

} // namespace gpuarch::timing
