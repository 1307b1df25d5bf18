#pragma once
#include <cstdint>

namespace gpuarch::core {

// Simulated core clock cycles. Unsigned and 64-bit: a 15-SM machine at 10^5 cycles/s never wraps it.
using Cycle = std::uint64_t;

// A frequency in MHz, for converting between clock domains (core, interconnect, L2, DRAM).
struct ClockMHz {
    double value = 0;
};

} // namespace gpuarch::core
