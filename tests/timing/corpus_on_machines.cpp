// Every corpus kernel runs to completion under timing on every example machine and scheduler, and its output
// matches the CPU reference: functional results do not depend on the timing variant.
#include <doctest/doctest.h>

#include <gpuarch/support/variants.hpp>

#include <corpus/corpus.hpp>

using namespace gpuarch;

TEST_CASE("every corpus kernel gives its reference output on every machine and scheduler") {
    for (const auto& machine : examples::machine_names()) {
        for (const auto& scheduler : examples::scheduler_names(machine)) {
            for (const auto& info : kernels::corpus_cases()) {
                const auto row = examples::run_variant(machine, scheduler, info.name, kernels::Size::small);
                INFO(machine << " " << scheduler << " " << info.name << ": " << row.message);
                CHECK(row.passed);
                CHECK(row.cycles > 0);
                CHECK(row.thread_instructions > 0);
            }
        }
    }
}

TEST_CASE("the same kernel on the same variant gives the same cycles and statistics twice") {
    for (const char* kernel : {"bfs", "sgemm_tiled", "histogram_global"}) {
        const auto a = examples::run_variant("fermi", "GTO", kernel, kernels::Size::small);
        const auto b = examples::run_variant("fermi", "GTO", kernel, kernels::Size::small);
        CHECK(a.cycles == b.cycles);
        CHECK(a.stats == b.stats);
    }
}
