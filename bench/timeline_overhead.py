#!/usr/bin/python3
"""What interval statistics cost (docs/timeline.md): each program run unchanged through gpuarch-run with and
without --timeline N, one simulation at a time, alternating the two so that a busy host slows both alike; the
figure is the ratio of the best (least) host CPU seconds of each, over --repeat runs.

usage: bench/timeline_overhead.py [--build DIR] [--programs a,b] [--machine M] [--scheduler S] [--interval N]
                                  [--repeat K] [--size small|demo]
Needs the workloads built (cmake --build build/default --target gpuarch-run gpuarch_workloads) and nvcc."""
import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile


def cpu_seconds(cmd):
    """Runs cmd; its children's user + system CPU seconds (the simulator runs in the program's own process)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = subprocess.run(cmd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{result.stderr[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build/default")
    ap.add_argument("--programs", default="atax,gesummv,syrk,kmeans,2dconv,bfs")
    ap.add_argument("--machine", default="gtx480")
    ap.add_argument("--scheduler", default="gto")
    ap.add_argument("--interval", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--size", default="demo", help="demo where a program has it, else small")
    args = ap.parse_args()
    run = os.path.join(args.build, "tools", "gpuarch-run", "gpuarch-run")
    work = tempfile.mkdtemp(prefix="timeline_overhead.")
    print(f"| program | input | without (s) | with --timeline {args.interval} (s) | overhead | intervals |")
    print("|---|---|---|---|---|---|")
    ratios = []
    for program in args.programs.split(","):
        exe = os.path.join(args.build, "workloads", program)
        usage = subprocess.run([exe, "--help"], capture_output=True, text=True)  # "usage: P [--size a|b]"
        sizes = (usage.stdout + usage.stderr).partition("--size ")[2].split("]")[0].split("|")
        size = args.size if args.size in sizes else "small"
        base = [run, "--machine", args.machine, "--scheduler", args.scheduler, "--quiet"]
        tdir = os.path.join(work, program)
        plain, timed = [], []
        for _ in range(args.repeat):
            plain.append(cpu_seconds(base + ["--", exe, "--size", size]))
            timed.append(cpu_seconds(base + ["--timeline", str(args.interval), "--timeline-dir", tdir, "--", exe,
                                             "--size", size]))
        with open(os.path.join(tdir, "intervals.csv")) as f:
            intervals = sum(1 for _ in f) - 1
        ratio = min(timed) / min(plain)
        ratios.append(ratio)
        print(f"| {program} | {size} | {min(plain):.2f} | {min(timed):.2f} | {100 * (ratio - 1):+.1f}% | {intervals} |")
    geo = 1.0
    for r in ratios:
        geo *= r
    geo **= 1.0 / len(ratios)
    print(f"\ngeometric mean overhead {100 * (geo - 1):+.1f}%, worst {100 * (max(ratios) - 1):+.1f}% "
          f"({args.machine}, {args.scheduler}, best of {args.repeat})")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
