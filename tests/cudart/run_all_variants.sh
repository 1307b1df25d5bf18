#!/usr/bin/env bash
# Runs a CUDA program on every prebuilt variant gpuarch-run lists; fails on the first variant whose run fails.
# usage: run_all_variants.sh GPUARCH_RUN PROGRAM [ARGS...]
set -euo pipefail
run=$1
shift
count=0
while read -r machine scheduler register_file; do
    if ! "$run" --quiet --machine "$machine" --scheduler "$scheduler" --register-file "$register_file" -- "$@" \
        >/dev/null 2>"${TMPDIR:-/tmp}/gpuarch_variant.err"; then
        echo "FAILED on $machine / $scheduler / $register_file:"
        cat "${TMPDIR:-/tmp}/gpuarch_variant.err"
        exit 1
    fi
    tail -n 1 "${TMPDIR:-/tmp}/gpuarch_variant.err"
    count=$((count + 1))
done < <("$run" --list | tail -n +2)
echo "$count variants passed"
[ "$count" -gt 0 ]
