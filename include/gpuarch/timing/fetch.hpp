#pragma once
// The fetch slot: who fills each warp's instruction buffer.
//
// The SM's own fetch is in order: per scheduler, round-robin, one warp per cycle fetches up to fetch_per_warp
// instructions, executing each functionally as it is fetched, and stops after a control instruction until it
// resolves (sm.hpp, docs/architecture.md). A fetch policy may take the stage over for some warps at some times,
// as hint-assisted scheduling does (fetch::HintAssisted, Gong 2020 Ch. 5): it then decides what enters a warp's
// buffer, and may issue, rename and retire instructions its own way.
//
// How an SM gets its fetch policy: the scheduler names it (`using fetch_policy = fetch::HintAssisted;` in
// sched::HAWSScheduler), because the two are designed together (the scheduler stores the per-warp state that the
// fetch policy runs on); a scheduler that names none gets fetch::InOrder. So `SM<KeplerFrontend,
// HAWSScheduler<RCU<8>>, ...>` still spells the whole machine with five slots.
//
// Minimal complete definition (FetchPolicy): name; `in_order` (bool). An in-order policy is that and nothing more:
// the SM runs its own fetch, byte for byte the code it has without a policy. A policy with in_order == false also
// provides:
//   RecordState: a default-constructible struct the SM keeps in every in-flight record (reset when the record is
//     prepared at fetch), for the policy's marks on an instruction;
//   template <class Core> class Mechanism: default-constructible, one per SM, a friend of the SM (it rewrites the
//     SM's warp, record and scoreboard state as fetch hardware does). Its hooks, each called by the SM at one point
//     of the cycle (FetchMechanism below checks them):
//       bind(sm, kernel)              when a launch binds (before its first CTA);
//       extra_registers()             registers past the kernel's own that the scoreboard must cover (renaming);
//       begin_stage(sm)               at the start of every fetch stage;
//       owns_fetch(sm, w)             whether the policy, not the in-order fetch, fetches warp w now; when true:
//       can_fetch(sm, w), fetch(sm, w), empty_blocker(sm, w) replace the in-order fetch's eligibility, fetch, and
//                                     the stall reason of an empty instruction buffer;
//       overrides_hazard(rec), head_hazard(sm, w, rec)   the scoreboard check of a head the policy marked;
//       issue_instead(sm, w)          at issue, before the SM's own path: true when the policy issued the head;
//       after_issue(sm, w, rec)       after every issue of the SM's own path;
//       def_register(rec, k)          where destination k is written (renaming);
//       resolves_control(rec)         whether a completing control instruction unblocks in-order fetch;
//       on_retire(sm, rec)            when an instruction retires.
//   Without a policy (fetch::InOrder) none of these is called and the SM keeps its fast paths: quiet-cycle replay,
//   event-driven issue and fetch, and the parallel tick's private fetch. A policy that reorders fetch turns them off,
//   because its transitions change warp state outside the events those paths track, unless it states the contract
//   below, which gives back quiet-cycle replay (with the skips that rest on it: the fetch stage that found nothing
//   to do, dormant SMs, the stalled sleep) and event-driven issue and fetch; the private fetch stays off.
// Optional (FollowsStateEpoch): `template <class Scheduler> static constexpr bool follows_state_epoch`, true when,
//   with that scheduler, the policy's transitions change state only together with the SM's state epoch:
//     - begin_stage advances sm.state_epoch_ whenever it changes anything (warp, record, scoreboard or policy state,
//       or a statistic);
//     - begin_stage's decisions and the answers of owns_fetch, can_fetch, empty_blocker and head_hazard depend only
//       on state whose every change advances the epoch (a completion, a write-back, a dispatch, an issue, a fetch,
//       a CTA start, a launch, or begin_stage itself), never on the cycle number;
//     - begin_stage and fetch call sm.touch(w) for every warp w whose issue or fetch eligibility they change (and
//       sm.touch_cta for a functional barrier release), as the SM's own stages do for event-driven issue and fetch.
//   Then a fetch stage whose begin_stage changed nothing and which fetched nothing would change nothing again until
//   the epoch moves, and the SM skips it; and a cycle without issue replays as for in-order fetch. Checked against
//   the full scans (scan_every_cycle) by tests/timing/quiet_replay_haws_test.cpp.
// Optional: `touched(w)` and `touched_all()` on the mechanism. The SM calls them from touch(w) and touch_all(), so
//   begin_stage may revisit only the warps something changed (fetch::HintAssisted does where Core::event_driven_issue
//   holds, the condition under which those touches are complete).
// Laws: functional results never change (the functional engine still executes every warp in program order; a
// policy reorders timing only), tested by the corpus under HAWS (tests/haws/corpus_under_haws.cpp); a policy that
// never takes over fetch issues what the in-order fetch issues, cycle for cycle (tests/haws/laws.cpp).
// Models: fetch::InOrder, fetch::HintAssisted.
#include <concepts>
#include <string_view>

#include <gpuarch/ir/module.hpp>

namespace gpuarch::timing {

template <class F>
concept FetchPolicy = requires {
    { F::name } -> std::convertible_to<std::string_view>;
    { F::in_order } -> std::convertible_to<bool>;
}
&&(F::in_order || requires { typename F::RecordState; });

// The hooks of a reordering fetch policy's mechanism, as SM `Core` calls them. `Record` is the SM's in-flight
// record type; the SM runs the check itself, since only it can name that private type.
template <class M, class Core, class Record>
concept FetchMechanism = std::default_initializable<M> &&
    requires(M m, const M cm, Core& sm, const Core& csm, unsigned w, Record& rec, const Record& crec,
             const ir::Kernel& kernel) {
    m.bind(sm, kernel);
    { cm.extra_registers() } -> std::convertible_to<unsigned>;
    m.begin_stage(sm);
    { cm.owns_fetch(csm, w) } -> std::convertible_to<bool>;
    { cm.can_fetch(csm, w) } -> std::convertible_to<bool>;
    m.fetch(sm, w);
    cm.empty_blocker(csm, w);
    { cm.overrides_hazard(crec) } -> std::convertible_to<bool>;
    cm.head_hazard(csm, w, crec);
    { m.issue_instead(sm, w) } -> std::convertible_to<bool>;
    m.after_issue(sm, w, rec);
    { M::def_register(crec, w) } -> std::convertible_to<unsigned>;
    { M::resolves_control(crec) } -> std::convertible_to<bool>;
    m.on_retire(sm, crec);
};

// A reordering fetch policy's quiet-cycle contract with scheduler `Scheduler` (above).
template <class F, class Scheduler>
concept FollowsStateEpoch = !F::in_order && requires {
    requires F::template follows_state_epoch<Scheduler>;
};

template <class F> consteval bool check_fetch_policy() {
    static_assert(
        requires {
            { F::name } -> std::convertible_to<std::string_view>;
        },
        "the fetch policy (the scheduler's fetch_policy) must provide `static constexpr std::string_view name`");
    static_assert(
        requires {
            { F::in_order } -> std::convertible_to<bool>;
        },
        "the fetch policy must say whether it is in order: `static constexpr bool in_order`");
    static_assert(FetchPolicy<F>, "a fetch policy that is not in order must provide a `RecordState` type and a "
                                  "`Mechanism<Core>` template (timing/fetch.hpp)");
    return true;
}

} // namespace gpuarch::timing
