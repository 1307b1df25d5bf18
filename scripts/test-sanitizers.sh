#!/usr/bin/env bash
# The fast part of the test suite under AddressSanitizer and UBSan (the debug-asan preset; meant to run in CI
# after scripts/test.sh, once its time is measured end to end). What the preset builds and leaves out, and why:
#   - the library's tests and the differential fuzzer's replay tool only: GPUARCH_BUILD_EXAMPLES, _TOOLS and
#     _BENCH are OFF (the tools' tests, sweep and cudart, and the CUDA runtime are not sanitized here; the runtime
#     is a shared library loaded into nvcc-built programs, which would need libasan preloaded);
#   - -O1 -g1, not -O0 -g: at -O0 the simulator runs so slowly under ASan that test_fuzz alone used 195 CPU s
#     without finishing (13.5 s in the default build, 70.6 s at -O1); -O1 doubles the compile time of a TU but
#     keeps the test run short; -g1 keeps file:line in the sanitizers' stack traces at less compile time than -g;
#   - the test preset leaves out the tests labelled `slow` (pinned, repro.quick) and `build` (those that only
#     configure, compile or install, which run no simulator code; the default stage runs them);
#   - no -Werror: GCC's warnings change with the sanitizers' instrumentation; the default stage holds the line.
# Any ASan or UBSan report stops the test that hit it (-fno-sanitize-recover=all), so it fails the stage.
#
# Cost, measured 2026-11-25 on the shared 2-core machine at nice 19 (CPU seconds; wall times there were 3 to 25
# times longer under other builds, so they are upper bounds and not quoted):
#   - compiling one test TU (tests/func/sync_test.cpp): 49 s with this preset's flags, 25 s with the default
#     preset's (-O2 -g0), 22 s (wall, idle host) at -O0 -g with ASan. The stage compiles 98 TUs (92 test
#     sources, doctest's main, the 4 example-variant TUs, differential_replay);
#   - running test_fuzz (300 differential seeds and the regressions): 70.6 s here, 13.5 s in the default build
#     (5.2x); at -O0 it had used 195 s without finishing. The 25 tests this preset runs take 64 s in the default
#     build, so about 5.5 CPU minutes here.
#   Estimate for CI (2 cores, -j2), if the average TU costs what sync_test's does: 98 x 49 s / 2, about 40 min of
#   build, and 3 to 4 min of tests, on top of the default stage's ~28 min: about 72 of the 90 allowed. Not yet
#   measured end to end.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
cmake --preset debug-asan
cmake --build --preset debug-asan -j "$jobs"
ctest --preset debug-asan -j "$jobs"
