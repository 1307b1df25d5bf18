#include "gpuarch/model/arch_params.hpp"

#include <doctest/doctest.h>

#include "gpuarch/model/detail/cx_math.hpp"

namespace {
using namespace gpuarch::model;
using gpuarch::model::detail::round_to_decimals;

constexpr ArchParams gt200 = gt200_gtx280();
constexpr ArchParams fermi = fermi_gtx580();
constexpr ArchParams kepler = kepler_gtx680();

// Peaks recomputed from SM count, SP throughput and clock match Table 1.1 to its printed digits.
static_assert(round_to_decimals(gt200.computed_peak_gflops(), 0) == 933.0);
static_assert(round_to_decimals(fermi.computed_peak_gflops(), 0) == 1581.0);
static_assert(round_to_decimals(kepler.computed_peak_gflops(), 0) == 3090.0);
static_assert(kepler.nominal.issue_tp_uncertain && kepler.nominal.sp_tp_uncertain);
static_assert(mix_throughput(fermi, LdsWidth::b64)->thread_instr_per_cycle == 30.8);
} // namespace

TEST_CASE("Table 1.1 is carried verbatim for all three GPUs") {
    CHECK(gt200.nominal.core_clock_mhz == 602);
    CHECK(fermi.nominal.core_clock_mhz == 772);
    CHECK(kepler.nominal.core_clock_mhz == 1006);
    CHECK(gt200.nominal.shader_clock_mhz == 1296);
    CHECK(fermi.nominal.shader_clock_mhz == 1544);
    CHECK(kepler.nominal.shader_clock_mhz == 1006);
    CHECK(gt200.nominal.global_bandwidth_gbs == 141.7);
    CHECK(fermi.nominal.global_bandwidth_gbs == 192.4);
    CHECK(kepler.nominal.global_bandwidth_gbs == 192.26);
    CHECK(gt200.nominal.warp_schedulers_per_sm == 1);
    CHECK(fermi.nominal.warp_schedulers_per_sm == 2);
    CHECK(kepler.nominal.warp_schedulers_per_sm == 4);
    CHECK(gt200.nominal.dispatch_units_per_sm == 1);
    CHECK(fermi.nominal.dispatch_units_per_sm == 2);
    CHECK(kepler.nominal.dispatch_units_per_sm == 8);
    CHECK(gt200.nominal.issue_tp == 16);
    CHECK(fermi.nominal.issue_tp == 32);
    CHECK(kepler.nominal.issue_tp == 128);
    CHECK(gt200.nominal.sp_per_sm == 8);
    CHECK(fermi.nominal.sp_per_sm == 32);
    CHECK(kepler.nominal.sp_per_sm == 192);
    CHECK(gt200.nominal.sp_tp == 8);
    CHECK(fermi.nominal.sp_tp == 32);
    CHECK(kepler.nominal.sp_tp == 192);
    CHECK(fermi.nominal.ldst_units_per_sm == 16);
    CHECK(kepler.nominal.ldst_units_per_sm == 32);
    CHECK(fermi.nominal.lds_tp == 16);
    CHECK(kepler.nominal.lds_tp == 32);
    CHECK(gt200.nominal.shared_memory_bytes_per_sm == 16 * 1024);
    CHECK(fermi.nominal.shared_memory_bytes_per_sm == 48 * 1024);
    CHECK(kepler.nominal.shared_memory_bytes_per_sm == 48 * 1024);
    CHECK(gt200.nominal.registers_per_sm == 16 * 1024);
    CHECK(fermi.nominal.registers_per_sm == 32 * 1024);
    CHECK(kepler.nominal.registers_per_sm == 64 * 1024);
    CHECK(gt200.nominal.peak_gflops == 933);
    CHECK(fermi.nominal.peak_gflops == 1581);
    CHECK(kepler.nominal.peak_gflops == 3090);
}

TEST_CASE("Table 1.1 question marks and unknowns stay marked as such") {
    CHECK(kepler.nominal.issue_tp_uncertain);
    CHECK(kepler.nominal.sp_tp_uncertain);
    CHECK_FALSE(fermi.nominal.issue_tp_uncertain);
    CHECK_FALSE(fermi.nominal.sp_tp_uncertain);
    CHECK_FALSE(gt200.nominal.ldst_units_per_sm.has_value());
    CHECK_FALSE(gt200.nominal.lds_tp.has_value());
}

TEST_CASE("peak performance recomputed from the organisation matches Table 1.1") {
    CHECK(round_to_decimals(gt200.computed_peak_gflops(), 0) == 933.0);
    CHECK(round_to_decimals(fermi.computed_peak_gflops(), 0) == 1581.0);
    CHECK(round_to_decimals(kepler.computed_peak_gflops(), 0) == 3090.0);
    CHECK(kepler.topology.sm_count == 8);
    CHECK(gt200.topology.sm_count / *gt200.topology.sms_per_tpc == 10);
}

TEST_CASE("Kepler measurements are kept apart from the nominal values") {
    CHECK(kepler.measured.measurement_clock_mhz == 1058);
    CHECK(kepler.nominal.shader_clock_mhz == 1006);
    REQUIRE(kepler.measured.issue_cap.has_value());
    CHECK(*kepler.measured.issue_cap == 132.0);
    CHECK(*kepler.measured.issue_cap < kepler.nominal.sp_tp);
    CHECK(*kepler.measured.ffma_repeated_source == 178.0);
    CHECK(*kepler.measured.ffma_nvcc == 129.2);
    REQUIRE(kepler.measured.lds.has_value());
    CHECK(kepler.measured.lds->op_bits == 64);
    CHECK(round_to_decimals(kepler.measured.lds->bytes_per_cycle(), 1) == 264.8);
    REQUIRE(fermi.measured.lds.has_value());
    CHECK(fermi.measured.lds->bytes_per_cycle() == 64.0);
    CHECK(*fermi.measured.lds128_thread_instr == 2.0);
    CHECK_FALSE(fermi.measured.issue_cap.has_value());
    CHECK(gt200.topology.max_registers_per_thread == 127);
    CHECK(fermi.topology.max_registers_per_thread == 63);
    CHECK(kepler.topology.max_registers_per_thread == 63);
}

TEST_CASE("the mix-throughput reading knob picks the bound value or the microbenchmark") {
    CHECK(mix_throughput(fermi, LdsWidth::b64, MixReading::as_used_in_bound)->thread_instr_per_cycle == 30.8);
    CHECK(mix_throughput(fermi, LdsWidth::b64, MixReading::microbenchmark_only)->thread_instr_per_cycle == 30.4);
    // Where only Sec. 4.3.2 gives a value, the default reading falls back to it.
    CHECK(mix_throughput(fermi, LdsWidth::b32)->thread_instr_per_cycle == 31.3);
    CHECK(mix_throughput(fermi, LdsWidth::b128)->thread_instr_per_cycle == 24.5);
    CHECK(mix_throughput(fermi, LdsWidth::b128)->ffma_per_lds == 12);
    CHECK(mix_throughput(kepler, LdsWidth::b64)->thread_instr_per_cycle == 122.4);
    CHECK(mix_throughput(kepler, LdsWidth::b128)->thread_instr_per_cycle == 119.9);
    CHECK(mix_throughput(kepler, LdsWidth::b32) == nullptr);
    CHECK(mix_throughput(kepler, LdsWidth::b64, MixReading::microbenchmark_only) == nullptr);
    CHECK(mix_throughput(gt200, LdsWidth::b64) == nullptr);
}
