#pragma once
// Hint-assisted locality-aware two-level warp scheduling (Gong 2020 Ch. 6, Sec. 6.3.2).
//
// The kernel launch carries a hint (Table 6.1, TimingOptions::launch_hint): 0 not specified, 1 multiple cache
// lines shared among blocks, 2 boundary cache lines shared, 3 some data and constants shared. The scheduler groups
// its warps by the hint and schedules two-level: round-robin inside the active group, and "once all the warps in the
// current group are stalled, the warp scheduler will switch to another group. The switching policy among groups is
// also round-robin."
//
// Groups (per scheduler, i.e. per warp pool; the SM spreads a CTA's warps over its schedulers' pools):
//   hint 1: "We group all warp 0s from blocks with the same blockIdx.y together ... We do the same for warp 1":
//           key (blockIdx.z, blockIdx.y, warp index in the CTA).
//   hint 2: "group warps whose blockIdx.x is the same together. In this case, warp 1 from the block(0,0) and warp 0
//           from the block(0,1) will be in the same group": warps of one grid column x are numbered top to bottom,
//           row = blockIdx.y * warps_per_cta + warp index, and paired across block boundaries, key (blockIdx.z,
//           blockIdx.x, (row + 1) / 2): with 2 warps per block, the last warp of block (x, y) and the first of
//           block (x, y + 1) form a group (digest Sec. 6.4 inference). Pairs (size 2) are our reading of "pairing
//           boundary warps"; the thesis gives no group size.
//   hint 3: "We distribute warps in a round-robin fashion to different groups": the k-th warp to arrive in this pool
//           goes to group k mod RoundRobinGroups. The number of groups is not given: RoundRobinGroups, default 4.
//   hint 0: one group: exactly loose round-robin (LRR), the thesis baseline (Table 6.3 "Scheduler Policy: Round
//           Robin").
// Group ids are dense in order of first appearance (deterministic); "round-robin among groups" visits them in id
// order, cyclically after the active one.
//
// Hooks the SM calls (sm.hpp): on_kernel_launch() (resets the groups), on_launch_hint(h), and
// on_warp_origin(slot, blockIdx, warp index, warps per CTA) after on_warp_start(slot). A warp whose origin never
// arrives is in group 0.
// Laws (tests/locality): select returns only ready slots and no_warp only when none is ready.
// Statistics (monotonic counters): group switches (split into on-stall and premature, as sched::TwoLevel), hint 1/2
// groups formed.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <gpuarch/core/cycle.hpp>
#include <gpuarch/core/error.hpp>
#include <gpuarch/core/dim3.hpp>
#include <gpuarch/timing/concepts.hpp>

namespace gpuarch::sched {

template <unsigned RoundRobinGroups = 4> struct LocalityTwoLevel {
    static_assert(RoundRobinGroups > 0, "LocalityTwoLevel needs at least one round-robin group for hint 3");
    static constexpr std::string_view name = [] {
        if constexpr (RoundRobinGroups == 4) return std::string_view("LocalityTwoLevel");
        else if constexpr (RoundRobinGroups == 2) return std::string_view("LocalityTwoLevel<2>");
        else if constexpr (RoundRobinGroups == 8) return std::string_view("LocalityTwoLevel<8>");
        else return std::string_view("LocalityTwoLevel<G>");
    }();
    static constexpr unsigned round_robin_groups = RoundRobinGroups;
    // select moves the active group only to a ready warp (timing/hooks.hpp, QuietWhenNothingReady).
    static constexpr bool select_changes_nothing_when_nothing_is_ready = true;

    explicit LocalityTwoLevel(const timing::SchedulerConfig& config)
        : pool_size_(config.pool_size), group_(config.pool_size, 0),
          last_(config.pool_size == 0 ? 0 : config.pool_size - 1) {}

    void on_kernel_launch() {
        hint_ = 0;
        keys_.clear();
        arrivals_ = 0;
        active_ = 0;
        group_.assign(pool_size_, 0);
    }
    void on_launch_hint(unsigned hint) {
        if (hint > 3)
            throw Error("LocalityTwoLevel: launch hint " + std::to_string(hint) + " is not 0-3 (Gong 2020 Table 6.1)");
        hint_ = hint;
    }
    unsigned launch_hint() const { return hint_; }

    void on_warp_origin(unsigned slot, const core::Dim3& cta, unsigned warp_in_cta, unsigned warps_per_cta) {
        if (slot >= pool_size_)
            throw Error("LocalityTwoLevel: warp origin for slot " + std::to_string(slot) + " outside a pool of " +
                        std::to_string(pool_size_));
        switch (hint_) {
        case 1: group_[slot] = id_of({cta.z, cta.y, warp_in_cta}); break;
        case 2: {
            const std::uint64_t row = std::uint64_t{cta.y} * warps_per_cta + warp_in_cta;
            group_[slot] = id_of({cta.z, cta.x, static_cast<std::uint32_t>((row + 1) / 2)});
            break;
        }
        case 3: group_[slot] = static_cast<unsigned>(arrivals_++ % RoundRobinGroups); break;
        default: group_[slot] = 0; break;
        }
    }
    // The group of a pool slot (tests and statistics).
    unsigned group_of(unsigned slot) const { return group_.at(slot); }

    template <timing::SchedulerView View> unsigned select(const View& view) {
        const unsigned n = view.pool_size();
        if (n == 0) return timing::no_warp;
        // Round-robin inside the active group, starting after the warp that issued last.
        for (unsigned k = 1; k <= n; ++k) {
            const unsigned slot = (last_ + k) % n;
            if (group_[slot] == active_ && view.ready(slot)) return slot;
        }
        // Every warp of the active group is stalled: the next group, round-robin by id, that has a ready warp.
        const unsigned groups = group_count();
        unsigned best = timing::no_warp, best_distance = 0;
        for (unsigned k = 1; k <= n; ++k) {
            const unsigned slot = (last_ + k) % n;
            if (!view.ready(slot)) continue;
            const unsigned distance = (group_[slot] + groups - active_ - 1) % groups;
            if (best == timing::no_warp || distance < best_distance) {
                best = slot;
                best_distance = distance;
            }
        }
        if (best != timing::no_warp) {
            if (all_long_latency(view, active_)) ++stall_switches_;
            else ++premature_switches_;
            active_ = group_[best];
        }
        return best;
    }
    void on_issue(unsigned slot, core::Cycle) {
        last_ = slot;
        active_ = group_[slot];
    }
    void on_warp_start(unsigned slot) {
        if (slot < pool_size_) group_[slot] = 0;
    }
    void on_warp_exit(unsigned) {}

    template <class V> void visit_stats(V& v) const {
        v.counter("group_switches_on_stall", stall_switches_,
                  "group switches: every warp of the group waited on memory");
        v.counter("group_switches_premature", premature_switches_, "group switches for other reasons");
        v.counter("locality_groups_formed", groups_formed_,
                  "hint 1/2 warp groups formed, over all launches (Gong 2020 Sec. 6.3.2)");
    }

private:
    unsigned id_of(const std::array<std::uint32_t, 3>& key) {
        const auto [it, inserted] = keys_.emplace(key, static_cast<unsigned>(keys_.size()));
        if (inserted) ++groups_formed_;
        return it->second;
    }
    unsigned group_count() const {
        switch (hint_) {
        case 1:
        case 2: return keys_.empty() ? 1U : static_cast<unsigned>(keys_.size());
        case 3: return RoundRobinGroups;
        default: return 1U;
        }
    }
    template <class View> bool all_long_latency(const View& view, unsigned group) const {
        bool any = false;
        for (unsigned slot = 0; slot < view.pool_size(); ++slot) {
            if (group_[slot] != group || !view.occupied(slot)) continue;
            any = true;
            if (!view.long_latency_pending(slot)) return false;
        }
        return any;
    }

    unsigned pool_size_ = 0;
    unsigned hint_ = 0;
    std::vector<unsigned> group_; // per pool slot
    std::map<std::array<std::uint32_t, 3>, unsigned> keys_; // hint 1/2 key -> dense group id
    std::uint64_t arrivals_ = 0; // hint 3: warps that arrived in this pool this kernel
    unsigned active_ = 0;
    unsigned last_ = 0;
    std::uint64_t stall_switches_ = 0, premature_switches_ = 0, groups_formed_ = 0;
};

} // namespace gpuarch::sched
