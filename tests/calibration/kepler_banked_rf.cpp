// KeplerBankedRF: Lai 2013's GK104 bank rule as a register-file policy. Exact unit tests of the conflict degree,
// of the timing contract (regfile/kepler_banked_rf.hpp) driven by hand, and of its effect inside the SM.
#include <doctest/doctest.h>

#include <gpuarch/regfile/ideal_rf.hpp>
#include <gpuarch/regfile/kepler_banked_rf.hpp>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <gpuarch/support/table41_support.hpp>

namespace {
using namespace gpuarch;
using regfile::KeplerBankedRF;

static_assert(timing::check_register_file<KeplerBankedRF>());
static_assert(timing::check_register_file<regfile::KeplerBankedRFT<1>>());
static_assert(KeplerBankedRF::banks_per_scheduler == 4);
static_assert(KeplerBankedRF::name == "KeplerBankedRF");
static_assert(regfile::KeplerBankedRFT<2>::name == "KeplerBankedRF<2>");
static_assert(regfile::KeplerBankedRFT<16>::name == "KeplerBankedRF<16>");

int degree(std::initializer_list<ir::RegId> regs) {
    const std::vector<ir::RegId> v(regs);
    return KeplerBankedRF::conflict_degree(v);
}

timing::OperandRead read_of(std::uint64_t token, unsigned scheduler, std::initializer_list<ir::RegId> sources) {
    timing::OperandRead r;
    r.token = token;
    r.warp = scheduler;
    r.scheduler = scheduler;
    for (ir::RegId s : sources) r.sources[r.source_count++] = s;
    return r;
}

// Drives a register file cycle by cycle as the SM does (cycle, then dispatch_ready) and records when each token
// was taken. `take` decides whether the execution side accepts a token in a given cycle.
struct Driver {
    KeplerBankedRF rf{timing::RegisterFileConfig{64, 4, 32}};
    std::vector<std::pair<std::uint64_t, core::Cycle>> taken;
    void step(core::Cycle now, bool accept_all = true, std::uint64_t refuse = ~std::uint64_t{0}) {
        rf.cycle(now);
        rf.dispatch_ready([&](std::uint64_t token) {
            if (!accept_all || token == refuse) return false;
            taken.emplace_back(token, now);
            return true;
        });
    }
    core::Cycle taken_at(std::uint64_t token) const {
        for (const auto& [t, c] : taken)
            if (t == token) return c;
        return ~core::Cycle{0};
    }
};
} // namespace

TEST_CASE("conflict degree counts distinct source registers in Lai's worst bank") {
    // Table 4.1 source sets: R1,R2 / R1,R4,R5 conflict-free; R1,R3 and R1,R3,R5 two-way; R1,R3,R9 three-way.
    CHECK(degree({1, 2}) == 1);
    CHECK(degree({1, 4, 5}) == 1);
    CHECK(degree({1, 4, 0}) == 1);
    CHECK(degree({1, 3}) == 2);
    CHECK(degree({1, 3, 5}) == 2);
    CHECK(degree({1, 3, 9}) == 3);
    // Banks by value mod 8 and parity: 0,2 even0; 4,6 even1; 1,3 odd0; 5,7 odd1 (and the same every 8).
    CHECK(degree({0, 2}) == 2);
    CHECK(degree({4, 6}) == 2);
    CHECK(degree({5, 7}) == 2);
    CHECK(degree({0, 4, 1, 5}) == 1);
    CHECK(degree({0, 8, 16, 24}) == 4);
    CHECK(degree({7, 15, 23}) == 3);
    CHECK(degree({2, 6, 10, 14}) == 2);
    // Naming one register twice is no conflict; no sources at all is degree 1.
    CHECK(degree({1, 1, 1}) == 1);
    CHECK(degree({3, 3, 11}) == 2);
    CHECK(degree({}) == 1);
}

TEST_CASE("a conflict-free read set is offered the cycle after acceptance, a k-way one k cycles after") {
    Driver d;
    d.rf.accept(read_of(1, 0, {1, 4, 5}), 10);
    d.rf.accept(read_of(2, 1, {1, 3, 5}), 10);
    d.rf.accept(read_of(3, 2, {1, 3, 9}), 10);
    d.rf.accept(read_of(4, 3, {}), 10);
    d.step(10); // accepted this cycle: nothing is read yet
    CHECK(d.taken.empty());
    for (core::Cycle t = 11; t <= 14; ++t) d.step(t);
    CHECK(d.taken_at(1) == 11);
    CHECK(d.taken_at(2) == 12);
    CHECK(d.taken_at(3) == 13);
    CHECK(d.taken_at(4) == 11);
    // Each scheduler has its own partition: four different partitions, no request ever lost a bank.
    CHECK(d.rf.bank_conflict_cycles() == 0);
    CHECK(d.rf.instructions_with_degree(1) == 2);
    CHECK(d.rf.instructions_with_degree(2) == 1);
    CHECK(d.rf.instructions_with_degree(3) == 1);
}

TEST_CASE("two collectors of one scheduler share its banks, oldest first") {
    Driver d;
    d.rf.accept(read_of(1, 0, {1, 3}), 10); // two reads on odd0
    d.rf.accept(read_of(2, 0, {9, 4}), 10); // odd0 and even1
    for (core::Cycle t = 11; t <= 14; ++t) d.step(t);
    // odd0 serves token 1 at 11 and 12, token 2 at 13 (token 2's even1 read was served at 11).
    CHECK(d.taken_at(1) == 12);
    CHECK(d.taken_at(2) == 13);
    CHECK(d.rf.bank_conflict_cycles() == 2);
    CHECK(d.rf.conflicted_last_cycle() == false); // in cycle 14 nobody waited
}

TEST_CASE("the same registers in different schedulers' partitions do not conflict") {
    Driver d;
    for (unsigned s = 0; s < 4; ++s) d.rf.accept(read_of(s, s, {1, 3, 9}), 5);
    for (core::Cycle t = 6; t <= 8; ++t) d.step(t);
    for (unsigned s = 0; s < 4; ++s) CHECK(d.taken_at(s) == 8);
    CHECK(d.rf.bank_conflict_cycles() == 0);
}

TEST_CASE("a collector refused by the execution side keeps its instruction and is offered again") {
    Driver d;
    d.rf.accept(read_of(7, 0, {1}), 0);
    d.step(1, true, 7); // unit busy
    CHECK(d.taken.empty());
    d.step(2);
    CHECK(d.taken_at(7) == 2);
}

TEST_CASE("collectors per scheduler bound acceptance, partition by partition") {
    KeplerBankedRF rf{timing::RegisterFileConfig{64, 4, 32}};
    for (std::uint64_t k = 0; k < KeplerBankedRF::collectors_per_scheduler; ++k) {
        REQUIRE(rf.can_accept(read_of(k, 0, {1})));
        rf.accept(read_of(k, 0, {1}), 0);
    }
    CHECK_FALSE(rf.can_accept(read_of(99, 0, {2})));
    CHECK(rf.can_accept(read_of(99, 1, {2})));
    CHECK_THROWS_AS(rf.accept(read_of(99, 0, {2}), 0), gpuarch::Error);
    // All four want odd0: one is read per cycle, and each dispatch frees a collector.
    rf.cycle(1);
    CHECK(rf.conflicted_last_cycle());
    CHECK(rf.conflicted_last_cycle(0));
    CHECK_FALSE(rf.conflicted_last_cycle(1));
    std::vector<std::uint64_t> order;
    rf.dispatch_ready([&](std::uint64_t t) {
        order.push_back(t);
        return true;
    });
    CHECK(order == std::vector<std::uint64_t>{0});
    CHECK(rf.can_accept(read_of(99, 0, {2})));
}

TEST_CASE("ready collectors are offered oldest first across the schedulers") {
    Driver d;
    d.rf.accept(read_of(10, 3, {2}), 1);
    d.rf.accept(read_of(11, 0, {2}), 2);
    d.rf.accept(read_of(12, 2, {}), 2);
    d.step(3);
    REQUIRE(d.taken.size() == 3);
    CHECK(d.taken[0].first == 10);
    CHECK(d.taken[1].first == 11);
    CHECK(d.taken[2].first == 12);
}

TEST_CASE("writes take no read port and complete in the cycle they are made") {
    KeplerBankedRF rf{timing::RegisterFileConfig{64, 4, 32}};
    rf.accept(read_of(1, 0, {0, 2}), 0); // two reads on even0
    timing::RegisterWrite w;
    w.token = 5;
    w.warp = 0;
    w.dest_count = 1;
    w.dests[0] = 8; // even0 as well
    rf.write(w, 1);
    std::vector<std::uint64_t> done;
    rf.drain_written([&](std::uint64_t t) { done.push_back(t); });
    CHECK(done == std::vector<std::uint64_t>{5});
    std::vector<std::pair<std::uint64_t, core::Cycle>> taken;
    for (core::Cycle t = 1; t <= 3; ++t) {
        rf.cycle(t);
        rf.dispatch_ready([&](std::uint64_t tok) {
            taken.emplace_back(tok, t);
            return true;
        });
    }
    REQUIRE(taken.size() == 1);
    CHECK(taken[0].second == 2); // the write did not delay the two even0 reads
}

namespace {
std::string ptx_header() { return ".version 8.0\n.target sm_30\n.address_size 64\n"; }

// One warp, N independent FFMAs reading `sources`, destinations rotating over R16..R23.
std::string ffma_stream(int n, const std::string& sources) {
    std::string s = ptx_header() + ".visible .entry k()\n{\n  .reg .b32 %r<32>;\n";
    for (int i = 0; i < n; ++i) s += "  fma.rn.f32 %r" + std::to_string(16 + i % 8) + ", " + sources + ";\n";
    return s + "  ret;\n}\n";
}

std::string dependent_chain(int n) {
    std::string s = ptx_header() + ".visible .entry k()\n{\n  .reg .b32 %r<4>;\n  mov.u32 %r1, %tid.x;\n";
    for (int i = 0; i < n; ++i) s += "  add.s32 %r1, %r1, 1;\n";
    return s + "  ret;\n}\n";
}

template <class RF> core::Cycle one_warp_cycles(const std::string& ptx) {
    func::Device device;
    const auto module = func::Module::from_string(ptx, "calibration_micro.ptx");
    GPU<calibration_test::GK104SM<RF>, 1> gpu;
    TimingOptions options;
    options.registers_per_thread = 32;
    return gpu.launch(device, module, "k", func::LaunchConfig{{1, 1, 1}, {32, 1, 1}, 0}, func::Args{}, options).cycles;
}
} // namespace

TEST_CASE("in the SM, a dependent chain without conflicts takes exactly the IdealRF cycles") {
    for (int n : {1, 5, 17})
        CHECK(one_warp_cycles<KeplerBankedRF>(dependent_chain(n)) ==
              one_warp_cycles<regfile::IdealRF>(dependent_chain(n)));
}

TEST_CASE("in the SM, a k-way conflicted stream costs k cycles per instruction") {
    // One warp, so the worst bank of the warp's partition is the bottleneck: 2 reads of odd0 (R1, R3) per FFMA
    // take 2 cycles, 3 (R1, R3, R9) take 3.
    const auto two = one_warp_cycles<KeplerBankedRF>(ffma_stream(32, "%r1, %r3, %r5")) -
                     one_warp_cycles<KeplerBankedRF>(ffma_stream(20, "%r1, %r3, %r5"));
    CHECK(two == 2 * 12);
    const auto three = one_warp_cycles<KeplerBankedRF>(ffma_stream(32, "%r1, %r3, %r9")) -
                       one_warp_cycles<KeplerBankedRF>(ffma_stream(20, "%r1, %r3, %r9"));
    CHECK(three == 3 * 12);
    // The same stream with IdealRF is not bound by the banks.
    const auto ideal = one_warp_cycles<regfile::IdealRF>(ffma_stream(32, "%r1, %r3, %r9")) -
                       one_warp_cycles<regfile::IdealRF>(ffma_stream(20, "%r1, %r3, %r9"));
    CHECK(ideal < 2 * 12);
}
