#pragma once
// Lane values that form an arithmetic progression: the address rows of unit-stride and broadcast accesses, which the
// coalescer (mem/coalescer.hpp) and the functional engine's address pass (func/semantics/memory.hpp) recognise to skip
// their per-lane work.
#include <cstddef>
#include <cstdint>

namespace gpuarch::core {

// Whether values[i] == first + i * step (modulo 2^64) for every i < n. Four independent chains over a running
// expectation: a 64-bit product per lane, or one chain of exclusive-ors, cost about nine host instructions a lane under
// g++ 12 at -O2, which vectorizes neither form.
inline bool steps_evenly(const std::uint64_t* values, std::size_t n, std::uint64_t first, std::uint64_t step) {
    std::uint64_t d0 = 0, d1 = 0, d2 = 0, d3 = 0, expected = first;
    const std::uint64_t step2 = step * 2, step3 = step * 3, step4 = step * 4;
    const std::size_t whole = n & ~std::size_t{3};
    for (std::size_t i = 0; i < whole; i += 4, expected += step4) {
        d0 |= values[i] ^ expected;
        d1 |= values[i + 1] ^ (expected + step);
        d2 |= values[i + 2] ^ (expected + step2);
        d3 |= values[i + 3] ^ (expected + step3);
    }
    for (std::size_t i = whole; i < n; ++i) d0 |= values[i] ^ (first + i * step);
    return (d0 | d1 | d2 | d3) == 0;
}

} // namespace gpuarch::core
