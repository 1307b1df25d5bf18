#!/usr/bin/python3
"""Two builds of gpuarch's CUDA runtime side by side: host CPU time and exactness on the PolyBench-style workloads.

Runs each program under each scheduler with runtime A and runtime B alternately (A, B, A, B, ... for --reps
rounds, so that a host whose speed drifts treats both alike), keeps each one's fastest CPU time, and prints the
speed-up B over A per program and its geometric mean per scheduler. It also compares the two runs' `--stats` JSON
with host seconds left out and reports any difference: a change meant to be behaviour-preserving must show none.

CPU time (the process and the children it waited for, workload_runs.run_timed) rather than wall time, so that other
work on the host slows neither side; still, one run of a small input varies by several percent, so use --reps 3 or
more for figures you report. On a host whose speed drifts more than that (a shared virtual machine: session 23 saw
30% between runs of one runtime), --instructions counts the host instructions of each run instead, under valgrind's
cachegrind (deterministic, about 20 times slower, one run each; it needs the valgrind package): the ratio is A's
count over B's. It leaves out what an instruction costs (cache misses above all), so it says whether work was
removed, not what the removal is worth in time. --counts adds cachegrind's cache and branch models (about 50 times
slower) and prints three ratios per program, A's over B's: host instructions, first-level data-cache misses and
mispredicted branches. On paper-size atax the misses and mispredictions take most of the host time (session 38: a
5% cut of instructions was about 1% of CPU time), so a change should be judged by all three.

usage: bench/ab_runtimes.py --a OLD/libcudart.so.13 [--b NEW/libcudart.so.13] [--build build/default]
                            [--machine gtx480] [--schedulers a,b] [--programs a,b|all] [--size small] [--reps 1]
                            [--instructions | --counts]
B defaults to the build's own runtime (BUILD/lib/libcudart.so.13). Needs the workloads built (nvcc). The programs
default to the ten PolyBench-style ones; `--programs all` takes every workload (workloads/*/*.cu), the check
that a change meant to be behaviour-preserving left every statistic of every workload as it was."""
import argparse
import json
import math
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from workload_runs import all_workloads, gmean, run_timed, workload_command  # noqa: E402

PROGRAMS = ["atax", "bicg", "mvt", "gesummv", "gemm", "syrk", "2dconv", "fdtd2d", "2mm", "syr2k"]
SCHEDULERS = ["lrr", "gto", "two_level", "two_level_active", "swl_2", "ccws", "oaws_dynamic", "mascar", "haws"]


def without_seconds(doc):
    if isinstance(doc, dict):
        return {k: without_seconds(v) for k, v in doc.items() if "seconds" not in k}
    if isinstance(doc, list):
        return [without_seconds(v) for v in doc]
    return doc


def cachegrind_summary(stderr):
    """The traced process that ran the most instructions (the simulation; gpuarch-run only execs): its instruction
    count, then, when the cache and branch models ran, its first-level data-cache misses and mispredicted branches.
    None when valgrind printed no count."""
    by_process = {}
    patterns = [("refs", r"I\s+refs:\s+([\d,]+)"), ("misses", r"D1\s+misses:\s+([\d,]+)"),
                ("mispredicts", r"Mispredicts:\s+([\d,]+)")]
    for line in stderr.splitlines():
        pid = re.match(r"==(\d+)==", line)
        if not pid:
            continue
        for key, pattern in patterns:
            m = re.search(pattern, line)
            if m:
                by_process.setdefault(pid.group(1), {})[key] = int(m.group(1).replace(",", ""))
    with_refs = [counts for counts in by_process.values() if "refs" in counts]
    if not with_refs:
        return None
    busiest = max(with_refs, key=lambda counts: counts["refs"])
    return [busiest[key] for key, _ in patterns if key in busiest]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True, help="runtime A (a libcudart.so.13 built by gpuarch)")
    ap.add_argument("--b", default="", help="runtime B (default: BUILD/lib/libcudart.so.13)")
    ap.add_argument("--build", default="build/default", help="where gpuarch-run and the workloads are")
    ap.add_argument("--machine", default="gtx480")
    ap.add_argument("--schedulers", default=",".join(SCHEDULERS))
    ap.add_argument("--programs", default=",".join(PROGRAMS), help="a,b or all (every workload)")
    ap.add_argument("--size", default="small", choices=["small", "paper"])
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--out", default="out/ab_runtimes", help="statistics files and the PTX cache")
    ap.add_argument("--instructions", action="store_true",
                    help="compare host instruction counts under valgrind's cachegrind instead of CPU time")
    ap.add_argument("--counts", action="store_true",
                    help="compare host instructions, data-cache misses and mispredicted branches under cachegrind's "
                         "cache and branch models")
    args = ap.parse_args()
    if args.instructions and args.counts:
        print("ab_runtimes: --instructions and --counts exclude each other", file=sys.stderr)
        return 2
    counted = args.instructions or args.counts
    if counted and shutil.which("valgrind") is None:
        print("ab_runtimes: --instructions and --counts need valgrind (apt-get install valgrind)", file=sys.stderr)
        return 2
    if counted:
        args.reps = 1  # the counts are deterministic
    runtimes = {"A": os.path.abspath(args.a), "B": os.path.abspath(args.b or os.path.join(args.build, "lib",
                                                                                         "libcudart.so.13"))}
    for name, path in runtimes.items():
        if not os.path.exists(path):
            print(f"ab_runtimes: runtime {name} ({path}) does not exist", file=sys.stderr)
            return 2
    os.makedirs(args.out, exist_ok=True)
    programs = all_workloads() if args.programs == "all" else args.programs.split(",")
    differences = 0
    measure = ("host-instruction ratio" if args.instructions else
               "ratios of host instructions / data-cache misses / mispredicted branches" if args.counts else
               "CPU-time speed-up")
    print(f"{measure} of B ({runtimes['B']}) over A ({runtimes['A']}), {args.machine}, size {args.size}, "
          f"best of {args.reps}")
    for scheduler in args.schedulers.split(","):
        ratios = []
        miss_ratios, mispredict_ratios = [], []  # --counts only
        cells = []
        for program in programs:
            best = {}
            stats = {}
            model = {}  # --counts: runtime -> (data-cache misses, mispredicted branches)
            for _ in range(args.reps):
                for name, path in runtimes.items():
                    env = dict(os.environ, GPUARCH_CUDART=path, GPUARCH_HOST_THREADS="1",
                               GPUARCH_CACHE_DIR=os.path.join(args.out, "cache"))
                    stats[name] = os.path.join(args.out, f"{program}.{scheduler}.{name}.json")
                    cmd = workload_command(args.build, program, args.machine, scheduler, args.size, stats[name])
                    if counted:
                        # gpuarch-run execs the program, which loads the runtime: one traced process does the work.
                        models = ["--cache-sim=yes", "--branch-sim=yes"] if args.counts else ["--cache-sim=no"]
                        cmd = ["valgrind", "--trace-children=yes", "--tool=cachegrind"] + models + [
                            "--cachegrind-out-file=/dev/null"] + cmd
                    p, cpu = run_timed(cmd, env)
                    if counted:
                        found = cachegrind_summary(p.stderr)
                        if found is None or (args.counts and len(found) < 3):
                            print(f"ab_runtimes: valgrind printed no counts for {program} under "
                                  f"{scheduler} with runtime {name}", file=sys.stderr)
                            return 1
                        cpu = float(found[0])  # the instruction count stands in for CPU time below
                        if args.counts:
                            model[name] = (found[1], found[2])
                    if p.returncode != 0 or f"{program}: ok" not in p.stdout:
                        print(f"ab_runtimes: {program} under {scheduler} failed with runtime {name}:\n"
                              + "\n".join((p.stdout + p.stderr).strip().splitlines()[-3:]), file=sys.stderr)
                        return 1
                    best[name] = min(best.get(name, math.inf), cpu)
            with open(stats["A"]) as fa, open(stats["B"]) as fb:
                same = without_seconds(json.load(fa)) == without_seconds(json.load(fb))
            differences += 0 if same else 1
            ratios.append(best["A"] / best["B"])
            cell = f"{program} {ratios[-1]:.2f}"
            if args.counts:
                miss_ratios.append(model["A"][0] / max(model["B"][0], 1))
                mispredict_ratios.append(model["A"][1] / max(model["B"][1], 1))
                cell += f"/{miss_ratios[-1]:.2f}/{mispredict_ratios[-1]:.2f}"
            cells.append(cell + ("" if same else " (STATISTICS DIFFER)"))
        geomeans = f"{gmean(ratios):.3f}"
        if args.counts:
            geomeans += f"/{gmean(miss_ratios):.3f}/{gmean(mispredict_ratios):.3f}"
        print(f"{scheduler:18} geomean {geomeans}  " + ", ".join(cells), flush=True)
    print("statistics identical in every run" if differences == 0 else
          f"statistics differ in {differences} runs")
    return 0 if differences == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
