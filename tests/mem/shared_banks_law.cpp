// Law of SharedMemoryBanks::conflict_cycles (mem/shared_memory.hpp): on random accesses it equals the contract's
// definition computed by brute force: per group of lanes_per_cycle lanes, the largest number of distinct words any
// one bank must deliver (lanes asking the same word share a broadcast); the access costs the sum over groups. The
// implementation has a one-pass bitmask path for conflict-free groups and an exact count otherwise; the random
// accesses hit both (few distinct words per bank, broadcasts, 1- to 16-byte lanes, partial masks, 16 to 64 lanes).
#include <doctest/doctest.h>

#include "../support/split_mix.hpp"

#include <gpuarch/mem/shared_memory.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

using namespace gpuarch;

namespace {
std::uint32_t brute_force_degree(const mem::SharedMemoryConfig& config, const std::vector<std::uint64_t>& addresses,
                                 const std::vector<bool>& active, std::uint32_t bytes) {
    std::map<std::size_t, std::map<std::uint64_t, std::set<std::uint64_t>>> words; // group -> bank -> words
    for (std::size_t lane = 0; lane < addresses.size(); ++lane) {
        if (!active[lane]) continue;
        for (std::uint64_t w = addresses[lane] / config.bank_bytes;
             w <= (addresses[lane] + bytes - 1) / config.bank_bytes; ++w)
            words[lane / config.lanes_per_cycle][w % config.banks].insert(w);
    }
    std::uint32_t total = 0;
    for (const auto& [group, banks] : words) {
        std::size_t worst = 0;
        for (const auto& [bank, distinct] : banks) worst = std::max(worst, distinct.size());
        total += static_cast<std::uint32_t>(worst);
    }
    return total;
}
} // namespace

TEST_CASE("conflict_cycles equals the brute-force conflict degree on random accesses") {
    test_support::SplitMix rng{2026};
    const mem::SharedMemoryConfig configs[] = {{32, 4, 32, 1}, {16, 4, 16, 1}, {32, 8, 32, 1},
                                               {24, 4, 32, 1}, {32, 4, 64, 1}, {64, 4, 64, 1}};
    for (const auto& config : configs) {
        mem::SharedMemoryBanks banks(config);
        for (unsigned trial = 0; trial < 4000; ++trial) {
            const unsigned width = (trial % 3 == 0) ? 64 : (trial % 3 == 1) ? 32 : 16;
            const std::uint32_t bytes = 1U << rng.below(5); // 1 to 16 bytes per lane
            // Few distinct words, so that banks repeat, conflict and broadcast.
            const unsigned distinct = 1 + rng.below(trial % 2 == 0 ? 4 : 64);
            std::vector<std::uint64_t> addresses(width);
            std::vector<bool> active(width);
            core::WarpMask mask;
            for (unsigned lane = 0; lane < width; ++lane) {
                addresses[lane] = std::uint64_t{rng.below(distinct)} * (trial % 4 == 0 ? 4 * config.banks : bytes);
                active[lane] = rng.below(8) != 0;
                if (active[lane]) mask.set(lane);
            }
            mem::WarpAccess access;
            access.space = ir::StateSpace::shared;
            access.access_bytes = bytes;
            access.width = width;
            access.active = mask;
            access.addresses = addresses.data();
            INFO("banks " << config.banks << " x " << config.bank_bytes << " B, " << config.lanes_per_cycle
                          << " lanes per cycle; trial " << trial << ", width " << width << ", " << bytes << " B");
            REQUIRE(banks.conflict_cycles(access) == brute_force_degree(config, addresses, active, bytes));
        }
    }
}
