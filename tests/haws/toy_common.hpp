#pragma once
// The Gong 2020 Fig. 5.3 toy machine and kernel, shared by the HAWS tests.
//
// Machine (Sec. 5.2): four warps, one issue per cycle (a strict round-robin turn per cycle), ALU instructions take
// one cycle, memory instructions 19 or 14 cycles from issue to use. Kernel: the instruction sequence reconstructed
// from the text of Sec. 5.2 and Fig. 5.7 (docs/haws.md, "The Fig. 5.3 toy"): I1 loads r1; I2 is independent; I3
// (the stall point) reads r1; I4 and I6 are independent (I6 reads I4's r4 and writes r5); I5 depends on I3 and is
// skipped; I7 and I8 (the second load) depend on I5; I9 is the second stall point.
#include <array>
#include <string>
#include <vector>

#include <gpuarch/exec/simd_exec.hpp>
#include <gpuarch/func/device.hpp>
#include <gpuarch/func/module.hpp>
#include <gpuarch/gpu.hpp>
#include <gpuarch/ir/hints.hpp>
#include <gpuarch/mem/ideal_memory.hpp>
#include <gpuarch/regfile/ideal_rf.hpp>
#include <gpuarch/sched/haws.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sm.hpp>

namespace haws_toy {
using namespace gpuarch;

struct ToyFrontend {
    static constexpr std::string_view name = "Fig5.3Toy";
    static constexpr unsigned warp_width = 32;
    static constexpr unsigned schedulers = 1; // "only one of them being issued each cycle"
    static constexpr unsigned dispatch_per_scheduler = 1;
    static constexpr timing::IssueRule issue_rule = timing::IssueRule::per_scheduler;
    static constexpr unsigned max_warps = 4; // "four warps running in parallel"
    static constexpr unsigned max_ctas = 1;
    static constexpr unsigned max_threads = 128;
    static constexpr unsigned max_registers = 65536;
    static constexpr unsigned max_shared_bytes = 48 * 1024;
    static constexpr unsigned register_allocation_unit = 256;
    static constexpr unsigned ibuffer_entries = 2;
    static constexpr unsigned fetch_per_warp = 1; // "Each warp will fetch a new instruction every cycle":
    static constexpr unsigned fetch_warps_per_scheduler = 4; // every warp fetches one instruction per cycle
    static constexpr auto units = std::array{
        timing::UnitSpec{timing::UnitKind::sp, 1, 32, 1, 1, false}, // "arithmetic instructions take one cycle"
        timing::UnitSpec{timing::UnitKind::branch, 1, 32, 1, 1, false},
        timing::UnitSpec{timing::UnitKind::ldst, 1, 32, 1, 1, false},
    };
    static constexpr timing::SharedUnitPartitioning shared_unit_partitioning = timing::SharedUnitPartitioning::even;
    static constexpr timing::UnitKind unit_for(ir::OpClass c) {
        if (c == ir::OpClass::branch || c == ir::OpClass::barrier || c == ir::OpClass::control)
            return timing::UnitKind::branch;
        return ir::is_memory(c) ? timing::UnitKind::ldst : timing::UnitKind::sp;
    }
};

// Pcs of the reconstructed sequence: I1 is the kernel's first instruction, so that I1 issues in cycles 1-4 as in the
// figure; I10 and I11 are the store and the exit.
inline constexpr ir::Pc pc_i1 = 0, pc_i2 = 1, pc_i3 = 2, pc_i4 = 3, pc_i5 = 4, pc_i6 = 5, pc_i7 = 6, pc_i8 = 7,
                        pc_i9 = 8;

// out[data[0] + tid] += 4 tid. I1 reads the word every thread shares (a global scalar, so no address arithmetic
// comes before it); thread indices are read as %tid.x operands, which are not registers and add no dependence.
inline const char* toy_ptx = R"(.version 8.0
.target sm_75
.address_size 64
.global .align 4 .u32 data[1];
.global .align 4 .u32 out[128];
.visible .entry haws_toy()
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<6>;
  ld.global.u32 %r1, [data];
  mov.u64 %rd2, out;
  add.u32 %r3, %r1, %tid.x;
  mul.lo.u32 %r4, %tid.x, 3;
  mul.wide.u32 %rd4, %r3, 4;
  add.u32 %r5, %r4, %tid.x;
  add.s64 %rd5, %rd2, %rd4;
  ld.global.u32 %r7, [%rd5];
  add.u32 %r9, %r7, %r5;
  st.global.u32 [%rd5], %r9;
  ret;
}
)";

// Fig. 5.7's hints, by hand: the stall point I3 points at I4 (offset 1), I4 at I6 (offset 3), I6 ends the chain.
struct Fig57Hints {
    static constexpr std::string_view name = "Fig5.7";
    static ir::KernelHints hints(const ir::Kernel& kernel) {
        ir::KernelHints h = ir::KernelHints::none(kernel.code.size());
        auto f1 = [&](ir::Pc pc, std::uint16_t next) {
            h.hint[pc].format = ir::InstructionHint::Format::format1;
            h.hint[pc].f1.target_offset = next;
            h.hint[pc].f1.dst = kernel.code[pc].num_defs > 0 ? kernel.code[pc].defs[0] : ir::no_reg;
        };
        f1(pc_i3, pc_i4 - pc_i3);
        f1(pc_i4, pc_i6 - pc_i3);
        f1(pc_i6, 0);
        h.stall_point[pc_i3] = h.stall_point[pc_i9] = true;
        h.chain_start[pc_i4] = h.chain_start[pc_i6] = pc_i3;
        return h;
    }
};

// The figure's round-robin: cycle c is warp (c - 1) mod 4's turn, and a warp that cannot issue in its turn loses
// it. The text shows both: the scheduler "tries to issue instruction 3, from cycles 9 to 12" (one warp per cycle,
// each attempt a lost cycle), and HAWS issues I4 in cycle 13 and I3 in cycle 17, warp 0's next turns. (LRR, the
// library's loose round-robin, gives a lost turn to the next ready warp.)
struct StrictRR {
    static constexpr std::string_view name = "StrictRR";
    explicit StrictRR(const timing::SchedulerConfig&) {}
    template <timing::SchedulerView View> unsigned select(const View& view) const {
        const unsigned n = view.pool_size();
        if (n == 0) return timing::no_warp;
        const auto turn = static_cast<unsigned>((view.now() + n - 1) % n); // cycle 1: warp 0
        return view.ready(turn) ? turn : timing::no_warp;
    }
    void on_issue(unsigned, core::Cycle) {}
    void on_warp_start(unsigned) {}
    void on_warp_exit(unsigned) {}
};
static_assert(timing::Scheduler<StrictRR>, "StrictRR must model Scheduler");

// The figure's memory latencies are load-to-use: a load issued in cycle 1 has its result "starting in cycle 20"
// (Exp. 1) or "starting in cycle 15" (Exp. 2). Our SM adds 2 cycles to mem::IdealMemory<L>'s latency (one from
// issue to the LSU, one from the completion to the scoreboard release), so the toy's memory is IdealMemory<LoadToUse - 2>; the
// tests check the load-to-use (19 and 14) on the loose round-robin, where the dependent issues at once.
inline constexpr std::uint32_t toy_load_pipeline_cycles = 2;
template <class Scheduler, std::uint32_t LoadToUse>
using ToySM = SM<ToyFrontend, Scheduler, regfile::IdealRF, exec::SimdExec,
                 mem::IdealMemory<LoadToUse - toy_load_pipeline_cycles>>;

// The figure's machine: round-robin (StrictRR) as the baseline, and HAWS over it entering hint mode on the failed
// issue attempt of the stall point (HawsEntry::failed_issue, Sec. 5.2). Both trace their issues.
using TracedRR =
    sched::HAWSScheduler<sched::RCU<8>, StrictRR, sched::HawsTrigger::long_latency_flag, sched::NoHints, true>;
template <class Hints = Fig57Hints, class Rcu = sched::RCU<8>,
          sched::HawsTrigger Trigger = sched::HawsTrigger::long_latency_flag>
using TracedHAWS = sched::HAWSScheduler<Rcu, StrictRR, Trigger, Hints, true, sched::HawsEntry::failed_issue>;

// The library's defaults on the same machine: loose round-robin (LRR), and HAWS entering at the fetch-stage check.
using LooseRR =
    sched::HAWSScheduler<sched::RCU<8>, sched::LRR, sched::HawsTrigger::long_latency_flag, sched::NoHints, true>;
using LooseHAWS =
    sched::HAWSScheduler<sched::RCU<8>, sched::LRR, sched::HawsTrigger::long_latency_flag, Fig57Hints, true>;

// Fig. 5.7's chain, with I6's destination renamed to the first register past the kernel's own (a copy on return).
struct RenamedI6Hints {
    static constexpr std::string_view name = "Fig5.7-renamed";
    static ir::KernelHints hints(const ir::Kernel& kernel) {
        ir::KernelHints h = Fig57Hints::hints(kernel);
        h.hint[pc_i6].f1.rename = true;
        h.hint[pc_i6].f1.dst = static_cast<ir::RegId>(kernel.registers.size());
        h.extra_registers = 1;
        return h;
    }
};

struct EpisodeRcu {
    unsigned slot = 0;
    ir::Pc stall_pc = ir::no_pc;
    std::vector<sched::RcuEntry> entries; // the warp's RCU when it returned to in-order fetch
};

struct ToyRun {
    LaunchResult result;
    std::vector<sched::HawsIssueEvent> trace;
    sched::HawsStats stats;
    std::vector<EpisodeRcu> episodes;
    std::vector<std::uint32_t> out;
    ir::Kernel kernel;

    ir::RegId reg(std::string_view name) const {
        for (ir::RegId r = 0; r < kernel.registers.size(); ++r)
            if (kernel.registers[r].name == name) return r;
        return ir::no_reg;
    }
    // Cycle of the issue of `pc` by warp `slot` of the given kind (0 when it never issued so).
    core::Cycle issue_cycle(unsigned slot, ir::Pc pc,
                            sched::HawsIssueEvent::Kind kind = sched::HawsIssueEvent::Kind::in_order) const {
        for (const auto& e : trace)
            if (e.slot == slot && e.pc == pc && e.kind == kind) return e.cycle;
        return 0;
    }
    std::size_t count(sched::HawsIssueEvent::Kind kind) const {
        std::size_t n = 0;
        for (const auto& e : trace) n += e.kind == kind ? 1 : 0;
        return n;
    }
    core::Cycle first_issue() const { return trace.empty() ? 0 : trace.front().cycle; }
    core::Cycle last_issue() const { return trace.empty() ? 0 : trace.back().cycle; }
};

// Runs the toy kernel on one toy SM; LoadToUse is the figure's memory latency (19 or 14).
template <class Scheduler, std::uint32_t LoadToUse> ToyRun run_toy() {
    using GpuType = GPU<ToySM<Scheduler, LoadToUse>, 1>;
    func::Device device;
    const auto module = func::Module::from_string(toy_ptx, "haws_toy.ptx");
    GpuType gpu;
    TimingOptions options;
    options.registers_per_thread = 16;
    ToyRun run;
    run.result =
        gpu.launch(device, module, "haws_toy", func::LaunchConfig{{1, 1, 1}, {128, 1, 1}, 0}, func::Args{}, options);
    run.out.resize(128);
    device.copy_from_symbol(run.out.data(), module, "out", run.out.size() * sizeof(std::uint32_t));
    const auto& sched = gpu.sm(0).scheduler(0);
    run.trace = sched.trace();
    run.stats = sched.stats();
    for (const auto& snapshot : sched.episode_snapshots()) {
        EpisodeRcu e{snapshot.slot, snapshot.stall_pc, {}};
        for (unsigned i = 0; i < snapshot.rcu.size(); ++i) e.entries.push_back(snapshot.rcu[i]);
        run.episodes.push_back(e);
    }
    run.kernel = module.ir().kernels[0];
    return run;
}

} // namespace haws_toy
