#include <doctest/doctest.h>

#include <gpuarch/core/error.hpp>
#include <gpuarch/core/stats.hpp>

#include <sstream>

namespace {
struct ToyCache {
    std::uint64_t hits = 3, misses = 1;
    std::vector<std::uint64_t> occupancy{5, 2, 1};
    template <class V> void visit_stats(V& v) const {
        v.counter("hits", hits, "accesses that found their line");
        v.counter("misses", misses, "accesses that did not");
        v.histogram("occupancy", occupancy, "cycles with k entries busy");
    }
};
} // namespace

TEST_CASE("a component's declared counters are collected under its prefix") {
    gpuarch::core::StatsTable table;
    table.collect("sm0.l1", ToyCache{});
    CHECK(table.counter("sm0.l1.hits") == 3);
    CHECK(table.counter("sm0.l1.misses") == 1);
    CHECK(table.histogram("sm0.l1.occupancy") == std::vector<std::uint64_t>{5, 2, 1});
}

TEST_CASE("tables of several SMs merge by name: counters and histogram buckets add") {
    gpuarch::core::StatsTable gpu, a, b;
    a.collect("l1", ToyCache{});
    ToyCache other;
    other.hits = 10;
    other.occupancy = {1, 1, 1, 7};
    b.collect("l1", other);
    gpu.merge(a);
    gpu.merge(b);
    CHECK(gpu.counter("l1.hits") == 13);
    CHECK(gpu.histogram("l1.occupancy") == std::vector<std::uint64_t>{6, 3, 2, 7});
}

TEST_CASE("reading an undeclared statistic is an error, not a silent zero") {
    gpuarch::core::StatsTable table;
    CHECK_THROWS_AS(table.counter("l1.hitz"), gpuarch::Error);
}

TEST_CASE("statistics print as a table and as JSON in declaration order") {
    gpuarch::core::StatsTable table;
    table.collect("l1", ToyCache{});
    std::ostringstream os;
    table.print_table(os);
    CHECK(os.str() == "l1.hits       3\nl1.misses     1\nl1.occupancy  [5 2 1]\n");
    CHECK(table.to_json() == R"({"l1.hits":3,"l1.misses":1,"l1.occupancy":[5,2,1]})");
}

TEST_CASE("a histogram saturates into its last bucket") {
    gpuarch::core::Histogram h(4);
    h.add(0);
    h.add(3);
    h.add(99, 2);
    CHECK(h.buckets() == std::vector<std::uint64_t>{1, 0, 0, 3});
    CHECK(h.total() == 4);
}
