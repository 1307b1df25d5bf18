#!/usr/bin/env bash
# The main job: builds gpuarch and runs the comparison demo (every corpus kernel on the Fermi-, Kepler- and
# Southern-Islands-like machines with LRR, GTO and TwoLevel<8>), prints the table and writes out/speedup.png.
# Extra arguments go to the demo (e.g. --large, --kernels bfs,atax).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh python3-matplotlib
jobs=$(nproc 2>/dev/null || echo 2)
cmake --preset default > /dev/null
cmake --build --preset default -j "$jobs" --target compare
./build/default/examples/compare --out out "$@"
/usr/bin/python3 scripts/plot_speedup.py out/compare.csv out/speedup.png
