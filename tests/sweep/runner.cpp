// The worker pool: points in child processes, resume, failure isolation, time limits; and the Slurm helpers.
#include "helpers.hpp"

#include <sweep/record.hpp>
#include <sweep/runner.hpp>
#include <sweep/slurm.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>

using namespace gpuarch;
using namespace gpuarch::sweep;
using sweep_test::ScratchDir;

namespace {

const std::filesystem::path sweep_exe = GPUARCH_SWEEP_EXE;

std::vector<Point> four_points() {
    return expand(
        parse_spec(R"({"machines": "fermi", "schedulers": ["LRR", "GTO"], "kernels": ["vector_add", "saxpy"]})"));
}

RunOptions quiet_options(const std::filesystem::path& out, unsigned jobs = 2) {
    RunOptions o;
    o.out = out;
    o.jobs = jobs;
    o.progress = false;
    return o;
}

// The self worker, with the given points' argv replaced by a shell command line.
WorkerCommand replacing(const std::filesystem::path& out, std::vector<std::pair<std::string, std::string>> scripts) {
    const WorkerCommand real = self_worker(sweep_exe, out);
    return [real, scripts](const Task& t) {
        for (const auto& [id, script] : scripts)
            if (id == t.id) return std::vector<std::string>{"/bin/sh", "-c", script};
        return real(t);
    };
}

// Sets an environment variable for one scope (the worker processes inherit it).
class ScopedEnv {
public:
    ScopedEnv(const char* name, const std::string& value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        ::setenv(name, value.c_str(), 1);
    }
    ~ScopedEnv() {
        if (old_) ::setenv(name_, old_->c_str(), 1);
        else ::unsetenv(name_);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* name_;
    std::optional<std::string> old_;
};

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    std::size_t n = 0;
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
        text.replace(at, from.size(), to);
        ++n;
    }
    REQUIRE(n > 0);
    return text;
}

} // namespace

TEST_CASE("every point runs in its own worker process and its record equals an in-process run bit for bit") {
    ScratchDir dir;
    const auto points = four_points();
    const auto tasks = make_tasks(points);
    const RunSummary s = run_tasks(tasks, quiet_options(dir.path()), self_worker(sweep_exe, dir.path()), std::cerr);
    CHECK(s.total == 4);
    CHECK(s.ok == 4);
    CHECK(s.failed == 0);
    CHECK(s.skipped == 0);
    CHECK(s.unfinished == 0);
    CHECK_FALSE(s.interrupted);
    for (const auto& t : tasks) {
        const auto record = read_record(dir.path(), t.id);
        REQUIRE(record.has_value());
        Record local = execute_point(t.point);
        local["host_seconds"] = (*record)["host_seconds"];
        local["sim_seconds"] = (*record)["sim_seconds"];
        CHECK(*record == local);
        CHECK(sweep_test::read_text(log_path(dir.path(), t.id)).find("status ok") != std::string::npos);
    }
}

TEST_CASE("a resumed sweep skips points that have a record and runs only the rest") {
    ScratchDir dir;
    const auto tasks = make_tasks(four_points());
    // First run: point 2 is "interrupted" (its worker dies by SIGTERM), so it has no record.
    const RunSummary first =
        run_tasks(tasks, quiet_options(dir.path()), replacing(dir.path(), {{tasks[2].id, "kill -TERM $$"}}), std::cerr);
    CHECK(first.ok == 3);
    CHECK(first.unfinished == 1);
    CHECK_FALSE(read_record(dir.path(), tasks[2].id).has_value());
    // A planted record stands for a finished point: it must be kept as it is, not recomputed.
    Record planted = *read_record(dir.path(), tasks[0].id);
    planted["cycles"] = 123456789;
    write_record(dir.path(), tasks[0].id, planted);

    const std::filesystem::path calls = dir / "calls";
    const WorkerCommand real = self_worker(sweep_exe, dir.path());
    const WorkerCommand counting = [&](const Task& t) {
        std::vector<std::string> argv = {"/bin/sh", "-c", "echo \"$0\" >> '" + calls.string() + "'; exec \"$@\"", t.id};
        for (const auto& a : real(t)) argv.push_back(a);
        return argv;
    };
    const RunSummary second = run_tasks(tasks, quiet_options(dir.path()), counting, std::cerr);
    CHECK(second.skipped == 3);
    CHECK(second.ok == 1);
    CHECK(sweep_test::read_text(calls) == tasks[2].id + "\n");
    CHECK((*read_record(dir.path(), tasks[0].id))["cycles"] == 123456789);
    CHECK((*read_record(dir.path(), tasks[2].id))["status"] == "ok");

    // A third run has nothing to do.
    const RunSummary third = run_tasks(tasks, quiet_options(dir.path()), counting, std::cerr);
    CHECK(third.skipped == 4);
    CHECK(sweep_test::read_text(calls) == tasks[2].id + "\n");
}

TEST_CASE("a kernel that fails its check is recorded as failed and the other points finish") {
    ScratchDir dir;
    // A kernels directory whose vector_add computes a - b instead of a + b (a wrong result, found by the CPU
    // reference), and whose saxpy PTX does not parse.
    std::filesystem::create_directories(dir / "kernels");
    std::filesystem::copy(std::string(GPUARCH_KERNELS_DIR) + "/ptx", dir / "kernels/ptx"); // with .resources
    const std::filesystem::path ptx = dir / "kernels/ptx";
    sweep_test::write_text(ptx / "vector_add.ptx",
                           replace_all(sweep_test::read_text(ptx / "vector_add.ptx"), "add.f32", "sub.f32"));
    sweep_test::write_text(ptx / "saxpy.ptx", ".version 7.0\n.target sm_50\nthis is not ptx\n");
    const ScopedEnv env("GPUARCH_KERNELS_DIR", (dir / "kernels").string());

    const auto tasks = make_tasks(expand(parse_spec(
        R"({"machines": "fermi", "schedulers": "GTO", "kernels": ["vector_add", "saxpy", "reduce_shared"]})")));
    const std::filesystem::path out = dir / "out";
    const RunSummary s = run_tasks(tasks, quiet_options(out), self_worker(sweep_exe, out), std::cerr);
    CHECK(s.ok == 1);
    CHECK(s.failed == 2);
    const Record wrong = *read_record(out, tasks[0].id);
    CHECK(wrong["status"] == "failed");
    CHECK(wrong["passed"] == false);
    CHECK(wrong["cycles"].get<std::uint64_t>() > 0); // it ran to the end; its output was wrong
    CHECK_FALSE(wrong["message"].get<std::string>().empty());
    const Record unparsable = *read_record(out, tasks[1].id);
    CHECK(unparsable["status"] == "failed");
    CHECK_FALSE(unparsable["message"].get<std::string>().empty());
    CHECK((*read_record(out, tasks[2].id))["status"] == "ok");
}

TEST_CASE("a worker that crashes is recorded as crashed, with its log, and the other points finish") {
    ScratchDir dir;
    const auto tasks = make_tasks(four_points());
    const RunSummary s =
        run_tasks(tasks, quiet_options(dir.path()),
                  replacing(dir.path(), {{tasks[1].id, "echo about to fault; kill -SEGV $$"}, {tasks[3].id, "exit 3"}}),
                  std::cerr);
    CHECK(s.ok == 2);
    CHECK(s.failed == 2);
    const Record crashed = *read_record(dir.path(), tasks[1].id);
    CHECK(crashed["status"] == "crashed");
    CHECK(crashed["message"] ==
          "the worker process was killed by signal 11 (Segmentation fault) before writing a record");
    CHECK(crashed["log_tail"] == "about to fault\n");
    CHECK(crashed["machine"] == "fermi");
    const Record exited = *read_record(dir.path(), tasks[3].id);
    CHECK(exited["status"] == "crashed");
    CHECK(exited["message"] == "the worker process exited with status 3 before writing a record");
    CHECK((*read_record(dir.path(), tasks[0].id))["status"] == "ok");
    CHECK((*read_record(dir.path(), tasks[2].id))["status"] == "ok");

    // --retry-failed runs exactly the two crashed points again (now with the real worker).
    RunOptions retry = quiet_options(dir.path());
    retry.retry_failed = true;
    const RunSummary again = run_tasks(tasks, retry, self_worker(sweep_exe, dir.path()), std::cerr);
    CHECK(again.skipped == 2);
    CHECK(again.ok == 2);
}

TEST_CASE("a worker past the per-point time limit is killed and recorded as timeout") {
    ScratchDir dir;
    const auto tasks = make_tasks(four_points());
    RunOptions o = quiet_options(dir.path());
    o.timeout_s = 0.5;
    const std::vector<Task> one = {tasks[0]};
    const auto start = std::chrono::steady_clock::now();
    const RunSummary s = run_tasks(one, o, replacing(dir.path(), {{tasks[0].id, "exec sleep 30"}}), std::cerr);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
    CHECK(s.failed == 1);
    const Record r = *read_record(dir.path(), tasks[0].id);
    CHECK(r["status"] == "timeout");
    CHECK(r["message"] == "ran past the per-point limit of 0.5 s and was killed");
}

TEST_CASE("`sweep point` records a point naming a kernel outside the corpus as failed and exits 0") {
    ScratchDir dir;
    const Point p{"fermi", "GTO", "no_such_kernel", kernels::Size::small, 0, std::nullopt, false};
    const CommandResult r =
        run_command({sweep_exe.string(), "point", "--out", dir.path().string(), "--point", canonical_json(p)});
    CHECK(r.status == 0);
    const auto record = read_record(dir.path(), point_id(p));
    REQUIRE(record.has_value());
    CHECK((*record)["status"] == "failed");
    CHECK((*record)["message"].get<std::string>().find("no case named 'no_such_kernel'") != std::string::npos);
    CHECK(run_command({sweep_exe.string(), "point", "--out", dir.path().string(), "--point", "{"}).status == 2);
}

TEST_CASE("progress: durations and the ETA") {
    CHECK(format_duration(0) == "00:00");
    CHECK(format_duration(75.4) == "01:15");
    CHECK(format_duration(3725) == "1:02:05");
    CHECK(format_duration(-1) == "--:--");
    CHECK(estimate_remaining(10, 0, 8) < 0);
    CHECK(estimate_remaining(10, 2, 8) == doctest::Approx(30));
    CHECK(estimate_remaining(10, 8, 8) == doctest::Approx(0));
}

TEST_CASE("Slurm: array ranges, the chunks still to run, and the sbatch script") {
    CHECK(array_ranges({}) == "");
    CHECK(array_ranges({0}) == "0");
    CHECK(array_ranges({0, 1, 2, 3, 5, 7, 8, 9}) == "0-3,5,7-9");

    ScratchDir dir;
    const auto tasks = make_tasks(four_points());
    std::vector<std::string> ids;
    for (const auto& t : tasks) ids.push_back(t.id);
    CHECK(unfinished_chunks(ids, 3, dir.path()) == std::vector<std::size_t>{0, 1});
    write_record(dir.path(), ids[3], make_error_record(tasks[3].point, "failed", "x"));
    CHECK(unfinished_chunks(ids, 3, dir.path()) == std::vector<std::size_t>{0});
    CHECK(unfinished_chunks(ids, 1, dir.path()) == std::vector<std::size_t>{0, 1, 2});

    SbatchScript s;
    s.spec = "/data/spec-0123.json";
    s.out = "/data/out";
    s.exe = "/opt/it's/sweep";
    s.job_name = "my sweep";
    s.array = "0-3,5";
    s.chunk = 4;
    s.resources.cpus = 2;
    s.resources.mem = "3G";
    s.resources.time = "00:10:00";
    s.resources.partition = "debug";
    const std::string text = sbatch_text(s);
    for (const char* line :
         {"#!/bin/bash\n", "#SBATCH --job-name=sweep-my_sweep\n", "#SBATCH --array=0-3,5\n",
          "#SBATCH --cpus-per-task=2\n", "#SBATCH --mem=3G\n", "#SBATCH --time=00:10:00\n",
          "#SBATCH --partition=debug\n", "#SBATCH --output=/data/out/slurm/%A_%a.out\n",
          "exec '/opt/it'\\''s/sweep' point-chunk '/data/spec-0123.json' --index "
          "\"$SLURM_ARRAY_TASK_ID\" --chunk 4 --out '/data/out' --jobs \"${SLURM_CPUS_PER_TASK:-2}\"\n"})
        CHECK_MESSAGE(text.find(line) != std::string::npos, line);
    s.out = "/data/my out";
    CHECK(sweep_test::error_of([&] { sbatch_text(s); }).find("must not contain blanks") != std::string::npos);
}

TEST_CASE("`sweep slurm` freezes the spec, writes the script and submits it with sbatch --parsable") {
    ScratchDir dir;
    const std::filesystem::path spec = dir / "spec.json";
    sweep_test::write_text(spec, R"({"name": "t", "machines": "fermi", "schedulers": ["LRR", "GTO"],
        "kernels": ["vector_add", "saxpy", "bfs"], "slurm": {"cpus": 2, "chunk": 4}})");
    // A stand-in sbatch that records its arguments and answers like `sbatch --parsable`.
    const std::filesystem::path fake = dir / "fake_sbatch";
    sweep_test::write_text(fake, "#!/bin/sh\necho \"$@\" > '" + (dir / "sbatch_args").string() + "'\necho 4242\n");
    std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
    const std::filesystem::path out = dir / "out";
    const CommandResult r = run_command({sweep_exe.string(), "slurm", spec.string(), "--out", out.string(), "--sbatch",
                                         fake.string(), "--partition", "short"});
    CHECK(r.status == 0);
    CHECK(r.output.find("submitted job array 4242") != std::string::npos);
    const std::string script = (out / "slurm" / "sweep.sbatch").string();
    CHECK(sweep_test::read_text(dir / "sbatch_args") == "--parsable " + script + "\n");
    const std::string text = sweep_test::read_text(script);
    CHECK(text.find("#SBATCH --array=0-1\n") != std::string::npos); // 6 points in chunks of 4
    CHECK(text.find("#SBATCH --partition=short\n") != std::string::npos);
    CHECK(text.find("#SBATCH --cpus-per-task=2\n") != std::string::npos);
    // The frozen copy is byte-for-byte the spec, and the script runs from it.
    std::filesystem::path frozen;
    for (const auto& e : std::filesystem::directory_iterator(out))
        if (e.path().filename().string().rfind("spec-", 0) == 0) frozen = e.path();
    REQUIRE_FALSE(frozen.empty());
    CHECK(sweep_test::read_text(frozen) == sweep_test::read_text(spec));
    CHECK(text.find("point-chunk '" + frozen.string() + "'") != std::string::npos);
    const auto array = nlohmann::json::parse(sweep_test::read_text(out / "slurm" / "array.json"));
    CHECK(array["job_id"] == "4242");
    CHECK(array["chunk"] == 4);
}
