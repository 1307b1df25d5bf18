#!/usr/bin/env bash
# The fast part of the test suite under AddressSanitizer and UBSan (the debug-asan preset); .ci/run runs it after
# scripts/test.sh. What the preset builds and leaves out, and why:
#   - the library's tests and the differential fuzzer's replay tool only: GPUARCH_BUILD_EXAMPLES, _TOOLS and
#     _BENCH are OFF (the tools' tests, sweep and cudart, and the CUDA runtime are not sanitized here; the runtime
#     is a shared library loaded into nvcc-built programs, which would need libasan preloaded), and
#     GPUARCH_BUILD_SLOW_TESTS is OFF (tests/pinned is not run here, so it is not compiled);
#   - -O0 -g1: the stage's cost is mostly compiling, and -O0 compiles a test TU in about a third of -O1's time;
#     the tests then run slower (test_fuzz 228 s here against 13.5 s in the default build), which costs less than
#     the compile time saved; -g1 keeps file:line in the sanitizers' stack traces at less compile time than -g;
#   - the test preset leaves out the tests labelled `slow` (pinned, repro.quick) and `build` (those that only
#     configure, compile or install, which run no simulator code; the default stage runs them);
#   - no -Werror: GCC's warnings change with the sanitizers' instrumentation; the default stage holds the line.
# Any ASan or UBSan report stops the test that hit it (-fno-sanitize-recover=all), so it fails the stage.
#
# Cost, measured end to end on 2026-11-26 on this 2-core machine, idle but for a few syntax checks (a fresh
# build directory, `-j 2`): configure and build 1,233 s (it still compiled tests/pinned then; this script no
# longer does), `ctest --preset debug-asan -j 2` 596 s, 25 of 25 tests passed with no sanitizer report. The
# longest tests: calibration 327 s, fuzz 228 s, func 211 s, timing 154 s. About 31 minutes in all, on top of the
# default stage's 31 (CI, stop 27: 1,881 s): about 62 of the 90 allowed.
# 2026-12-03 (session 36, the interpreter and the PTX parser compiled once, gpuarch_separate): 1,581 s end to end on
# the same machine, idle: about 880 s configure and build, `ctest` 700 s, 26 of 26 passed with no sanitizer report.
# 2026-12-04 (session 39, a host of this kind whose GPGPU-Sim ratios ran a fifth to a quarter below session 33's):
# 2,107 s end to end from a fresh machine, about 1,010 s build and `ctest` 1,100 s (fuzz 625 s, timing 247 s, func
# 241 s), 26 of 26 passed; the default stage took 1,917 s there (build 1,518 s, `ctest` 399 s): 67 of the 90 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
cmake --preset debug-asan
cmake --build --preset debug-asan -j "$jobs"
ctest --preset debug-asan -j "$jobs"
