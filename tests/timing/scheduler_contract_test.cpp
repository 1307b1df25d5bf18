// The SM checks its slots' run-time contracts, in every build type:
//   - the Scheduler's (pipeline/issue_stage.hpp, throw_bad_pick): select returns a ready slot of its pool or no_warp;
//   - the register file's and the L1's (sm.hpp, reported_record): they report only the tokens of instructions they
//     hold, each write and each completion once.
// A policy that breaks one stops the launch with a gpuarch::Error naming the policy and the slot, instead of
// indexing past the pool (a heap overflow), issuing a stalled warp or reading a record another instruction now uses.
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

#include <cstdint>
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

// IdealRF, but every write is reported twice: the second report names a retired instruction.
struct WritesTwiceRF : regfile::IdealRF {
    static constexpr std::string_view name = "WritesTwiceRF";
    using regfile::IdealRF::IdealRF;
    template <class Done> void drain_written(Done&& done) {
        regfile::IdealRF::drain_written([&done](std::uint64_t token) {
            done(token);
            done(token);
        });
    }
};
// IdealMemory<20>, but every completion is reported twice.
struct CompletesTwiceMemory : mem::IdealMemory<20> {
    static constexpr std::string_view name = "CompletesTwiceMemory";
    using mem::IdealMemory<20>::IdealMemory;
    template <class F> void drain_completed(F&& done) {
        mem::IdealMemory<20>::drain_completed([&done](const mem::Completion& c) {
            done(c);
            done(c);
        });
    }
};

// A dependent chain per thread: most warps wait on the scoreboard most of the time.
const std::string chain_ptx = ".version 8.0\n.target sm_75\n.address_size 64\n"
                              ".visible .entry chain()\n{\n  .reg .b32 %r<4>;\n  mov.u32 %r1, %tid.x;\n"
                              "  add.s32 %r1, %r1, 1;\n  add.s32 %r1, %r1, 1;\n  add.s32 %r1, %r1, 1;\n"
                              "  add.s32 %r1, %r1, 1;\n  add.s32 %r1, %r1, 1;\n  add.s32 %r1, %r1, 1;\n  ret;\n}\n";

// Shared-memory stores and loads: every warp goes through the L1 slot.
const std::string shared_ptx = ".version 8.0\n.target sm_75\n.address_size 64\n"
                               ".visible .entry loads()\n{\n  .reg .b32 %r<4>;\n  .shared .align 4 .b8 tile[4];\n"
                               "  mov.u32 %r1, %tid.x;\n  st.shared.u32 [tile], %r1;\n"
                               "  ld.shared.u32 %r2, [tile];\n  ret;\n}\n";

template <class Scheduler, class RegisterFile, class L1 = mem::IdealMemory<20>>
std::string launch_error(const std::string& ptx = chain_ptx, const char* entry = "chain") {
    func::Device device;
    const auto module = func::Module::from_string(ptx, "contract.ptx");
    GPU<SM<frontend::FermiFrontend, Scheduler, RegisterFile, exec::SimdExec, L1>, 1> gpu;
    TimingOptions options;
    options.registers_per_thread = 8;
    try {
        gpu.launch(device, module, entry, func::LaunchConfig{{1, 1, 1}, {256, 1, 1}, 0}, func::Args{}, options);
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

TEST_CASE("a register file that reports a write twice stops the launch with an Error naming it") {
    const std::string what = launch_error<sched::LRR, WritesTwiceRF>();
    CAPTURE(what);
    CHECK(what.find("register file policy 'WritesTwiceRF'") != std::string::npos);
    CHECK(what.find("reported written token") != std::string::npos);
    CHECK(what.find("names no instruction in flight") != std::string::npos);
}

TEST_CASE("an L1 that reports a completion twice stops the launch with an Error naming it") {
    const std::string what = launch_error<sched::LRR, regfile::IdealRF, CompletesTwiceMemory>(shared_ptx, "loads");
    CAPTURE(what);
    CHECK(what.find("L1 policy 'CompletesTwiceMemory'") != std::string::npos);
    CHECK(what.find("reported complete token") != std::string::npos);
}

TEST_CASE("the same kernels run without error on the slots' own models") {
    CHECK(launch_error<sched::LRR, regfile::IdealRF>() == "no error");
    CHECK(launch_error<sched::LRR, regfile::IdealRF>(shared_ptx, "loads") == "no error");
}
