#pragma once
// Two components' declared statistics, entry by entry: names, counter values and histogram buckets. The check of the
// tests that hold a fast path (a kept stack, a memo, a bulk step) against the component that takes the slow one,
// which must be equal in every statistic.
#include <cstddef>

#include <doctest/doctest.h>

#include <gpuarch/core/stats.hpp>

namespace gpuarch::test_support {

template <class A, class B> void check_same_statistics(const A& a, const B& b) {
    core::StatsTable ta, tb;
    ta.collect("", a);
    tb.collect("", b);
    REQUIRE(ta.entries().size() == tb.entries().size());
    for (std::size_t e = 0; e < ta.entries().size(); ++e) {
        INFO(ta.entries()[e].name);
        CHECK(ta.entries()[e].name == tb.entries()[e].name);
        CHECK(ta.entries()[e].value == tb.entries()[e].value);
        CHECK(ta.entries()[e].buckets == tb.entries()[e].buckets);
    }
}

} // namespace gpuarch::test_support
