#pragma once
// The local worker pool: every point in its own process, at most `jobs` at a time.
//
// Contract:
//  - A point whose record is already on disk is skipped (with `retry_failed`, only an "ok" record counts), so an
//    interrupted sweep resumes where it stopped.
//  - Each point runs as a child process (fork + exec of the worker command, by default this program's
//    `sweep point`), its stdout and stderr going to DIR/logs/<id>.log. Processes rather than threads: a GPU
//    object is safe only on one thread, and a crashing point (a fault in the simulator, an abort, memory
//    exhaustion) must not take the sweep with it. The worker writes the point's record itself; the pool writes
//    one only when the worker died without doing so ("crashed") or ran past the time limit ("timeout").
//  - SIGINT, SIGTERM and SIGHUP stop the pool: no new point starts, running workers get SIGTERM, and the points
//    they held stay unfinished (no record), to be run on resume.
//  - Progress (done/total, failures, elapsed time and ETA) goes to the given stream: a redrawn bar on a terminal,
//    only a start and an end line otherwise, so batch logs stay short (the convention of support/include/gpuarch/support/progress.hpp).
#include "spec.hpp"

#include <gpuarch/support/progress.hpp>

#include <cstddef>
#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace gpuarch::sweep {

struct Task {
    std::size_t index = 0; // place of the point in the spec's cross product
    Point point;
    std::string id;
};

std::vector<Task> make_tasks(const std::vector<Point>& points);

// The argv of the process that runs one point and writes its record under `out`.
using WorkerCommand = std::function<std::vector<std::string>(const Task&)>;

// `exe point --out DIR --point '<canonical JSON>'`.
WorkerCommand self_worker(const std::filesystem::path& exe, const std::filesystem::path& out);

// This executable (/proc/self/exe).
std::filesystem::path self_exe();

// The CPUs this process may run on (its affinity mask: what Slurm or taskset granted), at least 1.
unsigned available_cpus();

struct RunOptions {
    unsigned jobs = 1;
    std::filesystem::path out;
    bool retry_failed = false; // run points whose record is not "ok" again
    double timeout_s = 0; // per point; 0: no limit
    bool progress = true;
};

struct RunSummary {
    std::size_t total = 0; // tasks given
    std::size_t skipped = 0; // already had a record
    std::size_t ok = 0; // ran now, status ok
    std::size_t failed = 0; // ran now, status failed, crashed or timeout
    std::size_t unfinished = 0; // not run or interrupted (no record)
    bool interrupted = false;
};

RunSummary run_tasks(const std::vector<Task>& tasks, const RunOptions& options, const WorkerCommand& worker,
                     std::ostream& progress);

// "1:02:03" / "02:03"; "--:--" for a negative (unknown) duration; and the seconds left after `done` of `total`
// units took `elapsed` seconds (negative when done == 0): the formatting every program's progress shares.
using examples::estimate_remaining;
using examples::format_duration;

} // namespace gpuarch::sweep
