// libFuzzer target for differential execution (issue 24, part 5): the input bytes steer fuzz/ptx_generator.hpp's
// choices one by one (fuzz::Choices), the generated kernel runs on the functional engine at warp widths 32 and 64
// and on timed Fermi, Kepler and Southern Islands GPUs on one and two host threads (fuzz/differential.hpp), and
// any error or disagreement aborts, so libFuzzer keeps the input as crash-<sha1>. Replay and reduce one with
// `differential_replay --reduce crash-...`. Build and run (docs/differential_fuzzing.md):
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -pthread \
//       -Iinclude -Ifuzz fuzz/differential_fuzzer.cpp -o differential_fuzzer
//   nice -n 19 ./differential_fuzzer -max_total_time=3600 -rss_limit_mb=4096 -timeout=60 work_dir
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

#include "differential.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // One runner for the whole campaign: its GPU objects are built once (fuzz/differential.hpp).
    static gpuarch::fuzz::DifferentialRunner runner;
    const gpuarch::fuzz::GeneratedKernel kernel =
        gpuarch::fuzz::generate_kernel(std::span<const std::uint8_t>(data, size));
    const gpuarch::fuzz::Verdict verdict = runner.check(kernel);
    if (!verdict.agree) {
        std::fprintf(stderr, "%s\n\ndifferential disagreement: %s\n", gpuarch::fuzz::to_case_file(kernel).c_str(),
                     verdict.report.c_str());
        std::abort();
    }
    return 0;
}
