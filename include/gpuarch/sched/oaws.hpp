#pragma once
// Memory-occlusion-aware warp scheduling (OAWS; Wang, Zhu, Yu, PACT 2016): GTO prioritization over the ready warps
// whose next memory instruction is predicted to fit in the MSHR entries still available.
//
//   OAWSStatic<SMR>   Sec. 4.2: a divergent load is predicted to miss on `active threads x SMR` lines, a coherent
//                     load on 1, a store on 0. SMR = 0 disables OAWS ("OAWS is essentially disabled"): exactly GTO.
//   OAWSDynamic       Sec. 4.3: the OCW counter estimates how many of the oldest warps stay fully cached
//                     ("locality warps", predicted 0 misses); other ("thrashing") warps are predicted
//                     `active threads x 50% + GTO rank` for a divergent load.
//
// Qualification (Eq. 1): a warp whose next instruction is a cached load qualifies when
//     Miss_pred(pc, w) <= Avail_mshr - Miss_inflight
// A prediction of 0 always qualifies (Sec. 4.3.2: locality warps "will not be excluded from scheduling"), and a
// prediction is capped at the MSHR capacity, so a load always qualifies once nothing is in flight and every entry is
// free (forward progress; the paper's 5-bit prediction register saturates likewise). Warps whose next instruction
// is not a cached load always qualify. GTO then picks among the qualified ready warps (Sec. 4.1.2, Fig. 6).
//
// Where the paper is silent or ambiguous (digest Sec. 6.4) the choice is a knob in OawsKnobs, default first:
//  1. How Avail_mshr and Miss_inflight count (MissAccounting). `live` (the digest's reading): Avail_mshr is the
//     number of MSHR entries free now and Miss_inflight holds the predictions of the loads issued but not yet out
//     of the LSU (Sec. 4.2: "decreased only when a load instruction retires from memory pipeline"); a load that
//     left the LSU holds real entries, which the free count shows. `budget`: Avail_mshr is the MSHR capacity and a
//     prediction is held until the load's data is back. `live` needs the SM to forward the L1's LSU-exit reports
//     (on_memory_issued, timing/hooks.hpp); until the first such report arrives it runs as `budget`, the
//     consistent pairing for a release at completion (the free count minus predictions of loads that already hold
//     their entries would count those twice).
//  2. Fig. 7's order of tests (OcwCheck::before_update: the saturated/zero counter is tested before the update,
//     the digest's rendering) and Delta = CNT/2 rounded up (so CNT always moves).
//  3. OCW, Miss_inflight, the DLC and the GTO rank are per SM in the paper. The SM builds one scheduler object per
//     scheduler; when it calls attach(SmShared&, schedulers) they share one
//     SmShared and the rank is over the SM's warps; otherwise each scheduler keeps its own and OCW ranges over its
//     own pool, from `ocw_min_per_scheduler` (Wang: 2 per SM = one per scheduler) to its pool size.
//  4. A thrashing warp's coherent load is predicted 1 (`coherent_prediction`); the rank is added to divergent loads
//     only. The rank is the warp's age rank (0 = oldest; Fig. 4 plots MSHR use by relative age).
//  5. #acc / #sets accumulate with joint halving at saturation, #inst decays every `dlc_decay_period` loads
//     (divergent_load_classifier.hpp).
//  6. Replay timing is the L1's (mem/l1.hpp: the head access retries every cycle).
// Training (DLC, OCW) happens when a divergent load's accesses have been served (Sec. 4.3.1), i.e. at
// on_memory_issued, or at on_memory_complete while the SM does not forward LSU exits. The DLC is cleared by
// on_kernel_launch() (Sec. 4.4), or, while the SM does not call it, at the first warp start after every warp of the
// scheduler had exited.
//
// Statistics: predicted vs actual misses of the loads it tracked, MSHR entries consumed (misses) by the warp's age
// rank at issue (Fig. 4), cycles it withheld every ready warp, and for OAWSDynamic the OCW history.
#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <string_view>
#include <vector>

#include <gpuarch/core/stats.hpp>
#include <gpuarch/ir/instruction.hpp>
#include <gpuarch/sched/divergent_load_classifier.hpp>
#include <gpuarch/sched/memory_aware.hpp>
#include <gpuarch/timing/concepts.hpp>

namespace gpuarch::sched {

enum class MissAccounting : std::uint8_t { live, budget };
enum class OcwCheck : std::uint8_t { before_update, after_update };
enum class OcwDelta : std::uint8_t {
    one, // strategy 1: Delta = 1
    half_cnt, // strategy 2: Delta = CNT / 2 (rounded up)
    by_associativity, // Sec. 4.3.1: strategy 2 for associativity-sensitive loads (#acc > 1.5 x #sets), else 1
};

// The knobs of both OAWS variants; a structural type, so it is a template argument. `label` names a variant whose
// knobs differ from the defaults (it replaces the default name in tables).
struct OawsKnobs {
    MissAccounting accounting = MissAccounting::live;
    DlcEviction dlc_eviction = DlcEviction::zero_inst;
    std::uint32_t dlc_decay_period = 128;
    // OAWSDynamic (Wang 2016 Sec. 4.3)
    std::uint32_t cnt_max = 255; // "8-bit counter ... Cmax=255"
    std::uint32_t cnt_init = 128; // "CNT is initialized as 128"
    std::uint32_t ocw_min_per_scheduler = 1; // "OCW is no less than 2, because each warp scheduler needs at least one"
    std::uint32_t thrashing_miss_percent = 50; // "thrashing warps are predicted with a flat miss rate of 50%"
    std::uint32_t assoc_threshold_tenths = 15; // "#acc is larger than #sets x 1.5"
    OcwDelta delta = OcwDelta::by_associativity;
    OcwCheck check = OcwCheck::before_update;
    std::uint32_t coherent_prediction = 1; // Sec. 4.1.1: "Coherent loads are predicted to consume one MSHR entry"
    bool add_rank = true; // Sec. 4.3.2: "+ GTO_gprio"
    std::array<char, 32> label{};
};

// The OCW estimation logic of Wang 2016 Sec. 4.3.1 / Fig. 7, fed one event per divergent load whose accesses were
// served: fully cached (no access missed) or partially cached.
class OcwCounter {
public:
    OcwCounter(std::uint32_t ocw_min, std::uint32_t ocw_max, std::uint32_t ocw_init, std::uint32_t cnt_init,
               std::uint32_t cnt_max, OcwCheck check)
        : min_(ocw_min), max_(std::max(ocw_min, ocw_max)), ocw_(std::clamp(ocw_init, ocw_min, max_)),
          cnt_(std::min(cnt_init, cnt_max)), cnt_max_(cnt_max), check_(check) {}

    // (A) CNT += 1; (B) at CNT = Cmax: OCW += 1, CNT = 0; (D) at OCW = Wmax a saturated CNT stays.
    void fully_cached() {
        if (check_ == OcwCheck::before_update) {
            if (cnt_ == cnt_max_) {
                if (ocw_ < max_) grow();
                return;
            }
            ++cnt_;
            return;
        }
        if (cnt_ < cnt_max_) ++cnt_;
        if (cnt_ == cnt_max_ && ocw_ < max_) grow();
    }
    // (C) CNT -= Delta; (E) at CNT = 0: OCW -= 1, CNT = Cmax; (D) at OCW = min a zero CNT stays.
    void partially_cached(std::uint32_t delta) {
        if (check_ == OcwCheck::before_update) {
            if (cnt_ == 0) {
                if (ocw_ > min_) shrink();
                return;
            }
            cnt_ = delta >= cnt_ ? 0 : cnt_ - delta;
            return;
        }
        cnt_ = delta >= cnt_ ? 0 : cnt_ - delta;
        if (cnt_ == 0 && ocw_ > min_) shrink();
    }
    // Delta of strategy 2: CNT / 2, rounded up so that the counter always moves.
    std::uint32_t half() const { return (cnt_ + 1) / 2; }

    std::uint32_t ocw() const { return ocw_; }
    std::uint32_t cnt() const { return cnt_; }
    std::uint32_t ocw_min() const { return min_; }
    std::uint32_t ocw_max() const { return max_; }
    std::uint64_t increments() const { return increments_; }
    std::uint64_t decrements() const { return decrements_; }
    void set_bounds(std::uint32_t ocw_min, std::uint32_t ocw_max) {
        min_ = ocw_min;
        max_ = std::max(ocw_min, ocw_max);
        ocw_ = std::clamp(ocw_, min_, max_);
    }

private:
    void grow() {
        ++ocw_;
        cnt_ = 0;
        ++increments_;
    }
    void shrink() {
        --ocw_;
        cnt_ = cnt_max_;
        ++decrements_;
    }
    std::uint32_t min_, max_, ocw_, cnt_, cnt_max_;
    OcwCheck check_;
    std::uint64_t increments_ = 0, decrements_ = 0;
};

namespace detail {

enum class OawsMode : std::uint8_t { static_smr, dynamic };

// The state Wang 2016 keeps once per SM (Sec. 4.4): Miss_inflight, the DLC, the OCW counter, and the warps' ages
// for the SM-wide GTO rank.
template <OawsKnobs Knobs> struct OawsSmState {
    DivergentLoadClassifier<32> dlc;
    OcwCounter ocw;
    std::int64_t miss_inflight = 0;
    bool exits_seen = false; // the SM forwards LSU exits (on_memory_issued)
    unsigned schedulers = 1;
    unsigned warps = 0; // warp slots of the SM (sum of the attached pools)
    std::vector<std::vector<std::uint64_t>> ages; // per scheduler: ages of its warps, oldest first
    std::uint64_t age_version = 0;
    // Advanced by every training step and every DLC clear: whatever a prediction reads of the DLC and the OCW
    // counter may have changed (a scheduler's remembered withheld select is then stale).
    std::uint64_t prediction_version = 0;

    OawsSmState()
        : dlc(Knobs.dlc_eviction, Knobs.dlc_decay_period),
          ocw(Knobs.ocw_min_per_scheduler, Knobs.ocw_min_per_scheduler, Knobs.ocw_min_per_scheduler, Knobs.cnt_init,
              Knobs.cnt_max, Knobs.check) {}
};

template <OawsMode Mode, unsigned SmrPercent, OawsKnobs Knobs> class OawsScheduler {
    static_assert(SmrPercent <= 100, "OAWSStatic's static miss rate is a percentage from 0 to 100");

public:
    using SmShared = OawsSmState<Knobs>;

    explicit OawsScheduler(const timing::SchedulerConfig& config)
        : pool_size_(config.pool_size), index_(config.index), misses_by_rank_(std::size_t{config.pool_size} + 1),
          loads_by_rank_(std::size_t{config.pool_size} + 1), ocw_cycles_(std::size_t{config.pool_size} + 2) {
        own_.warps = pool_size_;
        own_.ages.resize(1);
        own_.ocw.set_bounds(Knobs.ocw_min_per_scheduler, std::max(Knobs.ocw_min_per_scheduler, pool_size_));
    }

    // Shares Wang's per-SM state with the SM's other schedulers (see the header comment, choice 3). Call once per
    // scheduler of the SM, in scheduler order, before the first select.
    void attach(SmShared& shared, unsigned schedulers) {
        shared_ = &shared;
        shared.schedulers = schedulers;
        if (shared.ages.size() < schedulers) shared.ages.resize(schedulers);
        shared.warps += pool_size_;
        const std::uint32_t min = Knobs.ocw_min_per_scheduler * schedulers;
        shared.ocw = OcwCounter(min, shared.warps, min, Knobs.cnt_init, Knobs.cnt_max, Knobs.check);
        misses_by_rank_ = core::Histogram(std::size_t{shared.warps} + 1);
        loads_by_rank_ = core::Histogram(std::size_t{shared.warps} + 1);
        ocw_cycles_ = core::Histogram(std::size_t{shared.warps} + 2);
    }

    template <timing::SchedulerView View> unsigned select(const View& view) {
        refresh_ranks(view);
        const timing::L1View l1 = view.l1();
        const SmShared& sh = state();
        if constexpr (Mode == OawsMode::dynamic) ocw_cycles_.add(sh.ocw.ocw());
        const std::int64_t budget = available(l1) - sh.miss_inflight;
        if constexpr (timing::ShowsStateEpoch<View>) {
            // Besides what the state epoch covers, a select reads the age ranks (a rebuild forgets the remembered
            // select), the MSHR budget, and the DLC and OCW state (prediction_version).
            if (const unsigned* disqualified = withheld_.repeat_if(view, still_withheld(budget, sh))) {
                count_disqualified(*disqualified, timing::no_warp);
                pick_ = timing::no_warp;
                pick_load_ = false;
                return timing::no_warp;
            }
        }
        // Each disqualified warp counts once. greedy_then_oldest asks about the greedy warp first and then about
        // each ready slot once, so only the greedy warp can be asked twice. (A per-slot flag vector cleared in every
        // select cost more than the rest of it.)
        unsigned disqualified = 0;
        bool greedy_counted = false;
        std::uint32_t smallest = ~std::uint32_t{0}; // the smallest prediction that disqualified a warp
        auto qualified = [&](unsigned slot) {
            const std::uint32_t pred = disqualifying_prediction(view, slot, l1, budget);
            if (pred != 0 && !(slot == greedy_ && greedy_counted)) {
                greedy_counted = greedy_counted || slot == greedy_;
                ++disqualified;
                smallest = std::min(smallest, pred);
            }
            return pred == 0;
        };
        const unsigned pick = greedy_then_oldest(view, greedy_, qualified);
        count_disqualified(disqualified, pick);
        if constexpr (timing::ShowsStateEpoch<View>)
            withheld_.remember(view, pick, WithheldInputs{smallest, sh.prediction_version}, disqualified);
        pick_ = pick;
        pick_load_ = pick != timing::no_warp && next_access(view, pick) == NextAccess::cached_load;
        if (pick_load_) {
            pick_pc_ = next_pc(view, pick);
            pick_rank_ = rank(pick);
            pick_pred_ = predict(view, pick, l1);
        }
        return pick;
    }

    // A cycle in which no warp is ready (timing::QuietCycleHook): what select does then. No warp is asked to
    // qualify, so nothing is counted as disqualified; the dynamic window's size is still sampled every cycle.
    template <timing::SchedulerView View> void on_quiet_cycle(const View& view) {
        refresh_ranks(view);
        if constexpr (Mode == OawsMode::dynamic) ocw_cycles_.add(state().ocw.ocw());
        pick_ = timing::no_warp;
        pick_load_ = false;
    }

    // `count` quiet cycles in a row (timing::QuietCyclesHook): the ranks are refreshed once (a second refresh with
    // nothing changed returns at once) and the window's size, which nothing in them changes, is sampled `count`
    // times.
    template <timing::SchedulerView View> void on_quiet_cycles(const View& view, std::uint64_t count) {
        if (count == 0) return;
        refresh_ranks(view);
        if constexpr (Mode == OawsMode::dynamic) ocw_cycles_.add(state().ocw.ocw(), count);
        pick_ = timing::no_warp;
        pick_load_ = false;
    }

    // timing::WithheldCycleHook. Whether a select now would repeat the last one, which withheld every ready warp: its
    // remembered select matches (state epoch, ready mask, MSHR budget, classifier and window) and the age ranks are
    // settled (a select would not rebuild them: after a cycle in which the SM's other scheduler rebuilt its own, this
    // one's are rebuilt in its next select, which the SM then asks in full).
    template <timing::SchedulerView View> bool repeats_withheld(const View& view) const {
        if constexpr (timing::ShowsStateEpoch<View>) {
            if (!ranks_settled(view)) return false;
            const SmShared& sh = state();
            return withheld_.matches_if(view, still_withheld(available(view.l1()) - sh.miss_inflight, sh));
        } else {
            (void)view;
            return false;
        }
    }
    // What `count` such selects do: the window's size sampled and the withheld warps counted once per cycle.
    template <timing::SchedulerView View> void on_withheld_cycles(const View&, std::uint64_t count) {
        if (count == 0) return;
        if constexpr (Mode == OawsMode::dynamic) ocw_cycles_.add(state().ocw.ocw(), count);
        count_disqualified(withheld_.repeat_times(count), timing::no_warp, count);
        pick_ = timing::no_warp;
        pick_load_ = false;
    }

    // Whether the policy excludes ready warp `slot` in the state left by the last select with this view.
    template <timing::SchedulerView View> bool withholds(const View& view, unsigned slot) {
        refresh_ranks(view);
        const timing::L1View l1 = view.l1();
        return !qualifies(view, slot, l1, available(l1) - state().miss_inflight);
    }

    void on_issue(unsigned slot, core::Cycle) {
        greedy_ = slot;
        if (slot != pick_ || !pick_load_) return;
        flights_.push_back(Flight{slot, pick_pc_, pick_pred_, pick_rank_, false});
        state().miss_inflight += pick_pred_;
        ++loads_tracked_;
        predicted_misses_ += pick_pred_;
        pick_load_ = false;
    }
    void on_warp_start(unsigned) {
        if (live_warps_ == 0 && !launch_hook_seen_) clear_dlc();
        ++live_warps_;
        ranks_.invalidate();
    }
    void on_warp_exit(unsigned slot) {
        if (greedy_ == slot) greedy_ = timing::no_warp;
        if (live_warps_ > 0) --live_warps_;
        ranks_.invalidate();
        // A warp exits only after its memory instructions completed; drop any record a missed notification left.
        for (auto it = flights_.begin(); it != flights_.end();) {
            if (it->slot == slot) {
                if (!it->released) state().miss_inflight -= it->pred;
                it = flights_.erase(it);
            } else {
                ++it;
            }
        }
    }
    // Wang 2016 Sec. 4.4: "DLC is cleared at each kernel invocation."
    void on_kernel_launch() {
        launch_hook_seen_ = true;
        clear_dlc();
    }

    // The load's accesses have all been served (it left the LSU).
    void on_memory_issued(unsigned slot, const timing::MemoryFeedback& fb) {
        state().exits_seen = true;
        train(fb);
        if (live()) {
            if (Flight* f = find_flight(slot, fb.pc, false)) release(*f);
        }
    }
    void on_memory_complete(unsigned slot, const timing::MemoryFeedback& fb) {
        if (!state().exits_seen) train(fb);
        Flight* f = find_flight(slot, fb.pc, true);
        if (f == nullptr) return;
        if (!f->released) release(*f);
        actual_misses_ += fb.misses;
        if (fb.misses > f->pred) ++underpredicted_;
        else if (fb.misses < f->pred) ++overpredicted_;
        misses_by_rank_.add(f->rank, fb.misses);
        loads_by_rank_.add(f->rank);
        flights_.erase(flights_.begin() + (f - &flights_.front()));
    }

    std::int64_t miss_inflight() const { return state().miss_inflight; }
    // Of the selects that withheld every ready warp (some warp ready), those that repeated the last one instead of
    // asking about each ready warp (a host-time shortcut, not a statistic: the full scans repeat none and give the
    // same statistics).
    std::uint64_t withheld_selects_repeated() const { return withheld_.repeated(); }
    const DivergentLoadClassifier<32>& dlc() const { return state().dlc; }
    const OcwCounter& ocw() const { return state().ocw; }

    template <class V> void visit_stats(V& v) const {
        v.counter("oaws_loads_tracked", loads_tracked_, "cached loads issued with a miss prediction");
        v.counter("oaws_predicted_misses", predicted_misses_, "Miss_pred summed over the tracked loads");
        v.counter("oaws_actual_misses", actual_misses_, "misses of the tracked loads that completed");
        v.counter("oaws_underpredicted_loads", underpredicted_, "tracked loads that missed more than predicted");
        v.counter("oaws_overpredicted_loads", overpredicted_, "tracked loads that missed less than predicted");
        v.counter("oaws_withheld_cycles", withheld_cycles_, "cycles every ready warp was disqualified by Eq. 1");
        v.counter("oaws_cycles_with_disqualified", cycles_with_disqualified_,
                  "cycles at least one ready warp was disqualified by Eq. 1");
        v.counter("oaws_disqualified_warp_cycles", disqualified_warp_cycles_,
                  "ready warps disqualified, summed over cycles");
        v.histogram("oaws_misses_by_age_rank", misses_by_rank_.buckets(),
                    "MSHR entries (misses) consumed by loads of the warp of age rank k at issue (Wang 2016 Fig. 4)");
        v.histogram("oaws_loads_by_age_rank", loads_by_rank_.buckets(),
                    "tracked loads by the warp's age rank at issue");
        if constexpr (Mode == OawsMode::dynamic) {
            v.counter("oaws_fully_cached_divergent", fully_cached_,
                      "divergent loads fed to the OCW logic as fully cached");
            v.counter("oaws_partially_cached_divergent", partially_cached_,
                      "divergent loads fed to the OCW logic as partially cached");
            v.counter("oaws_ocw_increments", ocw_up_, "OCW increments (Fig. 7 B)");
            v.counter("oaws_ocw_decrements", ocw_down_, "OCW decrements (Fig. 7 E)");
            v.histogram("oaws_ocw_cycles", ocw_cycles_.buckets(), "scheduler cycles spent at each OCW value");
        }
        if (shared_ == nullptr || index_ == 0) state().dlc.visit_stats(v);
    }

private:
    struct Flight {
        unsigned slot;
        ir::Pc pc;
        std::uint32_t pred;
        unsigned rank;
        bool released;
    };

    // What a select reads that its view's state epoch does not cover, besides the age ranks: the MSHR budget, through
    // the smallest prediction among the warps it withheld (every warp withheld had a prediction above the budget, so
    // any budget below that smallest one withholds the same warps: on syrk the budget falls in most cycles in which
    // the L1 allocates entries for a divergent load), and the DLC and OCW state.
    struct WithheldInputs {
        std::uint32_t smallest_prediction = 0;
        std::uint64_t prediction_version = 0;
    };
    // Whether a remembered withheld select's inputs withhold the same warps under `budget` and the state `sh`.
    static auto still_withheld(std::int64_t budget, const SmShared& sh) {
        return [budget, version = sh.prediction_version](const WithheldInputs& remembered) {
            return remembered.prediction_version == version && budget < std::int64_t{remembered.smallest_prediction};
        };
    }

    // `cycles` selects, each of which disqualified `disqualified` ready warps and picked `pick`.
    void count_disqualified(unsigned disqualified, unsigned pick, std::uint64_t cycles = 1) {
        if (disqualified == 0) return;
        cycles_with_disqualified_ += cycles;
        disqualified_warp_cycles_ += disqualified * cycles;
        if (pick == timing::no_warp) withheld_cycles_ += cycles;
    }
    void clear_dlc() {
        state().dlc.clear();
        ++state().prediction_version;
    }

    // `live` accounting in force: chosen, and the SM forwards LSU exits.
    bool live() const { return Knobs.accounting == MissAccounting::live && state().exits_seen; }
    std::int64_t available(const timing::L1View& l1) const { return live() ? l1.mshr_free : l1.mshr_total; }

    SmShared& state() { return shared_ != nullptr ? *shared_ : own_; }
    const SmShared& state() const { return shared_ != nullptr ? *shared_ : own_; }

    // Whether refresh_ranks would return at once.
    template <class View> bool ranks_settled(const View& view) const {
        return ranks_.valid() && ranks_.order().size() <= view.pool_size() &&
               (shared_ == nullptr || seen_age_version_ == shared_->age_version);
    }
    template <class View> void refresh_ranks(const View& view) {
        if (ranks_settled(view)) return;
        const bool local_changed = !ranks_.valid();
        withheld_.forget(); // the ranks may change
        ranks_.refresh(view);
        if (shared_ != nullptr) {
            if (local_changed) {
                shared_->ages[index_] = ranks_.ages();
                ++shared_->age_version;
            }
            seen_age_version_ = shared_->age_version;
        }
        // The ranks change only here: with this scheduler's age order or another scheduler's (age_version).
        global_rank_.assign(view.pool_size(), 0);
        const auto& order = ranks_.order();
        for (unsigned local = 0; local < order.size(); ++local) global_rank_[order[local]] = sm_rank(local);
    }
    // Age rank among the SM's warps (this scheduler's alone while not attached); 0 for an empty slot. Contract:
    // asked after refresh_ranks in the same select, as every caller does.
    unsigned rank(unsigned slot) const { return slot < global_rank_.size() ? global_rank_[slot] : 0; }
    // The SM-wide rank of the warp at local rank `local`: older warps of the other schedulers are counted in.
    unsigned sm_rank(unsigned local) const {
        if (shared_ == nullptr) return local;
        const std::uint64_t age = ranks_.ages()[local];
        unsigned r = local;
        for (unsigned s = 0; s < shared_->ages.size(); ++s) {
            if (s == index_) continue;
            const auto& other = shared_->ages[s];
            r += static_cast<unsigned>(std::lower_bound(other.begin(), other.end(), age) - other.begin());
        }
        return r;
    }

    template <class View>
    bool qualifies(const View& view, unsigned slot, const timing::L1View& l1, std::int64_t budget) const {
        return disqualifying_prediction(view, slot, l1, budget) == 0;
    }
    // The prediction of ready warp `slot`'s next load when it exceeds `budget` (the warp is disqualified), else 0.
    template <class View>
    std::uint32_t disqualifying_prediction(const View& view, unsigned slot, const timing::L1View& l1,
                                           std::int64_t budget) const {
        if constexpr (Mode == OawsMode::static_smr && SmrPercent == 0) {
            return 0; // Wang 2016 Sec. 4.2: "With SMR being 0%, OAWS is essentially disabled"
        } else {
            if (next_access(view, slot) != NextAccess::cached_load) return 0;
            const std::uint32_t pred = predict(view, slot, l1);
            return pred == 0 || std::int64_t{pred} <= budget ? 0 : pred;
        }
    }

    static std::uint32_t percent_of(unsigned lanes, std::uint32_t percent) { return (lanes * percent + 99) / 100; }

    template <class View> std::uint32_t predict(const View& view, unsigned slot, const timing::L1View& l1) const {
        const SmShared& sh = state();
        const ir::Pc pc = next_pc(view, slot);
        std::uint32_t pred = 0;
        if constexpr (Mode == OawsMode::static_smr) {
            if constexpr (SmrPercent == 0) return 0;
            pred =
                sh.dlc.contains(pc) ? percent_of(next_active_lanes(view, slot), SmrPercent) : Knobs.coherent_prediction;
        } else {
            const unsigned r = rank(slot);
            if (r < sh.ocw.ocw()) return 0; // locality warp (Sec. 4.3.2)
            if (sh.dlc.contains(pc))
                pred =
                    percent_of(next_active_lanes(view, slot), Knobs.thrashing_miss_percent) + (Knobs.add_rank ? r : 0);
            else pred = Knobs.coherent_prediction;
        }
        return std::min<std::uint32_t>(pred, std::max<std::uint32_t>(l1.mshr_total, 1));
    }

    void train(const timing::MemoryFeedback& fb) {
        if (!fb.is_load || fb.coherent) return;
        SmShared& sh = state();
        ++sh.prediction_version;
        sh.dlc.record(fb.pc, fb.lines, fb.sets);
        if constexpr (Mode == OawsMode::dynamic) {
            const std::uint64_t up = sh.ocw.increments(), down = sh.ocw.decrements();
            if (fb.misses == 0) {
                ++fully_cached_;
                sh.ocw.fully_cached();
            } else {
                ++partially_cached_;
                std::uint32_t delta = 1;
                if (Knobs.delta == OcwDelta::half_cnt ||
                    (Knobs.delta == OcwDelta::by_associativity &&
                     sh.dlc.associativity_sensitive(fb.pc, Knobs.assoc_threshold_tenths)))
                    delta = sh.ocw.half();
                sh.ocw.partially_cached(delta);
            }
            ocw_up_ += sh.ocw.increments() - up;
            ocw_down_ += sh.ocw.decrements() - down;
        }
    }

    // The oldest record of (slot, pc); with `any` also one already released.
    Flight* find_flight(unsigned slot, ir::Pc pc, bool any) {
        for (Flight& f : flights_)
            if (f.slot == slot && f.pc == pc && (any || !f.released)) return &f;
        return nullptr;
    }
    void release(Flight& f) {
        f.released = true;
        state().miss_inflight -= f.pred;
    }

    unsigned pool_size_;
    unsigned index_;
    SmShared own_;
    SmShared* shared_ = nullptr;
    AgeRank ranks_;
    std::uint64_t seen_age_version_ = 0;
    std::vector<unsigned> global_rank_; // rank() of every pool slot, rebuilt by refresh_ranks
    unsigned greedy_ = timing::no_warp;
    unsigned live_warps_ = 0;
    bool launch_hook_seen_ = false;
    WithheldSelect<WithheldInputs, unsigned> withheld_; // the outcome: how many ready warps were disqualified
    std::vector<Flight> flights_;
    unsigned pick_ = timing::no_warp;
    bool pick_load_ = false;
    ir::Pc pick_pc_ = ir::no_pc;
    unsigned pick_rank_ = 0;
    std::uint32_t pick_pred_ = 0;

    std::uint64_t loads_tracked_ = 0, predicted_misses_ = 0, actual_misses_ = 0;
    std::uint64_t underpredicted_ = 0, overpredicted_ = 0;
    std::uint64_t withheld_cycles_ = 0, cycles_with_disqualified_ = 0, disqualified_warp_cycles_ = 0;
    std::uint64_t fully_cached_ = 0, partially_cached_ = 0, ocw_up_ = 0, ocw_down_ = 0;
    core::Histogram misses_by_rank_, loads_by_rank_, ocw_cycles_;
};

constexpr bool has_label(const OawsKnobs& k) { return k.label[0] != '\0'; }
template <OawsKnobs K> constexpr std::size_t label_length() {
    std::size_t n = 0;
    while (n < K.label.size() && K.label[n] != '\0') ++n;
    return n;
}
template <OawsKnobs K> struct LabelName {
    static constexpr auto storage = [] {
        Name<label_length<K>()> out;
        for (std::size_t i = 0; i < label_length<K>(); ++i) out.chars[i] = K.label[i];
        return out;
    }();
};

} // namespace detail

// Static OAWS (Wang 2016 Sec. 4.2) with a static miss rate of SmrPercent % (Sec. 5: 50% by default).
template <unsigned SmrPercent = 50, OawsKnobs Knobs = OawsKnobs{}>
struct OAWSStatic : detail::OawsScheduler<detail::OawsMode::static_smr, SmrPercent, Knobs> {
    static constexpr unsigned smr_percent = SmrPercent;
    static constexpr auto name_storage =
        detail::numbered<detail::length("OAWSStatic<") + detail::digits(SmrPercent) + 1>("OAWSStatic<", SmrPercent,
                                                                                         ">");
    static constexpr std::string_view name =
        detail::has_label(Knobs) ? detail::LabelName<Knobs>::storage.view() : name_storage.view();
    using detail::OawsScheduler<detail::OawsMode::static_smr, SmrPercent, Knobs>::OawsScheduler;
};

// Dynamic OAWS (Wang 2016 Sec. 4.3).
template <OawsKnobs Knobs = OawsKnobs{}>
struct OAWSDynamic : detail::OawsScheduler<detail::OawsMode::dynamic, 50, Knobs> {
    static constexpr std::string_view name =
        detail::has_label(Knobs) ? detail::LabelName<Knobs>::storage.view() : std::string_view("OAWSDynamic");
    using detail::OawsScheduler<detail::OawsMode::dynamic, 50, Knobs>::OawsScheduler;
};

} // namespace gpuarch::sched
