// Prints the HAWS hints of a PTX kernel next to its instructions (Gong 2020 Ch. 5; docs/hint_pass.md).
//
//   haws_hints FILE.ptx [KERNEL] [--chain N] [--max-offset N] [--no-branches] [--no-rename]
//
// Without a kernel name every entry of the module is printed. Each line shows the PTX of one instruction; the
// comment says whether it is a long-latency producer, a stall point (with the offset of its first chain
// instruction), or a chain member ("hint S<stall pc>+<offset>") with its next offset, rename and Format 2 offsets.
// Exit status: 0 on success, 1 when the file cannot be parsed, 2 for a usage error (a missing file or a kernel the
// module does not have).
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>

#include <gpuarch/ir/hint_pass.hpp>
#include <gpuarch/ptx/parser.hpp>

#include <gpuarch/support/cli.hpp>

int main(int argc, char** argv) {
    using namespace gpuarch;
    namespace cli = examples::cli;
    CLI::App app{"Prints the HAWS hints (Gong 2020 Ch. 5) of a PTX module's kernels next to their instructions.",
                 "haws_hints"};
    std::string file, kernel_name;
    ir::HintPassOptions options;
    bool no_branches = false, no_rename = false;
    app.add_option("file", file, "the PTX file")->required()->check(CLI::ExistingFile)->type_name("FILE.ptx");
    app.add_option("kernel", kernel_name, "the entry to print (default: every entry of the module)")
        ->type_name("KERNEL");
    app.add_option("--chain", options.max_chain_length,
                   "longest hint chain (default " + std::to_string(options.max_chain_length) + ")")
        ->check(CLI::PositiveNumber)
        ->type_name("N");
    app.add_option("--max-offset", options.max_offset,
                   "largest next-offset a hint may encode (default " + std::to_string(options.max_offset) + ")")
        // 1 .. 2047: the 11-bit Format 2 offset (ir/hint_pass.hpp).
        ->check(CLI::Range(1U, 2047U))
        ->type_name("N");
    app.add_flag("--no-branches", no_branches, "do not follow branches when building chains");
    app.add_flag("--no-rename", no_rename, "no register renaming in the chains");
    cli::describe_exit_codes(app, cli::exit_codes("the file could not be parsed"));
    if (const auto status = cli::parse(app, argc, argv)) return *status;
    options.follow_branches = !no_branches;
    options.rename = !no_rename;
    try {
        const ir::Module module = ptx::parse_file(file);
        // The kernel name is checked before anything is printed.
        if (!kernel_name.empty()) {
            std::string names;
            bool found = false;
            for (const ir::Kernel& kernel : module.kernels) {
                found = found || kernel.name == kernel_name;
                names += (names.empty() ? "" : ", ") + kernel.name;
            }
            if (!found)
                return cli::usage_error(app, "no kernel '" + kernel_name + "' in " + file + " (it has " + names + ")");
        }
        for (const ir::Kernel& kernel : module.kernels) {
            if (!kernel_name.empty() && kernel.name != kernel_name) continue;
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
    } catch (const std::exception& e) {
        std::cerr << "haws_hints: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
