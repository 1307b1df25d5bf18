// Sweep specs: parsing, validation against the registry, the cross product and point ids.
#include "helpers.hpp"

#include <sweep/spec.hpp>

#include <corpus/corpus.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <set>

using namespace gpuarch;
using namespace gpuarch::sweep;
using sweep_test::error_of;

namespace {
const char* const small_spec = R"({
  "name": "t",
  "machines": ["fermi", "kepler"],
  "schedulers": ["LRR", "GTO"],
  "kernels": ["vector_add", "saxpy"],
  "sizes": ["small"],
  "knobs": {"mshr_entries": ["preset", 16], "allocate_on_fill": ["preset"], "clustered_ctas": [false, true]}
})";

std::vector<std::string> tagged(std::initializer_list<std::string_view> tags) {
    std::vector<std::string> out;
    for (const auto& c : kernels::corpus_cases())
        if (std::all_of(tags.begin(), tags.end(), [&](std::string_view t) { return kernels::has_tag(c, t); }))
            out.emplace_back(c.name);
    return out;
}
} // namespace

TEST_CASE("the sweep is the cross product, in machine-scheduler-kernel-size-knob order") {
    const Spec spec = parse_spec(small_spec);
    const auto points = expand(spec);
    REQUIRE(points.size() == 2u * 2 * 2 * 1 * 2 * 1 * 2);
    CHECK(points.front() == Point{"fermi", "LRR", "vector_add", kernels::Size::small, 0, std::nullopt, false});
    CHECK(points[1] == Point{"fermi", "LRR", "vector_add", kernels::Size::small, 0, std::nullopt, true});
    CHECK(points[2] == Point{"fermi", "LRR", "vector_add", kernels::Size::small, 16, std::nullopt, false});
    CHECK(points[4] == Point{"fermi", "LRR", "saxpy", kernels::Size::small, 0, std::nullopt, false});
    CHECK(points[8].scheduler == "GTO");
    CHECK(points.back() == Point{"kepler", "GTO", "saxpy", kernels::Size::small, 16, std::nullopt, true});
    std::set<std::string> ids;
    for (const auto& p : points) ids.insert(point_id(p));
    CHECK(ids.size() == points.size());
}

TEST_CASE("omitted sizes, knobs and schedulers default to small, the presets and every scheduler of the machine") {
    const Spec spec = parse_spec(R"({"machines": "fermi", "kernels": "vector_add"})");
    const auto points = expand(spec);
    REQUIRE(points.size() == 4); // LRR, GTO, TwoLevel<8>, MemoryFirst (docs/new_policy.md)
    CHECK(points[0].scheduler == "LRR");
    CHECK(points[2].scheduler == "TwoLevel<8>");
    for (const auto& p : points) {
        CHECK(p.size == kernels::Size::small);
        CHECK(p.mshr_entries == 0);
        CHECK_FALSE(p.allocate_on_fill.has_value());
        CHECK_FALSE(p.clustered_ctas);
    }
    CHECK(spec.name == "sweep");
    CHECK(spec.slurm.cpus == 1);
}

TEST_CASE("kernel selectors: names, \"tag:T\", \"tag:A+B\" and \"all\", without duplicates, in the order given") {
    CHECK(parse_spec(R"({"machines": "fermi", "kernels": ["tag:divergent"]})").kernels == tagged({"divergent"}));
    CHECK(parse_spec(R"({"machines": "fermi", "kernels": ["tag:memory+divergent"]})").kernels ==
          tagged({"memory", "divergent"}));
    CHECK(parse_spec(R"({"machines": "fermi", "kernels": "all"})").kernels.size() == kernels::corpus_cases().size());
    const auto mixed =
        parse_spec(R"({"machines": "fermi", "kernels": ["mandelbrot", "tag:compute+divergent", "bfs"]})");
    std::vector<std::string> expected = {"mandelbrot"};
    for (const auto& k : tagged({"compute", "divergent"}))
        if (k != "mandelbrot") expected.push_back(k);
    expected.push_back("bfs");
    CHECK(mixed.kernels == expected);
}

TEST_CASE("schedulers may be given per machine") {
    const Spec spec = parse_spec(
        R"({"machines": ["fermi", "kepler"], "schedulers": {"fermi": ["GTO"], "kepler": "all"}, "kernels": "saxpy"})");
    const auto points = expand(spec);
    REQUIRE(points.size() == 4);
    CHECK(points[0].machine == "fermi");
    CHECK(points[0].scheduler == "GTO");
    CHECK(points[1].machine == "kepler");
    CHECK(points[3].scheduler == "TwoLevel<8>");
    CHECK(error_of([] {
              parse_spec(R"({"machines": ["fermi", "kepler"], "schedulers": {"fermi": ["GTO"]}, "kernels": "saxpy"})");
          }) == "spec: schedulers: gives no schedulers for machine 'kepler'");
}

TEST_CASE("an unknown name is an error that says where it is and lists the valid choices") {
    CHECK(error_of([] { parse_spec(R"({"machines": "fermi", "schedulers": ["GTO", "GT0"], "kernels": "saxpy"})"); }) ==
          "spec: schedulers: machine 'fermi' has no scheduler named 'GT0' (valid: LRR, GTO, TwoLevel<8>, MemoryFirst, "
          "or \"all\")");
    CHECK(error_of([] { parse_spec(R"({"machines": ["volta"], "kernels": "saxpy"})", "my.json"); }) ==
          "my.json: machines: no machine named 'volta' (valid: fermi, kepler, southern_islands, or \"all\")");
    const std::string kernel = error_of([] { parse_spec(R"({"machines": "fermi", "kernels": ["saxpi"]})"); });
    CHECK(kernel.find("no corpus kernel named 'saxpi' (kernels: vector_add, saxpy,") != std::string::npos);
    const std::string tag = error_of([] { parse_spec(R"({"machines": "fermi", "kernels": ["tag:divergnt"]})"); });
    CHECK(tag.find("no corpus kernel carries the tag 'divergnt'") != std::string::npos);
    CHECK(tag.find("(tags: memory, coherent, compute, divergent)") != std::string::npos);
    CHECK(error_of([] { parse_spec(R"({"machines": "fermi", "kernels": "saxpy", "sizes": ["medium"]})"); }) ==
          "spec: sizes: no size named 'medium' (valid: small, large)");
}

TEST_CASE("a typo in a key, a wrong type or an empty list is an error, never a smaller sweep") {
    CHECK(error_of([] { parse_spec(R"({"machines": "fermi", "kernel": "saxpy"})"); }).find("unknown key 'kernel'") !=
          std::string::npos);
    CHECK(error_of([] {
              parse_spec(R"({"machines": "fermi", "kernels": "saxpy", "knobs": {"mshrs": [4]}})");
          }).find("knobs: unknown key 'mshrs' (valid: mshr_entries, allocate_on_fill, clustered_ctas)") !=
          std::string::npos);
    CHECK(error_of([] { parse_spec(R"({"machines": "fermi", "kernels": []})"); }) ==
          "spec: kernels: the list is empty (a sweep over nothing)");
    CHECK(error_of([] { parse_spec(R"({"machines": "fermi"})"); }) == "spec: top level: the key 'kernels' is required");
    CHECK(error_of([] {
              parse_spec(R"({"machines": "fermi", "kernels": "saxpy", "knobs": {"mshr_entries": [0]}})");
          }).find("expected a number of MSHR entries in [1, 65536] or \"preset\", got 0") != std::string::npos);
    CHECK(error_of([] {
              parse_spec(R"({"machines": "fermi", "kernels": "saxpy", "knobs": {"clustered_ctas": ["yes"]}})");
          }).find("expected true or false") != std::string::npos);
    CHECK(error_of([] {
              parse_spec(R"({"machines": "fermi", "kernels": "saxpy", "slurm": {"mem": "2G; rm"}})");
          }).find("must not contain spaces") != std::string::npos);
    CHECK(error_of([] { parse_spec("{\"machines\": \"fermi\",", "bad.json"); }).rfind("bad.json: not valid JSON", 0) ==
          0);
}

TEST_CASE("the Slurm resources come from the spec") {
    const Spec spec = parse_spec(
        R"({"machines": "fermi", "kernels": "saxpy", "slurm": {"cpus": 4, "mem": "8G", "time": "02:00:00", "partition": "gpu", "chunk": 3}})");
    CHECK(spec.slurm.cpus == 4);
    CHECK(spec.slurm.mem == "8G");
    CHECK(spec.slurm.time == "02:00:00");
    CHECK(spec.slurm.partition == "gpu");
    CHECK(spec.slurm.chunk == 3);
}

TEST_CASE("FNV-1a 64 matches the published test vectors") {
    CHECK(fnv1a64("") == 0xcbf29ce484222325ULL);
    CHECK(fnv1a64("a") == 0xaf63dc4c8601ec8cULL);
    CHECK(fnv1a64("foobar") == 0x85944171f73967e8ULL);
}

TEST_CASE("a point's id hashes its canonical JSON: all fields, sorted keys, no spaces") {
    const Point p{"fermi", "GTO", "vector_add", kernels::Size::small, 0, std::nullopt, false};
    CHECK(
        canonical_json(p) ==
        R"({"allocate_on_fill":null,"clustered_ctas":false,"kernel":"vector_add","machine":"fermi","mshr_entries":null,"scheduler":"GTO","size":"small"})");
    char expected[17];
    std::snprintf(expected, sizeof expected, "%016llx", static_cast<unsigned long long>(fnv1a64(canonical_json(p))));
    CHECK(point_id(p) == expected);
    // Pinned: changing the canonical form orphans every result directory on disk, so it must be deliberate.
    CHECK(point_id(p) == "e8706d2a6d973940");
    const Point q{"kepler", "TwoLevel<8>", "bfs", kernels::Size::large, 16, true, true};
    CHECK(
        canonical_json(q) ==
        R"({"allocate_on_fill":true,"clustered_ctas":true,"kernel":"bfs","machine":"kepler","mshr_entries":16,"scheduler":"TwoLevel<8>","size":"large"})");
    CHECK(point_from_json(point_json(q)) == q);
    CHECK(point_from_json(point_json(p)) == p);
}

TEST_CASE("a point's id does not depend on the spec's name, key order or other points") {
    const auto a = expand(parse_spec(R"({"name": "a", "machines": "fermi", "kernels": ["saxpy", "bfs"],
                                          "knobs": {"mshr_entries": [16]}})"));
    const auto b = expand(parse_spec(R"({"knobs": {"mshr_entries": [8, 16]}, "kernels": "bfs",
                                          "machines": ["kepler", "fermi"], "name": "b"})"));
    const Point wanted{"fermi", "GTO", "bfs", kernels::Size::small, 16, std::nullopt, false};
    auto id_in = [&](const std::vector<Point>& points) {
        for (const auto& p : points)
            if (p == wanted) return point_id(p);
        return std::string();
    };
    REQUIRE_FALSE(id_in(a).empty());
    CHECK(id_in(a) == id_in(b));
}

TEST_CASE("a malformed point is refused by the worker's parser") {
    CHECK(error_of([] {
              point_from_json(nlohmann::json::parse(R"({"machine":"fermi"})"));
          }).rfind("malformed sweep point", 0) == 0);
    CHECK(
        error_of([] {
            point_from_json(nlohmann::json::parse(
                R"({"allocate_on_fill":null,"clustered_ctas":false,"kernel":"k","machine":"m","mshr_entries":0,"scheduler":"s","size":"small"})"));
        }).find("at least 1") != std::string::npos);
}
