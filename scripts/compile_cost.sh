#!/usr/bin/env bash
# Compile cost (issues 4 and 11): compile time and peak compiler memory of every translation unit of the full
# build (library tests, examples, example variants, benchmarks), one compiler process per TU under
# /usr/bin/time -v. Limits checked: no TU above 2 GiB peak resident memory or 90 s of compiler CPU time (user +
# system: on a shared host, wall time measures the other load as much as the compiler, so it is reported, not
# checked).
#
#   scripts/compile_cost.sh [BUILD_DIR] [JOBS]      (defaults: /tmp/gpuarch-compile-cost, 1)
#
# Configures BUILD_DIR with the default preset and compile_commands.json, then runs each compile command itself
# (JOBS at a time; 1 gives the cleanest times). Prints a table sorted by peak memory, writes
# BUILD_DIR/compile_cost.csv and exits 1 when a TU breaks a limit. Wall times depend on host load: report it
# (the script prints the load average before and after).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-/tmp/gpuarch-compile-cost}
jobs=${2:-1}
limit_kib=$((2 * 1024 * 1024))
limit_s=90
[[ -x /usr/bin/time ]] || { echo "compile_cost.sh needs GNU time (/usr/bin/time, Debian package 'time')" >&2; exit 2; }
cmake --preset default -B "$build" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
# Generated headers and the doctest main are prerequisites of nothing we time; build nothing else first.
out="$build/compile_cost"
rm -rf "$out" && mkdir -p "$out"
python3 - "$build/compile_commands.json" "$out" <<'PY'
import json, sys, os
entries = json.load(open(sys.argv[1]))
with open(os.path.join(sys.argv[2], "commands.txt"), "w") as f:
    for i, e in enumerate(entries):
        src = os.path.relpath(e["file"], os.getcwd())
        cmd = e.get("command") or " ".join(e["arguments"])
        # Compile to a scratch object so the real build tree is untouched.
        cmd = cmd.replace(" -o " + e.get("output", "\0"), " -o /dev/null") if e.get("output") else cmd
        f.write(f"{i}\t{e['directory']}\t{src}\t{cmd}\n")
PY
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
run_one() {
    local line=$1 out=$2
    local i dir src cmd
    IFS=$'\t' read -r i dir src cmd <<<"$line"
    (cd "$dir" && /usr/bin/time -v -o "$out/$i.time" bash -c "$cmd" >"$out/$i.log" 2>&1) || echo "$src" >>"$out/failed"
    echo "$src" >"$out/$i.src"
}
export -f run_one
tr '\n' '\0' <"$out/commands.txt" | xargs -0 -P "$jobs" -I{} bash -c 'run_one "$1" "$2"' _ {} "$out"
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out" "$limit_kib" "$limit_s" "$build/compile_cost.csv" <<'PY'
import glob, os, re, sys
out, limit_kib, limit_s, csv_path = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
rows = []
for t in glob.glob(os.path.join(out, "*.time")):
    i = os.path.basename(t)[:-5]
    text = open(t).read()
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", text).group(1)
    parts = [float(p) for p in wall.split(":")]
    seconds = sum(p * 60 ** k for k, p in enumerate(reversed(parts)))
    user = float(re.search(r"User time \(seconds\): ([\d.]+)", text).group(1))
    sysr = float(re.search(r"System time \(seconds\): ([\d.]+)", text).group(1))
    src = open(os.path.join(out, i + ".src")).read().strip()
    rows.append((src, seconds, user + sysr, rss))
rows.sort(key=lambda r: -r[3])
bad = [r for r in rows if r[3] > limit_kib or r[2] > limit_s]
print(f"{'translation unit':60} {'wall s':>8} {'cpu s':>8} {'peak MiB':>9}")
for src, wall, cpu, rss in rows:
    flag = "  OVER LIMIT" if (src, wall, cpu, rss) in bad else ""
    print(f"{src:60} {wall:8.1f} {cpu:8.1f} {rss / 1024:9.0f}{flag}")
print(f"{len(rows)} TUs, total CPU {sum(r[2] for r in rows):.0f} s, max wall {max(r[1] for r in rows):.1f} s, "
      f"max peak {max(r[3] for r in rows) / 1024:.0f} MiB")
with open(csv_path, "w") as f:
    f.write("tu,wall_seconds,cpu_seconds,peak_rss_kib\n")
    for src, wall, cpu, rss in rows:
        f.write(f"{src},{wall:.2f},{cpu:.2f},{rss}\n")
failed = os.path.join(out, "failed")
# tests/failtest/*.cpp appear twice in the compile database; the copy built with GPUARCH_FAILTEST_SHOULD_FAIL
# must fail (that is the test), so only other failures count.
unexpected = [f for f in (open(failed).read().split() if os.path.exists(failed) else [])
              if not f.startswith("tests/failtest/")]
if unexpected:
    print("failed to compile:", " ".join(unexpected))
    sys.exit(1)
sys.exit(1 if bad else 0)
PY
