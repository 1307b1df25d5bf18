#!/usr/bin/env bash
# Builds gpuarch with the default preset (release with assertions) and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
# python3-matplotlib: repro.quick draws the reproduction plots; chromium: the report tests render gpuarch-report's
# page headless (they install it themselves when run alone, but two of them at once would contend for apt's lock).
scripts/ensure-deps.sh python3-matplotlib chromium
jobs=$(nproc 2>/dev/null || echo 2)
cmake --preset default -DGPUARCH_WARNINGS_AS_ERRORS=ON
cmake --build --preset default -j "$jobs"
ctest --preset default -j "$jobs"
