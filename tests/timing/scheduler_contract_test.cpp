// The SM checks the Scheduler contract at run time (sm.hpp, throw_bad_pick): select returns a ready slot of its pool
// or no_warp. A policy that breaks it stops the launch with a gpuarch::Error naming the policy and the slot, in every
// build type, instead of indexing past the pool (a heap overflow) or issuing a stalled warp.
#include <doctest/doctest.h>

#include <gpuarch/core/error.hpp>
#include <gpuarch/exec/simd_exec.hpp>
#include <gpuarch/frontend/fermi.hpp>
#include <gpuarch/func/device.hpp>
#include <gpuarch/func/module.hpp>
#include <gpuarch/gpu.hpp>
#include <gpuarch/mem/ideal_memory.hpp>
#include <gpuarch/regfile/banked_rf.hpp>
#include <gpuarch/regfile/ideal_rf.hpp>
#include <gpuarch/sched/lrr.hpp>

#include <string>

namespace {
using namespace gpuarch;

// LRR until cycle 20, then the first slot past its pool.
struct PicksOutsidePool : sched::LRR {
    static constexpr std::string_view name = "PicksOutsidePool";
    using sched::LRR::LRR;
    template <timing::SchedulerView View> unsigned select(const View& view) const {
        return view.now() >= 20 ? view.pool_size() : sched::LRR::select(view);
    }
};
// LRR until cycle 20, then the first occupied slot that is not ready (LRR's pick when every warp is ready).
struct PicksStalledWarp : sched::LRR {
    static constexpr std::string_view name = "PicksStalledWarp";
    using sched::LRR::LRR;
    template <timing::SchedulerView View> unsigned select(const View& view) const {
        if (view.now() >= 20)
            for (unsigned i = 0; i < view.pool_size(); ++i)
                if (view.occupied(i) && !view.ready(i)) return i;
        return sched::LRR::select(view);
    }
};

// A dependent chain per thread: most warps wait on the scoreboard most of the time.
const std::string chain_ptx = ".version 8.0\n.target sm_75\n.address_size 64\n"
                              ".visible .entry chain()\n{\n  .reg .b32 %r<4>;\n  mov.u32 %r1, %tid.x;\n"
                              "  add.s32 %r1, %r1, 1;\n  add.s32 %r1, %r1, 1;\n  add.s32 %r1, %r1, 1;\n"
                              "  add.s32 %r1, %r1, 1;\n  add.s32 %r1, %r1, 1;\n  add.s32 %r1, %r1, 1;\n  ret;\n}\n";

template <class Scheduler, class RegisterFile> std::string launch_error() {
    func::Device device;
    const auto module = func::Module::from_string(chain_ptx, "chain.ptx");
    GPU<SM<frontend::FermiFrontend, Scheduler, RegisterFile, exec::SimdExec, mem::IdealMemory<20>>, 1> gpu;
    TimingOptions options;
    options.registers_per_thread = 8;
    try {
        gpu.launch(device, module, "chain", func::LaunchConfig{{1, 1, 1}, {256, 1, 1}, 0}, func::Args{}, options);
    } catch (const Error& e) {
        return e.what();
    }
    return "no error";
}
} // namespace

TEST_CASE("a scheduler that picks a slot outside its pool stops the launch with an Error naming it") {
    // IdealRF: the event-driven issue path; BankedRF: the full per-cycle scan. Both check.
    for (const std::string& what : {launch_error<PicksOutsidePool, regfile::IdealRF>(),
                                    launch_error<PicksOutsidePool, regfile::BankedRF<4, 4>>()}) {
        CAPTURE(what);
        CHECK(what.find("scheduler policy 'PicksOutsidePool'") != std::string::npos);
        CHECK(what.find("outside its pool of 24 slots") != std::string::npos);
    }
}

TEST_CASE("a scheduler that picks a warp that is not ready stops the launch with an Error naming it") {
    for (const std::string& what : {launch_error<PicksStalledWarp, regfile::IdealRF>(),
                                    launch_error<PicksStalledWarp, regfile::BankedRF<4, 4>>()}) {
        CAPTURE(what);
        CHECK(what.find("scheduler policy 'PicksStalledWarp'") != std::string::npos);
        CHECK(what.find("which is not ready") != std::string::npos);
    }
}
