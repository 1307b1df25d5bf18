#!/usr/bin/env python3
"""Runs a program under gpuarch-run --timeline and checks the run directory (docs/timeline.md): the intervals tile
each launch, every counter's increments sum exactly to the launch's statistics in totals.json, the per-SM rows sum
to the GPU-wide ones, the per-line counts sum to the instruction and stall totals, and the flags that cannot work
are refused.

usage: check_timeline.py GPUARCH_RUN PROGRAM WORK_DIR
"""
import csv
import json
import os
import shutil
import subprocess
import sys
from collections import defaultdict

run, program, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
out = os.path.join(work, "run")
INTERVAL = 500
result = subprocess.run([run, "--machine", "gtx480", "--scheduler", "ccws", "--timeline", str(INTERVAL),
                         "--timeline-dir", out, "--quiet", "--", program], capture_output=True, text=True)
if result.returncode != 0:
    sys.exit(f"program failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")

with open(os.path.join(out, "meta.json")) as f:
    meta = json.load(f)
assert meta["format"] == "gpuarch-timeline 1", meta
assert meta["interval"] == INTERVAL and meta["sms"] == 15, meta
assert meta["machine"] == "gtx480" and meta["scheduler"] == "ccws", meta
assert meta["program"] == os.path.basename(program), meta
with open(os.path.join(out, "totals.json")) as f:
    totals = json.load(f)
launches = totals["launches"]
assert len(launches) >= 2, "the program should launch at least two kernels"

with open(os.path.join(out, "intervals.csv"), newline="") as f:
    rows = list(csv.DictReader(f))
counters = [c for c in rows[0] if c.startswith(("sm.", "mem."))]
by_launch = defaultdict(list)
for r in rows:
    by_launch[int(r["launch"])].append(r)
assert sorted(by_launch) == list(range(len(launches))), sorted(by_launch)

cycle = 0  # the GPU's cycles run on across launches
for i, launch in enumerate(launches):
    mine = by_launch[i]
    assert all(r["kernel"] == launch["name"] for r in mine), (mine[0]["kernel"], launch["name"])
    bounds = [(int(r["begin"]), int(r["end"])) for r in mine]
    assert bounds[0][0] == cycle and bounds[-1][1] == cycle + launch["cycles"], (bounds[0], bounds[-1], cycle)
    for (b, e), (nb, _) in zip(bounds, bounds[1:]):
        assert e - b == INTERVAL and e == nb, (b, e, nb)
    assert 0 < bounds[-1][1] - bounds[-1][0] <= INTERVAL
    cycle += launch["cycles"]
    stats = launch["stats"]
    checked = 0
    for name, value in stats.items():
        if isinstance(value, list):  # a histogram: its column is the sum of its event sizes
            column, want = name + ".sum", sum(k * b for k, b in enumerate(value))
        else:
            column, want = name, value
        got = sum(int(r[column]) for r in mine)
        assert got == want, f"launch {i} {column}: intervals sum to {got}, totals.json says {want}"
        checked += 1
    assert checked == len(counters), (checked, len(counters))
    assert sum(int(r["sm.thread_instructions"]) for r in mine) == launch["thread_instructions"]

with open(os.path.join(out, "sm_intervals.csv"), newline="") as f:
    sm_rows = list(csv.DictReader(f))
per_sm_columns = [c for c in sm_rows[0] if c not in ("launch", "begin", "end", "sm")]
assert "ready_warp_cycles" in per_sm_columns and "stall.issued" in per_sm_columns, per_sm_columns
sums = defaultdict(lambda: defaultdict(int))
sms_seen = defaultdict(set)
for r in sm_rows:
    key = (r["launch"], r["begin"])
    sms_seen[key].add(int(r["sm"]))
    for c in per_sm_columns:
        sums[key][c] += int(r[c])
assert len(sums) == len(rows), (len(sums), len(rows))
for r in rows:
    key = (r["launch"], r["begin"])
    assert sms_seen[key] == set(range(15)), sms_seen[key]
    for c in per_sm_columns:
        assert sums[key][c] == int(r["sm." + c]), f"interval {key} {c}: SMs sum to {sums[key][c]}, GPU row {r['sm.' + c]}"

# Per-line statistics: summed over every instruction of every kernel, the launches' instruction counts and stall
# outcomes (idle has no instruction); each line names a copied PTX file and the text of its line there.
with open(os.path.join(out, "lines.csv"), newline="") as f:
    lines = list(csv.DictReader(f))
def total(name):
    return sum(l["stats"][name] for l in launches)
assert sum(int(r["executions"]) for r in lines) == sum(l["warp_instructions"] for l in launches)
assert sum(int(r["thread_instructions"]) for r in lines) == sum(l["thread_instructions"] for l in launches)
assert sum(int(r["issue_cycles"]) for r in lines) == total("sm.stall.issued")
stall_columns = [c for c in lines[0] if c.startswith("stall.")]
assert len(stall_columns) == 7 and "stall.idle" not in stall_columns, stall_columns
for c in stall_columns:
    got = sum(int(r[c]) for r in lines)
    assert got == total("sm." + c), f"{c}: lines sum to {got}, totals.json says {total('sm.' + c)}"
assert {r["kernel"] for r in lines} == {l["name"] for l in launches}
for r in lines:
    with open(os.path.join(out, r["ptx_file"])) as f:
        text = f.read().split("\n")
    assert r["instruction"] == text[int(r["ptx_line"]) - 1].strip(), (r["instruction"], r["ptx_line"])
    assert int(r["l1_misses"]) <= int(r["l1_accesses"]), r
assert sum(int(r["loads"]) for r in lines) > 0

# Flags that cannot produce a timeline are refused before the program starts.
for flags, message in ((["--functional", "--timeline", "100"], "--timeline needs timing"),
                       (["--timeline-dir", os.path.join(work, "x")], "no timeline would be written")):
    bad = subprocess.run([run] + flags + ["--", program], capture_output=True, text=True)
    assert bad.returncode == 2 and message in bad.stderr, (flags, bad.returncode, bad.stderr)
# A run whose interval files would pass timeline.max_mb stops with an error that names the setting, not a full disk.
big = subprocess.run([run, "--timeline", "1", "--set", "timeline.max_mb=1", "--timeline-dir", os.path.join(work, "big"),
                      "--", program], capture_output=True, text=True)
assert big.returncode != 0 and "reached timeline.max_mb = 1 MiB" in big.stderr, (big.returncode, big.stderr[-2000:])
size = sum(os.path.getsize(os.path.join(work, "big", f)) for f in ("intervals.csv", "sm_intervals.csv"))
assert size < 2 << 20, size
print(f"timeline ok: {len(launches)} launches, {len(rows)} intervals of {INTERVAL} cycles, {len(counters)} counters "
      f"each summing to totals.json; {len(lines)} PTX lines summing to the instruction and stall totals")
