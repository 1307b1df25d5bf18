// Energy accounting from statistics (power/energy_report.hpp): a hand-computed report from a hand-made
// StatsTable, unavailable components, the operand-count fallback, and the Fermi table's calibration.
#include <doctest/doctest.h>

#include <gpuarch/core/stats.hpp>
#include <gpuarch/power/energy_report.hpp>
#include <gpuarch/power/energy_table.hpp>

#include <sstream>

namespace {
using namespace gpuarch;

power::EnergyTable round_table() {
    using timing::UnitKind;
    power::EnergyTable t;
    t.machine = "test";
    t.warp_register_bytes = 128;
    t.noc_flit_bytes = 32;
    t.rf_read_slice = {2, "test"};
    t.rf_write_slice = {3, "test"};
    t.crossbar_slice = {0.5, "test"};
    t.collector_write_slice = {0.25, "test"};
    t.mask_buffer_access = {0.1, "test"};
    t.lane(UnitKind::sp) = {1, "test"};
    t.lane(UnitKind::sfu) = {4, "test"};
    t.trivial_bypass_lane = {0.05, "test"};
    t.instruction = {10, "test"};
    t.l1_line_access = {100, "test"};
    t.shared_bank_cycle = {50, "test"};
    t.constant_access = {5, "test"};
    t.l2_request = {200, "test"};
    t.noc_byte = {1, "test"};
    t.dram_byte = {2, "test"};
    t.sm_active_cycle = {0.5, "test"};
    return t;
}

core::StatsTable hand_made_stats() {
    core::StatsTable s;
    s.add_counter("sm.rf.bank_bytes_read", 6400); // 200 slices x 2   = 400
    s.add_counter("sm.rf.bank_bytes_written", 3200); // 100 slices x 3  = 300
    s.add_counter("sm.rf.crossbar_bytes", 6400); // 200 x 0.5       = 100
    s.add_counter("sm.rf.collector_bytes", 6400); // 200 x 0.25      = 50
    s.add_counter("sm.rf.mask_buffer_reads", 100); // 150 x 0.1       = 15
    s.add_counter("sm.rf.mask_buffer_writes", 50);
    s.add_counter("sm.exec.sp.active_lane_ops", 1000);
    s.add_counter("sm.exec.sp.idle_lane_ops", 200);
    s.add_counter("sm.exec.sp.lanes_gated_inactive", 200); // gated: free
    s.add_counter("sm.exec.sp.lanes_trivial", 100); // powered 900 x 1 = 900; bypass 100 x 0.05 = 5
    s.add_counter("sm.exec.sfu.active_lane_ops", 64); // 64 x 4 = 256
    s.add_counter("sm.exec.sfu.idle_lane_ops", 0);
    s.add_counter("sm.warp_instructions", 40); // 400
    s.add_counter("sm.l1.accesses", 3); // 300
    s.add_counter("sm.l1.shared_bank_cycles", 2); // 100
    s.add_counter("sm.l1.constant_accesses", 4); // 20
    s.add_counter("mem.l2_reads", 2); // 3 x 200 = 600
    s.add_counter("mem.l2_writes", 1);
    s.add_counter("mem.l2_atomics", 0);
    s.add_counter("mem.icnt_request_flits", 10); // 15 flits x 32 B x 1 = 480
    s.add_counter("mem.icnt_response_flits", 5);
    s.add_counter("mem.dram_bytes", 256); // 512
    s.add_counter("sm.active_cycles", 100); // 50
    return s;
}
} // namespace

TEST_CASE("a hand-made statistics table gives the hand-computed energy of every component") {
    const auto r = power::energy_report(hand_made_stats(), round_table());
    auto pj = [&](const char* name) {
        const auto* c = r.find(name);
        REQUIRE(c != nullptr);
        CHECK(c->available);
        return c->pj;
    };
    CHECK(pj("rf.banks") == doctest::Approx(700));
    CHECK(pj("rf.crossbar") == doctest::Approx(100));
    CHECK(pj("rf.collectors") == doctest::Approx(50));
    CHECK(pj("rf.mask_buffer") == doctest::Approx(15));
    CHECK(pj("exec.sp") == doctest::Approx(900));
    CHECK(pj("exec.sfu") == doctest::Approx(256));
    CHECK(pj("exec.bypass") == doctest::Approx(5));
    CHECK(pj("frontend") == doctest::Approx(400));
    CHECK(pj("l1") == doctest::Approx(300));
    CHECK(pj("shared") == doctest::Approx(100));
    CHECK(pj("constant") == doctest::Approx(20));
    CHECK(pj("l2") == doctest::Approx(600));
    CHECK(pj("noc") == doctest::Approx(480));
    CHECK(pj("dram") == doctest::Approx(512));
    CHECK(pj("sm_cycles") == doctest::Approx(50));
    CHECK(r.group_pj("rf") == doctest::Approx(865));
    CHECK(r.group_pj("exec") == doctest::Approx(1161));
    CHECK(r.total_pj() == doctest::Approx(4488));
    CHECK(r.find("exec.dp") == nullptr); // no dp counters: no dp component
    const std::string json = r.to_json();
    CHECK(json.find("\"total_pj\":4488") != std::string::npos);
    std::ostringstream text;
    r.print(text);
    CHECK(text.str().find("rf.banks") != std::string::npos);
}

TEST_CASE("a component whose counters are absent is unavailable and left out of the total, never zero") {
    core::StatsTable s = hand_made_stats();
    core::StatsTable no_cache;
    for (const auto& e : s.entries())
        if (e.name.rfind("sm.l1.", 0) != 0) no_cache.add_counter(e.name, e.value);
    const auto r = power::energy_report(no_cache, round_table());
    const auto* l1 = r.find("l1");
    REQUIRE(l1 != nullptr);
    CHECK_FALSE(l1->available);
    CHECK(l1->basis == "no counter sm.l1.accesses");
    CHECK(r.total_pj() == doctest::Approx(4488 - 300 - 100 - 20));
}

TEST_CASE("gated thread registers and lanes cost nothing: ungated and gated runs differ by exactly the gated work") {
    core::StatsTable ungated = hand_made_stats();
    core::StatsTable gated;
    for (const auto& e : ungated.entries()) {
        std::uint64_t v = e.value;
        if (e.name == "sm.rf.bank_bytes_read") v = 3200; // half the bytes gated
        gated.add_counter(e.name, v);
    }
    const auto a = power::energy_report(ungated, round_table());
    const auto b = power::energy_report(gated, round_table());
    CHECK(a.total_pj() - b.total_pj() == doctest::Approx(3200.0 / 32 * 2));
}

TEST_CASE("register files without byte counters are charged a full warp register per operand") {
    core::StatsTable s;
    s.add_counter("sm.rf.operand_reads", 3);
    s.add_counter("sm.rf.register_writes", 1);
    const auto table = power::fermi_energy_table();
    const auto r = power::energy_report(s, table);
    CHECK(r.find("rf.banks")->pj == doctest::Approx(3 * 4 * 5.0 + 1 * 4 * 5.0));
    CHECK(r.find("rf.crossbar")->pj == doctest::Approx(3 * 4 * 1.25));
    CHECK(r.find("rf.collectors")->pj == doctest::Approx(3 * 4 * 1.25));
    CHECK(r.find("rf.mask_buffer")->pj == 0);
    CHECK(r.find("rf.banks")->basis.find("no byte counters") != std::string::npos);
}

TEST_CASE("the Fermi table reproduces the thesis's shares for an FMA stream: RF = 0.75 EX, RF macros 72.5% of RF") {
    // 100 full-width FMA warp instructions on the ungated baseline: 3 reads and 1 write of 128 B each, 32 lanes.
    core::StatsTable s;
    s.add_counter("sm.rf.bank_bytes_read", 300 * 128);
    s.add_counter("sm.rf.bank_bytes_written", 100 * 128);
    s.add_counter("sm.rf.crossbar_bytes", 300 * 128);
    s.add_counter("sm.rf.collector_bytes", 300 * 128);
    s.add_counter("sm.exec.sp.active_lane_ops", 3200);
    s.add_counter("sm.exec.sp.idle_lane_ops", 0);
    const auto r = power::energy_report(s, power::fermi_energy_table());
    const double rf = r.group_pj("rf"), ex = r.group_pj("exec");
    CHECK(rf / ex == doctest::Approx(0.75).epsilon(0.01)); // Radaideh 2020: >15% vs ~20%
    CHECK(r.find("rf.banks")->pj / rf == doctest::Approx(0.725).epsilon(0.01)); // "about 70-75%"
    for (const auto& v : power::fermi_energy_table().lane_op) CHECK(!v.source.empty());
}
