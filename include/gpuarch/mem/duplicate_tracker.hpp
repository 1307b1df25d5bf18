#pragma once
// Cross-SM duplicate MSHR allocations (Gong 2020 Sec. 6.1): an L1 MSHR allocation is redundant "if the cache
// line it is allocated for has been assigned to a previous allocated MSHR entry from other SMs" within a
// time window; the window is 2000 cycles because "the L1 cache miss latency is up to a few thousand cycles".
// One tracker serves the whole GPU; every L1 reports its allocations to it (L1Config::duplicate_tracker).
//
// Contract: for each line the tracker keeps the latest allocation and the latest allocation by a different SM,
// which is exactly what the test "some other SM allocated this line within the window" needs. Storage is an
// open-addressing table that grows by doubling and drops stale lines when it grows, so the per-allocation
// cost is a hash probe and there is no allocation per access.
#include <cstdint>
#include <vector>

#include <gpuarch/core/cycle.hpp>
#include <gpuarch/core/error.hpp>

namespace gpuarch::mem {

class DuplicateMshrTracker {
public:
    // Gong 2020 Sec. 6.1: 2000-cycle window.
    static constexpr core::Cycle default_window = 2000;

    explicit DuplicateMshrTracker(core::Cycle window = default_window, std::size_t initial_capacity = 1024)
        : window_(window) {
        std::size_t cap = 16;
        while (cap < initial_capacity) cap *= 2;
        slots_.assign(cap, Slot{});
    }

    core::Cycle window() const { return window_; }

    // Records an MSHR allocation of `line` by `sm` at `now`; returns whether it duplicates another SM's
    // allocation of the same line within the window.
    bool record(std::uint32_t sm, std::uint64_t line, core::Cycle now) {
        ++allocations_;
        Slot& s = find_or_insert(line, now);
        bool duplicate = false;
        if (s.used) {
            if (s.sm1 != sm) duplicate = within(s.t1, now);
            else if (s.has2) duplicate = within(s.t2, now);
        }
        if (!s.used) {
            s.used = true;
            s.line = line;
            s.sm1 = sm;
            s.t1 = now;
        } else if (s.sm1 == sm) {
            s.t1 = now;
        } else {
            s.sm2 = s.sm1;
            s.t2 = s.t1;
            s.has2 = true;
            s.sm1 = sm;
            s.t1 = now;
        }
        if (duplicate) ++duplicates_;
        return duplicate;
    }

    std::uint64_t allocations() const { return allocations_; }
    std::uint64_t duplicates() const { return duplicates_; }

    template <class V> void visit_stats(V& v) const {
        v.counter("mshr_allocations", allocations_, "L1 MSHR allocations over all SMs");
        v.counter("duplicate_mshr_allocations", duplicates_,
                  "allocations of a line another SM allocated within the window (Gong 2020 Sec. 6.1)");
        v.counter("duplicate_window_cycles", window_, "window of the duplicate test");
    }

private:
    struct Slot {
        bool used = false;
        bool has2 = false;
        std::uint64_t line = 0;
        std::uint32_t sm1 = 0, sm2 = 0;
        core::Cycle t1 = 0, t2 = 0;
    };

    bool within(core::Cycle then, core::Cycle now) const { return now - then <= window_; }

    static std::uint64_t hash(std::uint64_t line) {
        line ^= line >> 33;
        line *= 0xff51afd7ed558ccdULL;
        line ^= line >> 33;
        return line;
    }

    Slot& find_or_insert(std::uint64_t line, core::Cycle now) {
        if ((used_ + 1) * 2 > slots_.size()) rehash(now);
        const std::size_t mask = slots_.size() - 1;
        std::size_t i = static_cast<std::size_t>(hash(line)) & mask;
        while (slots_[i].used && slots_[i].line != line) i = (i + 1) & mask;
        if (!slots_[i].used) ++used_;
        return slots_[i];
    }

    // Drops lines whose latest allocation is older than the window (they can never make a duplicate again),
    // and doubles the table when it is still more than a quarter full.
    void rehash(core::Cycle now) {
        std::vector<Slot> old;
        old.swap(slots_);
        std::size_t live = 0;
        for (const Slot& s : old)
            if (s.used && within(s.t1, now)) ++live;
        std::size_t cap = old.size();
        while (live * 4 > cap) cap *= 2;
        slots_.assign(cap, Slot{});
        used_ = 0;
        const std::size_t mask = cap - 1;
        for (const Slot& s : old) {
            if (!s.used || !within(s.t1, now)) continue;
            std::size_t i = static_cast<std::size_t>(hash(s.line)) & mask;
            while (slots_[i].used) i = (i + 1) & mask;
            slots_[i] = s;
            ++used_;
        }
    }

    core::Cycle window_;
    std::vector<Slot> slots_;
    std::size_t used_ = 0;
    std::uint64_t allocations_ = 0;
    std::uint64_t duplicates_ = 0;
};

} // namespace gpuarch::mem
