#!/usr/bin/env python3
"""Sampled timing's real error and speed-up (docs/sampling.md): each workload at the given size, full and with
`gpuarch-run --sample`, on one machine and scheduler. Prints a table (cycles, real and stated error, speed-up in
CPU time, and the wall seconds of each run) and writes it as JSON.

usage: bench/sampling.py [--build build/default] [--machine gtx480] [--scheduler gto] [--size paper]
                         [--programs a,b,...] [--jobs 2] [--json out.json] [--sample-option --set ...]

Full runs at the paper sizes take from seconds to hours (docs/performance.md): pick programs that finish."""
import argparse
import concurrent.futures
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from workload_runs import all_workloads, gmean, run_workload  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--build", default="build/default")
parser.add_argument("--machine", default="gtx480")
parser.add_argument("--scheduler", default="gto")
parser.add_argument("--size", default="paper")
parser.add_argument("--programs", default="")
parser.add_argument("--jobs", type=int, default=2)
parser.add_argument("--json", default="")
parser.add_argument("--out", default="out/sampling")
parser.add_argument("--sample-option", action="append", default=[],
                    help="extra gpuarch-run option for the sampled run (repeatable), e.g. --set=sample.batches=20")
args = parser.parse_args()

programs = [p for p in args.programs.split(",") if p] or all_workloads()

jobs = [(p, tag) for p in programs for tag in ("full", "sampled")]
with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
    futures = {job: pool.submit(run_workload, args.build, job[0], args.machine, args.scheduler, args.size, args.out,
                                ["--sample", *args.sample_option] if job[1] == "sampled" else [], "." + job[1])
               for job in jobs}
    results = {job: f.result() for job, f in futures.items()}

rows = []
print(f"{'program':14} {'full cycles':>12} {'sampled':>12} {'error':>8} {'stated':>8} {'speed-up':>8} "
      f"{'full s':>8} {'sampled s':>9}  sampled launches")
for p in programs:
    full, part = results[(p, "full")], results[(p, "sampled")]
    if not (full["passed"] and part["passed"]):
        print(f"{p:14} FAILED: {full.get('error') or part.get('error')}")
        rows.append({"program": p, "passed": False})
        continue
    error = (part["cycles"] - full["cycles"]) / full["cycles"]
    stated = part["cycles_error"] / full["cycles"]
    # CPU seconds where both runs have them (workload_runs.run_timed): wall time also counts whatever else the host
    # ran meanwhile.
    cpu = "cpu_seconds" in full and "cpu_seconds" in part
    speedup = full["cpu_seconds"] / part["cpu_seconds"] if cpu else full["seconds"] / part["seconds"]
    rows.append({"program": p, "passed": True, "full_cycles": full["cycles"], "sampled_cycles": part["cycles"],
                 "error": error, "stated_error": stated, "speedup": speedup, "full_seconds": full["seconds"],
                 "sampled_seconds": part["seconds"], "full_cpu_seconds": full.get("cpu_seconds"),
                 "sampled_cpu_seconds": part.get("cpu_seconds"), "speedup_measure": "cpu" if cpu else "wall",
                 "insn_equal": full["insn"] == part["insn"],
                 "sampled_launches": part["sampled_launches"], "launches": part["launches"]})
    print(f"{p:14} {full['cycles']:>12} {part['cycles']:>12} {100 * error:>+7.2f}% {100 * stated:>7.2f}% "
          f"{speedup:>7.2f}x {full['seconds']:>8.1f} {part['seconds']:>9.1f}  {part['sampled_launches']} of "
          f"{part['launches']}{'' if full['insn'] == part['insn'] else '  INSTRUCTIONS DIFFER'}")
ok = [r for r in rows if r["passed"]]
if ok:
    print(f"worst |error| {100 * max(abs(r['error']) for r in ok):.2f}%, error within the stated bound in "
          f"{sum(abs(r['error']) <= r['stated_error'] for r in ok)} of {len(ok)}, speed-up geomean "
          f"{gmean([r['speedup'] for r in ok]):.2f}x")
if args.json:
    with open(args.json, "w") as f:
        json.dump({"machine": args.machine, "scheduler": args.scheduler, "size": args.size, "rows": rows}, f,
                  indent=1)
sys.exit(0 if all(r["passed"] and r["insn_equal"] for r in rows) else 1)
