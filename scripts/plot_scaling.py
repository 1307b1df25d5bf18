#!/usr/bin/python3
"""Plots bench/scaling's JSON: host time against the SM count per kernel and size, and host time against simulated
work (SM-cycles = cycles x SMs), which should be a straight line through the origin when the cost is linear in
simulated work.

usage: plot_scaling.py scaling.json scaling.png
Uses Debian's python3-matplotlib (the interpreter is /usr/bin/python3 on purpose). Rows with threads > 1 are
plotted in the first panel as dashed lines (wall time); the other panels use one-thread rows and CPU time."""
import json
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(json_path: str, png_path: str) -> None:
    rows = [r for r in json.load(open(json_path)) if r["passed"]]
    if not rows:
        sys.exit("plot_scaling.py: no passing rows in " + json_path)
    series = defaultdict(list)  # (kernel, size, threads) -> [(sms, seconds)]
    for r in rows:
        seconds = r["main_thread_cpu_seconds"] if r["threads"] == 1 else r["wall_seconds"]
        series[(r["kernel"], r["size"], r["threads"])].append((r["sms"], seconds))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 5))
    for (kernel, size, threads), points in sorted(series.items()):
        points.sort()
        ax1.plot([p[0] for p in points], [p[1] for p in points], marker="o", linestyle="-" if threads == 1 else "--",
                 label=f"{kernel} ({size}{'' if threads == 1 else f', {threads} threads'})")
    ax1.set_xlabel("Fermi SMs")
    ax1.set_ylabel("host seconds (one thread: CPU; parallel: wall)")
    ax1.set_xscale("log", base=2)
    ax1.set_yscale("log")
    ax1.set_title("host time vs SM count")
    ax1.legend(fontsize=6)
    single = [r for r in rows if r["threads"] == 1]
    for size, marker in (("small", "o"), ("large", "s")):
        pts = [(r["cycles"] * r["sms"], r["main_thread_cpu_seconds"]) for r in single if r["size"] == size]
        ax2.scatter([p[0] for p in pts], [p[1] for p in pts], marker=marker, label=size)
    ax2.set_xlabel("simulated SM-cycles (cycles x SMs)")
    ax2.set_ylabel("host CPU seconds (one thread)")
    ax2.set_xscale("log")
    ax2.set_yscale("log")
    ax2.set_title("host time vs simulated work")
    ax2.legend()
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    print("wrote", png_path)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
