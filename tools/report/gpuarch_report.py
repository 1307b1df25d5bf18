#!/usr/bin/python3
"""gpuarch-report: one self-contained HTML page (and, with --png, PNG figures) from gpuarch-run timeline runs.

usage: gpuarch-report RUN [RUN...] [-o report.html] [--png DIR] [--title T]

Each RUN is a directory written by `gpuarch-run --timeline N --timeline-dir RUN` (meta.json, intervals.csv,
sm_intervals.csv, totals.json and optionally lines.csv; docs/timeline.md). Several runs are drawn on one cycle axis,
so that two schedulers or machines can be compared. The HTML page needs no network: the data is embedded as JSON and
the vendored uPlot (third_party/uplot) is inlined. The HTML path uses only the Python standard library; --png needs
matplotlib (Debian's python3-matplotlib, which is why the interpreter is /usr/bin/python3).
"""
from __future__ import annotations

import argparse
import csv
import html
import json
import math
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

PROGRAM = "gpuarch-report"
RUN_FORMAT = "gpuarch-timeline 1"
REQUIRED_FILES = ("meta.json", "intervals.csv", "sm_intervals.csv", "totals.json")
# Above this many intervals a run's series are merged (adjacent intervals of one launch summed) for plotting: the
# page stays a few MB and the browser draws it at once. Sums keep every ratio exact over the merged span.
MAX_PLOT_INTERVALS = 5000
TOP_LINES = 20
# Significant digits kept for plotted values: the page's size, not the data's precision, is what this trades.
PLOT_DIGITS = 4

# The scheduler's per-issue-slot outcome, in the order they are stacked (issued at the bottom, idle on top).
# Columns named sm.stall.* that are not listed here are stacked after them, so a new reason is never lost.
WARP_STATES = ("issued", "raw_long_latency", "raw_other", "memory_pipeline", "structural", "bank_conflict",
               "barrier", "ibuffer_empty", "idle")
WARP_STATE_COLORS = {
    "issued": "#2ca02c", "raw_long_latency": "#d62728", "raw_other": "#ff9896", "memory_pipeline": "#9467bd",
    "structural": "#8c564b", "bank_conflict": "#e377c2", "barrier": "#bcbd22", "ibuffer_empty": "#17becf",
    "idle": "#d9d9d9",
}
EXTRA_STATE_COLORS = ("#7f7f7f", "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5", "#c5b0d5")
# One colour per run (the first ones are colour-blind safe; Okabe and Ito).
RUN_COLORS = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#f0e442")
# Columns of the CSV files that hold text; every other column is a number (or empty).
TEXT_COLUMNS = frozenset({"kernel", "ptx_file", "instruction"})

EXIT_USAGE = 2
EXIT_FAILED = 1


class UsageError(Exception):
    """A command-line or input problem: printed as one line, exit 2 (README.md, "Command-line convention")."""


class RunError(UsageError):
    """A RUN that is not a readable timeline run directory: exit 2, with the file and what is wrong with it."""


class Failure(Exception):
    """The report could not be made (a file could not be written, a dependency is missing): exit 1."""


# ---------------------------------------------------------------------------------------------------------------
# Reading a run directory


@dataclass
class Table:
    """A CSV file held by column: name -> one value per row (int, float, str for TEXT_COLUMNS, None if empty)."""

    columns: dict
    rows: int

    def has(self, name: str) -> bool:
        return name in self.columns

    def missing(self, names) -> list:
        return [name for name in names if name not in self.columns]


def parse_cell(text: str, column: str, where: str):
    if column in TEXT_COLUMNS:
        return text
    if text == "":
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise RunError(f"{where}: column {column}: '{text}' is not a number") from None


def read_csv(path: Path, required: tuple, wanted=None) -> Table:
    """The file's columns; with `wanted` (a predicate on the name) only those it accepts: a real intervals.csv has
    130 counters and sm_intervals.csv a row per SM and interval, of which the report draws a few."""
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if not header:
            raise RunError(f"{path}: empty file (no header line)")
        absent = [name for name in required if name not in header]
        if absent:
            raise RunError(f"{path}: no column {', '.join(absent)} in the header")
        kept = [(i, name) for i, name in enumerate(header) if wanted is None or name in required or wanted(name)]
        columns = {name: [] for _, name in kept}
        rows = 0
        for row in reader:
            if not row:
                continue
            if len(row) != len(header):
                raise RunError(f"{path}:{reader.line_num}: {len(row)} fields, the header has {len(header)}")
            for i, name in kept:
                columns[name].append(parse_cell(row[i], name, f"{path}:{reader.line_num}"))
            rows += 1
    return Table(columns, rows)


def read_json(path: Path) -> dict:
    try:
        with path.open(encoding="utf-8") as f:
            value = json.load(f)
    except json.JSONDecodeError as error:
        raise RunError(f"{path}: not valid JSON ({error})") from None
    if not isinstance(value, dict):
        raise RunError(f"{path}: expected a JSON object")
    return value


@dataclass
class Run:
    path: Path
    meta: dict
    intervals: Table
    sm_intervals: Table
    totals: dict
    lines: Table | None
    label: str = ""
    color: str = ""


def load_run(path: Path) -> Run:
    if not path.is_dir():
        raise RunError(f"{path}: not a directory (expected a run directory from gpuarch-run --timeline-dir)")
    for name in REQUIRED_FILES:
        if not (path / name).is_file():
            raise RunError(f"{path}: not a timeline run directory: {path / name} is missing "
                             "(gpuarch-run --timeline N --timeline-dir DIR writes it)")
    meta = read_json(path / "meta.json")
    if meta.get("format") != RUN_FORMAT:
        raise RunError(f"{path / 'meta.json'}: format {meta.get('format')!r}, this {PROGRAM} reads '{RUN_FORMAT}'")
    intervals = read_csv(path / "intervals.csv", ("launch", "kernel", "begin", "end"), drawn_gpu_column)
    if intervals.rows == 0:
        raise RunError(f"{path / 'intervals.csv'}: no intervals (the run simulated no launch in detail)")
    sm_intervals = read_csv(path / "sm_intervals.csv", ("launch", "begin", "end", "sm"),
                            lambda name: name in SM_IPC.columns())
    totals = read_json(path / "totals.json")
    lines_path = path / "lines.csv"
    lines = read_csv(lines_path, ("kernel", "instruction")) if lines_path.is_file() else None
    return Run(path, meta, sort_by_begin(intervals, path / "intervals.csv"), sm_intervals, totals, lines)


def sort_by_begin(table: Table, where: Path) -> Table:
    """Intervals in cycle order; overlapping intervals cannot be drawn on one axis, so they are refused."""
    order = sorted(range(table.rows), key=lambda i: (table.columns["begin"][i], table.columns["launch"][i]))
    columns = {name: [values[i] for i in order] for name, values in table.columns.items()}
    begins, ends = columns["begin"], columns["end"]
    for i in range(table.rows):
        if not isinstance(begins[i], int) or not isinstance(ends[i], int) or ends[i] < begins[i]:
            raise RunError(f"{where}: interval {begins[i]}..{ends[i]} of launch {columns['launch'][i]} is not a "
                             "cycle range")
        if i + 1 < table.rows and begins[i + 1] < ends[i]:
            raise RunError(f"{where}: intervals {begins[i]}..{ends[i]} and {begins[i + 1]}..{ends[i + 1]} overlap")
    return Table(columns, table.rows)


def label_runs(runs: list) -> None:
    """Each run is named by its directory, scheduler and machine; equal names get #2, #3 so the legends differ."""
    seen = {}
    for index, run in enumerate(runs):
        base = f"{run.path.resolve().name} ({run.meta.get('scheduler', '?')}, {run.meta.get('machine', '?')})"
        seen[base] = seen.get(base, 0) + 1
        run.label = base if seen[base] == 1 else f"{base} #{seen[base]}"
        run.color = RUN_COLORS[index % len(RUN_COLORS)]


# ---------------------------------------------------------------------------------------------------------------
# Merging intervals (downsampling) and derived metrics


def add(a, b):
    """Sum that treats an empty cell as absent (an empty cell in every merged row stays empty)."""
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def merge_rows(table: Table, keys: list) -> Table:
    """Merges the rows that share a key (in order of first appearance): counters summed, begin the first cycle,
    end the last; launch, kernel and sm are the same within a group."""
    group_of_key = {}
    for key in keys:
        group_of_key.setdefault(key, len(group_of_key))
    columns = {}
    for name, values in table.columns.items():
        merged = [None] * len(group_of_key)
        seen = [False] * len(group_of_key)
        for key, value in zip(keys, values):
            g = group_of_key[key]
            if name in ("launch", "sm") or name in TEXT_COLUMNS:
                if not seen[g]:
                    merged[g] = value
            elif name == "begin":
                merged[g] = value if not seen[g] else min(merged[g], value)
            elif name == "end":
                merged[g] = value if not seen[g] else max(merged[g], value)
            else:
                merged[g] = add(merged[g], value)
            seen[g] = True
        columns[name] = merged
    return Table(columns, len(group_of_key))


def downsample_keys(launches: list, factor: int) -> list:
    """Group key of each interval: runs of `factor` adjacent intervals of one launch (never across a launch
    boundary, so kernel boundaries stay exact)."""
    keys, group, count, previous = [], -1, 0, object()
    for launch in launches:
        if launch != previous or count == factor:
            group, count, previous = group + 1, 0, launch
        keys.append(group)
        count += 1
    return keys


@dataclass
class PlotData:
    """What is drawn of one run: its (possibly merged) GPU and per-SM intervals."""

    intervals: Table
    sm_intervals: Table
    factor: int          # intervals merged per plotted interval (1: none)
    unmatched_sm_rows: int


def plot_data(run: Run, max_intervals: int = MAX_PLOT_INTERVALS) -> PlotData:
    gpu = run.intervals
    factor = max(1, math.ceil(gpu.rows / max_intervals))
    gpu_keys = downsample_keys(gpu.columns["launch"], factor) if factor > 1 else list(range(gpu.rows))
    # An SM row belongs to the GPU interval with its launch and first cycle.
    group_of_interval = {(launch, begin): key for launch, begin, key
                         in zip(gpu.columns["launch"], gpu.columns["begin"], gpu_keys)}
    sm = run.sm_intervals
    sm_keys, keep = [], []
    for i, (launch, begin, sm_id) in enumerate(zip(sm.columns["launch"], sm.columns["begin"], sm.columns["sm"])):
        key = group_of_interval.get((launch, begin))
        if key is not None:
            sm_keys.append((sm_id, key))
            keep.append(i)
    kept = Table({name: [values[i] for i in keep] for name, values in sm.columns.items()}, len(keep))
    merged_gpu = merge_rows(gpu, gpu_keys) if factor > 1 else gpu
    return PlotData(merged_gpu, merge_rows(kept, sm_keys), factor, sm.rows - len(keep))


def column_sum(table: Table, names, i):
    total = 0
    for name in names:
        value = table.columns[name][i]
        if value is None:
            return None
        total += value
    return total


def ratio(numerator, denominator):
    """A rate, or None (a gap in the plot) where the denominator is zero or a cell is empty."""
    if numerator is None or denominator is None or denominator == 0:
        return None
    return numerator / denominator


@dataclass(frozen=True)
class Metric:
    """A derived per-interval metric: sum(numerators) / sum(denominators); no denominators: per GPU cycle of the
    interval (end - begin)."""

    key: str
    label: str
    numerators: tuple
    denominators: tuple = ()

    def columns(self) -> tuple:
        return self.numerators + self.denominators

    def values(self, table: Table) -> list:
        out = []
        for i in range(table.rows):
            if self.denominators:
                denominator = column_sum(table, self.denominators, i)
            else:
                denominator = table.columns["end"][i] - table.columns["begin"][i]
            out.append(ratio(column_sum(table, self.numerators, i), denominator))
        return out

    def total(self, stats: dict, cycles):
        """The same metric over a whole run, from totals.json's summed launch statistics."""
        if any(name not in stats for name in self.columns()):
            return None
        numerator = sum(stats[name] for name in self.numerators)
        denominator = sum(stats[name] for name in self.denominators) if self.denominators else cycles
        return ratio(numerator, denominator)


IPC = Metric("ipc", "IPC", ("sm.thread_instructions",))
ACTIVE_WARPS = Metric("active_warps", "active warps", ("sm.resident_warp_cycles",), ("sm.cycles",))
READY_WARPS = Metric("ready_warps", "ready warps", ("sm.ready_warp_cycles",), ("sm.cycles",))
L1_MISS_RATE = Metric("l1_miss_rate", "L1 miss rate", ("sm.l1.misses",), ("sm.l1.accesses",))
L2_MISS_RATE = Metric("l2_miss_rate", "L2 miss rate", ("mem.l2_read_misses", "mem.l2_write_misses"),
                      ("mem.l2_reads", "mem.l2_writes"))
MSHR_OCCUPANCY = Metric("mshr_occupancy", "MSHR occupancy", ("sm.l1.mshr_occupancy.sum",), ("sm.cycles",))
ICNT_TRAFFIC = Metric("icnt_packets", "interconnect packets",
                      ("mem.icnt_request_packets", "mem.icnt_response_packets"))
DRAM_TRAFFIC = Metric("dram_requests", "DRAM requests", ("mem.dram_reads", "mem.dram_writes"))
DRAM_EFFICIENCY = Metric("dram_efficiency", "DRAM efficiency", ("mem.dram_bus_busy_cycles",),
                         ("mem.dram_active_cycles",))
DRAM_UTILISATION = Metric("dram_utilisation", "DRAM utilisation", ("mem.dram_bus_busy_cycles",),
                          ("mem.dram_cycles",))


@dataclass(frozen=True)
class ChartSpec:
    """A time-series chart: every metric is drawn for every run (the second metric of a chart dashed)."""

    key: str          # element id and PNG file name
    title: str
    y_label: str
    metrics: tuple
    percent: bool
    description: str


CHARTS = (
    ChartSpec("ipc", "IPC", "thread instr. / cycle", (IPC,), False,
              "Thread instructions per GPU cycle, all SMs: sm.thread_instructions / (end - begin)."),
    ChartSpec("active_warps", "Active and ready warps", "warps per SM", (ACTIVE_WARPS, READY_WARPS), False,
              "Mean warps per SM: resident (solid) = sm.resident_warp_cycles / sm.cycles; "
              "ready to issue (dashed) = sm.ready_warp_cycles / sm.cycles."),
    ChartSpec("l1_miss_rate", "L1 miss rate", "misses / accesses", (L1_MISS_RATE,), True,
              "sm.l1.misses / sm.l1.accesses."),
    ChartSpec("l2_miss_rate", "L2 miss rate", "misses / accesses", (L2_MISS_RATE,), True,
              "(mem.l2_read_misses + mem.l2_write_misses) / (mem.l2_reads + mem.l2_writes)."),
    ChartSpec("mshr_occupancy", "L1 MSHR occupancy", "busy entries per SM", (MSHR_OCCUPANCY,), False,
              "Mean busy MSHR entries per SM: sm.l1.mshr_occupancy.sum / sm.cycles."),
    ChartSpec("interconnect", "Interconnect traffic", "packets / cycle", (ICNT_TRAFFIC,), False,
              "(mem.icnt_request_packets + mem.icnt_response_packets) / (end - begin)."),
    ChartSpec("dram_traffic", "DRAM traffic", "requests / cycle", (DRAM_TRAFFIC,), False,
              "(mem.dram_reads + mem.dram_writes) / (end - begin)."),
    ChartSpec("dram_efficiency", "DRAM efficiency and utilisation", "fraction", (DRAM_EFFICIENCY, DRAM_UTILISATION),
              True, "Efficiency (solid) = mem.dram_bus_busy_cycles / mem.dram_active_cycles; utilisation (dashed) = "
              "mem.dram_bus_busy_cycles / mem.dram_cycles (GPGPU-Sim's dram_eff and bw_util)."),
)


def warp_states(table: Table) -> list:
    """The sm.stall.* reasons this run has, in stacking order."""
    present = [name[len("sm.stall."):] for name in table.columns if name.startswith("sm.stall.")]
    return [s for s in WARP_STATES if s in present] + [s for s in present if s not in WARP_STATES]


def warp_state_color(state: str) -> str:
    """A reason gpuarch adds later gets a colour from its name, the same on every chart and table."""
    return WARP_STATE_COLORS.get(state, EXTRA_STATE_COLORS[sum(map(ord, state)) % len(EXTRA_STATE_COLORS)])


def warp_state_metric(state: str) -> Metric:
    return Metric("state." + state, state.replace("_", " "), ("sm.stall." + state,), ("sm.issue_slots",))


SM_IPC = Metric("sm_ipc", "IPC per SM", ("thread_instructions",), ("cycles",))


def drawn_gpu_column(name: str) -> bool:
    """Whether the report uses this column of intervals.csv."""
    return (name.startswith("sm.stall.") or name == "sm.issue_slots"
            or any(name in metric.columns() for spec in CHARTS for metric in spec.metrics))


# ---------------------------------------------------------------------------------------------------------------
# Step points: each interval's value holds from its first to its last cycle


def step_points(begins: list, ends: list):
    """x of one run's step points and the interval each carries (None: a gap, where no launch ran).

    A point at each interval's first cycle carries its value until the next point; a last point at the final
    cycle closes the last step; a point with no value at the end of an interval followed by idle cycles leaves
    those cycles blank. uPlot's stepped paths and matplotlib's step(where="post") draw exactly this."""
    # An interval of no cycles has nothing to draw, and its point would repeat the next one's x.
    drawn = [i for i in range(len(begins)) if ends[i] > begins[i]] or [0]
    xs, carried = [], []
    for position, i in enumerate(drawn):
        xs.append(begins[i])
        carried.append(i)
        if position + 1 == len(drawn):
            if ends[i] > begins[i]:
                xs.append(ends[i])
                carried.append(i)
        elif begins[drawn[position + 1]] > ends[i]:
            xs.append(ends[i])
            carried.append(None)
    return xs, carried


def round_value(value):
    if value is None or isinstance(value, int):
        return value
    if not math.isfinite(value):
        return None
    return float(f"{value:.{PLOT_DIGITS}g}")


def stepped(values: list, carried: list) -> list:
    return [round_value(values[i]) if i is not None else None for i in carried]


# ---------------------------------------------------------------------------------------------------------------
# Kernel names, launches, per-line statistics and totals


def short_kernel(name: str) -> str:
    """`(anonymous namespace)::row_times_x(float const*, int)` -> `row_times_x`: the return type, the parameter
    list and the qualifiers go (the full name is in the launch table and the tooltips)."""
    text = name.strip()
    if text.endswith(")"):
        depth = 0
        for i in range(len(text) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(text[i], 0)
            if depth == 0:
                if text[:i].strip():
                    text = text[:i]
                break
    depth, cut = 0, 0
    for i, c in enumerate(text):
        if c in "(<":
            depth += 1
        elif c in ")>":
            depth -= 1
        elif depth == 0 and text.startswith("::", i):
            cut = i + 2
        elif depth == 0 and c == " ":  # after a return type (`void scale<float, 4>`)
            cut = i + 1
    return text[cut:].strip() or name


def launches_of(table: Table) -> list:
    launches = []
    for launch, kernel, begin, end in zip(table.columns["launch"], table.columns["kernel"], table.columns["begin"],
                                          table.columns["end"]):
        if launches and launches[-1]["launch"] == launch:
            launches[-1]["end"] = end
            launches[-1]["intervals"] += 1
        else:
            launches.append({"launch": launch, "kernel": kernel, "short": short_kernel(kernel), "begin": begin,
                             "end": end, "intervals": 1})
    return launches


def line_stall_columns(lines: Table) -> list:
    return [name for name in lines.columns if name.startswith("stall.") and name != "stall.issued"]


def costliest_lines(lines: Table, count: int = TOP_LINES) -> list:
    """The lines with the most stall cycles (cycles a warp at the line was the scheduler's stall reason)."""
    stalls = line_stall_columns(lines)
    rows = []
    for i in range(lines.rows):
        cells = {name: values[i] for name, values in lines.columns.items()}
        breakdown = {name[len("stall."):]: cells[name] or 0 for name in stalls}
        rows.append({"cells": cells, "breakdown": breakdown, "cost": sum(breakdown.values())})
    total = sum(row["cost"] for row in rows)
    rows.sort(key=lambda row: row["cost"], reverse=True)
    for row in rows:
        row["share"] = ratio(row["cost"], total)
    return rows[:count]


def summed_stats(totals: dict) -> dict:
    """totals.json's per-launch statistics summed over launches; a histogram (a list, bucket k counting k busy
    entries) becomes <name>.sum = sum of k x bucket_k, the same as intervals.csv's column."""
    sums = {}
    for launch in totals.get("launches", []):
        for name, value in (launch.get("stats") or {}).items():
            if isinstance(value, list):
                sums[name + ".sum"] = sums.get(name + ".sum", 0) + sum(k * c for k, c in enumerate(value))
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                sums[name] = sums.get(name, 0) + value
    return sums


# ---------------------------------------------------------------------------------------------------------------
# The report model: everything the page and the PNGs draw, computed once


@dataclass
class Report:
    title: str
    runs: list
    data: dict           # embedded in the page as JSON
    notes: list          # sentences shown at the top of the page (downsampling, left-out charts)


def build_report(runs: list, title: str) -> Report:
    label_runs(runs)
    plots = [plot_data(run) for run in runs]
    notes = []
    x_min = min(run.intervals.columns["begin"][0] for run in runs)
    x_max = max(run.intervals.columns["end"][-1] for run in runs)
    runs_json = []
    for run, plot in zip(runs, plots):
        if plot.factor > 1:
            notes.append(f"{run.label}: {run.intervals.rows:,} intervals of {run.meta.get('interval', '?')} cycles "
                         f"are drawn as {plot.intervals.rows:,}: up to {plot.factor} adjacent intervals of one launch "
                         "merged by summing their counters, so every rate is exact over the merged span.")
        if plot.unmatched_sm_rows:
            notes.append(f"{run.label}: {plot.unmatched_sm_rows} rows of sm_intervals.csv match no interval of "
                         "intervals.csv (launch and first cycle) and are left out of the heat map.")
        xs, carried = step_points(plot.intervals.columns["begin"], plot.intervals.columns["end"])
        runs_json.append({
            "label": run.label, "color": run.color, "dir": str(run.path),
            "x": xs, "metrics": {}, "launches": launches_of(run.intervals), "heat": None,
            "intervals": run.intervals.rows, "plotted_intervals": plot.intervals.rows, "factor": plot.factor,
            "_carried": carried,
        })

    charts = []
    for spec in CHARTS:
        series, chart_notes = [], []
        for index, (run, plot, run_json) in enumerate(zip(runs, plots, runs_json)):
            for position, metric in enumerate(spec.metrics):
                absent = plot.intervals.missing(metric.columns())
                if absent:
                    chart_notes.append(f"{run.label}: no {metric.label} (intervals.csv has no {', '.join(absent)})")
                    continue
                run_json["metrics"][metric.key] = stepped(metric.values(plot.intervals), run_json["_carried"])
                suffix = f" · {metric.label}" if len(spec.metrics) > 1 else ""
                series.append({"run": index, "metric": metric.key, "label": run.label + suffix,
                               "dash": position > 0})
        entry = {"kind": "lines", "key": spec.key, "title": spec.title, "y_label": spec.y_label,
                 "percent": spec.percent, "description": spec.description, "series": series, "notes": chart_notes}
        if series:
            charts.append(entry)
        else:
            notes.append(f"{spec.title}: left out, no run has the columns it needs ({'; '.join(chart_notes)}).")
        if spec.key == "ipc":
            # The warp-state breakdown follows IPC: one stacked chart per run, since stacks of several runs on one
            # axis cannot be read.
            charts.extend(warp_state_charts(runs, plots, runs_json, notes))

    scale_max = 0.0
    for run, plot, run_json in zip(runs, plots, runs_json):
        heat, missing = heat_map(plot)
        if heat is None:
            notes.append(f"{run.label}: no SM x time heat map ({missing}).")
            continue
        run_json["heat"] = heat
        scale_max = max([scale_max] + [v for row in heat["ipc"] for v in row if v is not None])
    for run_json in runs_json:
        del run_json["_carried"]
    data = {"title": title, "x_range": [x_min, x_max], "runs": runs_json, "charts": charts,
            "heat_scale": [0, round_value(scale_max) or 1]}
    return Report(title, runs, data, notes)


def warp_state_charts(runs, plots, runs_json, notes) -> list:
    charts = []
    for index, (run, plot, run_json) in enumerate(zip(runs, plots, runs_json)):
        states = warp_states(plot.intervals)
        if not states or not plot.intervals.has("sm.issue_slots"):
            notes.append(f"{run.label}: no warp-state breakdown (intervals.csv has no sm.issue_slots or sm.stall.* "
                         "columns).")
            continue
        series = []
        for state in states:
            metric = warp_state_metric(state)
            run_json["metrics"][metric.key] = stepped(metric.values(plot.intervals), run_json["_carried"])
            series.append({"run": index, "metric": metric.key, "label": metric.label,
                           "color": warp_state_color(state)})
        charts.append({"kind": "stack", "key": f"warp_states_{index}", "title": f"Warp states: {run.label}",
                       "y_label": "share of issue slots", "percent": True, "run": index,
                       "description": "What each scheduler issue slot did: sm.stall.<state> / sm.issue_slots, "
                                      "stacked (issued at the bottom).",
                       "series": series, "notes": []})
    return charts


def heat_map(plot: PlotData):
    """Per-SM IPC (thread instructions per cycle of that SM) for each plotted interval, or None and what is missing."""
    sm = plot.sm_intervals
    if sm.missing(SM_IPC.columns()):
        return None, f"sm_intervals.csv has no {', '.join(sm.missing(SM_IPC.columns()))}"
    if sm.rows == 0:
        return None, "sm_intervals.csv has no row for any interval of intervals.csv"
    gpu = plot.intervals
    column_of = {(launch, begin): j for j, (launch, begin)
                 in enumerate(zip(gpu.columns["launch"], gpu.columns["begin"]))}
    sm_ids = sorted({s for s in sm.columns["sm"] if s is not None})
    row_of = {s: r for r, s in enumerate(sm_ids)}
    cells = [[None] * gpu.rows for _ in sm_ids]
    values = SM_IPC.values(sm)
    for launch, begin, sm_id, value in zip(sm.columns["launch"], sm.columns["begin"], sm.columns["sm"], values):
        j = column_of.get((launch, begin))
        if j is not None and sm_id in row_of:
            cells[row_of[sm_id]][j] = round_value(value)
    return {"sms": sm_ids, "begin": gpu.columns["begin"], "end": gpu.columns["end"], "ipc": cells}, None


# ---------------------------------------------------------------------------------------------------------------
# HTML


def esc(value) -> str:
    return html.escape(str(value), quote=True)


def fmt_count(value) -> str:
    if value is None:
        return "–"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.1f}"
    return f"{int(value):,}"


def fmt_rate(value, digits: int = 3) -> str:
    """`digits` significant digits, trailing zeros kept so a column of values lines up (57.0 beside 53.1)."""
    if value is None:
        return "–"
    if abs(value) >= 10 ** digits:
        return f"{value:,.0f}"
    return f"{value:#.{digits}g}".rstrip(".")


def fmt_percent(value) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def run_summary_html(run: Run) -> str:
    meta = run.meta
    program = " ".join([str(meta.get("program", "?"))] + [shlex.quote(str(a)) for a in meta.get("args", [])])
    launches = launches_of(run.intervals)
    launch_rows = "".join(
        f"<tr><td>{launch['launch']}</td><td title=\"{esc(launch['kernel'])}\"><code>{esc(launch['kernel'])}</code>"
        f"</td><td class=num>{fmt_count(launch['begin'])}</td><td class=num>{fmt_count(launch['end'])}</td>"
        f"<td class=num>{fmt_count(launch['end'] - launch['begin'])}</td><td class=num>{launch['intervals']}</td></tr>"
        for launch in launches)
    return (
        f"<div class=run-card style=\"border-color:{run.color}\"><h3><span class=swatch "
        f"style=\"background:{run.color}\"></span>{esc(run.label)}</h3>"
        f"<dl><dt>program</dt><dd><code>{esc(program)}</code></dd>"
        f"<dt>machine</dt><dd>{esc(meta.get('machine', '?'))} ({esc(meta.get('sms', '?'))} SMs)</dd>"
        f"<dt>scheduler</dt><dd>{esc(meta.get('scheduler', '?'))}</dd>"
        f"<dt>register file</dt><dd>{esc(meta.get('register_file', '?'))}</dd>"
        f"<dt>interval</dt><dd>{fmt_count(meta.get('interval'))} cycles, {run.intervals.rows:,} intervals</dd>"
        f"<dt>directory</dt><dd><code>{esc(run.path)}</code></dd>"
        f"<dt>variant</dt><dd><code class=variant>{esc(meta.get('variant', '?'))}</code></dd></dl>"
        f"<details><summary>{len(launches)} launch{'' if len(launches) == 1 else 'es'} simulated in detail</summary>"
        "<table class=launches>"
        "<tr><th>#</th><th>kernel</th><th>first cycle</th><th>last cycle</th><th>cycles</th><th>intervals</th></tr>"
        f"{launch_rows}</table></details></div>")


def stall_bar_html(breakdown: dict, cost) -> str:
    if not cost:
        return "<span class=muted>no stalls</span>"
    parts, labels = [], []
    for state, cycles in breakdown.items():
        if not cycles:
            continue
        share = cycles / cost
        parts.append(f"<span style=\"width:{100 * share:.2f}%;background:{warp_state_color(state)}\" "
                     f"title=\"{esc(state.replace('_', ' '))}: {cycles:,} cycles ({100 * share:.1f}%)\"></span>")
        if share >= 0.1:
            labels.append((share, f"{state.replace('_', ' ')} {100 * share:.0f}%"))
    text = ", ".join(label for _, label in sorted(labels, reverse=True)[:3])  # the bar shows the rest
    return f"<div class=stallbar>{''.join(parts)}</div><div class=stalltext>{esc(text)}</div>"


def lines_html(run: Run) -> str:
    heading = f"<h3><span class=swatch style=\"background:{run.color}\"></span>{esc(run.label)}</h3>"
    if run.lines is None:
        return heading + ("<p class=note>This run has no per-line statistics: its directory has no lines.csv.</p>")
    if not line_stall_columns(run.lines):
        return heading + "<p class=note>lines.csv has no stall.* columns, so no line can be ranked by cost.</p>"
    rows = []
    for rank, row in enumerate(costliest_lines(run.lines), 1):
        cells = row["cells"]
        where = f"{Path(str(cells.get('ptx_file') or '?')).name}:{cells.get('ptx_line', '?')}"
        kernel = str(cells.get("kernel", ""))
        l1 = ratio(cells.get("l1_misses"), cells.get("l1_accesses"))
        latency = ratio(cells.get("load_latency_sum"), cells.get("loads"))
        rows.append(
            f"<tr><td class=num>{rank}</td><td title=\"{esc(kernel)}\">{esc(short_kernel(kernel))}</td>"
            f"<td><code>{esc(where)}</code></td><td><code>{esc(cells.get('instruction', ''))}</code></td>"
            f"<td class=num>{fmt_count(cells.get('executions'))}</td><td class=num>{fmt_count(row['cost'])}</td>"
            f"<td class=num>{fmt_percent(row['share'])}</td>"
            f"<td class=stalls>{stall_bar_html(row['breakdown'], row['cost'])}</td>"
            f"<td class=num>{fmt_percent(l1)}</td><td class=num>{fmt_rate(latency)}</td></tr>")
    return (heading + f"<table class=lines><tr><th>#</th><th>kernel</th><th>PTX line</th><th>instruction</th>"
            "<th>executions</th><th>stall cycles</th><th>of all stalls</th><th>stall breakdown</th>"
            f"<th>L1 miss rate</th><th>avg. load latency</th></tr>{''.join(rows)}</table>")


def totals_rows(runs: list) -> list:
    """(label, [cell per run]) for the end-of-run table."""
    stats = [summed_stats(run.totals) for run in runs]
    counts = [run.totals.get("totals", {}) for run in runs]
    cycles = [c.get("cycles") for c in counts]
    rows = [
        ("launches", [fmt_count(c.get("launches")) for c in counts]),
        ("cycles", [fmt_count(c) for c in cycles]),
    ]
    if len(runs) > 1:
        rows.append((f"speedup over {runs[0].label}", [fmt_rate(ratio(cycles[0], c), 4) + "×" if c else "–"
                                                        for c in cycles]))
    rows += [
        ("thread instructions", [fmt_count(c.get("thread_instructions")) for c in counts]),
        ("warp instructions", [fmt_count(c.get("warp_instructions")) for c in counts]),
        ("IPC (thread instr. / cycle)", [fmt_rate(ratio(c.get("thread_instructions"), cy))
                                         for c, cy in zip(counts, cycles)]),
    ]
    for metric, percent in ((ACTIVE_WARPS, False), (READY_WARPS, False), (L1_MISS_RATE, True), (L2_MISS_RATE, True),
                            (MSHR_OCCUPANCY, False), (ICNT_TRAFFIC, False), (DRAM_TRAFFIC, False),
                            (DRAM_EFFICIENCY, True), (DRAM_UTILISATION, True)):
        values = [metric.total(s, cy) for s, cy in zip(stats, cycles)]
        label = metric.label + ("" if percent or metric.denominators else " per cycle")
        if metric in (ACTIVE_WARPS, READY_WARPS, MSHR_OCCUPANCY):
            label += " per SM"
        rows.append((label, [fmt_percent(v) if percent else fmt_rate(v) for v in values]))
    states = []
    for s in stats:
        states += [name[len("sm.stall."):] for name in s if name.startswith("sm.stall.")]
    ordered = [s for s in WARP_STATES if s in states] + sorted({s for s in states if s not in WARP_STATES})
    for state in ordered:
        metric = warp_state_metric(state)
        rows.append((f"issue slots: {metric.label}", [fmt_percent(metric.total(s, None)) for s in stats]))
    host = [sum(launch.get("host_seconds", 0) or 0 for launch in run.totals.get("launches", [])) for run in runs]
    rows.append(("simulation host time", [f"{h:.1f} s" if h else "–" for h in host]))
    return rows


def totals_html(runs: list) -> str:
    head = "".join(f"<th><span class=swatch style=\"background:{run.color}\"></span>{esc(run.label)}</th>"
                   for run in runs)
    body = "".join(f"<tr><th>{esc(label)}</th>{''.join(f'<td class=num>{esc(v)}</td>' for v in cells)}</tr>"
                   for label, cells in totals_rows(runs))
    notes = "".join(f"<p class=note>{esc(run.label)}: a functional run (no timing); its cycle counts are zero.</p>"
                    for run in runs if run.totals.get("functional"))
    return f"<table class=totals><tr><th></th>{head}</tr>{body}</table>{notes}"


def script_safe(text: str) -> str:
    """Text inside <script>: a `</` would end the element early, so it is written as `<\\/`."""
    return text.replace("</", "<\\/")


def json_for_script(value) -> str:
    # \u003c for every "<": valid JSON, and no kernel name can close the script element or open a comment.
    return json.dumps(value, separators=(",", ":"), allow_nan=False).replace("<", "\\u003c")


@dataclass
class Assets:
    uplot_js: Path
    uplot_css: Path
    report_js: Path
    report_css: Path


def find_assets(script_dir: Path) -> Assets:
    """The vendored uPlot and the page's own script and style: next to this script (the build tree's copy), in
    ../share/gpuarch (an install), or in the source tree (tools/report and third_party/uplot)."""
    layouts = (
        (script_dir, script_dir / "uplot"),
        (script_dir / ".." / "share" / "gpuarch" / "report", script_dir / ".." / "share" / "gpuarch" / "uplot"),
        (script_dir, script_dir / ".." / ".." / "third_party" / "uplot"),
    )
    for report_dir, uplot_dir in layouts:
        assets = Assets(uplot_dir / "uPlot.iife.min.js", uplot_dir / "uPlot.min.css", report_dir / "report.js",
                        report_dir / "report.css")
        if all(path.is_file() for path in vars(assets).values()):
            return assets
    looked = "; ".join(f"{r.resolve()} and {u.resolve()}" for r, u in layouts)
    raise Failure(f"cannot find report.js, report.css and the vendored uPlot (looked in {looked})")


ERROR_GUARD = """
(function () {
  "use strict";
  // Installed before any other script, so that an error anywhere on the page is shown and marks the page.
  var box = document.getElementById("report-errors");
  function record(text) {
    box.hidden = false;
    box.textContent += text + "\\n";
    document.body.dataset.reportStatus = "error";
  }
  window.onerror = function (message, source, line, column, error) {
    record((error && error.stack) || (message + " at " + source + ":" + line + ":" + column));
  };
  window.addEventListener("unhandledrejection", function (event) {
    var reason = event.reason;
    record("unhandled rejection: " + ((reason && reason.stack) || reason));
  });
})();
"""


def render_html(report: Report, assets: Assets) -> str:
    runs = report.runs
    notes = "".join(f"<li>{esc(note)}</li>" for note in report.notes)
    chart_divs = []
    for chart in report.data["charts"]:
        chart_notes = "".join(f"<p class=note>{esc(n)}</p>" for n in chart["notes"])
        chart_divs.append(
            f"<figure class=chart><figcaption><b>{esc(chart['title'])}</b> <span class=muted>"
            f"{esc(chart['description'])}</span></figcaption><div class=plot id=\"chart-{esc(chart['key'])}\"></div>"
            f"{chart_notes}</figure>")
    heat_divs = "".join(
        f"<figure class=heat><figcaption><span class=swatch style=\"background:{run.color}\"></span>"
        f"<b>{esc(run.label)}</b></figcaption><div class=heatmap-host data-run=\"{i}\"></div></figure>"
        for i, (run, run_json) in enumerate(zip(runs, report.data["runs"])) if run_json["heat"] is not None)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="{PROGRAM}">
<title>{esc(report.title)}</title>
<style>
{assets.uplot_css.read_text(encoding="utf-8")}
</style>
<style>
{assets.report_css.read_text(encoding="utf-8")}
</style>
</head>
<body data-report-status="loading" data-charts="0">
<pre id="report-errors" hidden></pre>
<script>{ERROR_GUARD}</script>
<header>
<h1>{esc(report.title)}</h1>
<p class=muted>Made by {PROGRAM} from {len(runs)} gpuarch-run timeline run{'s' if len(runs) > 1 else ''}
(docs/timeline.md). Drag on a chart to zoom into a cycle range, double-click to zoom out; the cursor follows on
every chart. Dashed vertical lines mark the start of each kernel launch, in the run's colour.</p>
</header>
<section id=runs><h2>Runs</h2><div class=run-cards>{''.join(run_summary_html(run) for run in runs)}</div>
{f'<ul class=notes>{notes}</ul>' if notes else ''}</section>
<section id=timeseries><h2>Over time</h2><div class=charts>{''.join(chart_divs)}</div></section>
<section id=heatmaps><h2>IPC per SM over time</h2>
<p class=muted>Each cell: one SM's thread instructions per cycle over one plotted interval (thread_instructions /
cycles of its row in sm_intervals.csv); grey where the SM had no cycles. One colour scale for every run.</p>
<div id=heat-legend></div>{heat_divs}<div id=heat-tooltip hidden></div></section>
<section id=lines><h2>Costliest PTX lines (top {TOP_LINES} by stall cycles)</h2>
<p class=muted>Cost of a line: the cycles a warp at that instruction was the scheduler's stall reason (the stall.*
columns of lines.csv, issued not counted).</p>{''.join(lines_html(run) for run in runs)}</section>
<section id=totals><h2>End-of-run totals</h2>
<p class=muted>From each run's totals.json (the same JSON as gpuarch-run --stats): the launches' statistics
summed.</p>{totals_html(runs)}</section>
<footer class=muted>Charts drawn with uPlot (MIT licence, vendored in third_party/uplot).</footer>
<script>{script_safe(assets.uplot_js.read_text(encoding="utf-8"))}</script>
<script type="application/json" id="report-data">{json_for_script(report.data)}</script>
<script>{script_safe(assets.report_js.read_text(encoding="utf-8"))}</script>
</body>
</html>
"""


# ---------------------------------------------------------------------------------------------------------------
# PNG figures (matplotlib)


def import_pyplot():
    try:
        import matplotlib
    except ImportError:
        raise Failure(f"--png needs matplotlib, which {sys.executable} cannot import: install Debian's "
                      "python3-matplotlib (scripts/ensure-deps.sh python3-matplotlib) and run this script with "
                      "/usr/bin/python3") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def write_pngs(report: Report, out_dir: Path) -> list:
    plt = import_pyplot()
    from matplotlib.colors import LinearSegmentedColormap

    out_dir.mkdir(parents=True, exist_ok=True)
    data = report.data
    runs = data["runs"]
    x_min, x_max = data["x_range"]
    written = []

    def nan(values):
        return [math.nan if v is None else v for v in values]

    def mark_launches(ax):
        for run in runs:
            for launch in run["launches"]:
                ax.axvline(launch["begin"], color=run["color"], linestyle=(0, (4, 4)), linewidth=0.7, alpha=0.6)

    def save(fig, name):
        path = out_dir / name
        fig.tight_layout()
        fig.savefig(path, dpi=150)
        plt.close(fig)
        written.append(path)

    stacks = [c for c in data["charts"] if c["kind"] == "stack"]
    for chart in data["charts"]:
        if chart["kind"] != "lines":
            continue
        fig, ax = plt.subplots(figsize=(8, 3.2))
        for s in chart["series"]:
            run = runs[s["run"]]
            ax.step(run["x"], nan(run["metrics"][s["metric"]]), where="post", color=run["color"],
                    linestyle="--" if s["dash"] else "-", linewidth=1.2, label=s["label"])
        mark_launches(ax)
        ax.set_xlim(x_min, x_max)
        ax.set_ylim(bottom=0)
        ax.set_xlabel("GPU cycle")
        ax.set_ylabel(chart["y_label"])
        ax.set_title(chart["title"])
        if chart["percent"]:
            ax.yaxis.set_major_formatter(lambda v, _: f"{100 * v:.0f}%")
        ax.legend(fontsize=7, loc="best")
        ax.grid(alpha=0.3)
        save(fig, f"{chart['key']}.png")

    if stacks:
        fig, axes = plt.subplots(len(stacks), 1, figsize=(8, 2.8 * len(stacks)), squeeze=False)
        for ax, chart in zip(axes[:, 0], stacks):
            run = runs[chart["run"]]
            bottom = [0.0] * len(run["x"])
            for s in chart["series"]:
                values = [0.0 if v is None else v for v in run["metrics"][s["metric"]]]
                top = [b + v for b, v in zip(bottom, values)]
                ax.fill_between(run["x"], bottom, top, step="post", color=s["color"], label=s["label"], linewidth=0)
                bottom = top
            ax.set_xlim(x_min, x_max)
            ax.set_ylim(0, 1)
            ax.yaxis.set_major_formatter(lambda v, _: f"{100 * v:.0f}%")
            ax.set_title(chart["title"], fontsize=9)
            ax.set_ylabel("issue slots")
            ax.legend(fontsize=6, loc="center left", bbox_to_anchor=(1.0, 0.5))
        axes[-1, 0].set_xlabel("GPU cycle")
        save(fig, "warp_states.png")

    heats = [run for run in runs if run["heat"] is not None]
    if heats:
        cmap = LinearSegmentedColormap.from_list("gpuarch_viridis", VIRIDIS)
        cmap.set_bad("#d0d0d0")
        height = 0.6 + sum(0.9 + 0.16 * len(r["heat"]["sms"]) for r in heats)
        fig, axes = plt.subplots(len(heats), 1, figsize=(8, height), squeeze=False, layout="constrained")
        vmin, vmax = data["heat_scale"]
        mesh = None
        for ax, run in zip(axes[:, 0], heats):
            heat = run["heat"]
            edges = heat["begin"] + [heat["end"][-1]]
            rows = [nan(row) for row in heat["ipc"]]
            mesh = ax.pcolormesh(edges, list(range(len(heat["sms"]) + 1)), rows, cmap=cmap, vmin=vmin, vmax=vmax,
                                 shading="flat")
            every = max(1, len(heat["sms"]) // 16)  # at most about 16 SM labels
            ax.set_yticks([i + 0.5 for i in range(0, len(heat["sms"]), every)],
                          [str(s) for s in heat["sms"][::every]], fontsize=6)
            ax.set_ylabel("SM")
            ax.invert_yaxis()  # SM 0 on top, as on the page
            ax.set_xlim(x_min, x_max)
            ax.set_title(run["label"], fontsize=9)
            for launch in run["launches"]:
                ax.axvline(launch["begin"], color="white", linewidth=0.8)
        axes[-1, 0].set_xlabel("GPU cycle")
        fig.colorbar(mesh, ax=axes[:, 0].tolist(), label="thread instr. / SM cycle")
        fig.savefig(out_dir / "sm_ipc_heatmap.png", dpi=150)
        plt.close(fig)
        written.append(out_dir / "sm_ipc_heatmap.png")
    return written


# The heat map's colour scale, shared by the page (report.js has the same stops) and the PNG: viridis.
VIRIDIS = ("#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c", "#28ae80", "#5ec962", "#addc30", "#fde725")


# ---------------------------------------------------------------------------------------------------------------
# Command line


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def parse_args(argv):
    parser = Parser(
        prog=PROGRAM,
        description="Draws the interval statistics of one or more gpuarch-run timeline runs "
                    "(gpuarch-run --timeline N --timeline-dir DIR) as one self-contained HTML page.",
        epilog="Several runs are overlaid on one cycle axis (label: directory, scheduler, machine). "
               "Exit status: 0 the report was written; 1 it could not be written (a file, matplotlib for --png, "
               "the vendored uPlot missing); 2 a usage error or a RUN that is not a timeline run directory. "
               "See docs/timeline.md.")
    parser.add_argument("runs", nargs="+", metavar="RUN", type=Path, help="a run directory")
    parser.add_argument("-o", "--output", type=Path, default=Path("report.html"), metavar="FILE",
                        help="the HTML file to write (default: report.html)")
    parser.add_argument("--png", type=Path, metavar="DIR",
                        help="also write the main plots as PNG files into DIR (needs matplotlib)")
    parser.add_argument("--title", help="the page's title (default: from the runs' program and arguments)")
    return parser.parse_args(argv)


def default_title(runs: list) -> str:
    programs = []
    for run in runs:
        program = " ".join([str(run.meta.get("program", "?"))] + [str(a) for a in run.meta.get("args", [])])
        if program not in programs:
            programs.append(program)
    return "gpuarch timeline: " + ", ".join(programs)


def main(argv=None) -> int:
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
        if args.png is not None:
            import_pyplot()  # before any work: a missing matplotlib should not cost a whole report first
        assets = find_assets(Path(__file__).resolve().parent)
        runs = [load_run(path) for path in args.runs]
        report = build_report(runs, args.title or default_title(runs))
        try:
            args.output.write_text(render_html(report, assets), encoding="utf-8")
        except OSError as error:
            raise Failure(f"cannot write {args.output}: {error.strerror}") from None
        print(f"{PROGRAM}: wrote {args.output} ({len(runs)} run{'s' if len(runs) > 1 else ''})")
        if args.png is not None:
            try:
                written = write_pngs(report, args.png)
            except OSError as error:
                raise Failure(f"cannot write the PNG files into {args.png}: {error}") from None
            if written:
                print(f"{PROGRAM}: wrote {', '.join(str(p) for p in written)}")
            else:
                print(f"{PROGRAM}: wrote no PNG: the runs have none of the counters the plots need (see the page)")
        return 0
    except RunError as error:
        print(f"{PROGRAM}: {error}", file=sys.stderr)
        return EXIT_USAGE
    except UsageError as error:
        print(f"{PROGRAM}: {error} (see {PROGRAM} --help)", file=sys.stderr)
        return EXIT_USAGE
    except Failure as error:
        print(f"{PROGRAM}: {error}", file=sys.stderr)
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
