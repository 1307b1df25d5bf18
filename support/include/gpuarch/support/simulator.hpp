#pragma once
// The registry of prebuilt simulator variants, selectable by name at run time (gpuarch-run, the CUDA runtime).
//
// Every variant is a compile-time type, `machines::<M>::gpu<Scheduler, SMs, RegisterFile>`, instantiated in one of
// support/src/variants_*.cpp (a few per translation unit, to keep each unit's compile memory low). A run-time name
// maps to a variant through a table of factories built with Boost.MP11 over type lists; the simulation path has no
// virtual dispatch: `Simulator::launch` is one indirect call per kernel launch into a fully typed GPU::launch.
//
// Run-time names are lower snake_case: machines `fermi`, `kepler`, `southern_islands`; schedulers by their policy
// names, GPGPU-Sim's where one exists (`lrr`, `gto`); register files `ideal`, `banked`, `coalescing`.
#include <gpuarch/func/device.hpp>
#include <gpuarch/func/launch_config.hpp>
#include <gpuarch/func/module.hpp>
#include <gpuarch/support/settings.hpp>
#include <gpuarch/timed_launch.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gpuarch::support {

// What a CUDA program's device queries report: the simulated machine's real parameters.
struct MachineInfo {
    std::string name; // run-time name ("kepler")
    std::string description; // e.g. "Kepler K20X-like (Gong 2020 Table 4.1)"
    unsigned sms = 0;
    unsigned warp_size = 0;
    unsigned max_threads_per_sm = 0;
    unsigned max_warps_per_sm = 0;
    unsigned max_ctas_per_sm = 0;
    unsigned registers_per_sm = 0;
    unsigned shared_bytes_per_sm = 0;
    unsigned register_allocation_unit = 0;
    double core_clock_mhz = 0;
    double dram_clock_mhz = 0;
    std::uint64_t l2_bytes = 0;
    unsigned memory_partitions = 0;
    unsigned dram_bus_bits = 0; // all partitions together
    unsigned schedulers_per_sm = 0;
};

struct VariantName {
    std::string machine, scheduler, register_file;
};

class Simulator {
public:
    using LaunchFn = LaunchResult (*)(void* gpu, func::Device&, const func::Module&, std::string_view,
                                      const func::LaunchConfig&, const func::Args&, const TimingOptions&);

    Simulator(std::shared_ptr<void> gpu, LaunchFn launch, std::string description, MachineInfo machine)
        : gpu_(std::move(gpu)), launch_(launch), description_(std::move(description)), machine_(std::move(machine)) {}

    LaunchResult launch(func::Device& device, const func::Module& module, std::string_view entry,
                        const func::LaunchConfig& config, const func::Args& args, const TimingOptions& options) {
        return launch_(gpu_.get(), device, module, entry, config, args, options);
    }
    // The compiled variant's name (every slot's policy with its knobs, and the SM count), followed by every
    // run-time override of a knob, so the name states what actually runs.
    const std::string& description() const { return description_; }
    const MachineInfo& machine() const { return machine_; }

private:
    std::shared_ptr<void> gpu_;
    LaunchFn launch_;
    std::string description_;
    MachineInfo machine_;
};

std::vector<std::string> machine_names();
std::vector<std::string> scheduler_names();
std::vector<std::string> register_file_names();
// Every prebuilt (machine, scheduler, register file) combination.
std::vector<VariantName> variant_names();
// The machine's parameters with `settings`' overrides applied (l1.*, l2.*, memory.*). Throws for an unknown name.
MachineInfo machine_info(std::string_view machine, const Settings& settings = {});
// Checks that the settings name a prebuilt variant; the error lists the valid names (or, for a register file
// prebuilt with some schedulers only, the combinations that exist).
void check_variant(const Settings& settings);
// Builds the variant `settings` names, its configuration adjusted by the knob settings.
Simulator make_simulator(const Settings& settings);

} // namespace gpuarch::support
