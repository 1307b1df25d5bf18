#!/usr/bin/env bash
# The fast part of the test suite under AddressSanitizer and UBSan (the debug-asan preset; CI runs it after
# scripts/test.sh). What the preset builds and leaves out, and why:
#   - the library's tests and the differential fuzzer's replay tool only: GPUARCH_BUILD_EXAMPLES, _TOOLS and
#     _BENCH are OFF (the tools' tests, sweep and cudart, and the CUDA runtime are not sanitized here; the runtime
#     is a shared library loaded into nvcc-built programs, which would need libasan preloaded);
#   - -O1 -g1, not -O0 -g: at -O0 the simulator runs so slowly under ASan that test_fuzz alone took over 3 CPU
#     minutes without finishing (10 s in the default build); -g1 keeps file:line in the sanitizers' stack traces
#     at less compile time than -g;
#   - the test preset leaves out the tests labelled `slow` (pinned, repro.quick) and `build` (those that only
#     configure, compile or install, which run no simulator code; the default stage runs them);
#   - no -Werror: GCC's warnings change with the sanitizers' instrumentation; the default stage holds the line.
# Any ASan or UBSan report stops the test that hit it (-fno-sanitize-recover=all), so it fails the stage.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
cmake --preset debug-asan
cmake --build --preset debug-asan -j "$jobs"
ctest --preset debug-asan -j "$jobs"
