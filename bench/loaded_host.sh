#!/usr/bin/env bash
# The loaded-host benchmark: with the default settings, is a run ever more than 10% slower than with one host
# thread when other processes keep every core busy? (docs/performance.md, "When to turn parallel ticking on".)
#
# Usage: bench/loaded_host.sh [--repeat N] [-- PROGRAM ARGS...]
#   PROGRAM defaults to `build/default/examples/kepler --json /dev/null`.
# Runs PROGRAM, best of N (default 3) wall seconds each, under these conditions:
#   idle          alone on the host;
#   two copies    two copies at once (each is the other's load), the time of the slower copy;
#   busy          alone while one busy loop per core runs under `nice -n 19` (a host whose cores a background job
#                 keeps busy at low priority, as a build under nice does);
# each with the default settings (GPUARCH_HOST_THREADS unset), with GPUARCH_HOST_THREADS=1, and with
# GPUARCH_HOST_THREADS=<cores> (parallel ticking on). Prints one table row per condition and the ratio of the
# default to one thread; exits 1 when a ratio is above 1.10. Wall-clock figures: run it on a host with nothing else
# running, never in the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
repeat=3
if [[ "${1:-}" == "--repeat" ]]; then repeat=$2; shift 2; fi
if [[ "${1:-}" == "--" ]]; then shift; fi
if [[ $# -eq 0 ]]; then set -- build/default/examples/kepler --json /dev/null; fi
[[ -x "$1" ]] || { echo "loaded_host.sh: $1 is not built (cmake --build build/default)" >&2; exit 2; }
cores=$(nproc)

# wall seconds of one run of "$@" (stdout and stderr discarded)
wall() {
    local start end
    start=$(date +%s.%N)
    "$@" > /dev/null 2>&1
    end=$(date +%s.%N)
    awk "BEGIN { print $end - $start }"
}
less() { awk "BEGIN { exit !($1 < $2) }"; } # less A B: A < B
best() { # best of $repeat: best CMD...
    local b="" t
    for ((i = 0; i < repeat; ++i)); do
        t=$(wall "$@")
        if [[ -z "$b" ]] || less "$t" "$b"; then b=$t; fi
    done
    printf '%.3f' "$b"
}
two_copies() { # the slower of two concurrent copies, best of $repeat
    local b="" t1 t2 t f1 f2
    for ((i = 0; i < repeat; ++i)); do
        f1=$(mktemp) f2=$(mktemp)
        (wall "$@" > "$f1") & (wall "$@" > "$f2") & wait
        t1=$(cat "$f1") t2=$(cat "$f2"); rm -f "$f1" "$f2"
        t=$t1; if less "$t1" "$t2"; then t=$t2; fi
        if [[ -z "$b" ]] || less "$t" "$b"; then b=$t; fi
    done
    printf '%.3f' "$b"
}
busy() { # alone while one busy loop per core runs at the lowest priority
    local pids=() r
    for ((c = 0; c < cores; ++c)); do nice -n 19 bash -c 'while :; do :; done' & pids+=($!); done
    r=$(best "$@")
    kill "${pids[@]}" 2> /dev/null; wait "${pids[@]}" 2> /dev/null || true
    echo "$r"
}
run_with() { # run_with THREADS CONDITION CMD...: THREADS empty = the default settings
    local threads=$1 condition=$2; shift 2
    if [[ -z "$threads" ]]; then (unset GPUARCH_HOST_THREADS; "$condition" "$@")
    else GPUARCH_HOST_THREADS=$threads "$condition" "$@"; fi
}

echo "loaded_host: $* ($cores cores, best of $repeat, wall seconds)"
echo "| condition | default | 1 thread | $cores threads | default / 1 thread |"
echo "|---|---|---|---|---|"
status=0
for condition in best two_copies busy; do
    d=$(run_with "" "$condition" "$@")
    one=$(run_with 1 "$condition" "$@")
    many=$(run_with "$cores" "$condition" "$@")
    ratio=$(awk "BEGIN { printf \"%.2f\", $d / $one }")
    name=$condition; [[ $condition == best ]] && name=idle
    echo "| $name | $d | $one | $many | $ratio |"
    if less 1.10 "$ratio"; then status=1; fi
done
exit $status
