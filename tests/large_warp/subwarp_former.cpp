// The sub-warping logic of the Large Warp Microarchitecture on its own (Narasiman 2010, Sec. 3.1.1 and 3.1.2):
// Fig. 7's example, the jump and memory-divergence optimizations, and the packing laws on many masks.
#include <doctest/doctest.h>

#include <gpuarch/frontend/large_warp.hpp>

#include <array>
#include <cstdint>
#include <vector>

namespace {
using namespace gpuarch;
using frontend::SubWarpMode;

// Fig. 7's text: "a large warp of 32 threads executing on a core with a SIMD width of four". The figure's bits are
// not in the text; this mask has 2 active threads in every row and 4 in every column, so the baseline forms eight
// half-empty 4-thread warps while packing forms four full sub-warps.
constexpr std::array<std::uint8_t, 8> fig7_rows{0b0011, 0b1100, 0b0101, 0b1010, 0b1001, 0b0110, 0b0011, 0b1100};

template <std::size_t Rows, std::size_t Columns>
core::LargeWarpMask<Rows, Columns> mask_of(const std::array<std::uint8_t, Rows>& rows) {
    core::LargeWarpMask<Rows, Columns> m;
    for (std::size_t r = 0; r < Rows; ++r)
        for (std::size_t c = 0; c < Columns; ++c)
            if ((rows[r] >> c) & 1U) m.set(r, c);
    return m;
}

template <class Former> std::vector<typename Former::Result> drain(Former& f) {
    std::vector<typename Former::Result> out;
    while (f.busy()) out.push_back(f.next());
    return out;
}
} // namespace

TEST_CASE("Fig. 7: a 32-thread large warp on 4 lanes breaks into 4 full sub-warps over 4 cycles instead of 8 warps") {
    using Lwm = frontend::LargeWarpFrontend<32, 4>;
    static_assert(Lwm::rows == 8 && Lwm::simd_width == 4);
    const auto mask = mask_of<8, 4>(fig7_rows);
    REQUIRE(mask.popcount() == 16);

    Lwm::Former former;
    former.start(mask, SubWarpMode::packed);
    // One sub-warp per cycle; the fetch stall signal stays up while bits remain in the copy.
    std::vector<bool> stall_after;
    std::vector<Lwm::Former::Result> subwarps;
    while (former.busy()) {
        subwarps.push_back(former.next());
        stall_after.push_back(former.busy());
    }
    REQUIRE(subwarps.size() == 4);
    CHECK(stall_after == std::vector<bool>{true, true, true, false});
    // Lowest row first per column (the documented default): the row IDs each cycle creates.
    const std::array<std::array<std::uint16_t, 4>, 4> expected_rows{
        {{0, 0, 1, 1}, {2, 3, 2, 3}, {4, 5, 5, 4}, {6, 6, 7, 7}}};
    for (std::size_t k = 0; k < 4; ++k) {
        CHECK(subwarps[k].lanes == core::LaneMask<4>::all());
        CHECK(subwarps[k].row == expected_rows[k]);
        CHECK_FALSE(subwarps[k].whole_warp);
    }
    // The baseline (a 4-thread warp per row) runs eight warps with two active threads each.
    using Baseline = frontend::LargeWarpFrontend<4, 4>;
    static_assert(Baseline::rows == 1);
    unsigned baseline_warps = 0;
    for (std::uint8_t row : fig7_rows) {
        Baseline::Former f;
        f.start(core::LargeWarpMask<1, 4>(core::LaneMask<4>::from_word(row)), SubWarpMode::packed);
        const auto one = drain(f);
        baseline_warps += static_cast<unsigned>(one.size());
        CHECK(one.front().lanes.popcount() == 2);
    }
    CHECK(baseline_warps == 8);
}

TEST_CASE("the row priority knob decides which row a column gives up first, not how many sub-warps form") {
    using High = frontend::LargeWarpFrontend<32, 4, frontend::RowPick<frontend::RowPriority::highest_first>>;
    static_assert(High::name == "LWM32/4lanes-highrow");
    High::Former former;
    former.start(mask_of<8, 4>(fig7_rows), SubWarpMode::packed);
    const auto subwarps = drain(former);
    REQUIRE(subwarps.size() == 4);
    CHECK(subwarps[0].row == std::array<std::uint16_t, 4>{6, 6, 7, 7});
    CHECK(subwarps[3].row == std::array<std::uint16_t, 4>{0, 0, 1, 1});
}

TEST_CASE("a fully populated 256-thread large warp on 32 lanes executing a jump makes 1 sub-warp instead of 8") {
    using Lwm = frontend::LargeWarpFrontend<256, 32>;
    const core::LargeWarpMask<8, 32> full(core::LaneMask<256>::all());
    ir::Instruction jump;
    jump.op = ir::Opcode::bra;
    jump.op_class = ir::OpClass::branch;
    REQUIRE(Lwm::mode_for(jump, ir::StateSpace::none) == SubWarpMode::single);
    CHECK(Lwm::Former::count(full, SubWarpMode::single) == 1);
    CHECK(Lwm::Former::count(full, SubWarpMode::packed) == 8); // Sec. 3.1.2: "saves 7 cycles"

    Lwm::Former former;
    former.start(full, SubWarpMode::single);
    const auto sw = former.next();
    CHECK_FALSE(former.busy());
    CHECK(sw.whole_warp);
    CHECK(sw.lanes == core::LaneMask<32>::all());

    // A guarded branch is conditional: it is packed like any other instruction.
    ir::Instruction guarded = jump;
    guarded.guard.reg = 3;
    CHECK(Lwm::mode_for(guarded, ir::StateSpace::none) == SubWarpMode::packed);
    // Without the optimization a jump is packed too.
    using NoJump = frontend::LargeWarpFrontend<256, 32, frontend::SingleSubWarpJumps<false>>;
    CHECK(NoJump::mode_for(jump, ir::StateSpace::none) == SubWarpMode::packed);
    static_assert(NoJump::name == "LWM256-nojumpopt");
}

TEST_CASE("global-memory instructions form one sub-warp per non-empty row; other spaces are packed") {
    using Lwm = frontend::LargeWarpFrontend<64, 32>;
    ir::Instruction load;
    load.op = ir::Opcode::ld;
    load.op_class = ir::OpClass::load_global;
    CHECK(Lwm::mode_for(load, ir::StateSpace::global) == SubWarpMode::row_wise);
    CHECK(Lwm::mode_for(load, ir::StateSpace::shared) == SubWarpMode::packed);
    using NoMem = frontend::LargeWarpFrontend<64, 32, frontend::RowWiseGlobalMemory<false>>;
    CHECK(NoMem::mode_for(load, ir::StateSpace::global) == SubWarpMode::packed);

    // Row 0 holds lanes 0-15, row 1 lanes 16-31: packing merges them into one sub-warp of non-consecutive threads,
    // row-wise keeps the two rows apart (the memory divergence the optimization avoids).
    core::LargeWarpMask<2, 32> mask;
    for (std::size_t c = 0; c < 16; ++c) mask.set(0, c);
    for (std::size_t c = 16; c < 32; ++c) mask.set(1, c);
    CHECK(Lwm::Former::count(mask, SubWarpMode::packed) == 1);
    Lwm::Former former;
    former.start(mask, SubWarpMode::row_wise);
    const auto subwarps = drain(former);
    REQUIRE(subwarps.size() == 2);
    CHECK(subwarps[0].lanes.popcount() == 16);
    CHECK(subwarps[0].lanes.test(0));
    CHECK(subwarps[0].row[0] == 0);
    CHECK(subwarps[1].lanes.test(31));
    CHECK(subwarps[1].row[31] == 1);
}

TEST_CASE("Sec. 3.3: the extra storage of 256-thread large warps is 768 bits; the baseline needs none") {
    using Lwm256 = frontend::LargeWarpFrontend<256, 32>;
    CHECK(Lwm256::active_mask_copy_bits == 256);
    CHECK(Lwm256::branch_buffer_bits == 512);
    CHECK(Lwm256::extra_storage_bits == 768);
    CHECK(Lwm256::extra_storage_bits / 8 == 96);
    CHECK(Lwm256::Former::copy_bits == 256);
    CHECK(frontend::LargeWarpFrontend<512, 32>::extra_storage_bits == 1536);
    CHECK(frontend::LargeWarpFrontend<32, 32>::extra_storage_bits == 0);
    static_assert(Lwm256::name == "LWM256");
    static_assert(frontend::LargeWarpFrontend<32, 32>::name == "Warp32");
    static_assert(Lwm256::max_warps == 4, "Sec. 6.1: 4 large warps of 256 threads");
    static_assert(frontend::LargeWarpFrontend<32, 32>::max_warps == 32, "Sec. 6.1: 32 warps of 32 threads");
}

TEST_CASE("packing places every active thread exactly once, one per lane, in max-column-popcount sub-warps") {
    using Former = frontend::SubWarpFormer<8, 32>;
    std::uint64_t state = 0x1234'5678'9abc'def1ULL;
    auto next = [&state] {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return state >> 17;
    };
    for (int trial = 0; trial < 200; ++trial) {
        core::LaneMask<256> flat;
        const unsigned density = static_cast<unsigned>(trial % 8) + 1; // 1/8 .. 8/8 of the threads active
        for (std::size_t t = 0; t < 256; ++t)
            if (next() % 8 < density) flat.set(t);
        const core::LargeWarpMask<8, 32> mask(flat);
        std::size_t worst_column = 0;
        for (std::size_t c = 0; c < 32; ++c) worst_column = std::max(worst_column, mask.column(c).popcount());

        Former former;
        former.start(mask, SubWarpMode::packed);
        core::LaneMask<256> seen;
        std::size_t subwarps = 0;
        bool exact = true;
        while (former.busy()) {
            const auto sw = former.next();
            ++subwarps;
            for (std::size_t lane : sw.lanes.set_lanes()) {
                const std::size_t t = sw.thread(lane);
                exact = exact && flat.test(t) && !seen.test(t) && t % 32 == lane;
                seen.set(t);
            }
        }
        CHECK(exact);
        CHECK(seen == flat);
        CHECK(subwarps == worst_column);
        CHECK(subwarps == Former::count(mask, SubWarpMode::packed));
        CHECK(subwarps * 32 >= flat.popcount()); // never better than fully packed
    }
}
