// Functional results never depend on timing: every corpus kernel passes its CPU-reference check on the barrel core
// with baseline warps and with large warps (sub-warps carry the threads' own addresses and predicates).
#include <doctest/doctest.h>

#include <gpuarch/barrel/narasiman_machine.hpp>
#include <gpuarch/func/host.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sched/two_level.hpp>

#include <corpus/corpus.hpp>

#include <memory>
#include <string>
#include <string_view>

namespace {
using namespace gpuarch;

struct Outcome {
    kernels::CaseResult result;
    std::uint64_t thread_instructions = 0;
    core::StatsTable stats;
};

template <class Gpu> Outcome run_case(const kernels::CaseInfo& info) {
    func::Device device;
    const auto module =
        func::Module::from_file(std::string(GPUARCH_KERNELS_DIR) + "/ptx/" + std::string(info.ptx_file));
    auto gpu = std::make_unique<Gpu>(barrel::Narasiman2010::config<Gpu>());
    Outcome out;
    auto launcher = [&](const func::Module& m, std::string_view entry, const func::LaunchConfig& launch,
                        const func::Args& args) {
        const LaunchResult r = gpu->launch(device, m, entry, launch, args);
        out.thread_instructions += r.thread_instructions;
        out.stats.merge(r.stats);
    };
    out.result = kernels::run_case(info.name, device, module, launcher, kernels::Size::small);
    return out;
}

using Baseline = barrel::NarasimanBaseline;
using Lwm256TwoLevel2 = barrel::NarasimanLwm256TwoLevel2;
// Packed global accesses (no row-wise cutting) and packed jumps: the sub-warps' accesses mix rows.
using Lwm128Packed =
    barrel::Narasiman2010::gpu<128, sched::LRR, regfile::PerLaneBankedRF<>, frontend::RowWiseGlobalMemory<false>,
                               frontend::SingleSubWarpJumps<false>,
                               frontend::RowPick<frontend::RowPriority::highest_first>>;
} // namespace

TEST_CASE("every corpus kernel passes on the barrel core with 32-thread warps and with large warps") {
    for (const kernels::CaseInfo& info : kernels::corpus_cases()) {
        CAPTURE(info.name);
        const Outcome base = run_case<Baseline>(info);
        CHECK_MESSAGE(base.result.passed, base.result.message);
        const Outcome lwm = run_case<Lwm256TwoLevel2>(info);
        CHECK_MESSAGE(lwm.result.passed, lwm.result.message);
        const Outcome packed = run_case<Lwm128Packed>(info);
        CHECK_MESSAGE(packed.result.passed, packed.result.message);
        // The same work: thread instructions are a property of the kernel, not of the warp size (warp-level
        // intrinsics act on 32-lane groups at every width). Not for bfs: which thread's atom.cas claims a vertex
        // depends on the order warps run, so the frontier (and the work per level) differs while the result is
        // the same.
        if (info.name != "bfs") {
            CHECK(lwm.thread_instructions == base.thread_instructions);
            CHECK(packed.thread_instructions == base.thread_instructions);
        }
    }
}

namespace {
// Each thread stores two words to a .local array of `bytes` bytes and loads one back.
std::string local_array(unsigned bytes) {
    return ".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry priv()\n{\n"
           "  .local .align 4 .b8 frame[" +
           std::to_string(bytes) +
           "];\n  .reg .b32 %r<4>;\n"
           "  mov.u32 %r1, %tid.x;\n  st.local.u32 [frame], %r1;\n  st.local.u32 [frame+4], %r1;\n"
           "  ld.local.u32 %r2, [frame+4];\n  ret;\n}\n";
}
LaunchResult run_private(unsigned bytes) {
    func::Device device;
    const auto module = func::Module::from_string(local_array(bytes), "priv.ptx");
    Baseline gpu(barrel::Narasiman2010::config<Baseline>());
    TimingOptions options;
    options.registers_per_thread = 8;
    return gpu.launch(device, module, "priv", func::LaunchConfig{{1, 1, 1}, {64, 1, 1}, 0}, func::Args{}, options);
}
} // namespace

TEST_CASE("thread-private data that fits 128 bytes per thread is served by Table 1's private memory, not the L1") {
    const LaunchResult fits = run_private(64);
    CHECK(fits.stats.counter("sm.memory.private_accesses") == 2 * 3); // 2 warps x 3 accesses
    CHECK(fits.stats.counter("sm.l1.loads") == 0);
    CHECK(fits.stats.counter("sm.l1.stores") == 0);
    // A lone warp pair never waits: 5 instructions of 7 cycles each, plus the second warp one cycle behind.
    CHECK(fits.cycles == 5 * 7 + 1);
    // A 256-byte frame does not fit: the accesses go through the D-cache and the DRAM.
    const LaunchResult spills = run_private(256);
    CHECK(spills.stats.counter("sm.memory.private_accesses") == 0);
    CHECK(spills.stats.counter("sm.l1.loads") == 2);
    CHECK(spills.cycles > fits.cycles);
}
