// Corpus kernels on the Fermi preset under OAWS: outputs unchanged, and SMR = 0 is cycle-identical to GTO.
#include <doctest/doctest.h>

#include <gpuarch/sched/gto.hpp>
#include <gpuarch/sched/oaws.hpp>

#include "corpus_support.hpp"

using namespace gpuarch;
using oawstest::run_corpus;

namespace {
// Two SMs, so that the small inputs still put several CTAs, and so contention, on each SM.
template <class S> using FermiGpu = machines::Fermi::gpu<S, 2>;
} // namespace

TEST_CASE("static OAWS with SMR 0 is cycle-identical to GTO on corpus kernels (Wang 2016 Sec. 4.2)") {
    for (const char* kernel : {"atax", "spmv_csr_scalar", "bfs"}) {
        CAPTURE(kernel);
        const auto gto = run_corpus<machines::Fermi, FermiGpu<sched::GTO>>(kernel, kernels::Size::small);
        const auto smr0 = run_corpus<machines::Fermi, FermiGpu<sched::OAWSStatic<0>>>(kernel, kernels::Size::small);
        REQUIRE(gto.passed);
        REQUIRE(smr0.passed);
        CHECK(smr0.cycles == gto.cycles);
        CHECK(smr0.warp_instructions == gto.warp_instructions);
        CHECK(smr0.stats.counter("sm.lsu.stalled_mshr") == gto.stats.counter("sm.lsu.stalled_mshr"));
        CHECK(smr0.stats.counter("sm.l1.misses") == gto.stats.counter("sm.l1.misses"));
    }
}

TEST_CASE_TEMPLATE("corpus kernels keep their outputs under OAWS on the Fermi preset", S, sched::OAWSStatic<50>,
                   sched::OAWSDynamic<>) {
    for (const char* kernel :
         {"atax", "bfs", "spmv_csr_scalar", "kmeans_assign", "reduce_shared", "histogram_shared"}) {
        CAPTURE(kernel);
        const auto r = run_corpus<machines::Fermi, FermiGpu<S>>(kernel, kernels::Size::small);
        CHECK_MESSAGE(r.passed, r.message);
        CHECK(r.stats.counter("sm.sched.oaws_loads_tracked") > 0);
    }
}

TEST_CASE("OAWS holds back divergent loads on a divergent corpus kernel and predicts their misses") {
    const auto r = run_corpus<machines::Fermi, FermiGpu<sched::OAWSStatic<50>>>("atax", kernels::Size::small);
    REQUIRE(r.passed);
    CHECK(r.stats.counter("sm.sched.oaws_cycles_with_disqualified") > 0);
    CHECK(r.stats.counter("sm.sched.oaws_predicted_misses") > 0);
    CHECK(r.stats.counter("sm.sched.dlc_insertions") > 0);
}
