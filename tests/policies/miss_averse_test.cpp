// The hook example of docs/new_policy.md: examples/policies/miss_averse.hpp declares on_memory_complete, the SM calls
// it (timing::ObservesMemoryCompletion) with every load's L1 outcome, and the policy does what its comment says.
#include "../../examples/policies/miss_averse.hpp"

#include <doctest/doctest.h>

#include "../support/pool_view.hpp"

#include <gpuarch/exec/simd_exec.hpp>
#include <gpuarch/frontend/fermi.hpp>
#include <gpuarch/func/device.hpp>
#include <gpuarch/func/module.hpp>
#include <gpuarch/gpu.hpp>
#include <gpuarch/mem/l1.hpp>
#include <gpuarch/regfile/ideal_rf.hpp>
#include <gpuarch/sched/gto.hpp>

#include <string>

namespace {
using namespace gpuarch;
using policies::MissAverse;

timing::MemoryFeedback load(unsigned lines, unsigned misses) {
    timing::MemoryFeedback fb;
    fb.is_load = true;
    fb.lines = lines;
    fb.misses = misses;
    return fb;
}
} // namespace

TEST_CASE("MissAverse puts a warp whose last load mostly missed behind every other ready warp") {
    MissAverse s(timing::SchedulerConfig{4, 0});
    for (unsigned slot = 0; slot < 4; ++slot) s.on_warp_start(slot);
    const test_support::PoolView all_ready{{true, true, true, true}, {0, 1, 2, 3}};
    CHECK(s.select(all_ready) == 0); // nothing learnt yet: greedy-then-oldest, the oldest
    s.on_memory_complete(0, load(4, 3)); // 3 of 4 lines missed
    CHECK(s.select(all_ready) == 1); // the oldest warp whose last load did not mostly miss
    s.on_issue(2, 0);
    CHECK(s.select(all_ready) == 2); // greedy: the warp that issued last, while it is ready and admitted
    s.on_memory_complete(2, load(2, 2));
    CHECK(s.select(all_ready) == 1);
    s.on_memory_complete(0, load(4, 2)); // half its lines: not "mostly missed"
    CHECK(s.select(all_ready) == 0);
    // Only missing warps ready: still work-conserving, greedy-then-oldest among them.
    const test_support::PoolView only_two{{false, false, true, false}, {0, 1, 2, 3}};
    CHECK(s.select(only_two) == 2);
    // A store says nothing about the next load.
    timing::MemoryFeedback store = load(4, 4);
    store.is_load = false;
    s.on_memory_complete(1, store);
    CHECK(s.select(all_ready) == 0);
}

TEST_CASE("the SM tells MissAverse every load's L1 outcome through on_memory_complete") {
    // 8 warps each load one 128-byte line of a global array, all cold: 8 loads, each missing its one line.
    const std::string ptx = ".version 8.0\n.target sm_75\n.address_size 64\n"
                            ".global .align 4 .u32 data[256];\n"
                            ".visible .entry touch()\n{\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n"
                            "  mov.u32 %r1, %tid.x;\n  mov.u64 %rd1, data;\n  mul.wide.u32 %rd2, %r1, 4;\n"
                            "  add.s64 %rd3, %rd1, %rd2;\n  ld.global.u32 %r2, [%rd3];\n  add.u32 %r3, %r2, 1;\n"
                            "  st.global.u32 [%rd3], %r3;\n  ret;\n}\n";
    func::Device device;
    const auto module = func::Module::from_string(ptx, "touch.ptx");
    GPU<SM<frontend::FermiFrontend, MissAverse, regfile::IdealRF, exec::SimdExec, mem::L1<mem::MSHR<32>>>, 1> gpu;
    TimingOptions options;
    options.registers_per_thread = 8;
    const LaunchResult r =
        gpu.launch(device, module, "touch", func::LaunchConfig{{1, 1, 1}, {256, 1, 1}, 0}, func::Args{}, options);
    CHECK(r.stats.counter("sm.sched.miss_averse.loads_seen") == 8);
    CHECK(r.stats.counter("sm.sched.miss_averse.missing_loads") == 8);
}
