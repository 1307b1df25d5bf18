// Every machine preset against the table it cites: the frontend's limits and units and the memory presets, as one
// GPU type sees them (machines.hpp). The memory-only fields are also checked in tests/mem/presets_and_parts_test.cpp.
#include <doctest/doctest.h>

#include <gpuarch/machines.hpp>
#include <gpuarch/sched/gto.hpp>

#include <map>

using namespace gpuarch;

namespace {
// Units of each kind per SM: private units count once per scheduler.
template <class Frontend> std::map<timing::UnitKind, unsigned> units_per_sm() {
    std::map<timing::UnitKind, unsigned> n;
    for (const auto& u : Frontend::units) n[u.kind] += u.shared ? u.count : u.count * Frontend::schedulers;
    return n;
}
template <class Machine> typename Machine::template gpu<sched::GTO>::Config config_of() {
    return Machine::template config<typename Machine::template gpu<sched::GTO>>();
}
} // namespace

TEST_CASE("Wang2016 is Wang 2016 Table 1 (and Sec. 2.1 for the MSHRs)") {
    using M = machines::Wang2016;
    using F = M::Frontend;
    CHECK(M::sms == 30); // "30 (15 clusters of 2)"
    CHECK(F::max_registers == 32 * 1024);
    CHECK(F::max_shared_bytes == 48 * 1024);
    CHECK(F::warp_width == 32);
    CHECK(F::max_threads == 1536);
    CHECK(F::schedulers == 2); // in the text: 2 warp schedulers, 48 warps
    CHECK(F::max_warps == 48);
    const auto c = config_of<M>();
    CHECK(c.l1.geometry.size_bytes() == 32 * 1024);
    CHECK(c.l1.geometry.line_bytes == 128);
    CHECK(c.l1.geometry.ways == 8);
    CHECK(c.l1.geometry.indexing == mem::SetIndexing::fermi_hash);
    CHECK(c.l1.mshr_entries == 32);
    CHECK(c.l1.constant.geometry.size_bytes() == 8 * 1024);
    CHECK(c.l1.constant.geometry.line_bytes == 64);
    CHECK(c.memory.clocks.core.value == 1400.0);
    CHECK(c.memory.clocks.icnt.value == 1400.0);
    CHECK(c.memory.request_network.flit_bytes == 32);
    CHECK(c.memory.partitions == 6);
    CHECK(c.memory.partition.l2.geometry.size_bytes() * c.memory.partitions == 768 * 1024);
    CHECK(c.memory.partition.l2.geometry.ways == 16);
    CHECK(c.memory.partition.l2_latency == 120);
    CHECK(c.memory.partition.dram_latency == 100);
    CHECK(c.memory.partition.dram.queue_capacity == 32);
    CHECK(c.memory.partition.dram.banks == 16);
    // The GPU sets the memory system's SM count from its own.
    CHECK(M::gpu<sched::GTO>::sm_count == 30);
}

TEST_CASE("Kepler is Gong 2020 Table 4.1 (memory: Tables 4.1 and 6.3)") {
    using M = machines::Kepler;
    using F = M::Frontend;
    CHECK(M::sms == 14);
    CHECK(F::warp_width == 32);
    CHECK(F::max_registers == 65536);
    CHECK(F::max_warps == 64);
    CHECK(F::max_ctas == 16);
    CHECK(F::max_threads == 2048);
    // 6 SPUs, 4 BRUs, 2 DPUs, 1 IMU, 1 SFU, 1 LSU per SM, 32 lanes each.
    const auto n = units_per_sm<F>();
    CHECK(n.at(timing::UnitKind::sp) == 6);
    CHECK(n.at(timing::UnitKind::branch) == 4);
    CHECK(n.at(timing::UnitKind::dp) == 2);
    CHECK(n.at(timing::UnitKind::int_mul) == 1);
    CHECK(n.at(timing::UnitKind::sfu) == 1);
    CHECK(n.at(timing::UnitKind::ldst) == 1);
    for (const auto& u : F::units) CHECK(u.lanes == 32);
    // Shared memory: Table 4.1's 16 KB is the split beside the 16 KB L1; the frontend allows the K20X's 48 KB so
    // that kernels written for it launch (a documented difference, frontend/kepler.hpp).
    CHECK(F::max_shared_bytes == 48 * 1024);
    const auto c = config_of<M>();
    CHECK(c.l1.geometry.size_bytes() == 16 * 1024);
    CHECK(c.l1.geometry.ways == 4);
    CHECK(c.l1.geometry.line_bytes == 128);
    CHECK(c.memory.partition.l2.geometry.size_bytes() * c.memory.partitions == 1536 * 1024);
    CHECK(c.memory.partition.l2.geometry.ways == 16);
    CHECK(c.memory.partition.l2.geometry.line_bytes == 128);
    CHECK(c.memory.clocks.core.value == 732.0); // Table 6.3
    CHECK(c.l1.mshr_entries == 16); // Table 6.3
}

TEST_CASE("SouthernIslands is Gong 2020 Table 5.2 (Radeon HD 7970)") {
    using M = machines::SouthernIslands;
    using F = M::Frontend;
    CHECK(M::sms == 32);
    CHECK(F::max_warps == 40);
    CHECK(F::warp_width == 64);
    CHECK(F::schedulers == 4); // 4 SIMT units
    CHECK(units_per_sm<F>().at(timing::UnitKind::sp) == 4);
    for (const auto& u : F::units)
        if (u.kind == timing::UnitKind::sp) CHECK(u.lanes == 16); // SIMT lane width 16
    CHECK(F::max_registers == 65536); // vector registers per SM
    CHECK(F::max_shared_bytes == 64 * 1024); // LDS
    const auto c = config_of<M>();
    CHECK(c.l1.geometry.size_bytes() == 16 * 1024);
    CHECK(c.l1.geometry.sets == 64);
    CHECK(c.l1.geometry.ways == 4);
    CHECK(c.l1.geometry.line_bytes == 64);
    CHECK(c.memory.partition.l2.geometry.size_bytes() == 128 * 1024);
    CHECK(c.memory.partition.l2.geometry.sets == 128);
    CHECK(c.memory.partition.l2.geometry.ways == 16);
    CHECK(c.memory.partition.l2.geometry.line_bytes == 64);
    CHECK(c.memory.clocks.core.value == 1000.0);
}

TEST_CASE("GTX480 is GPGPU-Sim's SM2_GTX480 configuration (whole machine)") {
    using M = machines::GTX480;
    CHECK(M::sms == 15); // -gpgpu_n_clusters 15, -gpgpu_n_cores_per_cluster 1
    const auto c = config_of<M>();
    CHECK(c.l1.flush_between_kernels);
    CHECK(c.l1.allocation == mem::AllocationPolicy::on_miss);
    CHECK(c.memory.clocks.core.value == 700.0);
    CHECK(M::gpu<sched::GTO>::variant_name().find("GTX480") != std::string::npos);
}
