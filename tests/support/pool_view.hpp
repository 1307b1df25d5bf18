#pragma once
// A warp pool as a scheduler sees it (timing::SchedulerView, no instruction preview), backed by vectors the test
// sets by hand or draws at random, for the scheduler tests and laws.
#include "split_mix.hpp"

#include <gpuarch/core/cycle.hpp>
#include <gpuarch/timing/concepts.hpp>
#include <gpuarch/timing/interfaces.hpp>

#include <cstdint>
#include <vector>

namespace gpuarch::test_support {

// Aggregate order (ready, age, long-latency, occupied) lets a test write `PoolView{{ready...}, {age...}}`; the
// default member initializers keep -Wmissing-field-initializers quiet about the two it leaves out.
struct PoolView {
    std::vector<bool> ready_;
    std::vector<std::uint64_t> age_; // empty: a slot's age is its index (slot 0 the oldest)
    std::vector<bool> long_latency_ = {}; // empty: no warp waits on a long-latency result
    std::vector<bool> occupied_ = {}; // empty: every slot holds a warp
    unsigned pool_size() const { return static_cast<unsigned>(ready_.size()); }
    bool occupied(unsigned i) const { return occupied_.empty() || occupied_[i]; }
    bool ready(unsigned i) const { return ready_[i]; }
    std::uint64_t age(unsigned i) const { return age_.empty() ? i : age_[i]; }
    bool long_latency_pending(unsigned i) const { return !long_latency_.empty() && long_latency_[i]; }
    timing::L1View l1() const { return {}; }
    core::Cycle now() const { return 0; }
};
static_assert(timing::SchedulerView<PoolView>);

// A random pool of `pool` slots: each slot holds a warp with probability 3/4; a held warp is ready with probability
// 1/3, else waits on a long-latency result with probability 1/2; ages are drawn from [0, 1000), so equal ages occur,
// unless `draw_ages` is false (then age = slot index, and the generator draws nothing for ages).
inline PoolView random_pool_view(SplitMix& rng, unsigned pool, bool draw_ages = true) {
    PoolView v;
    for (unsigned i = 0; i < pool; ++i) {
        const bool occ = rng.next() % 4 != 0;
        const bool rdy = occ && rng.next() % 3 == 0;
        v.occupied_.push_back(occ);
        v.ready_.push_back(rdy);
        v.long_latency_.push_back(occ && !rdy && rng.next() % 2 == 0);
        if (draw_ages) v.age_.push_back(rng.next() % 1000);
    }
    return v;
}

} // namespace gpuarch::test_support
