#!/usr/bin/env bash
# The main job: builds gpuarch and runs the comparison demo (every corpus kernel on the Fermi-, Kepler- and
# Southern-Islands-like machines with LRR, GTO and TwoLevel<8>, and MemoryFirst on Fermi: docs/new_policy.md).
# It prints the headline table (speedup over LRR per kernel and machine, geometric means) and draws it as
# out/speedup.png; the per-variant details go to out/details.txt, the raw numbers to out/compare.csv and .json.
# Extra arguments go to the demo (e.g. --size large, --kernels bfs,atax; compare --help lists them).
# The papers' reproduction is a separate command: build/default/tools/repro/repro all (docs/reproduction.md).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh python3-matplotlib
jobs=$(nproc 2>/dev/null || echo 2)
cmake --preset default > /dev/null
echo "building the demo (the first build takes a few minutes; compiler errors, if any, appear below)" >&2
cmake --build --preset default -j "$jobs" --target compare > /dev/null
./build/default/examples/compare --out out --details out/details.txt "$@"
/usr/bin/python3 scripts/plot_speedup.py out/compare.csv out/speedup.png
