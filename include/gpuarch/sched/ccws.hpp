#pragma once
// Cache-Conscious Wavefront Scheduling, CCWS (Rogers, O'Connor, Aamodt, MICRO 2012), with Wang 2016 Table 3's
// configuration: K_THROTTLE 8, victim tag array 8-way with 16 entries per warp, base score 100.
//
// Mechanism (Rogers 2012 Sec. 3):
//  * Lost intra-warp locality detection (Sec. 3.1): every L1 line carries the id of the warp whose miss brought it
//    in; when the line is evicted its tag goes into that warp's victim tag array (VTA). A later miss of the same
//    warp that hits in its VTA is a "VTA hit": locality the warp lost to cache contention. The L1 reports misses and
//    evictions (mem/l1.hpp drain_locality_events); the SM forwards them as on_locality_event.
//  * Locality scoring (Sec. 3.2-3.3): each warp has a lost-locality score (LLS), BaseScore on arrival. A VTA hit
//    raises the warp's score by Eq. 1, VTAHits_total / Instructions_total x K_THROTTLE x CumLLSCutoff, where
//    CumLLSCutoff = active warps x BaseScore; every cycle each score above BaseScore falls by one point.
//  * Throttling: the warps are stacked by score, highest first; those whose cumulative score exceeds the cutoff may
//    not issue loads (the warp with the largest lost locality is stacked first and keeps its loads). Without VTA
//    hits all scores equal the base and exactly fill the cutoff, so nothing is throttled. Warps issue
//    greedy-then-oldest (GTO) among what is allowed; non-load instructions are never throttled.
// Choices where the sources leave room [ours]: VTA hit totals and instruction counts are per scheduler (the SM
// builds one scheduler object per scheduler) and reset at a kernel launch; a VTA hit removes the tag (the line is
// being refetched); the VTA set index is the line number (address / 128) modulo its sets, LRU within a set; the
// first warp of the stack may always issue loads, even when its score alone exceeds the cutoff; ties in score stack
// the older warp first.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include <gpuarch/sched/memory_aware.hpp>
#include <gpuarch/timing/concepts.hpp>

namespace gpuarch::sched {

// One warp's victim tag array: Entries tags in Entries / Ways sets of Ways ways, LRU (Wang 2016 Table 3: "8-way, 16
// entries/warp").
template <unsigned Entries = 16, unsigned Ways = 8> class VictimTagArray {
    static_assert(Ways > 0 && Entries >= Ways && Entries % Ways == 0,
                  "a victim tag array holds a whole number of sets of `Ways` entries");

public:
    static constexpr unsigned sets = Entries / Ways;

    void insert(std::uint64_t line) {
        const unsigned base = set_of(line) * Ways;
        unsigned victim = base;
        for (unsigned w = base; w < base + Ways; ++w) {
            if (valid_[w] && tags_[w] == line) {
                stamp_[w] = ++clock_;
                return;
            }
            if (!valid_[w]) {
                victim = w;
                break;
            }
            if (stamp_[w] < stamp_[victim]) victim = w;
        }
        valid_[victim] = true;
        tags_[victim] = line;
        stamp_[victim] = ++clock_;
    }
    // Whether `line` is there; a hit removes it.
    bool take(std::uint64_t line) {
        const unsigned base = set_of(line) * Ways;
        for (unsigned w = base; w < base + Ways; ++w) {
            if (valid_[w] && tags_[w] == line) {
                valid_[w] = false;
                return true;
            }
        }
        return false;
    }
    bool contains(std::uint64_t line) const {
        const unsigned base = set_of(line) * Ways;
        for (unsigned w = base; w < base + Ways; ++w)
            if (valid_[w] && tags_[w] == line) return true;
        return false;
    }
    void clear() {
        valid_.fill(false);
        clock_ = 0;
    }

private:
    static unsigned set_of(std::uint64_t line) { return static_cast<unsigned>((line >> 7) % sets); }
    std::array<std::uint64_t, Entries> tags_{};
    std::array<std::uint64_t, Entries> stamp_{};
    std::array<bool, Entries> valid_{};
    std::uint64_t clock_ = 0;
};

template <unsigned KThrottle = 8, unsigned VtaEntries = 16, unsigned VtaWays = 8, unsigned BaseScore = 100>
struct CCWS {
    static_assert(BaseScore > 0, "CCWS needs a positive base locality score");
    static constexpr unsigned k_throttle = KThrottle;
    static constexpr unsigned base_score = BaseScore;
    static constexpr std::string_view name = "CCWS";

    explicit CCWS(const timing::SchedulerConfig& config)
        : raw_score_(config.pool_size, BaseScore), vta_(config.pool_size), allowed_(config.pool_size, 1) {}

    template <timing::SchedulerView View> unsigned select(const View& view) {
        decay(view.now());
        stack(view);
        throttled_warp_cycles_ += throttled_count_;
        if constexpr (timing::ShowsStateEpoch<View>) {
            // Besides what the state epoch covers, a select reads which warps may issue loads (allowed_, whose every
            // change advances allowed_version_).
            if (withheld_.repeat(view, allowed_version_) != nullptr) {
                if (view.ready_mask() != 0) ++withheld_cycles_;
                return timing::no_warp;
            }
        }
        const unsigned pick = greedy_then_oldest(view, greedy_, [&](unsigned s) { return !throttled(view, s); });
        if (pick == timing::no_warp && any_ready(view)) ++withheld_cycles_;
        if constexpr (timing::ShowsStateEpoch<View>) withheld_.remember(view, pick, allowed_version_);
        return pick;
    }
    // A cycle in which no warp is ready (timing::QuietCycleHook): what select does then, without looking for a
    // ready warp. Scores still decay and the warps above the cutoff are still counted.
    template <timing::SchedulerView View> void on_quiet_cycle(const View& view) {
        decay(view.now());
        stack(view);
        throttled_warp_cycles_ += throttled_count_;
    }
    // timing::WithheldCycleHook. Whether a select now would repeat the last one, which withheld every ready warp: its
    // remembered select matches (state epoch, ready mask, which warps may load) and the decay since the last select
    // leaves the stack as it is (it reaches neither the decay at which the allowed prefix grows nor a score's fall to
    // the base).
    template <timing::SchedulerView View> bool repeats_withheld(const View& view) const {
        if constexpr (timing::ShowsStateEpoch<View>) {
            if (!stacked_ || !ranks_.valid() || allowed_.size() != view.pool_size()) return false;
            if (view.now() >= withheld_until(view)) return false;
            return withheld_.matches_if(view, [this](std::uint64_t version) { return version == allowed_version_; });
        } else {
            (void)view;
            return false;
        }
    }
    // timing::WithheldUntilHook. The first cycle whose select may stack again, its decay reaching the stack's next
    // change (the SM sleeps through repeated withheld cycles only until then): now when the stack is stale (a select
    // stacks again), never while every score is at the base. Both changes lie past decayed_ (decay() unstacks at
    // prefix_holds_until_ and moves next_at_base_ on when reached), and above_base_ makes next_at_base_ finite.
    template <timing::SchedulerView View> core::Cycle withheld_until(const View& view) const {
        if (!stacked_) return view.now();
        if (!above_base_) return never;
        return last_decay_ + (std::min(prefix_holds_until_, next_at_base_) - decayed_);
    }
    // What `count` such selects do, the last at view.now(): the scores decay, and the warps above the cutoff and the
    // withheld cycle are counted once per cycle.
    template <timing::SchedulerView View> void on_withheld_cycles(const View& view, std::uint64_t count) {
        if (count == 0) return;
        decay(view.now());
        throttled_warp_cycles_ += count * throttled_count_;
        if (any_ready(view)) withheld_cycles_ += count;
        withheld_.repeat_times(count);
    }
    // Whether ready warp `slot` is held back: its next instruction is a cached load and it is above the cutoff.
    template <timing::SchedulerView View> bool withholds(const View& view, unsigned slot) {
        stack(view);
        return throttled(view, slot);
    }

    void on_issue(unsigned slot, core::Cycle) {
        greedy_ = slot;
        ++instructions_;
    }
    void on_warp_start(unsigned slot) {
        if (live_ == 0 && !launch_hook_seen_) reset_totals();
        ++live_;
        raw_score_[slot] = BaseScore;
        vta_[slot].clear();
        ranks_.invalidate();
        stacked_ = false;
    }
    void on_warp_exit(unsigned slot) {
        if (greedy_ == slot) greedy_ = timing::no_warp;
        if (live_ > 0) --live_;
        raw_score_[slot] = BaseScore;
        vta_[slot].clear();
        ranks_.invalidate();
        stacked_ = false;
    }
    void on_kernel_launch() {
        launch_hook_seen_ = true;
        reset_totals();
    }
    void on_locality_event(unsigned slot, const timing::LocalityEvent& event) {
        if (slot >= vta_.size()) return;
        if (event.kind == timing::LocalityEvent::eviction) {
            vta_[slot].insert(event.line);
            ++evictions_seen_;
            return;
        }
        ++misses_seen_;
        if (!vta_[slot].take(event.line)) return;
        ++vta_hits_;
        // Rogers 2012 Eq. 1: the score a VTA hit adds.
        const std::uint64_t cutoff = std::uint64_t{std::max(1U, active_)} * BaseScore;
        const std::uint64_t raised =
            score(slot) + vta_hits_ * KThrottle * cutoff / std::max<std::uint64_t>(1, instructions_);
        raw_score_[slot] = raised + decayed_;
        if (raised > BaseScore) {
            above_base_ = true;
            next_at_base_ = std::min(next_at_base_, raw_score_[slot] - BaseScore);
        }
        stacked_ = false;
        order_stale_ = true;
    }

    // The warp's lost-locality score: its raw score less every decay since, never below the base.
    std::uint64_t score(unsigned slot) const {
        return raw_score_[slot] > BaseScore + decayed_ ? raw_score_[slot] - decayed_ : BaseScore;
    }
    std::uint64_t vta_hits() const { return vta_hits_; }
    // Of the selects that withheld every ready warp (some warp ready), those that repeated the last one instead of
    // asking about each ready warp (a host-time shortcut, not a statistic: the full scans repeat none and give the
    // same statistics).
    std::uint64_t withheld_selects_repeated() const { return withheld_.repeated(); }
    // Drops the stack: the next select or withholds() stacks the warps again. It changes nothing else, since a kept
    // stack is the one stacking gives (stacked_); tests compare a CCWS that forgets it in every cycle with one that
    // keeps it (tests/sched/throttling_schedulers.cpp).
    void forget_stack() { stacked_ = false; }

    template <class V> void visit_stats(V& v) const {
        v.counter("ccws_vta_hits", vta_hits_, "misses that hit the warp's victim tag array (lost locality)");
        v.counter("ccws_misses_seen", misses_seen_, "L1 misses reported to the scheduler");
        v.counter("ccws_evictions_seen", evictions_seen_, "L1 evictions reported to the scheduler");
        v.counter("ccws_withheld_cycles", withheld_cycles_, "cycles every ready warp was a throttled load");
        v.counter("ccws_throttled_warp_cycles", throttled_warp_cycles_, "warps above the cutoff, summed over cycles");
    }

private:
    void reset_totals() {
        vta_hits_ = 0;
        instructions_ = 0;
    }
    // Every score above the base falls one point per cycle since the last select. The fall is kept once for all
    // warps (decayed_, which score() subtracts) rather than applied to each, so a select does not visit every warp;
    // the warps are visited only when the first of them reaches the base (next_at_base_).
    void decay(core::Cycle now) {
        const core::Cycle elapsed = now > last_decay_ ? now - last_decay_ : 0;
        last_decay_ = now;
        if (elapsed == 0 || !above_base_) return;
        decayed_ += elapsed;
        if (decayed_ >= next_at_base_) {
            // Some score fell to the base, where it now ties with the warps at the base score.
            order_stale_ = true;
            above_base_ = false;
            next_at_base_ = no_score_above_base;
            for (const std::uint64_t raw : raw_score_) {
                if (raw <= BaseScore + decayed_) continue;
                above_base_ = true;
                next_at_base_ = std::min(next_at_base_, raw - BaseScore);
            }
        }
        // The cumulative scores fell; the order by score did not, unless a score fell to the base: every score
        // above the base fell by the same amount, and a score at the base stayed there. Nor did the warps allowed
        // loads, until the decay reaches prefix_holds_until_ (stack()).
        if (order_stale_ || decayed_ >= prefix_holds_until_) stacked_ = false;
    }
    // Stacks the occupied warps by score (highest first, older first on ties) against the cutoff. The stack depends
    // only on the scores and the age order, so it is rebuilt only after one of them changed (stacked_ false, or the
    // age rank rebuilt).
    // Every score is at least the base, so the cumulative scores rise along the stack and the warps allowed loads
    // are a prefix of it: the first `allowed_prefix_` warps. Finding its end reads the stack only that far, and
    // only the warps between the old and the new end change their allowed_ flag (a decay alone only lengthens it).
    template <class View> void stack(const View& view) {
        if (stacked_ && ranks_.valid() && allowed_.size() == view.pool_size()) return;
        const bool ranks_rebuilt = !ranks_.valid() || allowed_.size() != view.pool_size();
        ranks_.refresh(view);
        const auto& order = ranks_.order();
        active_ = static_cast<unsigned>(order.size());
        bool restacked = false;
        if (ranks_rebuilt || order_stale_ || sorted_.size() != order.size()) {
            // Insertion sort of the age order by score, highest first: stable, so ties stay oldest first (the
            // order a stable sort gives), without the temporary buffer of std::stable_sort. Only after the age
            // order or the order of the scores changed: a decay alone keeps it (decay()).
            sorted_.assign(order.begin(), order.end());
            for (std::size_t k = 1; k < sorted_.size(); ++k) {
                const unsigned slot = sorted_[k];
                std::size_t j = k;
                for (; j > 0 && score(sorted_[j - 1]) < score(slot); --j) sorted_[j] = sorted_[j - 1];
                sorted_[j] = slot;
            }
            order_stale_ = false;
            restacked = true;
        }
        const std::uint64_t cutoff = std::uint64_t{active_} * BaseScore;
        // The first stacked warp always keeps its loads; each next one while the cumulative score is within the cutoff.
        std::size_t prefix = 0;
        for (std::uint64_t sum = 0; prefix < sorted_.size(); ++prefix) {
            sum += score(sorted_[prefix]);
            if (prefix > 0 && sum > cutoff) break;
        }
        if (restacked || prefix != allowed_prefix_) ++allowed_version_;
        if (restacked) {
            allowed_.assign(view.pool_size(), 1);
            for (std::size_t k = prefix; k < sorted_.size(); ++k) allowed_[sorted_[k]] = 0;
        } else {
            for (std::size_t k = std::min(prefix, allowed_prefix_); k < std::max(prefix, allowed_prefix_); ++k)
                allowed_[sorted_[k]] = k < prefix ? 1 : 0;
        }
        allowed_prefix_ = prefix;
        throttled_count_ = static_cast<unsigned>(sorted_.size() - prefix);
        prefix_holds_until_ =
            prefix == sorted_.size() ? no_score_above_base : decayed_ + decay_until_prefix_grows(prefix, cutoff);
        stacked_ = true;
    }
    // With the stack ending its allowed prefix at `prefix` (the cumulative score of its first prefix + 1 warps
    // exceeds `cutoff`), the least further decay d at which that sum is within the cutoff: the scores above the base
    // fall by d, floored at the base, and the earlier cumulative scores, within the cutoff already, only fall. So a
    // decay of less than d leaves the prefix, and with it the stack's outcome, as it is (on a memory-bound kernel
    // CCWS withholds in most cycles, and stacking again in each cycle was 14% of its host time on atax).
    // Sorting the excesses over the base ascending, e[0] <= ... <= e[m-1], on [e[j-1], e[j]] the sum exceeds
    // (prefix + 1) * base by rest - (m - j) * d, where rest sums e[j..m-1].
    std::uint64_t decay_until_prefix_grows(std::size_t prefix, std::uint64_t cutoff) {
        excess_.clear();
        std::uint64_t rest = 0;
        for (std::size_t k = 0; k <= prefix; ++k) {
            const std::uint64_t s = score(sorted_[k]);
            if (s > BaseScore) {
                excess_.push_back(s - BaseScore);
                rest += s - BaseScore;
            }
        }
        const std::uint64_t slack = cutoff - (prefix + 1) * BaseScore; // prefix + 1 warps of the active_ at most
        std::sort(excess_.begin(), excess_.end());
        for (std::size_t j = 0; j < excess_.size(); ++j) {
            const std::uint64_t above = excess_.size() - j;
            if (rest - above * excess_[j] <= slack) return (rest - slack + above - 1) / above;
            rest -= excess_[j];
        }
        return 1; // not reached: every score at the base would keep the sum within the cutoff
    }
    template <class View> bool throttled(const View& view, unsigned slot) const {
        return !allowed_[slot] && next_access(view, slot) == NextAccess::cached_load;
    }

    static constexpr std::uint64_t no_score_above_base = ~std::uint64_t{0};
    static constexpr core::Cycle never = ~core::Cycle{0};
    // score() = raw_score_ - decayed_, floored at the base. A warp at the base may keep a raw score up to
    // BaseScore + decayed_.
    std::vector<std::uint64_t> raw_score_;
    std::uint64_t decayed_ = 0; // points every score above the base has lost, summed over the run
    // The smallest decayed_ at which some warp above the base reaches it: raw_score_ - BaseScore, least over the
    // warps above the base (a warp that left may leave it smaller, which only brings the next visit forward).
    std::uint64_t next_at_base_ = no_score_above_base;
    std::vector<VictimTagArray<VtaEntries, VtaWays>> vta_;
    std::vector<std::uint8_t> allowed_;
    std::vector<unsigned> sorted_;
    AgeRank ranks_;
    unsigned greedy_ = timing::no_warp;
    unsigned active_ = 0;
    unsigned throttled_count_ = 0; // warps above the cutoff in the current stack
    std::size_t allowed_prefix_ = 0; // the first this many warps of sorted_ may issue loads
    std::uint64_t allowed_version_ = 0; // advanced whenever allowed_ may change
    WithheldSelect<std::uint64_t> withheld_; // the inputs: allowed_version_
    // The stack (sorted_, allowed_, throttled_count_) is the one the scores and the age order give: it was stacked
    // since they last changed, or only a decay short of prefix_holds_until_ changed them.
    bool stacked_ = false;
    std::uint64_t prefix_holds_until_ = 0; // decayed_ from which a decay may change the allowed prefix
    std::vector<std::uint64_t> excess_; // decay_until_prefix_grows's scores over the base (kept: no allocation)
    bool order_stale_ = true; // sorted_ may no longer be the age order sorted by score (a score's rank changed)
    // Some score may exceed the base (only then does decay change anything). Set wherever a score rises above the
    // base (on_locality_event), recomputed by decay; a warp that leaves may leave it true, which only costs a scan.
    bool above_base_ = false;
    unsigned live_ = 0;
    bool launch_hook_seen_ = false;
    core::Cycle last_decay_ = 0;
    std::uint64_t vta_hits_ = 0, instructions_ = 0, misses_seen_ = 0, evictions_seen_ = 0;
    std::uint64_t withheld_cycles_ = 0, throttled_warp_cycles_ = 0;
};

} // namespace gpuarch::sched
