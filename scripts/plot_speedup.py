#!/usr/bin/python3
"""Plots speedup over LRR per kernel for each machine from the comparison demo's CSV.

usage: plot_speedup.py out/compare.csv out/speedup.png
Uses Debian's python3-matplotlib (the interpreter is /usr/bin/python3 on purpose)."""
import csv
import math
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(csv_path: str, png_path: str) -> None:
    cycles = defaultdict(dict)  # (machine, kernel) -> scheduler -> cycles
    order_kernels, order_machines, order_scheds = [], [], []
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            key = (row["machine"], row["kernel"])
            cycles[key][row["scheduler"]] = int(row["cycles"])
            for value, order in ((row["kernel"], order_kernels), (row["machine"], order_machines),
                                 (row["scheduler"], order_scheds)):
                if value not in order:
                    order.append(value)
    others = [s for s in order_scheds if s != "LRR"]
    fig, axes = plt.subplots(len(order_machines), 1, figsize=(max(10, 0.55 * len(order_kernels)), 3.2 * len(order_machines)),
                             squeeze=False)
    width = 0.8 / max(1, len(others))
    for ax, machine in zip(axes[:, 0], order_machines):
        for i, sched in enumerate(others):
            values = []
            for kernel in order_kernels:
                c = cycles.get((machine, kernel), {})
                values.append(c["LRR"] / c[sched] if c.get(sched) and c.get("LRR") else 0.0)
            positions = [k + (i - (len(others) - 1) / 2) * width for k in range(len(order_kernels))]
            logs = [math.log(v) for v in values if v > 0]
            gmean = math.exp(sum(logs) / len(logs)) if logs else 0.0
            ax.bar(positions, values, width, label=f"{sched} (geomean {gmean:.3f})")
        ax.axhline(1.0, color="black", linewidth=0.8)
        # Speedups cluster around 1: zoom the axis onto them so differences of a few percent are visible.
        drawn = [p.get_height() for p in ax.patches if p.get_height() > 0]
        if drawn:
            ax.set_ylim(min(0.95, min(drawn) - 0.02), max(1.05, max(drawn) + 0.02))
        ax.set_title(f"{machine}: speedup over LRR")
        ax.set_ylabel("speedup")
        ax.set_xticks(range(len(order_kernels)))
        ax.set_xticklabels(order_kernels, rotation=45, ha="right", fontsize=8)
        ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)
    print(f"wrote {png_path}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
