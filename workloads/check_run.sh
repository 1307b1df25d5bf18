#!/usr/bin/env bash
# Runs a workload through gpuarch-run and passes when it exits 0 and its stdout has "<name>: ok".
# usage: check_run.sh NAME -- COMMAND [ARGS...]
set -u
name=$1
shift 2
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
"$@" >"$out" 2>"$err"
status=$?
if [ "$status" -ne 0 ] || ! grep -q "^$name: ok" "$out"; then
    echo "FAILED: exit status $status; stdout:"; cat "$out"
    echo "--- stderr:"; cat "$err"
    exit 1
fi
cat "$out"
grep -E '^\[gpuarch\] total' "$err" || true
