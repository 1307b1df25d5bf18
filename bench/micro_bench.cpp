// Google Benchmark micro-benchmarks of hot pieces: lane-mask iteration, functional execution of a corpus kernel,
// and one Kepler SM cycle loop on a compute-bound micro-kernel with an ideal memory.
#include <benchmark/benchmark.h>

#include <gpuarch/core/lane_mask.hpp>
#include <gpuarch/exec/simd_exec.hpp>
#include <gpuarch/frontend/kepler.hpp>
#include <gpuarch/func/host.hpp>
#include <gpuarch/gpu.hpp>
#include <gpuarch/mem/ideal_memory.hpp>
#include <gpuarch/regfile/ideal_rf.hpp>
#include <gpuarch/sched/gto.hpp>

#include <corpus/corpus.hpp>

#include <string>

namespace {
using namespace gpuarch;

void BM_LaneMaskIteration(benchmark::State& state) {
    auto mask = core::WarpMask::first(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state) {
        std::size_t sum = 0;
        for (auto lane : mask.set_lanes()) sum += lane;
        benchmark::DoNotOptimize(sum);
    }
}
BENCHMARK(BM_LaneMaskIteration)->Arg(32)->Arg(64)->Arg(256);

void BM_FunctionalSgemmTiled(benchmark::State& state) {
    const auto module = func::Module::from_file(std::string(GPUARCH_KERNELS_DIR) + "/ptx/sgemm_tiled.ptx");
    std::uint64_t thread_inst = 0;
    for (auto _ : state) {
        func::Device device;
        auto launcher = [&](const func::Module& m, std::string_view e, const func::LaunchConfig& c,
                            const func::Args& a) {
            thread_inst += func::launch(device, m, e, c, a).thread_instructions;
        };
        benchmark::DoNotOptimize(kernels::run_case("sgemm_tiled", device, module, launcher, kernels::Size::small));
    }
    state.counters["thread_inst/s"] = benchmark::Counter(double(thread_inst), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_FunctionalSgemmTiled)->Unit(benchmark::kMillisecond);

void BM_KeplerSmComputeBound(benchmark::State& state) {
    std::string body;
    for (int i = 0; i < 64; ++i)
        body += "  add.s32 %r" + std::to_string(i % 8 + 1) + ", %r" + std::to_string((i + 3) % 8 + 1) + ", " +
                std::to_string(i) + ";\n";
    const std::string ptx =
        ".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n  .reg .b32 %r<10>;\n" + body +
        "  ret;\n}\n";
    const auto module = func::Module::from_string(ptx, "bench.ptx");
    using SMType = SM<frontend::KeplerFrontend, sched::GTO, regfile::IdealRF, exec::SimdExec, mem::IdealMemory<100>>;
    std::uint64_t warp_inst = 0, cycles = 0;
    TimingOptions options;
    options.registers_per_thread = 16;
    for (auto _ : state) {
        func::Device device;
        GPU<SMType, 1> gpu;
        const auto r =
            gpu.launch(device, module, "k", func::LaunchConfig{{32, 1, 1}, {1024, 1, 1}, 0}, func::Args{}, options);
        warp_inst += r.warp_instructions;
        cycles += r.cycles;
    }
    state.counters["warp_inst/s"] = benchmark::Counter(double(warp_inst), benchmark::Counter::kIsRate);
    state.counters["sm_cycles/s"] = benchmark::Counter(double(cycles), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_KeplerSmComputeBound)->Unit(benchmark::kMillisecond);
} // namespace

BENCHMARK_MAIN();
