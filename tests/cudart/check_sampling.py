#!/usr/bin/env python3
"""Sampled timing and fast-forward through gpuarch-run (docs/sampling.md), on tests/cudart/programs/sampling.cu:
one long launch and 30 repeated ones. Every run must print the program's `sampling: ok` (sampled runs compute what
full runs compute) and the same thread instructions per launch as the full run.

usage: check_sampling.py GPUARCH_RUN PROGRAM WORKDIR"""
import json
import os
import subprocess
import sys

run, program, workdir = sys.argv[1:4]
os.makedirs(workdir, exist_ok=True)
failures = []


def check(what, ok):
    if not ok:
        failures.append(what)


def gpuarch(name, *options, expect_rc=0):
    stats = os.path.join(workdir, name + ".json")
    cmd = [run, "--machine", "fermi", "--quiet", "--stats", stats, *options, "--", program]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != expect_rc:
        sys.exit(f"FAILED: {' '.join(cmd)} exited {p.returncode}, expected {expect_rc}\n{p.stdout}\n{p.stderr}")
    if expect_rc != 0:
        return p
    if "sampling: ok" not in p.stdout:
        sys.exit(f"FAILED: {' '.join(cmd)}: the program's check failed\n{p.stdout}\n{p.stderr}")
    with open(stats) as f:
        return json.load(f), p.stderr


full, _ = gpuarch("full")
launches = full["launches"]
check("31 launches in the full run", len(launches) == 31)
check("the full run has no sampling fields", all("sampling" not in l for l in launches))

# Runs that do not sample report nothing as sampled.
check("the full run counts no sampled launch", full["totals"]["sampled_launches"] == 0)
functional, stderr = gpuarch("functional", "--functional")
check(f"a functional run counts no sampled launch ({functional['totals']})",
      functional["totals"]["sampled_launches"] == 0 and "sampled" not in stderr)

# Sampling that samples nothing (too few batches wanted to skip any wave, every repeated launch in detail) gives
# exactly the full run.
exact, _ = gpuarch("exact", "--sample", "--set", "sample.batches=1000", "--set", "sample.launch_period=0")
check("nothing sampled: same cycles and statistics per launch",
      [(l["cycles"], l["stats"]) for l in exact["launches"]] == [(l["cycles"], l["stats"]) for l in launches])
check("nothing sampled: every launch detailed with every CTA",
      all(l["sampling"]["mode"] == "detailed" and l["sampling"]["detailed_ctas"] == l["ctas"]
          for l in exact["launches"]))

# Defaults: the long launch samples its CTAs, the repeated ones are estimated after their warm-up.
sampled, stderr = gpuarch("sampled", "--sample")
got = sampled["launches"]
check("sampled: same launches", len(got) == len(launches))
check("sampled: same thread instructions per launch",
      [l["thread_instructions"] for l in got] == [l["thread_instructions"] for l in launches])
first = got[0]["sampling"]
check(f"sampled: the long launch simulates some of its CTAs in detail ({first})",
      first["mode"] == "detailed" and 0 < first["detailed_ctas"] < got[0]["ctas"] and first["cycles_error"] > 0)
check("sampled: the long launch states an error for its statistics", "stats_error" in first)
modes = [l["sampling"]["mode"] for l in got[1:]]
check(f"sampled: the first four repeated launches in detail (two warm-up), then estimates ({modes})",
      modes[:4] == ["detailed"] * 4 and modes.count("estimated") >= 12)
total_full = full["totals"]["cycles"]
total = sampled["totals"]["cycles"]
error = sampled["totals"]["cycles_error"]
check(f"sampled: total cycles {total} within 5% of the full run's {total_full}",
      abs(total - total_full) <= 0.05 * total_full)
check(f"sampled: total cycles {total} within the stated error {error:.0f} of {total_full}",
      abs(total - total_full) <= error)
check("sampled: the totals count the sampled launches", sampled["totals"]["sampled_launches"] >= 13)
check("sampled: stderr states the error", "cycles +/-" in stderr and "launches sampled" in stderr)

# Fast-forward to launch 5 with one warm-up launch: launches 0-3 functional, 4 in detail but not counted.
ff, stderr = gpuarch("fast_forward", "--fast-forward", "5", "--set", "sample.warm_launches=1")
modes = [l["sampling"]["mode"] for l in ff["launches"]]
check(f"fast-forward: modes ({modes[:7]})",
      modes[:5] == ["fast-forward"] * 4 + ["warm-up"] and set(modes[5:]) == {"detailed"})
check("fast-forward: no cycles for fast-forwarded launches", all(l["cycles"] == 0 for l in ff["launches"][:4]))
check("fast-forward: from the target on, the full run's cycles",
      [l["cycles"] for l in ff["launches"][5:]] != [] and
      ff["totals"]["cycles"] == sum(l["cycles"] for l in ff["launches"][5:]))
check("fast-forward: 26 launches counted, 5 not", ff["totals"]["launches"] == 26 and
      ff["totals"]["uncounted_launches"] == 5)
check("fast-forward: stderr says what was not counted", "fast-forwarded or warm-up, not counted" in stderr)

# By name: the first `relax` launch (the demangled name, as the program's source spells it), cold.
named, _ = gpuarch("named", "--fast-forward", "relax(float const*, float*, int)#2")
modes = [l["sampling"]["mode"] for l in named["launches"]]
check(f"named target: polynomial and two relax launches fast-forwarded ({modes[:4]})",
      modes[:4] == ["fast-forward"] * 3 + ["detailed"])

# A target that never launches: every launch functional, and a warning says so.
never, stderr = gpuarch("never", "--fast-forward", "no_such_kernel")
check("a target that never launches leaves nothing counted", never["totals"]["launches"] == 0)
check("a target that never launches is reported", "never launched" in stderr)

# A warm-up needs an index: refused before the program starts, with the reason.
p = gpuarch("refused", "--fast-forward", "relax", "--set", "sample.warm_launches=1", expect_rc=2)
check(f"warm-up with a name target is refused ({p.stderr.strip()})", "needs a launch index" in p.stderr)

for f in failures:
    print("FAILED:", f)
print(f"check_sampling: {len(failures)} failures")
sys.exit(1 if failures else 0)
