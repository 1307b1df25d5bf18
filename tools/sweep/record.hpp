#pragma once
// Result records: one JSON object per point, on one line, in DIR/results/<id>.json; and their merge into
// DIR/results.csv and a summary table.
//
// Contract:
//  - A record holds the point (its fields, flat, and its id), a status, the RunRow fields and the statistics:
//      "ok"       the kernel ran and its output matched the CPU reference;
//      "failed"   the run ended with a kernel fault, a mismatch or an exception (message says which);
//      "crashed"  the worker process died (signal or non-zero exit) before writing a record;
//      "timeout"  the worker ran past the per-point limit and was killed.
//    A worker that was interrupted (SIGINT, SIGTERM, SIGHUP: Ctrl-C, scancel, a Slurm time limit) leaves no
//    record, so the point runs again on resume.
//  - A record file is written to a temporary name and renamed into place, so a file under results/ is complete:
//    an interruption at any moment leaves either the whole record or none.
//  - Every field except the two timings (host_seconds, sim_seconds) is a function of the point alone (the
//    simulator is deterministic), so two runs of a point, on any host, give records equal in everything else.
#include "spec.hpp"

#include <gpuarch/support/variants.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace gpuarch::sweep {

using Record = nlohmann::ordered_json; // keeps fields and statistics in the order they were declared

std::filesystem::path result_path(const std::filesystem::path& out, const std::string& id);
std::filesystem::path log_path(const std::filesystem::path& out, const std::string& id);

// The record of a run that produced a RunRow.
Record make_record(const Point& point, const examples::RunRow& row);
// The record of a point whose worker produced no RunRow (status "crashed" or "timeout", or "failed" for an
// exception outside the simulator).
Record make_error_record(const Point& point, std::string_view status, const std::string& message);

// Runs the point in this process (examples::run_variant) and returns its record; never throws.
Record execute_point(const Point& point);

// Writes DIR/results/<id>.json atomically (temporary file, then rename). Throws gpuarch::Error on an I/O error.
void write_record(const std::filesystem::path& out, const std::string& id, const Record& record);
// The record of `id`, or nothing when there is none or it cannot be parsed (it is then run again).
std::optional<Record> read_record(const std::filesystem::path& out, const std::string& id);

// The last `lines` lines of a file ("" when it cannot be read).
std::string tail_of(const std::filesystem::path& file, std::size_t lines);

struct Merged {
    std::vector<std::size_t> present; // point indices with a record, in index order
    std::vector<Record> records; // parallel to `present`
    std::vector<std::size_t> missing; // point indices without one
    std::size_t ok = 0, failed = 0; // failed: every status other than "ok"
};

// Reads the records of `points` (ignoring result files of points outside the list).
Merged merge(const std::vector<Point>& points, const std::filesystem::path& out);

// CSV: fixed columns (id, index, the point, status, passed, cycles, ipc, instruction counts, launches,
// host_seconds, sim_seconds, variant, message), then one column per statistic, in first-seen order over the records
// (histograms as their buckets separated by spaces). RFC 4180 quoting.
void write_csv(std::ostream& os, const Merged& merged);
void write_csv_file(const std::filesystem::path& file, const Merged& merged);

// One line per record: the point, cycles, IPC, and the top stall reasons (or the error).
void print_summary(std::ostream& os, const Merged& merged);

} // namespace gpuarch::sweep
