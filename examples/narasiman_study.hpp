#pragma once
// narasiman_study's runner, shared by its two translation units: narasiman_study.cpp instantiates half of the
// study's machines, narasiman_study_variants.cpp the other half (GPUARCH_NARASIMAN_OTHER_UNIT_MACHINES), so that
// neither unit needs more than 1.5 GiB to compile (docs/performance-history.md, "Compile cost"; as one unit they took
// 1.6 GiB).
#include <gpuarch/barrel/narasiman_machine.hpp>
#include <gpuarch/func/host.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sched/two_level.hpp>

#include "corpus/corpus.hpp"

#include <array>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#ifndef GPUARCH_KERNELS_DIR
#error "GPUARCH_KERNELS_DIR must name the kernels/ directory (the CMake build defines it)"
#endif

namespace gpuarch::examples::narasiman {
using barrel::Narasiman2010;
using sched::LRR;
template <unsigned G> using TwoLevel = sched::TwoLevel<G>;
template <unsigned LargeWarp, class Scheduler, class... Knobs>
using Machine = Narasiman2010::gpu<LargeWarp, Scheduler, regfile::PerLaneBankedRF<>, Knobs...>;

// The cases studied: branch-divergent (spmv, bfs, mandelbrot, devfunc_local), memory-divergent (kmeans, histogram,
// transpose, atax/bicg/mvt) and memory-bound coherent ones (vector_add, saxpy, jacobi2d, sgemm_naive). None uses
// shared memory or barriers, so their CTAs can be re-blocked. Excluded: nw (16-thread CTAs fixed by its shared
// tiles), and the shared-memory kernels (histogram_shared, reduce_*, scan_block, sgemm_tiled, transpose_tiled,
// hotspot, bitonic_sort, conv2d), whose CTA size is part of the algorithm.
constexpr std::array<std::string_view, 14> study_cases{
    "spmv_csr_scalar", "bfs",        "mandelbrot", "devfunc_local", "kmeans_assign", "histogram_global",
    "transpose_naive", "atax",       "bicg",       "mvt",           "vector_add",    "saxpy",
    "jacobi2d",        "sgemm_naive"};

struct Result {
    bool passed = false;
    std::string message;
    std::uint64_t cycles = 0, thread_instructions = 0;
    core::StatsTable stats;
    double ipc() const { return cycles == 0 ? 0.0 : double(thread_instructions) / double(cycles); }
    std::uint64_t c(std::string_view name) const { return stats.counter(name); }
};

// CTAs of `threads` threads covering the same global index range (1-D: x; 2-D: the block keeps its width).
inline func::LaunchConfig reblock(const func::LaunchConfig& in, unsigned threads) {
    func::LaunchConfig out = in;
    if (threads == 0) return out;
    if (in.block.z != 1 || in.grid.z != 1) throw Error("re-blocking supports 1-D and 2-D launches only");
    if (in.block.y == 1) {
        const std::uint64_t total = std::uint64_t{in.grid.x} * in.block.x;
        out.block.x = threads;
        out.grid.x = static_cast<std::uint32_t>((total + threads - 1) / threads);
        return out;
    }
    if (threads % in.block.x != 0)
        throw Error("cannot re-block a " + std::to_string(in.block.x) + "-wide 2-D block into " +
                    std::to_string(threads) + " threads");
    const std::uint64_t rows = std::uint64_t{in.grid.y} * in.block.y;
    out.block.y = threads / in.block.x;
    out.grid.y = static_cast<std::uint32_t>((rows + out.block.y - 1) / out.block.y);
    return out;
}

// ---- "coin": data-dependent branches on compute, uncorrelated between threads.
// Each thread steps an LCG `trips` times; when the top two bits of the state are 0 (a quarter of the time) it runs
// a 16-instruction path, otherwise a 4-instruction one. 32-bit wrap-around arithmetic throughout.
constexpr std::string_view coin_ptx = R"(.version 8.0
.target sm_75
.address_size 64
.visible .entry coin(.param .u64 out, .param .u32 trips)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r10, [trips];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.u32 %r4, %r1, %r2, %r3;
  mad.lo.u32 %r5, %r4, 747796405, 1;
  mov.u32 %r6, 0;
  mov.u32 %r7, 0;
LOOP:
  mad.lo.u32 %r5, %r5, 1664525, 1013904223;
  shr.u32 %r8, %r5, 30;
  setp.ne.u32 %p1, %r8, 0;
  @%p1 bra SHORT;
  xor.b32 %r9, %r5, %r7;
  add.u32 %r6, %r6, %r9;
  mul.lo.u32 %r6, %r6, 3;
  add.u32 %r6, %r6, 1;
  shl.b32 %r9, %r6, 7;
  xor.b32 %r6, %r6, %r9;
  shr.u32 %r9, %r6, 9;
  xor.b32 %r6, %r6, %r9;
  mul.lo.u32 %r6, %r6, 5;
  add.u32 %r6, %r6, %r7;
  shl.b32 %r9, %r6, 3;
  add.u32 %r6, %r6, %r9;
  shr.u32 %r9, %r6, 11;
  xor.b32 %r6, %r6, %r9;
  add.u32 %r6, %r6, 7;
  mul.lo.u32 %r6, %r6, 9;
  bra.uni JOIN;
SHORT:
  sub.u32 %r6, %r6, %r5;
  xor.b32 %r6, %r6, 1540483477;
  shl.b32 %r9, %r6, 5;
  add.u32 %r6, %r6, %r9;
JOIN:
  add.u32 %r7, %r7, 1;
  setp.lt.u32 %p2, %r7, %r10;
  @%p2 bra LOOP;
  mul.wide.u32 %rd2, %r4, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r6;
  ret;
}
)";

inline std::vector<std::uint32_t> coin_reference(std::uint32_t threads, std::uint32_t trips) {
    std::vector<std::uint32_t> out(threads);
    for (std::uint32_t gid = 0; gid < threads; ++gid) {
        std::uint32_t x = gid * 747796405U + 1U, acc = 0;
        for (std::uint32_t i = 0; i < trips; ++i) {
            x = x * 1664525U + 1013904223U;
            if ((x >> 30) == 0) {
                acc += x ^ i;
                acc = acc * 3U + 1U;
                acc ^= acc << 7;
                acc ^= acc >> 9;
                acc = acc * 5U + i;
                acc += acc << 3;
                acc ^= acc >> 11;
                acc = (acc + 7U) * 9U;
            } else {
                acc -= x;
                acc ^= 1540483477U;
                acc += acc << 5;
            }
        }
        out[gid] = acc;
    }
    return out;
}

// Runs "coin" like a corpus driver: small = 2048 threads x 16 trips, large = 16384 threads x 48 trips.
template <class Launcher>
kernels::CaseResult run_coin(func::Device& device, const func::Module& module, Launcher&& launch, kernels::Size size) {
    const std::uint32_t threads = size == kernels::Size::small ? 2048 : 16384;
    const std::uint32_t trips = size == kernels::Size::small ? 16 : 48;
    constexpr std::uint32_t block = 256;
    kernels::DeviceBuffer out = kernels::poisoned_buffer(device, std::size_t{threads} * sizeof(std::uint32_t));
    launch(module, "coin", kernels::config_1d(threads / block, block), func::Args(out.ptr(), trips));
    kernels::Checker check;
    check.exact("out", out.download<std::uint32_t>(threads), coin_reference(threads, trips));
    return check.result();
}

struct Options {
    kernels::Size size = kernels::Size::large;
    unsigned cta_threads = 512;
    unsigned jobs = 2;
    std::vector<std::string> cases;
    bool quiet = false; // no progress on stderr
};

template <class Gpu> Result run_case(std::string_view name, const Options& opt) {
    Result out;
    try {
        func::Device device;
        const auto module = name == "coin" ? func::Module::from_string(std::string(coin_ptx), "coin.ptx")
                                           : func::Module::from_file(std::string(GPUARCH_KERNELS_DIR) + "/ptx/" +
                                                                     std::string(kernels::find_case(name).ptx_file));
        TimingOptions timing;
        if (name == "coin") timing.registers_per_thread = 16; // no ptxas .resources beside an inline module
        auto gpu = std::make_unique<Gpu>(Narasiman2010::config<Gpu>());
        auto launcher = [&](const func::Module& m, std::string_view entry, const func::LaunchConfig& launch,
                            const func::Args& args) {
            const LaunchResult r = gpu->launch(device, m, entry, reblock(launch, opt.cta_threads), args, timing);
            out.cycles += r.cycles;
            out.thread_instructions += r.thread_instructions;
            out.stats.merge(r.stats);
        };
        const kernels::CaseResult result = name == "coin" ? run_coin(device, module, launcher, opt.size)
                                                          : kernels::run_case(name, device, module, launcher, opt.size);
        out.passed = result.passed;
        out.message = result.message;
    } catch (const std::exception& e) {
        out.passed = false;
        out.message = e.what();
    }
    return out;
}

// The machines narasiman_study_variants.cpp instantiates run_case for (declared here, so that
// narasiman_study.cpp does not instantiate them).
#define GPUARCH_NARASIMAN_OTHER_UNIT_MACHINES(prefix)                                                                  \
    prefix template Result run_case<Machine<32, TwoLevel<1>>>(std::string_view, const Options&);                       \
    prefix template Result run_case<Machine<32, TwoLevel<2>>>(std::string_view, const Options&);                       \
    prefix template Result run_case<Machine<32, TwoLevel<4>>>(std::string_view, const Options&);                       \
    prefix template Result run_case<Machine<32, TwoLevel<8>>>(std::string_view, const Options&);                       \
    prefix template Result run_case<Machine<32, TwoLevel<16>>>(std::string_view, const Options&);                      \
    prefix template Result run_case<Machine<64, TwoLevel<4>>>(std::string_view, const Options&);                       \
    prefix template Result run_case<Machine<128, TwoLevel<2>>>(std::string_view, const Options&);                      \
    prefix template Result run_case<Machine<256, TwoLevel<2>>>(std::string_view, const Options&);                      \
    prefix template Result run_case<Machine<512, TwoLevel<1>>>(std::string_view, const Options&);
GPUARCH_NARASIMAN_OTHER_UNIT_MACHINES(extern)
} // namespace gpuarch::examples::narasiman
