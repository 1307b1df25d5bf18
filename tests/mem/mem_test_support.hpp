#pragma once
// Helpers shared by the tests of gpuarch::mem: building warp accesses and driving an L1 cycle by cycle with
// hand-delivered responses.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include <gpuarch/core/stats.hpp>
#include <gpuarch/mem/access.hpp>
#include <gpuarch/mem/queue.hpp>

namespace memtest {

using gpuarch::core::Cycle;
using gpuarch::mem::Completion;
using gpuarch::mem::LsuState;
using gpuarch::mem::MemPacket;
using gpuarch::mem::WarpAccess;

// A warp access over `addresses` (lane i accesses addresses[i]); keeps the address storage alive.
struct Access {
    std::vector<std::uint64_t> addresses;
    WarpAccess access;

    Access(std::uint64_t token, std::vector<std::uint64_t> addrs,
           gpuarch::ir::StateSpace space = gpuarch::ir::StateSpace::global, WarpAccess::Kind kind = WarpAccess::load,
           std::uint32_t bytes = 4, std::uint32_t warp = 0)
        : addresses(std::move(addrs)) {
        access.warp = warp;
        access.token = token;
        access.pc = static_cast<gpuarch::ir::Pc>(token);
        access.space = space;
        access.kind = kind;
        access.access_bytes = bytes;
        access.width = addresses.size() > 32 ? static_cast<std::uint32_t>(addresses.size()) : 32;
        access.active = gpuarch::core::WarpMask::first(addresses.size());
        addresses.resize(access.width, 0);
        access.addresses = addresses.data();
    }
    Access(const Access&) = delete;
    Access& operator=(const Access&) = delete;
};

// Lane i -> base + i * stride.
inline std::vector<std::uint64_t> strided(std::uint64_t base, std::uint64_t stride, std::size_t lanes = 32) {
    std::vector<std::uint64_t> a(lanes);
    for (std::size_t i = 0; i < lanes; ++i) a[i] = base + i * stride;
    return a;
}

// Drives an L1 slot the way the SM does: per cycle t, responses scheduled for t are received, then cycle(t),
// then completions are drained (recorded as completing at t), then at most one new instruction is accepted
// (served from t + 1). Packets the L1 sends are recorded with the cycle they entered the Downstream port.
template <class L1T> struct L1Bench {
    L1T& l1;
    gpuarch::mem::Downstream down{4096};
    Cycle now = 0;
    std::vector<std::pair<Cycle, MemPacket>> sent;
    std::map<std::uint64_t, Completion> completions;
    std::map<std::uint64_t, Cycle> done_at;
    std::vector<LsuState> states;
    std::multimap<Cycle, MemPacket> scheduled;

    // When set, step() leaves the L1's packets in its port (a network that takes nothing: the miss queue backs up).
    bool hold_down = false;

    explicit L1Bench(L1T& l, std::size_t down_capacity = 4096) : l1(l), down(down_capacity) {}

    // Runs cycle `now`; accepts `a` afterwards when given and possible. Returns whether it was accepted.
    bool step(const WarpAccess* a = nullptr) {
        auto range = scheduled.equal_range(now);
        for (auto it = range.first; it != range.second; ++it) l1.receive(it->second, now);
        scheduled.erase(range.first, range.second);
        l1.cycle(now, down);
        states.push_back(l1.lsu_state());
        l1.drain_completed([&](const Completion& c) {
            completions[c.token] = c;
            done_at[c.token] = now;
        });
        while (!hold_down && !down.empty()) {
            sent.emplace_back(now, down.front());
            down.pop();
        }
        bool accepted = false;
        if (a != nullptr && l1.can_accept()) {
            l1.accept(*a, now);
            accepted = true;
        }
        ++now;
        return accepted;
    }
    bool step(const Access& a) { return step(&a.access); }
    void run_until(Cycle t) {
        while (now < t) step();
    }
    // The request the L1 sent for `address`'s line (the latest one).
    MemPacket request_for(std::uint64_t line) const {
        for (auto it = sent.rbegin(); it != sent.rend(); ++it)
            if (it->second.address == line) return it->second;
        FAIL("no request was sent for line " << line);
        return {};
    }
    // Schedules the response to `request` for cycle `at`.
    void respond(const MemPacket& request, Cycle at) {
        MemPacket r = request;
        r.is_response = true;
        scheduled.emplace(at, r);
    }
    LsuState state_at(Cycle t) const { return states.at(t); }
    bool done(std::uint64_t token) const { return done_at.count(token) != 0; }
};

template <class Component> gpuarch::core::StatsTable stats_of(const Component& c) {
    gpuarch::core::StatsTable t;
    t.collect("", c);
    return t;
}

} // namespace memtest
