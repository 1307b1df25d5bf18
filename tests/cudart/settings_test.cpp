// Run-time settings (support/settings.hpp) and the registry of prebuilt variants (support/simulator.hpp): every
// name and value is checked, errors list what is valid, and the registry's machines report their real parameters.
#include <gpuarch/core/error.hpp>
#include <gpuarch/support/settings.hpp>
#include <gpuarch/support/simulator.hpp>

#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

using gpuarch::support::Settings;

TEST_CASE("settings take known keys with well-formed values and name the valid ones otherwise") {
    Settings s;
    s.set("l1.mshr_entries", " 16 ");
    CHECK(s.get_uint("l1.mshr_entries") == 16);
    CHECK(s.get("scheduler") == "gto"); // the default
    CHECK_THROWS_WITH_AS(s.set("l1.mshrs", "4", "--set"),
                         doctest::Contains("--set: unknown setting 'l1.mshrs'; valid settings: machine, scheduler"),
                         gpuarch::Error);
    CHECK_THROWS_WITH_AS(s.set("max_cycles", "-3"), doctest::Contains("needs a non-negative integer, got '-3'"),
                         gpuarch::Error);
    CHECK_THROWS_WITH_AS(s.set("l1.allocation", "on_write"),
                         doctest::Contains("has no value 'on_write'; valid values: on_fill,on_miss"), gpuarch::Error);
    CHECK_THROWS_WITH_AS(s.set("functional", "maybe"), doctest::Contains("needs true or false"), gpuarch::Error);
}

TEST_CASE("a config file is key = value lines with comments, and its errors carry file:line") {
    const auto path = std::filesystem::temp_directory_path() / "gpuarch_settings_test.config";
    {
        std::ofstream out(path);
        out << "# a comment\n\nmachine = fermi   # trailing comment\nl2.latency=150\nthis line has no equals\n";
    }
    Settings s;
    CHECK_THROWS_WITH_AS(s.load_file(path), doctest::Contains((path.string() + ":5: expected 'key = value'").c_str()),
                         gpuarch::Error);
    CHECK(s.get("machine") == "fermi");
    CHECK(s.get_uint("l2.latency") == 150);
    std::filesystem::remove(path);
    CHECK_THROWS_WITH_AS(s.load_file(std::filesystem::temp_directory_path()), doctest::Contains("is a directory"),
                         gpuarch::Error);
}

TEST_CASE("settings survive the round trip through the launcher's list form") {
    Settings a;
    a.set("machine", "southern_islands");
    a.set("l1.allocation", "on_miss");
    Settings b;
    b.load_list(a.to_list(), "GPUARCH_SETTINGS");
    CHECK(b.get("machine") == "southern_islands");
    CHECK(b.get("l1.allocation") == "on_miss");
    CHECK(b.to_list() == a.to_list());
}

TEST_CASE("every setting has a help text, and names are lower snake_case") {
    for (const auto& k : gpuarch::support::setting_keys()) {
        CHECK_FALSE(k.help.empty());
        for (char c : k.key) CHECK(((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.'));
    }
}

TEST_CASE("docs/cuda_runtime.md documents every setting") {
    std::ifstream in(std::string(GPUARCH_SOURCE_DIR) + "/docs/cuda_runtime.md");
    REQUIRE(in);
    const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const auto& k : gpuarch::support::setting_keys())
        CHECK_MESSAGE(doc.find("`" + std::string(k.key) + "`") != std::string::npos, k.key);
}

TEST_CASE("the registry names machines, schedulers and register files, and rejects what it does not have") {
    using namespace gpuarch::support;
    CHECK(machine_names() == std::vector<std::string>{"fermi", "gtx480", "kepler", "southern_islands"});
    const auto schedulers = scheduler_names();
    for (const char* s : {"lrr", "gto", "two_level", "oaws_static", "oaws_dynamic", "ccws", "swl_2", "swl_4", "mascar",
                          "two_level_active", "haws", "locality_two_level"})
        CHECK(std::find(schedulers.begin(), schedulers.end(), s) != schedulers.end());
    Settings s;
    s.set("machine", "kepler");
    s.set("scheduler", "haws");
    s.set("register_file", "banked");
    CHECK_THROWS_WITH_AS(check_variant(s),
                         doctest::Contains("register_file 'banked' is prebuilt with the schedulers lrr, gto only"),
                         gpuarch::Error);
    s.set("scheduler", "fifo");
    CHECK_THROWS_WITH_AS(check_variant(s), doctest::Contains("no scheduler named 'fifo'; valid schedulers: lrr, gto"),
                         gpuarch::Error);
}

TEST_CASE("machine parameters come from the presets, with the knob settings applied") {
    using namespace gpuarch::support;
    const MachineInfo fermi = machine_info("fermi");
    CHECK(fermi.sms == 15);
    CHECK(fermi.warp_size == 32);
    CHECK(fermi.max_warps_per_sm == 48);
    CHECK(fermi.registers_per_sm == 32768);
    CHECK(machine_info("southern_islands").warp_size == 64);
    Settings s;
    s.set("memory.partitions", "3");
    const MachineInfo three = machine_info("kepler", s);
    const MachineInfo six = machine_info("kepler");
    CHECK(three.memory_partitions == 3);
    CHECK(three.l2_bytes * 2 == six.l2_bytes);
}

TEST_CASE("a variant's description names every run-time override of its knobs") {
    using namespace gpuarch::support;
    Settings s;
    s.set("machine", "fermi");
    s.set("scheduler", "lrr");
    s.set("l1.mshr_entries", "7");
    const Simulator sim = make_simulator(s);
    CHECK(sim.description().find("Fermi/LRR/IdealRF/SimdExec/L1<MSHR<32>") == 0);
    CHECK(sim.description().find("[l1.mshr_entries=7]") != std::string::npos);
    s.set("scheduler", "mascar");
    s.set("l1.mshr_entries", "32");
    // MASCAR adds its re-execution queue (Wang 2016 Sec. 5) to an L1 type that has none: the name says so.
    CHECK(make_simulator(s).description().find("l1.reexecution_entries=32") != std::string::npos);
}
