#pragma once
// A shipped scheduler against itself through the full per-cycle scans (tests/timing/quiet_replay_stateful_test.cpp):
// FullScan<S> has S's picks through a non-const select that declares scan_every_cycle, which turns quiet-cycle replay
// and the event-driven stages off. Any difference in cycles or in any statistic is an error of the fast paths.
// (tests/pinned/quiet_cycles.cpp keeps its own copy: the pinned folder stays as it is for behaviour-preserving work.)
#include <doctest/doctest.h>

#include <gpuarch/support/run_machine.hpp>

#include <corpus/corpus.hpp>
#include <gpuarch/core/stats.hpp>
#include <gpuarch/machines.hpp>
#include <gpuarch/support/variants.hpp>
#include <gpuarch/timing/concepts.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace gpuarch::test_support {

template <class Base> struct FullScan : Base {
    static constexpr bool scan_every_cycle = true;
    using Base::Base;
    template <timing::SchedulerView View> unsigned select(const View& view) { return Base::select(view); }
};

// Runs `kernel` (small) on Machine's GPU with the shipped Scheduler and with FullScan<Scheduler>: cycles,
// instructions and every statistic must be equal.
template <class Machine, class Scheduler> void check_matches_full_scan(const char* machine, const char* kernel) {
    using Shipped = typename Machine::template gpu<Scheduler>;
    using Scanning = typename Machine::template gpu<FullScan<Scheduler>>;
    const auto shipped = examples::run_on_gpu<Machine, Shipped>(machine, "shipped", kernel, kernels::Size::small, {});
    const auto scanned = examples::run_on_gpu<Machine, Scanning>(machine, "scan", kernel, kernels::Size::small, {});
    INFO(std::string(machine) << " " << std::string(kernel) << ": " << shipped.message << scanned.message);
    REQUIRE(scanned.passed);
    CHECK(shipped.passed);
    CHECK(shipped.cycles == scanned.cycles);
    CHECK(shipped.warp_instructions == scanned.warp_instructions);
    CHECK(shipped.thread_instructions == scanned.thread_instructions);
    CHECK(shipped.stats == scanned.stats); // every stall class, Gong class, LSU, memory and scheduler counter
}

// The shipped variant replays quiet cycles, and its cycles, instructions and every statistic equal the full scan's.
template <class Machine, class Scheduler> void check_replay_matches_full_scan(const char* machine, const char* kernel) {
    static_assert(Machine::template gpu<Scheduler>::SMType::replays_quiet_cycles(),
                  "the shipped variant replays quiet cycles");
    static_assert(!Machine::template gpu<FullScan<Scheduler>>::SMType::replays_quiet_cycles(),
                  "scan_every_cycle turns the replay off");
    check_matches_full_scan<Machine, Scheduler>(machine, kernel);
}

// SM-cycles of a GTX480 run over its 15 SMs: all of them, those counted in bulk (SM::dormant_cycles: dormant,
// vacant or slept by waits_on_l1), of those the ones slept while the L1 repeated a stall (SM::stalled_cycles_slept)
// and those slept with CTAs resident while the L1 waited for responses (SM::waiting_cycles_slept), and the L1s'
// cycles stalled for an MSHR, a merge slot or a reservable way (ldst_mshr_cycles) and, with MASCAR's re-execution
// queue, those in which the queue's head replayed (reexec_replay_cycles).
struct SkippedCycles {
    std::uint64_t skipped = 0, slept_on_l1 = 0, slept_waiting = 0, cycles = 0, l1_stalled = 0, l1_queue_replays = 0;
};
// The GTX480 GPU (or Machine's, a GTX480 with other presets) with Scheduler after it ran corpus kernel `kernel`
// (small), which must pass: its SMs' speed figures and schedulers stay readable.
template <class Scheduler, class Machine = machines::GTX480>
std::unique_ptr<typename Machine::template gpu<Scheduler>> gtx480_after(const char* kernel) {
    using Gpu = typename Machine::template gpu<Scheduler>;
    func::Device device;
    const auto module =
        func::Module::from_file(examples::kernels_dir() + "/ptx/" + std::string(kernels::find_case(kernel).ptx_file));
    auto gpu = std::make_unique<Gpu>(Machine::template config<Gpu>());
    auto launcher = [&](const func::Module& m, std::string_view entry, const func::LaunchConfig& launch,
                        const func::Args& args) { gpu->launch(device, m, entry, launch, args); };
    REQUIRE(kernels::run_case(kernel, device, module, launcher, kernels::Size::small).passed);
    return gpu;
}
template <class Scheduler, class Machine = machines::GTX480>
SkippedCycles skipped_cycles_on_gtx480(const char* kernel) {
    const auto gpu = gtx480_after<Scheduler, Machine>(kernel);
    SkippedCycles out;
    for (unsigned i = 0; i < Machine::sms; ++i) {
        const auto& sm = gpu->sm(i);
        out.skipped += sm.dormant_cycles();
        out.slept_on_l1 += sm.stalled_cycles_slept();
        out.slept_waiting += sm.waiting_cycles_slept();
        out.cycles += sm.cycles();
        core::StatsTable l1;
        l1.collect("", sm.l1());
        out.l1_stalled += l1.counter("ldst_mshr_cycles");
        if (l1.contains("reexec_replay_cycles")) out.l1_queue_replays += l1.counter("reexec_replay_cycles");
    }
    return out;
}
// atax (small: 3 CTAs per launch for 15 SMs): {skipped, all} SM-cycles.
template <class Scheduler> std::pair<std::uint64_t, std::uint64_t> skipped_share_of_atax() {
    const SkippedCycles c = skipped_cycles_on_gtx480<Scheduler>("atax");
    return {c.skipped, c.cycles};
}

// Memory-bound kernels (long quiet stretches), barriers and shared memory, global atomics, divergence.
inline constexpr const char* quiet_replay_kernels[] = {
    "vector_add", "bfs", "nw", "histogram_global", "reduce_shared", "sgemm_tiled", "kmeans_assign", "atax"};

// check_replay_matches_full_scan for every kernel of quiet_replay_kernels, each under every scheduler of Schedulers
// in turn (the quiet-replay cases of tests/timing, one machine each).
template <class Machine, class... Schedulers> void check_replay_on_kernels(const char* machine) {
    for (const char* kernel : quiet_replay_kernels)
        (check_replay_matches_full_scan<Machine, Schedulers>(machine, kernel), ...);
}

} // namespace gpuarch::test_support
