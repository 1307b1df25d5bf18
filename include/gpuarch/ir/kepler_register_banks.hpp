#pragma once
// Kepler GK104 register-bank conflict rule (Lai 2013 Sec. 4.2.3 and 4.4.4). In ir/ because it is a function of
// register numbers that both the analytical model (model/) and the banked register file (regfile/) use.
//
// The thesis *speculates*, from the Table 4.1 measurements, that GK104 registers sit in four
// banks chosen by register number:
//   even0: R % 8 <  4 && R % 2 == 0      odd0: R % 8 <  4 && R % 2 == 1
//   even1: R % 8 >= 4 && R % 2 == 0      odd1: R % 8 >= 4 && R % 2 == 1
// Two *different* source registers in one bank halve the instruction throughput; three
// different ones cut it to about a third. Naming one register twice costs nothing.
// So the throughput factor is 1 / (largest number of distinct source registers in a bank).
//
// Scope: FP32 and IADD math on GK104. IMUL/IMAD have a separate ~33 thread-instruction cap
// (Table 4.1) the rule does not describe; Fermi has no bank model in the thesis.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace gpuarch::ir {

enum class KeplerRegBank : std::uint8_t { even0 = 0, even1 = 1, odd0 = 2, odd1 = 3 };

inline constexpr int kepler_register_bank_count = 4;

constexpr KeplerRegBank kepler_register_bank(unsigned reg) {
    const bool high = reg % 8 >= 4;
    const bool odd = reg % 2 == 1;
    if (odd) return high ? KeplerRegBank::odd1 : KeplerRegBank::odd0;
    return high ? KeplerRegBank::even1 : KeplerRegBank::even0;
}

constexpr std::string_view kepler_bank_name(KeplerRegBank b) {
    switch (b) {
    case KeplerRegBank::even0: return "even0";
    case KeplerRegBank::even1: return "even1";
    case KeplerRegBank::odd0: return "odd0";
    case KeplerRegBank::odd1: return "odd1";
    }
    return "?";
}

// Distinct source registers per bank.
constexpr std::array<int, kepler_register_bank_count> kepler_bank_occupancy(std::span<const unsigned> sources) {
    std::array<int, kepler_register_bank_count> count{};
    for (std::size_t i = 0; i < sources.size(); ++i) {
        bool repeated = false;
        for (std::size_t j = 0; j < i; ++j) repeated = repeated || sources[j] == sources[i];
        if (!repeated) ++count[static_cast<std::size_t>(kepler_register_bank(sources[i]))];
    }
    return count;
}

// 1 = conflict-free, 2 = two-way, 3 = three-way.
constexpr int kepler_bank_conflict_degree(std::span<const unsigned> sources) {
    int worst = sources.empty() ? 1 : 0;
    for (int c : kepler_bank_occupancy(sources)) worst = c > worst ? c : worst;
    return worst;
}

// Fraction of the conflict-free throughput the instruction reaches.
constexpr double kepler_bank_throughput_factor(std::span<const unsigned> sources) {
    return 1.0 / kepler_bank_conflict_degree(sources);
}

template <std::size_t N> constexpr double kepler_bank_throughput_factor(const std::array<unsigned, N>& sources) {
    return kepler_bank_throughput_factor(std::span<const unsigned>(sources));
}

template <std::size_t N> constexpr int kepler_bank_conflict_degree(const std::array<unsigned, N>& sources) {
    return kepler_bank_conflict_degree(std::span<const unsigned>(sources));
}

} // namespace gpuarch::ir
