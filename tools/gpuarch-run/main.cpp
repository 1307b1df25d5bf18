// gpuarch-run: runs an unmodified CUDA program (built with `nvcc -cudart shared`) on a simulated machine.
//
//   gpuarch-run [--machine M] [--scheduler S] [--register-file R] [--config FILE] [--set KEY=VALUE]...
//               [--functional] [--sample] [--fast-forward LAUNCH] [--stats FILE.json]
//               [--stats-format gpuarch|gpgpusim] [--timeline [N] [--timeline-dir DIR]] [--quiet] -- ./app args...
//
// It checks the names against the registry of prebuilt variants before anything runs, checks that the program
// loads the CUDA runtime dynamically, then executes it with gpuarch's libcudart.so.13 preloaded and the settings
// in GPUARCH_SETTINGS. Exit status: the program's own; 2 for a usage error; 1 when the program cannot be run.
#include "elf_check.hpp"

#include <gpuarch/core/error.hpp>
#include <gpuarch/support/sampling.hpp>
#include <gpuarch/support/settings.hpp>
#include <gpuarch/support/simulator.hpp>

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using gpuarch::support::Settings;

std::string joined(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
    return out;
}

// gpuarch's libcudart.so.13: GPUARCH_CUDART, else beside this executable in the build tree (../../lib) or in an
// install (../lib/gpuarch).
fs::path find_runtime() {
    if (const char* env = std::getenv("GPUARCH_CUDART"); env != nullptr && *env != '\0') return env;
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    for (const fs::path& candidate :
         {self.parent_path() / "../../lib/libcudart.so.13", self.parent_path() / "../lib/gpuarch/libcudart.so.13",
          self.parent_path() / "../lib/libcudart.so.13"})
        if (fs::exists(candidate, ec)) return fs::weakly_canonical(candidate, ec);
    return {};
}

// The program as execvp would find it.
fs::path resolve_program(const std::string& name) {
    if (name.find('/') != std::string::npos) return name;
    if (const char* path = std::getenv("PATH")) {
        std::string_view rest(path);
        while (!rest.empty()) {
            const auto colon = rest.find(':');
            const fs::path candidate = fs::path(std::string(rest.substr(0, colon))) / name;
            if (::access(candidate.c_str(), X_OK) == 0) return candidate;
            rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
        }
    }
    return name;
}

void print_settings_help() {
    std::cout << "Settings (--set KEY=VALUE, or `KEY = VALUE` lines in a --config file; '#' starts a comment):\n";
    for (const auto& k : gpuarch::support::setting_keys()) {
        std::string line = "  " + std::string(k.key);
        if (!k.choices.empty()) line += " (" + std::string(k.choices) + ")";
        line += "\n      " + std::string(k.help) + "; default " +
                (k.default_value.empty() ? std::string("the machine preset's") : std::string(k.default_value)) + "\n";
        std::cout << line;
    }
}

} // namespace

// `--timeline` without a value: an interval fine enough to show a kernel's phases (a thousand points for a
// launch of a million cycles) at about 2% of host time, measured by bench/timeline_overhead.py (docs/timeline.md).
constexpr std::uint64_t default_timeline_interval = 1000;

int main(int argc, char** argv) {
    CLI::App app{"Runs an unmodified CUDA program (nvcc -cudart shared) on a simulated GPU.\n"
                 "Exit status: the program's own; 1 when it cannot be started; 2 for a usage error.",
                 "gpuarch-run"};
    std::string machine, scheduler, register_file, config, stats, stats_format, fast_forward, timeline_dir;
    std::uint64_t timeline = 0;
    std::vector<std::string> sets, command;
    bool functional = false, quiet = false, list = false, help_config = false, sampled = false;
    app.add_option("--machine", machine, "machine preset: " + joined(gpuarch::support::machine_names()));
    app.add_option("--scheduler", scheduler, "warp scheduler: " + joined(gpuarch::support::scheduler_names()));
    app.add_option("--register-file", register_file,
                   "register file: " + joined(gpuarch::support::register_file_names()));
    app.add_option("--config", config, "a gpgpusim.config-style file of `key = value` settings")
        ->check(CLI::ExistingFile);
    app.add_option("--set", sets, "one setting, KEY=VALUE (repeatable; after --config, before the flags above)");
    app.add_flag("--functional", functional, "run kernels on the functional engine only (no timing)");
    app.add_flag("--sample", sampled,
                 "sampled timing for long runs: extrapolate long launches from some CTAs and repeated launches from "
                 "some launches, each figure with a stated error (docs/sampling.md; settings sample.*)");
    app.add_option("--fast-forward", fast_forward,
                   "run the launches before this one functionally: a launch index, a kernel name, or NAME#K");
    app.add_option("--stats", stats, "write every launch's statistics to this JSON file");
    app.add_option("--timeline", timeline,
                   "interval statistics every N simulated cycles (N = 1000 when omitted), streamed to CSV for "
                   "gpuarch-report (docs/timeline.md)")
        ->expected(0, 1)
        ->default_str(std::to_string(default_timeline_interval))
        ->check(CLI::PositiveNumber);
    app.add_option("--timeline-dir", timeline_dir,
                   "where --timeline writes (default PROGRAM.MACHINE.SCHEDULER.timeline in the working directory)");
    app.add_flag("--quiet", quiet, "print only the totals at exit, not a block per kernel");
    app.add_option("--stats-format", stats_format,
                   "statistics on stderr: gpuarch (default) or gpgpusim (GPGPU-Sim's names and definitions)")
        ->check(CLI::IsMember({"gpuarch", "gpgpusim"}));
    app.add_flag("--list", list, "list the prebuilt variants and exit");
    app.add_flag("--help-config", help_config, "list every setting with its default and exit");
    app.add_option("command", command, "the program and its arguments (after --)");
    // Everything after the first `--` is the program and its own arguments, whatever precedes it: CLI11 alone would
    // let a repeatable option just before `--` (`--set K=V -- ./app --size 1`) end at that `--` and then read the
    // program's flags as its own.
    int own_argc = argc;
    for (int i = 1; i < argc; ++i)
        if (std::string_view(argv[i]) == "--") {
            own_argc = i;
            command.assign(argv + i + 1, argv + argc);
            break;
        }
    try {
        std::vector<std::string> command_after_dashes = command;
        app.parse(own_argc, argv);
        if (own_argc != argc) command = std::move(command_after_dashes);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : 2;
    }
    if (help_config) {
        print_settings_help();
        return 0;
    }
    if (list) {
        std::cout << "machine           scheduler            register_file\n";
        for (const auto& v : gpuarch::support::variant_names())
            std::printf("%-17s %-20s %s\n", v.machine.c_str(), v.scheduler.c_str(), v.register_file.c_str());
        return 0;
    }
    Settings settings;
    try {
        if (!config.empty()) settings.load_file(config);
        for (const auto& s : sets) {
            const auto eq = s.find('=');
            if (eq == std::string::npos) throw gpuarch::Error("--set needs KEY=VALUE, got '" + s + "'");
            settings.set(s.substr(0, eq), s.substr(eq + 1), "--set");
        }
        if (!machine.empty()) settings.set("machine", machine, "--machine");
        if (!scheduler.empty()) settings.set("scheduler", scheduler, "--scheduler");
        if (!register_file.empty()) settings.set("register_file", register_file, "--register-file");
        if (functional) settings.set("functional", "true", "--functional");
        if (sampled) settings.set("sample", "true", "--sample");
        if (!fast_forward.empty()) settings.set("sample.fast_forward", fast_forward, "--fast-forward");
        if (!stats.empty()) settings.set("stats", fs::absolute(stats).string(), "--stats");
        if (quiet) settings.set("quiet", "true", "--quiet");
        if (timeline != 0) settings.set("timeline", std::to_string(timeline), "--timeline");
        if (!timeline_dir.empty()) settings.set("timeline.dir", fs::absolute(timeline_dir).string(), "--timeline-dir");
        if (settings.get_uint("timeline") != 0 && settings.get_bool("functional"))
            throw gpuarch::Error("--timeline needs timing, and --functional (functional = true) runs none");
        if (!settings.get("timeline.dir").empty() && settings.get_uint("timeline") == 0)
            throw gpuarch::Error("--timeline-dir (timeline.dir) is set but --timeline (timeline) is 0: no timeline "
                                 "would be written");
        if (!stats_format.empty()) settings.set("stats_format", stats_format, "--stats-format");
        gpuarch::support::check_variant(settings);
        // The sampling settings' own checks (a warm-up needs an index target), before the program starts.
        gpuarch::sample::LaunchSampler check_sampling(gpuarch::support::launch_sampling_options(settings));
    } catch (const std::exception& e) {
        std::cerr << "gpuarch-run: " << e.what() << "\n";
        return 2;
    }
    if (command.empty()) {
        std::cerr << "gpuarch-run: no program given; usage: gpuarch-run [OPTIONS] -- PROGRAM [ARGS...]\n";
        return 2;
    }
    const fs::path program = resolve_program(command[0]);
    try {
        const gpuarch::run::ProgramCheck check = gpuarch::run::check_program(program);
        if (!check.problem.empty()) {
            std::cerr << "gpuarch-run: " << check.problem << "\n";
            return 1;
        }
        if (!check.note.empty()) std::cerr << "gpuarch-run: note: " << check.note << "\n";
    } catch (const std::exception& e) {
        std::cerr << "gpuarch-run: " << e.what() << "\n";
        return 1;
    }
    const fs::path runtime = find_runtime();
    if (runtime.empty()) {
        std::cerr << "gpuarch-run: cannot find gpuarch's libcudart.so.13 (set GPUARCH_CUDART to its path)\n";
        return 1;
    }
    // The preloaded library carries the soname libcudart.so.13, so it also satisfies the program's DT_NEEDED entry
    // and NVIDIA's runtime is never loaded; LD_LIBRARY_PATH covers children started through a shell script.
    std::string preload = runtime.string();
    if (const char* old = std::getenv("LD_PRELOAD"); old != nullptr && *old != '\0') preload += std::string(":") + old;
    std::string library_path = runtime.parent_path().string();
    if (const char* old = std::getenv("LD_LIBRARY_PATH"); old != nullptr && *old != '\0')
        library_path += std::string(":") + old;
    ::setenv("LD_PRELOAD", preload.c_str(), 1);
    ::setenv("LD_LIBRARY_PATH", library_path.c_str(), 1);
    ::setenv("GPUARCH_SETTINGS", settings.to_list().c_str(), 1);
    ::unsetenv("GPUARCH_CONFIG"); // already merged into GPUARCH_SETTINGS
    std::vector<char*> args;
    for (auto& a : command) args.push_back(a.data());
    args.push_back(nullptr);
    std::fflush(stdout);
    ::execv(program.c_str(), args.data());
    std::perror(("gpuarch-run: cannot execute " + program.string()).c_str());
    return 1;
}
