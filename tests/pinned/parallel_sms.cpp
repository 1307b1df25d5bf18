// Parallel SMs (issue 11): ticking the SMs on several host threads (timing phases and the private part of the
// fetch stages in parallel, the fetch steps that touch the Device serially in SM index order) gives bit-identical
// results to one thread: the same cycles, instruction counts, full statistics tables (every SM and memory-system
// counter) and device memory after every launch, and the same error, on kernels with global atomics, barriers and
// shared memory, on every machine.
#include <doctest/doctest.h>

#include <gpuarch/support/variants.hpp>

#include "same_run.hpp"

#include <corpus/corpus.hpp>
#include <gpuarch/func/host.hpp>
#include <gpuarch/gpu.hpp>
#include <gpuarch/machines.hpp>
#include <gpuarch/pipeline/private_steps.hpp>
#include <gpuarch/sched/gto.hpp>

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <vector>

using namespace gpuarch;

namespace {
examples::RunRow run_with_threads(const char* threads, const char* machine, const char* scheduler,
                                  std::string_view kernel) {
    // GPUARCH_HOST_THREADS is what TimingOptions::host_threads = 0 (the default, used by run_variant) reads.
    ::setenv("GPUARCH_HOST_THREADS", threads, 1);
    auto row = examples::run_variant(machine, scheduler, kernel, kernels::Size::small);
    ::unsetenv("GPUARCH_HOST_THREADS");
    return row;
}
} // namespace

// Kernels with global atomics (histogram_global), shared-memory atomics and barriers (histogram_shared,
// reduce_shared), a cache-heavy tiled kernel (sgemm_tiled), divergence (kmeans_assign) and a local-memory
// device function (devfunc_local); each runs a few thousand cycles, because on an oversubscribed host every
// cycle's barrier can wait for a descheduled thread. Five threads on 15 SMs gives members 3 or 4 SMs each.
constexpr const char* kernels_checked[] = {"vector_add", "histogram_global", "histogram_shared", "reduce_shared",
                                           "sgemm_tiled", "kmeans_assign", "devfunc_local"};

TEST_CASE("corpus kernels give identical statistics on 1, 2 and 5 host threads (Fermi, GTO)") {
    for (const char* kernel : kernels_checked) {
        const auto serial = run_with_threads("1", "fermi", "GTO", kernel);
        INFO(kernel << ": " << serial.message);
        REQUIRE(serial.passed);
        for (const char* threads : {"2", "5"}) {
            const auto parallel = run_with_threads(threads, "fermi", "GTO", kernel);
            INFO(threads << " threads: " << parallel.message);
            test::check_same_run(serial, parallel);
        }
    }
}

TEST_CASE("Kepler and Southern Islands give identical statistics serial and on 2 host threads") {
    for (const char* machine : {"kepler", "southern_islands"})
        for (const char* kernel : {"histogram_global", "reduce_shared"}) {
            const auto serial = run_with_threads("1", machine, "GTO", kernel);
            const auto parallel = run_with_threads("2", machine, "GTO", kernel);
            INFO(machine << " " << kernel << ": " << serial.message << parallel.message);
            REQUIRE(serial.passed);
            CHECK(parallel.passed);
            CHECK(parallel.cycles == serial.cycles);
            CHECK(parallel.stats == serial.stats);
        }
}

TEST_CASE("a malformed GPUARCH_HOST_THREADS is an error, not a silent default") {
    const auto row = run_with_threads("two", "fermi", "GTO", "vector_add");
    CHECK_FALSE(row.passed);
    CHECK(row.message.find("GPUARCH_HOST_THREADS must be a positive integer") != std::string::npos);
}

namespace {
// Everything a run produces that the host thread count must not change.
struct DirectRun {
    bool passed = false;
    std::string message;
    std::uint64_t cycles = 0, warp_instructions = 0, thread_instructions = 0;
    core::StatsTable stats;
    std::vector<std::uint64_t> memory; // after each launch: FNV-1a over every live allocation's address and bytes
};

std::uint64_t memory_digest(const func::Device& device) {
    std::uint64_t h = 14695981039346656037ULL;
    auto mix = [&h](std::uint64_t byte) { h = (h ^ byte) * 1099511628211ULL; };
    device.for_each_allocation([&](func::DevPtr base, std::span<const std::uint8_t> bytes) {
        for (unsigned k = 0; k < 8; ++k) mix((base >> (8 * k)) & 0xff);
        for (unsigned k = 0; k < 8; ++k) mix((std::uint64_t{bytes.size()} >> (8 * k)) & 0xff);
        for (const std::uint8_t b : bytes) mix(b);
    });
    return h;
}

template <class Machine, unsigned N>
DirectRun run_direct(std::string_view kernel, unsigned threads) {
    using Gpu = typename Machine::template gpu<sched::GTO, N>;
    DirectRun run;
    try {
        func::Device device;
        const auto& info = kernels::find_case(kernel);
        const auto module = func::Module::from_file(examples::kernels_dir() + "/ptx/" + std::string(info.ptx_file));
        auto gpu = std::make_unique<Gpu>(Machine::template config<Gpu>());
        TimingOptions options;
        options.host_threads = threads;
        auto launcher = [&](const func::Module& m, std::string_view entry, const func::LaunchConfig& launch,
                            const func::Args& args) {
            const LaunchResult r = gpu->launch(device, m, entry, launch, args, options);
            run.cycles += r.cycles;
            run.warp_instructions += r.warp_instructions;
            run.thread_instructions += r.thread_instructions;
            run.stats.merge(r.stats);
            run.memory.push_back(memory_digest(device));
        };
        const auto result = kernels::run_case(kernel, device, module, launcher, kernels::Size::small);
        run.passed = result.passed;
        run.message = result.message;
    } catch (const std::exception& e) {
        run.message = e.what();
    }
    return run;
}

template <class Machine, unsigned N>
void check_thread_counts(const char* machine, std::string_view kernel) {
    const DirectRun serial = run_direct<Machine, N>(kernel, 1);
    INFO(machine << " " << kernel << ": " << serial.message);
    REQUIRE(serial.passed);
    REQUIRE_FALSE(serial.memory.empty());
    for (const unsigned threads : {2U, 5U}) {
        const DirectRun parallel = run_direct<Machine, N>(kernel, threads);
        INFO(threads << " threads: " << parallel.message);
        test::check_same_run(serial, parallel);
        CHECK(parallel.memory == serial.memory);
    }
}

// Kernels whose fetch stages stop at a global access in the middle of a cycle: loads and stores (vector_add),
// global atomics (histogram_global), data-dependent global traffic over several launches (bfs), and shared-memory
// kernels whose barriers and shared accesses run in the parallel part between global accesses (reduce_shared,
// sgemm_tiled).
constexpr const char* fetch_split_kernels[] = {"vector_add", "histogram_global", "bfs", "reduce_shared",
                                               "sgemm_tiled"};
} // namespace

TEST_CASE("fetch stages split at global accesses give identical statistics and memory on 1, 2 and 5 threads "
          "(Fermi x15, Kepler x14)") {
    for (const char* kernel : fetch_split_kernels) {
        check_thread_counts<machines::Fermi, 15>("fermi", kernel);
        check_thread_counts<machines::Kepler, 14>("kepler", kernel);
    }
}

TEST_CASE("private steps: every instruction but a global or generic memory access; they count into the caller's "
          "StepCounts until folded") {
    const std::string ptx = ".version 8.0\n.target sm_80\n.address_size 64\n"
                            ".visible .entry k(.param .u64 out)\n{\n"
                            "  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n  .shared .align 4 .b8 tile[128];\n"
                            "  ld.param.u64 %rd1, [out];\n"      // 0: param space: private
                            "  mov.u32 %r1, %tid.x;\n"           // 1: special register: private
                            "  st.shared.u32 [tile], %r1;\n"     // 2: shared: private
                            "  ld.global.u32 %r2, [%rd1];\n"     // 3: global: shared with other SMs
                            "  atom.global.add.u32 %r3, [%rd1], 1;\n" // 4
                            "  ld.u32 %r4, [%rd1];\n"            // 5: generic: shared
                            "  add.u32 %r5, %r4, %r3;\n"         // 6: private
                            "  ret;\n}\n";
    func::Device device;
    const auto module = func::Module::from_string(ptx, "private.ptx");
    const func::DevPtr out = device.malloc(64);
    func::KernelExecution execution(device, module, "k", func::LaunchConfig{func::Dim3{1, 1, 1}, func::Dim3{32, 1, 1}, 0},
                                    func::Args(out));
    func::CtaState cta = execution.start_cta(0);
    func::StepResult result(32);
    func::StepCounts counts;
    pipeline::PrivateSteps private_steps;
    private_steps.bind(execution.kernel());
    const bool expected[] = {true, true, true, false, false, false, true};
    for (unsigned pc = 0; pc < 7; ++pc) {
        INFO("pc " << pc);
        REQUIRE(cta.next_pc(0) == pc);
        CHECK(private_steps.next_is_private(cta, 0) == expected[pc]);
        if (expected[pc]) execution.step(cta, 0, result, counts);
        else execution.step(cta, 0, result);
    }
    CHECK(counts.warp_instructions == 4);
    CHECK(counts.thread_instructions == 4 * 32);
    CHECK(execution.warp_instructions() == 3); // the three shared steps only, until the caller folds
    execution.add_counts(counts);
    CHECK(execution.warp_instructions() == 7);
    CHECK(execution.thread_instructions() == 7 * 32);
    CHECK(counts.warp_instructions == 0);
    CHECK(device.download<std::uint32_t>(out, 1)[0] == 32); // the atomic ran once per lane
}

TEST_CASE("a fault is the one the serial tick reports first, whichever SM's step and part it happens in") {
    // CTA 3 faults on an out-of-bounds shared load (a private step, taken in the parallel part) and CTA 2 on an
    // out-of-bounds global load (a shared step, taken in the serial part), both in cycle 362 (the three extra
    // movs on the global path make up for the three cycles later that CTA 3 starts): the serial tick reaches SM 2
    // first, so that is the error; reporting the parallel part's errors first would name CTA 3. The other CTAs
    // load in bounds. The CTA (2,0,0) check guards that same-cycle precondition: a timing change that moves
    // either fault needs the padding re-tuned (per-SM fault cycles differ by 3 per CTA index on Fermi x15).
    const std::string ptx = ".version 8.0\n.target sm_80\n.address_size 64\n"
                            ".visible .entry faults(.param .u64 data)\n"
                            "{\n"
                            "  .reg .pred %p<4>;\n"
                            "  .reg .b32 %r<8>;\n"
                            "  .reg .b64 %rd<8>;\n"
                            "  .shared .align 4 .b8 tile[128];\n"
                            "  ld.param.u64 %rd1, [data];\n"
                            "  cvta.to.global.u64 %rd1, %rd1;\n"
                            "  mov.u32 %r1, %ctaid.x;\n"
                            "  setp.eq.u32 %p1, %r1, 3;\n"
                            "  setp.eq.u32 %p2, %r1, 2;\n"
                            "  selp.b64 %rd2, 1048576, 0, %p2;\n"
                            "  selp.b64 %rd5, 4096, 0, %p1;\n"
                            "  @%p1 bra SHARED;\n"
                            "  mov.u32 %r5, 1;\n"
                            "  mov.u32 %r6, 2;\n"
                            "  mov.u32 %r4, 3;\n"
                            "  add.s64 %rd3, %rd1, %rd2;\n"
                            "  ld.global.u32 %r2, [%rd3];\n"
                            "  st.global.u32 [%rd1], %r2;\n"
                            "  ret;\n"
                            "SHARED:\n"
                            "  add.s64 %rd3, %rd5, 0;\n"
                            "  ld.shared.u32 %r2, [%rd3];\n"
                            "  st.global.u32 [%rd1], %r2;\n"
                            "  ret;\n"
                            "}\n";
    using Gpu = machines::Fermi::gpu<sched::GTO, 15>;
    auto message = [&](unsigned threads) {
        func::Device device;
        const auto module = func::Module::from_string(ptx, "faults.ptx");
        const func::DevPtr data = device.malloc(256);
        Gpu gpu(machines::Fermi::config<Gpu>());
        TimingOptions options;
        options.host_threads = threads;
        options.registers_per_thread = 16;
        try {
            gpu.launch(device, module, "faults", func::LaunchConfig{func::Dim3{15, 1, 1}, func::Dim3{32, 1, 1}, 0},
                       func::Args(data), options);
        } catch (const std::exception& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const std::string serial = message(1);
    INFO(serial);
    CHECK(serial.find("CTA (2,0,0)") != std::string::npos);
    CHECK(serial.find("out-of-bounds global load") != std::string::npos);
    CHECK(message(2) == serial);
    CHECK(message(5) == serial);
}
