#!/usr/bin/python3
"""Draws the `plots` entries of study reproduction files (support/include/gpuarch/support/repro.hpp) as PNG.

usage: plot_repro.py OUT_DIR study.json [study.json ...]
Each plot is {"file", "title", "kind": "bar"|"line", "ylabel", "labels": [...], "series": {name: [values]}};
a null value is drawn as a gap. Uses Debian's python3-matplotlib (the interpreter is /usr/bin/python3 on purpose)."""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def draw(plot: dict, out_dir: str) -> str:
    labels = plot["labels"]
    series = plot["series"]
    if not labels or not series:
        raise ValueError(f"plot {plot.get('file')} has no labels or no series")
    for name, values in series.items():
        if len(values) != len(labels):
            raise ValueError(f"plot {plot['file']}: series {name} has {len(values)} values for {len(labels)} labels")
    fig, ax = plt.subplots(figsize=(max(6.0, 0.6 * len(labels) * max(1, len(series)) / 2 + 3), 4.2))
    positions = list(range(len(labels)))
    if plot.get("kind", "bar") == "line":
        for name, values in series.items():
            points = [(x, v) for x, v in zip(positions, values) if v is not None]
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=name)
    else:
        width = 0.8 / len(series)
        for i, (name, values) in enumerate(series.items()):
            xs = [x + (i - (len(series) - 1) / 2) * width for x in positions]
            ax.bar([x for x, v in zip(xs, values) if v is not None], [v for v in values if v is not None], width,
                   label=name)
    if "speedup" in plot.get("ylabel", "") or "/ GTO" in plot.get("ylabel", ""):
        ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(positions)
    ax.set_xticklabels(labels, rotation=35 if max(len(str(l)) for l in labels) > 4 else 0, ha="right", fontsize=8)
    ax.set_ylabel(plot.get("ylabel", ""))
    ax.set_title(plot.get("title", ""), fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = os.path.join(out_dir, plot["file"])
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def main(out_dir: str, files: list) -> None:
    os.makedirs(out_dir, exist_ok=True)
    for f in files:
        with open(f) as handle:
            data = json.load(handle)
        for plot in data.get("plots", []):
            print(f"wrote {draw(plot, out_dir)}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
