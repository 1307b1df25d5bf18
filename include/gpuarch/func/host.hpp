#pragma once
// The host API of the functional engine (docs/functional.md): Device, Module, LaunchConfig,
// Args, LaunchOptions, FunctionalStats and launch().
//
// Contract of launch(): runs every CTA of the grid to completion on the functional engine and returns how many
// warp- and thread-instructions executed. CTAs run in linear order, LaunchOptions::resident_ctas at a time;
// within them warps take turns of up to `launch_quantum` instructions, round-robin, so warps that wait for each
// other through memory still make progress. Any error throws before or during the launch (see KernelError).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <string_view>
#include <type_traits>
#include <vector>

#include <gpuarch/func/device.hpp>
#include <gpuarch/func/dim3.hpp>
#include <gpuarch/func/kernel_error.hpp>
#include <gpuarch/func/kernel_execution.hpp>
#include <gpuarch/func/launch_config.hpp>
#include <gpuarch/func/module.hpp>
#include <gpuarch/func/step_result.hpp>

namespace gpuarch::func {

// Instructions a warp executes before launch() moves to the next warp.
inline constexpr unsigned launch_quantum = 256;

// Runs CTAs [first, last) of `execution` to completion, `resident_limit` at a time (at least one), as launch()
// does. With an observer, each step's StepResult goes to `observe(const StepResult&)`: timing's sampled launches
// (TimingOptions::cta_sampling) run the CTAs they skip so, warming the L2 with their accesses.
struct NoStepObserver {};

template <class Observer = NoStepObserver>
void run_ctas(KernelExecution& execution, std::uint64_t first, std::uint64_t last, std::uint64_t resident_limit,
              Observer&& observe = {}) {
    constexpr bool observed = !std::is_same_v<std::remove_cvref_t<Observer>, NoStepObserver>;
    StepResult result(execution.warp_width());
    resident_limit = std::max<std::uint64_t>(resident_limit, 1);
    std::vector<CtaState> resident, spare; // finished CTAs lend their buffers to the next ones
    std::uint64_t next = first;
    while (next < last || !resident.empty()) {
        while (resident.size() < resident_limit && next < last) {
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
                if constexpr (observed) {
                    for (unsigned n = 0; n < launch_quantum && cta.warp_ready(w); ++n) {
                        execution.step(cta, w, result);
                        observe(static_cast<const StepResult&>(result));
                        progressed = true;
                    }
                } else if (cta.warp_ready(w)) {
                    execution.run_steps(cta, w, launch_quantum);
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
}

inline FunctionalStats launch(Device& device, const Module& module, std::string_view entry, const LaunchConfig& config,
                              const Args& args, const LaunchOptions& options = {}) {
    KernelExecution execution(device, module, entry, config, args, options);
    const std::uint64_t total = execution.cta_count();
    // A cooperative grid is resident as a whole: its CTAs wait for each other at grid.sync().
    const std::uint64_t resident_limit = options.cooperative          ? total
                                         : options.resident_ctas == 0 ? 1
                                                                      : options.resident_ctas;
    run_ctas(execution, 0, total, resident_limit);
    return FunctionalStats{execution.warp_instructions(), execution.thread_instructions(), total};
}

} // namespace gpuarch::func
