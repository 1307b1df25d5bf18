// examples/fermi.cpp, kepler.cpp and southern_islands.cpp's shared body (gpuarch/support/machine_main.hpp).
#include <gpuarch/support/machine_main.hpp>

#include <gpuarch/support/cli.hpp>
#include <gpuarch/support/names.hpp>
#include <gpuarch/support/progress.hpp>
#include <gpuarch/support/report.hpp>
#include <gpuarch/support/variants.hpp>

#include <corpus/corpus.hpp>

#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace gpuarch::examples {

int machine_main(const char* machine, int argc, char** argv) {
    const std::string program = std::string(machine);
    CLI::App app{"Runs corpus kernels on the " + program +
                     "-like machine with each of its schedulers, checks every output against its CPU reference and "
                     "prints cycles, IPC and the top stall reasons per kernel and scheduler.",
                 program};
    std::vector<std::string> kernel_names, schedulers;
    std::string json_file;
    bool quiet = false;
    kernels::Size size = kernels::Size::small;
    cli::add_names(app, "--kernels", kernel_names, corpus_kernel_names(), "corpus kernels to run (default: all)");
    cli::add_names(app, "--schedulers", schedulers, scheduler_names(program),
                   "schedulers to run each kernel with (default: all of the machine's)");
    cli::add_size(app, size);
    app.add_option("--json", json_file, "write the rows as JSON to FILE ('-': stdout, instead of the table)")
        ->type_name("FILE");
    cli::add_quiet(app, quiet);
    cli::describe_exit_codes(app, cli::exit_codes("a kernel's output did not match its CPU reference, or FILE "
                                                  "could not be written"));
    if (const auto status = cli::parse(app, argc, argv)) return *status;
    if (kernel_names.empty()) kernel_names = corpus_kernel_names();
    if (schedulers.empty()) schedulers = scheduler_names(program);

    std::vector<RunRow> rows;
    bool all_passed = true;
    {
        Progress progress(program, kernel_names.size() * schedulers.size(), quiet);
        for (const auto& k : kernel_names)
            for (const auto& s : schedulers) {
                rows.push_back(run_variant(program, s, k, size));
                all_passed = all_passed && rows.back().passed;
                progress.step(s + " " + k, rows.back().passed);
            }
    }
    if (json_file.empty()) {
        print_table(std::cout, rows);
    } else if (json_file == "-") {
        print_json(std::cout, rows);
    } else {
        std::ofstream out(json_file);
        print_json(out, rows);
        if (!out) {
            std::cerr << program << ": cannot write " << json_file << '\n';
            return cli::exit_failed;
        }
        print_table(std::cout, rows);
    }
    return all_passed ? cli::exit_ok : cli::exit_failed;
}

} // namespace gpuarch::examples
