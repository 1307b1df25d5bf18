// Locality-aware scheduling on the Kepler machine (14 SMs): CTA placement for each launch hint (Gong 2020 Sec.
// 6.3.2: adjacent blocks on the same SM for hints 1-3, round-robin for 0), the cluster_ctas knob, functional results
// unchanged under every hint, and hint 0 with LocalityTwoLevel timing exactly as LRR.
#include <doctest/doctest.h>

#include <corpus/corpus.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <gpuarch/func/device.hpp>
#include <gpuarch/func/module.hpp>
#include <gpuarch/machines.hpp>
#include <gpuarch/mem/duplicate_tracker.hpp>
#include <gpuarch/sched/locality_two_level.hpp>
#include <gpuarch/sched/lrr.hpp>

#ifndef GPUARCH_KERNELS_DIR
#define GPUARCH_KERNELS_DIR "kernels"
#endif

using namespace gpuarch;

namespace {

using LocalityGpu = machines::Kepler::gpu<sched::LocalityTwoLevel<>>;
using LrrGpu = machines::Kepler::gpu<sched::LRR>;

// Thread 0 of every CTA writes the SM it runs on to out[linear CTA id].
const char* where_ptx = R"(.version 8.0
.target sm_75
.address_size 64
.visible .entry where(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ctaid.y;
  mov.u32 %r3, %nctaid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  mov.u32 %r5, %smid;
  mov.u32 %r6, %tid.x;
  setp.ne.s32 %p1, %r6, 0;
  @%p1 bra DONE;
  mul.wide.u32 %rd2, %r4, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
DONE:
  ret;
}
)";

template <class Gpu> std::vector<std::uint32_t> placement(const TimingOptions& base) {
    func::Device device;
    const auto module = func::Module::from_string(where_ptx, "where.ptx");
    const func::DevPtr out = device.malloc(32 * 4);
    Gpu gpu(machines::Kepler::config<Gpu>());
    TimingOptions options = base;
    options.registers_per_thread = 8;
    gpu.launch(device, module, "where", func::LaunchConfig{{8, 4, 1}, {64, 1, 1}, 0}, func::Args(out), options);
    return device.download<std::uint32_t>(out, 32);
}

std::vector<std::uint32_t> chunks(unsigned chunk, unsigned ctas = 32, unsigned sms = 14) {
    std::vector<std::uint32_t> sm(ctas);
    for (unsigned c = 0; c < ctas; ++c) sm[c] = (c / chunk) % sms;
    return sm;
}

template <class Gpu>
kernels::CaseResult run_corpus(std::string_view name, unsigned hint, std::uint64_t& cycles,
                               mem::DuplicateMshrTracker* tracker = nullptr, unsigned cluster_ctas = 0) {
    const kernels::CaseInfo& info = kernels::find_case(name);
    func::Device device;
    const auto module =
        func::Module::from_file(std::filesystem::path(GPUARCH_KERNELS_DIR) / "ptx" / std::string(info.ptx_file));
    auto config = machines::Kepler::config<Gpu>();
    config.l1.duplicate_tracker = tracker;
    Gpu gpu(config);
    TimingOptions options;
    options.launch_hint = hint;
    if (cluster_ctas != 0) {
        options.placement = CtaPlacement::clustered;
        options.cluster_ctas = cluster_ctas;
    }
    cycles = 0;
    auto launcher = [&](const func::Module& m, std::string_view entry, const func::LaunchConfig& launch,
                        const func::Args& args) {
        cycles += gpu.launch(device, m, entry, launch, args, options).cycles;
    };
    return kernels::run_case(name, device, module, launcher, kernels::Size::small);
}

} // namespace

TEST_CASE("hints 1-3 place adjacent CTAs on one SM: ceil(CTAs / SMs) at a time by default, cluster_ctas otherwise") {
    for (unsigned hint : {1U, 2U, 3U}) {
        TimingOptions o;
        o.launch_hint = hint;
        CHECK(placement<LocalityGpu>(o) == chunks(3)); // 32 CTAs on 14 SMs: 3 per SM, SM 10 gets the last two
        o.cluster_ctas = 2;
        CHECK(placement<LocalityGpu>(o) == chunks(2)); // pairs, wrapping to SM 0 after SM 13
        o.cluster_ctas = 100;
        CHECK(placement<LocalityGpu>(o) == chunks(16)); // fill: 16 CTAs fit per SM (Kepler max_ctas)
    }
    // The placement knob alone gives the same clustering without a hint (any scheduler).
    TimingOptions clustered;
    clustered.placement = CtaPlacement::clustered;
    CHECK(placement<LrrGpu>(clustered) == chunks(3));
}

TEST_CASE("hint 0 keeps the default placement; cluster_ctas = 1 is exact round-robin") {
    // Hint 0 changes nothing about placement: the same SMs as an LRR machine with default options.
    CHECK(placement<LocalityGpu>(TimingOptions{}) == placement<LrrGpu>(TimingOptions{}));
    // One CTA per SM per turn: CTA c on SM c mod 14 (the round-robin of Gong 2020 Fig. 6.2).
    TimingOptions rr;
    rr.placement = CtaPlacement::clustered;
    rr.cluster_ctas = 1;
    CHECK(placement<LocalityGpu>(rr) == chunks(1));
}

TEST_CASE("a launch hint above 3 is rejected") {
    TimingOptions o;
    o.launch_hint = 4;
    CHECK_THROWS_AS(placement<LocalityGpu>(o), Error);
}

TEST_CASE("functional results are unchanged under every hint; hint 0 times exactly as LRR") {
    for (std::string_view name : {"sgemm_naive", "jacobi2d", "histogram_shared"}) {
        CAPTURE(name);
        std::uint64_t lrr_cycles = 0, cycles = 0;
        CHECK(run_corpus<LrrGpu>(name, 0, lrr_cycles).passed);
        for (unsigned hint : {0U, 1U, 2U, 3U}) {
            CAPTURE(hint);
            CHECK(run_corpus<LocalityGpu>(name, hint, cycles).passed);
            CHECK(cycles > 0);
            if (hint == 0) CHECK(cycles == lrr_cycles);
        }
    }
}

TEST_CASE("adjacent CTAs on one SM cut cross-SM duplicate MSHR allocations (jacobi2d, Gong 2020 Sec. 6.1)") {
    // Small jacobi2d: a 3 x 3 grid of 16 x 16 blocks, 2 sweeps. Round-robin (one CTA per SM) puts all 9 blocks on
    // different SMs, so the rows they share are fetched by several SMs; rows of 3 blocks per SM share them locally.
    std::uint64_t cycles = 0;
    mem::DuplicateMshrTracker rr_tracker, clustered_tracker;
    REQUIRE(run_corpus<LocalityGpu>("jacobi2d", 0, cycles, &rr_tracker, 1).passed);
    REQUIRE(run_corpus<LocalityGpu>("jacobi2d", 2, cycles, &clustered_tracker, 3).passed);
    MESSAGE("duplicates: round-robin " << rr_tracker.duplicates() << " of " << rr_tracker.allocations()
                                       << ", clustered " << clustered_tracker.duplicates() << " of "
                                       << clustered_tracker.allocations());
    CHECK(rr_tracker.duplicates() > 0);
    CHECK(clustered_tracker.duplicates() < rr_tracker.duplicates());
    CHECK(clustered_tracker.allocations() < rr_tracker.allocations());
}
