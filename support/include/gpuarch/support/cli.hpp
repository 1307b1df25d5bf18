#pragma once
// The command-line convention every gpuarch executable follows (issue 24; README.md, "Command-line convention"):
//  - `--help` prints the usage, every option with what it does, and the exit codes on stdout, and exits 0;
//  - a usage error prints one line, "<program>: <what was wrong> (see <program> --help)", on stderr and exits 2;
//  - the same flag for the same thing: --size small|large, --machines a,b, --schedulers a,b, --kernels a,b,
//    --json FILE, --jobs N, --quiet;
//  - names (machines, schedulers, kernels) are checked while the command line is parsed, so a misspelt one stops
//    the program before any simulation starts;
//  - progress goes to stderr (progress.hpp).
// Built on CLI11 (Debian's libcli11-dev 2.1.2, which has no App::usage()). Standard library and CLI11 only, so
// programs that simulate nothing (tools/repro, sgemm_bounds built by hand) use it too.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuarch::examples {

// A comma-separated option value as its items: "fermi,,kepler" -> {"fermi", "kepler"} (empty items are dropped).
inline std::vector<std::string> comma_list(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) out.push_back(item);
    return out;
}

namespace cli {

// The exit codes every program shares; a program may add its own (sweep: 3 points missing, 130 interrupted).
inline constexpr int exit_ok = 0, exit_failed = 1, exit_usage = 2;

struct ExitCode {
    int code;
    std::string meaning;
};

// The usual three. `failed` says what exit status 1 means for this program.
inline std::vector<ExitCode> exit_codes(std::string failed) {
    return {{exit_ok, "success"}, {exit_failed, std::move(failed)}, {exit_usage, "usage error (one line on stderr)"}};
}

// Applies the convention to `app`: the exit codes as the help's footer, a help text wide enough for the option
// names used here, and no help-all flag (one --help says everything).
inline void describe_exit_codes(CLI::App& app, const std::vector<ExitCode>& codes) {
    std::size_t width = 1;
    for (const ExitCode& c : codes) width = std::max(width, std::to_string(c.code).size());
    std::string footer = "Exit status:\n";
    for (const ExitCode& c : codes) {
        std::string code = std::to_string(c.code);
        code.resize(width, ' ');
        footer += "  " + code + "  " + c.meaning + "\n";
    }
    app.footer(footer);
    app.get_formatter()->column_width(34);
}

// One line on stderr and the usage exit status. For checks CLI11 cannot express (a scheduler that none of the
// chosen machines has), made before any simulation.
inline int usage_error(const CLI::App& app, std::string_view message) {
    std::string line(message);
    // One line, whatever the message: CLI11 and std::exception texts may hold line breaks.
    std::replace(line.begin(), line.end(), '\n', ' ');
    std::cerr << app.get_name() << ": " << line << " (see " << app.get_name() << " --help)\n";
    return exit_usage;
}

// Parses the command line. Returns the exit status when the program must stop now (0 after --help, 2 after a usage
// error), nothing when it should go on:
//
//     if (const auto status = cli::parse(app, argc, argv)) return *status;
inline std::optional<int> parse(CLI::App& app, int argc, char** argv) {
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --help (CallForHelp) is the only "error" with status 0: CLI11 prints the help on stdout.
        if (e.get_exit_code() == 0) return app.exit(e);
        return usage_error(app, e.what());
    }
    return std::nullopt;
}

// `--size small|large` into any enum with `small` and `large` (kernels::Size; a template so that this header
// needs no corpus header).
template <class Size> CLI::Option* add_size(CLI::App& app, Size& size, std::string_view what = "kernel inputs") {
    const std::string default_name = size == Size::large ? "large" : "small";
    return app
        .add_option_function<std::string>(
            "--size", [&size](const std::string& s) { size = s == "large" ? Size::large : Size::small; },
            std::string(what) + ": the corpus drivers' small or large inputs (default " + default_name + ")")
        ->check(CLI::IsMember({"small", "large"}))
        ->type_name("SIZE");
}

// A comma-separated list of names, each checked against `valid` while parsing (so "--machines kepler,ampere" stops
// before anything runs). Case-insensitive; the stored names are spelt as in `valid`. `--name a,b --name c` adds up.
inline CLI::Option* add_names(CLI::App& app, const std::string& flag, std::vector<std::string>& names,
                              const std::vector<std::string>& valid, const std::string& help) {
    return app.add_option(flag, names, help)
        ->delimiter(',')
        ->allow_extra_args(false)
        // transform, not check: CLI11 discards what a check() validator writes back, and the spelling is wanted.
        ->transform(CLI::IsMember(valid, CLI::ignore_case))
        ->type_name("LIST");
}

// `--jobs N`: how many simulations run at once (threads or processes), at least 1.
inline CLI::Option* add_jobs(CLI::App& app, unsigned& jobs, std::string_view what = "simulations run at once") {
    return app.add_option("--jobs", jobs, std::string(what) + " (default " + std::to_string(jobs) + ")")
        ->check(CLI::Range(1U, 4096U))
        ->type_name("N");
}

// `--quiet`: no progress on stderr.
inline CLI::Option* add_quiet(CLI::App& app, bool& quiet, std::string_view also = "") {
    return app.add_flag("--quiet", quiet, "no progress on stderr" + std::string(also));
}

} // namespace cli
} // namespace gpuarch::examples
