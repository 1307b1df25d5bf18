// Exact cycle counts for hand-written PTX micro-kernels whose timing follows from the pipeline contract in
// sm.hpp, exec/simd_exec.hpp and regfile/ideal_rf.hpp:
//   cycle 0 fetches; an instruction fetched in cycle t can issue from t+1; IdealRF dispatches at issue+1;
//   an ALU result is ready at dispatch + latency + occupancy - 1 and releases its dependants that cycle;
//   the launch ends in the cycle its last instruction retires, and `cycles` counts cycles 0..that one.
#include <doctest/doctest.h>

#include <gpuarch/exec/simd_exec.hpp>
#include <gpuarch/frontend/fermi.hpp>
#include <gpuarch/frontend/kepler.hpp>
#include <gpuarch/func/device.hpp>
#include <gpuarch/func/module.hpp>
#include <gpuarch/gpu.hpp>
#include <gpuarch/mem/ideal_memory.hpp>
#include <gpuarch/regfile/ideal_rf.hpp>
#include <gpuarch/sched/gto.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sched/two_level.hpp>

#include <string>

namespace {
using namespace gpuarch;

template <class Frontend, class Scheduler = sched::GTO>
using IdealSM = SM<Frontend, Scheduler, regfile::IdealRF, exec::SimdExec, mem::IdealMemory<20>>;

// N dependent adds after a mov, then ret.
std::string dependent_chain(int n) {
    std::string body;
    for (int i = 0; i < n; ++i) body += "  add.s32 %r1, %r1, 1;\n";
    return ".version 8.0\n.target sm_75\n.address_size 64\n"
           ".visible .entry chain()\n{\n  .reg .b32 %r<4>;\n  mov.u32 %r1, %tid.x;\n" +
           body + "  ret;\n}\n";
}

// N independent adds per thread (into 4 rotating registers), then ret.
std::string independent_adds(int n) {
    std::string body;
    for (int i = 0; i < n; ++i)
        body += "  add.s32 %r" + std::to_string(i % 4 + 1) + ", %r0, " + std::to_string(i) + ";\n";
    return ".version 8.0\n.target sm_75\n.address_size 64\n"
           ".visible .entry indep()\n{\n  .reg .b32 %r<8>;\n  mov.u32 %r0, %tid.x;\n" +
           body + "  ret;\n}\n";
}

template <class SMType>
LaunchResult run(const std::string& ptx, const char* entry, unsigned threads, unsigned ctas = 1) {
    func::Device device;
    const auto module = func::Module::from_string(ptx, "micro.ptx");
    GPU<SMType, 1> gpu;
    TimingOptions options;
    options.registers_per_thread = 8;
    return gpu.launch(device, module, entry, func::LaunchConfig{{ctas, 1, 1}, {threads, 1, 1}, 0}, func::Args{},
                      options);
}
} // namespace

TEST_CASE("a chain of N dependent adds on Kepler takes 12 cycles per add (latency 11 + dispatch)") {
    // mov issues at 1 and every dependant 12 cycles later; the last add issues at 1 + 12N with the
    // independent ret beside it (dual issue), and both retire at 13 + 12N.
    for (int n : {1, 2, 5, 10}) {
        const auto r = run<IdealSM<frontend::KeplerFrontend>>(dependent_chain(n), "chain", 32);
        CHECK(r.cycles == 14 + 12 * n);
        CHECK(r.warp_instructions == static_cast<std::uint64_t>(n + 2));
        CHECK(r.thread_instructions == static_cast<std::uint64_t>(32 * (n + 2)));
    }
}

TEST_CASE("a chain of N dependent adds on Fermi takes 24 cycles per add (latency 22 + two 16-lane passes)") {
    // No dual issue on Fermi. mov: issue 1, dispatch 2, 16-lane SP group busy until 4, ready 2 + 22 + 2 - 1 = 25;
    // add_k issues at 1 + 24k and dispatches at 2 + 24k. The ret (control runs on the SP group) issues at
    // 2 + 24N, waits for the group until 4 + 24N, and is ready at 4 + 24N + 23 = 27 + 24N: 28 + 24N cycles.
    for (int n : {1, 3, 8}) {
        const auto r = run<IdealSM<frontend::FermiFrontend>>(dependent_chain(n), "chain", 32);
        CHECK(r.cycles == 28 + 24 * n);
    }
}

TEST_CASE("two runs of the same launch give identical cycles and statistics") {
    const auto a = run<IdealSM<frontend::KeplerFrontend>>(independent_adds(40), "indep", 256, 4);
    const auto b = run<IdealSM<frontend::KeplerFrontend>>(independent_adds(40), "indep", 256, 4);
    CHECK(a.cycles == b.cycles);
    CHECK(a.stats == b.stats);
}

namespace {
std::string ptx_header() { return ".version 8.0\n.target sm_75\n.address_size 64\n"; }

// N independent adds into distinct registers, all reading the mov result, then ret.
std::string distinct_adds(int n) {
    std::string body;
    for (int i = 0; i < n; ++i) body += "  add.s32 %r" + std::to_string(i + 1) + ", %r0, " + std::to_string(i) + ";\n";
    return ptx_header() + ".visible .entry adds()\n{\n  .reg .b32 %r<" + std::to_string(n + 2) +
           ">;\n  mov.u32 %r0, %tid.x;\n" + body + "  ret;\n}\n";
}

// N independent sin.approx into distinct registers after one cvt.
std::string sfu_stream(int n) {
    std::string body;
    for (int i = 0; i < n; ++i) body += "  sin.approx.f32 %f" + std::to_string(i + 1) + ", %f0;\n";
    return ptx_header() + ".visible .entry sfu()\n{\n  .reg .b32 %r<2>;\n  .reg .f32 %f<" + std::to_string(n + 2) +
           ">;\n  mov.u32 %r0, %tid.x;\n  cvt.rn.f32.u32 %f0, %r0;\n" + body + "  ret;\n}\n";
}

// Warp 0 runs K dependent adds before the barrier, warp 1 none; after it both do one dependent add.
std::string barrier_kernel(int k) {
    std::string chain;
    for (int i = 0; i < k; ++i) chain += "  add.s32 %r1, %r1, 1;\n";
    return ptx_header() +
           ".visible .entry bar()\n{\n  .reg .b32 %r<4>;\n  .reg .pred %p<2>;\n"
           "  mov.u32 %r1, %tid.x;\n  setp.ge.u32 %p1, %r1, 32;\n  @%p1 bra WAIT;\n" +
           chain + "WAIT:\n  bar.sync 0;\n  add.s32 %r2, %r1, 7;\n  ret;\n}\n";
}

// Lanes 0-15 take a path of A adds, lanes 16-31 a path of B adds; then one common add.
std::string if_else(int a, int b) {
    std::string then_path, else_path;
    for (int i = 0; i < a; ++i) then_path += "  add.s32 %r2, %r2, 1;\n";
    for (int i = 0; i < b; ++i) else_path += "  add.s32 %r2, %r2, 2;\n";
    return ptx_header() +
           ".visible .entry diverge()\n{\n  .reg .b32 %r<4>;\n  .reg .pred %p<2>;\n"
           "  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, 0;\n  setp.lt.u32 %p1, %r1, 16;\n  @%p1 bra ELSE;\n" +
           then_path + "  bra.uni END;\nELSE:\n" + else_path + "END:\n  add.s32 %r3, %r2, %r1;\n  ret;\n}\n";
}

using KeplerLowestIndex = frontend::KeplerFrontendT<timing::SharedUnitPartitioning::lowest_index>;
} // namespace

TEST_CASE("Kepler dual-issues two independent instructions of one warp per cycle") {
    // lowest-index partitioning gives scheduler 0 three full 32-lane SP units. mov: issue 1, ready 13; then adds
    // issue in pairs, one pair per cycle from cycle 13; the ret issues the cycle after the last pair and
    // retires at 25 + N/2 (BRU latency 11 after dispatch): 26 + N/2 cycles.
    for (int n : {4, 20, 40}) {
        const auto r = run<IdealSM<KeplerLowestIndex>>(distinct_adds(n), "adds", 32);
        CHECK(r.cycles == static_cast<core::Cycle>(26 + n / 2));
        CHECK(r.stats.counter("sm.dual_issues") == static_cast<std::uint64_t>(n / 2));
    }
    // Fermi never dual-issues.
    const auto fermi = run<IdealSM<frontend::FermiFrontend>>(distinct_adds(20), "adds", 32);
    CHECK(fermi.stats.counter("sm.dual_issues") == 0);
}

TEST_CASE("independent adds are bound by the 16-lane SP groups on Fermi once two warps share a scheduler") {
    // Each Fermi scheduler owns one 16-lane SP group: a warp instruction every 2 cycles. With W warps (W/2 per
    // scheduler) ten more adds per warp cost 10 * W/2 instructions per scheduler = 10 * W cycles.
    for (unsigned warps : {2U, 4U, 16U, 32U}) {
        const auto base = run<IdealSM<frontend::FermiFrontend>>(distinct_adds(20), "adds", 32 * warps);
        const auto more = run<IdealSM<frontend::FermiFrontend>>(distinct_adds(30), "adds", 32 * warps);
        CHECK(more.cycles - base.cycles == 10 * warps);
    }
}

TEST_CASE("an SFU-bound stream takes 4 cycles per op on an even slice and 1 on the whole unit") {
    // Kepler's single shared SFU: even partitioning gives each scheduler 8 of its 32 lanes (Gong 2020 Sec. 4.4.2,
    // "four consecutive cycles for a warp"); lowest-index gives the whole unit to the asking scheduler.
    const auto even5 = run<IdealSM<frontend::KeplerFrontend>>(sfu_stream(5), "sfu", 32);
    const auto even10 = run<IdealSM<frontend::KeplerFrontend>>(sfu_stream(10), "sfu", 32);
    CHECK(even10.cycles - even5.cycles == 20);
    const auto low5 = run<IdealSM<KeplerLowestIndex>>(sfu_stream(5), "sfu", 32);
    const auto low10 = run<IdealSM<KeplerLowestIndex>>(sfu_stream(10), "sfu", 32);
    CHECK(low10.cycles - low5.cycles == 5);
}

TEST_CASE("a barrier holds the fast warp until the slow warp arrives") {
    // Warp 0's chain: the last add issues at 1 + 12K (after mov, setp and the branch, see below); the barrier
    // releases when warp 0's bar.sync completes. Each extra add before the barrier delays the end by exactly
    // 12 cycles, and the barrier stall is counted.
    const auto k4 = run<IdealSM<frontend::KeplerFrontend>>(barrier_kernel(4), "bar", 64);
    const auto k9 = run<IdealSM<frontend::KeplerFrontend>>(barrier_kernel(9), "bar", 64);
    CHECK(k9.cycles - k4.cycles == 60);
    CHECK(k9.stats.counter("sm.stall.barrier") > k4.stats.counter("sm.stall.barrier"));
}

TEST_CASE("a divergent if/else runs both paths with half the lanes each") {
    const int a = 5, b = 3;
    const auto r = run<IdealSM<frontend::KeplerFrontend>>(if_else(a, b), "diverge", 32);
    // mov, mov, setp, bra (32 lanes each, the guarded bra executes on the 16 lanes that take it), then the
    // not-taken path: a adds + bra.uni (16 lanes), the taken path: b adds (16 lanes), then add + ret (32 lanes).
    CHECK(r.warp_instructions == static_cast<std::uint64_t>(4 + a + 1 + b + 2));
    CHECK(r.thread_instructions == static_cast<std::uint64_t>(3 * 32 + 16 + 16 * (a + 1) + 16 * b + 2 * 32));
}

TEST_CASE("TwoLevel with one fetch group covering every warp is cycle-identical to LRR") {
    using Lrr = IdealSM<frontend::KeplerFrontend, sched::LRR>;
    using Two = IdealSM<frontend::KeplerFrontend, sched::TwoLevel<64>>;
    for (unsigned threads : {64U, 256U, 1024U}) {
        const auto a = run<Lrr>(independent_adds(30), "indep", threads, 3);
        const auto b = run<Two>(independent_adds(30), "indep", threads, 3);
        CHECK(a.cycles == b.cycles);
        CHECK(a.stats.counter("sm.warp_instructions") == b.stats.counter("sm.warp_instructions"));
    }
}

TEST_CASE("no scheduler issues more than its dispatch width in a cycle") {
    const auto r = run<IdealSM<frontend::KeplerFrontend>>(distinct_adds(40), "adds", 1024, 2);
    // issue_slots = scheduler-cycles x width; every cycle with an issue used at most `width` slots.
    CHECK(r.stats.counter("sm.warp_instructions") <= r.stats.counter("sm.issue_slots"));
    CHECK(r.stats.counter("sm.warp_instructions") ==
          r.stats.counter("sm.stall.issued") + r.stats.counter("sm.dual_issues"));
}
