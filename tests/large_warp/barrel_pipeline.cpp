// Exact cycle counts of the strict barrel-processing core (barrel::BarrelSM on Narasiman 2010's Table 1 core), with
// and without large warps. They follow from the pipeline contract in barrel/barrel_sm.hpp:
//   a warp fetched in cycle t is decoded (and, if large, sub-warped) from t+1, one sub-warp per cycle; each
//   sub-warp spends one cycle in each of the 5 back-end stages; the warp is fetchable again the cycle after its
//   last sub-warp left writeback; fetch selects only in a cycle at whose end decode is free; the launch ends in the
//   cycle its last sub-warp leaves writeback, and `cycles` counts cycles 0..that one.
// So an instruction of s sub-warps occupies its warp for s + 6 cycles, and a one-sub-warp instruction for 7 (the
// paper's 7-stage pipeline, Sec. 6.3).
#include <doctest/doctest.h>

#include "run_helpers.hpp"

#include <gpuarch/barrel/narasiman_machine.hpp>
#include <gpuarch/sched/lrr.hpp>

#include <string>

namespace {
using namespace gpuarch;
using large_warp_test::independent_adds;
using large_warp_test::ptx_header;
using large_warp_test::run;

using Baseline = barrel::NarasimanBaseline;
using Lwm256 = barrel::NarasimanLwm256;
using Lwm256NoJump =
    barrel::Narasiman2010::gpu<256, sched::LRR, regfile::PerLaneBankedRF<>, frontend::SingleSubWarpJumps<false>>;

// mov; bra L; L: add; ret -- one unconditional jump among four instructions.
std::string jump_kernel() {
    return ptx_header() + ".visible .entry jump()\n{\n  .reg .b32 %r<4>;\n  mov.u32 %r0, %tid.x;\n  bra.uni L;\n"
                          "L:\n  add.s32 %r1, %r0, 1;\n  ret;\n}\n";
}

// A branch that splits every row of 32 threads in half, complementing halves between rows: even rows send lanes
// 0-15 down path B, odd rows lanes 16-31. Each baseline warp runs both paths half empty; a large warp packs each
// path into full sub-warps (4 per path for a 256-thread large warp: the Fig. 7 situation at full size). Path B ends
// with an unconditional jump over path A. Seven instructions before the branch, N adds per path, two after.
std::string complementary_halves(int n) {
    std::string path_a, path_b;
    for (int i = 0; i < n; ++i) path_a += "  add.s32 %r5, %r5, 1;\n";
    for (int i = 0; i < n; ++i) path_b += "  add.s32 %r5, %r5, 2;\n";
    return ptx_header() +
           ".visible .entry halves()\n{\n  .reg .b32 %r<8>;\n  .reg .pred %p<4>;\n"
           "  mov.u32 %r1, %tid.x;\n  shr.u32 %r2, %r1, 5;\n  and.b32 %r2, %r2, 1;\n"
           "  and.b32 %r3, %r1, 31;\n  setp.lt.u32 %p1, %r3, 16;\n  selp.u32 %r4, 1, 0, %p1;\n"
           "  setp.eq.u32 %p2, %r2, %r4;\n  @%p2 bra A;\n" +
           path_b + "  bra.uni J;\nA:\n" + path_a + "J:\n  add.s32 %r6, %r5, 3;\n  ret;\n}\n";
}
} // namespace

TEST_CASE("a lone warp of the barrel core is fetched again 7 cycles after it was fetched: N instructions take 7N") {
    for (int adds : {1, 5, 10}) {
        const auto r = run<Baseline>(independent_adds(adds), "adds", 32);
        const int instructions = adds + 2;
        CHECK(r.cycles == 7 * static_cast<core::Cycle>(instructions));
        CHECK(r.warp_instructions == static_cast<std::uint64_t>(instructions));
        CHECK(r.thread_instructions == static_cast<std::uint64_t>(32 * instructions));
    }
}

TEST_CASE("eight warps keep the 7-stage barrel pipeline full; four leave it idle 3 cycles in 7") {
    for (int adds : {1, 5}) {
        const core::Cycle instructions = adds + 2;
        // 8 warps: one fetch per cycle, the last fetch in cycle 8I - 1 leaves writeback 6 cycles later.
        const auto eight = run<Baseline>(independent_adds(adds), "adds", 256);
        CHECK(eight.cycles == 8 * instructions + 6);
        const auto& fu = eight.stats.histogram("sm.fu_active_lanes");
        CHECK(fu[32] == static_cast<std::uint64_t>(8 * instructions));
        CHECK(fu[0] == 6);
        // 4 warps: each refetched every 7 cycles; the last is fetched at 7(I - 1) + 3.
        const auto four = run<Baseline>(independent_adds(adds), "adds", 128);
        CHECK(four.cycles == 7 * instructions + 3);
    }
}

TEST_CASE("a fully populated 256-thread large warp takes 8 sub-warps and 14 cycles per instruction") {
    for (int adds : {1, 5}) {
        const core::Cycle instructions = adds + 2;
        const auto one = run<Lwm256>(independent_adds(adds), "adds", 256);
        CHECK(one.cycles == 14 * instructions);
        CHECK(one.warp_instructions == static_cast<std::uint64_t>(8 * instructions)); // sub-warps
        CHECK(one.thread_instructions == static_cast<std::uint64_t>(256 * instructions));
        CHECK(one.stats.histogram("sm.subwarps_per_instruction")[8] == static_cast<std::uint64_t>(instructions));
        // The sub-warping logic asserts the fetch stall in the first 7 of the 8 sub-warping cycles.
        CHECK(one.stats.counter("sm.fetch.subwarping_stall_cycles") == static_cast<std::uint64_t>(7 * instructions));
        // Four large warps (1024 threads) keep decode busy every cycle: 32 sub-warps per instruction round.
        const auto four = run<Lwm256>(independent_adds(adds), "adds", 256, 4);
        CHECK(four.cycles == 32 * instructions + 6);
        CHECK(four.stats.histogram("sm.fu_active_lanes")[32] == static_cast<std::uint64_t>(32 * instructions));
    }
}

TEST_CASE("the unconditional-jump optimization saves exactly 7 cycles per jump of a full 256-thread large warp") {
    const auto with = run<Lwm256>(jump_kernel(), "jump", 256);
    const auto without = run<Lwm256NoJump>(jump_kernel(), "jump", 256);
    CHECK(without.cycles == 4 * 14);
    CHECK(with.cycles == 3 * 14 + 7);
    CHECK(without.cycles - with.cycles == 7);
    CHECK(with.stats.counter("sm.jump.single_subwarp") == 1);
    CHECK(with.stats.counter("sm.jump.cycles_saved") == 7);
    CHECK(without.stats.counter("sm.jump.cycles_saved") == 0);
    CHECK(with.warp_instructions == 3 * 8 + 1);
    // The jump still counts every thread's instruction, so IPC stays comparable between variants.
    CHECK(with.thread_instructions == without.thread_instructions);
    // Baseline warps are one sub-warp already: nothing to save.
    const auto base = run<Baseline>(jump_kernel(), "jump", 32);
    CHECK(base.cycles == 4 * 7);
    CHECK(base.stats.counter("sm.jump.single_subwarp") == 0);
}

TEST_CASE("large warps pack complementary half-empty rows into full sub-warps (Fig. 7 at 256 threads)") {
    for (int n : {2, 6}) {
        const std::uint64_t un = static_cast<std::uint64_t>(n);
        const auto base = run<Baseline>(complementary_halves(n), "halves", 256);
        const auto lwm = run<Lwm256>(complementary_halves(n), "halves", 256);
        // Baseline: 8 warps x (8 + n + 1 + n + 2) warp instructions, each path at 16 lanes.
        CHECK(base.warp_instructions == 8 * (11 + 2 * un));
        // Large warp: 8 instructions x 8 sub-warps before the paths, 4 full sub-warps per path instruction, the jump
        // as one sub-warp, 2 instructions x 8 after.
        CHECK(lwm.warp_instructions == 64 + 8 * un + 1 + 16);
        CHECK(lwm.thread_instructions == base.thread_instructions);
        CHECK(lwm.stats.histogram("sm.subwarps_per_instruction")[4] == 2 * un);
        // The branch: one large warp diverges once (resolved after its last sub-warp); each baseline warp diverges.
        CHECK(lwm.stats.counter("sm.branches.divergent") == 1);
        CHECK(lwm.stats.counter("sm.branches.deferred") == 1);
        CHECK(base.stats.counter("sm.branches.divergent") == 8);
        CHECK(base.stats.counter("sm.branches.deferred") == 0);
        // Active lanes per retired (sub-)warp: every large-warp sub-warp is full except those of the guarded branch,
        // whose 128 not-taken threads (guard false) do not execute it; half the baseline's path warps are empty.
        CHECK(lwm.stats.counter("sm.retired_active_lanes") == 32 * lwm.stats.counter("sm.retired_subwarps") - 128);
        CHECK(base.stats.counter("sm.retired_active_lanes") < 32 * base.stats.counter("sm.retired_subwarps"));
    }
}

TEST_CASE("with four large warps the packed paths finish sooner than 32 half-empty baseline warps") {
    const int n = 8;
    const auto base = run<Baseline>(complementary_halves(n), "halves", 256, 4);
    const auto lwm = run<Lwm256>(complementary_halves(n), "halves", 256, 4);
    // 32 baseline warps never let decode starve: cycles = warp instructions + 6.
    CHECK(base.cycles == base.warp_instructions + 6);
    // The large warps run 4 full sub-warps per path instruction instead of 8 half-empty warps.
    CHECK(lwm.warp_instructions == 4 * (64 + 8 * 8 + 1 + 16));
    CHECK(lwm.cycles < base.cycles);
    CHECK(lwm.thread_instructions == base.thread_instructions);
}

TEST_CASE("with one address decoder for all lanes, a sub-warp drawn from two rows reads its registers in 2 cycles") {
    using SingleDecoder =
        barrel::Narasiman2010::gpu<256, sched::LRR, regfile::PerLaneBankedRF<regfile::AddressDecoders::shared>>;
    const int n = 3;
    const auto banked = run<Lwm256>(complementary_halves(n), "halves", 256);
    const auto shared = run<SingleDecoder>(complementary_halves(n), "halves", 256);
    CHECK(banked.stats.counter("sm.rf.decoder_conflict_cycles") == 0);
    // Every path sub-warp (4 per instruction, 2n instructions) and the jump's sub-warp take lanes from two rows.
    CHECK(shared.stats.counter("sm.rf.decoder_conflict_cycles") == static_cast<std::uint64_t>(8 * n + 1));
    CHECK(shared.cycles > banked.cycles);
    CHECK(shared.thread_instructions == banked.thread_instructions);
}
