// Sweep result records: contents, atomic files, merge into CSV.
#include "helpers.hpp"

#include <sweep/record.hpp>

#include <doctest/doctest.h>

#include <sstream>

using namespace gpuarch;
using namespace gpuarch::sweep;
using sweep_test::ScratchDir;

namespace {
examples::RunRow fake_row(std::uint64_t cycles, bool passed, std::string message, std::vector<std::string> counters) {
    examples::RunRow row;
    row.passed = passed;
    row.message = std::move(message);
    row.variant = "SM<test> x1";
    row.cycles = cycles;
    row.thread_instructions = 2 * cycles;
    row.warp_instructions = cycles / 16;
    row.launches = 1;
    row.host_seconds = 0.25;
    row.sim_seconds = 0.125;
    std::uint64_t v = 1;
    for (const auto& name : counters) row.stats.add_counter(name, v++);
    return row;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}
} // namespace

TEST_CASE("a point's record is its run: the point, status, RunRow fields and statistics in declaration order") {
    const Point p{"fermi", "GTO", "saxpy", kernels::Size::small, 16, false, true};
    examples::RunRow row = fake_row(1000, true, "", {"sm.z_first", "sm.a_second"});
    row.stats.add_histogram("l1.mshr_occupancy", {5, 0, 2});
    const Record r = make_record(p, row);
    std::vector<std::string> keys;
    for (const auto& [key, value] : r.items()) keys.push_back(key);
    CHECK(keys == std::vector<std::string>{"id",
                                           "machine",
                                           "scheduler",
                                           "kernel",
                                           "size",
                                           "mshr_entries",
                                           "allocate_on_fill",
                                           "clustered_ctas",
                                           "status",
                                           "passed",
                                           "message",
                                           "variant",
                                           "cycles",
                                           "warp_instructions",
                                           "thread_instructions",
                                           "launches",
                                           "ipc",
                                           "host_seconds",
                                           "sim_seconds",
                                           "log",
                                           "stats"});
    CHECK(r["id"] == point_id(p));
    CHECK(r["machine"] == "fermi");
    CHECK(r["mshr_entries"] == 16);
    CHECK(r["allocate_on_fill"] == false);
    CHECK(r["status"] == "ok");
    CHECK(r["cycles"] == 1000);
    CHECK(r["ipc"] == 2.0);
    CHECK(r["log"] == "logs/" + point_id(p) + ".log");
    CHECK(r["stats"].dump() == R"({"sm.z_first":1,"sm.a_second":2,"l1.mshr_occupancy":[5,0,2]})");
    CHECK(make_record(p, fake_row(5, false, "mismatch at 3", {}))["status"] == "failed");
}

TEST_CASE("a record file is written whole and read back equal; a corrupt or foreign file counts as absent") {
    ScratchDir dir;
    const Point p{"kepler", "LRR", "bfs", kernels::Size::small, 0, std::nullopt, false};
    const std::string id = point_id(p);
    const Record r = make_record(p, fake_row(77, true, "", {"a"}));
    write_record(dir.path(), id, r);
    const auto back = read_record(dir.path(), id);
    REQUIRE(back.has_value());
    CHECK(*back == r);
    const std::string text = sweep_test::read_text(result_path(dir.path(), id));
    CHECK(lines_of(text).size() == 1); // one JSON line per point
    // No temporary file is left next to it.
    std::size_t files = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path() / "results")) ++files;
    CHECK(files == 1);

    sweep_test::write_text(result_path(dir.path(), id), text.substr(0, text.size() / 2));
    CHECK_FALSE(read_record(dir.path(), id).has_value());
    const Point other{"kepler", "GTO", "bfs", kernels::Size::small, 0, std::nullopt, false};
    sweep_test::write_text(result_path(dir.path(), id), make_record(other, fake_row(1, true, "", {})).dump());
    CHECK_FALSE(read_record(dir.path(), id).has_value());
}

TEST_CASE("merge reads the spec's points in index order, reports the missing ones, and writes RFC 4180 CSV") {
    ScratchDir dir;
    const std::vector<Point> points = {
        {"fermi", "LRR", "saxpy", kernels::Size::small, 0, std::nullopt, false},
        {"fermi", "GTO", "saxpy", kernels::Size::small, 0, std::nullopt, false},
        {"fermi", "LRR", "bfs", kernels::Size::small, 8, true, false},
        {"fermi", "GTO", "bfs", kernels::Size::small, 8, true, true},
    };
    // Written out of order; point 1 is missing; a record of a point outside the spec is ignored.
    write_record(dir.path(), point_id(points[3]),
                 make_record(points[3], fake_row(40, false, "out[3] = 1, \"expected\" 2\nsecond line", {"b", "c"})));
    write_record(dir.path(), point_id(points[0]), make_record(points[0], fake_row(10, true, "", {"a", "b"})));
    write_record(dir.path(), point_id(points[2]), make_record(points[2], fake_row(30, true, "", {"a"})));
    const Point outside{"kepler", "LRR", "saxpy", kernels::Size::small, 0, std::nullopt, false};
    write_record(dir.path(), point_id(outside), make_record(outside, fake_row(99, true, "", {"zzz"})));

    const Merged m = merge(points, dir.path());
    CHECK(m.present == std::vector<std::size_t>{0, 2, 3});
    CHECK(m.missing == std::vector<std::size_t>{1});
    CHECK(m.ok == 2);
    CHECK(m.failed == 1);

    std::ostringstream csv;
    write_csv(csv, m);
    const auto lines = lines_of(csv.str());
    REQUIRE(lines.size() == 1 + 3 + 1); // header, three rows, the quoted message's second line
    CHECK(lines[0] ==
          "id,index,machine,scheduler,kernel,size,mshr_entries,allocate_on_fill,clustered_ctas,status,passed,cycles,"
          "ipc,warp_instructions,thread_instructions,launches,host_seconds,sim_seconds,variant,message,a,b,c");
    CHECK(lines[1] == point_id(points[0]) +
                          ",0,fermi,LRR,saxpy,small,preset,preset,false,ok,true,10,2.0,0,20,1,0.25,0.125,"
                          "SM<test> x1,,1,2,");
    CHECK(lines[2] == point_id(points[2]) +
                          ",2,fermi,LRR,bfs,small,8,true,false,ok,true,30,2.0,1,60,1,0.25,0.125,SM<test> x1,,1,,");
    CHECK(lines[3] == point_id(points[3]) + ",3,fermi,GTO,bfs,small,8,true,true,failed,false,40,2.0,2,80,1,0.25,0.125,"
                                            "SM<test> x1,\"out[3] = 1, \"\"expected\"\" 2");
    CHECK(lines[4] == "second line\",,1,2");

    std::ostringstream table;
    print_summary(table, m);
    const auto rows = lines_of(table.str());
    REQUIRE(rows.size() == 5);
    CHECK(rows[3].find("failed") != std::string::npos);
    CHECK(rows[3].find("out[3] = 1") != std::string::npos);
    CHECK(rows[4] == "3 of 4 points have results: 2 ok, 1 failed or crashed, 1 missing");
}

TEST_CASE("a point run in this process records exactly what run_variant returns") {
    const Point p{"fermi", "GTO", "vector_add", kernels::Size::small, 0, std::nullopt, false};
    const Record r = execute_point(p);
    const examples::RunRow row = examples::run_variant("fermi", "GTO", "vector_add", kernels::Size::small);
    REQUIRE(row.passed);
    CHECK(r["status"] == "ok");
    CHECK(r["cycles"] == row.cycles);
    CHECK(r["variant"] == row.variant);
    Record expected = make_record(p, row);
    expected["host_seconds"] = r["host_seconds"];
    expected["sim_seconds"] = r["sim_seconds"];
    CHECK(r == expected);
}

TEST_CASE("an exception in a point becomes a failed record with its message") {
    const Point p{"fermi", "GTO", "no_such_kernel", kernels::Size::small, 0, std::nullopt, false};
    const Record r = execute_point(p);
    CHECK(r["status"] == "failed");
    CHECK(r["passed"] == false);
    CHECK(r["message"].get<std::string>().find("no case named 'no_such_kernel'") != std::string::npos);
}
