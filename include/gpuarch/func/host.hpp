#pragma once
// The host API of the functional engine (docs/functional.md): Device, Module, LaunchConfig,
// Args, LaunchOptions, FunctionalStats and launch().
//
// Contract of launch(): runs every CTA of the grid to completion on the functional engine and returns how many
// warp- and thread-instructions executed. CTAs run in linear order, LaunchOptions::resident_ctas at a time;
// within them warps take turns of up to `launch_quantum` instructions, round-robin, so warps that wait for each
// other through memory still make progress. Any error throws before or during the launch (see KernelError).
#include <cstddef>
#include <cstdint>
#include <utility>
#include <string_view>
#include <vector>

#include <gpuarch/func/device.hpp>
#include <gpuarch/func/dim3.hpp>
#include <gpuarch/func/kernel_error.hpp>
#include <gpuarch/func/kernel_execution.hpp>
#include <gpuarch/func/launch_config.hpp>
#include <gpuarch/func/module.hpp>

namespace gpuarch::func {

// Instructions a warp executes before launch() moves to the next warp.
inline constexpr unsigned launch_quantum = 256;

inline FunctionalStats launch(Device& device, const Module& module, std::string_view entry, const LaunchConfig& config,
                              const Args& args, const LaunchOptions& options = {}) {
    KernelExecution execution(device, module, entry, config, args, options);
    const std::uint64_t total = execution.cta_count();
    // A cooperative grid is resident as a whole: its CTAs wait for each other at grid.sync().
    const std::uint64_t resident_limit = options.cooperative          ? total
                                         : options.resident_ctas == 0 ? 1
                                                                      : options.resident_ctas;
    std::vector<CtaState> resident, spare; // finished CTAs lend their buffers to the next ones
    std::uint64_t next = 0;
    while (next < total || !resident.empty()) {
        while (resident.size() < resident_limit && next < total) {
            if (spare.empty()) {
                resident.push_back(execution.start_cta(next++));
            } else {
                resident.push_back(std::move(spare.back()));
                spare.pop_back();
                execution.start_cta(resident.back(), next++);
            }
        }
        bool progressed = false;
        for (CtaState& cta : resident) {
            for (unsigned w = 0; w < cta.warp_count(); ++w) {
                for (unsigned n = 0; n < launch_quantum && cta.warp_ready(w); ++n) {
                    execution.step(cta, w);
                    progressed = true;
                }
            }
        }
        if (!progressed)
            for (const CtaState& cta : resident) execution.check_progress(cta);
        for (std::size_t i = 0; i < resident.size();) {
            if (resident[i].finished()) {
                spare.push_back(std::move(resident[i]));
                resident.erase(resident.begin() + static_cast<std::ptrdiff_t>(i));
            } else {
                ++i;
            }
        }
    }
    return FunctionalStats{execution.warp_instructions(), execution.thread_instructions(), total};
}

} // namespace gpuarch::func
