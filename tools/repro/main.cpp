// repro: one command that reproduces the papers' results (issue #12, docs/reproduction.md).
//
//   repro all|<paper> [--quick] [--out DIR] [--bin-dir DIR] [--test-dir DIR] [--jobs N] [--no-plots] [--no-tests]
//         [--quiet]                                                       (repro --help says what each does)
//
//   <paper>     narasiman | gong (= haws) | haws | locality | wang (= oaws) | oaws | radaideh (= carf) | carf | lai
//   --quick     every study with --quick, output into a scratch directory (default <build>/tools/repro/quick), the
//               paper tests listed but not run; what CTest's repro.quick runs: every experiment must run and
//               produce its table (non-empty rows), the numbers need not match
//   --out DIR   where reproduction.md, the plots (DIR/reproduction/*.png) and the studies' JSON and logs go
//               (default: the source tree's docs/, i.e. docs/reproduction.md and docs/reproduction/)
//   --bin-dir   where the study executables are (default: the build tree's examples/)
//   --test-dir  where the test executables are (default: the build tree's tests/)
//   --jobs N    threads a study may use (default: the hardware's)
//   --quiet     no progress on stderr (a bar with the total and an ETA on a terminal, a start and an end line in a log)
//
// Each study executable writes its numbers with `--repro FILE` (the contract in support/include/gpuarch/support/repro.hpp); this
// program runs them, checks each produced a non-empty table, draws their `plots` with tools/repro/plot_repro.py
// (python3-matplotlib) and writes reproduction.md from the JSON alone, so every number in it comes from a run.
// The known deviations come from tools/repro/deviations/<paper>.md (prose with reasons, no measured numbers).
//
// Exit status: 0 every requested experiment ran and produced its table (and, without --quick, every listed paper
// test passed); 1 something failed (named on stderr and in the document); 2 usage error.
#include <gpuarch/support/cli.hpp>
#include <gpuarch/support/progress.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>

#ifndef GPUARCH_REPRO_BIN_DIR
#error "GPUARCH_REPRO_BIN_DIR must name the directory of the study executables (tools/repro/CMakeLists.txt)"
#endif

namespace {
namespace fs = std::filesystem;
using nlohmann::json;

// One experiment: a study executable and the arguments of its full and quick runs.
struct Experiment {
    std::string name; // the JSON's "experiment"; also the file stem
    std::string paper; // the paper key it belongs to
    std::string executable; // in the examples build directory
    std::vector<std::string> full_args, quick_args;
    bool takes_jobs; // accepts --jobs N
    // A Python study in tools/repro/ (run with /usr/bin/python3 and `--build <build tree>`) instead of an
    // executable in the examples build directory: the workload studies, which drive gpuarch-run.
    bool script = false;
};

struct Paper {
    std::string key, title;
    std::vector<std::string> aliases;
};

const std::vector<Paper> papers{
    {"narasiman", "Narasiman 2010: large warps and two-level warp scheduling", {"narasiman"}},
    {"gong", "Gong 2020: hint-assisted and locality-aware warp scheduling", {"gong"}},
    {"wang", "Wang 2016: memory-occlusion-aware warp scheduling (OAWS)", {"wang", "oaws"}},
    {"radaideh", "Radaideh 2020: coalescing-aware register file and zero gating", {"radaideh", "carf"}},
    {"lai", "Lai 2013: SGEMM bounds and Kepler calibration", {"lai"}},
};

// Every experiment the mechanism issues defined, in document order. HAWS and locality-aware scheduling are
// Gong 2020 Chs. 5 and 6; `repro gong` runs both, `repro haws` / `repro locality` one of them.
const std::vector<Experiment> experiments{
    {"narasiman", "narasiman", "narasiman_study", {}, {"--quick"}, true},
    {"haws", "gong", "haws_study", {}, {"--quick"}, true},
    {"locality", "gong", "locality_study", {}, {"--quick"}, true},
    {"oaws", "wang", "oaws_study", {}, {"--quick"}, true},
    // Wang 2016 on the workloads (CUDA programs through gpuarch-run) at the paper's input sizes, 15-SM Fermi, with
    // sampled timing where a launch is long or repeated enough (docs/sampling.md; the table says which rows).
    {"oaws_workloads", "wang", "wang_workloads.py", {"--size", "paper", "--sample", "all"}, {"--quick"}, true, true},
    {"carf", "radaideh", "carf_study", {"--size", "small"}, {"--quick"}, false},
    {"lai_sgemm", "lai", "sgemm_bounds", {}, {"--quick"}, false},
    {"lai_calibration", "lai", "kepler_calibration", {}, {"--quick"}, false},
};

// The papers' exact small examples kept as unit tests: test executable (tests/<folder>) and source file. The
// test-case names are listed live from the executables (doctest --list-test-cases), never typed here.
struct PaperTest {
    std::string paper, folder, file;
};
const std::vector<PaperTest> paper_tests{
    {"narasiman", "large_warp", "subwarp_former.cpp"},
    {"narasiman", "large_warp", "barrel_pipeline.cpp"},
    {"narasiman", "large_warp", "two_level.cpp"},
    {"gong", "hints", "fig53_test.cpp"},
    {"gong", "hints", "hint_pass_test.cpp"},
    {"gong", "haws", "fig_5_3_toy.cpp"},
    {"gong", "locality", "grouping_test.cpp"},
    {"gong", "locality", "placement_test.cpp"},
    {"wang", "oaws", "fig5_test.cpp"},
    {"wang", "oaws", "dlc_test.cpp"},
    {"wang", "oaws", "oaws_static_test.cpp"},
    {"wang", "oaws", "ocw_and_dynamic_test.cpp"},
    {"wang", "laws", "throttling_laws.cpp"},
    {"radaideh", "regfile", "coalescing_rf_test.cpp"},
    {"radaideh", "regfile", "width_and_zero_test.cpp"},
    {"radaideh", "regfile", "rf_arbiter_test.cpp"},
    {"radaideh", "exec", "zero_gated_exec_test.cpp"},
    {"radaideh", "power", "energy_report_test.cpp"},
    {"lai", "model", "sgemm_bound.cpp"},
    {"lai", "model", "kepler_register_banks.cpp"},
    {"lai", "model", "teg.cpp"},
    {"lai", "calibration", "table41.cpp"},
    {"lai", "calibration", "kepler_banked_rf.cpp"},
    {"lai", "calibration", "teg_adapter.cpp"},
};

std::string quote(const std::string& s) {
    std::string o = "'";
    for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return o + "'";
}

// Runs a shell command; returns its exit status (128 + signal when killed).
int run(const std::string& command) {
    const int status = std::system(command.c_str());
    if (status == -1) return 127;
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 1;
}

std::string read_file(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string cell(std::string s) {
    std::replace(s.begin(), s.end(), '\n', ' ');
    std::string o;
    for (char c : s) o += c == '|' ? std::string("\\|") : std::string(1, c);
    return o;
}

struct Outcome {
    const Experiment* experiment = nullptr;
    std::string command;
    int status = 0;
    double seconds = 0;
    json data; // the study's JSON, when it wrote one
    bool earlier = false; // not run now: its JSON is from an earlier `repro` run
    std::string error; // empty when the run produced its table
};

struct TestOutcome {
    const PaperTest* test = nullptr;
    std::string status; // "pass", "FAIL", "not run (--quick)", "missing: ..."
    std::vector<std::string> cases;
    std::string command;
};

std::vector<std::string> list_cases(const fs::path& exe, const std::string& file, const fs::path& scratch) {
    const fs::path out = scratch / "list.txt";
    std::vector<std::string> names;
    const std::string filter = file == "*" ? "" : " --source-file=" + quote("*" + file);
    if (run(quote(exe.string()) + " --list-test-cases" + filter + " > " + quote(out.string()) + " 2>&1") != 0)
        return names;
    std::istringstream in(read_file(out));
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line.rfind("[doctest]", 0) == 0 || line.rfind("====", 0) == 0) continue;
        names.push_back(line);
    }
    return names;
}

// A study's own Markdown goes under this document's level-3 heading: its headings move down two levels.
std::string demote_headings(const std::string& markdown) {
    std::istringstream in(markdown);
    std::string out;
    for (std::string line; std::getline(in, line);) out += (line.rfind('#', 0) == 0 ? "##" + line : line) + '\n';
    return out;
}

} // namespace

int main(int argc, char** argv) {
    namespace cli = gpuarch::examples::cli;
    std::string which, out_arg, bin_arg = GPUARCH_REPRO_BIN_DIR, test_arg = GPUARCH_REPRO_TEST_DIR;
    bool quick = false, no_plots = false, no_tests = false, quiet = false;
    unsigned jobs = std::max(1U, std::thread::hardware_concurrency());
    CLI::App app{"Reproduces the papers' results: runs the study programs with --repro, draws their plots and writes "
                 "reproduction.md from their JSON (docs/reproduction.md).",
                 "repro"};
    std::vector<std::string> names{"all"};
    for (const Paper& p : papers)
        for (const auto& a : p.aliases)
            if (std::find(names.begin(), names.end(), a) == names.end()) names.push_back(a);
    for (const Experiment& e : experiments)
        if (std::find(names.begin(), names.end(), e.name) == names.end()) names.push_back(e.name);
    app.add_option("which", which, "all, a paper (or its alias), or one experiment")
        ->required()
        ->check(CLI::IsMember(names))
        ->type_name("NAME");
    app.add_flag("--quick", quick,
                 "every study on reduced inputs into a scratch directory; paper tests listed, not run");
    app.add_option("--out", out_arg,
                   "where reproduction.md, the plots and the JSON go (default: docs/; --quick: a "
                   "scratch directory in the build tree)")
        ->type_name("DIR");
    app.add_option("--bin-dir", bin_arg, "where the study executables are (default: the build tree's examples/)")
        ->type_name("DIR");
    app.add_option("--test-dir", test_arg, "where the test executables are (default: the build tree's tests/)")
        ->type_name("DIR");
    cli::add_jobs(app, jobs, "threads a study may use");
    app.add_flag("--no-plots", no_plots, "do not draw the plots");
    app.add_flag("--no-tests", no_tests, "do not run the papers' unit tests");
    cli::add_quiet(app, quiet);
    cli::describe_exit_codes(app, cli::exit_codes("an experiment failed or produced no table, or (full run) a "
                                                  "paper test failed; named on stderr and in the document"));
    if (const auto status = cli::parse(app, argc, argv)) return *status;
    const bool plots = !no_plots, tests = !no_tests;
    fs::path out = out_arg, bin_dir = bin_arg, test_dir = test_arg;
    std::vector<const Experiment*> chosen;
    std::set<std::string> chosen_papers;
    // A paper name (or alias) selects its experiments; an experiment name (haws, locality, oaws, carf, ...) selects
    // that one.
    for (const Experiment& e : experiments) {
        bool take = which == "all" || which == e.name;
        for (const Paper& p : papers)
            if (p.key == e.paper && std::find(p.aliases.begin(), p.aliases.end(), which) != p.aliases.end())
                take = true;
        if (take) {
            chosen.push_back(&e);
            chosen_papers.insert(e.paper);
        }
    }
    if (out.empty()) out = quick ? fs::path(GPUARCH_REPRO_SCRATCH_DIR) : fs::path(GPUARCH_SOURCE_DIR) / "docs";
    // The JSON (the provenance of every number) goes beside the document; the studies' logs stay in the build tree.
    const fs::path img_dir = out / "reproduction", json_dir = out / "reproduction" / "json",
                   log_dir = fs::path(GPUARCH_REPRO_LOG_DIR) / (quick ? "quick" : "full");
    fs::create_directories(json_dir);
    fs::create_directories(log_dir);

    // ---- run the studies
    std::vector<Outcome> outcomes;
    bool ok = true;
    gpuarch::examples::Progress progress("repro", chosen.size(), quiet, "experiments");
    for (const Experiment* e : chosen) {
        Outcome o;
        o.experiment = e;
        const fs::path exe =
            e->script ? fs::path(GPUARCH_SOURCE_DIR) / "tools" / "repro" / e->executable : bin_dir / e->executable;
        const fs::path file = json_dir / (e->name + ".json"), log = log_dir / (e->name + ".log");
        std::vector<std::string> args = quick ? e->quick_args : e->full_args;
        if (e->script) args.insert(args.end(), {"--build", GPUARCH_REPRO_BUILD_DIR});
        if (e->takes_jobs) args.insert(args.end(), {"--jobs", std::to_string(jobs)});
        std::string shown = e->executable;
        for (const auto& a : args) shown += " " + a;
        o.command = shown + " --repro " + e->name + ".json";
        if (!fs::exists(exe)) {
            o.error = "the study executable " + exe.string() + " does not exist: build the target '" + e->executable +
                      "' (the " + e->name + " study)";
        } else {
            fs::remove(file);
            std::string command = e->script ? "/usr/bin/python3 " + quote(exe.string()) : quote(exe.string());
            for (const auto& a : args) command += " " + quote(a);
            command += " --repro " + quote(file.string()) + " > " + quote(log.string()) + " 2>&1";
            const auto start = std::chrono::steady_clock::now();
            o.status = run(command);
            o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            if (!fs::exists(file)) {
                o.error = e->executable + " exited with status " + std::to_string(o.status) +
                          " and wrote no reproduction file (log: " + log.string() + ")";
            } else {
                try {
                    o.data = json::parse(read_file(file));
                    if (!o.data.contains("rows") || !o.data["rows"].is_array() || o.data["rows"].empty())
                        o.error = e->executable + " produced no table rows";
                    else if (o.data.value("experiment", "") != e->name)
                        o.error = e->executable + " wrote experiment '" + o.data.value("experiment", "") +
                                  "', expected '" + e->name + "'";
                    else
                        for (const auto& row : o.data["rows"])
                            if (row.value("item", "").empty() || row.value("paper", "").empty() ||
                                row.value("ours", "").empty())
                                o.error = e->executable + " wrote a row without item, paper or ours value";
                } catch (const std::exception& ex) {
                    o.error = e->executable + " wrote invalid JSON: " + ex.what();
                }
                if (o.error.empty() && o.status != 0)
                    o.error = e->executable + " exited with status " + std::to_string(o.status) +
                              " (a simulation failed its reference check; log: " + log.string() + ")";
            }
        }
        if (!o.error.empty()) {
            ok = false;
            progress.note("repro: FAILED " + e->name + ": " + o.error);
        }
        progress.step(shown + " (exit " + std::to_string(o.status) + ", " +
                          std::to_string(static_cast<int>(o.seconds + 0.5)) + " s)",
                      o.error.empty());
        outcomes.push_back(std::move(o));
    }
    progress.finish();

    // A partial run keeps the other experiments' results from earlier runs in the document, marked as such.
    std::set<std::string> shown_papers = chosen_papers;
    for (const Experiment& e : experiments) {
        if (std::find(chosen.begin(), chosen.end(), &e) != chosen.end()) continue;
        const fs::path file = json_dir / (e.name + ".json");
        if (!fs::exists(file)) continue;
        Outcome o;
        o.experiment = &e;
        o.earlier = true;
        o.command = e.executable + " --repro " + e.name + ".json";
        try {
            o.data = json::parse(read_file(file));
        } catch (const std::exception&) {
            continue;
        }
        shown_papers.insert(e.paper);
        outcomes.push_back(std::move(o));
    }

    // ---- plots
    if (plots) {
        std::string files;
        for (const Outcome& o : outcomes)
            if (!o.data.is_null() && !o.earlier)
                files += " " + quote((json_dir / (o.experiment->name + ".json")).string());
        if (!files.empty()) {
            const std::string command = "/usr/bin/python3 " +
                                        quote(std::string(GPUARCH_SOURCE_DIR) + "/tools/repro/plot_repro.py") + " " +
                                        quote(img_dir.string()) + files;
            if (run(command) != 0) {
                ok = false;
                std::cerr << "repro: FAILED drawing the plots (needs python3-matplotlib: scripts/ensure-deps.sh "
                             "python3-matplotlib)\n";
            }
        }
    }

    // ---- the papers' small examples, kept as unit tests
    std::vector<TestOutcome> test_outcomes;
    for (const PaperTest& t : paper_tests) {
        if (!chosen_papers.count(t.paper)) continue;
        TestOutcome r;
        r.test = &t;
        const fs::path exe = test_dir / ("test_" + t.folder);
        const fs::path source = fs::path(GPUARCH_SOURCE_DIR) / "tests" / t.folder;
        r.command = "build/default/tests/test_" + t.folder + (t.file == "*" ? "" : " --source-file='*" + t.file + "'");
        if (!fs::exists(t.file == "*" ? source : source / t.file)) {
            // A full run fails on a missing paper test; --quick only checks the experiments (and says so).
            r.status = "missing: tests/" + t.folder + "/" + (t.file == "*" ? "" : t.file) + " does not exist";
            ok = ok && quick;
        } else if (!fs::exists(exe)) {
            r.status = "missing: " + exe.string() + " is not built";
            ok = ok && quick;
        } else {
            r.cases = list_cases(exe, t.file, log_dir);
            if (r.cases.empty()) {
                // A filter that matches nothing passes in doctest; here it means the tests are gone.
                r.status = "FAIL: test_" + t.folder + " has no test case from " + t.file;
                ok = ok && quick;
            } else if (quick || !tests) {
                r.status = "not run (" + std::string(quick ? "--quick" : "--no-tests") + ")";
            } else {
                const fs::path log = log_dir / ("test_" + t.folder + "_" + (t.file == "*" ? "all" : t.file) + ".log");
                const std::string filter = t.file == "*" ? "" : " --source-file=" + quote("*" + t.file);
                std::cerr << "repro: " << r.command << " ..." << std::flush;
                const int status = run(quote(exe.string()) + filter + " > " + quote(log.string()) + " 2>&1");
                r.status =
                    status == 0 ? "pass" : "FAIL (exit " + std::to_string(status) + ", log " + log.string() + ")";
                std::cerr << ' ' << r.status << '\n';
                if (status != 0) ok = false;
            }
        }
        test_outcomes.push_back(std::move(r));
    }

    // ---- reproduction.md
    std::ostringstream md;
    md << "# Reproduction: the papers' numbers beside ours\n\n"
          "Generated by `build/default/tools/repro/repro "
       << which << (quick ? " --quick" : "")
       << "` (tools/repro/main.cpp). Do not edit: every value in the *ours* column, every table under *details* and "
          "every plot comes from the JSON the study programs wrote in this run (`reproduction/json/`; their logs are "
          "in "
          "the build tree, `build/default/tools/repro/logs/`). The *paper* column is the value as the paper publishes "
          "it, set in the study "
          "program beside the figure, table or section it comes from. Where a paper gives no number the row says "
          "n/a or quotes its words.\n\n"
          "Re-run from a fresh clone (Debian 12, after `./scripts/test.sh` has built everything):\n\n"
          "    build/default/tools/repro/repro all\n\n"
          "`repro <paper>` runs one paper (narasiman, gong, haws, locality, wang, oaws, radaideh, carf, lai); "
          "`--quick` runs every study on reduced inputs into a scratch directory (what CTest's `repro.quick` "
          "checks).\n\n";
    if (quick)
        md << "**This is a --quick run: reduced inputs and few kernels. It checks that every experiment runs and "
              "produces its table; its numbers are not the reproduction.**\n\n";
    md << "| paper | experiment | command | status | time |\n|---|---|---|---|---:|\n";
    for (const Outcome& o : outcomes)
        md << "| " << o.experiment->paper << " | " << o.experiment->name << " | `" << o.command << "` | "
           << (o.earlier         ? "from an earlier run"
               : o.error.empty() ? "ok"
                                 : "**FAILED**: " + cell(o.error))
           << " | " << (o.earlier ? std::string("-") : std::to_string(static_cast<int>(o.seconds + 0.5)) + " s")
           << " |\n";
    md << '\n';
    for (const Paper& p : papers) {
        if (!shown_papers.count(p.key)) continue;
        md << "## " << p.title << "\n\n";
        for (const Outcome& o : outcomes) {
            if (o.experiment->paper != p.key) continue;
            const json& d = o.data;
            md << "### " << (d.is_null() ? o.experiment->name : d.value("title", o.experiment->name)) << " ("
               << o.experiment->name << ")\n\n";
            if (!o.error.empty()) md << "**FAILED**: " << o.error << "\n\n";
            if (d.is_null()) continue;
            // One configuration for every row is said once above the table, not in each row.
            bool one_config = true;
            for (const auto& row : d["rows"])
                one_config = one_config && row.value("config", "") == d["rows"][0].value("config", "");
            md << "Command: `" << o.command << "` (" << d.value("paper", "") << ").\n\n";
            if (one_config)
                md << "Configuration: " << d["rows"][0].value("config", "") << ".\n\n"
                   << "| published number | paper | ours | note |\n|---|---|---|---|\n";
            else md << "| published number | paper | ours | configuration | note |\n|---|---|---|---|---|\n";
            for (const auto& row : d["rows"]) {
                md << "| " << cell(row.value("item", "")) << " | " << cell(row.value("paper", "")) << " | **"
                   << cell(row.value("ours", "")) << "** | ";
                if (!one_config) md << cell(row.value("config", "")) << " | ";
                md << cell(row.value("note", "")) << " |\n";
            }
            md << '\n';
            if (o.earlier) md << "*From an earlier `repro` run (not re-run by this command).*\n\n";
            if (plots && d.contains("plots"))
                for (const auto& plot : d["plots"])
                    md << "![" << cell(plot.value("title", "")) << "](reproduction/" << plot.value("file", "")
                       << ")\n\n";
            const std::string details = demote_headings(d.value("tables_markdown", ""));
            if (!details.empty())
                md << "<details><summary>Details: the study's own tables</summary>\n\n"
                   << details << "\n</details>\n\n";
        }
    }

    md << "## The papers' small examples, kept as unit tests\n\n"
          "Each paper's exact worked examples (hand-derived cycle counts, figures' toy cases) are doctest cases. "
          "The names below are listed from the test executables; the status is this run's "
          "(run one file with the command shown).\n\n"
          "| paper | file | status | test cases | command |\n|---|---|---|---|---|\n";
    for (const TestOutcome& t : test_outcomes) {
        std::string cases;
        for (const auto& c : t.cases) cases += (cases.empty() ? "" : "<br>") + cell(c);
        md << "| " << t.test->paper << " | tests/" << t.test->folder << "/" << (t.test->file == "*" ? "" : t.test->file)
           << " | " << cell(t.status) << " | " << (cases.empty() ? "-" : cases) << " | `" << t.command << "` |\n";
    }
    md << "\n## Known deviations, per paper, with reasons\n\n";
    for (const Paper& p : papers) {
        if (!shown_papers.count(p.key)) continue;
        const fs::path f = fs::path(GPUARCH_SOURCE_DIR) / "tools" / "repro" / "deviations" / (p.key + ".md");
        md << "### " << p.title << "\n\n";
        if (fs::exists(f)) md << read_file(f) << '\n';
        else {
            md << "**MISSING**: " << f.string() << " does not exist.\n\n";
            ok = false;
        }
    }
    const fs::path doc = out / "reproduction.md";
    std::ofstream(doc) << md.str();
    std::cerr << "repro: wrote " << doc.string() << (ok ? "" : " (with failures)") << '\n';
    return ok ? 0 : 1;
}
