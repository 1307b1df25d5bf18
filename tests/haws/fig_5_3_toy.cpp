// Gong 2020 Fig. 5.3 and Fig. 5.7: the four-warp toy machine under round-robin and under HAWS
// (tests/haws/toy_common.hpp; docs/haws.md, "The Fig. 5.3 toy", explains the reconstructed sequence, the machine and
// the measure).
#include <doctest/doctest.h>

#include "toy_common.hpp"

using namespace haws_toy;
using Kind = sched::HawsIssueEvent::Kind;

namespace {
// One issue of the figure's timeline: warp 0 issues `pc` in `cycle`, warp w in cycle + w.
struct Issue {
    ir::Pc pc;
    Kind kind;
    core::Cycle cycle;
};
void check_timeline(const ToyRun& run, std::initializer_list<Issue> issues) {
    for (const Issue& i : issues)
        for (unsigned w = 0; w < 4; ++w) {
            INFO("I" << i.pc + 1 << (i.kind == Kind::hinted ? " (hint mode)" : "") << ", warp " << w);
            CHECK(run.issue_cycle(w, i.pc, i.kind) == i.cycle + w);
        }
}
// Issues in cycles [from, to].
std::size_t issues_between(const ToyRun& run, core::Cycle from, core::Cycle to) {
    std::size_t n = 0;
    for (const auto& e : run.trace) n += e.cycle >= from && e.cycle <= to ? 1 : 0;
    return n;
}
// The figure's execution time: from the first issue of I1 to the last issue of I7 (its window; docs/haws.md).
core::Cycle figure_time(const ToyRun& run) {
    core::Cycle first = 0, last = 0;
    for (const auto& e : run.trace) {
        if (e.pc == pc_i1 && first == 0) first = e.cycle;
        if (e.pc == pc_i7) last = e.cycle;
    }
    return last - first + 1;
}
// "reduces execution time by 25% speedup": round-robin time over HAWS time, minus one.
double speedup(const ToyRun& rr, const ToyRun& haws) { return double(figure_time(rr)) / double(figure_time(haws)) - 1; }
std::vector<std::uint32_t> expected_out() {
    std::vector<std::uint32_t> out(128);
    for (std::uint32_t t = 0; t < 128; ++t) out[t] = 4 * t; // out[data[0] + t] += r5 = 3t + t, data[0] = 0
    return out;
}
} // namespace

TEST_CASE("the toy machine: memory results are usable 19 or 14 cycles after the load issues") {
    // "The memory instructions are completed, starting in cycle 20" (I1 issued in cycle 1) and "Starting in cycle
    // 15, the memory results are available": on the loose round-robin the dependent I3 issues as soon as it can.
    const auto m19 = run_toy<LooseRR, 19>();
    const auto m14 = run_toy<LooseRR, 14>();
    for (unsigned w = 0; w < 4; ++w) {
        INFO("warp " << w);
        CHECK(m19.issue_cycle(w, pc_i1) == 1 + w);
        CHECK(m19.issue_cycle(w, pc_i3) == 20 + w);
        CHECK(m14.issue_cycle(w, pc_i3) == 15 + w);
    }
}

TEST_CASE("Fig. 5.3 Exp. 1 (19-cycle memory): HAWS issues I4 and I6 in cycles 13-20, I3 returns in 21, 25% speedup") {
    const auto rr = run_toy<TracedRR, 19>();
    const auto haws = run_toy<TracedHAWS<>, 19>();
    CHECK(rr.out == expected_out());
    CHECK(haws.out == expected_out());
    // Round-robin: I3 is tried in cycles 9-12 (and each turn after) and issues once r1 is back.
    check_timeline(rr, {{pc_i1, Kind::in_order, 1},
                        {pc_i2, Kind::in_order, 5},
                        {pc_i3, Kind::in_order, 21},
                        {pc_i4, Kind::in_order, 25},
                        {pc_i5, Kind::in_order, 29},
                        {pc_i6, Kind::in_order, 33},
                        {pc_i7, Kind::in_order, 37}});
    CHECK(issues_between(rr, 9, 20) == 0);
    // HAWS: the failed attempts of cycles 9-12 set the flag; "HAWS decides to issue instruction 4 in cycle 13",
    // then I6; "HAWS will go back to the original stall point, fetches instruction 3, and waits".
    check_timeline(haws, {{pc_i1, Kind::in_order, 1},
                          {pc_i2, Kind::in_order, 5},
                          {pc_i4, Kind::hinted, 13},
                          {pc_i6, Kind::hinted, 17},
                          {pc_i3, Kind::in_order, 21},
                          {pc_i5, Kind::in_order, 25},
                          {pc_i7, Kind::in_order, 29}});
    CHECK(issues_between(haws, 9, 12) == 0);
    CHECK(issues_between(haws, 13, 32) == 20); // no cycle lost from I4 to I7
    for (unsigned w = 0; w < 4; ++w) {
        INFO("warp " << w);
        CHECK(haws.issue_cycle(w, pc_i4) == 0); // skipped on return, not issued twice
        CHECK(haws.issue_cycle(w, pc_i6) == 0);
        CHECK(haws.issue_cycle(w, pc_i5, Kind::hinted) == 0); // I5 depends on I3: never in hint mode
    }
    CHECK(rr.stats.episodes == 0);
    CHECK(haws.stats.episodes == 4);
    CHECK(haws.stats.hint_issued == 8);
    CHECK(haws.stats.returns_on_chain_end == 4);
    CHECK(haws.stats.returns_on_flag == 0);
    CHECK(haws.stats.flushed == 0);
    CHECK(haws.stats.skipped == 8); // I4 and I6 of every warp, on the way back (Fig. 5.8)
    CHECK(haws.stats.stalls_without_chain == 4); // I9: a stall point with no independent instruction after it
    // The measure: I1 to I7 takes 40 cycles under round-robin, 32 under HAWS: 40 / 32 - 1 = 25%.
    CHECK(figure_time(rr) == 40);
    CHECK(figure_time(haws) == 32);
    CHECK(speedup(rr, haws) == 0.25);
    // The whole kernel (I8's second load and I9's stall follow): the same eight cycles, 88 vs 80.
    CHECK(rr.result.cycles == 88);
    CHECK(haws.result.cycles == 80);
}

TEST_CASE("Fig. 5.3 Exp. 2 (14-cycle memory): the flag clears after I4, I6 is flushed, I3 issues in 17, 12.5%") {
    const auto rr = run_toy<TracedRR, 14>();
    const auto haws = run_toy<TracedHAWS<>, 14>();
    CHECK(rr.out == expected_out());
    CHECK(haws.out == expected_out());
    check_timeline(rr, {{pc_i1, Kind::in_order, 1},
                        {pc_i2, Kind::in_order, 5},
                        {pc_i3, Kind::in_order, 17},
                        {pc_i4, Kind::in_order, 21},
                        {pc_i5, Kind::in_order, 25},
                        {pc_i6, Kind::in_order, 29},
                        {pc_i7, Kind::in_order, 33}});
    // "HAWS begins selective out-of-order execution in cycle 13, issuing instruction 4. Starting in cycle 15, the
    // memory results are available ... flushing the fetch buffer and re-fetching instruction 3 ... That is why we
    // see instruction 3 issued in cycle 17 for HAWS, and instead of instruction 6." I6 then issues in order.
    check_timeline(haws, {{pc_i1, Kind::in_order, 1},
                          {pc_i2, Kind::in_order, 5},
                          {pc_i4, Kind::hinted, 13},
                          {pc_i3, Kind::in_order, 17},
                          {pc_i5, Kind::in_order, 21},
                          {pc_i6, Kind::in_order, 25},
                          {pc_i7, Kind::in_order, 29}});
    for (unsigned w = 0; w < 4; ++w) {
        INFO("warp " << w);
        CHECK(haws.issue_cycle(w, pc_i6, Kind::hinted) == 0);
        CHECK(haws.issue_cycle(w, pc_i4) == 0);
    }
    CHECK(haws.stats.episodes == 4);
    CHECK(haws.stats.hint_issued == 4);
    CHECK(haws.stats.flushed == 4); // each warp's fetched I6
    CHECK(haws.stats.returns_on_flag == 4);
    CHECK(haws.stats.returns_on_chain_end == 0);
    CHECK(haws.stats.skipped == 4);
    // I1 to I7: 36 cycles under round-robin, 32 under HAWS: 36 / 32 - 1 = 12.5%.
    CHECK(figure_time(rr) == 36);
    CHECK(figure_time(haws) == 32);
    CHECK(speedup(rr, haws) == 0.125);
    CHECK(rr.result.cycles == 75);
    CHECK(haws.result.cycles == 71);
}

TEST_CASE("the library's defaults on the toy: loose round-robin, hint mode from the fetch-stage check") {
    // HawsEntry::fetch_check enters as soon as the stall point is blocked, and LRR gives no turn away, so I4 issues
    // in cycle 9 (no failed attempts) and I6 in 13, before either memory latency ends: no flush at 14 cycles.
    const auto rr19 = run_toy<LooseRR, 19>();
    const auto haws19 = run_toy<LooseHAWS, 19>();
    const auto rr14 = run_toy<LooseRR, 14>();
    const auto haws14 = run_toy<LooseHAWS, 14>();
    for (const ToyRun* haws : {&haws19, &haws14}) {
        check_timeline(*haws, {{pc_i4, Kind::hinted, 9}, {pc_i6, Kind::hinted, 13}});
        CHECK(haws->stats.hint_issued == 8);
        CHECK(haws->stats.flushed == 0);
        CHECK(haws->out == expected_out());
    }
    check_timeline(haws19, {{pc_i3, Kind::in_order, 20}, {pc_i7, Kind::in_order, 28}});
    check_timeline(haws14, {{pc_i3, Kind::in_order, 17}, {pc_i7, Kind::in_order, 25}});
    CHECK(figure_time(rr19) == 39);
    CHECK(figure_time(haws19) == 31);
    CHECK(figure_time(rr14) == 34);
    CHECK(figure_time(haws14) == 28);
    CHECK(rr19.result.cycles == 86);
    CHECK(haws19.result.cycles == 78);
    CHECK(rr14.result.cycles == 71);
    CHECK(haws14.result.cycles == 65);
}

TEST_CASE("the figure needs both the strict round-robin and the entry on a failed issue attempt") {
    using LooseFailedIssue = sched::HAWSScheduler<sched::RCU<8>, sched::LRR, sched::HawsTrigger::long_latency_flag,
                                                  Fig57Hints, true, sched::HawsEntry::failed_issue>;
    using StrictFetchCheck = sched::HAWSScheduler<sched::RCU<8>, StrictRR, sched::HawsTrigger::long_latency_flag,
                                                  Fig57Hints, true, sched::HawsEntry::fetch_check>;
    // LRR asks about every warp in cycle 9 and finds none ready: all four enter at once, one cycle is lost.
    const auto loose = run_toy<LooseFailedIssue, 14>();
    check_timeline(loose, {{pc_i4, Kind::hinted, 10}, {pc_i6, Kind::hinted, 14}, {pc_i3, Kind::in_order, 18}});
    CHECK(issues_between(loose, 9, 9) == 0);
    CHECK(loose.stats.flushed == 0);
    // The fetch-stage check enters before warp 0's turn in cycle 9 comes: no turn is lost.
    const auto strict = run_toy<StrictFetchCheck, 14>();
    check_timeline(strict, {{pc_i4, Kind::hinted, 9}, {pc_i6, Kind::hinted, 13}, {pc_i3, Kind::in_order, 17}});
    CHECK(strict.stats.flushed == 0);
    for (const ToyRun* run : {&loose, &strict}) {
        CHECK(run->stats.hint_issued == 8);
        CHECK(run->out == expected_out());
    }
}

TEST_CASE("Fig. 5.7: the RCU holds I4 (offset 1, r4) and I6 (offset 3, r5), not renamed, in offset order") {
    const auto haws = run_toy<TracedHAWS<>, 19>();
    REQUIRE(haws.episodes.size() == 4);
    const ir::RegId r4 = haws.reg("%r4"), r5 = haws.reg("%r5");
    REQUIRE(r4 != ir::no_reg);
    REQUIRE(r5 != ir::no_reg);
    for (const auto& ep : haws.episodes) {
        INFO("warp " << ep.slot);
        CHECK(ep.stall_pc == pc_i3);
        REQUIRE(ep.entries.size() == 2);
        const auto& i4 = ep.entries[0];
        const auto& i6 = ep.entries[1];
        CHECK(i4.offset == 1);
        CHECK(i4.dst == r4);
        CHECK(i4.renamed == r4); // rename bit 0: renamed == dst, so in-order fetch skips I4
        CHECK(i4.valid);
        CHECK_FALSE(i4.control);
        CHECK(i4.ready); // "Since I4 is already complete at this time" (before I6 issues)
        CHECK(i6.offset == 3);
        CHECK(i6.dst == r5);
        CHECK(i6.renamed == r5);
        CHECK(i6.valid);
        CHECK_FALSE(i6.control);
    }
}

TEST_CASE("the compiler pass finds the Fig. 5.7 chain in the toy kernel") {
    const auto module = func::Module::from_string(toy_ptx, "haws_toy.ptx");
    const ir::Kernel& kernel = module.ir().kernels[0];
    const ir::KernelHints pass = ir::compute_hints(kernel);
    const ir::KernelHints hand = Fig57Hints::hints(kernel);
    for (ir::Pc pc = 0; pc < kernel.code.size(); ++pc)
        CHECK_MESSAGE(pass.stall_point[pc] == (pc == pc_i3 || pc == pc_i9), "pc " << pc);
    for (ir::Pc pc : {pc_i3, pc_i4, pc_i6}) {
        INFO("pc " << pc);
        CHECK(pass.hint[pc].format == ir::InstructionHint::Format::format1);
        CHECK(pass.hint[pc].f1.target_offset == hand.hint[pc].f1.target_offset);
        CHECK_FALSE(pass.hint[pc].f1.rename);
    }
    for (ir::Pc pc : {pc_i5, pc_i7, pc_i8}) CHECK(pass.hint[pc].format == ir::InstructionHint::Format::none);
    CHECK(pass.hint[pc_i9].f1.target_offset == 0); // I9: nothing independent after it
    const auto with_pass = run_toy<TracedHAWS<sched::CompilerHints>, 19>();
    const auto with_hand = run_toy<TracedHAWS<>, 19>();
    CHECK(with_pass.trace.size() == with_hand.trace.size());
    CHECK(with_pass.result.cycles == with_hand.result.cycles);
}
