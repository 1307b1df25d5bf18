// Coalescing into lines and sectors per machine, and the coherent/divergent classifier (Wang 2016 Sec. 2.1).
#include <doctest/doctest.h>

#include <algorithm>
#include <iterator>
#include <random>
#include <vector>

#include <gpuarch/mem/coalescer.hpp>

#include "mem_test_support.hpp"

using namespace gpuarch::mem;
using memtest::Access;
using memtest::strided;

namespace {
const CacheGeometry fermi_l1{32, 8, 128, SetIndexing::linear}; // Wang 2016 Table 1
const CacheGeometry si_l1{64, 4, 64, SetIndexing::linear}; // Gong 2020 Table 5.2
} // namespace

TEST_CASE("unit stride: a warp of 4-byte accesses coalesces into one 128-byte line of four sectors") {
    Coalescer c(fermi_l1, 32);
    Access a(1, strided(0x1000, 4));
    const auto lines = c.lines(a.access);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].address == 0x1000);
    CHECK(lines[0].sector_mask == 0xF);
    CHECK(lines[0].lanes == 32);
    const AccessClass k = c.classify(a.access);
    CHECK(k.thread_accesses == 32);
    CHECK(k.lines == 1);
    CHECK(k.sectors == 4);
    CHECK(k.sets == 1);
    CHECK(k.coherent);
    CHECK(c.sectors(a.access).size() == 4);
}

TEST_CASE("stride 2 touches two lines and eight sectors; a misaligned unit stride touches two lines") {
    Coalescer c(fermi_l1, 32);
    Access s2(1, strided(0x1000, 8));
    AccessClass k = c.classify(s2.access);
    CHECK(k.lines == 2);
    CHECK(k.sectors == 8);
    CHECK(k.coherent); // 1-2 lines are coherent (Wang 2016 Sec. 2.1)
    Access mis(2, strided(0x1040, 4));
    k = c.classify(mis.access);
    CHECK(k.lines == 2);
    CHECK(k.sectors == 4); // 0x1040..0x10BF: sectors 2-3 of one line, 0-1 of the next
    Access s4(3, strided(0x1000, 16));
    k = c.classify(s4.access);
    CHECK(k.lines == 4);
    CHECK_FALSE(k.coherent);
}

TEST_CASE("a column-strided warp touches one line and one sector per lane") {
    Coalescer c(fermi_l1, 32);
    Access col(1, strided(0x10000, 4096));
    const AccessClass k = c.classify(col.access);
    CHECK(k.lines == 32);
    CHECK(k.sectors == 32);
    CHECK(k.sets == 1); // 4096 B apart: the same set under linear indexing
    CHECK_FALSE(k.coherent);
    // The Fermi hash spreads a 4 KB column walk from address 0 over 8 sets (Wang 2016 Sec. 5, ATAX).
    Coalescer hashed({32, 8, 128, SetIndexing::fermi_hash}, 32);
    Access col0(3, strided(0, 4096));
    CHECK(hashed.classify(col0.access).sets == 8);
    Access rows(2, strided(0x10000, 128));
    CHECK(c.classify(rows.access).sets == 32);
}

TEST_CASE("Southern Islands coalesces into 64-byte lines") {
    Coalescer c(si_l1, 32);
    Access wave64(1, strided(0x2000, 4, 64)); // a 64-wide wavefront, unit stride
    AccessClass k = c.classify(wave64.access);
    CHECK(k.thread_accesses == 64);
    CHECK(k.lines == 4);
    CHECK(k.sectors == 8);
    CHECK_FALSE(k.coherent);
    Access half(2, strided(0x2000, 4, 32));
    k = c.classify(half.access);
    CHECK(k.lines == 2);
    CHECK(k.coherent);
}

TEST_CASE("inactive lanes are ignored and straddling accesses touch both lines, in first-touch order") {
    Coalescer c(fermi_l1, 32);
    Access a(1, {0x1100, 0x107C, 0x1000});
    a.access.access_bytes = 8; // lane 1 reads bytes 0x107C..0x1083: two lines
    const auto lines = c.lines(a.access);
    REQUIRE(lines.size() == 3);
    CHECK(lines[0].address == 0x1100);
    CHECK(lines[1].address == 0x1000);
    CHECK(lines[2].address == 0x1080);
    CHECK(lines[1].lanes == 2);
    CHECK(lines[1].sector_mask == 0x9); // sector 3 (lane 1) and sector 0 (lane 2)
    a.access.active.reset(1);
    CHECK(c.lines(a.access).size() == 2);
    a.access.active = gpuarch::core::WarpMask{};
    CHECK(c.lines(a.access).empty());
    CHECK(c.classify(a.access).lines == 0);
}

TEST_CASE("constant accesses serialize per distinct address") {
    std::vector<LineTransaction> out;
    Access bcast(1, std::vector<std::uint64_t>(32, 0x40));
    distinct_addresses(bcast.access, out);
    REQUIRE(out.size() == 1);
    CHECK(out[0].lanes == 32);
    Access div(2, strided(0x40, 4));
    distinct_addresses(div.access, out);
    CHECK(out.size() == 32);
}

TEST_CASE("the coalescer rejects a sector size that does not fit the line") {
    CHECK_THROWS_AS(Coalescer(fermi_l1, 3), gpuarch::Error);
    CHECK_THROWS_AS(Coalescer(fermi_l1, 256), gpuarch::Error);
    CHECK_THROWS_AS(Coalescer({32, 8, 128, SetIndexing::fermi_hash}, 2), gpuarch::Error);
}

namespace {
// The coalescing rule written as plainly as possible (every byte range of every active lane, transactions in order
// of first touch, found by a linear search): the reference the fast coalesce() must equal.
std::vector<LineTransaction> coalesce_reference(const WarpAccess& access, std::uint32_t granularity,
                                                std::uint32_t sector_bytes) {
    std::vector<LineTransaction> out;
    const std::uint64_t bytes = access.access_bytes == 0 ? 1 : access.access_bytes;
    for (std::size_t lane = 0; lane < access.width; ++lane) {
        if (!access.active.test(lane)) continue;
        for (std::uint64_t b = access.addresses[lane]; b < access.addresses[lane] + bytes; ++b) {
            const std::uint64_t line = b / granularity * granularity;
            auto it = std::find_if(out.begin(), out.end(), [&](const LineTransaction& t) { return t.address == line; });
            if (it == out.end()) {
                out.push_back(LineTransaction{line, 0, 0});
                it = out.end() - 1;
            }
            it->sector_mask |= 1U << ((b - line) / sector_bytes);
        }
        // A lane counts once per transaction it touches.
        std::uint64_t previous = ~std::uint64_t{0};
        for (std::uint64_t b = access.addresses[lane]; b < access.addresses[lane] + bytes; ++b) {
            const std::uint64_t line = b / granularity * granularity;
            if (line == previous) continue;
            previous = line;
            ++std::find_if(out.begin(), out.end(), [&](const LineTransaction& t) { return t.address == line; })->lanes;
        }
    }
    return out;
}
} // namespace

TEST_CASE("coalesce equals the plain first-touch rule on random warps: strides, scatters, straddles, masks") {
    std::mt19937_64 rng(20261129);
    const std::uint32_t shapes[][2] = {{128, 32}, {64, 16}, {32, 32}, {128, 4}};
    const std::uint32_t sizes[] = {1, 2, 4, 8, 12, 16};
    const std::uint64_t strides[] = {0, 4, 8, 12, 64, 128, 132, 4096, 16384, 65536};
    std::vector<LineTransaction> fast;
    std::size_t transactions = 0, multi = 0, few = 0;
    for (int trial = 0; trial < 4000; ++trial) {
        const auto [granularity, sector] = shapes[rng() % 4];
        const std::size_t width = trial % 7 == 0 ? 64 : trial % 11 == 0 ? 512 : 32;
        std::vector<std::uint64_t> addresses(width);
        const std::uint64_t base = (rng() % (1U << 20)) * (trial % 3 == 0 ? 1 : 4);
        const std::uint64_t stride = strides[rng() % std::size(strides)];
        for (std::size_t lane = 0; lane < width; ++lane)
            addresses[lane] = trial % 5 == 0 ? base + (rng() % 65536) // scattered
                                             : base + lane * stride + (trial % 13 == 0 ? rng() % 3 : 0);
        Access a(1, addresses);
        a.access.width = static_cast<std::uint32_t>(width);
        a.access.access_bytes = sizes[rng() % std::size(sizes)];
        for (std::size_t lane = 0; lane < width; ++lane)
            if (trial % 4 == 0 && rng() % 3 == 0) a.access.active.reset(lane);
        coalesce(a.access, granularity, sector, fast);
        const auto expected = coalesce_reference(a.access, granularity, sector);
        REQUIRE(fast.size() == expected.size());
        for (std::size_t i = 0; i < fast.size(); ++i) {
            CHECK(fast[i].address == expected[i].address);
            CHECK(fast[i].sector_mask == expected[i].sector_mask);
            CHECK(fast[i].lanes == expected[i].lanes);
        }
        transactions += fast.size();
        multi += fast.size() > 16 ? 1 : 0;
        few += fast.size() <= 2 ? 1 : 0;
    }
    // The random warps reach the table's clashes and its linear search: many transactions per warp.
    CHECK(multi > 500);
    CHECK(transactions > 40000);
    // And the first attempt for warps of one or two transactions.
    CHECK(few > 400);
}

TEST_CASE("coalesce's attempt for at most two transactions gives up on a third line or a misaligned lane, late") {
    std::vector<LineTransaction> out;
    auto check = [&](std::size_t i, std::uint64_t address, std::uint32_t sectors, std::uint32_t lanes) {
        INFO("transaction " << i);
        REQUIRE(i < out.size());
        CHECK(out[i].address == address);
        CHECK(out[i].sector_mask == sectors);
        CHECK(out[i].lanes == lanes);
    };
    // 31 lanes over two lines (a window shifted by one word), then the last lane elsewhere: three transactions.
    std::vector<std::uint64_t> addresses(32);
    for (std::size_t lane = 0; lane < 32; ++lane) addresses[lane] = 0x1000 - 4 + 4 * lane;
    addresses[31] = 0x8000 + 36;
    Access third(1, addresses);
    coalesce(third.access, 128, 32, out);
    CHECK(out.size() == 3);
    check(0, 0xF80, 0x8, 1);
    check(1, 0x1000, 0xF, 30);
    check(2, 0x8000, 0x2, 1);
    // One line, but the last lane's word is misaligned and straddles two sectors: the mask has both.
    for (std::size_t lane = 0; lane < 32; ++lane) addresses[lane] = 0x2000;
    addresses[31] = 0x2000 + 30;
    Access misaligned(1, addresses);
    coalesce(misaligned.access, 128, 32, out);
    CHECK(out.size() == 1);
    check(0, 0x2000, 0x3, 32);
    // Two lines in the order of first touch: the higher line first.
    for (std::size_t lane = 0; lane < 32; ++lane) addresses[lane] = lane < 16 ? 0x3080 + 4 * lane : 0x3000 + 4 * lane;
    Access reversed(1, addresses);
    coalesce(reversed.access, 128, 32, out);
    CHECK(out.size() == 2);
    check(0, 0x3080, 0x3, 16);
    check(1, 0x3000, 0xC, 16);
}

// The first attempt (detail::unit_stride_or_broadcast) takes whole warps of consecutive aligned words or of one word,
// and answers exactly as the plain rule; it leaves every other warp to the later passes, `out` untouched.
TEST_CASE("whole warps of unit stride or one address coalesce from their end lanes, and only those") {
    std::vector<LineTransaction> out;
    auto taken = [&](std::vector<std::uint64_t> addresses, std::uint32_t bytes, std::uint32_t granularity = 128,
                     std::uint32_t sector = 32) {
        Access a(1, std::move(addresses), gpuarch::ir::StateSpace::global, WarpAccess::load, bytes);
        out.clear();
        const bool fast = detail::unit_stride_or_broadcast(a.access, granularity, sector, out);
        if (!fast) {
            CHECK(out.empty());
            return false;
        }
        const auto expected = coalesce_reference(a.access, granularity, sector);
        REQUIRE(out.size() == expected.size());
        for (std::size_t i = 0; i < out.size(); ++i) {
            INFO("transaction " << i);
            CHECK(out[i].address == expected[i].address);
            CHECK(out[i].sector_mask == expected[i].sector_mask);
            CHECK(out[i].lanes == expected[i].lanes);
        }
        return true;
    };
    CHECK(taken(strided(0x1000, 4), 4)); // one line, four sectors
    CHECK(taken(strided(0x1000 + 36, 4), 4)); // a shifted window: two lines, 23 and 9 lanes
    CHECK(taken(strided(0x2040, 0), 4)); // a broadcast: one sector, every lane
    CHECK(taken(strided(0x3000, 8), 8)); // 8-byte words: two lines of 16 lanes
    CHECK(taken(strided(0x4000, 4, 64), 4)); // a 64-lane warp: two lines
    CHECK(taken(strided(0x5000 + 16, 1), 1, 64, 16)); // Southern Islands' lines, bytes
    CHECK(out.size() == 1);
    CHECK(out[0].sector_mask == 0x6); // bytes 16..47 of the line: sectors 1 and 2 (of 0..3)

    CHECK_FALSE(taken(strided(0x1000, 8), 4)); // stride 8 of 4-byte words
    CHECK_FALSE(taken(strided(0x1002, 4), 4)); // misaligned
    CHECK_FALSE(taken(strided(0x1000, 16), 16, 128, 8)); // a word wider than a sector
    CHECK_FALSE(taken(strided(0x1000 + 64, 8, 64), 8)); // 512 bytes from mid-line: five lines
    CHECK_FALSE(taken(strided(~std::uint64_t{0} - 63, 4), 4)); // wraps round the address space
    std::vector<std::uint64_t> one_off = strided(0x1000, 4);
    one_off[17] += 4;
    CHECK_FALSE(taken(one_off, 4)); // one lane out of step
    std::vector<std::uint64_t> reversed = strided(0x1000, 4);
    std::reverse(reversed.begin(), reversed.end());
    CHECK_FALSE(taken(reversed, 4)); // descending: the general passes keep its order of first touch
    Access partial(1, strided(0x1000, 4), gpuarch::ir::StateSpace::global, WarpAccess::load, 4);
    partial.access.active.reset(5);
    out.clear();
    CHECK_FALSE(detail::unit_stride_or_broadcast(partial.access, 128, 32, out)); // a lane inactive
}
