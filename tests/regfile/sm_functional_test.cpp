// Every register-file policy runs in the SM and leaves device memory exactly as IdealRF does; coalescing
// reduces physical accesses and never loses a request.
#include <doctest/doctest.h>

#include "rf_kernels.hpp"

#include <gpuarch/exec/simd_exec.hpp>
#include <gpuarch/frontend/fermi.hpp>
#include <gpuarch/mem/ideal_memory.hpp>
#include <gpuarch/power/energy_report.hpp>
#include <gpuarch/regfile/banked_rf.hpp>
#include <gpuarch/regfile/coalescing_rf.hpp>
#include <gpuarch/regfile/corf.hpp>
#include <gpuarch/regfile/ideal_rf.hpp>
#include <gpuarch/regfile/zero_gated_rf.hpp>
#include <gpuarch/sched/gto.hpp>
#include <gpuarch/sm.hpp>

namespace {
using namespace gpuarch;
template <class RF> using FermiSM = SM<frontend::FermiFrontend, sched::GTO, RF, exec::SimdExec, mem::IdealMemory<20>>;

const rf_kernels::Outcome& reference() {
    static const rf_kernels::Outcome r = rf_kernels::run_kernels<FermiSM<regfile::IdealRF>>();
    return r;
}

template <class RF> void check_against_reference() {
    const auto out = rf_kernels::run_kernels<FermiSM<RF>>();
    const auto& ref = reference();
    CHECK(out.mix == ref.mix);
    CHECK(out.loop == ref.loop);
    for (const auto* s : {&out.mix_stats, &out.loop_stats}) {
        // Every request was served: nothing lost, nothing invented.
        CHECK(s->counter("sm.rf.granted_reads") == s->counter("sm.rf.logical_reads"));
        CHECK(s->counter("sm.rf.granted_writes") == s->counter("sm.rf.logical_writes"));
        CHECK(s->counter("sm.rf.logical_reads") >= s->counter("sm.rf.operand_reads"));
        const std::uint64_t logical = s->counter("sm.rf.granted_reads") + s->counter("sm.rf.granted_writes");
        const std::uint64_t pairs = s->counter("sm.rf.coalesced.rd_rd") + s->counter("sm.rf.coalesced.wr_wr") +
                                    s->counter("sm.rf.coalesced.rd_wr");
        CHECK(s->counter("sm.rf.physical_bank_accesses") + pairs == logical);
        CHECK(s->counter("sm.rf.collector_writes") + s->counter("sm.rf.coalesced.cross_bank") +
                  s->counter("sm.rf.coalesced.rd_rd_same_instruction") ==
              s->counter("sm.rf.granted_reads"));
    }
}
} // namespace

TEST_CASE("the reference kernels compute what their PTX says") {
    const auto& ref = reference();
    REQUIRE(ref.mix.size() == rf_kernels::threads * rf_kernels::ctas);
    for (unsigned i = 0; i < rf_kernels::threads * rf_kernels::ctas; ++i) {
        if (i >= rf_kernels::n) {
            CHECK(ref.mix[i] == 0xAAAAAAAAU);
            continue;
        }
        const std::int32_t a = static_cast<std::int32_t>(i & 7), b = a - 4;
        std::int32_t r10 = static_cast<std::int32_t>((i << 20) ^ static_cast<std::uint32_t>(b * a + b));
        if (a >= 3) r10 = r10 * 3 + a;
        const float f1 = static_cast<float>(a), f2 = f1 * f1 + f1, f3 = f2 * f1, f4 = f3 + f2;
        const std::uint32_t expect =
            static_cast<std::uint32_t>(a) | static_cast<std::uint32_t>(r10 + static_cast<std::int32_t>(f4));
        CHECK(ref.mix[i] == expect);
    }
    std::uint32_t sum = 0;
    for (std::uint32_t k = 0; k < 15; ++k) {
        sum += k * k + k;
        sum += (sum ^ k) & 255;
    }
    CHECK(ref.loop[15] == sum);
}

TEST_CASE("BankedRF matches IdealRF in device memory") {
    const auto out = rf_kernels::run_kernels<FermiSM<regfile::BankedRF<4, 4>>>();
    CHECK(out.mix == reference().mix);
    CHECK(out.loop == reference().loop);
}
TEST_CASE("CARF (wshift, reg) matches IdealRF in device memory and serves every request") {
    check_against_reference<regfile::CoalescingRF<>>();
}
TEST_CASE("CARF (wid, reg) matches IdealRF in device memory and serves every request") {
    check_against_reference<regfile::CoalescingRF<4, regfile::Sub4, regfile::WidLayout, regfile::RegAlignment>>();
}
TEST_CASE("CARF (wshift, wr) matches IdealRF in device memory and serves every request") {
    check_against_reference<regfile::CoalescingRF<4, regfile::Sub4, regfile::WshiftLayout, regfile::WrAlignment>>();
}
TEST_CASE("CARF (wid, ideal and upper bound) match IdealRF in device memory") {
    check_against_reference<regfile::CoalescingRF<4, regfile::Sub4, regfile::WidLayout, regfile::IdealAlignment>>();
    check_against_reference<
        regfile::CoalescingRF<4, regfile::Sub4, regfile::WidLayout, regfile::UpperBoundAlignment>>();
}
TEST_CASE("the WWFA baseline, CORF and the Chapter 4 gated file match IdealRF in device memory") {
    check_against_reference<regfile::WwfaRF<>>();
    check_against_reference<regfile::CORF<>>();
    check_against_reference<regfile::ZeroGatedRF<16, 16>>();
}

TEST_CASE("coalescing cuts physical bank accesses and cycles against the WWFA baseline on the same kernels") {
    const auto base = rf_kernels::run_kernels<FermiSM<regfile::WwfaRF<>>>();
    const auto carf = rf_kernels::run_kernels<FermiSM<regfile::CoalescingRF<>>>();
    const auto upper = rf_kernels::run_kernels<
        FermiSM<regfile::CoalescingRF<4, regfile::Sub4, regfile::WshiftLayout, regfile::UpperBoundAlignment>>>();
    for (auto which : {&rf_kernels::Outcome::mix_stats, &rf_kernels::Outcome::loop_stats}) {
        const auto& b = base.*which;
        const auto& c = carf.*which;
        const auto& u = upper.*which;
        // Same instruction stream, so the same logical traffic...
        CHECK(c.counter("sm.rf.logical_reads") == b.counter("sm.rf.logical_reads"));
        CHECK(c.counter("sm.rf.logical_writes") == b.counter("sm.rf.logical_writes"));
        // ...in fewer physical accesses and collector writes; the baseline coalesces nothing.
        CHECK(b.counter("sm.rf.physical_bank_accesses") ==
              b.counter("sm.rf.granted_reads") + b.counter("sm.rf.granted_writes"));
        CHECK(c.counter("sm.rf.physical_bank_accesses") < b.counter("sm.rf.physical_bank_accesses"));
        CHECK(c.counter("sm.rf.collector_writes") < b.counter("sm.rf.collector_writes"));
        CHECK(u.counter("sm.rf.physical_bank_accesses") <= c.counter("sm.rf.physical_bank_accesses"));
        CHECK(c.counter("sm.rf.bank_bytes_read") < b.counter("sm.rf.bank_bytes_read"));
        // Widths are measured the same way under every policy.
        CHECK(c.histogram("sm.rf.dst_width_bytes") == b.histogram("sm.rf.dst_width_bytes"));
        // Fewer bytes through banks, crossbars and collectors: less register-file energy.
        const auto table = power::fermi_energy_table();
        CHECK(power::energy_report(c, table).group_pj("rf") < power::energy_report(b, table).group_pj("rf"));
    }
    CHECK(carf.loop_cycles <= base.loop_cycles);
    CHECK(upper.loop_cycles <= carf.loop_cycles);
    MESSAGE("loop cycles: WWFA " << base.loop_cycles << ", CARF " << carf.loop_cycles << ", upper bound "
                                 << upper.loop_cycles);
}
