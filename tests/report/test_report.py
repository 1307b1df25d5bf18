#!/usr/bin/env python3
"""Tests of gpuarch-report (tools/report): the HTML page, the PNG figures and, in headless Chromium, the page itself.

usage: test_report.py [--report PATH] [--work-dir DIR] [--run DIR ...] [--screenshot-out PNG] [TEST ...]

  --report PATH         the gpuarch-report to test (default: tools/report/gpuarch_report.py of this source tree)
  --work-dir DIR        where the run directories, reports and the screenshot go (default: a temporary directory)
  --run DIR             test against a real run directory (gpuarch-run --timeline N --timeline-dir DIR) instead of
                        the synthetic one; repeat it for several runs. GPUARCH_REPORT_RUNS (colon-separated) does
                        the same. The checks that need the synthetic data's known values are skipped then.
  --screenshot-out PNG  also copy the browser test's screenshot here (docs/images/timeline_report.png)
  TEST                  unittest names: HtmlTest (CTest report.html), BrowserTest (CTest report.browser)

The synthetic runs are made here (write_run): two schedulers on a 4-SM machine, two launches, about 50 intervals
of 1000 cycles, and lines.csv for the first run only. Exit status 77 when every test that ran was skipped (CTest's
SKIP_RETURN_CODE), so that a machine without Chromium reports the browser test as not run, not as passed.
"""
from __future__ import annotations

import argparse
import csv
import functools
import html
import importlib.machinery
import importlib.util
import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
import zlib
from pathlib import Path

SOURCE_DIR = Path(__file__).resolve().parents[2]
SKIPPED = 77


class Config:
    report = SOURCE_DIR / "tools" / "report" / "gpuarch_report.py"
    work_dir: Path = Path()
    runs: list = []          # real run directories; empty: the synthetic runs
    screenshot_out: Path | None = None


# ---------------------------------------------------------------------------------------------------------------
# The synthetic run directories (the fixture). Plausible numbers with exact, known sums: the fixture is only test
# data, and the checks below recompute what the report must show from the rows written here.

SM_COUNTERS = ("cycles", "active_cycles", "warp_instructions", "thread_instructions", "resident_warp_cycles",
               "ready_warp_cycles", "issue_slots", "stall.issued", "stall.idle", "stall.ibuffer_empty",
               "stall.raw_long_latency", "stall.raw_other", "stall.structural", "stall.bank_conflict", "stall.barrier",
               "stall.memory_pipeline", "l1.accesses", "l1.misses", "l1.mshr_occupancy.sum")
MEM_COUNTERS = ("icnt_request_packets", "icnt_response_packets", "l2_reads", "l2_writes", "l2_read_misses",
                "l2_write_misses", "l2_atomics", "dram_cycles", "dram_reads", "dram_writes", "dram_bus_busy_cycles",
                "dram_active_cycles")
STALLS = ("idle", "ibuffer_empty", "raw_long_latency", "raw_other", "structural", "bank_conflict", "barrier",
          "memory_pipeline")
# A name with parentheses and commas (CSV quoting) and one with angle brackets (HTML and <script> escaping).
KERNELS = ("(anonymous namespace)::row_times_x(float const*, float const*, float*, int)",
           "void scale<float, 4>(float*, int)")
PTX_LINES = ("ld.global.f32 %f1, [%rd5];", "fma.rn.f32 %f3, %f1, %f2, %f3;", "st.global.f32 [%rd7], %f3;",
             "setp.lt.s32 %p1, %r9, %r4;", "bar.sync 0;", "add.s32 %r9, %r9, 1;", "mul.wide.s32 %rd4, %r9, 4;",
             "@%p1 bra $L__BB0_2;")


def write_run(path: Path, scheduler: str, seed: int, launch_cycles=(22_400, 26_700), sms: int = 4,
              interval: int = 1000, lines: bool = True, omit=()) -> dict:
    """Writes a run directory; returns what the checks need (its GPU rows, totals, the costliest line)."""
    rng = random.Random(seed)
    path.mkdir(parents=True, exist_ok=True)
    gpu_rows, sm_rows, launch_stats = [], [], []
    cycle = 0
    for launch, (kernel, length) in enumerate(zip(KERNELS, launch_cycles)):
        stats = {}
        end_of_launch = cycle + length
        while cycle < end_of_launch:
            begin, end = cycle, min(cycle + interval, end_of_launch)
            span = end - begin
            gpu = {f"sm.{name}": 0 for name in SM_COUNTERS}
            # A phase pattern, so the charts have something to show: memory-bound first, compute-bound later.
            phase = (begin % 9000) / 9000
            for sm in range(sms):
                row = sm_counters(rng, span, phase, launch)
                sm_rows.append([launch, begin, end, sm] + [row[name] for name in SM_COUNTERS])
                for name in SM_COUNTERS:
                    gpu[f"sm.{name}"] += row[name]
            gpu.update(mem_counters(rng, span, phase))
            gpu_rows.append({"launch": launch, "kernel": kernel, "begin": begin, "end": end, **gpu})
            for name, value in gpu.items():
                stats[name] = stats.get(name, 0) + value
            cycle = end
        launch_stats.append((kernel, length, stats))

    counters = [f"sm.{n}" for n in SM_COUNTERS] + [f"mem.{n}" for n in MEM_COUNTERS]
    counters = [c for c in counters if c not in omit]
    with (path / "intervals.csv").open("w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["launch", "kernel", "begin", "end"] + counters)
        for row in gpu_rows:
            out.writerow([row["launch"], row["kernel"], row["begin"], row["end"]] + [row[c] for c in counters])
    sm_columns = [n for n in SM_COUNTERS if f"sm.{n}" not in omit]
    with (path / "sm_intervals.csv").open("w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["launch", "begin", "end", "sm"] + sm_columns)
        for row in sm_rows:
            values = dict(zip(SM_COUNTERS, row[4:]))
            out.writerow(row[:4] + [values[n] for n in sm_columns])

    # Named as what it is, so that a page or screenshot made from it cannot pass for a real program's run.
    meta = {"format": "gpuarch-timeline 1", "program": "synthetic_fixture", "args": [],
            "machine": "gtx480",
            "scheduler": scheduler, "register_file": "ideal",
            "variant": f"GTX480/{scheduler.upper()}/IdealRF/SimdExec/L1<MSHR<64>> x{sms}", "interval": interval,
            "sms": sms}
    (path / "meta.json").write_text(json.dumps(meta, indent=1))
    launches_json = []
    for kernel, length, stats in launch_stats:
        # totals.json holds the MSHR occupancy as its histogram (bucket k: cycles with k busy entries).
        stats_json = {k: v for k, v in stats.items() if k != "sm.l1.mshr_occupancy.sum" and k not in omit}
        stats_json["sm.l1.mshr_occupancy"] = [stats["sm.cycles"] - stats["sm.l1.mshr_occupancy.sum"],
                                              stats["sm.l1.mshr_occupancy.sum"]]
        launches_json.append({"kernel": kernel, "name": kernel, "grid": [4, 1, 1], "block": [256, 1, 1],
                              "cycles": length, "warp_instructions": stats["sm.warp_instructions"],
                              "thread_instructions": stats["sm.thread_instructions"],
                              "ipc": stats["sm.thread_instructions"] / length, "host_seconds": 0.25,
                              "stats": stats_json})
    totals = {"launches": len(launches_json), "uncounted_launches": 0, "cycles": sum(launch_cycles),
              "cycles_error": 0.0, "sampled_launches": 0,
              "warp_instructions": sum(lj["warp_instructions"] for lj in launches_json),
              "thread_instructions": sum(lj["thread_instructions"] for lj in launches_json)}
    (path / "totals.json").write_text(json.dumps(
        {"variant": meta["variant"], "machine": "gtx480",
         "machine_info": {"sms": sms, "warp_size": 32, "max_warps_per_sm": 48, "schedulers_per_sm": 2,
                          "core_clock_mhz": 700.0},
         "functional": False, "totals": totals, "launches": launches_json}, indent=1))
    costliest = write_lines(path / "lines.csv", rng) if lines else None
    return {"gpu_rows": gpu_rows, "totals": totals, "costliest": costliest, "meta": meta}


def sm_counters(rng: random.Random, span: int, phase: float, launch: int) -> dict:
    memory_bound = phase < 0.5 if launch == 0 else phase < 0.2
    warp_instructions = rng.randint(span // 20, span // 8) if memory_bound else rng.randint(span // 3, span)
    slots = 2 * span
    resident = rng.randint(16, 48)
    row = {"cycles": span, "active_cycles": span - rng.randint(0, span // 10),
           "warp_instructions": warp_instructions, "thread_instructions": 32 * warp_instructions - rng.randint(0, 31),
           "resident_warp_cycles": resident * span, "ready_warp_cycles": rng.randint(0, resident) * span // 4,
           "issue_slots": slots, "stall.issued": warp_instructions}
    # The remaining issue slots split over the stall reasons: mostly long-latency waits while memory-bound.
    weights = [rng.random() * (3 if memory_bound and r in ("raw_long_latency", "memory_pipeline") else 1)
               for r in STALLS]
    left = slots - warp_instructions
    for reason, weight in zip(STALLS, weights):
        share = int(left * weight / sum(weights))
        row[f"stall.{reason}"] = share
    row["stall.idle"] += slots - sum(row[f"stall.{r}"] for r in STALLS) - warp_instructions
    accesses = rng.randint(span // 4, span // 2)
    row["l1.accesses"] = accesses
    row["l1.misses"] = int(accesses * (rng.uniform(0.6, 0.95) if memory_bound else rng.uniform(0.05, 0.3)))
    row["l1.mshr_occupancy.sum"] = span * rng.randint(20 if memory_bound else 0, 64 if memory_bound else 8)
    return row


def mem_counters(rng: random.Random, span: int, phase: float) -> dict:
    reads, writes = rng.randint(span // 2, 2 * span), rng.randint(0, span // 4)
    active = rng.randint(span * 3, span * 6)
    return {"mem.icnt_request_packets": reads + writes, "mem.icnt_response_packets": reads + writes,
            "mem.l2_reads": reads, "mem.l2_writes": writes, "mem.l2_read_misses": int(reads * (0.2 + phase / 2)),
            "mem.l2_write_misses": writes // 10, "mem.l2_atomics": 0, "mem.dram_cycles": span * 8,
            "mem.dram_reads": int(reads * (0.2 + phase / 2)), "mem.dram_writes": writes // 10,
            "mem.dram_bus_busy_cycles": rng.randint(active // 3, active), "mem.dram_active_cycles": active}


# lines.csv's stall columns: the states a warp at an instruction can be charged with (not issued, not idle).
LINE_STALLS = tuple(r for r in STALLS if r != "idle")


def write_lines(path: Path, rng: random.Random) -> dict:
    """30 PTX lines, in the columns gpuarch-run writes; returns the costliest (most stall cycles)."""
    header = (["kernel", "ptx_file", "ptx_line", "pc", "instruction", "executions", "thread_instructions",
               "issue_cycles"] + [f"stall.{r}" for r in LINE_STALLS]
              + ["loads", "l1_accesses", "l1_misses", "load_latency_sum"])
    rows, costs = [], []
    for i in range(30):
        instruction = PTX_LINES[i % len(PTX_LINES)]
        executions = rng.randint(100, 5000)
        stalls = [rng.randint(0, 20_000) for _ in LINE_STALLS]
        loads = executions if instruction.startswith("ld.") else 0
        rows.append([KERNELS[i % 2], "ptx/module0_synthetic_fixture.ptx", 40 + i, 8 * i, instruction, executions,
                     32 * executions, executions] + stalls + [loads, 4 * loads, 2 * loads, 380 * loads])
        costs.append(sum(stalls))
    with path.open("w", newline="") as f:
        out = csv.writer(f)
        out.writerow(header)
        out.writerows(rows)
    top = max(range(len(rows)), key=lambda i: costs[i])
    return {"instruction": rows[top][4], "ptx_line": rows[top][2], "cost": costs[top]}


# ---------------------------------------------------------------------------------------------------------------
# Helpers


def report_command(*args) -> list:
    script = str(Config.report)
    # The build tree's and the installed gpuarch-report run through their #! line (/usr/bin/python3, which has
    # Debian's matplotlib); a script that is not executable runs under this interpreter.
    prefix = [script] if os.access(script, os.X_OK) else [sys.executable, script]
    return prefix + [str(a) for a in args]


def run_report(*args, check=True) -> subprocess.CompletedProcess:
    result = subprocess.run(report_command(*args), capture_output=True, text=True, timeout=300)
    if check and result.returncode != 0:
        raise AssertionError(f"gpuarch-report {' '.join(map(str, args))} exited {result.returncode}:\n"
                             f"{result.stdout}{result.stderr}")
    return result


def load_report_module():
    """The report script as a module (it has no .py suffix in the build tree), for its pure functions."""
    loader = importlib.machinery.SourceFileLoader("gpuarch_report_under_test", str(Config.report))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[loader.name] = module  # dataclasses look their module up while the class is made
    loader.exec_module(module)
    return module


def embedded_data(page: str) -> dict:
    match = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page, re.S)
    assert match, "the page has no embedded report-data JSON"
    return json.loads(match.group(1))


def expected_charts(data: dict) -> int:
    """uPlot charts plus one heat map per run that has one."""
    return len(data["charts"]) + sum(1 for run in data["runs"] if run["heat"] is not None)


def png_size(path: Path) -> tuple:
    """(width, height) from the IHDR chunk; fails unless the file is a PNG whose image data decompresses."""
    blob = path.read_bytes()
    assert blob[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", blob[16:24])
    idat, offset = b"", 8
    while offset < len(blob):
        length, kind = struct.unpack(">I4s", blob[offset:offset + 8])
        if kind == b"IDAT":
            idat += blob[offset + 8:offset + 8 + length]
        offset += 12 + length
    zlib.decompress(idat)
    return width, height


_runs_cache: dict = {}


def fixture_runs() -> dict:
    """The two synthetic runs (made once per process): name -> (directory, expectations)."""
    if not _runs_cache:
        base = Config.work_dir / "runs"
        shutil.rmtree(base, ignore_errors=True)
        _runs_cache["gto"] = (base / "gto", write_run(base / "gto", "gto", seed=1))
        _runs_cache["lrr"] = (base / "lrr", write_run(base / "lrr", "lrr", seed=2, launch_cycles=(22_400, 30_100),
                                                       lines=False))
    return _runs_cache


def run_dirs() -> list:
    return list(Config.runs) if Config.runs else [d for d, _ in fixture_runs().values()]


def needs_fixture(test):
    """Skips a check of the synthetic runs' known values when real runs are tested (decided when it runs: the
    command line is read after the classes are made)."""
    @functools.wraps(test)
    def check(self):
        if Config.runs:
            self.skipTest("checks the synthetic runs' known values (testing --run directories)")
        return test(self)
    return check


# ---------------------------------------------------------------------------------------------------------------


class HtmlTest(unittest.TestCase):
    """The page's content, the PNG figures and the error paths (no browser)."""

    @classmethod
    def setUpClass(cls):
        cls.html_path = Config.work_dir / "report.html"
        run_report(*run_dirs(), "-o", cls.html_path)
        cls.page = cls.html_path.read_text(encoding="utf-8")
        cls.data = embedded_data(cls.page)

    def test_embedded_data(self):
        self.assertEqual(len(self.data["runs"]), len(run_dirs()))
        for run in self.data["runs"]:
            self.assertTrue(run["x"], run["label"])
            self.assertEqual(run["x"], sorted(run["x"]), f"{run['label']}: x points not in cycle order")
            self.assertIn("ipc", run["metrics"])
            for values in run["metrics"].values():
                self.assertEqual(len(values), len(run["x"]))
        self.assertTrue(any(c["key"] == "ipc" for c in self.data["charts"]))

    @needs_fixture
    def test_fixture_values(self):
        runs = fixture_runs()
        gto = self.data["runs"][0]
        self.assertEqual(gto["label"], "gto (gto, gtx480)")
        self.assertEqual(self.data["runs"][1]["label"], "lrr (lrr, gtx480)")
        rows = runs["gto"][1]["gpu_rows"]
        self.assertEqual(gto["intervals"], len(rows))
        self.assertEqual(gto["factor"], 1)
        # One point per interval plus the closing one at the last cycle.
        self.assertEqual(gto["x"], [r["begin"] for r in rows] + [rows[-1]["end"]])
        for i in (0, 7, len(rows) - 1):
            row = rows[i]
            ipc = row["sm.thread_instructions"] / (row["end"] - row["begin"])
            self.assertAlmostEqual(gto["metrics"]["ipc"][i], ipc, delta=ipc * 1e-3)
            l1 = row["sm.l1.misses"] / row["sm.l1.accesses"]
            self.assertAlmostEqual(gto["metrics"]["l1_miss_rate"][i], l1, delta=1e-3)
            states = sum(gto["metrics"][f"state.{s}"][i] for s in ("issued",) + STALLS)
            self.assertAlmostEqual(states, 1.0, delta=1e-2, msg="the warp states must cover every issue slot")
        self.assertEqual([l["short"] for l in gto["launches"]], ["row_times_x", "scale<float, 4>"])
        self.assertEqual(gto["launches"][1]["begin"], 22_400)
        self.assertEqual(len(gto["heat"]["sms"]), 4)
        # IPC, 2 warp-state stacks, warps, L1, L2, MSHR, interconnect, DRAM traffic, DRAM efficiency; 2 heat maps.
        self.assertEqual(len(self.data["charts"]), 10)
        self.assertEqual(expected_charts(self.data), 12)

    def test_vendored_library_inlined(self):
        uplot = (SOURCE_DIR / "third_party" / "uplot" / "uPlot.iife.min.js").read_text(encoding="utf-8")
        self.assertIn(uplot.replace("</", "<\\/"), self.page, "the vendored uPlot is not inlined whole")
        css = (SOURCE_DIR / "third_party" / "uplot" / "uPlot.min.css").read_text(encoding="utf-8")
        self.assertIn(css, self.page)
        self.assertIn("window.onerror", self.page)
        self.assertIn('id="report-errors"', self.page)

    def test_works_offline(self):
        # Nothing is loaded from anywhere: no external script, style sheet, image or import.
        self.assertIsNone(re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", self.page, re.I))
        self.assertIsNone(re.search(r"<script[^>]*\bsrc\s*=", self.page, re.I))
        self.assertIsNone(re.search(r"<link\b", self.page, re.I))
        self.assertIsNone(re.search(r"""url\(\s*["']?\s*(https?:)?//|@import""", self.page, re.I))

    @needs_fixture
    def test_escaping(self):
        # The angle brackets of `scale<float, 4>` never reach the page raw: &lt; in HTML, \u003c in the JSON.
        self.assertNotIn("scale<float", self.page)
        self.assertIn("scale&lt;float, 4&gt;", self.page)
        self.assertIn("scale\\u003cfloat", self.page)

    @needs_fixture
    def test_lines_table(self):
        costliest = fixture_runs()["gto"][1]["costliest"]
        tables = re.findall(r"<table class=lines>(.*?)</table>", self.page, re.S)
        self.assertEqual(len(tables), 1, "only the first run has lines.csv")
        rows = re.findall(r"<tr><td class=num>(\d+)</td>", tables[0])
        self.assertEqual(rows, [str(i) for i in range(1, 21)])
        first = tables[0].split("<tr><td class=num>1</td>")[1].split("</tr>")[0]
        self.assertIn(costliest["instruction"], first)
        self.assertIn(f"module0_synthetic_fixture.ptx:{costliest['ptx_line']}", first)
        self.assertIn(f"{costliest['cost']:,}", first)
        self.assertIn("This run has no per-line statistics", self.page)
        # Each ld.global line: 2 of its 4 L1 accesses miss, 380 cycles of latency per load.
        load_row = next(row for row in tables[0].split("</tr>") if "ld.global.f32" in row)
        self.assertIn("<td class=num>50.0%</td><td class=num>380</td>", load_row)

    @needs_fixture
    def test_totals(self):
        table = re.search(r"<table class=totals>(.*?)</table>", self.page, re.S).group(1)
        for name, (_, expected) in fixture_runs().items():
            self.assertIn(f"{expected['totals']['cycles']:,}", table, name)
        self.assertIn("speedup over gto (gto, gtx480)", table)
        gto = fixture_runs()["gto"][1]["totals"]
        self.assertIn(f"{gto['thread_instructions'] / gto['cycles']:#.3g}".rstrip("."), table)
        self.assertIn("1.000×", table)
        for label in ("L1 miss rate", "L2 miss rate", "DRAM efficiency", "issue slots: raw long latency"):
            self.assertIn(label, table)

    def test_png(self):
        out = Config.work_dir / "png"
        shutil.rmtree(out, ignore_errors=True)
        result = run_report(*run_dirs(), "-o", Config.work_dir / "report_png.html", "--png", out, check=False)
        if result.returncode == 1 and "needs matplotlib" in result.stderr:
            print(f"\nskipped the PNG check: {result.stderr.strip()}", file=sys.stderr)
            self.skipTest("matplotlib is missing")
        self.assertEqual(result.returncode, 0, result.stderr)
        expected = ["ipc.png", "warp_states.png", "l1_miss_rate.png", "sm_ipc_heatmap.png"]
        if not Config.runs:
            expected += ["active_warps.png", "l2_miss_rate.png", "mshr_occupancy.png", "interconnect.png",
                         "dram_traffic.png", "dram_efficiency.png"]
        for name in expected:
            path = out / name
            self.assertTrue(path.is_file(), f"--png wrote no {name}")
            width, height = png_size(path)
            self.assertGreater(width * height, 100_000, name)
            self.assertGreater(path.stat().st_size, 5_000, f"{name} is almost empty")

    def test_not_a_run_directory(self):
        broken = Config.work_dir / "broken_run"
        shutil.rmtree(broken, ignore_errors=True)
        write_run(broken, "gto", seed=3)
        (broken / "sm_intervals.csv").unlink()
        result = run_report(broken, "-o", Config.work_dir / "broken.html", check=False)
        self.assertEqual(result.returncode, 2)
        self.assertIn("sm_intervals.csv is missing", result.stderr)
        self.assertEqual(len(result.stderr.strip().splitlines()), 1, "a usage error is one line")
        result = run_report(Config.work_dir / "no_such_run", check=False)
        self.assertEqual(result.returncode, 2)
        self.assertIn("no_such_run: not a directory", result.stderr)
        result = run_report("--no-such-option", check=False)
        self.assertEqual(result.returncode, 2)
        help_text = run_report("--help").stdout
        self.assertIn("Exit status", help_text)

    def test_missing_columns(self):
        # A machine without some counters: their charts and metrics are left out with a note, nothing fails.
        run = Config.work_dir / "partial_run"
        shutil.rmtree(run, ignore_errors=True)
        omit = ("sm.ready_warp_cycles", "mem.dram_bus_busy_cycles", "mem.dram_reads", "mem.dram_writes",
                "sm.l1.mshr_occupancy.sum")
        write_run(run, "gto", seed=4, omit=omit)
        page_path = Config.work_dir / "partial.html"
        run_report(run, "-o", page_path)
        page = page_path.read_text(encoding="utf-8")
        data = embedded_data(page)
        keys = [c["key"] for c in data["charts"]]
        for left_out in ("dram_traffic", "dram_efficiency", "mshr_occupancy"):
            self.assertNotIn(left_out, keys)
        self.assertIn("active_warps", keys)
        self.assertIn("DRAM efficiency and utilisation: left out", page)
        self.assertIn("no ready warps (intervals.csv has no sm.ready_warp_cycles)", page)

    def test_downsampling(self):
        run = Config.work_dir / "long_run"
        shutil.rmtree(run, ignore_errors=True)
        expected = write_run(run, "gto", seed=5, launch_cycles=(6_000_050, 5_000_000), sms=2, lines=False)
        page_path = Config.work_dir / "long.html"
        run_report(run, "-o", page_path)
        page = page_path.read_text(encoding="utf-8")
        data = embedded_data(page)["runs"][0]
        self.assertEqual(data["intervals"], 11_001)
        self.assertEqual(data["factor"], 3)
        self.assertLessEqual(data["plotted_intervals"], 5_000 + 2)
        self.assertIn("11,001 intervals of 1000 cycles are drawn as", page)
        # Merging never crosses a launch boundary, and the run still spans every cycle.
        self.assertIn(6_000_050, data["x"])
        self.assertEqual((data["x"][0], data["x"][-1]), (0, 11_000_050))
        # Rates of merged intervals are the rates of the summed counters.
        rows = expected["gpu_rows"]
        merged_ipc = sum(r["sm.thread_instructions"] for r in rows[:3]) / 3000
        self.assertAlmostEqual(data["metrics"]["ipc"][0], merged_ipc, delta=merged_ipc * 1e-3)
        self.assertLess(page_path.stat().st_size, 3_000_000)

    def test_merge_rows_keeps_sums(self):
        module = load_report_module()
        table = module.Table({"launch": [0, 0, 0, 1, 1], "kernel": ["a", "a", "a", "b", "b"],
                              "begin": [0, 10, 20, 25, 35], "end": [10, 20, 25, 35, 40],
                              "sm.cycles": [10, 10, 5, 10, 5], "sm.l1.misses": [1, None, 3, 4, 5]}, 5)
        keys = module.downsample_keys(table.columns["launch"], 2)
        self.assertEqual(keys, [0, 0, 1, 2, 2])
        merged = module.merge_rows(table, keys)
        self.assertEqual(merged.columns["begin"], [0, 20, 25])
        self.assertEqual(merged.columns["end"], [20, 25, 40])
        self.assertEqual(merged.columns["sm.cycles"], [20, 5, 15])
        self.assertEqual(merged.columns["sm.l1.misses"], [1, 3, 9])
        self.assertEqual(merged.columns["kernel"], ["a", "a", "b"])
        xs, carried = module.step_points([0, 10, 30], [10, 20, 35])
        self.assertEqual(xs, [0, 10, 20, 30, 35])         # idle cycles 20..30 are a gap (None)
        self.assertEqual(carried, [0, 1, None, 2, 2])
        self.assertEqual(module.step_points([0, 10, 10], [10, 10, 20]), ([0, 10, 20], [0, 2, 2]))
        self.assertEqual(module.short_kernel(KERNELS[0]), "row_times_x")
        self.assertEqual(module.short_kernel("_Z6kernelPf"), "_Z6kernelPf")
        self.assertEqual(module.summed_stats({"launches": [{"stats": {"h": [5, 2, 1], "c": 3}},
                                                           {"stats": {"h": [0, 1], "c": 4}}]}),
                         {"h.sum": 5, "c": 7})

    def test_installed_layout(self):
        # An install: bin/gpuarch-report, share/gpuarch/report/report.{js,css}, share/gpuarch/uplot/.
        prefix = Config.work_dir / "install"
        shutil.rmtree(prefix, ignore_errors=True)
        (prefix / "bin").mkdir(parents=True)
        script = prefix / "bin" / "gpuarch-report"
        shutil.copy2(SOURCE_DIR / "tools" / "report" / "gpuarch_report.py", script)
        shutil.copytree(SOURCE_DIR / "third_party" / "uplot", prefix / "share" / "gpuarch" / "uplot")
        (prefix / "share" / "gpuarch" / "report").mkdir()
        for name in ("report.js", "report.css"):
            shutil.copy2(SOURCE_DIR / "tools" / "report" / name, prefix / "share" / "gpuarch" / "report" / name)
        out = Config.work_dir / "installed.html"
        result = subprocess.run([sys.executable, str(script), *map(str, run_dirs()), "-o", str(out)],
                                capture_output=True, text=True, timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("uPlot", out.read_text(encoding="utf-8"))


class BrowserTest(unittest.TestCase):
    """The page in headless Chromium: it draws every chart without an error, and a screenshot shows it."""

    @classmethod
    def setUpClass(cls):
        cls.chromium = find_chromium()
        cls.html_path = Config.work_dir / "report_browser.html"
        run_report(*run_dirs(), "-o", cls.html_path)
        cls.data = embedded_data(cls.html_path.read_text(encoding="utf-8"))
        cls.profile = Path(tempfile.mkdtemp(prefix="gpuarch-report-chromium-"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.profile, ignore_errors=True)

    def chromium_command(self, *args) -> list:
        # A profile of its own: two Chromiums (ctest -j) must not share one.
        return [self.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--no-default-browser-check", f"--user-data-dir={self.profile}", "--virtual-time-budget=10000",
                *args, self.html_path.resolve().as_uri()]

    def test_page_draws_every_chart(self):
        result = subprocess.run(self.chromium_command("--dump-dom"), capture_output=True, text=True, timeout=180)
        dom = result.stdout
        self.assertIn("<body", dom, f"chromium printed no DOM (exit {result.returncode}):\n{result.stderr[-3000:]}")
        errors = re.search(r'<pre id="report-errors"[^>]*>(.*?)</pre>', dom, re.S)
        self.assertIsNotNone(errors, "no report-errors element")
        self.assertEqual(errors.group(1).strip(), "", "the page recorded errors")
        body = re.search(r"<body([^>]*)>", dom).group(1)
        self.assertIn('data-report-status="ok"', body, "the page did not finish drawing")
        expected = expected_charts(self.data)
        self.assertIn(f'data-charts="{expected}"', body)
        uplots = len(re.findall(r'<div class="uplot', dom))
        self.assertEqual(uplots, len(self.data["charts"]), "one uPlot per time-series chart")
        heat = sum(1 for run in self.data["runs"] if run["heat"] is not None)
        self.assertEqual(len(re.findall(r'<canvas class="heatmap"', dom)), heat)
        self.assertEqual(len(re.findall(r'<canvas class="heatmap"[^>]*width="[1-9]', dom)), heat,
                         "a heat-map canvas has no size")
        if not Config.runs:
            self.assertEqual(expected, 12)

    def test_zoom_and_tooltip(self):
        # The page with two probe scripts: one before report.js keeps every uPlot it makes, one after it drags a
        # zoom on the first chart, reads every chart's cycle range, double-clicks, and hovers a heat map.
        page = self.html_path.read_text(encoding="utf-8")
        split = page.rindex("<script>")
        probe = self.html_path.with_name("report_probe.html")
        probe.write_text(page[:split] + f"<script>{PROBE_BEFORE}</script>" + page[split:].replace(
            "</body>", f"<script>{PROBE_AFTER}</script></body>"), encoding="utf-8")
        command = self.chromium_command("--dump-dom")
        command[-1] = probe.resolve().as_uri()
        result = subprocess.run(command, capture_output=True, text=True, timeout=180)
        match = re.search(r'data-probe="([^"]*)"', result.stdout)
        self.assertIsNotNone(match, f"the probe did not run (exit {result.returncode}):\n{result.stderr[-3000:]}")
        found = json.loads(html.unescape(match.group(1)))
        self.assertEqual(found["errors"], "")
        full = self.data["x_range"]
        zoomed = found["zoomed"]
        self.assertEqual(len(zoomed), len(self.data["charts"]))
        self.assertTrue(all(r == zoomed[0] for r in zoomed), f"the charts did not zoom together: {zoomed}")
        self.assertTrue(full[0] < zoomed[0][0] < zoomed[0][1] < full[1], f"no zoom: {zoomed[0]} of {full}")
        self.assertTrue(all(r == full for r in found["reset"]), f"double-click did not zoom out: {found['reset']}")
        if any(run["heat"] is not None for run in self.data["runs"]):
            self.assertRegex(found["tooltip"], r"^SM \d+, cycles [\d,]+–[\d,]+: IPC ")

    def test_screenshot(self):
        shot = Config.work_dir / "timeline_report.png"
        shot.unlink(missing_ok=True)
        result = subprocess.run(self.chromium_command("--hide-scrollbars", f"--screenshot={shot}",
                                                      "--window-size=1400,2200"),
                                capture_output=True, text=True, timeout=180)
        self.assertTrue(shot.is_file(), f"chromium wrote no screenshot (exit {result.returncode}):\n"
                                        f"{result.stderr[-3000:]}")
        self.assertEqual(png_size(shot), (1400, 2200))
        # A blank or nearly blank page compresses to a few kB; charts, text and heat maps do not.
        self.assertGreater(shot.stat().st_size, 60_000, "the screenshot is nearly empty")
        print(f"\nscreenshot: {shot}", file=sys.stderr)
        if Config.screenshot_out is not None:
            Config.screenshot_out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(shot, Config.screenshot_out)
            print(f"screenshot copied to {Config.screenshot_out}", file=sys.stderr)


PROBE_BEFORE = """
(function () {
  var Original = uPlot;
  window.probePlots = [];
  uPlot = function (opts, data, target) {
    var u = new Original(opts, data, target);
    window.probePlots.push(u);
    return u;
  };
  Object.keys(Original).forEach(function (key) { uPlot[key] = Original[key]; });
})();
"""

PROBE_AFTER = """
(function () {
  function mouse(target, type, x, y) {
    // movementX: uPlot ignores a move of zero distance while a button is down (a stray event in some browsers).
    target.dispatchEvent(new MouseEvent(type, { clientX: x, clientY: y, movementX: 1, bubbles: true, cancelable: true,
                                                view: window, button: 0, buttons: type === "mouseup" ? 0 : 1 }));
  }
  function ranges() {
    return window.probePlots.map(function (u) { return [u.scales.x.min, u.scales.x.max]; });
  }
  // uPlot updates its cursor and selection in animation frames: each step of the drag gets its own turn.
  function steps(list) {
    if (list.length) setTimeout(function () { list[0](); steps(list.slice(1)); }, 100);
  }
  var over, box, y, zoomed, reset;
  steps([
    function () {
      over = document.querySelector(".uplot .u-over");
      box = over.getBoundingClientRect();
      y = box.top + box.height / 2;
      mouse(over, "mouseenter", box.left + box.width * 0.3, y);
      mouse(over, "mousemove", box.left + box.width * 0.3, y);
    },
    function () { mouse(over, "mousedown", box.left + box.width * 0.3, y); },
    function () { mouse(over, "mousemove", box.left + box.width * 0.6, y); },
    function () { mouse(over, "mouseup", box.left + box.width * 0.6, y); },
    function () { zoomed = ranges(); mouse(over, "dblclick", box.left + box.width * 0.5, y); },
    function () {
      reset = ranges();
      var tooltip = "";
      var canvas = document.querySelector("canvas.heatmap");
      if (canvas) {
        var r = canvas.getBoundingClientRect();
        canvas.dispatchEvent(new MouseEvent("mousemove", { clientX: r.left + r.width * 0.5, clientY: r.top + 8,
                                                            bubbles: true }));
        tooltip = document.getElementById("heat-tooltip").textContent;
      }
      document.body.dataset.probe = JSON.stringify({ zoomed: zoomed, reset: reset, tooltip: tooltip,
        errors: document.getElementById("report-errors").textContent });
    },
  ]);
})();
"""


def find_chromium() -> str:
    """Debian's chromium; installed with scripts/ensure-deps.sh when missing and root, else the test is skipped."""
    found = shutil.which("chromium")
    if found:
        return found
    if os.geteuid() != 0:
        raise unittest.SkipTest("chromium is not installed and this is not root: "
                                "apt-get install chromium (scripts/ensure-deps.sh chromium) to run this test")
    print("installing chromium: scripts/ensure-deps.sh chromium", file=sys.stderr)
    subprocess.run(["bash", str(SOURCE_DIR / "scripts" / "ensure-deps.sh"), "chromium"], check=True)
    found = shutil.which("chromium")
    if not found:
        raise unittest.SkipTest("scripts/ensure-deps.sh chromium installed no chromium executable")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--report", type=Path, default=Config.report)
    parser.add_argument("--work-dir", type=Path)
    parser.add_argument("--run", type=Path, action="append", default=[], dest="runs")
    parser.add_argument("--screenshot-out", type=Path)
    args, rest = parser.parse_known_args()
    Config.report = args.report.resolve()
    env_runs = [Path(p) for p in os.environ.get("GPUARCH_REPORT_RUNS", "").split(":") if p]
    Config.runs = [p.resolve() for p in (args.runs or env_runs)]
    Config.screenshot_out = args.screenshot_out.resolve() if args.screenshot_out else None
    temporary = None
    if args.work_dir is None:
        temporary = tempfile.TemporaryDirectory(prefix="gpuarch-report-test-")
        Config.work_dir = Path(temporary.name)
    else:
        Config.work_dir = args.work_dir.resolve()
        Config.work_dir.mkdir(parents=True, exist_ok=True)
    try:
        program = unittest.main(argv=[sys.argv[0]] + rest, exit=False, verbosity=2)
    finally:
        if temporary is not None:
            temporary.cleanup()
    result = program.result
    if not result.wasSuccessful():
        return 1
    if result.skipped and len(result.skipped) >= result.testsRun:
        return SKIPPED
    return 0


if __name__ == "__main__":
    sys.exit(main())
