// CoalescingRF, CORF, WwfaRF and ZeroGatedRF driven by hand: every coalescing case of Radaideh 2020 Table 3.2,
// the timing contract, widths from written values, register pairs, and Chapter 4 gating counters.
#include <doctest/doctest.h>

#include <gpuarch/core/stats.hpp>
#include <gpuarch/regfile/coalescing_rf.hpp>
#include <gpuarch/regfile/corf.hpp>
#include <gpuarch/regfile/zero_gated_rf.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace {
using namespace gpuarch;
using regfile::CoalescingRF;

static_assert(timing::check_register_file<CoalescingRF<>>());
static_assert(timing::check_register_file<regfile::WwfaRF<>>());
static_assert(timing::check_register_file<regfile::CORF<>>());
static_assert(timing::check_register_file<regfile::ZeroGatedRF<>>());

using CarfWid = CoalescingRF<4, regfile::Sub4, regfile::WidLayout, regfile::RegAlignment>;
using CarfWshift = CoalescingRF<4, regfile::Sub4, regfile::WshiftLayout, regfile::RegAlignment>;

template <class RF> RF make(unsigned warps = 8, unsigned width = 32) {
    return RF(timing::RegisterFileConfig{warps, 2, width});
}

timing::OperandRead read_of(std::uint64_t token, unsigned warp, std::initializer_list<ir::RegId> regs,
                            core::WarpMask active = core::WarpMask::first(32)) {
    timing::OperandRead r;
    r.token = token;
    r.warp = warp;
    for (auto reg : regs) r.sources[r.source_count++] = reg;
    r.active = active;
    return r;
}

struct Values {
    std::vector<std::uint64_t> lanes;
    explicit Values(std::uint64_t v, unsigned width = 32) : lanes(width, v) {}
};

timing::RegisterWrite write_of(std::uint64_t token, unsigned warp, ir::RegId reg, const Values& v,
                               std::uint8_t bytes = 4, bool memory = false,
                               core::WarpMask active = core::WarpMask::first(32)) {
    timing::RegisterWrite w;
    w.token = token;
    w.warp = warp;
    w.dests[w.dest_count++] = reg;
    w.values = v.lanes.data();
    w.value_bytes = bytes;
    w.from_memory = memory;
    w.active = active;
    return w;
}

template <class RF> core::StatsTable stats(const RF& rf) {
    core::StatsTable t;
    t.collect("rf", rf);
    return t;
}

// Runs cycles until every write is done; returns the tokens written, in order.
template <class RF> std::vector<std::uint64_t> settle_writes(RF& rf, core::Cycle& now) {
    std::vector<std::uint64_t> done;
    for (int i = 0; i < 8; ++i) {
        rf.cycle(now++);
        rf.drain_written([&](std::uint64_t t) { done.push_back(t); });
    }
    return done;
}
} // namespace

TEST_CASE("names say which register file and which knobs") {
    CHECK(CoalescingRF<>::name == "CARF<4,wshift,reg>");
    CHECK(CarfWid::name == "CARF<4,wid,reg>");
    CHECK(regfile::WwfaRF<>::name == "WWFA<4,wshift>");
    CHECK(regfile::CORF<>::name == "CORF<4,wid>");
    CHECK(regfile::ZeroGatedRF<>::name == "WWFA<16,wshift,cross_lane>");
    CHECK(CoalescingRF<4, regfile::Sub4, regfile::WidLayout, regfile::UpperBoundAlignment, 8>::name ==
          "CARF<4,8oc,wid,upper_bound>");
    CHECK(CoalescingRF<>::mask_buffer_bytes == 384);
}

TEST_CASE("an operand read accepted at t is requested from t+1 and offered from the cycle after its grant") {
    auto rf = make<CarfWid>();
    rf.accept(read_of(7, 0, {2}), 10);
    std::vector<std::uint64_t> offered;
    auto take = [&](std::uint64_t t) {
        offered.push_back(t);
        return true;
    };
    rf.cycle(10);
    rf.dispatch_ready(take);
    CHECK(offered.empty());
    rf.cycle(11); // granted
    rf.dispatch_ready(take);
    CHECK(offered.empty());
    rf.cycle(12);
    rf.dispatch_ready(take);
    CHECK(offered == std::vector<std::uint64_t>{7});
}

TEST_CASE("widths come from the written values: R2 = 1 byte, R3 = 3 bytes, negative narrow values keep a sign") {
    auto rf = make<CarfWid>();
    core::Cycle now = 0;
    rf.write(write_of(1, 0, 2, Values(5)), now);
    rf.write(write_of(2, 0, 3, Values(0x123456)), now);
    rf.write(write_of(3, 0, 4, Values(0xFFFFFFF0)), now);
    settle_writes(rf, now);
    CHECK(rf.register_width(0, 2) == regfile::WidthInfo{1, false});
    CHECK(rf.register_width(0, 3) == regfile::WidthInfo{3, false});
    CHECK(rf.register_width(0, 4) == regfile::WidthInfo{1, true});
    const auto t = stats(rf);
    CHECK(t.histogram("rf.dst_width_bytes") == std::vector<std::uint64_t>{0, 2, 0, 1, 0});
}

TEST_CASE("Table 3.2 row 2: reads of two instructions in one bank coalesce (R2 right 0001, R3 left 1110)") {
    auto rf = make<CarfWid>();
    core::Cycle now = 0;
    rf.write(write_of(1, 0, 2, Values(5)), now);
    rf.write(write_of(2, 0, 3, Values(0x123456)), now);
    settle_writes(rf, now);
    const auto before = stats(rf);
    rf.accept(read_of(10, 0, {2}), now);
    rf.accept(read_of(11, 0, {3}), now);
    ++now;
    rf.cycle(now++);
    const auto t = stats(rf).minus(before);
    CHECK(t.counter("rf.granted_reads") == 2);
    CHECK(t.counter("rf.physical_bank_accesses") == 1);
    CHECK(t.counter("rf.coalesced.rd_rd") == 1);
    CHECK(t.counter("rf.coalesced.rd_rd_same_instruction") == 0);
    CHECK(t.counter("rf.collector_writes") == 2);
    CHECK(t.counter("rf.sub_bank_accesses") == 4);
    CHECK(t.counter("rf.bank_bytes_read") == 4 * 32);
    // The baseline serialises them.
    auto base = make<regfile::WwfaRF<4, 4, regfile::WidLayout>>();
    core::Cycle n = 0;
    base.write(write_of(1, 0, 2, Values(5)), n);
    base.write(write_of(2, 0, 3, Values(0x123456)), n);
    settle_writes(base, n);
    const auto b0 = stats(base);
    base.accept(read_of(10, 0, {2}), n);
    base.accept(read_of(11, 0, {3}), n);
    ++n;
    base.cycle(n++);
    base.cycle(n++);
    const auto b = stats(base).minus(b0);
    CHECK(b.counter("rf.granted_reads") == 2);
    CHECK(b.counter("rf.physical_bank_accesses") == 2);
    CHECK(b.counter("rf.conflict.read_read") == 1);
    CHECK(b.counter("rf.bank_bytes_read") == 2 * 128);
}

TEST_CASE("Table 3.2 row 1: two reads of one instruction in one bank coalesce into one collector write") {
    auto rf = make<CarfWid>();
    core::Cycle now = 0;
    rf.write(write_of(1, 0, 2, Values(0x1234)), now); // 2 bytes, right: 0011
    rf.write(write_of(2, 0, 5, Values(0x12)), now); // 1 byte, left: 1000
    settle_writes(rf, now);
    const auto before = stats(rf);
    rf.accept(read_of(10, 0, {2, 5}), now);
    ++now;
    rf.cycle(now++);
    const auto t = stats(rf).minus(before);
    CHECK(t.counter("rf.physical_bank_accesses") == 1);
    CHECK(t.counter("rf.coalesced.rd_rd_same_instruction") == 1);
    CHECK(t.counter("rf.collector_writes") == 1);
    CHECK(t.histogram("rf.src_operands")[2] == 1);
}

TEST_CASE("Table 3.2 row 5: reads of one instruction from two banks share one collector write") {
    // wshift: warp 0's R0 is in bank 0, R1 in bank 1.
    auto rf = make<CarfWshift>();
    core::Cycle now = 0;
    rf.write(write_of(1, 0, 0, Values(0x1234)), now); // right 0011
    rf.write(write_of(2, 0, 1, Values(0x1234)), now); // left 1100
    settle_writes(rf, now);
    const auto before = stats(rf);
    rf.accept(read_of(10, 0, {0, 1}), now);
    ++now;
    rf.cycle(now++);
    const auto t = stats(rf).minus(before);
    CHECK(t.counter("rf.granted_reads") == 2);
    CHECK(t.counter("rf.physical_bank_accesses") == 2);
    CHECK(t.counter("rf.collector_writes") == 1);
    CHECK(t.counter("rf.coalesced.cross_bank") == 1);
}

TEST_CASE("Table 3.2 rows 3 and 4: two writes, and a read with a write, share one bank access") {
    auto rf = make<CarfWid>();
    core::Cycle now = 0;
    rf.write(write_of(1, 0, 2, Values(7)), now);
    rf.write(write_of(2, 0, 3, Values(9), 4, true), now); // a memory write: lower priority, still coalesces
    auto before = stats(rf);
    rf.cycle(now++);
    std::vector<std::uint64_t> done;
    rf.drain_written([&](std::uint64_t t) { done.push_back(t); });
    CHECK(done.size() == 2);
    auto t = stats(rf).minus(before);
    CHECK(t.counter("rf.coalesced.wr_wr") == 1);
    CHECK(t.counter("rf.physical_bank_accesses") == 1);

    // Sec. 3.6.2.4: "a read from R2 which is a 1-byte register ... and a write to R3 with 3-byte result".
    rf.accept(read_of(10, 0, {2}), now);
    ++now;
    rf.write(write_of(3, 0, 3, Values(0x123456)), now);
    before = stats(rf);
    rf.cycle(now++);
    t = stats(rf).minus(before);
    CHECK(t.counter("rf.coalesced.rd_wr") == 1);
    CHECK(t.counter("rf.physical_bank_accesses") == 1);
    CHECK(t.counter("rf.granted_reads") == 1);
    CHECK(t.counter("rf.granted_writes") == 1);
}

TEST_CASE("CORF coalesces same-instruction reads of one bank only; CARF also coalesces across instructions") {
    auto corf = make<regfile::CORF<>>();
    core::Cycle now = 0;
    corf.write(write_of(1, 0, 2, Values(5)), now);
    corf.write(write_of(2, 0, 4, Values(6)), now); // two even registers: fine for CORF's ideal packing
    settle_writes(corf, now);
    auto before = stats(corf);
    corf.accept(read_of(10, 0, {2, 4}), now);
    ++now;
    corf.cycle(now++);
    auto t = stats(corf).minus(before);
    CHECK(t.counter("rf.coalesced.rd_rd_same_instruction") == 1);
    before = stats(corf);
    corf.accept(read_of(11, 0, {2}), now);
    corf.accept(read_of(12, 0, {4}), now);
    ++now;
    corf.cycle(now++);
    corf.cycle(now++);
    t = stats(corf).minus(before);
    CHECK(t.counter("rf.coalesced.rd_rd") == 0);
    CHECK(t.counter("rf.physical_bank_accesses") == 2);
    CHECK(corf.register_width(0, 2).bytes == 1);
}

TEST_CASE("a 64-bit register is a register pair: two words, each with its own width") {
    auto rf = make<CarfWshift>();
    core::Cycle now = 0;
    // A device address 0x00007F00_00001234: low word 2 bytes, high word 2 bytes.
    rf.write(write_of(1, 3, 6, Values(0x00007F0000001234ULL), 8), now);
    const auto after_write = stats(rf);
    CHECK(after_write.counter("rf.logical_writes") == 2);
    CHECK(after_write.counter("rf.register_writes") == 1);
    settle_writes(rf, now);
    CHECK(rf.register_width(3, 6, 0).bytes == 2);
    CHECK(rf.register_width(3, 6, 1).bytes == 2);
    rf.accept(read_of(10, 3, {6}), now);
    CHECK(stats(rf).counter("rf.logical_reads") == 2);
    CHECK(stats(rf).counter("rf.operand_reads") == 1);
    // The low word (register 6, even, bank 3+6) and the high word (where register 7 would be) take one
    // collector write from two banks.
    ++now;
    const auto before = stats(rf);
    rf.cycle(now++);
    const auto t = stats(rf).minus(before);
    CHECK(t.counter("rf.granted_reads") == 2);
    CHECK(t.counter("rf.coalesced.cross_bank") == 1);
}

TEST_CASE("a write without values (a vector load's later destinations) is stored full width") {
    auto rf = make<CarfWid>();
    core::Cycle now = 0;
    timing::RegisterWrite w;
    w.token = 1;
    w.warp = 0;
    w.dests[w.dest_count++] = 2;
    w.dests[w.dest_count++] = 3;
    const Values v(1);
    w.values = v.lanes.data();
    w.active = core::WarpMask::first(32);
    rf.write(w, now);
    const auto done = settle_writes(rf, now);
    CHECK(done == std::vector<std::uint64_t>{1});
    CHECK(rf.register_width(0, 2).bytes == 1);
    CHECK(rf.register_width(0, 3).bytes == 4);
    CHECK(stats(rf).counter("rf.width_unknown_writes") == 1);
}

TEST_CASE("divergent writes merge into the register: the width covers every lane it holds") {
    auto rf = make<CarfWid>();
    core::Cycle now = 0;
    rf.write(write_of(1, 0, 2, Values(0x123456)), now);
    // Only lanes 0..15 write a 1-byte value; lanes 16..31 keep 3-byte data.
    rf.write(write_of(2, 0, 2, Values(1), 4, false, core::WarpMask::first(16)), now);
    settle_writes(rf, now);
    CHECK(rf.register_width(0, 2).bytes == 3);
    rf.write(write_of(3, 0, 2, Values(1), 4, false, core::WarpMask::first(32)), now);
    settle_writes(rf, now);
    CHECK(rf.register_width(0, 2).bytes == 1);
}

TEST_CASE("wr alignment alternates the side of a warp's successive writes and reads follow the stored side") {
    using Wr = CoalescingRF<4, regfile::Sub4, regfile::WidLayout, regfile::WrAlignment>;
    auto rf = make<Wr>();
    core::Cycle now = 0;
    // R2 and R4 are both even: under reg alignment both right-aligned and never coalesced; under wr the first
    // write is right-aligned and the second left-aligned.
    rf.write(write_of(1, 0, 2, Values(5)), now);
    rf.write(write_of(2, 0, 4, Values(5)), now);
    settle_writes(rf, now);
    const auto before = stats(rf);
    rf.accept(read_of(10, 0, {2}), now);
    rf.accept(read_of(11, 0, {4}), now);
    ++now;
    rf.cycle(now++);
    CHECK(stats(rf).minus(before).counter("rf.coalesced.rd_rd") == 1);

    auto reg = make<CarfWid>();
    now = 0;
    reg.write(write_of(1, 0, 2, Values(5)), now);
    reg.write(write_of(2, 0, 4, Values(5)), now);
    settle_writes(reg, now);
    const auto b2 = stats(reg);
    reg.accept(read_of(10, 0, {2}), now);
    reg.accept(read_of(11, 0, {4}), now);
    ++now;
    reg.cycle(now++);
    CHECK(stats(reg).minus(b2).counter("rf.coalesced.rd_rd") == 0);
}

TEST_CASE("Chapter 4 gating: inactive lanes, zero lanes and zero byte planes are not read or written") {
    using Gated = regfile::ZeroGatedRF<16, 16, regfile::CrossLaneZeroGating>;
    auto rf = make<Gated>();
    core::Cycle now = 0;
    // Lanes 0..7 hold 0, lanes 8..31 small values 1..: groups 0,1 all zero (in-lane), groups 2..7 reordered
    // (three zero planes each beat zero zero lanes).
    Values v(0);
    for (unsigned l = 8; l < 32; ++l) v.lanes[l] = l;
    rf.write(write_of(1, 0, 2, v), now);
    settle_writes(rf, now);
    auto t = stats(rf);
    CHECK(t.counter("rf.thread_writes") == 32);
    CHECK(t.counter("rf.thread_writes_gated.in_lane_zero") == 8);
    CHECK(t.counter("rf.thread_writes_gated.cross_lane_zero") == 18); // 6 groups x 3 zero planes
    CHECK(t.counter("rf.bank_bytes_written") == 6 * 4); // one plane word per reordered group
    CHECK(t.counter("rf.groups_written_reordered") == 6);
    CHECK(rf.group_form(0, 2, 0) == regfile::GroupForm{false, 0xF, 0});
    CHECK(rf.group_form(0, 2, 2) == regfile::GroupForm{true, 0, 0b1110});
    // A read with lanes 0..3 and 16..31 inactive: group 0 inactive (4), group 1 zero (4), groups 2 and 3
    // reordered (3 zero planes each, 1 plane read each), groups 4..7 inactive (16).
    core::WarpMask active = core::WarpMask::first(16);
    for (unsigned l = 0; l < 4; ++l) active.reset(l);
    rf.accept(read_of(10, 0, {2}, active), now);
    ++now;
    const auto before = stats(rf);
    rf.cycle(now++);
    t = stats(rf).minus(before);
    CHECK(t.counter("rf.thread_reads") == 32);
    CHECK(t.counter("rf.thread_reads_gated.inactive") == 20);
    CHECK(t.counter("rf.thread_reads_gated.in_lane_zero") == 4);
    CHECK(t.counter("rf.thread_reads_gated.cross_lane_zero") == 6);
    CHECK(t.counter("rf.bank_bytes_read") == 8);
    CHECK(t.counter("rf.crossbar_bytes") == 128); // the crossbar and collectors gain nothing (Sec. 4.5.1)
}

TEST_CASE("in-lane gating alone never reorders; inactive gating alone gates only inactive lanes") {
    Values v(0);
    for (unsigned l = 8; l < 32; ++l) v.lanes[l] = l;
    const core::WarpMask half = core::WarpMask::first(24);
    auto in_lane = make<regfile::ZeroGatedRF<16, 16, regfile::InLaneZeroGating>>();
    core::Cycle now = 0;
    in_lane.write(write_of(1, 0, 2, v, 4, false, half), now);
    settle_writes(in_lane, now);
    auto t = stats(in_lane);
    CHECK(t.counter("rf.thread_writes_gated.inactive") == 8);
    CHECK(t.counter("rf.thread_writes_gated.in_lane_zero") == 8);
    CHECK(t.counter("rf.thread_writes_gated.cross_lane_zero") == 0);
    CHECK(t.counter("rf.groups_written_reordered") == 0);
    auto inactive = make<regfile::ZeroGatedRF<16, 16, regfile::InactiveGating>>();
    now = 0;
    inactive.write(write_of(1, 0, 2, v, 4, false, half), now);
    settle_writes(inactive, now);
    t = stats(inactive);
    CHECK(t.counter("rf.thread_writes_gated.inactive") == 8);
    CHECK(t.counter("rf.thread_writes_gated.in_lane_zero") == 0);
    CHECK(t.counter("rf.bank_bytes_written") == 24 * 4);
}

TEST_CASE("CORF reads whole rows: a lone narrow read moves 128 bytes, a coalesced pair one row, not two") {
    auto corf = make<regfile::CORF<>>();
    core::Cycle now = 0;
    corf.write(write_of(1, 0, 2, Values(5)), now);
    corf.write(write_of(2, 0, 4, Values(6)), now);
    settle_writes(corf, now);
    CHECK(stats(corf).counter("rf.bank_bytes_written") == 2 * 128);
    auto before = stats(corf);
    corf.accept(read_of(10, 0, {2, 4}), now);
    ++now;
    corf.cycle(now++);
    auto t = stats(corf).minus(before);
    CHECK(t.counter("rf.granted_reads") == 2);
    CHECK(t.counter("rf.bank_bytes_read") == 128);
    CHECK(t.counter("rf.crossbar_bytes") == 128);
    CHECK(t.counter("rf.sub_bank_accesses") == 4);
    // CARF reads only the sub-banks of the two 1-byte registers (R2 right, R4 right: not coalesced, 2 cycles).
    auto carf = make<CarfWid>();
    now = 0;
    carf.write(write_of(1, 0, 2, Values(5)), now);
    carf.write(write_of(2, 0, 4, Values(6)), now);
    settle_writes(carf, now);
    before = stats(carf);
    carf.accept(read_of(10, 0, {2, 4}), now);
    ++now;
    carf.cycle(now++);
    carf.cycle(now++);
    t = stats(carf).minus(before);
    CHECK(t.counter("rf.bank_bytes_read") == 2 * 32);
    CHECK(t.counter("rf.physical_bank_accesses") == 2);
}
