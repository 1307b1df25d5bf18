#!/usr/bin/env bash
# docs/sweeps.md says the example spec tools/sweep/examples/compare_schedulers.json reproduces the comparison
# demo. This runs the demo (examples/compare) and `sweep run` on the same selection - that spec with its machines
# and kernels narrowed to two of each, so the test stays short - and requires the same cycles, instruction counts
# and check result for every (kernel, machine, scheduler).
#
# Where Debian's python3-matplotlib is installed it also draws the plots docs/sweeps.md shows from the sweep's
# results.csv (scripts/plot_speedup.py, tools/sweep/plot_sweep.py).
#
# usage: compare_test.sh SWEEP_EXECUTABLE COMPARE_EXECUTABLE SPEC PROJECT_SOURCE_DIR
set -euo pipefail
sweep=${1:?usage: compare_test.sh SWEEP COMPARE SPEC PROJECT_SOURCE_DIR}
compare=${2:?}
spec=${3:?}
source_dir=${4:?}
work=$(mktemp -d /tmp/gpuarch_sweep_compare.XXXXXX)
trap 'rm -rf "$work"' EXIT

kernels='"vector_add", "bfs"'
# The narrowed spec must come from the example (it must say "all" where the demo runs everything).
grep -q '"machines": "all"' "$spec"
grep -q '"kernels": "all"' "$spec"
sed -e 's/"machines": "all"/"machines": ["fermi", "southern_islands"]/' -e "s/\"kernels\": \"all\"/\"kernels\": [$kernels]/" \
    "$spec" >"$work/spec.json"

"$compare" --kernels vector_add,bfs --machines fermi,southern_islands --out "$work/demo" --quiet >"$work/demo.log" 2>&1
"$sweep" run "$work/spec.json" --out "$work/sweep" --jobs 2 --quiet >"$work/sweep.log" 2>&1

# kernel,machine,scheduler,cycles,warp_instructions,thread_instructions,passed from each CSV, by header name.
columns() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
             { p = $col["passed"]; if (p == "true") p = 1; if (p == "false") p = 0
               print $col["kernel"] "," $col["machine"] "," $col["scheduler"] "," $col["cycles"] "," \
                     $col["warp_instructions"] "," $col["thread_instructions"] "," p }' "$1" | sort
}
columns "$work/demo/compare.csv" >"$work/demo.rows"
columns "$work/sweep/results.csv" >"$work/sweep.rows"
rows=$(wc -l <"$work/demo.rows")
# 2 kernels x (Fermi: LRR, GTO, TwoLevel<8>, MemoryFirst + Southern Islands: LRR, GTO, TwoLevel<8>).
[ "$rows" -eq 14 ] || { echo "FAIL: the demo gave $rows rows, expected 14"; exit 1; }
if ! diff "$work/demo.rows" "$work/sweep.rows"; then
    echo "FAIL: sweep run and the comparison demo disagree (< demo, > sweep)"
    exit 1
fi
echo "PASS: sweep run gives the demo's numbers for all $rows points:"
cat "$work/sweep.rows"

if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
    /usr/bin/python3 "$source_dir/scripts/plot_speedup.py" "$work/sweep/results.csv" "$work/speedup.png"
    /usr/bin/python3 "$source_dir/tools/sweep/plot_sweep.py" "$work/sweep/results.csv" "$work/cycles.png" \
        --x scheduler --y cycles --series machine --facet kernel
    [ -s "$work/speedup.png" ] && [ -s "$work/cycles.png" ] || { echo "FAIL: the plots were not written"; exit 1; }
    # Points that differ in an unpinned column must not be drawn as one line.
    if /usr/bin/python3 "$source_dir/tools/sweep/plot_sweep.py" "$work/sweep/results.csv" "$work/bad.png" \
        --x scheduler --y cycles --facet kernel 2>"$work/plot.err"; then
        echo "FAIL: plot_sweep.py drew points that differ in 'machine' as one line"
        exit 1
    fi
    grep -q "they differ in machine" "$work/plot.err" || { cat "$work/plot.err"; exit 1; }
    echo "plots drawn from results.csv"
else
    echo "python3-matplotlib is not installed: plots not checked"
fi
