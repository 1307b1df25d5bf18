#pragma once
// Banked shared memory timing: how many cycles the banks need for one warp access.
// Fermi: 32 banks of 4 bytes serve a whole warp per cycle; compute capability 1.x: 16 banks serve each
// half-warp (a warp request takes two cycles) (Gong 2020 Sec. 2.2). Lanes reading the same word are served
// by one broadcast (Gong 2020 Sec. 2.2).
// Contract: conflict degree of a group of lanes served together = the largest number of distinct words any
// one bank must deliver; the access takes the sum of the degrees of its groups (at least one cycle).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <gpuarch/core/error.hpp>
#include <gpuarch/mem/access.hpp>
#include <gpuarch/mem/coalescer.hpp>

namespace gpuarch::mem {

struct SharedMemoryConfig {
    std::uint32_t banks = 32; // Gong 2020 Sec. 2.2: 32 banks on Fermi
    std::uint32_t bank_bytes = 4; // one 32-bit word per bank per cycle
    std::uint32_t lanes_per_cycle = 32; // 16 models the half-warp banks of compute capability 1.x
    std::uint32_t latency = 1; // cycles from the last bank cycle to the data (documented default)

    void validate() const {
        if (banks == 0 || bank_bytes == 0 || lanes_per_cycle == 0)
            throw Error("shared memory needs at least one bank, one byte per bank and one lane per cycle");
    }
};

class SharedMemoryBanks {
public:
    explicit SharedMemoryBanks(const SharedMemoryConfig& config = {}) : config_(config) {
        config_.validate();
        bank_shift_ = log2_if_power_of_two(config_.bank_bytes);
        lane_shift_ = log2_if_power_of_two(config_.lanes_per_cycle);
        banks_power_of_two_ = std::has_single_bit(config_.banks);
        bank_stamp_.assign(config_.banks, 0);
        bank_word_.assign(config_.banks, 0);
    }
    const SharedMemoryConfig& config() const { return config_; }

    // Bank cycles for this access; 0 when no lane is active.
    std::uint32_t conflict_cycles(const WarpAccess& access) {
        if (access.active.any() && access.addresses == nullptr)
            throw Error("a shared-memory access has active lanes but no addresses");
        const std::uint32_t bytes = access.access_bytes == 0 ? 1 : access.access_bytes;
        if (const std::uint32_t degree = degree_of_single_group(access, bytes); degree != needs_general_count)
            return degree;
        std::uint32_t total = 0;
        std::size_t group = ~std::size_t{0};
        // One pass marks, per bank, the first word the group asks of it; a group whose banks each see one distinct
        // word has degree 1 (the common case). Only a group where some bank sees a second distinct word is counted
        // exactly, by a second pass over its lanes (group_degree).
        for_each_active_lane(access, [&](std::size_t lane) {
            const std::size_t g = group_of(lane);
            if (g != group) {
                if (group != ~std::size_t{0}) total += group_degree(access, group, bytes);
                new_group();
                group = g;
            }
            const std::uint64_t first = word_of(access.addresses[lane]);
            const std::uint64_t last = word_of(access.addresses[lane] + bytes - 1);
            for (std::uint64_t w = first; w <= last; ++w) {
                const std::size_t bank = bank_of(w);
                if (bank_stamp_[bank] != stamp_) {
                    bank_stamp_[bank] = stamp_;
                    bank_word_[bank] = w;
                } else if (bank_word_[bank] != w) {
                    conflict_ = true;
                }
            }
        });
        if (group != ~std::size_t{0}) total += group_degree(access, group, bytes);
        return total;
    }

private:
    static constexpr std::uint32_t not_power_of_two = 0xffffffffU;
    static constexpr std::uint32_t needs_general_count = 0xffffffffU;
    // The common case in one pass with a bank bitmask: at most 64 lanes and 64 banks (powers of two), all lanes
    // served in one group, every lane's bytes in one bank word, and no bank asked for two distinct words: degree 1
    // (0 without active lanes). Anything else, a conflict included, returns needs_general_count for the general count.
    std::uint32_t degree_of_single_group(const WarpAccess& access, std::uint32_t bytes) {
        if (bank_shift_ == not_power_of_two || !banks_power_of_two_ || config_.banks > 64 || access.width > 64 ||
            access.width > config_.lanes_per_cycle)
            return needs_general_count;
        std::uint64_t lanes = access.active.word(0);
        const std::uint64_t all_lanes = access.width < 64 ? (std::uint64_t{1} << access.width) - 1 : ~std::uint64_t{0};
        lanes &= all_lanes;
        if (lanes == all_lanes) {
            // Every lane active (tiled kernels): if no lane's bytes cross a bank word and all the words lie within
            // `banks` consecutive words, distinct words fall in distinct banks: degree 1. One branch-free pass.
            std::uint64_t lowest = ~std::uint64_t{0}, highest = 0, crossing = 0;
            for (unsigned lane = 0; lane < access.width; ++lane) {
                const std::uint64_t address = access.addresses[lane];
                lowest = std::min(lowest, address);
                highest = std::max(highest, address);
                crossing |= (address ^ (address + bytes - 1)) >> bank_shift_;
            }
            if (crossing == 0 && (highest >> bank_shift_) - (lowest >> bank_shift_) < config_.banks) return 1;
        }
        std::uint64_t seen = 0;
        const std::uint64_t bank_mask = config_.banks - 1;
        while (lanes != 0) {
            const auto lane = static_cast<unsigned>(std::countr_zero(lanes));
            lanes &= lanes - 1;
            const std::uint64_t address = access.addresses[lane];
            const std::uint64_t word = address >> bank_shift_;
            if (((address + bytes - 1) >> bank_shift_) != word) return needs_general_count;
            const auto bank = static_cast<std::size_t>(word & bank_mask);
            const std::uint64_t bit = std::uint64_t{1} << bank;
            if ((seen & bit) == 0) {
                seen |= bit;
                bank_word_[bank] = word;
            } else if (bank_word_[bank] != word) {
                return needs_general_count;
            }
        }
        return seen != 0 ? 1 : 0;
    }
    static std::uint32_t log2_if_power_of_two(std::uint32_t v) {
        return std::has_single_bit(v) ? static_cast<std::uint32_t>(std::countr_zero(v)) : not_power_of_two;
    }
    // Divisions by the configured sizes, as shifts and masks for the usual powers of two.
    std::uint64_t word_of(std::uint64_t address) const {
        return bank_shift_ != not_power_of_two ? address >> bank_shift_ : address / config_.bank_bytes;
    }
    std::size_t bank_of(std::uint64_t word) const {
        return static_cast<std::size_t>(banks_power_of_two_ ? word & (config_.banks - 1) : word % config_.banks);
    }
    std::size_t group_of(std::size_t lane) const {
        return lane_shift_ != not_power_of_two ? lane >> lane_shift_ : lane / config_.lanes_per_cycle;
    }
    void new_group() {
        conflict_ = false;
        if (++stamp_ == 0) { // wrapped: forget every stamp so no bank looks seen in the new group
            std::fill(bank_stamp_.begin(), bank_stamp_.end(), 0);
            stamp_ = 1;
        }
    }
    // Degree of the group `group` of this access (it has at least one active lane): 1 unless a bank saw two
    // distinct words; then the largest number of distinct words any one bank delivers.
    std::uint32_t group_degree(const WarpAccess& access, std::size_t group, std::uint32_t bytes) {
        if (!conflict_) return 1;
        words_.clear();
        for_each_active_lane(access, [&](std::size_t lane) {
            if (group_of(lane) != group) return;
            const std::uint64_t last = word_of(access.addresses[lane] + bytes - 1);
            for (std::uint64_t w = word_of(access.addresses[lane]); w <= last; ++w) words_.emplace_back(bank_of(w), w);
        });
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
    std::uint32_t bank_shift_ = not_power_of_two, lane_shift_ = not_power_of_two;
    bool banks_power_of_two_ = true;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> words_; // (bank, word), for an exact count
    // Per bank: the group (stamp) that last touched it and the word it held; conflict_: some bank of the current
    // group holds two distinct words.
    std::vector<std::uint32_t> bank_stamp_;
    std::vector<std::uint64_t> bank_word_;
    std::uint32_t stamp_ = 0;
    bool conflict_ = false;
};

} // namespace gpuarch::mem
