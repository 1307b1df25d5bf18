// Parallel SMs (issue 11): ticking the SMs' timing phases on several host threads gives bit-identical results
// to one thread: the same cycles, instruction counts and full statistics tables (every SM and memory-system
// counter), on kernels with global atomics, barriers and shared memory, on every machine.
#include <doctest/doctest.h>

#include <lib/variants.hpp>

#include <corpus/corpus.hpp>

#include <cstdlib>
#include <string>

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
            CHECK(parallel.passed);
            CHECK(parallel.cycles == serial.cycles);
            CHECK(parallel.warp_instructions == serial.warp_instructions);
            CHECK(parallel.thread_instructions == serial.thread_instructions);
            CHECK(parallel.stats == serial.stats);
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
