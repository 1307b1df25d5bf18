#pragma once
// The Gong 2020 Fig. 5.3 toy machine and kernel, shared by the HAWS tests.
//
// Machine (Sec. 5.2): four warps, one issue per cycle, ALU instructions take one cycle, memory instructions 19 or
// 14 cycles (mem::IdealMemory<Latency>). Kernel: the instruction sequence reconstructed from the text of Sec. 5.2
// and Fig. 5.7 (docs/haws.md, "The Fig. 5.3 toy"): I1 loads r1; I3 (the stall point) reads it; I4 and I6 are
// independent (I6 reads I4's r4 and writes r5); I5 depends on I3 and is skipped; I9 is the second stall point.
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
    static constexpr unsigned schedulers = 1;             // "only one of them being issued each cycle"
    static constexpr unsigned dispatch_per_scheduler = 1;
    static constexpr timing::IssueRule issue_rule = timing::IssueRule::per_scheduler;
    static constexpr unsigned max_warps = 4;              // "four warps running in parallel"
    static constexpr unsigned max_ctas = 1;
    static constexpr unsigned max_threads = 128;
    static constexpr unsigned max_registers = 65536;
    static constexpr unsigned max_shared_bytes = 48 * 1024;
    static constexpr unsigned register_allocation_unit = 256;
    static constexpr unsigned ibuffer_entries = 2;
    static constexpr unsigned fetch_per_warp = 1;          // "Each warp will fetch a new instruction every cycle":
    static constexpr unsigned fetch_warps_per_scheduler = 4; // every warp fetches one instruction per cycle
    static constexpr auto units = std::array{
        timing::UnitSpec{timing::UnitKind::sp, 1, 32, 1, 1, false},     // "arithmetic instructions take one cycle"
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

// Pcs of the reconstructed sequence (P0-P6 compute addresses; I1-I11 as in the thesis's numbering).
inline constexpr ir::Pc pc_i1 = 7, pc_i3 = 9, pc_i4 = 10, pc_i5 = 11, pc_i6 = 12, pc_i9 = 15;

inline const char* toy_ptx = R"(.version 8.0
.target sm_75
.address_size 64
.global .align 4 .u32 data[256];
.global .align 4 .u32 out[128];
.visible .entry haws_toy()
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<10>;
  mov.u32 %r0, %tid.x;
  mul.wide.u32 %rd1, %r0, 4;
  mov.u64 %rd2, data;
  add.s64 %rd3, %rd2, %rd1;
  mov.u64 %rd6, out;
  add.s64 %rd7, %rd6, %rd1;
  add.u32 %r10, %r0, 1;
  ld.global.u32 %r1, [%rd3];
  add.u32 %r2, %r0, 7;
  add.u32 %r3, %r1, %r2;
  mul.lo.u32 %r4, %r2, 3;
  mul.wide.u32 %rd4, %r3, 4;
  add.u32 %r5, %r4, %r2;
  add.s64 %rd5, %rd2, %rd4;
  ld.global.u32 %r7, [%rd5];
  add.u32 %r9, %r7, %r5;
  st.global.u32 [%rd7], %r9;
  ret;
}
)";

// Fig. 5.7's hints, by hand: the stall point I3 points at I4 (offset 1), I4 at I6 (offset 3), I6 ends the chain.
struct Fig57Hints {
    static constexpr std::string_view name = "Fig5.7";
    static ir::KernelHints hints(const ir::Kernel& kernel) {
        ir::KernelHints h;
        h.hint.assign(kernel.code.size(), ir::InstructionHint{});
        h.stall_point.assign(kernel.code.size(), false);
        h.chain_start.assign(kernel.code.size(), ir::no_pc);
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

template <class Scheduler, std::uint32_t MemoryLatency>
using ToySM = SM<ToyFrontend, Scheduler, regfile::IdealRF, exec::SimdExec, mem::IdealMemory<MemoryLatency>>;

// Round-robin (the figure's baseline) and HAWS over round-robin, both tracing their issues.
using TracedRR = sched::HAWSScheduler<sched::RCU<8>, sched::LRR, sched::HawsTrigger::long_latency_flag, sched::NoHints, true>;
template <class Hints = Fig57Hints, class Rcu = sched::RCU<8>,
          sched::HawsTrigger Trigger = sched::HawsTrigger::long_latency_flag>
using TracedHAWS = sched::HAWSScheduler<Rcu, sched::LRR, Trigger, Hints, true>;

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

template <class Scheduler, std::uint32_t MemoryLatency>
ToyRun run_toy() {
    using GpuType = GPU<ToySM<Scheduler, MemoryLatency>, 1>;
    func::Device device;
    const auto module = func::Module::from_string(toy_ptx, "haws_toy.ptx");
    GpuType gpu;
    TimingOptions options;
    options.registers_per_thread = 16;
    ToyRun run;
    run.result = gpu.launch(device, module, "haws_toy", func::LaunchConfig{{1, 1, 1}, {128, 1, 1}, 0}, func::Args{},
                            options);
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
