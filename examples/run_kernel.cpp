// Runs one kernel of the corpus on the functional engine and prints its result check.
//
//   run_kernel <case> [--size small|large] [--warp-width N] [--instruction-limit N]
//   run_kernel --list
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

#ifndef GPUARCH_KERNELS_DIR
#error "GPUARCH_KERNELS_DIR must name the kernels/ directory (the CMake build defines it)"
#endif

namespace {

int usage(const char* program) {
    std::cerr << "usage: " << program
              << " <case> [--size small|large] [--warp-width N] [--instruction-limit N]\n       " << program
              << " --list\n";
    return 2;
}

bool parse_number(std::string_view text, std::uint64_t& value) {
    if (text.empty()) return false;
    char* end = nullptr;
    const std::string copy(text);
    value = std::strtoull(copy.c_str(), &end, 10);
    return end != nullptr && *end == '\0';
}

} // namespace

int main(int argc, char** argv) {
    using namespace gpuarch;
    if (argc < 2) return usage(argv[0]);
    const std::string_view first = argv[1];
    if (first == "--list") {
        for (const kernels::CaseInfo& info : kernels::corpus_cases())
            std::cout << info.name << "  (" << info.tags << ")\n";
        return 0;
    }
    kernels::Size size = kernels::Size::small;
    func::LaunchOptions options;
    for (int i = 2; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (i + 1 >= argc) return usage(argv[0]);
        const std::string_view value = argv[++i];
        std::uint64_t number = 0;
        if (arg == "--size" && (value == "small" || value == "large")) {
            size = value == "small" ? kernels::Size::small : kernels::Size::large;
        } else if (arg == "--warp-width" && parse_number(value, number)) {
            options.warp_width = static_cast<std::uint32_t>(number);
        } else if (arg == "--instruction-limit" && parse_number(value, number)) {
            options.instruction_limit = number;
        } else {
            return usage(argv[0]);
        }
    }
    try {
        const kernels::CaseInfo& info = kernels::find_case(first);
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
