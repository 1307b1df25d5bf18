// The kernels of kernels/features/ on whole timed GPUs of every example machine (Fermi, Kepler, Southern Islands)
// with several schedulers: the SM accepts every new op class and the outputs, console text and errors are those
// of the functional engine (feature_kernels.hpp). Kept in its own translation unit: three machines are the
// heaviest instantiation of this folder.
#include "feature_kernels.hpp"

#include <gpuarch/machines.hpp>
#include <gpuarch/sched/gto.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sched/two_level.hpp>

#include <memory>

namespace {
using namespace gpuarch;
using namespace gpuarch::func::test::features;

// A launcher that runs the launch on a fresh Machine GPU with Scheduler and checks it took cycles. Register
// counts come from the .resources file beside the PTX (TimingOptions::registers_per_thread = 0).
template <class Machine, class Scheduler>
Launcher timed() {
    return Launcher{[](func::Device& device, const func::Module& module, std::string_view entry,
                       const func::LaunchConfig& config, const func::Args& args) {
                        using Gpu = typename Machine::template gpu<Scheduler>;
                        auto gpu = std::make_unique<Gpu>(Machine::template config<Gpu>());
                        const LaunchResult r = gpu->launch(device, module, entry, config, args);
                        CHECK(r.cycles > 0);
                    },
                    Machine::Frontend::warp_width};
}

template <class F>
void on_every_machine(F&& check) {
    check(timed<machines::Fermi, sched::GTO>());
    check(timed<machines::Fermi, sched::LRR>());
    check(timed<machines::Kepler, sched::GTO>());
    check(timed<machines::Kepler, sched::TwoLevel<8>>());
    check(timed<machines::SouthernIslands, sched::LRR>());
    check(timed<machines::SouthernIslands, sched::GTO>());
}
} // namespace

TEST_CASE("device printf under timing prints the functional engine's text on every machine and scheduler") {
    on_every_machine(check_printf_formats);
    on_every_machine(check_printf_string);
}

TEST_CASE("device assert and trap under timing stop the launch with their kind on every machine and scheduler") {
    on_every_machine(check_assert);
    on_every_machine(check_trap);
}

TEST_CASE("rsqrt.approx.f64, WARP_SZ (the machine's warp width) and predicate immediates under timing on every machine") {
    on_every_machine(check_plain_forms);
}
