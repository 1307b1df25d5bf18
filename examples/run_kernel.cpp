// Runs one kernel of the corpus on the functional engine and prints its result check.
//
//   run_kernel KERNEL [--size small|large] [--warp-width N] [--instruction-limit N]
//   run_kernel --list                                     (run_kernel --help says what each option does)
//
// The case's PTX is read from GPUARCH_KERNELS_DIR/ptx (the build defines it); the corpus driver generates the
// inputs, launches the kernel through a functional-only launcher and compares the outputs with its CPU reference.
// Exit status: 0 when the check passes, 1 when it fails or the kernel faults, 2 for a usage error.
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>

#include <gpuarch/func/host.hpp>

#include "corpus/corpus.hpp"
#include <gpuarch/support/cli.hpp>
#include <gpuarch/support/names.hpp>

#ifndef GPUARCH_KERNELS_DIR
#error "GPUARCH_KERNELS_DIR must name the kernels/ directory (the CMake build defines it)"
#endif

int main(int argc, char** argv) {
    using namespace gpuarch;
    CLI::App app{"Runs one corpus kernel on the functional engine (no timing) and checks its outputs against the "
                 "CPU reference.",
                 "run_kernel"};
    std::string kernel;
    bool list = false;
    kernels::Size size = kernels::Size::small;
    func::LaunchOptions options;
    app.add_option("kernel", kernel, "the corpus kernel to run (run_kernel --list names them)")
        ->check(CLI::IsMember(examples::corpus_kernel_names()))
        ->type_name("KERNEL");
    app.add_flag("--list", list, "list the corpus kernels with their tags and exit");
    examples::cli::add_size(app, size);
    app.add_option("--warp-width", options.warp_width,
                   "lanes per warp (default " + std::to_string(options.warp_width) + ")")
        ->check(CLI::Range(1U, 1024U))
        ->type_name("N");
    app.add_option("--instruction-limit", options.instruction_limit,
                   "stop a launch after N warp instructions (default " + std::to_string(options.instruction_limit) +
                       ")")
        ->type_name("N");
    examples::cli::describe_exit_codes(app, examples::cli::exit_codes("the check failed or the kernel faulted"));
    if (const auto status = examples::cli::parse(app, argc, argv)) return *status;
    if (list) {
        for (const kernels::CaseInfo& info : kernels::corpus_cases())
            std::cout << info.name << "  (" << info.tags << ")\n";
        return 0;
    }
    if (kernel.empty()) return examples::cli::usage_error(app, "no kernel given (run_kernel --list names them)");
    try {
        const kernels::CaseInfo& info = kernels::find_case(kernel);
        const func::Module module =
            func::Module::from_file(std::string(GPUARCH_KERNELS_DIR) + "/ptx/" + std::string(info.ptx_file));
        func::Device device;
        func::FunctionalStats total;
        std::uint64_t launches = 0;
        auto launcher = [&](const func::Module& m, std::string_view entry, const func::LaunchConfig& config,
                            const func::Args& args) {
            const func::FunctionalStats s = func::launch(device, m, entry, config, args, options);
            total.warp_instructions += s.warp_instructions;
            total.thread_instructions += s.thread_instructions;
            total.ctas += s.ctas;
            ++launches;
        };
        const auto start = std::chrono::steady_clock::now();
        const kernels::CaseResult result = kernels::run_case(info.name, device, module, launcher, size);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::cout << info.name << " (" << info.tags << "), size " << kernels::size_name(size) << ", warp width "
                  << options.warp_width << "\n"
                  << "  result: " << (result.passed ? "PASS" : "FAIL") << ", " << result.values_checked
                  << " values checked against the CPU reference\n";
        if (!result.passed) std::cout << "  " << result.message << "\n";
        std::cout << "  " << launches << " launch(es), " << total.ctas << " CTAs, " << total.warp_instructions
                  << " warp instructions, " << total.thread_instructions << " thread instructions\n"
                  << "  " << seconds << " s including input generation and the reference check\n";
        return result.passed ? 0 : 1;
    } catch (const std::exception& e) {
        std::cerr << "run_kernel: " << e.what() << "\n";
        return 1;
    }
}
