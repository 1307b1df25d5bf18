#pragma once
// Shared body of variants_<machine>.cpp: run one corpus kernel on one compiled GPU variant.
#include "variants.hpp"

#include <gpuarch/func/host.hpp>
#include <gpuarch/machines.hpp>

#include <corpus/corpus.hpp>

#include <boost/mp11/algorithm.hpp>

#include <chrono>
#include <cstdlib>
#include <exception>
#include <memory>

namespace gpuarch::examples {

template <class Machine, class GpuType>
RunRow run_on_gpu(std::string_view machine, std::string_view scheduler, std::string_view kernel, kernels::Size size,
                  const RunKnobs& knobs) {
    RunRow row;
    row.kernel = std::string(kernel);
    row.machine = std::string(machine);
    row.scheduler = std::string(scheduler);
    row.variant = GpuType::variant_name();
    row.size = std::string(kernels::size_name(size));
    const kernels::CaseInfo& info = kernels::find_case(kernel);
    const auto start = std::chrono::steady_clock::now();
    try {
        func::Device device;
        const auto module = func::Module::from_file(kernels_dir() + "/ptx/" + std::string(info.ptx_file));
        auto config = Machine::template config<GpuType>();
        if (knobs.mshr_entries != 0) config.l1.mshr_entries = knobs.mshr_entries;
        if (knobs.allocate_on_fill)
            config.l1.allocation =
                *knobs.allocate_on_fill ? mem::AllocationPolicy::on_fill : mem::AllocationPolicy::on_miss;
        if (knobs.tick_idle_memory) config.memory.skip_idle = false;
        auto gpu = std::make_unique<GpuType>(config);
        row.variant = gpu->description(); // names the knobs RunKnobs and the preset override
        TimingOptions options;
        options.placement = knobs.clustered_ctas ? CtaPlacement::clustered : CtaPlacement::round_robin;
        auto launcher = [&](const func::Module& m, std::string_view entry, const func::LaunchConfig& launch,
                            const func::Args& args) {
            const double launch_start = thread_cpu_seconds();
            const LaunchResult r = gpu->launch(device, m, entry, launch, args, options);
            row.sim_seconds += thread_cpu_seconds() - launch_start;
            row.cycles += r.cycles;
            row.warp_instructions += r.warp_instructions;
            row.thread_instructions += r.thread_instructions;
            row.stats.merge(r.stats);
            ++row.launches;
        };
        const kernels::CaseResult result = kernels::run_case(kernel, device, module, launcher, size);
        row.passed = result.passed;
        row.message = result.message;
    } catch (const std::exception& e) {
        row.passed = false;
        row.message = e.what();
    }
    row.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return row;
}

// Maps `scheduler` to the index of a type in Schedulers and runs that variant.
template <class Machine, class Schedulers>
RunRow run_machine(std::string_view machine, std::string_view scheduler, std::string_view kernel, kernels::Size size,
                   const RunKnobs& knobs) {
    constexpr std::size_t n = boost::mp11::mp_size<Schedulers>::value;
    std::size_t index = n;
    boost::mp11::mp_for_each<boost::mp11::mp_iota_c<n>>([&](auto i) {
        if (boost::mp11::mp_at_c<Schedulers, decltype(i)::value>::name == scheduler) index = decltype(i)::value;
    });
    if (index == n)
        throw Error("machine '" + std::string(machine) + "' has no scheduler named '" + std::string(scheduler) + "'");
    return boost::mp11::mp_with_index<n>(index, [&](auto i) {
        using Scheduler = boost::mp11::mp_at_c<Schedulers, decltype(i)::value>;
        using GpuType = typename Machine::template gpu<Scheduler>;
        return run_on_gpu<Machine, GpuType>(machine, scheduler, kernel, size, knobs);
    });
}

template <class Schedulers> std::vector<std::string> names_of() {
    std::vector<std::string> out;
    boost::mp11::mp_for_each<boost::mp11::mp_transform<std::type_identity, Schedulers>>(
        [&](auto t) { out.emplace_back(decltype(t)::type::name); });
    return out;
}

} // namespace gpuarch::examples
