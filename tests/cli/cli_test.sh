#!/usr/bin/env bash
# The command-line convention (issue 24; README.md, "Command-line convention") on every executable given:
#   - `--help` exits 0 and prints a usage text that names the program's options and its exit codes;
#   - an unknown option exits 2 with exactly one line on stderr and nothing on stdout;
#   - a bad machine, scheduler or kernel name exits 2 the same way, within seconds: before any simulation;
#   - progress: in a log only a start and an end line (no carriage return), nothing with --quiet, and on a terminal
#     a bar with the total and an ETA.
#
#   cli_test.sh SOURCE_DIR NAME=PATH...
set -uo pipefail
# The few simulations below tick their SMs on one host thread: on a loaded 2-core host the parallel tick's
# spinning helper threads can stretch a 0.1 s run past the test's time limit (the results are the same either way).
export GPUARCH_HOST_THREADS=1
src=$1
shift
declare -A exe
for pair in "$@"; do exe[${pair%%=*}]=${pair#*=}; done

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The options each program's --help must name (the shared flags where the program has the thing they select).
declare -A options=(
    [compare]="--size --machines --schedulers --kernels --quiet --out --details"
    [fermi]="--size --kernels --schedulers --json --quiet"
    [kepler]="--size --kernels --schedulers --json --quiet"
    [southern_islands]="--size --kernels --schedulers --json --quiet"
    [run_kernel]="--size --list --warp-width --instruction-limit"
    [sgemm_bounds]="--quick --repro"
    [kepler_calibration]="--quick --repro --quiet"
    [narasiman_study]="--size --jobs --kernels --quick --repro --quiet --cta-threads"
    [carf_study]="--size --kernels --quick --repro --quiet"
    [oaws_study]="--size --jobs --kernels --quick --repro --quiet --only-ipc"
    [haws_study]="--size --jobs --kernels --quick --repro --quiet"
    [locality_study]="--size --jobs --kernels --quick --repro --quiet"
    [haws_hints]="--chain --max-offset --no-branches --no-rename"
    [l1_trace]="--latency"
    [sweep]="run list slurm collect point-chunk"
    [repro]="--quick --out --jobs --quiet --no-plots --no-tests"
    [sim_speed]="--size --machines --schedulers --kernels --json --quiet --threads --functional-only"
    [scaling]="--machine --sms --sizes --kernels --json --quiet --threads --repeat --barrier"
)

# Bad names, one command line per line (the program's own arguments).
ptx="$src/kernels/ptx/vector_add.ptx"
declare -A bad_names=(
    [compare]=$'--machines kepler,ampere\n--kernels vector_add,no_such_kernel\n--schedulers NoSuchScheduler\n--size medium'
    [fermi]=$'--kernels no_such_kernel\n--schedulers NoSuchScheduler'
    [kepler]=$'--kernels no_such_kernel\n--schedulers MemoryFirst'
    [southern_islands]=$'--kernels no_such_kernel\n--size medium'
    [run_kernel]=$'no_such_kernel\n--size medium vector_add'
    [narasiman_study]=$'--kernels no_such_kernel'
    [carf_study]=$'--kernels no_such_kernel'
    [oaws_study]=$'--kernels no_such_kernel\n--jobs 0'
    [haws_study]=$'--kernels no_such_kernel'
    [locality_study]=$'--kernels vector_add'
    [haws_hints]="$ptx no_such_kernel"
    [sweep]=$'no_such_command\nrun /no/such/spec.json'
    [repro]=$'no_such_paper'
    [sim_speed]=$'--machines kepler,ampere\n--schedulers NoSuchScheduler'
    [scaling]=$'--machine ampere\n--sms 3\n--kernels no_such_kernel'
)

# Runs "$@" with a time limit; stdout, stderr and status into $work.
run() {
    timeout 20 "$@" >"$work/out" 2>"$work/err"
    echo $? >"$work/status"
}
lines() { wc -l <"$1" | tr -d ' '; }

for name in "${!exe[@]}"; do
    program=${exe[$name]}
    [ -x "$program" ] || { fail "$name: no executable at $program"; continue; }

    run "$program" --help
    [ "$(cat "$work/status")" = 0 ] || fail "$name --help exited $(cat "$work/status"), expected 0"
    grep -q "^Usage: $name" "$work/out" || fail "$name --help prints no usage line on stdout"
    grep -q '^Exit status:' "$work/out" || fail "$name --help does not list the exit codes"
    grep -qE '^  2 +usage' "$work/out" || fail "$name --help does not say that 2 is a usage error"
    for option in ${options[$name]:-}; do
        grep -qE -- "(^| |,)$option( |$)" "$work/out" || fail "$name --help does not describe $option"
    done

    run "$program" --no-such-option
    [ "$(cat "$work/status")" = 2 ] || fail "$name --no-such-option exited $(cat "$work/status"), expected 2"
    [ "$(lines "$work/err")" = 1 ] || fail "$name --no-such-option printed $(lines "$work/err") lines on stderr, expected 1"
    [ -s "$work/out" ] && fail "$name --no-such-option printed on stdout"

    while IFS= read -r line; do
        [ -n "$line" ] || continue
        # shellcheck disable=SC2086 # the line is the program's arguments, split on spaces
        run "$program" $line
        status=$(cat "$work/status")
        [ "$status" = 2 ] || fail "$name $line exited $status, expected 2 (124: it ran on, i.e. it simulated)"
        [ "$(lines "$work/err")" = 1 ] || fail "$name $line printed $(lines "$work/err") lines on stderr, expected 1: $(head -c 300 "$work/err")"
        [ -s "$work/out" ] && fail "$name $line printed on stdout (simulation output before the name was checked)"
    done <<<"${bad_names[$name]:-}"
done

# Subcommands follow it too.
if [ -n "${exe[sweep]:-}" ]; then
    run "${exe[sweep]}" run --help
    [ "$(cat "$work/status")" = 0 ] && grep -q -- '--jobs' "$work/out" || fail "sweep run --help does not describe --jobs"
fi

# Progress, on a machine example's smallest run (well under a second).
if [ -n "${exe[fermi]:-}" ]; then
    args=(--kernels vector_add --schedulers GTO,LRR)
    "${exe[fermi]}" "${args[@]}" >"$work/out" 2>"$work/log"
    [ "$(lines "$work/log")" = 2 ] || fail "fermi wrote $(lines "$work/log") progress lines into a log, expected 2 (start, end)"
    grep -q $'\r' "$work/log" && fail "fermi wrote a carriage return into a log"
    grep -q '^fermi: 2 runs$' "$work/log" || fail "fermi's start line does not give the total: $(head -1 "$work/log")"
    grep -q '^fermi: 2 runs done in .*, 0 failed$' "$work/log" || fail "fermi's end line: $(tail -1 "$work/log")"
    "${exe[fermi]}" "${args[@]}" --quiet >"$work/out" 2>"$work/log"
    [ -s "$work/log" ] && fail "fermi --quiet still wrote on stderr: $(head -c 200 "$work/log")"
    # On a terminal (script(1) gives it one; its stdin closed, or it would wait for input): a bar with done/total
    # and an ETA.
    if command -v script >/dev/null; then
        script -qec "$(printf '%q ' "${exe[fermi]}" "${args[@]}") >/dev/null" /dev/null >"$work/tty" 2>&1 </dev/null
        grep -q 'fermi: \[#*\] 2/2 100% .*ETA' "$work/tty" || fail "fermi draws no progress bar with a total and an ETA on a terminal"
    fi
fi

if [ "$failures" -ne 0 ]; then
    echo "$failures failure(s)"
    exit 1
fi
echo "the command-line convention holds for: ${!exe[*]}"
