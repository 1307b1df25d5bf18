// Dormant SMs (sm.hpp, skips_dormant_cycles; issue 23): an SM without a CTA and with nothing in flight only counts
// its cycles, and accounts for them in bulk (settle_dormant) when something reads or wakes it. The full scans
// (tests/support/full_scan.hpp) never replay quiet cycles, so they never skip one: any difference in cycles or in
// any statistic is an error of the bulk accounting. The schedulers with state are compared on GTX480 by
// quiet_replay_stateful_test.cpp (CCWS's hook decays by each skipped cycle's now()); this file adds the stateless
// ones and OAWS, and checks that the skip happens at all.
#include <doctest/doctest.h>

#include "../support/full_scan.hpp"

#include <gpuarch/machines.hpp>
#include <gpuarch/sched/gto.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sched/oaws.hpp>

using namespace gpuarch;
using gpuarch::test_support::check_replay_matches_full_scan;

TEST_CASE("quiet replay: dormant SMs give the full scan's cycles and statistics (GTX480: GTO, LRR, OAWS)") {
    for (const char* kernel : test_support::quiet_replay_kernels) {
        check_replay_matches_full_scan<machines::GTX480, sched::GTO>("gtx480", kernel);
        check_replay_matches_full_scan<machines::GTX480, sched::LRR>("gtx480", kernel);
        check_replay_matches_full_scan<machines::GTX480, sched::OAWSDynamic<>>("gtx480", kernel);
    }
}

// About 80% of atax's SM-cycles have no CTA (3 of 15 SMs busy): most must be skipped, by a stateless scheduler and
// by one with a quiet-cycle hook alike.
TEST_CASE("an SM that a small grid leaves without work is dormant for most of the run (GTX480, atax: GTO, OAWS)") {
    for (const auto& [dormant, cycles] : {test_support::skipped_share_of_atax<sched::GTO>(),
                                          test_support::skipped_share_of_atax<sched::OAWSDynamic<>>()}) {
        INFO(dormant << " dormant of " << cycles << " SM-cycles");
        CHECK(dormant > cycles / 2);
        CHECK(dormant < cycles);
    }
}
