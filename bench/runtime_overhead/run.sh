#!/usr/bin/env bash
# How much gpuarch's CUDA runtime adds over launching the same kernel through the C++ host API.
# usage: bench/runtime_overhead/run.sh [BUILD_DIR] [REPEATS] [LAUNCHES]
#        COUNT=instructions bench/runtime_overhead/run.sh ...   (callgrind instruction counts instead of wall
#        time: independent of other load on the host, about 50x slower)
# Builds app.cu with nvcc -cudart shared, runs it under gpuarch-run (whole process: loading, fat binary, PTX parse,
# registration, launches, statistics), then runs the C++ driver on the PTX the runtime extracted (whole process
# too), REPEATS times each, and prints the best wall times, the simulated cycles of both (which must agree) and
# the overhead. Both use one host thread on the kepler machine with GTO.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build/default}
repeats=${2:-5}
launches=${3:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nvcc -O2 -std=c++17 -arch=sm_75 -cudart shared -I "$here/../../kernels/src" -o "$work/app" "$here/app.cu"
run="$build/tools/gpuarch-run/gpuarch-run"
driver="$build/bench/runtime_overhead_driver"
export GPUARCH_CACHE_DIR="$work/cache"
best() { sort -g | head -n 1; }
now() { date +%s.%N; }
"$run" --machine kepler --stats "$work/stats.json" -- "$work/app" "$launches" >/dev/null 2>&1
ptx=$(ls "$work"/cache/module-*.ptx | head -n 1)
read -r registers runtime_cycles < <(python3 -c "
import json; d = json.load(open('$work/stats.json'))
print(d['launches'][0]['registers'], d['totals']['cycles'])")
if [ "${COUNT:-time}" = instructions ]; then
    # Every instruction of the whole process (gpuarch-run execs the program, so callgrind follows the exec).
    instructions() { valgrind --tool=callgrind --trace-children=yes --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
                     sed -n 's/.*Collected : \([0-9]*\).*/\1/p' | tail -n 1; }
    r=$(instructions "$run" --machine kepler --quiet -- "$work/app" "$launches")
    d=$(instructions "$driver" "$ptx" "$registers" "$launches" kepler gto)
    echo "sgemm_tiled 256x256x128, $launches launches, kepler/gto, callgrind instructions"
    echo "  gpuarch-run (CUDA runtime): $r"
    echo "  C++ host API:               $d"
    python3 -c "print(f'  runtime overhead: {100.0 * ($r - $d) / $d:+.2f}%')"
    exit 0
fi
for i in $(seq "$repeats"); do
    t0=$(now); "$run" --machine kepler --quiet -- "$work/app" "$launches" >/dev/null 2>&1; t1=$(now)
    python3 -c "print($t1 - $t0)"
done | best > "$work/runtime_best"
for i in $(seq "$repeats"); do
    t0=$(now); "$driver" "$ptx" "$registers" "$launches" kepler gto > "$work/driver_out"; t1=$(now)
    python3 -c "print($t1 - $t0)"
done | best > "$work/driver_best"
driver_cycles=$(awk '{print $2}' "$work/driver_out")
r=$(cat "$work/runtime_best") d=$(cat "$work/driver_best")
echo "sgemm_tiled 256x256x128, $launches launches, kepler/gto, best of $repeats"
echo "  gpuarch-run (CUDA runtime): ${r} s, $runtime_cycles cycles"
echo "  C++ host API:               ${d} s, $driver_cycles cycles"
python3 -c "print(f'  runtime overhead: {100.0 * ($r - $d) / $d:+.2f}%')"
[ "$runtime_cycles" = "$driver_cycles" ] || { echo "cycle counts differ"; exit 1; }
