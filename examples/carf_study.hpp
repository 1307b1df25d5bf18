#pragma once
// carf_study's runner, shared by its two translation units: carf_study.cpp instantiates five of Chapter 3's variants,
// carf_study_variants.cpp the other six (GPUARCH_CARF_OTHER_UNIT_VARIANTS), so that neither unit
// needs more than 1.5 GiB to compile (docs/performance-history.md, "Compile cost"; as one unit they took 1.7 GiB).
#include <gpuarch/exec/simd_exec.hpp>
#include <gpuarch/exec/zero_gated_exec.hpp>
#include <gpuarch/func/host.hpp>
#include <gpuarch/machines.hpp>
#include <gpuarch/regfile/coalescing_rf.hpp>
#include <gpuarch/regfile/corf.hpp>
#include <gpuarch/regfile/zero_gated_rf.hpp>
#include <gpuarch/sched/two_level.hpp>

#include "corpus/corpus.hpp"
#include <gpuarch/support/progress.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#ifndef GPUARCH_KERNELS_DIR
#error "GPUARCH_KERNELS_DIR must name the kernels/ directory (the CMake build defines it)"
#endif

namespace gpuarch::examples::carf {
using Machine = machines::Fermi;
using Scheduler = sched::TwoLevel<8>;
constexpr unsigned sms = 16; // Radaideh 2020 Table 3.5

struct Totals {
    std::string variant;
    std::uint64_t cycles = 0, thread_instructions = 0;
    core::StatsTable stats;
    unsigned failures = 0;
    double ipc() const { return cycles == 0 ? 0 : double(thread_instructions) / double(cycles); }
    double c(std::string_view name) const {
        return static_cast<double>(stats.counter(std::string("sm.rf.") + std::string(name)));
    }
};

template <class RF, class Exec = exec::SimdExec>
Totals run_variant(const std::vector<std::string>& cases, kernels::Size size, Progress& progress) {
    using GpuType = typename Machine::template gpu<Scheduler, sms, RF, Exec>;
    Totals t;
    t.variant = std::string(RF::name) + "/" + std::string(Exec::name);
    for (const std::string& name : cases) {
        const kernels::CaseInfo& info = kernels::find_case(name);
        func::Device device;
        const auto module =
            func::Module::from_file(std::string(GPUARCH_KERNELS_DIR) + "/ptx/" + std::string(info.ptx_file));
        auto gpu = std::make_unique<GpuType>(Machine::template config<GpuType>());
        auto launcher = [&](const func::Module& m, std::string_view entry, const func::LaunchConfig& launch,
                            const func::Args& args) {
            const LaunchResult r = gpu->launch(device, m, entry, launch, args, TimingOptions{});
            t.cycles += r.cycles;
            t.thread_instructions += r.thread_instructions;
            t.stats.merge(r.stats);
        };
        const kernels::CaseResult result = kernels::run_case(name, device, module, launcher, size);
        if (!result.passed) {
            ++t.failures;
            progress.note(t.variant + ": " + name + " failed: " + result.message);
        }
        progress.step(t.variant + " " + name, result.passed);
    }
    return t;
}

// The variants carf_study_variants.cpp instantiates (declared here, so carf_study.cpp does not instantiate them).
#define GPUARCH_CARF_OTHER_UNIT_VARIANTS(prefix)                                                                       \
    prefix template Totals run_variant<regfile::CORF<4, 4, regfile::WidLayout>, exec::SimdExec>(                       \
        const std::vector<std::string>&, kernels::Size, Progress&);                                                    \
    prefix template Totals run_variant<                                                                                \
        regfile::CoalescingRF<4, regfile::Sub4, regfile::WshiftLayout, regfile::RegAlignment>, exec::SimdExec>(        \
        const std::vector<std::string>&, kernels::Size, Progress&);                                                    \
    prefix template Totals run_variant<                                                                                \
        regfile::CoalescingRF<4, regfile::Sub4, regfile::WidLayout, regfile::UpperBoundAlignment>, exec::SimdExec>(    \
        const std::vector<std::string>&, kernels::Size, Progress&);                                                    \
    prefix template Totals run_variant<regfile::WwfaRF<16, 16>, exec::SimdExec>(const std::vector<std::string>&,       \
                                                                                kernels::Size, Progress&);             \
    prefix template Totals                                                                                             \
    run_variant<regfile::ZeroGatedRF<16, 16, regfile::InactiveGating>, exec::InactiveGatedExec>(                       \
        const std::vector<std::string>&, kernels::Size, Progress&);                                                    \
    prefix template Totals                                                                                             \
    run_variant<regfile::ZeroGatedRF<16, 16, regfile::CrossLaneZeroGating>, exec::ZeroGatedExec>(                      \
        const std::vector<std::string>&, kernels::Size, Progress&);
GPUARCH_CARF_OTHER_UNIT_VARIANTS(extern)
} // namespace gpuarch::examples::carf
