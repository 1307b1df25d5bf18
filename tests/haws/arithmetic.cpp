// The thesis's arithmetic: Fig. 5.9 (static scheduling vs HAWS) and the Sec. 5.3.6 storage estimate.
#include <doctest/doctest.h>

#include <gpuarch/sched/haws.hpp>

#include <array>

using namespace gpuarch;

TEST_CASE("Fig. 5.9: normal 53t, static schedules 48t and 47t, HAWS 45t") {
    // Three blocks of 15t; stall 1 is 5t, stall 2 is 3t; independent code c = 5t (block 2) and f = 3t (block 3).
    constexpr std::uint64_t work = 3 * 15;
    constexpr std::array<std::uint64_t, 2> stalls{5, 3};
    constexpr std::array<std::uint64_t, 2> independent{5, 3};
    CHECK(sched::overlapped_time(work, stalls, {0, 0}) == 53); // A: in program order
    CHECK(sched::overlapped_time(work, stalls, {5 + 3, 0}) == 48); // B: c and f both after stall 1
    CHECK(sched::overlapped_time(work, stalls, {3, 2 + 3}) == 47); // C: c1 = 3t at stall 1, c2 + f = 5t at stall 2
    constexpr auto fills = sched::haws_fills(stalls, independent);
    CHECK(fills == std::array<std::uint64_t, 2>{5, 3});
    CHECK(sched::overlapped_time(work, stalls, fills) == 45); // D: HAWS, c covers stall 1, f covers stall 2
    // HAWS never runs more than the stall: a longer group leaves the rest for in-order execution.
    CHECK(sched::haws_fills(stalls, std::array<std::uint64_t, 2>{9, 1}) == std::array<std::uint64_t, 2>{5, 1});
}

TEST_CASE("Sec. 5.3.6: HAWS storage is 7.34 KB per SM for 40 warps and an 8-entry RCU") {
    constexpr auto cost = sched::haws_hardware_cost();
    CHECK(cost.rcu_bits == 8960); // 40 x 8 x 28
    CHECK(cost.simt_copy_bits == 40960); // 40 x 8 x (64 + 32 + 32)
    CHECK(cost.rename_bits == 10240); // 40 x 2 tables x 8 x 16
    CHECK(cost.total_bits() == 60160);
    CHECK(cost.total_bytes() == 7520);
    CHECK(cost.total_kib_hundredths() == 734);
    // The cost scales with the knobs: a 32-wide Kepler mask and 64 warps.
    constexpr auto kepler = sched::haws_hardware_cost(sched::HawsCostParams{64, 8, 8, 32, 32, 8});
    CHECK(kepler.simt_copy_bits == 64ULL * 8 * 96);
    CHECK(kepler.rcu_bits == 64ULL * 8 * 28);
}

TEST_CASE("rename tables keep the latest mapping and hold as many entries as the RCU") {
    sched::RenameTable<2> t;
    CHECK(t.lookup(5) == 5);
    CHECK(t.map(5, 100));
    CHECK(t.map(5, 101)); // a later rename of r5 replaces the older one
    CHECK(t.lookup(5) == 101);
    CHECK(t.map(6, 102));
    CHECK_FALSE(t.map(7, 103));
    CHECK(t.size() == 2);
}

TEST_CASE("the SIMT-stack copy refuses a stack deeper than its entries") {
    sched::SimtStackCopy<2> copy;
    std::vector<func::SimtEntry> stack(2);
    stack[1].pc = 7;
    CHECK(copy.take(stack));
    CHECK(copy.size() == 2);
    CHECK(copy[1].pc == 7);
    stack.resize(3);
    CHECK_FALSE(copy.take(stack));
}

TEST_CASE("a Format 2 hint follows the path the branch took") {
    ir::InstructionHint h;
    h.format = ir::InstructionHint::Format::format2;
    h.f2.taken_offset = 9;
    h.f2.not_taken_offset = 4;
    CHECK(sched::next_hint_offset(h, 20, 21) == 4);
    CHECK(sched::next_hint_offset(h, 20, 40) == 9);
    h.format = ir::InstructionHint::Format::none;
    CHECK(sched::next_hint_offset(h, 20, 21) == 0);
}
