#pragma once
// Runs a corpus kernel (kernels/corpus) on a timing GPU type and returns whether its outputs matched the CPU
// reference, with the cycles and statistics summed over its launches.
#include <corpus/corpus.hpp>

#include <gpuarch/gpu.hpp>
#include <gpuarch/machines.hpp>

#include <filesystem>
#include <memory>
#include <string>

#ifndef GPUARCH_KERNELS_DIR
#define GPUARCH_KERNELS_DIR "kernels"
#endif

namespace oawstest {
using namespace gpuarch;

struct CorpusRun {
    bool passed = false;
    std::string message;
    core::Cycle cycles = 0;
    std::uint64_t warp_instructions = 0;
    core::StatsTable stats;
};

// `Machine` supplies the configuration (machines::Fermi or a variant of it).
template <class Machine, class GpuType> CorpusRun run_corpus(std::string_view kernel, kernels::Size size) {
    const kernels::CaseInfo& info = kernels::find_case(kernel);
    func::Device device;
    const auto module =
        func::Module::from_file(std::filesystem::path(GPUARCH_KERNELS_DIR) / "ptx" / std::string(info.ptx_file));
    auto gpu = std::make_unique<GpuType>(Machine::template config<GpuType>());
    CorpusRun run;
    auto launcher = [&](const func::Module& m, std::string_view entry, const func::LaunchConfig& launch,
                        const func::Args& args) {
        const LaunchResult r = gpu->launch(device, m, entry, launch, args);
        run.cycles += r.cycles;
        run.warp_instructions += r.warp_instructions;
        run.stats.merge(r.stats);
    };
    const kernels::CaseResult result = kernels::run_case(kernel, device, module, launcher, size);
    run.passed = result.passed;
    run.message = result.message;
    return run;
}

// Fermi (Wang 2016 Table 1) with MASCAR's re-execution queue in its L1.
using FermiMascar = machines::Machine<frontend::FermiFrontend, mem::presets::FermiMascarL1, 15,
                                      mem::presets::fermi_mascar_l1, mem::presets::fermi_memory>;

} // namespace oawstest
