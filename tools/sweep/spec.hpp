#pragma once
// A sweep description (JSON) and the points it stands for.
//
// Contract:
//  - A spec names machines, schedulers, kernels, sizes and run-time knob lists; the sweep is their cross product,
//    enumerated in one fixed order (machine, scheduler, kernel, size, mshr_entries, allocate_on_fill,
//    clustered_ctas; each list in the order the spec gives it, duplicates dropped). A point's index is its place
//    in that order, which is what a Slurm array task uses to find its chunk.
//  - Every name is checked against the run-time registry (support/include/gpuarch/support/variants.hpp) and the kernel corpus when
//    the spec is read: an unknown machine, scheduler, kernel or tag, an unknown key or a value of the wrong type
//    is an error (gpuarch::Error) that says where it is and lists the valid choices. A typo must never shrink a
//    sweep silently.
//  - A point's id is a hash of its canonical JSON (every field present, keys sorted, no spaces), so it depends on
//    what is simulated only: not on the spec's name, its key order, or which other points the spec holds. Two
//    specs that share a point share its result file.
#include <corpus/common.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuarch::sweep {

struct Point {
    std::string machine;
    std::string scheduler;
    std::string kernel;
    kernels::Size size = kernels::Size::small;
    unsigned mshr_entries = 0; // 0: the machine preset's
    std::optional<bool> allocate_on_fill; // unset: the machine preset's
    bool clustered_ctas = false;

    bool operator==(const Point&) const = default;
};

// What each Slurm array task asks for (sbatch --cpus-per-task, --mem, --time, --partition).
struct SlurmResources {
    unsigned cpus = 1;
    std::string mem = "2G";
    std::string time = "01:00:00";
    std::string partition; // empty: the cluster's default partition
    unsigned chunk = 8; // points per array task
};

struct Spec {
    std::string name;
    std::vector<std::string> machines;
    std::map<std::string, std::vector<std::string>> schedulers; // per machine, validated
    std::vector<std::string> kernels; // resolved case names
    std::vector<kernels::Size> sizes;
    std::vector<unsigned> mshr_entries; // 0: preset
    std::vector<std::optional<bool>> allocate_on_fill; // nullopt: preset
    std::vector<bool> clustered_ctas;
    SlurmResources slurm;
};

// Parses and validates a spec. `origin` (a file name) prefixes every error message.
Spec parse_spec(std::string_view text, std::string_view origin = "spec");
Spec load_spec(const std::filesystem::path& path);

// The cross product, in the order stated in the contract above.
std::vector<Point> expand(const Spec& spec);

// Canonical JSON of a point: {"allocate_on_fill":null|bool,"clustered_ctas":bool,"kernel":...,"machine":...,
// "mshr_entries":null|n,"scheduler":...,"size":"small"|"large"} (null: the preset's value).
nlohmann::json point_json(const Point& point);
std::string canonical_json(const Point& point);
// The inverse of point_json; throws gpuarch::Error for a malformed point (names are not checked here).
Point point_from_json(const nlohmann::json& json);

// 64-bit FNV-1a of the canonical JSON as 16 lower-case hex digits. FNV-1a is fully specified (Fowler, Noll, Vo;
// IETF draft-eastlake-fnv), so ids are the same on every host and compiler; with 64 bits, a collision among
// 10^5 points has probability below 10^-9.
std::string point_id(const Point& point);
std::uint64_t fnv1a64(std::string_view bytes);

// One line describing the point for tables and logs: "fermi GTO vector_add small mshr=preset alloc=preset rr".
std::string describe(const Point& point);

kernels::Size parse_size(std::string_view name);

} // namespace gpuarch::sweep
