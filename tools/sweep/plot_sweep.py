#!/usr/bin/python3
"""Plots one column of a sweep's results.csv against a knob: a line per series, a panel per facet.

usage: plot_sweep.py RESULTS_CSV OUT_PNG --x COLUMN --y COLUMN [--series COLUMN] [--facet COLUMN]
                     [--where COLUMN=VALUE ...] [--relative-to X_VALUE]

  --y        any numeric column: cycles, ipc, thread_instructions, or a statistic such as sm.stall.idle
  --where    keep only rows with COLUMN equal to VALUE (repeatable)
  --relative-to  divide each line by its value at this x (e.g. --relative-to preset)

Only rows with status "ok" are drawn. Every other column must be constant within a (facet, series, x) cell,
else the plot would silently mix points: the script stops and names the columns to pin with --where.
Example (docs/sweeps.md):
  plot_sweep.py out/mshr_study/results.csv mshr.png --x mshr_entries --y cycles --series allocate_on_fill \\
      --facet kernel --where machine=fermi --where clustered_ctas=false
Uses Debian's python3-matplotlib (the interpreter is /usr/bin/python3 on purpose)."""
import argparse
import csv
import math
import sys
from collections import defaultdict

POINT_COLUMNS = ["machine", "scheduler", "kernel", "size", "mshr_entries", "allocate_on_fill", "clustered_ctas"]


def x_key(value: str):
    """Numbers in numeric order, then words ("preset") in text order."""
    try:
        return (0, float(value), "")
    except ValueError:
        return (1, math.inf, value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("csv")
    parser.add_argument("png")
    parser.add_argument("--x", required=True)
    parser.add_argument("--y", required=True)
    parser.add_argument("--series")
    parser.add_argument("--facet")
    parser.add_argument("--where", action="append", default=[])
    parser.add_argument("--relative-to")
    args = parser.parse_args()

    with open(args.csv, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{args.csv}: no rows")
    for column in [args.x, args.y, args.series, args.facet]:
        if column and column not in rows[0]:
            sys.exit(f"{args.csv}: no column '{column}' (columns: {', '.join(list(rows[0])[:20])}, ...)")
    for condition in args.where:
        column, _, value = condition.partition("=")
        if column not in rows[0]:
            sys.exit(f"--where {condition}: no column '{column}'")
        rows = [r for r in rows if r[column] == value]
    rows = [r for r in rows if r["status"] == "ok"]
    if not rows:
        sys.exit("no ok rows left after --where")

    used = {args.x, args.series, args.facet}
    free = [c for c in POINT_COLUMNS if c not in used]
    cells = defaultdict(list)  # (facet, series) -> [(x, y, row)]
    for r in rows:
        cells[(r[args.facet] if args.facet else "", r[args.series] if args.series else "")].append(r)
    for (facet, series), members in cells.items():
        seen = {}
        for r in members:
            other = tuple(r[c] for c in free)
            if r[args.x] in seen and seen[r[args.x]] != other:
                varying = [c for i, c in enumerate(free) if seen[r[args.x]][i] != other[i]]
                sys.exit(f"several points share x={r[args.x]} in facet '{facet}', series '{series}': they differ in "
                         f"{', '.join(varying)}; pin them with --where, or use them as --series/--facet")
            seen[r[args.x]] = other

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    facets = sorted({k[0] for k in cells}, key=x_key)
    series_names = sorted({k[1] for k in cells}, key=x_key)
    columns = min(3, len(facets))
    rows_of_panels = (len(facets) + columns - 1) // columns
    fig, axes = plt.subplots(rows_of_panels, columns, figsize=(5 * columns, 3.4 * rows_of_panels), squeeze=False)
    for ax, facet in zip(axes.flat, facets):
        # One x axis per panel, shared by its lines (a series missing an x leaves a gap, not a shifted line).
        all_x = sorted({r[args.x] for k, members in cells.items() if k[0] == facet for r in members}, key=x_key)
        for series in series_names:
            members = sorted(cells.get((facet, series), []), key=lambda r: x_key(r[args.x]))
            if not members:
                continue
            xs = [r[args.x] for r in members]
            ys = [float(r[args.y]) for r in members]
            if args.relative_to is not None:
                if args.relative_to not in xs:
                    sys.exit(f"--relative-to {args.relative_to}: facet '{facet}', series '{series}' has no such x")
                base = ys[xs.index(args.relative_to)]
                ys = [y / base if base else 0.0 for y in ys]
            label = f"{args.series}={series}" if args.series else args.y
            ax.plot([all_x.index(x) for x in xs], ys, marker="o", label=label)
        ax.set_xticks(range(len(all_x)))
        ax.set_xticklabels(all_x)
        ax.set_title(f"{args.facet}={facet}" if args.facet else args.y, fontsize=9)
        ax.set_xlabel(args.x)
        ax.set_ylabel(args.y + (f" / {args.y} at {args.relative_to}" if args.relative_to else ""))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(facets):]:
        ax.set_visible(False)
    fig.tight_layout()
    fig.savefig(args.png, dpi=110)
    print(f"wrote {args.png}")


if __name__ == "__main__":
    main()
