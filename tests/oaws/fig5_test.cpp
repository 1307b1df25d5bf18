// Wang 2016 Fig. 5 on the real SM pipeline (not a component-level model): a PTX micro-kernel on GPU<SM, 1> whose L1
// has 8 MSHR entries, over a one-partition memory system tuned so that a lone miss takes the paper's 12 cycles
// (checked below). Warps A, B, C (in age order) each run one divergent load producing 6, 6 and 2 line misses (one
// active lane per line), then a computation on the loaded value.
//
// The SM has two schedulers, like Wang's Fermi baseline (Sec. 2.1), each with its own 32-lane ALU; OAWS's per-SM
// state is shared between them (attach). A warm-up comes first: an extra, oldest warp W loads 3 lines at the same PC
// (a divergent load, which trains the divergent load classifier, Sec. 4.2: the first instance of a PC is unknown to
// it); then every warp meets at a barrier and the figure's scenario runs. Static OAWS with SMR = 100% predicts
// exactly the figure's 6, 6 and 2 entries.
//
// What the model shows (docs/oaws.md, "Fig. 5"): GTO lets B take the last two entries and replay (LDST_MSHR) with C's
// load stuck behind it; OAWS holds B back, C's load goes first and C computes while B's load is in flight. OAWS then
// issues B only once six entries are free, so B's load leaves a few cycles later than under GTO, where the replaying
// access takes each entry the cycle A's fill frees it. The run is shorter under OAWS when the computation after the
// load (here 16 instructions) outweighs that delay; with 8 or fewer instructions this model finds OAWS a few cycles
// slower.
#include <doctest/doctest.h>

#include <gpuarch/exec/simd_exec.hpp>
#include <gpuarch/func/device.hpp>
#include <gpuarch/func/module.hpp>
#include <gpuarch/gpu.hpp>
#include <gpuarch/mem/l1.hpp>
#include <gpuarch/mem/presets.hpp>
#include <gpuarch/regfile/ideal_rf.hpp>
#include <gpuarch/sched/gto.hpp>
#include <gpuarch/sched/oaws.hpp>

#include <array>
#include <string>

namespace {
using namespace gpuarch;

// Two schedulers with a private 32-lane ALU each and a short ALU latency, so that the figure's "computation" is a
// few cycles next to the 12-cycle miss penalty.
struct Fig5Frontend {
    static constexpr std::string_view name = "Fig5";
    static constexpr unsigned warp_width = 32;
    static constexpr unsigned schedulers = 2;
    static constexpr unsigned dispatch_per_scheduler = 1;
    static constexpr timing::IssueRule issue_rule = timing::IssueRule::per_scheduler;
    static constexpr unsigned max_warps = 8, max_ctas = 1, max_threads = 256, max_registers = 32768,
                              max_shared_bytes = 48 * 1024, register_allocation_unit = 64;
    static constexpr unsigned ibuffer_entries = 2, fetch_per_warp = 1;
    static constexpr auto units = std::array{
        timing::UnitSpec{timing::UnitKind::sp, 1, 32, 2, 1, false},
        timing::UnitSpec{timing::UnitKind::dp, 1, 32, 2, 1, false},
        timing::UnitSpec{timing::UnitKind::sfu, 1, 32, 2, 1, false},
        timing::UnitSpec{timing::UnitKind::ldst, 1, 32, 1, 1, false},
    };
    static constexpr timing::SharedUnitPartitioning shared_unit_partitioning = timing::SharedUnitPartitioning::even;
    static constexpr timing::UnitKind unit_for(ir::OpClass c) {
        if (c == ir::OpClass::fp64) return timing::UnitKind::dp;
        if (c == ir::OpClass::sfu) return timing::UnitKind::sfu;
        return ir::is_memory(c) ? timing::UnitKind::ldst : timing::UnitKind::sp;
    }
};

using Fig5L1 = mem::L1<mem::MSHR<8>, mem::Merges<8>, mem::Sets<32>, mem::Ways<8>, mem::LineBytes<128>, mem::AllocOnFill,
                       mem::LinearIndex>;
template <class Scheduler>
using Fig5Gpu = GPU<SM<Fig5Frontend, Scheduler, regfile::IdealRF, exec::SimdExec, Fig5L1>, 1>;

// One partition, no L2, a DRAM channel with short timings and wide transfers: a lone miss takes `penalty` cycles.
mem::MemorySystemConfig short_memory() {
    mem::MemorySystemConfig m = mem::presets::narasiman_memory(1);
    mem::DramTiming t{};
    t.tCL = 5; // with the fixed costs of this path: a lone miss completes 12 cycles after the L1 served it
    t.tWL = 1;
    t.tRP = 1;
    t.tRCD = 1;
    t.tRAS = 0;
    t.tRC = 0;
    t.tRRD = 0;
    t.tCDLR = 0;
    t.tWR = 0;
    t.tCCD = 1;
    t.tRTP = 0;
    m.partition.dram.timing = t;
    m.partition.dram.banks = 16;
    return m;
}

// Two trips of one loop. Trip 0 (warm-up): warp W (the oldest) loads 3 lines, a divergent load that trains the
// classifier, uses the value, and every warp meets at a barrier. Trip 1 (the figure): warp C first spins one loop
// trip (A and B none), so A, B and C reach the load in that order, as the figure issues them at T0, T1 and T4; they
// load 6, 6 and 2 lines at W's PC, one active lane per line (a guard predicate: no divergent branch before the
// barrier), and each loading warp then runs `ops` independent adds of its value (the computation).
std::string fig5_kernel(int ops) {
    std::string compute;
    for (int i = 0; i < ops; ++i) compute += "  add.f32 %f" + std::to_string(2 + i % 8) + ", %f1, 0f3F800000;\n";
    return ".version 8.0\n.target sm_75\n.address_size 64\n"
           ".visible .entry fig5(.param .u64 data)\n{\n"
           "  .reg .b32 %r<16>;\n  .reg .b64 %rd<8>;\n  .reg .f32 %f<12>;\n  .reg .pred %p<8>;\n"
           "  ld.param.u64 %rd1, [data];\n"
           "  mov.u32 %r1, %tid.x;\n  shr.u32 %r2, %r1, 5;\n  and.b32 %r3, %r1, 31;\n"
           "  setp.eq.u32 %p2, %r2, 0;\n  setp.eq.u32 %p3, %r2, 3;\n"
           "  mov.u32 %r10, 0;\n"
           "LOOP:\n"
           "  setp.eq.u32 %p1, %r10, 0;\n"
           // lanes: trip 0: W 3, others 0; trip 1: W 0, A 6, B 6, C 2
           "  selp.u32 %r4, 2, 6, %p3;\n  selp.u32 %r4, 0, %r4, %p2;\n"
           "  selp.u32 %r5, 3, 0, %p2;\n  selp.u32 %r4, %r5, %r4, %p1;\n"
           // spin trips: trip 1 only: C one, A and B none
           "  selp.u32 %r8, 1, 0, %p3;\n"
           "  selp.u32 %r8, 0, %r8, %p1;\n"
           "  mov.u32 %r7, 0;\n"
           "SPIN:\n  setp.ge.u32 %p6, %r7, %r8;\n  @%p6 bra GO;\n  add.u32 %r7, %r7, 1;\n  bra.uni SPIN;\n"
           "GO:\n  setp.eq.u32 %p6, %r4, 0;\n  @%p6 bra NEXT;\n" // warp-uniform: this warp loads nothing this trip
           "  setp.lt.u32 %p5, %r3, %r4;\n"
           "  mad.lo.u32 %r6, %r10, 4, %r2;\n  mad.lo.u32 %r6, %r6, 8, %r3;\n" // line (trip * 4 + warp) * 8 + lane
           "  mul.wide.u32 %rd2, %r6, 128;\n  add.s64 %rd3, %rd1, %rd2;\n"
           "  @%p5 ld.global.f32 %f1, [%rd3];\n" +
           compute +
           "NEXT:\n  @!%p1 bra END;\n  bar.sync 0;\n  add.u32 %r10, %r10, 1;\n  bra.uni LOOP;\n"
           "END:\n  ret;\n}\n";
}

template <class Scheduler> LaunchResult run_fig5(int ops, unsigned threads = 128) {
    func::Device device;
    const auto module = func::Module::from_string(fig5_kernel(ops), "fig5.ptx");
    const func::DevPtr data = device.malloc(64 * 128);
    typename Fig5Gpu<Scheduler>::Config config;
    config.memory = short_memory();
    Fig5Gpu<Scheduler> gpu(config);
    TimingOptions options;
    options.registers_per_thread = 16;
    return gpu.launch(device, module, "fig5", func::LaunchConfig{{1, 1, 1}, {threads, 1, 1}, 0}, func::Args(data),
                      options);
}
} // namespace

TEST_CASE("the Fig. 5 memory system answers a lone miss in 12 cycles") {
    // Warp W alone: its 3 accesses are served in 3 consecutive cycles; the load completes when the last fill is back.
    const LaunchResult w = run_fig5<sched::GTO>(0, 32);
    CHECK(w.stats.counter("sm.l1.divergent_loads") == 1);
    CHECK(w.stats.counter("sm.l1.divergent_load_occlusion_cycles") == 0);
    CHECK(w.stats.counter("sm.l1.divergent_load_access_cycles") == 2 + 12);
}

TEST_CASE("Wang 2016 Fig. 5: GTO occludes the LSU with warp B's load; OAWS runs C's load first and finishes sooner") {
    const LaunchResult gto = run_fig5<sched::GTO>(16);
    const LaunchResult oaws = run_fig5<sched::OAWSStatic<100>>(16);
    MESSAGE("GTO " << gto.cycles << " cycles, LDST_MSHR " << gto.stats.counter("sm.lsu.stalled_mshr") << "; OAWS "
                   << oaws.cycles << " cycles, LDST_MSHR " << oaws.stats.counter("sm.lsu.stalled_mshr"));
    // Same work.
    CHECK(gto.warp_instructions == oaws.warp_instructions);
    // Under GTO warp B finds the MSHRs full after two of its six misses and replays (LDST_MSHR); OAWS holds B's load
    // back instead, so no access replays for lack of an MSHR entry.
    CHECK(gto.stats.counter("sm.lsu.stalled_mshr") > 0);
    CHECK(oaws.stats.counter("sm.lsu.stalled_mshr") == 0);
    CHECK(oaws.stats.counter("sm.sched.oaws_cycles_with_disqualified") > 0);
    // C's load and computation overlap B's load: the whole run is shorter.
    CHECK(oaws.cycles < gto.cycles);
}
