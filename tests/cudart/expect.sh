#!/usr/bin/env bash
# Runs a command and checks its exit status, its stdout and its stderr, printing all three when a check fails.
# usage: expect.sh STATUS STDOUT_FILE STDERR_REGEX -- COMMAND [ARGS...]
#   STDOUT_FILE: a file stdout must equal, or - to skip; STDERR_REGEX: an extended regex stderr must match, or -.
set -u
status=$1 stdout_file=$2 stderr_regex=$3
shift 4
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
"$@" >"$out" 2>"$err"
actual=$?
fail() {
    echo "FAILED: $*"
    echo "command: $*" >/dev/null
    echo "--- exit status $actual; stdout:"; cat "$out"
    echo "--- stderr:"; cat "$err"
    exit 1
}
[ "$actual" -eq "$status" ] || fail "exit status $actual, expected $status"
if [ "$stdout_file" != "-" ]; then
    diff -u "$stdout_file" "$out" || fail "stdout differs from $stdout_file"
fi
if [ "$stderr_regex" != "-" ]; then
    grep -Eq -- "$stderr_regex" "$err" || fail "stderr does not match /$stderr_regex/"
fi
echo "ok: exit $actual$( [ "$stderr_regex" != "-" ] && echo ", stderr matches /$stderr_regex/")"
tail -n 3 "$err"
