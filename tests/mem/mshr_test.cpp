// MshrTable: the indexed lookup and the free-entry set answer exactly what a scan of every entry answers.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include <gpuarch/mem/mshr.hpp>

using gpuarch::mem::MshrTable;

namespace {

// The contract written as the plainest code: entries scanned in order, the lowest free one allocated.
struct ReferenceMshr {
    static constexpr std::uint32_t none = ~std::uint32_t{0};
    std::vector<bool> valid;
    std::vector<std::uint64_t> line;
    explicit ReferenceMshr(std::uint32_t entries) : valid(entries, false), line(entries, 0) {}
    std::uint32_t find(std::uint64_t l) const {
        for (std::uint32_t e = 0; e < valid.size(); ++e)
            if (valid[e] && line[e] == l) return e;
        return none;
    }
    std::uint32_t allocate(std::uint64_t l) {
        for (std::uint32_t e = 0; e < valid.size(); ++e)
            if (!valid[e]) {
                valid[e] = true;
                line[e] = l;
                return e;
            }
        return none;
    }
};

// Random allocate, find and release on `entries` entries with lines drawn from `distinct` 128-byte lines (few
// distinct lines: the same line comes back after its release; many: long probe runs in the index).
void check_against_reference(std::uint32_t entries, std::uint32_t distinct, std::uint32_t seed) {
    MshrTable<std::uint32_t> table(entries, 4);
    ReferenceMshr reference(entries);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<std::uint32_t> pick_line(0, distinct - 1);
    for (int step = 0; step < 20000; ++step) {
        // Lines spaced by 128 bytes and by the index size (2 x entries slots) share low bits, as real lines do.
        const std::uint64_t line = std::uint64_t{pick_line(rng)} * 128 * entries * 2 + 0x4000'0000ULL;
        const std::uint32_t found = table.find(line);
        REQUIRE(found == reference.find(line));
        if (found == table.none) {
            if (table.full()) continue;
            const std::uint32_t e = table.allocate(line);
            REQUIRE(e == reference.allocate(line));
            table.add(e, static_cast<std::uint32_t>(step));
        } else if (rng() % 2 == 0) {
            table.release(found);
            reference.valid[found] = false;
        }
        CHECK(table.busy() ==
              static_cast<std::uint32_t>(std::count(reference.valid.begin(), reference.valid.end(), true)));
    }
    // Every tracked line is still found at its entry, and a released table finds nothing.
    for (std::uint32_t e = 0; e < entries; ++e)
        if (reference.valid[e]) CHECK(table.find(reference.line[e]) == e);
    for (std::uint32_t e = 0; e < entries; ++e)
        if (reference.valid[e]) table.release(e);
    CHECK(table.busy() == 0);
    for (std::uint32_t l = 0; l < distinct; ++l)
        CHECK(table.find(std::uint64_t{l} * 128 * entries * 2 + 0x4000'0000ULL) == table.none);
}

} // namespace

TEST_CASE("MSHR table: lookups and allocations equal a scan of every entry") {
    SUBCASE("64 entries, lines reused often") { check_against_reference(64, 80, 1); }
    SUBCASE("64 entries, mostly new lines") { check_against_reference(64, 5000, 2); }
    SUBCASE("8 entries (the constant cache's), colliding lines") { check_against_reference(8, 12, 3); }
    SUBCASE("1 entry") { check_against_reference(1, 3, 4); }
    SUBCASE("100 entries (more than one 64-bit word of free bits)") { check_against_reference(100, 300, 5); }
}

TEST_CASE("MSHR table: the lowest free entry is allocated, so entry numbers are deterministic") {
    MshrTable<int> table(4, 2);
    CHECK(table.allocate(0x100) == 0);
    CHECK(table.allocate(0x200) == 1);
    CHECK(table.allocate(0x300) == 2);
    table.release(1);
    CHECK(table.find(0x200) == table.none);
    CHECK(table.find(0x300) == 2);
    CHECK(table.allocate(0x400) == 1);
    CHECK(table.allocate(0x500) == 3);
    CHECK(table.full());
    CHECK(table.find(0x400) == 1);
    CHECK(table.find(0x500) == 3);
}
