#pragma once
// Runs one corpus kernel on a HAWS machine variant (the variants live here, not in examples/lib, so that only the
// HAWS tests compile them).
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <string_view>

#include <gpuarch/func/host.hpp>
#include <gpuarch/machines.hpp>
#include <gpuarch/sched/haws.hpp>
#include <gpuarch/sched/lrr.hpp>

#include <corpus/corpus.hpp>

namespace haws_test {
using namespace gpuarch;

using SiHaws = machines::SouthernIslands::gpu<sched::HAWSScheduler<sched::RCU<8>, sched::GTO>, 1>;
using KeplerHaws = machines::Kepler::gpu<sched::HAWSScheduler<sched::RCU<8>, sched::LRR>, 1>;
using SiHawsAllStalled = machines::SouthernIslands::gpu<
    sched::HAWSScheduler<sched::RCU<8>, sched::GTO, sched::HawsTrigger::all_warps_stalled>, 1>;
using SiGto = machines::SouthernIslands::gpu<sched::GTO, 1>;
using KeplerLrr = machines::Kepler::gpu<sched::LRR, 1>;
using SiNoHints = machines::SouthernIslands::gpu<
    sched::HAWSScheduler<sched::RCU<8>, sched::GTO, sched::HawsTrigger::long_latency_flag, sched::NoHints>, 1>;
using KeplerNoHints = machines::Kepler::gpu<
    sched::HAWSScheduler<sched::RCU<8>, sched::LRR, sched::HawsTrigger::long_latency_flag, sched::NoHints>, 1>;

struct Row {
    bool passed = false;
    std::string message;
    std::uint64_t cycles = 0, warp_instructions = 0;
    core::StatsTable stats;
};

template <class GpuType>
Row run(std::string_view kernel, kernels::Size size) {
    using Machine = std::conditional_t<std::is_same_v<typename GpuType::SMType::Frontend, frontend::KeplerFrontend>,
                                       machines::Kepler, machines::SouthernIslands>;
    Row row;
    try {
        const kernels::CaseInfo& info = kernels::find_case(kernel);
        func::Device device;
        const auto module = func::Module::from_file(std::string(GPUARCH_KERNELS_DIR) + "/ptx/" + std::string(info.ptx_file));
        auto gpu = std::make_unique<GpuType>(Machine::template config<GpuType>());
        TimingOptions options;
        auto launcher = [&](const func::Module& m, std::string_view entry, const func::LaunchConfig& launch,
                            const func::Args& args) {
            const LaunchResult r = gpu->launch(device, m, entry, launch, args, options);
            row.cycles += r.cycles;
            row.warp_instructions += r.warp_instructions;
            row.stats.merge(r.stats);
        };
        const kernels::CaseResult result = kernels::run_case(kernel, device, module, launcher, size);
        row.passed = result.passed;
        row.message = result.message;
    } catch (const std::exception& e) {
        row.message = e.what();
    }
    return row;
}

} // namespace haws_test
