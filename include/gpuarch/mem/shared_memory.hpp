#pragma once
// Banked shared memory timing: how many cycles the banks need for one warp access.
// Fermi: 32 banks of 4 bytes serve a whole warp per cycle; compute capability 1.x: 16 banks serve each
// half-warp (a warp request takes two cycles) (Gong 2020 Sec. 2.2). Lanes reading the same word are served
// by one broadcast (Gong 2020 Sec. 2.2).
// Contract: conflict degree of a group of lanes served together = the largest number of distinct words any
// one bank must deliver; the access takes the sum of the degrees of its groups (at least one cycle).
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <gpuarch/core/error.hpp>
#include <gpuarch/mem/access.hpp>
#include <gpuarch/mem/coalescer.hpp>

namespace gpuarch::mem {

struct SharedMemoryConfig {
    std::uint32_t banks = 32;           // Gong 2020 Sec. 2.2: 32 banks on Fermi
    std::uint32_t bank_bytes = 4;       // one 32-bit word per bank per cycle
    std::uint32_t lanes_per_cycle = 32; // 16 models the half-warp banks of compute capability 1.x
    std::uint32_t latency = 1;          // cycles from the last bank cycle to the data (documented default)

    void validate() const {
        if (banks == 0 || bank_bytes == 0 || lanes_per_cycle == 0)
            throw Error("shared memory needs at least one bank, one byte per bank and one lane per cycle");
    }
};

class SharedMemoryBanks {
public:
    explicit SharedMemoryBanks(const SharedMemoryConfig& config = {}) : config_(config) { config_.validate(); }
    const SharedMemoryConfig& config() const { return config_; }

    // Bank cycles for this access; 0 when no lane is active.
    std::uint32_t conflict_cycles(const WarpAccess& access) {
        if (access.active.any() && access.addresses == nullptr)
            throw Error("a shared-memory access has active lanes but no addresses");
        std::uint32_t total = 0;
        std::size_t group = ~std::size_t{0};
        const std::uint32_t bytes = access.access_bytes == 0 ? 1 : access.access_bytes;
        if (bank_stamp_.size() != config_.banks) {
            bank_stamp_.assign(config_.banks, 0);
            bank_word_.assign(config_.banks, 0);
        }
        words_.clear();
        new_group();
        for_each_active_lane(access, [&](std::size_t lane) {
            const std::size_t g = lane / config_.lanes_per_cycle;
            if (g != group) {
                total += degree();
                words_.clear();
                new_group();
                group = g;
            }
            const std::uint64_t first = access.addresses[lane] / config_.bank_bytes;
            const std::uint64_t last = (access.addresses[lane] + bytes - 1) / config_.bank_bytes;
            for (std::uint64_t w = first; w <= last; ++w) {
                const auto bank = static_cast<std::size_t>(w % config_.banks);
                words_.emplace_back(bank, w);
                // Fast path: while every bank has seen one distinct word the degree is 1; only a second distinct
                // word in some bank sends the group to the exact count below.
                if (bank_stamp_[bank] != stamp_) {
                    bank_stamp_[bank] = stamp_;
                    bank_word_[bank] = w;
                } else if (bank_word_[bank] != w) {
                    conflict_ = true;
                }
            }
        });
        total += degree();
        return total;
    }

private:
    void new_group() {
        conflict_ = false;
        if (++stamp_ == 0) { // wrapped: forget every stamp so no bank looks seen in the new group
            std::fill(bank_stamp_.begin(), bank_stamp_.end(), 0);
            stamp_ = 1;
        }
    }
    // Degree of the group gathered in words_.
    std::uint32_t degree() {
        if (words_.empty()) return 0;
        if (!conflict_) return 1;
        std::sort(words_.begin(), words_.end());
        std::uint32_t worst = 0, run = 0;
        for (std::size_t i = 0; i < words_.size(); ++i) {
            if (i > 0 && words_[i] == words_[i - 1]) continue; // same word: broadcast
            run = (i > 0 && words_[i].first == words_[i - 1].first) ? run + 1 : 1;
            worst = std::max(worst, run);
        }
        return worst;
    }

    SharedMemoryConfig config_;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> words_; // (bank, word)
    // Per bank: the group (stamp) that last touched it and the word it held; conflict_: some bank of the current
    // group holds two distinct words.
    std::vector<std::uint32_t> bank_stamp_;
    std::vector<std::uint64_t> bank_word_;
    std::uint32_t stamp_ = 0;
    bool conflict_ = false;
};

} // namespace mem
