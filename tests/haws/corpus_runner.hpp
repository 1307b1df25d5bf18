#pragma once
// Runs one corpus kernel on a HAWS machine variant through the examples' runner (support/include/gpuarch/support/run_machine.hpp,
// linked from gpuarch_support: tests/CMakeLists.txt). The HAWS variants are declared here, not in
// gpuarch_support, so that only the HAWS tests and the HAWS study compile them.
#include <gpuarch/support/run_machine.hpp>

#include <gpuarch/frontend/kepler.hpp>
#include <gpuarch/machines.hpp>
#include <gpuarch/sched/gto.hpp>
#include <gpuarch/sched/haws.hpp>
#include <gpuarch/sched/lrr.hpp>

#include <corpus/corpus.hpp>

#include <string_view>
#include <type_traits>

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

// The machine preset (its configuration) is the one whose frontend the variant has.
template <class GpuType> examples::RunRow run(std::string_view kernel, kernels::Size size) {
    constexpr bool kepler = std::is_same_v<typename GpuType::SMType::Frontend, frontend::KeplerFrontend>;
    using Machine = std::conditional_t<kepler, machines::Kepler, machines::SouthernIslands>;
    return examples::run_on_gpu<Machine, GpuType>(kepler ? "kepler" : "southern_islands", GpuType::variant_name(),
                                                  kernel, size, {});
}

} // namespace haws_test
