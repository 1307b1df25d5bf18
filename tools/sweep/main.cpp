// sweep: design-space sweeps over the example machines' precompiled variants, corpus kernels and run-time knobs,
// on this machine or as a Slurm job array. See docs/sweeps.md.
//
//   sweep run SPEC [--jobs N] [--out DIR] [--retry-failed] [--timeout S] [--quiet]
//   sweep list SPEC [--out DIR]
//   sweep slurm SPEC [--out DIR] [--chunk K] [--partition P] [--no-submit] [--wait] [--sbatch CMD]
//   sweep collect SPEC [--out DIR] [--quiet]
//   sweep point-chunk SPEC --index I [--chunk K] [--out DIR] [--jobs N] [--timeout S]   (a Slurm array task)
//   sweep point --out DIR --point JSON                                                   (one worker process)
//
// Exit status: 0 every point has an "ok" record; 1 some point failed, crashed or timed out; 2 usage or spec
// error; 3 points are missing (collect); 130 interrupted (run again to resume). The command line follows the
// convention of support/include/gpuarch/support/cli.hpp (`sweep --help`, `sweep run --help`; a usage error is one line).
#include "record.hpp"
#include "runner.hpp"
#include "slurm.hpp"
#include "spec.hpp"

#include <gpuarch/core/error.hpp>

#include <gpuarch/support/cli.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <set>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using namespace gpuarch;
using namespace gpuarch::sweep;

constexpr int exit_ok = 0, exit_failed = 1, exit_usage = 2, exit_missing = 3, exit_interrupted = 130;

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Args {
    std::vector<std::string> positional;
    std::map<std::string, std::string> values;
    std::set<std::string> flags;

    bool has(const std::string& key) const { return values.count(key) != 0 || flags.count(key) != 0; }
    std::string value(const std::string& key, const std::string& fallback = "") const {
        const auto it = values.find(key);
        return it == values.end() ? fallback : it->second;
    }
    unsigned long number(const std::string& key, unsigned long fallback, unsigned long min = 0) const {
        const auto it = values.find(key);
        if (it == values.end()) return fallback;
        std::size_t used = 0;
        unsigned long n = 0;
        try {
            n = std::stoul(it->second, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != it->second.size() || it->second.empty() || it->second[0] == '-' || n < min)
            throw UsageError(key + " needs a whole number of at least " + std::to_string(min) + ", got '" + it->second +
                             "'");
        return n;
    }
    double seconds(const std::string& key) const {
        const auto it = values.find(key);
        if (it == values.end()) return 0;
        char* end = nullptr;
        const double s = std::strtod(it->second.c_str(), &end);
        if (end == it->second.c_str() || *end != '\0' || !(s >= 0))
            throw UsageError(key + " needs seconds, got '" + it->second + "'");
        return s;
    }
};

// Options land in Args by name, so the commands below read them the same way whatever parsed them.
void value_option(CLI::App* command, Args& args, const std::string& flag, const std::string& type,
                  const std::string& help) {
    command
        ->add_option_function<std::string>(
            flag, [&args, flag](const std::string& v) { args.values[flag] = v; }, help)
        ->type_name(type);
}
void flag_option(CLI::App* command, Args& args, const std::string& flag, const std::string& help) {
    command->add_flag_function(
        flag, [&args, flag](std::int64_t) { args.flags.insert(flag); }, help);
}
void spec_argument(CLI::App* command, Args& args) {
    command
        ->add_option_function<std::string>(
            "spec", [&args](const std::string& v) { args.positional.push_back(v); },
            "the sweep spec (JSON; docs/sweeps.md)")
        ->required()
        ->check(CLI::ExistingFile)
        ->type_name("SPEC");
}

fs::path out_dir(const Args& args, const Spec& spec) {
    return args.has("--out") ? fs::path(args.value("--out")) : fs::path("out") / spec.name;
}

// Merges, writes DIR/results.csv and prints the table (or only its last line).
Merged merge_and_report(const std::vector<Point>& points, const fs::path& out, bool quiet) {
    Merged merged = merge(points, out);
    write_csv_file(out / "results.csv", merged);
    if (quiet) {
        std::ostringstream table;
        print_summary(table, merged);
        const std::string text = table.str();
        const std::size_t last = text.rfind('\n', text.size() - 2);
        std::cout << text.substr(last == std::string::npos ? 0 : last + 1);
    } else {
        print_summary(std::cout, merged);
    }
    std::cout << "wrote " << (out / "results.csv").string() << '\n';
    return merged;
}

int cmd_run(const Args& args) {
    const Spec spec = load_spec(args.positional[0]);
    const auto points = expand(spec);
    RunOptions options;
    options.out = out_dir(args, spec);
    options.jobs = static_cast<unsigned>(args.number("--jobs", available_cpus(), 1));
    options.retry_failed = args.has("--retry-failed");
    options.progress = !args.has("--quiet");
    options.timeout_s = args.seconds("--timeout");
    const RunSummary summary = run_tasks(make_tasks(points), options, self_worker(self_exe(), options.out), std::cerr);
    const Merged merged = merge_and_report(points, options.out, args.has("--quiet"));
    if (summary.interrupted) {
        std::cerr << "sweep: interrupted; " << merged.missing.size()
                  << " points have no result yet. Run the same command again to resume.\n";
        return exit_interrupted;
    }
    if (!merged.missing.empty()) return exit_missing;
    return merged.failed == 0 ? exit_ok : exit_failed;
}

int cmd_list(const Args& args) {
    const Spec spec = load_spec(args.positional[0]);
    const auto points = expand(spec);
    const fs::path out = out_dir(args, spec);
    std::size_t done = 0;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const std::string id = point_id(points[i]);
        const auto record = read_record(out, id);
        done += record ? 1 : 0;
        std::cout << i << ' ' << id << ' ' << (record ? (*record)["status"].get<std::string>() : "todo") << ' '
                  << describe(points[i]) << '\n';
    }
    std::cout << points.size() << " points, " << done << " with results in " << out.string() << '\n';
    return exit_ok;
}

int cmd_point(const Args& args) {
    if (!args.has("--out") || !args.has("--point")) throw UsageError("point needs --out DIR and --point JSON");
    nlohmann::json json;
    try {
        json = nlohmann::json::parse(args.value("--point"));
    } catch (const nlohmann::json::exception& e) {
        throw UsageError(std::string("--point is not JSON: ") + e.what());
    }
    const Point point = point_from_json(json);
    std::cout << "sweep point " << point_id(point) << ": " << describe(point) << std::endl;
    const Record record = execute_point(point);
    std::cout << "status " << record["status"].get<std::string>() << ", " << record["cycles"].get<std::uint64_t>()
              << " cycles";
    if (record["status"] != "ok") std::cout << ": " << record["message"].get<std::string>();
    std::cout << std::endl;
    write_record(args.value("--out"), point_id(point), record);
    return exit_ok;
}

int cmd_point_chunk(const Args& args) {
    const Spec spec = load_spec(args.positional[0]);
    if (!args.has("--index")) throw UsageError("point-chunk needs --index I");
    const auto points = expand(spec);
    const std::size_t chunk = args.number("--chunk", spec.slurm.chunk, 1);
    const std::size_t index = args.number("--index", 0);
    const std::size_t first = index * chunk;
    if (first >= points.size())
        throw UsageError("--index " + std::to_string(index) + " is past the last chunk (" +
                         std::to_string(points.size()) + " points in chunks of " + std::to_string(chunk) + ")");
    const auto all = make_tasks(points);
    const std::vector<Task> tasks(all.begin() + static_cast<std::ptrdiff_t>(first),
                                  all.begin() + static_cast<std::ptrdiff_t>(std::min(points.size(), first + chunk)));
    RunOptions options;
    options.out = out_dir(args, spec);
    options.jobs = static_cast<unsigned>(args.number("--jobs", available_cpus(), 1));
    options.timeout_s = args.seconds("--timeout");
    std::cerr << "sweep point-chunk " << index << ": points " << first << ".." << first + tasks.size() - 1 << " of "
              << points.size() << '\n';
    const RunSummary summary = run_tasks(tasks, options, self_worker(self_exe(), options.out), std::cerr);
    std::cerr << "sweep point-chunk " << index << ": " << summary.skipped << " skipped, " << summary.ok << " ok, "
              << summary.failed << " failed, " << summary.unfinished << " unfinished\n";
    // Failed points are results (recorded); the task fails only when it could not record every point.
    if (summary.interrupted) return exit_interrupted;
    return summary.unfinished == 0 ? exit_ok : exit_missing;
}

int cmd_collect_points(const std::vector<Point>& points, const fs::path& out, bool quiet) {
    const Merged merged = merge_and_report(points, out, quiet);
    // Which array task held a point, when the directory was filled by `sweep slurm`.
    std::size_t chunk = 0;
    std::string job;
    if (std::ifstream in(out / "slurm" / "array.json"); in) {
        try {
            const auto j = nlohmann::json::parse(in);
            chunk = j.at("chunk").get<std::size_t>();
            job = j.at("job_id").get<std::string>();
        } catch (const nlohmann::json::exception&) {
            chunk = 0;
        }
    }
    constexpr std::size_t shown = 20;
    std::size_t listed = 0;
    for (const std::size_t i : merged.missing) {
        if (listed++ == shown) {
            std::cout << "... and " << merged.missing.size() - shown << " more missing\n";
            break;
        }
        std::cout << "MISSING point " << i << " (" << point_id(points[i]) << "): " << describe(points[i]);
        if (chunk != 0) {
            std::cout << "; array task " << i / chunk;
            if (!job.empty())
                std::cout << ", log " << (out / "slurm" / (job + "_" + std::to_string(i / chunk) + ".out")).string();
        }
        const fs::path log = log_path(out, point_id(points[i]));
        if (fs::exists(log)) std::cout << "; worker log " << log.string();
        std::cout << '\n';
    }
    listed = 0;
    for (std::size_t k = 0; k < merged.records.size(); ++k) {
        const Record& r = merged.records[k];
        if (r["status"] == "ok") continue;
        if (listed++ == shown) {
            std::cout << "... and more failed points (status column of results.csv)\n";
            break;
        }
        const std::size_t i = merged.present[k];
        const fs::path log = log_path(out, r["id"].get<std::string>());
        std::cout << "FAILED point " << i << " (" << r["id"].get<std::string>() << ", "
                  << r["status"].get<std::string>() << "): " << describe(points[i]) << "\n  "
                  << r["message"].get<std::string>().substr(0, 400) << "\n  log " << log.string() << ":\n";
        std::istringstream tail(tail_of(log, 8));
        for (std::string line; std::getline(tail, line);) std::cout << "    " << line << '\n';
    }
    if (!merged.missing.empty()) return exit_missing;
    return merged.failed == 0 ? exit_ok : exit_failed;
}

int cmd_collect(const Args& args) {
    const Spec spec = load_spec(args.positional[0]);
    return cmd_collect_points(expand(spec), out_dir(args, spec), args.has("--quiet"));
}

int cmd_slurm(const Args& args) {
    const fs::path spec_path = args.positional[0];
    const Spec spec = load_spec(spec_path);
    const auto points = expand(spec);
    const fs::path out = fs::absolute(out_dir(args, spec)).lexically_normal();
    const std::size_t chunk = args.number("--chunk", spec.slurm.chunk, 1);
    fs::create_directories(out / "slurm");
    fs::create_directories(out / "results");
    fs::create_directories(out / "logs");

    std::vector<std::string> ids;
    for (const auto& p : points) ids.push_back(point_id(p));
    const auto tasks = unfinished_chunks(ids, chunk, out);
    const std::size_t chunks = (points.size() + chunk - 1) / chunk;
    if (tasks.empty()) {
        std::cout << "sweep: all " << points.size() << " points already have results in " << out.string()
                  << "; nothing to submit\n";
        return cmd_collect_points(points, out, true);
    }
    if (tasks.size() > 1000)
        std::cerr << "sweep: warning: " << tasks.size() << " array tasks; many clusters cap arrays at 1001 "
                  << "(MaxArraySize). Use a larger --chunk if sbatch refuses.\n";

    SbatchScript script;
    script.spec = freeze_spec(spec_path, out);
    script.out = out;
    script.exe = self_exe();
    script.job_name = spec.name;
    script.array = array_ranges(tasks);
    script.chunk = chunk;
    script.resources = spec.slurm;
    if (args.has("--partition")) script.resources.partition = args.value("--partition");
    const fs::path script_path = out / "slurm" / "sweep.sbatch";
    {
        std::ofstream os(script_path, std::ios::trunc);
        os << sbatch_text(script);
        if (!os) throw gpuarch::Error("cannot write " + script_path.string());
    }
    std::cout << "sweep: " << points.size() << " points in " << chunks << " chunks of " << chunk << "; " << tasks.size()
              << " chunk" << (tasks.size() == 1 ? "" : "s") << " to run (array " << script.array << ")\nwrote "
              << script_path.string() << '\n';
    if (args.has("--no-submit")) return exit_ok;

    std::vector<std::string> command = {args.value("--sbatch", "sbatch"), "--parsable"};
    if (args.has("--wait")) command.push_back("--wait");
    command.push_back(script_path.string());
    const CommandResult submitted = run_command(command);
    std::string job = submitted.output.substr(0, submitted.output.find_first_of(";\n"));
    // With --wait, sbatch's status is the job's (non-zero when an array task failed); the job id is printed
    // before it blocks, so a missing id means the submission itself failed.
    if (job.empty() || (!args.has("--wait") && submitted.status != 0)) {
        std::cerr << "sweep: sbatch failed (status " << submitted.status << ")" << (job.empty() ? "" : ": " + job)
                  << '\n';
        return exit_usage;
    }
    {
        nlohmann::ordered_json record = {{"job_id", job},
                                         {"chunk", chunk},
                                         {"array", script.array},
                                         {"spec", script.spec.string()},
                                         {"script", script_path.string()}};
        std::ofstream os(out / "slurm" / "array.json", std::ios::trunc);
        os << record.dump(2) << '\n';
    }
    std::cout << "submitted job array " << job << "\n";
    if (!args.has("--wait")) {
        std::cout << "when it is done: sweep collect " << spec_path.string() << " --out " << out.string() << '\n';
        return exit_ok;
    }
    std::cout << "job " << job << " finished (sbatch status " << submitted.status << ")\n";
    return cmd_collect_points(points, out, false);
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"Design-space sweeps over the example machines' precompiled variants, corpus kernels and run-time "
                 "knobs, on this machine or as a Slurm job array (docs/sweeps.md). `sweep COMMAND --help` lists a "
                 "command's options. DIR defaults to out/<spec name>.",
                 "sweep"};
    app.require_subcommand(1, 1);
    Args args;
    CLI::App* run = app.add_subcommand("run", "run every point not yet done on this machine, then merge the results");
    spec_argument(run, args);
    value_option(run, args, "--jobs", "N", "worker processes at once (default: the CPUs available)");
    value_option(run, args, "--out", "DIR", "results directory");
    flag_option(run, args, "--retry-failed", "run points whose record is not ok again");
    value_option(run, args, "--timeout", "S", "stop a point after S seconds (default: no limit)");
    flag_option(run, args, "--quiet", "no progress on stderr, and only the summary's last line");
    CLI::App* list = app.add_subcommand("list", "list the points with their status");
    spec_argument(list, args);
    value_option(list, args, "--out", "DIR", "results directory");
    CLI::App* slurm = app.add_subcommand("slurm", "write an sbatch script for the unfinished chunks and submit it");
    spec_argument(slurm, args);
    value_option(slurm, args, "--out", "DIR", "results directory (on a shared file system)");
    value_option(slurm, args, "--chunk", "K", "points per array task (default: the spec's slurm.chunk)");
    value_option(slurm, args, "--partition", "P", "Slurm partition (default: the spec's)");
    flag_option(slurm, args, "--no-submit", "write the script only");
    flag_option(slurm, args, "--wait", "wait for the job array, then collect");
    value_option(slurm, args, "--sbatch", "CMD", "the sbatch command (default sbatch)");
    CLI::App* collect = app.add_subcommand("collect", "merge the results, list missing and failed points");
    spec_argument(collect, args);
    value_option(collect, args, "--out", "DIR", "results directory");
    flag_option(collect, args, "--quiet", "print only the summary's last line");
    CLI::App* chunk = app.add_subcommand("point-chunk", "run one chunk of points (a Slurm array task)");
    spec_argument(chunk, args);
    value_option(chunk, args, "--index", "I", "the chunk (required)");
    value_option(chunk, args, "--chunk", "K", "points per chunk (default: the spec's slurm.chunk)");
    value_option(chunk, args, "--out", "DIR", "results directory");
    value_option(chunk, args, "--jobs", "N", "worker processes at once (default: the CPUs available)");
    value_option(chunk, args, "--timeout", "S", "stop a point after S seconds (default: no limit)");
    CLI::App* point = app.add_subcommand("point", "run one point and write its record (a worker process)");
    value_option(point, args, "--out", "DIR", "results directory (required)");
    value_option(point, args, "--point", "JSON", "the point (required)");
    const std::vector<gpuarch::examples::cli::ExitCode> codes{
        {exit_ok, "every point has an ok record"},
        {exit_failed, "some point failed, crashed or timed out"},
        {exit_usage, "usage or spec error (one line on stderr)"},
        {exit_missing, "points are missing (collect, point-chunk)"},
        {exit_interrupted, "interrupted (run again to resume)"}};
    gpuarch::examples::cli::describe_exit_codes(app, codes);
    for (CLI::App* command : {run, list, slurm, collect, chunk, point})
        gpuarch::examples::cli::describe_exit_codes(*command, codes);
    if (const auto status = gpuarch::examples::cli::parse(app, argc, argv)) return *status;
    try {
        if (*run) return cmd_run(args);
        if (*list) return cmd_list(args);
        if (*slurm) return cmd_slurm(args);
        if (*collect) return cmd_collect(args);
        if (*chunk) return cmd_point_chunk(args);
        return cmd_point(args);
    } catch (const UsageError& e) {
        return gpuarch::examples::cli::usage_error(app, e.what());
    } catch (const std::exception& e) {
        std::cerr << "sweep: " << e.what() << '\n';
        return exit_usage;
    }
}
