#!/bin/sh
# gpuarch-report on real runs, end to end: a CUDA program recorded by gpuarch-run --timeline under two schedulers,
# then tests/report/test_report.py on those run directories (the page's checks, and the browser test where Chromium
# is there; exit 77, skipped, where it is not).
# usage: check_real_runs.sh GPUARCH_RUN PROGRAM GPUARCH_REPORT WORK_DIR
set -eu
run=$1 program=$2 report=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
for scheduler in gto lrr; do
    "$run" --machine gtx480 --scheduler "$scheduler" --timeline 200 --timeline-dir "$work/$scheduler" --quiet \
        -- "$program" > /dev/null
done
exec python3 "$(dirname "$0")/test_report.py" --report "$report" --work-dir "$work/test" \
    --run "$work/gto" --run "$work/lrr"
