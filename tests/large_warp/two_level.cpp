// Two-level round-robin fetch scheduling (sched::TwoLevel, Narasiman 2010 Sec. 3.2) on the barrel core, with
// baseline warps and with large warps, through the same SchedulerView contract as gpuarch::SM.
#include <doctest/doctest.h>

#include "run_helpers.hpp"

#include <gpuarch/barrel/narasiman_machine.hpp>
#include <gpuarch/func/host.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sched/two_level.hpp>

#include <corpus/corpus.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace {
using namespace gpuarch;
using large_warp_test::independent_adds;
using large_warp_test::run;

template <unsigned LargeWarp, class Scheduler> using Machine = barrel::Narasiman2010::gpu<LargeWarp, Scheduler>;

struct CorpusRun {
    bool passed = false;
    std::string message;
    core::Cycle cycles = 0;
    core::StatsTable stats;
};

template <class Gpu> CorpusRun run_corpus(std::string_view name) {
    const kernels::CaseInfo& info = kernels::find_case(name);
    func::Device device;
    const auto module =
        func::Module::from_file(std::string(GPUARCH_KERNELS_DIR) + "/ptx/" + std::string(info.ptx_file));
    auto gpu = std::make_unique<Gpu>(barrel::Narasiman2010::config<Gpu>());
    CorpusRun out;
    auto launcher = [&](const func::Module& m, std::string_view entry, const func::LaunchConfig& launch,
                        const func::Args& args) {
        const LaunchResult r = gpu->launch(device, m, entry, launch, args);
        out.cycles += r.cycles;
        out.stats.merge(r.stats);
    };
    const kernels::CaseResult result = kernels::run_case(name, device, module, launcher, kernels::Size::small);
    out.passed = result.passed;
    out.message = result.message;
    return out;
}

// Every statistic equal, except the scheduler's own counters (LRR has none).
std::vector<core::StatEntry> without_scheduler(const core::StatsTable& t) {
    std::vector<core::StatEntry> out;
    for (const auto& e : t.entries())
        if (e.name.rfind("sm.sched.", 0) != 0) out.push_back(e);
    return out;
}
bool same_except_scheduler(const core::StatsTable& a, const core::StatsTable& b) {
    const auto x = without_scheduler(a), y = without_scheduler(b);
    if (x.size() != y.size() || x.empty()) return false;
    for (std::size_t i = 0; i < x.size(); ++i)
        if (x[i].name != y[i].name || x[i].value != y[i].value || x[i].buckets != y[i].buckets) return false;
    return true;
}

// Every warp loads one line of its own (line = global warp index), then adds: all warps of a fetch group miss,
// and their lines come back in the order the DRAM serves them.
std::string line_per_warp(int adds) {
    std::string body;
    for (int i = 0; i < adds; ++i) body += "  add.s32 %r4, %r4, " + std::to_string(i + 1) + ";\n";
    return large_warp_test::ptx_header() +
           ".visible .entry lines(.param .u64 p)\n{\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<4>;\n"
           "  ld.param.u64 %rd1, [p];\n  mov.u32 %r1, %tid.x;\n  shr.u32 %r2, %r1, 5;\n  mov.u32 %r5, %ctaid.x;\n"
           "  shl.b32 %r5, %r5, 3;\n  add.s32 %r2, %r2, %r5;\n  mul.wide.u32 %rd2, %r2, 128;\n"
           "  add.s64 %rd3, %rd1, %rd2;\n  ld.global.u32 %r4, [%rd3];\n" +
           body + "  ret;\n}\n";
}
} // namespace

TEST_CASE("TwoLevel<4> on 4 large warps is round-robin: identical cycles and statistics") {
    for (std::string_view kernel : {"saxpy", "spmv_csr_scalar", "hotspot"}) {
        CAPTURE(kernel);
        const CorpusRun rr = run_corpus<Machine<256, sched::LRR>>(kernel);
        const CorpusRun two = run_corpus<Machine<256, sched::TwoLevel<4>>>(kernel);
        REQUIRE(rr.passed);
        REQUIRE(two.passed);
        CHECK(two.cycles == rr.cycles);
        CHECK(same_except_scheduler(two.stats, rr.stats));
        CHECK(two.stats.counter("sm.sched.group_switches_premature") == 0);
        CHECK(two.stats.counter("sm.sched.group_switches_on_stall") == 0);
    }
}

TEST_CASE("TwoLevel<32> on 32 baseline warps is round-robin: identical cycles and statistics") {
    const CorpusRun rr = run_corpus<Machine<32, sched::LRR>>("kmeans_assign");
    const CorpusRun two = run_corpus<Machine<32, sched::TwoLevel<32>>>("kmeans_assign");
    REQUIRE(rr.passed);
    CHECK(two.cycles == rr.cycles);
    CHECK(same_except_scheduler(two.stats, rr.stats));
}

TEST_CASE("fetch groups smaller than the 7-stage pipeline switch prematurely; groups of 8 do not") {
    // 32 warps of ALU work (4 CTAs of 256 threads), I instructions each. Round-robin fetches every cycle.
    const int adds = 6;
    const std::uint64_t instructions = adds + 2;
    const auto rr = run<Machine<32, sched::LRR>>(independent_adds(adds), "adds", 256, 4);
    const auto g4 = run<Machine<32, sched::TwoLevel<4>>>(independent_adds(adds), "adds", 256, 4);
    const auto g8 = run<Machine<32, sched::TwoLevel<8>>>(independent_adds(adds), "adds", 256, 4);
    CHECK(rr.cycles == 32 * instructions + 6);
    CHECK(g4.cycles == rr.cycles);
    CHECK(g8.cycles == rr.cycles);
    // Groups of 4: after its 4 warps are fetched, a group has nothing ready (each waits 7 cycles), so the scheduler
    // leaves it every 4 fetches although no warp waits on memory: 32I / 4 - 1 premature switches.
    CHECK(g4.stats.counter("sm.sched.group_switches_premature") == 8 * instructions - 1);
    CHECK(g4.stats.counter("sm.sched.group_switches_on_stall") == 0);
    // Groups of 8 keep the pipeline busy on their own: the scheduler leaves a group only when its warps are done
    // (3 switches for 4 groups).
    CHECK(g8.stats.counter("sm.sched.group_switches_premature") == 3);
    CHECK(g8.stats.counter("sm.sched.group_switches_on_stall") == 0);
}

TEST_CASE("with two large warps per fetch group, TwoLevel<2> stays in a group while decode is sub-warping") {
    // 4 large warps of ALU work: two 8-sub-warp large warps cover the 14-cycle refetch distance, so a group of 2
    // never runs dry; a group of 1 is left after every instruction.
    const int adds = 4;
    const std::uint64_t instructions = adds + 2;
    const auto g2 = run<Machine<256, sched::TwoLevel<2>>>(independent_adds(adds), "adds", 256, 4);
    const auto g1 = run<Machine<256, sched::TwoLevel<1>>>(independent_adds(adds), "adds", 256, 4);
    CHECK(g2.cycles == 32 * instructions + 6);
    CHECK(g1.cycles == g2.cycles);
    CHECK(g2.stats.counter("sm.sched.group_switches_premature") == 1);
    CHECK(g1.stats.counter("sm.sched.group_switches_premature") == 4 * instructions - 1);
}

TEST_CASE("when every warp of the active fetch group waits on memory, TwoLevel<8> switches on a stall") {
    func::Device device;
    const auto module = func::Module::from_string(line_per_warp(12), "lines.ptx");
    kernels::DeviceBuffer buffer(device, std::size_t{32 * 128});
    using Gpu = Machine<32, sched::TwoLevel<8>>;
    Gpu gpu(barrel::Narasiman2010::config<Gpu>());
    TimingOptions options;
    options.registers_per_thread = 8;
    const LaunchResult r = gpu.launch(device, module, "lines", func::LaunchConfig{{4, 1, 1}, {256, 1, 1}, 0},
                                      func::Args(buffer.ptr()), options);
    // 32 global misses, plus the 8 warps whose ld.param merged into the constant cache's MSHR entry for the
    // parameter line (8 requests per entry); the others replay in the memory stage until the line fills, then hit.
    CHECK(r.stats.counter("sm.memory.put_aside") == 32 + 8);
    CHECK(r.stats.counter("sm.sched.group_switches_on_stall") > 0);
    // Round-robin over the same warps never classifies anything: it has no groups.
    using Rr = Machine<32, sched::LRR>;
    Rr rr(barrel::Narasiman2010::config<Rr>());
    const LaunchResult base = rr.launch(device, module, "lines", func::LaunchConfig{{4, 1, 1}, {256, 1, 1}, 0},
                                        func::Args(buffer.ptr()), options);
    CHECK(base.thread_instructions == r.thread_instructions);
}
