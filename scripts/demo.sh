#!/usr/bin/env bash
# The main job: CUDA programs written here (workloads/: Wang 2016's memory-divergent matrix-vector benchmarks and
# two coherent ones), compiled with nvcc -cudart shared and run unchanged through gpuarch-run on the GTX480
# (GPGPU-Sim's reference configuration) and Kepler machines with LRR, GTO and the throttling schedulers.
# It prints the headline table (speedup over LRR with the L1D miss rate beside each figure, every program's own
# result check passed, and why a scheduler equals LRR where it does) and draws it as out/speedup.png; the raw numbers
# go to out/demo.csv and out/demo.json, every run's statistics to out/runs/.
# Extra arguments go to scripts/demo.py (e.g. --machines gtx480,fermi --programs atax,mvt; demo.py --help).
# The corpus comparison of the three original machines is build/default/examples/compare; the papers'
# reproduction is build/default/tools/repro/repro all (docs/reproduction.md).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh python3-matplotlib
if ! command -v nvcc > /dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
    echo "demo.sh: the demo compiles CUDA programs and needs the CUDA 13 toolkit (nvcc) on PATH or in /usr/local/cuda" >&2
    exit 1
fi
jobs=$(nproc 2>/dev/null || echo 2)
cmake --preset default > /dev/null
echo "building gpuarch-run, its CUDA runtime and the workloads (the first build takes several minutes; compiler" \
     "errors, if any, appear below)" >&2
cmake --build --preset default -j "$jobs" --target gpuarch-run gpuarch_workloads > /dev/null
/usr/bin/python3 scripts/demo.py --build build/default --out out --jobs "$jobs" "$@"
