#!/usr/bin/env bash
# scripts/build-fast-runtime.sh end to end on one registry unit (gtx480_core), trained on one program with this
# build's workloads: it must leave a profile of the runtime's units, configure the optimized build with it, and
# that runtime's statistics must equal this build's runtime's, field for field apart from host seconds, on three
# programs under two schedulers (bench/ab_runtimes.py compares them and fails on any difference).
# Usage: fast_runtime.sh SOURCE_DIR BUILD_DIR WORK_DIR (BUILD_DIR: this build, with its workloads and runtime).
set -euo pipefail
source_dir=$1
build_dir=$2
work=$3

rm -rf "$work"
"$source_dir/scripts/build-fast-runtime.sh" --build "$work" --units gtx480_core --programs gemm \
    --workloads "$build_dir/workloads" --jobs 2

# The training wrote a profile for the registry's unit and the functional engine, and the build that followed read it.
for unit in variants_gtx480_core.cpp separate_compilation.cpp; do
    if ! ls "$work/profile" | grep -q "$unit.gcda"; then
        echo "fast_runtime: no profile for $unit in $work/profile:" >&2
        ls "$work/profile" >&2
        exit 1
    fi
done
for flag in -fprofile-use -O3; do
    if ! grep -q -- "$flag" "$work/CMakeCache.txt"; then
        echo "fast_runtime: the optimized build is not configured with $flag" >&2
        exit 1
    fi
done
if ! grep -Eq "^CMAKE_INTERPROCEDURAL_OPTIMIZATION:[A-Z]*=ON$" "$work/CMakeCache.txt"; then
    echo "fast_runtime: the optimized build does not use link-time optimization" >&2
    exit 1
fi

/usr/bin/python3 "$source_dir/bench/ab_runtimes.py" --a "$build_dir/lib/libcudart.so.13" \
    --b "$work/lib/libcudart.so.13" --build "$build_dir" --machine gtx480 --schedulers gto,two_level \
    --programs atax,gemm,fdtd2d --out "$work/ab"
