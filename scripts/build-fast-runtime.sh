#!/usr/bin/env bash
# Builds gpuarch-run and its CUDA runtime for speed, for long sweeps (docs/cuda_runtime.md, "A faster runtime for
# long sweeps"): -O3, link-time optimization and GCC's profile-guided optimization, trained on our own PolyBench-style
# workloads (workloads/polybench) with every variant the runtime holds. Simulated results are the same as the
# default build's, bit for bit: the options change how the host code is compiled, not what it computes (-O3 and the
# profile allow no floating-point contraction or reassociation beyond -O2's; tests/cudart/fast_runtime.sh checks
# the statistics against the default runtime's).
#
# Usage: scripts/build-fast-runtime.sh [--build DIR] [--units LIST] [--programs LIST] [--workloads DIR] [--jobs N]
#   --build DIR      build directory (default build/fast in the source tree); its gpuarch-run is
#                    DIR/tools/gpuarch-run/gpuarch-run, and GPUARCH_CUDART=DIR/lib/libcudart.so.13 makes any
#                    gpuarch-run use its runtime
#   --units LIST     registry units, as GPUARCH_RUNTIME_UNITS (e.g. gtx480_core,fermi_throttling); default: all
#   --programs LIST  training programs, from workloads/polybench (default atax,gemm,2dconv,fdtd2d: memory-bound,
#                    compute-bound, a stencil and a multi-launch program), each run at --size small
#   --workloads DIR  train with the workloads built there (e.g. build/default/workloads) instead of building them
#   --jobs N         parallel build and training jobs (default: the host's cores)
# It takes two to three times as long as a plain build of the same targets: an instrumented build, the training runs
# (every variant of the runtime on each training program) and an optimized build. Needs g++ (GCC's profile format)
# and, unless --workloads names built ones, nvcc (the training programs are CUDA programs). After a change to the
# simulator's headers, run it again: a stale profile still builds (GCC warns about it) but optimizes for code that no
# longer exists.
set -euo pipefail
# Relative --build and --workloads are the caller's; the script itself works from the source tree's root.
caller=$PWD
from_caller() { case "$1" in /*) echo "$1" ;; *) echo "$caller/$1" ;; esac; }
cd "$(dirname "$0")/.."

build=build/fast
units=""
programs="atax,gemm,2dconv,fdtd2d"
workloads=""
jobs=$(nproc 2>/dev/null || echo 2)
usage() { sed -n '9,17p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
    case "$1" in
    --build) build=$(from_caller "${2:?--build needs a directory}"); shift 2 ;;
    --units) units="${2:?--units needs a list}"; shift 2 ;;
    --programs) programs="${2:?--programs needs a list}"; shift 2 ;;
    --workloads) workloads=$(from_caller "${2:?--workloads needs a directory}"); shift 2 ;;
    --jobs) jobs="${2:?--jobs needs a number}"; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "build-fast-runtime.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
done
case "$jobs" in
'' | *[!0-9]* | 0) echo "build-fast-runtime.sh: --jobs needs a positive number, not '$jobs'" >&2; exit 2 ;;
esac
if ! command -v g++ > /dev/null; then
    echo "build-fast-runtime.sh: needs g++ (the profile is GCC's); install the g++ package" >&2
    exit 1
fi
# The training programs are CUDA programs: built here unless --workloads names built ones.
if [ -z "$workloads" ] && ! command -v nvcc > /dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
    echo "build-fast-runtime.sh: the training programs are CUDA programs; building them needs the CUDA 13 toolkit" \
         "(nvcc) on PATH or in /usr/local/cuda (or name built ones with --workloads)" >&2
    exit 1
fi
IFS=, read -r -a training <<< "$programs"
for p in "${training[@]}"; do
    if [ ! -f "workloads/polybench/$p.cu" ]; then
        echo "build-fast-runtime.sh: no training program workloads/polybench/$p.cu" >&2
        exit 2
    fi
done

# Built training programs named with --workloads must be there before anything is built.
if [ -n "$workloads" ]; then
    for p in "${training[@]}"; do
        if [ ! -x "$workloads/$p" ]; then
            echo "build-fast-runtime.sh: no built training program $workloads/$p" >&2
            exit 2
        fi
    done
fi
mkdir -p "$build"
build=$(cd "$build" && pwd)
targets=(gpuarch-run)
if [ -z "$workloads" ]; then
    workloads="$build/workloads"
    targets+=(gpuarch_workloads)
fi
profile="$build/profile"
# Profiles of an earlier run describe other code or another training set: start from none.
rm -rf "$profile"
configure() {
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=g++ "-DCMAKE_CXX_FLAGS_RELEASE=-O3 -g0" \
          -DGPUARCH_BUILD_TESTS=OFF -DGPUARCH_BUILD_EXAMPLES=OFF -DGPUARCH_BUILD_BENCH=OFF \
          "-DGPUARCH_RUNTIME_UNITS=$units" "$@" > "$build/configure.log" ||
        { cat "$build/configure.log" >&2; exit 1; }
}
compile() {
    cmake --build "$build" -j "$jobs" --target "${targets[@]}" > "$build/build.log" 2>&1 ||
        { tail -n 40 "$build/build.log" >&2; exit 1; }
}

echo "build-fast-runtime.sh: 1/3 instrumented build in $build" >&2
# -fprofile-update=single: every training run simulates on one host thread (GPUARCH_HOST_THREADS=1).
configure -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=OFF \
          "-DCMAKE_CXX_FLAGS=-fprofile-generate -fprofile-update=single -fprofile-dir=$profile"
compile

run=("$build/tools/gpuarch-run/gpuarch-run")
export GPUARCH_CUDART="$build/lib/libcudart.so.13" GPUARCH_HOST_THREADS=1
# Every variant the runtime holds (gpuarch-run --list: machine, scheduler, register file) on every training program.
mapfile -t variants < <("${run[@]}" --list | tail -n +2)
if [ "${#variants[@]}" -eq 0 ]; then
    echo "build-fast-runtime.sh: the instrumented gpuarch-run lists no variants" >&2
    exit 1
fi
echo "build-fast-runtime.sh: 2/3 training: ${#variants[@]} variants x ${#training[@]} programs, $jobs at a time" >&2
train_one() { # machine scheduler register_file program
    local out
    if ! out=$("${run[@]}" --machine "$1" --scheduler "$2" --register-file "$3" --quiet -- \
        "$workloads/$4" --size small 2>&1); then
        echo "build-fast-runtime.sh: training run failed: $1 $2 $3 $4" >&2
        echo "$out" | tail -n 5 >&2
        return 1
    fi
}
failed=0
running=0
for v in "${variants[@]}"; do
    read -r machine scheduler register_file <<< "$v"
    for p in "${training[@]}"; do
        train_one "$machine" "$scheduler" "$register_file" "$p" &
        running=$((running + 1))
        if [ "$running" -ge "$jobs" ]; then
            wait -n || failed=1
            running=$((running - 1))
        fi
    done
done
while [ "$running" -gt 0 ]; do
    wait -n || failed=1
    running=$((running - 1))
done
[ "$failed" -eq 0 ] || exit 1

echo "build-fast-runtime.sh: 3/3 optimized build (-O3, link-time optimization, the profile)" >&2
# -fprofile-partial-training: code the training never ran is optimized as without a profile, not for size.
# -Wno-missing-profile: units the training never entered (the PTX parser's error paths, for one) have none.
# -Wno-error=coverage-mismatch: a profile older than a source (rebuilding this directory after an edit) is a warning,
# as the usage says, not GCC's default error.
use_profile="-fprofile-use -fprofile-partial-training -fprofile-dir=$profile"
configure -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=ON \
          "-DCMAKE_CXX_FLAGS=$use_profile -Wno-missing-profile -Wno-error=coverage-mismatch"
compile
echo "build-fast-runtime.sh: done: $build/tools/gpuarch-run/gpuarch-run" \
     "(or GPUARCH_CUDART=$build/lib/libcudart.so.13)" >&2
