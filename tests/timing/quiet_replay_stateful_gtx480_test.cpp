// Quiet-cycle replay for the schedulers with state on GTX480 (hashed L1 set index, allocate on miss, per-kernel L1
// flush): CCWS, MASCAR, TwoLevelActive and OAWS must give exactly the cycles and statistics of the same scheduler
// asked every cycle through the full scans (tests/support/full_scan.hpp), and OAWS and CCWS repeat or replay a
// select that withheld every ready warp only where the full scan would withhold again. Fermi's comparisons are in
// quiet_replay_stateful_test.cpp (which says why they are three units) and quiet_replay_throttling_test.cpp.
#include <doctest/doctest.h>

#include <string>
#include <utility>

#include "../support/full_scan.hpp"

#include <gpuarch/machines.hpp>
#include <gpuarch/mem/presets.hpp>
#include <gpuarch/sched/ccws.hpp>
#include <gpuarch/sched/mascar.hpp>
#include <gpuarch/sched/oaws.hpp>
#include <gpuarch/sched/two_level_active.hpp>

using namespace gpuarch;

TEST_CASE("quiet replay: the schedulers with state give the full scan's cycles and statistics (GTX480: "
          "CCWS, MASCAR, TwoLevelActive)") {
    test_support::check_replay_on_kernels<machines::GTX480, sched::CCWS<>, sched::MASCAR<>, sched::TwoLevelActive<6>>(
        "gtx480");
}

namespace {
// The GTX480 with MASCAR's re-execution queue in its L1, as gpuarch-run composes it (32 entries, Wang 2016 Sec. 5;
// support/src/make_variant.hpp; machines::GTX480 has none, so the case above times MASCAR without it), and with 8
// MSHR entries instead of 64, so that the corpus's small inputs fill the table and the queue works: with 64, of the
// kernels below only bfs puts a few thousand accesses in the queue.
mem::L1Config gtx480_mascar_l1() {
    mem::L1Config c = mem::presets::gtx480_l1();
    c.reexecution_entries = 32;
    c.mshr_entries = 8;
    return c;
}
using Gtx480WithReexecution = machines::Machine<frontend::GTX480Frontend, mem::presets::GTX480L1, 15, gtx480_mascar_l1,
                                                mem::presets::gtx480_memory>;
} // namespace

// With the queue, an SM sleeps while the queue's head waits for an MSHR or retries a load that cannot start
// (L1Unit::repeats_stall). The full scans never sleep, and every statistic must still agree. And the sleep must
// happen: most of the queue's replay cycles are slept on bfs and transpose_naive (none were before the L1 said
// that they repeat).
TEST_CASE("quiet replay: MASCAR with its re-execution queue gives the full scan's cycles and statistics (GTX480)") {
    test_support::check_replay_on_kernels<Gtx480WithReexecution, sched::MASCAR<>>("gtx480");
    for (const char* kernel : {"bfs", "transpose_naive"}) {
        const auto c = test_support::skipped_cycles_on_gtx480<sched::MASCAR<>, Gtx480WithReexecution>(kernel);
        INFO(std::string(kernel) << ": " << c.slept_on_l1 << " SM-cycles slept on the L1; the queue's head replayed in "
                                 << c.l1_queue_replays);
        CHECK(c.l1_queue_replays > 1000);
        CHECK(c.slept_on_l1 > c.l1_queue_replays / 2);
        CHECK(c.slept_on_l1 < c.skipped);
    }
}

// OAWS on GTX480, where it withholds ready warps most (the checks below count its withheld selects).
TEST_CASE("quiet replay: OAWS gives the full scan's cycles and statistics (GTX480: OAWS-Dyn, OAWSStatic)") {
    test_support::check_replay_on_kernels<machines::GTX480, sched::OAWSDynamic<>, sched::OAWSStatic<50>>("gtx480");
}

namespace {
// A scheduler's selects on GTX480, summed over every SM and scheduler: those that withheld every ready warp
// (its statistic) and those of them that repeated the last withheld select (withheld_selects_repeated).
struct WithheldSelects {
    std::uint64_t withheld = 0, repeated = 0;
};
template <class Scheduler> WithheldSelects withheld_selects_on_gtx480(const char* kernel, const char* statistic) {
    using Gpu = machines::GTX480::gpu<Scheduler>;
    const auto gpu = test_support::gtx480_after<Scheduler>(kernel);
    WithheldSelects out;
    for (unsigned i = 0; i < 15; ++i) {
        for (unsigned s = 0; s < Gpu::SMType::Frontend::schedulers; ++s) {
            const Scheduler& sched = gpu->sm(i).scheduler(s);
            core::StatsTable table;
            table.collect("", sched);
            out.withheld += table.counter(statistic);
            out.repeated += sched.withheld_selects_repeated();
        }
    }
    return out;
}
} // namespace

// OAWS and CCWS repeat a select that withheld every ready warp while the SM's state epoch, the ready mask, the
// greedy warp and what the policy itself reads (OAWS: MSHR budget, DLC and OCW; CCWS: which warps may issue loads)
// are unchanged. The full scans never repeat one, and the runs must still agree (the GTX480 comparisons above;
// Fermi's in quiet_replay_stateful_test.cpp). Of the corpus's small kernels, bfs is the one on which both policies
// withhold often on GTX480.
TEST_CASE("quiet replay: OAWS and CCWS repeat a withheld select only when it would withhold again (GTX480)") {
    const WithheldSelects oaws = withheld_selects_on_gtx480<sched::OAWSDynamic<>>("bfs", "oaws_withheld_cycles");
    const WithheldSelects ccws = withheld_selects_on_gtx480<sched::CCWS<>>("bfs", "ccws_withheld_cycles");
    INFO("bfs: OAWS withheld " << oaws.withheld << ", repeated " << oaws.repeated << "; CCWS withheld " << ccws.withheld
                               << ", repeated " << ccws.repeated);
    // Most withheld selects follow one that withheld the same warps (the policies hold them back for many cycles).
    CHECK(oaws.repeated <= oaws.withheld);
    CHECK(oaws.repeated * 2 > oaws.withheld);
    CHECK(ccws.repeated <= ccws.withheld);
    CHECK(ccws.repeated * 2 > ccws.withheld);
}

namespace {
using Gtx480OawsView = pipeline::PoolView<typename machines::GTX480::template gpu<sched::OAWSDynamic<>>::SMType>;
using Gtx480CcwsView = pipeline::PoolView<typename machines::GTX480::template gpu<sched::CCWS<>>::SMType>;
static_assert(timing::WithheldCycleHook<sched::OAWSDynamic<>, Gtx480OawsView>,
              "OAWS replays the cycles in which it withheld every ready warp");
static_assert(timing::WithheldCycleHook<sched::CCWS<>, Gtx480CcwsView>,
              "CCWS replays the cycles in which it withheld every ready warp, until its decay may change its stack");
} // namespace

namespace {
// Over the 15 SMs of a GTX480 run of bfs: the cycles replayed in which some scheduler withheld every ready warp, and
// the selects that withheld (the scheduler's statistic `withheld_statistic`).
template <class Scheduler>
std::pair<std::uint64_t, std::uint64_t> withheld_replays_on_bfs(const char* withheld_statistic) {
    const auto gpu = test_support::gtx480_after<Scheduler>("bfs");
    std::uint64_t replayed = 0, withheld = 0;
    for (unsigned i = 0; i < 15; ++i) {
        replayed += gpu->sm(i).withheld_cycles_replayed();
        for (unsigned s = 0; s < 2; ++s) {
            core::StatsTable table;
            table.collect("", gpu->sm(i).scheduler(s));
            withheld += table.counter(withheld_statistic);
        }
    }
    return {replayed, withheld};
}
} // namespace

// Withheld-cycle replay (timing::WithheldCycleHook): the cycles in which OAWS or CCWS withheld every ready warp are
// replayed, or slept where the L1 repeats a stall (CCWS's only until its decay may change its stack: withheld_until),
// with the full scan's cycles and statistics (the cases above). Each replayed cycle is one in which at least one of
// the SM's schedulers withheld, so they cannot outnumber the withheld selects.
TEST_CASE("quiet replay: OAWS and CCWS replay the cycles in which they withheld every ready warp (GTX480)") {
    for (const auto& counts : {withheld_replays_on_bfs<sched::OAWSDynamic<>>("oaws_withheld_cycles"),
                               withheld_replays_on_bfs<sched::CCWS<>>("ccws_withheld_cycles")}) {
        // Not a structured binding: clang 14 does not let INFO's lambda capture one.
        const std::uint64_t replayed = counts.first, withheld = counts.second;
        INFO("bfs: withheld selects " << withheld << ", withheld cycles replayed " << replayed);
        CHECK(replayed > 0);
        CHECK(replayed <= withheld);
    }
}
