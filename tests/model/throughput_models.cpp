// Roofline, MWP-CWP (and Sim et al.), Zhang-Owens, Ryoo metrics, C_mem and coalescing waste.
#include "gpuarch/model/memory_concurrency.hpp"
#include "gpuarch/model/mwp_cwp.hpp"
#include "gpuarch/model/roofline.hpp"
#include "gpuarch/model/ryoo_metrics.hpp"
#include "gpuarch/model/zhang_owens.hpp"

#include <doctest/doctest.h>

#include <array>
#include <stdexcept>

#include "gpuarch/model/arch_params.hpp"
#include "gpuarch/model/detail/cx_math.hpp"

namespace {
using namespace gpuarch::model;
using gpuarch::model::detail::round_to_decimals;

static_assert(c_mem_transactions(gt200_c_mem_inputs(8)) == 18);
static_assert(roofline(1581.0, 192.4, 24.0).attainable == 1581.0);
static_assert(uncoalesced_bandwidth_waste(16, 4, 32) == 0.875);
static_assert(mwp_cwp_exec_cycles({800, 200, 2, 400, 8, 4, 5}).exec_cycles == 2000.0);
} // namespace

TEST_CASE("C_mem for double precision on GT200 is about 18 transactions per TPC") {
    const double low = c_mem(gt200_c_mem_inputs(8, 436.0));
    const double high = c_mem(gt200_c_mem_inputs(8, 443.0));
    CHECK(round_to_decimals(low, 1) == 18.6);
    CHECK(round_to_decimals(high, 1) == 18.9);
    CHECK(c_mem_transactions(gt200_c_mem_inputs(8, 436.0)) == 18);
    CHECK(c_mem_transactions(gt200_c_mem_inputs(8, 443.0)) == 18);
    // Half the element size doubles the concurrency needed to saturate the bandwidth.
    CHECK(c_mem(gt200_c_mem_inputs(4)) == doctest::Approx(2.0 * low));
    CHECK(gt200_c_mem_inputs(8).n_tpc == 10);
    CmemInputs bad = gt200_c_mem_inputs(8);
    bad.clock_mhz = 0.0;
    CHECK_THROWS_AS(c_mem(bad), std::invalid_argument);
}

TEST_CASE("a fully uncoalesced half-warp of 4-byte loads wastes 87.5 % of the bandwidth") {
    CHECK(uncoalesced_bandwidth_waste(16, 4, 32) == 0.875);
    CHECK(uncoalesced_bandwidth_waste(16, 32, 32) == 0.0);
    CHECK_THROWS_AS(uncoalesced_bandwidth_waste(16, 64, 32), std::invalid_argument);
}

TEST_CASE("roofline takes the lower of the compute and bandwidth roofs") {
    const auto fermi = fermi_gtx580();
    const RooflineResult sgemm = roofline(fermi.nominal.peak_gflops, fermi.nominal.global_bandwidth_gbs, 24.0);
    CHECK(sgemm.attainable == 1581.0);
    CHECK_FALSE(sgemm.memory_bound);
    const RooflineResult stream = roofline(fermi.nominal.peak_gflops, fermi.nominal.global_bandwidth_gbs, 0.5);
    CHECK(stream.attainable == doctest::Approx(96.2));
    CHECK(stream.memory_bound);
    const double ridge = roofline_ridge_intensity(1581.0, 192.4);
    CHECK(roofline(1581.0, 192.4, ridge).attainable == doctest::Approx(1581.0));
    CHECK_THROWS_AS(roofline(0.0, 1.0, 1.0), std::invalid_argument);
}

TEST_CASE("MWP-CWP picks Eq. 1.1 when CWP >= MWP and Eq. 1.2 when MWP > CWP") {
    // One warp: 2 memory instructions of Mem_L = 400 (Mem_cycles 800), 50 instructions at 4 cycles
    // (Comp_cycles 200), so Comp_p = 100 and CWP_full = (800 + 200) / 200 = 5.
    CHECK(hong_kim_cwp(800, 200, 8) == 5.0);
    MwpCwpInputs in{800, 200, 2, 400, 8, 4, 5};
    MwpCwpResult r = mwp_cwp_exec_cycles(in);
    CHECK(r.which == MwpCwpCase::memory_dominated);
    CHECK(r.comp_p == 100.0);
    CHECK(r.exec_cycles == 800.0 * 8 / 4 + 100.0 * 4); // Lai's printed Comp_p * MWP
    in.term = MwpCwpComputeTerm::hong_kim_original;
    CHECK(mwp_cwp_exec_cycles(in).exec_cycles == 800.0 * 8 / 4 + 100.0 * 3);
    // Compute dominated: Comp_cycles 2000 -> CWP_full 1.4 < MWP 4.
    const double cwp = hong_kim_cwp(800, 2000, 8);
    CHECK(cwp == doctest::Approx(1.4));
    r = mwp_cwp_exec_cycles({800, 2000, 2, 400, 8, 4, cwp});
    CHECK(r.which == MwpCwpCase::compute_dominated);
    CHECK(r.exec_cycles == 400.0 + 2000.0 * 8);
    // Too few warps to overlap anything (MWP = CWP = N = 2).
    r = mwp_cwp_exec_cycles({800, 200, 2, 400, 2, 2, 2});
    CHECK(r.which == MwpCwpCase::warp_limited);
    CHECK(r.exec_cycles == 800.0 + 200.0 + 100.0 * 1);
    // Repetitions scale linearly.
    MwpCwpInputs rep{800, 200, 2, 400, 8, 4, 5};
    rep.repetitions = 3;
    CHECK(mwp_cwp_exec_cycles(rep).exec_cycles == 3 * 2000.0);
    CHECK_THROWS_AS(mwp_cwp_exec_cycles({800, 200, 2, 400, 2, 4, 2}), std::invalid_argument);
}

TEST_CASE("Hong & Kim MWP is the least of latency/departure, bandwidth share and N") {
    HongKimMwpInputs in{400, 4, 100, 1.0, 128, 30, 32};
    // Mem_L / departure = 100; BW per warp = 1 GHz * 128 B / 400 = 0.32 GB/s; 100 / (0.32 * 30).
    CHECK(hong_kim_mwp(in) == doctest::Approx(100.0 / (0.32 * 30)));
    in.n = 8;
    CHECK(hong_kim_mwp(in) == 8.0);
    in = {400, 40, 1000, 1.0, 128, 30, 32};
    CHECK(hong_kim_mwp(in) == 10.0);
}

TEST_CASE("Sim et al. subtract the hidden memory time, never more than all of it") {
    CHECK(extended_mwp_cwp_exec_time(100, 50, 30) == 120.0);
    CHECK(extended_mwp_cwp_exec_time(100, 50, 50) == 100.0);
    CHECK_THROWS_AS(extended_mwp_cwp_exec_time(100, 50, 60), std::invalid_argument);
}

TEST_CASE("Zhang-Owens: class throughput is units * f * SMs / warp and the slowest component wins") {
    const auto g = gt200_gtx280();
    const double f = g.nominal.shader_clock_mhz * 1e6;
    const int sms = g.topology.sm_count;
    // GT200 SP class: 8 units * 1.296 GHz * 30 SMs / 32 = 9.72e9 warp instructions per second.
    CHECK(zhang_owens_peak_throughput(8, f, sms, 32) == doctest::Approx(9.72e9));
    // DP class: 1 DPU per SM.
    CHECK(zhang_owens_peak_throughput(1, f, sms, 32) == doctest::Approx(1.215e9));
    const std::array<PipelineLoad, 2> loads{PipelineLoad{9.72e9, 8}, PipelineLoad{1.215e9, 1}}; // 1 s + 1 s
    ZhangOwensInputs in{};
    in.pipeline = loads;
    in.frequency_hz = f;
    in.sm_count = sms;
    in.shared_transactions = 1.0e9;
    in.shared_throughput = zhang_owens_peak_shared_throughput(8, f, sms, 32); // ~0.103 s
    in.global_bytes = 141.7e9;
    in.global_bandwidth = 141.7e9; // 1 s
    ZhangOwensResult r = zhang_owens(in);
    CHECK(r.pipeline_seconds == doctest::Approx(2.0));
    CHECK(r.shared_seconds == doctest::Approx(1.0e9 / 9.72e9));
    CHECK(r.global_seconds == doctest::Approx(1.0));
    CHECK(r.bottleneck == ZhangOwensComponent::instruction_pipeline);
    CHECK(r.predicted_seconds == doctest::Approx(2.0));
    in.global_bytes = 3 * 141.7e9;
    r = zhang_owens(in);
    CHECK(r.bottleneck == ZhangOwensComponent::global_memory);
    CHECK(r.predicted_seconds == doctest::Approx(3.0));
    in.global_bytes = 0;
    in.shared_transactions = 3 * 9.72e9;
    r = zhang_owens(in);
    CHECK(r.bottleneck == ZhangOwensComponent::shared_memory);
    CHECK(r.predicted_seconds == doctest::Approx(3.0));
}

TEST_CASE("Ryoo efficiency and utilization follow Eq. 1.5 and 1.6") {
    CHECK(ryoo_efficiency(100, 256) == doctest::Approx(1.0 / 25600));
    CHECK(ryoo_utilization(100, 4, 8, 2) == doctest::Approx(25.0 * (3.5 + 8.0)));
    // One warp, one block: nothing else to run while blocked.
    CHECK(ryoo_utilization(100, 4, 1, 1) == 0.0);
    CHECK_THROWS_AS(ryoo_utilization(100, 0, 8, 2), std::invalid_argument);
}
