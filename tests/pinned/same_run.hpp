#pragma once
// The pinned tests' one comparison of two simulations of the same kernel (a fast path against its reference): both
// pass their CPU reference check and agree on cycles, instructions and every statistic.
#include <doctest/doctest.h>

namespace gpuarch::test {

template <class Run>
void check_same_run(const Run& reference, const Run& candidate) {
    REQUIRE(reference.passed);
    CHECK(candidate.passed);
    CHECK(candidate.cycles == reference.cycles);
    CHECK(candidate.warp_instructions == reference.warp_instructions);
    CHECK(candidate.thread_instructions == reference.thread_instructions);
    CHECK(candidate.stats == reference.stats); // every stall class, Gong class, LSU, memory and scheduler counter
}

} // namespace gpuarch::test
