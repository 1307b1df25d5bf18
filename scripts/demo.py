#!/usr/bin/python3
"""The main job's driver: runs CUDA workloads (workloads/, built with nvcc -cudart shared) unchanged through
gpuarch-run on each machine with each scheduler, checks every program's own result check, and prints the headline
table: speedup over LRR with the L1D miss rate (GPGPU-Sim's definition, stores included) beside it. Writes
OUT/demo.csv, OUT/demo.json (every run's totals) and OUT/speedup.png.

usage: demo.py [--build DIR] [--out DIR] [--programs a,b] [--machines a,b] [--schedulers a,b]
               [--size demo|small|paper] [--jobs N]
--size demo (the default) runs each program's demo input where it has one (an input whose grid fills every SM's warp
pools; workloads/README.md) and its small input otherwise.
Uses Debian's python3-matplotlib (the interpreter is /usr/bin/python3 on purpose)."""
import argparse
import concurrent.futures
import csv
import json
import os
import sys
import time

from workload_runs import gmean, run_workload

# The programs: the memory-divergent kernels Wang 2016 measures and two coherent ones. ATAX, BICG and GESUMMV are the
# matrix-vector kernels where GTO's greed and LRR's fairness thrash a small L1 differently and throttling wins back
# locality; their square grids have n / 256 CTAs (16 at the paper's n = 4096), so they run as the paper ran them, a
# CTA or so per SM, and the table says their pools are not full. SYRK (divergent) runs its demo input, whose grid
# fills every pool; k-means (its assignment kernel) and 2DCONV (coherent) fill them at their small inputs.
PROGRAMS = ["atax", "bicg", "gesummv", "syrk", "kmeans", "2dconv"]
# Programs with a `--size demo` input (workloads/common.cuh): the rest run `--size small` under --size demo.
HAS_DEMO_INPUT = {"syrk"}
MACHINES = ["gtx480", "kepler"]
# LRR first (the baseline); the throttling schedulers limit the warps that may issue.
SCHEDULERS = ["lrr", "gto", "two_level_active", "swl_2", "ccws", "oaws_dynamic", "mascar"]
# The warp limit per scheduler each throttling policy imposes (registry names; support/src/variant_lists.hpp).
WARP_LIMIT = {"swl_2": 2, "swl_4": 4, "two_level_active": 6}


def input_size(program, size):
    """The workload input a program runs at: its demo input where it has one under --size demo, else small."""
    if size != "demo":
        return size
    return "demo" if program in HAS_DEMO_INPUT else "small"


def why_same(row, lrr):
    """Why a scheduler gave exactly LRR's cycles, in a few words (the table's footnote)."""
    limit = WARP_LIMIT.get(row["scheduler"])
    w = row["warps_per_scheduler"]
    if limit is not None and w <= limit:
        return f"at most {w:g} warps per scheduler: its limit of {limit} never binds"
    if w <= 1:
        return "one warp per scheduler: every policy issues the same warp"
    return "the same issue order (no two warps ready in the same cycle often enough to differ)"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build/default")
    ap.add_argument("--out", default="out")
    ap.add_argument("--programs", default=",".join(PROGRAMS))
    ap.add_argument("--machines", default=",".join(MACHINES))
    ap.add_argument("--schedulers", default=",".join(SCHEDULERS))
    ap.add_argument("--size", default="demo", choices=["demo", "small", "paper"])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()
    programs = args.programs.split(",")
    machines = args.machines.split(",")
    schedulers = args.schedulers.split(",")
    if "lrr" not in schedulers:
        schedulers.insert(0, "lrr")
    os.makedirs(os.path.join(args.out, "runs"), exist_ok=True)

    plan = [(p, m, s) for p in programs for m in machines for s in schedulers]
    rows = []
    tty = sys.stderr.isatty()
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(run_workload, args.build, p, m, s, input_size(p, args.size), args.out)
                   for p, m, s in plan]
        for i, f in enumerate(concurrent.futures.as_completed(futures), 1):
            r = f.result()
            rows.append(r)
            # One line per run in a log; one line rewritten in place on a terminal.
            text = (f"[{i}/{len(plan)}] {r['program']} {r['machine']} {r['scheduler']}: "
                    f"{'ok' if r['passed'] else 'FAILED'} ({r['seconds']:.1f} s)")
            print(("\r" + text + " " * 10) if tty else text, end="" if tty else "\n", file=sys.stderr, flush=True)
    done = f"{len(plan)} runs in {time.monotonic() - start:.0f} s"
    print(("\r" + done + " " * 40) if tty else done, file=sys.stderr)

    by = {(r["program"], r["machine"], r["scheduler"]): r for r in rows}
    failed = [r for r in rows if not r["passed"]]
    others = [s for s in schedulers if s != "lrr"]
    print(f"Speedup over LRR (LRR cycles / cycles) and L1D miss rate in brackets (GPGPU-Sim's definition: loads and "
          f"stores), every run checked by its program.\nwarps/sched: the warps each scheduler's pool holds in the "
          f"kernel that runs longest, of the most its occupancy allows (full when equal).")
    print()
    header = f"{'program':9} {'input':6} {'machine':9} {'warps/sched':>11} {'LRR cycles':>11} {'LRR L1':>7}"
    for s in others:
        header += f" {s:>18}"
    print(header)
    notes = []
    not_full = []
    geo = {s: [] for s in others}
    for p in programs:
        for m in machines:
            lrr = by.get((p, m, "lrr"))
            size = input_size(p, args.size)
            if lrr is None or not lrr["passed"]:
                print(f"{p:9} {size:6} {m:9} {'':>11} {'FAILED':>11}")
                continue
            held, allowed = lrr["warps_per_scheduler"], lrr["warp_pool_per_scheduler"]
            pool = f"{held:g}/{allowed:g}" + ("" if held >= allowed else "*")
            if held < allowed:
                not_full.append(f"{p} {m}: {lrr['dominant_ctas']} CTAs for {lrr['sms']} SMs that hold "
                                f"{lrr['resident_ctas_per_sm']} each")
            line = f"{p:9} {size:6} {m:9} {pool:>11} {lrr['cycles']:>11} {100 * lrr['l1_miss_rate']:>6.1f}%"
            for s in others:
                r = by.get((p, m, s))
                if r is None or not r["passed"]:
                    line += f" {'FAILED':>18}"
                    continue
                speedup = lrr["cycles"] / r["cycles"]
                geo[s].append(speedup)
                mark = ""
                if r["cycles"] == lrr["cycles"]:
                    notes.append(f"{p} {m} {s}: {why_same(r, lrr)}")
                    mark = f"[{len(notes)}]"
                cell = f"{speedup:.3f}{mark} ({100 * r['l1_miss_rate']:.1f}%)"
                line += f" {cell:>18}"
            print(line)
    line = f"{'geometric mean':>59}"
    for s in others:
        line += f" {gmean(geo[s]):>18.3f}"
    print(line)
    if not_full:
        print("\n* Pools not full: the grid is smaller than the machine. A square matrix-vector kernel (atax, bicg, "
              "mvt, gesummv) has n / 256 CTAs:\n  16 at the paper's n = 4096, about one per SM. Filling the gtx480's "
              "15 SMs would take n = 23040 (a 2 GB matrix), kepler's 14 n = 28672.")
        for n in not_full:
            print(f"  {n}")
    if notes:
        print("\nIdentical to LRR:")
        for i, n in enumerate(notes, 1):
            print(f"  [{i}] {n}")
    if failed:
        print("\nFAILED runs:")
        for r in failed:
            print(f"  {r['program']} {r['machine']} {r['scheduler']}: {' / '.join(r.get('error', []))}")

    with open(os.path.join(args.out, "demo.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["program", "input", "machine", "scheduler", "cycles", "ipc", "l1_miss_rate", "l2_miss_rate",
                    "warps_per_scheduler", "warp_pool_per_scheduler", "passed"])
        for r in sorted(rows, key=lambda r: (r["program"], r["machine"], schedulers.index(r["scheduler"]))):
            w.writerow([r["program"], r["size"], r["machine"], r["scheduler"], r.get("cycles", ""), r.get("ipc", ""),
                        r.get("l1_miss_rate", ""), r.get("l2_miss_rate", ""), r.get("warps_per_scheduler", ""),
                        r.get("warp_pool_per_scheduler", ""), int(r["passed"])])
    with open(os.path.join(args.out, "demo.json"), "w") as f:
        json.dump([{k: v for k, v in r.items() if k != "counters"} for r in rows], f, indent=1)
    plot(args, programs, machines, others, by)
    print(f"\nwrote {args.out}/demo.csv, {args.out}/demo.json and {args.out}/speedup.png")
    return 1 if failed else 0


def plot(args, programs, machines, others, by):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, len(machines), figsize=(5.5 * len(machines), 7), squeeze=False)
    width = 0.8 / max(1, len(others))
    for col, m in enumerate(machines):
        for k, s in enumerate(others):
            xs, speed, miss = [], [], []
            for i, p in enumerate(programs):
                r, lrr = by.get((p, m, s)), by.get((p, m, "lrr"))
                if r and lrr and r["passed"] and lrr["passed"]:
                    xs.append(i + (k - (len(others) - 1) / 2) * width)
                    speed.append(lrr["cycles"] / r["cycles"])
                    miss.append(100 * r["l1_miss_rate"])
            axes[0][col].bar(xs, speed, width, label=s)
            axes[1][col].bar(xs, miss, width, label=s)
        lrr_x = [i for i, p in enumerate(programs) if by.get((p, m, "lrr"), {}).get("passed")]
        lrr_miss = [100 * by[(programs[i], m, "lrr")]["l1_miss_rate"] for i in lrr_x]
        axes[1][col].scatter(lrr_x, lrr_miss, marker="_", s=400, color="black", label="lrr", zorder=3)
        axes[0][col].axhline(1.0, color="black", linewidth=0.8)
        axes[0][col].set_title(f"{m}: speedup over LRR")
        axes[1][col].set_title(f"{m}: L1D miss rate (%)")
        for row in (0, 1):
            axes[row][col].set_xticks(range(len(programs)))
            axes[row][col].set_xticklabels(programs, rotation=30)
    axes[0][-1].legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "speedup.png"), dpi=110)


if __name__ == "__main__":
    sys.exit(main())
