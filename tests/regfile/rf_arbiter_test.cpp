// The register-file arbiter as a component, fed by hand (Radaideh 2020 Sec. 3.6.2.5, Figs. 3.16 and 3.17).
#include <doctest/doctest.h>

#include <gpuarch/regfile/rf_arbiter.hpp>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

namespace {
using namespace gpuarch::regfile;

RfRequest read(unsigned bank, unsigned oc, Side side = Side::right, std::uint8_t mask = 0xF) {
    return RfRequest{RequestKind::read, static_cast<std::uint16_t>(bank), static_cast<std::uint16_t>(oc), side, mask};
}
RfRequest write(unsigned bank, Side side, std::uint8_t mask, bool memory = false) {
    return RfRequest{memory ? RequestKind::mem_write : RequestKind::ex_write, static_cast<std::uint16_t>(bank), 0, side,
                     mask};
}

// Runs the arbiter until every request is granted; returns the (bank, oc) grants of each cycle.
std::vector<std::set<std::pair<unsigned, unsigned>>> drain(RfArbiter& arbiter, std::vector<RfRequest> pending) {
    std::vector<std::set<std::pair<unsigned, unsigned>>> cycles;
    while (!pending.empty() && cycles.size() < 16) {
        std::vector<Outcome> out(pending.size());
        arbiter.arbitrate(pending, out);
        std::set<std::pair<unsigned, unsigned>> granted;
        std::vector<RfRequest> left;
        for (std::size_t i = 0; i < pending.size(); ++i) {
            if (out[i] == Outcome::granted) granted.insert({pending[i].bank, pending[i].collector});
            else left.push_back(pending[i]);
        }
        cycles.push_back(granted);
        pending = left;
    }
    return cycles;
}

// Fig. 3.16a: Bank0 -> OC1, OC2; Bank1 -> OC0, OC3; Bank2 -> OC0, OC2; Bank3 -> OC1, OC3.
std::vector<RfRequest> figure_3_16a() {
    return {read(0, 1), read(0, 2), read(1, 0), read(1, 3), read(2, 0), read(2, 2), read(3, 1), read(3, 3)};
}
// Fig. 3.16b: the same eight requests with left (odd) / right (even) ports and sub-bank masks (bit k = sub-bank k,
// written MSB first in the figure: "1100" = sub-banks 3 and 2).
std::vector<RfRequest> figure_3_16b() {
    return {read(0, 2, Side::left, 0b1100),  read(0, 1, Side::right, 0b0011), read(1, 3, Side::left, 0b1100),
            read(1, 0, Side::right, 0b0001), read(2, 0, Side::left, 0b1110),  read(2, 2, Side::right, 0b0001),
            read(3, 1, Side::left, 0b1000),  read(3, 3, Side::right, 0b0011)};
}
} // namespace

TEST_CASE("Fig. 3.16a: the baseline wavefront arbiter serves the eight requests in three cycles, as the thesis lists") {
    RfArbiter arbiter(ArbiterConfig{4, 4, CoalescingMode::none, Packing::disjoint_masks});
    REQUIRE(arbiter.priority() == 0);
    const auto cycles = drain(arbiter, figure_3_16a());
    REQUIRE(cycles.size() == 3);
    using G = std::set<std::pair<unsigned, unsigned>>;
    CHECK(cycles[0] == G{{1, 3}, {2, 2}, {3, 1}}); // P0
    CHECK(cycles[1] == G{{0, 1}, {1, 0}, {3, 3}}); // P1
    CHECK(cycles[2] == G{{0, 2}, {2, 0}}); // P2
    CHECK(arbiter.priority() == 3); // the priority wave moved one diagonal per cycle
}

TEST_CASE("Fig. 3.16b: the coalescing-aware arbiter grants all eight masked requests in one cycle") {
    RfArbiter arbiter(ArbiterConfig{4, 4, CoalescingMode::carf, Packing::disjoint_masks});
    const auto requests = figure_3_16b();
    std::vector<Outcome> out(requests.size());
    arbiter.arbitrate(requests, out);
    CHECK(std::all_of(out.begin(), out.end(), [](Outcome o) { return o == Outcome::granted; }));
    // The same requests without coalescing still take three cycles.
    RfArbiter baseline(ArbiterConfig{4, 4, CoalescingMode::none, Packing::disjoint_masks});
    CHECK(drain(baseline, figure_3_16b()).size() == 3);
}

TEST_CASE("a right request 0111 and a left request 1100 conflict on sub-bank 2 and are not coalesced") {
    RfArbiter arbiter(ArbiterConfig{4, 4, CoalescingMode::carf, Packing::disjoint_masks});
    const std::vector<RfRequest> requests{read(0, 0, Side::right, 0b0111), read(0, 1, Side::left, 0b1100)};
    std::vector<Outcome> out(2);
    arbiter.arbitrate(requests, out);
    CHECK(out[0] == Outcome::granted);
    CHECK(out[1] == Outcome::lost_read_read);
    // With 1000 on the left they fit.
    const std::vector<RfRequest> fit{read(0, 0, Side::right, 0b0111), read(0, 1, Side::left, 0b1000)};
    arbiter.set_priority(0);
    arbiter.arbitrate(fit, out);
    CHECK(out[0] == Outcome::granted);
    CHECK(out[1] == Outcome::granted);
}

TEST_CASE("a 1-byte read of R2 and a 3-byte write of R3 coalesce in one bank access (Sec. 3.6.2.4)") {
    RfArbiter arbiter(ArbiterConfig{4, 4, CoalescingMode::carf, Packing::disjoint_masks});
    const std::vector<RfRequest> requests{read(0, 0, Side::right, 0b0001), write(0, Side::left, 0b1110)};
    std::vector<Outcome> out(2);
    arbiter.arbitrate(requests, out);
    CHECK(out[0] == Outcome::granted);
    CHECK(out[1] == Outcome::granted);
    // Without coalescing the write wins and the read waits (read-write conflict).
    RfArbiter baseline(ArbiterConfig{4, 4, CoalescingMode::none, Packing::disjoint_masks});
    baseline.arbitrate(requests, out);
    CHECK(out[1] == Outcome::granted);
    CHECK(out[0] == Outcome::lost_read_write);
}

TEST_CASE("two reads of one collector from two banks share its write port only with disjoint masks") {
    RfArbiter arbiter(ArbiterConfig{4, 4, CoalescingMode::carf, Packing::disjoint_masks});
    std::vector<Outcome> out(2);
    // Sec. 3.6.2.6: OC0 reads bank0 with 0011 and bank1 with 1100: one collector write.
    arbiter.arbitrate(std::vector<RfRequest>{read(0, 0, Side::right, 0b0011), read(1, 0, Side::left, 0b1100)}, out);
    CHECK(out[0] == Outcome::granted);
    CHECK(out[1] == Outcome::granted);
    // Overlapping slices: the second loses the collector port, not its bank.
    arbiter.set_priority(0);
    arbiter.arbitrate(std::vector<RfRequest>{read(0, 0, Side::right, 0b0011), read(1, 0, Side::right, 0b0001)}, out);
    CHECK(out[0] == Outcome::granted);
    CHECK(out[1] == Outcome::lost_collector_port);
}

TEST_CASE("execution-unit writes win over memory writes, and writes over reads") {
    RfArbiter arbiter(ArbiterConfig{4, 4, CoalescingMode::none, Packing::disjoint_masks});
    // The memory write is listed first, yet the execution write gets the bank.
    const std::vector<RfRequest> requests{write(2, Side::right, 0xF, true), read(2, 1),
                                          write(2, Side::right, 0xF, false)};
    std::vector<Outcome> out(3);
    arbiter.arbitrate(requests, out);
    CHECK(out[2] == Outcome::granted);
    CHECK(out[0] == Outcome::lost_write_write);
    CHECK(out[1] == Outcome::lost_read_write);
}

TEST_CASE("CARF coalesces two narrow writes into one bank but the baseline serialises them") {
    const std::vector<RfRequest> requests{write(1, Side::right, 0b0011), write(1, Side::left, 0b1100, true)};
    std::vector<Outcome> out(2);
    RfArbiter carf(ArbiterConfig{4, 4, CoalescingMode::carf, Packing::disjoint_masks});
    carf.arbitrate(requests, out);
    CHECK(out[0] == Outcome::granted);
    CHECK(out[1] == Outcome::granted);
    RfArbiter base(ArbiterConfig{4, 4, CoalescingMode::none, Packing::disjoint_masks});
    base.arbitrate(requests, out);
    CHECK(out[0] == Outcome::granted);
    CHECK(out[1] == Outcome::lost_write_write);
}

TEST_CASE("alignment packings: ideal pairs any two requests of at most four bytes, upper bound any two") {
    // Two right-aligned (even) 2-byte reads: same side, same sub-banks.
    const std::vector<RfRequest> two_even{read(0, 0, Side::right, 0b0011), read(0, 1, Side::right, 0b0011)};
    const std::vector<RfRequest> too_big{read(0, 0, Side::right, 0b0111), read(0, 1, Side::right, 0b0011)};
    const std::vector<RfRequest> three{read(0, 0, Side::right, 0b0001), read(0, 1, Side::right, 0b0001),
                                       read(0, 2, Side::right, 0b0001)};
    std::vector<Outcome> out(3);
    auto granted = [&](Packing p, const std::vector<RfRequest>& r) {
        RfArbiter a(ArbiterConfig{4, 4, CoalescingMode::carf, p});
        a.arbitrate(r, out);
        return static_cast<unsigned>(
            std::count(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(r.size()), Outcome::granted));
    };
    CHECK(granted(Packing::disjoint_masks, two_even) == 1);
    CHECK(granted(Packing::total_bytes, two_even) == 2);
    CHECK(granted(Packing::total_bytes, too_big) == 1);
    CHECK(granted(Packing::unlimited, too_big) == 2);
    CHECK(granted(Packing::unlimited, three) == 2); // pairs only: a bank has a left and a right access
}

TEST_CASE("CORF coalesces only two reads of the same collector in the same bank") {
    RfArbiter corf(ArbiterConfig{4, 4, CoalescingMode::corf, Packing::total_bytes});
    std::vector<Outcome> out(2);
    corf.arbitrate(std::vector<RfRequest>{read(0, 3, Side::right, 0b0011), read(0, 3, Side::right, 0b0011)}, out);
    CHECK(out[0] == Outcome::granted);
    CHECK(out[1] == Outcome::granted);
    corf.set_priority(0);
    corf.arbitrate(std::vector<RfRequest>{read(0, 3, Side::right, 0b0001), read(0, 2, Side::left, 0b1000)}, out);
    CHECK(static_cast<int>(out[0] == Outcome::granted) + static_cast<int>(out[1] == Outcome::granted) == 1);
    corf.set_priority(0);
    corf.arbitrate(std::vector<RfRequest>{read(0, 3, Side::right, 0b0001), write(0, Side::left, 0b1000)}, out);
    CHECK(out[1] == Outcome::granted);
    CHECK(out[0] == Outcome::lost_read_write);
    corf.set_priority(0);
    corf.arbitrate(std::vector<RfRequest>{read(0, 3, Side::right, 0b0011), read(1, 3, Side::left, 0b1100)}, out);
    CHECK(static_cast<int>(out[0] == Outcome::granted) + static_cast<int>(out[1] == Outcome::granted) == 1);
}

TEST_CASE("the wavefront serves a 4x8 request matrix fairly: every diagonal gets the first turn in rotation") {
    // Banks x collectors need not be square: N = max(banks, collectors) wrapped diagonals.
    RfArbiter arbiter(ArbiterConfig{4, 8, CoalescingMode::none, Packing::disjoint_masks});
    CHECK(arbiter.diagonals() == 8);
    std::vector<RfRequest> all;
    for (unsigned b = 0; b < 4; ++b)
        for (unsigned c = 0; c < 8; ++c) all.push_back(read(b, c));
    const auto cycles = drain(arbiter, all);
    // Four banks serve one request each per cycle: 32 requests take exactly 8 cycles.
    CHECK(cycles.size() == 8);
    for (const auto& g : cycles) CHECK(g.size() == 4);
}
