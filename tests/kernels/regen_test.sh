#!/usr/bin/env bash
# kernels/regen must fail on a kernel the simulator cannot run, however nvcc breaks the offending call over lines.
# 1. kernels/check_ptx on checked-in nvcc 13 output: printf and assert (calls spread over 6 and 7 lines) are
#    refused with their line; a plain kernel, the kernel corpus and tests/ptx/data pass; the feature kernels pass
#    with --features only (device malloc/free, cp.async).
# 2. With nvcc on PATH (or NVCC/CUDA_BIN set), kernels/regen end to end into a scratch folder: it exits non-zero
#    on unrunnable.cu and zero on runnable.cu. Without nvcc this part is skipped (exit 77 if part 1 passed).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
data="$root/tests/kernels/data"
check="$root/kernels/check_ptx"
fail() { echo "FAIL: $*" >&2; exit 1; }

out="$("$check" "$data/unrunnable.ptx" 2>&1)" && fail "check_ptx accepted unrunnable.ptx"
grep -q "unrunnable.ptx:65: call.uni (retval0), vprintf, " <<< "$out" || fail "printf call not reported at line 65: $out"
grep -q "unrunnable.ptx:113: call.uni __assertfail, " <<< "$out" || fail "assert call not reported at line 113: $out"
"$check" "$data/runnable.ptx" "$root"/kernels/ptx/*.ptx "$root"/tests/ptx/data/*.ptx || fail "check_ptx refused runnable PTX"
echo "check_ptx: refuses printf/assert, accepts the corpus"
# The feature kernels use what only --features allows: device malloc/free and cp.async (issue 20).
"$check" --features "$root"/kernels/features/*.ptx || fail "check_ptx --features refused a feature kernel"
out="$("$check" "$root/kernels/features/malloc.ptx" "$root/kernels/features/cp_async.ptx" 2>&1)" &&
    fail "check_ptx accepted device malloc and cp.async outside --features"
grep -q "calls 'malloc', which has no body" <<< "$out" || fail "malloc call not reported: $out"
grep -q "calls 'free', which has no body" <<< "$out" || fail "free call not reported: $out"
grep -q "cp_async.ptx:[0-9]*: cp.async.cg.shared.global" <<< "$out" || fail "cp.async not reported: $out"
echo "check_ptx --features: accepts device malloc/free and cp.async, which the corpus mode refuses"

nvcc="${NVCC:-$(command -v nvcc || true)}"
if [ -z "$nvcc" ] && [ -n "${CUDA_BIN:-}" ]; then nvcc="$CUDA_BIN/nvcc"; fi
if [ -z "$nvcc" ] || [ ! -x "$nvcc" ]; then
    echo "regen end to end: skipped (no nvcc)"
    exit 77
fi
ptxas="${PTXAS:-$(dirname "$nvcc")/ptxas}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/bad" "$scratch/good"
cp "$data/unrunnable.cu" "$scratch/bad/"
cp "$data/runnable.cu" "$scratch/good/"
KERNELS_SRC_DIR="$scratch/bad" KERNELS_PTX_DIR="$scratch/bad_out" NVCC="$nvcc" PTXAS="$ptxas" \
    "$root/kernels/regen" > "$scratch/bad.log" 2>&1 && fail "regen exited 0 on unrunnable.cu: $(cat "$scratch/bad.log")"
grep -q "vprintf" "$scratch/bad.log" || fail "regen's message does not name vprintf: $(cat "$scratch/bad.log")"
grep -q "__assertfail" "$scratch/bad.log" || fail "regen's message does not name __assertfail: $(cat "$scratch/bad.log")"
KERNELS_SRC_DIR="$scratch/good" KERNELS_PTX_DIR="$scratch/good_out" NVCC="$nvcc" PTXAS="$ptxas" \
    "$root/kernels/regen" > "$scratch/good.log" 2>&1 || fail "regen failed on runnable.cu: $(cat "$scratch/good.log")"
echo "regen: fails on printf/assert, succeeds on a plain kernel"
