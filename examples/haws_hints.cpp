// Prints the HAWS hints of a PTX kernel next to its instructions (Gong 2020 Ch. 5; docs/hint_pass.md).
//
//   haws_hints <file.ptx> [kernel] [--chain N] [--max-offset N] [--no-branches] [--no-rename]
//
// Without a kernel name every entry of the module is printed. Each line shows the PTX of one instruction; the
// comment says whether it is a long-latency producer, a stall point (with the offset of its first chain
// instruction), or a chain member ("hint S<stall pc>+<offset>") with its next offset, rename and Format 2 offsets.
// Exit status: 0 on success, 1 when the file cannot be parsed or the kernel does not exist, 2 for a usage error.
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>

#include <gpuarch/ir/hint_pass.hpp>
#include <gpuarch/ptx/parser.hpp>

namespace {

int usage(const char* program) {
    std::cerr << "usage: " << program
              << " <file.ptx> [kernel] [--chain N] [--max-offset N] [--no-branches] [--no-rename]\n";
    return 2;
}

bool parse_unsigned(std::string_view text, unsigned& value) {
    if (text.empty()) return false;
    char* end = nullptr;
    const std::string copy(text);
    const unsigned long v = std::strtoul(copy.c_str(), &end, 10);
    if (end == nullptr || *end != '\0' || v > 0xffffffffUL) return false;
    value = static_cast<unsigned>(v);
    return true;
}

} // namespace

int main(int argc, char** argv) {
    using namespace gpuarch;
    std::string file, kernel_name;
    ir::HintPassOptions options;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--chain" && i + 1 < argc) {
            if (!parse_unsigned(argv[++i], options.max_chain_length)) return usage(argv[0]);
        } else if (arg == "--max-offset" && i + 1 < argc) {
            if (!parse_unsigned(argv[++i], options.max_offset)) return usage(argv[0]);
        } else if (arg == "--no-branches") {
            options.follow_branches = false;
        } else if (arg == "--no-rename") {
            options.rename = false;
        } else if (arg.starts_with("--")) {
            return usage(argv[0]);
        } else if (file.empty()) {
            file = arg;
        } else if (kernel_name.empty()) {
            kernel_name = arg;
        } else {
            return usage(argv[0]);
        }
    }
    if (file.empty()) return usage(argv[0]);
    try {
        const ir::Module module = ptx::parse_file(file);
        bool found = false;
        for (const ir::Kernel& kernel : module.kernels) {
            if (!kernel_name.empty() && kernel.name != kernel_name) continue;
            found = true;
            const ir::KernelHints hints = ir::compute_hints(kernel, options);
            unsigned stall = 0, hinted = 0;
            for (std::size_t pc = 0; pc < kernel.code.size(); ++pc) {
                stall += hints.stall_point[pc] ? 1U : 0U;
                hinted += hints.chain_start[pc] != ir::no_pc ? 1U : 0U;
            }
            std::cout << "// " << kernel.name << ": " << kernel.code.size() << " instructions, " << stall
                      << " stall points, " << hinted << " hinted instructions\n"
                      << ir::print_hints(kernel, hints, &module) << "\n";
        }
        if (!found) {
            std::cerr << "error: no kernel '" << kernel_name << "' in " << file << "\n";
            return 1;
        }
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
