// Corpus kernels on the Fermi preset under the baselines of Wang 2016 Sec. 5 (SWL, CCWS, MASCAR): outputs unchanged,
// and each baseline's mechanism engages.
#include <doctest/doctest.h>

#include <gpuarch/sched/ccws.hpp>
#include <gpuarch/sched/mascar.hpp>
#include <gpuarch/sched/swl.hpp>

#include "corpus_support.hpp"

using namespace gpuarch;
using oawstest::run_corpus;

namespace {
template <class S> using FermiGpu = machines::Fermi::gpu<S, 2>;
using MascarGpu = oawstest::FermiMascar::gpu<sched::MASCAR<>, 2>;
constexpr const char* kernels_checked[] = {"atax",          "bfs",           "spmv_csr_scalar",
                                           "kmeans_assign", "reduce_shared", "histogram_shared"};
} // namespace

TEST_CASE_TEMPLATE("corpus kernels keep their outputs under SWL and CCWS on the Fermi preset", S, sched::SWL<1>,
                   sched::SWL<3>, sched::CCWS<>) {
    for (const char* kernel : kernels_checked) {
        CAPTURE(kernel);
        const auto r = run_corpus<machines::Fermi, FermiGpu<S>>(kernel, kernels::Size::small);
        CHECK_MESSAGE(r.passed, r.message);
    }
}

TEST_CASE("corpus kernels keep their outputs under MASCAR with the re-execution queue") {
    for (const char* kernel : kernels_checked) {
        CAPTURE(kernel);
        const auto r = run_corpus<oawstest::FermiMascar, MascarGpu>(kernel, kernels::Size::small);
        CHECK_MESSAGE(r.passed, r.message);
    }
}

TEST_CASE("SWL withholds warps, CCWS hears every miss and eviction, MASCAR saturates on divergent corpus kernels") {
    const auto swl = run_corpus<machines::Fermi, FermiGpu<sched::SWL<1>>>("atax", kernels::Size::small);
    CHECK(swl.stats.counter("sm.sched.swl_withheld_cycles") > 0);
    CHECK(swl.stats.counter("sm.sched.swl_guard_cycles") == 0); // the SM shows barrier waits: no guard needed
    // bfs's small input is the one that overflows the L1 (the others fit in 32 KB): lines get evicted.
    const auto ccws = run_corpus<machines::Fermi, FermiGpu<sched::CCWS<>>>("bfs", kernels::Size::small);
    CHECK(ccws.stats.counter("sm.sched.ccws_misses_seen") ==
          ccws.stats.counter("sm.l1.misses") + ccws.stats.counter("sm.l1.mshr_merges"));
    CHECK(ccws.stats.counter("sm.sched.ccws_evictions_seen") > 0);
    CHECK(ccws.stats.counter("sm.sched.ccws_evictions_seen") <= ccws.stats.counter("sm.l1.evictions"));
    const auto mascar = run_corpus<oawstest::FermiMascar, MascarGpu>("atax", kernels::Size::small);
    CHECK(mascar.stats.counter("sm.sched.mascar_mp_cycles") > 0);
    CHECK(mascar.stats.counter("sm.l1.reexec_loads") > 0);
}
