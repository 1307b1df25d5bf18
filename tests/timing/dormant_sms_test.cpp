// Dormant SMs (sm.hpp, skips_dormant_cycles; issue 23): an SM without a CTA and with nothing in flight only counts
// its cycles, and accounts for them in bulk (settle_dormant) when something reads or wakes it. The full scans
// (tests/support/full_scan.hpp) never replay quiet cycles, so they never skip one: any difference in cycles or in
// any statistic is an error of the bulk accounting. The schedulers with state are compared on GTX480 by
// quiet_replay_stateful_test.cpp (CCWS's hook decays by each skipped cycle's now()); this file adds the stateless
// ones and OAWS, and checks that the skip happens at all.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "../support/full_scan.hpp"

#include <gpuarch/machines.hpp>
#include <gpuarch/sched/gto.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sched/oaws.hpp>

using namespace gpuarch;
using gpuarch::test_support::check_replay_matches_full_scan;

TEST_CASE("quiet replay: dormant SMs give the full scan's cycles and statistics (GTX480: GTO, LRR, OAWS)") {
    for (const char* kernel : test_support::quiet_replay_kernels) {
        check_replay_matches_full_scan<machines::GTX480, sched::GTO>("gtx480", kernel);
        check_replay_matches_full_scan<machines::GTX480, sched::LRR>("gtx480", kernel);
        check_replay_matches_full_scan<machines::GTX480, sched::OAWSDynamic<>>("gtx480", kernel);
    }
}

// About 80% of atax's SM-cycles have no CTA (3 of 15 SMs busy): most must be skipped, by a stateless scheduler and
// by one with a quiet-cycle hook alike.
TEST_CASE("an SM that a small grid leaves without work is dormant for most of the run (GTX480, atax: GTO, OAWS)") {
    for (const auto& share : {test_support::skipped_share_of_atax<sched::GTO>(),
                              test_support::skipped_share_of_atax<sched::OAWSDynamic<>>()}) {
        // Not a structured binding: clang 14 does not let INFO's lambda capture one.
        const std::uint64_t dormant = share.first, cycles = share.second;
        INFO(dormant << " dormant of " << cycles << " SM-cycles");
        CHECK(dormant > cycles / 2);
        CHECK(dormant < cycles);
    }
}

// Stalled sleep (SM::waits_on_l1): an SM whose CTAs all wait while its L1 retries a load that cannot start (no MSHR,
// no merge slot, no reservable way) sleeps until a fill or a completion. At the corpus's small sizes bfs and bicg
// stall so on the GTX480 (two thirds and four fifths of their stalled L1 cycles are slept): their statistics must
// equal the full scans' (bfs is also among quiet_replay_kernels), and the sleep must happen, only in such stall
// cycles (the first cycle of each stall is not slept).
TEST_CASE("quiet replay: an SM whose L1 repeats a stall sleeps through it (GTX480, bfs and bicg: GTO, OAWS)") {
    check_replay_matches_full_scan<machines::GTX480, sched::GTO>("gtx480", "bicg");
    check_replay_matches_full_scan<machines::GTX480, sched::OAWSDynamic<>>("gtx480", "bicg");
    for (const char* kernel : {"bfs", "bicg"}) {
        for (const auto& c : {test_support::skipped_cycles_on_gtx480<sched::GTO>(kernel),
                              test_support::skipped_cycles_on_gtx480<sched::OAWSDynamic<>>(kernel)}) {
            INFO(std::string(kernel) << ": " << c.slept_on_l1 << " slept on the L1 of " << c.l1_stalled
                                     << " L1 cycles stalled for an MSHR or a way");
            CHECK(c.slept_on_l1 > c.l1_stalled / 2);
            CHECK(c.slept_on_l1 < c.l1_stalled);
            CHECK(c.slept_on_l1 < c.skipped);
        }
    }
}

namespace {
// Each warp loads 32 lines at once (every lane its own 4 KiB page), which exhausts the L1's MSHRs, while its
// independent ex2 instructions queue for the SFU: SFU instructions wait to dispatch during the L1's stalls.
const char* const loads_and_sfu_ptx = R"(.version 8.0
.target sm_75
.address_size 64
.visible .entry loads_and_sfu(.param .u64 buf)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<16>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [buf];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mad.lo.u32 %r3, %r2, 256, %r1;
  mul.wide.u32 %rd2, %r3, 4096;
  add.u64 %rd3, %rd1, %rd2;
  cvt.rn.f32.u32 %f1, %r1;
  mov.f32 %f9, 0f00000000;
  mov.u32 %r4, 0;
LOOP:
  ld.global.f32 %f2, [%rd3];
  ex2.approx.f32 %f3, %f1;
  ex2.approx.f32 %f4, %f1;
  ex2.approx.f32 %f5, %f1;
  ex2.approx.f32 %f6, %f1;
  add.f32 %f9, %f9, %f3;
  add.f32 %f9, %f9, %f4;
  add.f32 %f9, %f9, %f5;
  add.f32 %f9, %f9, %f6;
  add.f32 %f9, %f9, %f2;
  add.u64 %rd3, %rd3, 128;
  add.u32 %r4, %r4, 1;
  setp.lt.u32 %p1, %r4, 8;
  @%p1 bra LOOP;
  st.global.f32 [%rd3], %f9;
  ret;
}
)";

template <class Machine, class Gpu> LaunchResult run_loads_and_sfu() {
    func::Device device;
    const auto module = func::Module::from_string(loads_and_sfu_ptx, "loads_and_sfu.ptx");
    auto gpu = std::make_unique<Gpu>(Machine::template config<Gpu>());
    const func::DevPtr buffer = device.malloc(std::size_t{32} << 20);
    TimingOptions options;
    options.registers_per_thread = 16;
    return gpu->launch(device, module, "loads_and_sfu", func::LaunchConfig{{30, 1, 1}, {256, 1, 1}, 0},
                       func::Args(buffer), options);
}
} // namespace

// An SFU instruction waiting for its unit dispatches when the unit frees, whatever the L1 does: an SM holding one
// must not sleep. On Fermi the SFU frees 8 cycles after a dispatch and completes 35 cycles after it (4 lanes,
// latency 28), so a sleep until the completion would dispatch the waiting one late; on the GTX480 both come after 8.
template <class Machine> void check_loads_and_sfu() {
    const LaunchResult shipped = run_loads_and_sfu<Machine, typename Machine::template gpu<sched::GTO>>();
    const LaunchResult scanned =
        run_loads_and_sfu<Machine, typename Machine::template gpu<test_support::FullScan<sched::GTO>>>();
    CHECK(shipped.cycles == scanned.cycles);
    CHECK(shipped.stats == scanned.stats);
    CHECK(shipped.stats.counter("sm.l1.ldst_mshr_cycles") > shipped.cycles); // the L1s stall for most of the run
}
TEST_CASE("quiet replay: an SM with an ALU instruction waiting to dispatch does not sleep on its L1 (GTO)") {
    check_loads_and_sfu<machines::GTX480>();
    check_loads_and_sfu<machines::Fermi>();
}

// Sleep while waiting for responses (SM::waits_on_l1, L1Unit::waits_for_responses): an SM whose warps all wait on
// loads, barriers or exec results while its LSU is empty sleeps until a response reaches its L1 or a completion comes
// due. Its cycles and statistics must equal the full scans' (which never sleep; on GTX480 the first test case above
// compares all of quiet_replay_kernels), and the sleep must happen: from 3% (atax, whose LSU is rarely empty) to 20%
// (reduce_shared) of these kernels' SM-cycles at the small size.
TEST_CASE("quiet replay: an SM whose LSU is empty sleeps until a response arrives (Fermi, Kepler, GTX480: GTO)") {
    for (const char* kernel : {"vector_add", "atax", "sgemm_tiled"}) {
        check_replay_matches_full_scan<machines::Fermi, sched::GTO>("fermi", kernel);
        check_replay_matches_full_scan<machines::Kepler, sched::GTO>("kepler", kernel);
    }
    for (const std::string kernel : {"vector_add", "atax", "bicg", "sgemm_tiled", "kmeans_assign", "reduce_shared"}) {
        const auto c = test_support::skipped_cycles_on_gtx480<sched::GTO>(kernel.c_str());
        INFO(kernel << ": " << c.slept_waiting << " SM-cycles slept waiting for responses, " << c.slept_on_l1
                    << " on a stalled L1, " << c.skipped << " counted in bulk of " << c.cycles);
        CHECK(c.slept_waiting > c.cycles / 50);
        CHECK(c.slept_waiting + c.slept_on_l1 < c.skipped);
    }
}
