#include <doctest/doctest.h>

#include <gpuarch/core/lane_mask.hpp>
#include <gpuarch/core/lane_values.hpp>

#include <random>
#include <vector>

using gpuarch::core::LaneMask;
using gpuarch::core::LargeWarpMask;

TEST_CASE("a lane mask counts, finds and iterates its set lanes") {
    auto mask = LaneMask<64>::from_word(0b1010'0001ULL | (1ULL << 63));
    CHECK(mask.popcount() == 4);
    CHECK(mask.find_first() == 0);
    CHECK(mask.find_next(0) == 5);
    CHECK(mask.find_next(7) == 63);
    CHECK(mask.find_next(63) == 64);
    std::vector<std::size_t> lanes;
    for (auto lane : mask.set_lanes()) lanes.push_back(lane);
    CHECK(lanes == std::vector<std::size_t>{0, 5, 7, 63});
}

TEST_CASE("first(n) sets exactly the low n lanes of a 512-lane mask, across word boundaries") {
    for (std::size_t n : {0U, 1U, 31U, 32U, 63U, 64U, 65U, 200U, 511U, 512U, 600U}) {
        auto mask = LaneMask<512>::first(n);
        CHECK(mask.popcount() == std::min<std::size_t>(n, 512));
        if (n > 0 && n <= 512) CHECK(mask.test(n - 1));
        if (n < 512) CHECK_FALSE(mask.test(n));
    }
}

TEST_CASE("popcount_below counts what popcount counts for masks with no lane at or above the width") {
    // Every width a frontend has (32, 64 and large warps up to 512), one not a multiple of 64, random masks inside
    // each, and edge lanes.
    std::mt19937_64 random(20261204);
    for (int trial = 0; trial < 200; ++trial) {
        for (std::size_t width : {32U, 64U, 96U, 512U}) {
            gpuarch::core::WarpMask mask;
            for (std::size_t lane = 0; lane < width; ++lane)
                if ((random() & 3) != 0) mask.set(lane);
            CHECK(mask.popcount_below(width) == mask.popcount());
        }
    }
    auto edges = gpuarch::core::WarpMask::from_word((1ULL << 31) | 1ULL);
    CHECK(edges.popcount_below(32) == 2);
    edges.set(95);
    CHECK(edges.popcount_below(96) == 3);
    CHECK(gpuarch::core::WarpMask::all().popcount_below(512) == 512);
    CHECK(gpuarch::core::WarpMask{}.popcount_below(32) == 0);
}

TEST_CASE("complement keeps lanes above the width clear") {
    auto none = LaneMask<40>{};
    auto all = ~none;
    CHECK(all.popcount() == 40);
    CHECK(all == LaneMask<40>::all());
    CHECK((~all).none());
}

TEST_CASE("empty masks report no lanes") {
    LaneMask<32> m;
    CHECK(m.none());
    CHECK(m.find_first() == 32);
    CHECK(m.set_lanes().begin() == m.set_lanes().end());
}

TEST_CASE("group32 extracts aligned 32-lane groups for warp-level intrinsics") {
    LaneMask<128> m;
    m.set(1);
    m.set(33);
    m.set(34);
    m.set(127);
    CHECK(m.group32(0) == 0b10U);
    CHECK(m.group32(1) == 0b110U);
    CHECK(m.group32(2) == 0U);
    CHECK(m.group32(3) == 0x8000'0000U);
}

TEST_CASE("a large-warp mask exposes rows and columns of a K x 32 matrix") {
    LargeWarpMask<8, 32> lw;
    lw.set(0, 3);
    lw.set(5, 3);
    lw.set(5, 31);
    CHECK(lw.popcount() == 3);
    CHECK(lw.column(3).popcount() == 2);
    CHECK(lw.column(3).test(5));
    CHECK(lw.row(5).test(31));
    CHECK(lw.row(5).popcount() == 2);
    CHECK(lw.flat().test(5 * 32 + 31));
}

static_assert(LaneMask<32>::first(5).popcount() == 5, "lane masks are usable at compile time");

// core::steps_evenly (lane_values.hpp) against the definition, at every length from 0 to 70 (its unrolled body and its
// remainder), with steps that wrap round 2^64 and one value changed at each position in turn.
TEST_CASE("steps_evenly tells an arithmetic progression modulo 2^64 at any length, and any one value out of step") {
    const std::uint64_t firsts[] = {0, 0x1000, ~std::uint64_t{0} - 5};
    const std::uint64_t steps[] = {0, 4, 8, ~std::uint64_t{0} - 3, std::uint64_t{1} << 63, 0x7BDEF7BDEF7BDEF8};
    std::vector<std::uint64_t> values;
    std::size_t progressions = 0, spoiled = 0;
    for (const std::uint64_t first : firsts)
        for (const std::uint64_t step : steps)
            for (std::size_t n = 0; n <= 70; ++n) {
                values.resize(n);
                for (std::size_t i = 0; i < n; ++i) values[i] = first + i * step;
                CAPTURE(n);
                CHECK(gpuarch::core::steps_evenly(values.data(), n, first, step));
                ++progressions;
                for (std::size_t i = 0; i < n; ++i) {
                    values[i] ^= std::uint64_t{1} << (i % 64);
                    CHECK_FALSE(gpuarch::core::steps_evenly(values.data(), n, first, step));
                    values[i] ^= std::uint64_t{1} << (i % 64);
                    ++spoiled;
                }
            }
    CHECK(progressions == 3 * 6 * 71);
    CHECK(spoiled == 3 * 6 * (70 * 71 / 2));
}
