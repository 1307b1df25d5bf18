#pragma once
// Submitting a sweep as a Slurm job array.
//
// Contract:
//  - The points are cut into chunks of K consecutive indices; array task T runs points [T*K, (T+1)*K) with
//    `sweep point-chunk SPEC --index T --chunk K --out DIR`, using the same worker pool and result files as
//    `sweep run` (so a chunk resumes, and a local run and a cluster run fill the same DIR interchangeably).
//  - Only chunks holding a point without a record are submitted, so `sweep slurm` after a partial run (or
//    after `sweep run` was stopped) submits what is left.
//  - The spec is frozen into DIR/spec-<hash>.json before submission and the array tasks read that copy: editing
//    the spec while the job waits in the queue cannot shift the point indices under it.
//  - The script asks for the spec's per-task resources (slurm.cpus, slurm.mem, slurm.time, slurm.partition;
//    --partition overrides) and writes each task's output to DIR/slurm/<job>_<task>.out.
#include "spec.hpp"

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace gpuarch::sweep {

// "0-3,5,7-9" for {0,1,2,3,5,7,8,9} (sorted, distinct input).
std::string array_ranges(const std::vector<std::size_t>& tasks);

// Array task numbers of the chunks of K points that hold at least one point without a record in `out`.
std::vector<std::size_t> unfinished_chunks(const std::vector<std::string>& ids, std::size_t chunk,
                                           const std::filesystem::path& out);

struct SbatchScript {
    std::filesystem::path spec; // the frozen copy, absolute
    std::filesystem::path out; // absolute
    std::filesystem::path exe; // the sweep executable, absolute
    std::string job_name;
    std::string array; // array_ranges(...)
    std::size_t chunk = 1;
    SlurmResources resources; // partition already overridden
};

std::string sbatch_text(const SbatchScript& script);

// Quotes `text` for a POSIX shell (single quotes).
std::string shell_quote(const std::string& text);

// Runs argv (PATH lookup for argv[0]) with stdin on /dev/null and returns its exit status (128 + signal when
// killed, 127 when it cannot be executed) and everything it wrote to stdout; stderr passes through.
struct CommandResult {
    int status = 0;
    std::string output;
};
CommandResult run_command(const std::vector<std::string>& argv);

// Copies the spec text to DIR/spec-<16 hex of its FNV-1a>.json (unless present) and returns that path.
std::filesystem::path freeze_spec(const std::filesystem::path& spec, const std::filesystem::path& out);

} // namespace gpuarch::sweep
