#!/usr/bin/env python3
"""Checks gpuarch-run's GPGPU-Sim-named statistics (--stats-format gpgpusim) on tests/cudart/programs/gpgpusim_stats.cu
against counts worked out by hand (the program's header explains them).

usage: check_gpgpusim_stats.py GPUARCH_RUN PROGRAM WORKDIR
Runs the program on the gtx480 machine twice, with the L1 flushed between kernels (the preset) and without."""
import json
import os
import re
import subprocess
import sys

run, program, workdir = sys.argv[1:4]
os.makedirs(workdir, exist_ok=True)
failures = []


def check(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got}, expected {want}")


def launches(flush):
    stats = os.path.join(workdir, f"stats_flush_{flush}.json")
    cmd = [run, "--machine", "gtx480", "--stats-format", "gpgpusim", "--stats", stats,
           "--set", f"l1.flush_between_kernels={'true' if flush else 'false'}", "--", program]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0 or "gpgpusim_stats: ok" not in p.stdout:
        sys.exit(f"FAILED: {' '.join(cmd)} exited {p.returncode}\n{p.stdout}\n{p.stderr}")
    # The stderr blocks carry GPGPU-Sim's names, one `name = value` per line, a block per launch.
    blocks = re.findall(r"^kernel_name = (\S+)\nkernel_launch_uid = (\d+)\n", p.stderr, re.M)
    check(f"flush={flush}: kernel blocks on stderr", [uid for _, uid in blocks], ["1", "2", "3"])
    for name in ("gpu_sim_cycle", "gpu_tot_sim_insn", "gpu_tot_ipc", "L1D_total_cache_miss_rate",
                 "L2_total_cache_accesses", "W0_Scoreboard", "dram_eff"):
        if not re.search(rf"^{name} = [0-9.]+$", p.stderr, re.M):
            failures.append(f"flush={flush}: no '{name} = ' line on stderr")
    with open(stats) as f:
        doc = json.load(f)
    return doc


for flush in (True, False):
    doc = launches(flush)
    runs = doc["launches"]
    check(f"flush={flush}: launches", len(runs), 3)
    tot_cycles = tot_insn = 0
    for i, r in enumerate(runs):
        g = r["gpgpusim"]
        tot_cycles += r["cycles"]
        tot_insn += r["thread_instructions"]
        check(f"launch {i + 1} gpu_sim_cycle", g["gpu_sim_cycle"], r["cycles"])
        check(f"launch {i + 1} gpu_sim_insn", g["gpu_sim_insn"], r["thread_instructions"])
        check(f"launch {i + 1} gpu_tot_sim_cycle", g["gpu_tot_sim_cycle"], tot_cycles)
        check(f"launch {i + 1} gpu_tot_sim_insn", g["gpu_tot_sim_insn"], tot_insn)
        # One load line and one store line per launch.
        check(f"flush={flush} launch {i + 1} L1D accesses", g["L1D_total_cache_accesses"], 2)
        check(f"flush={flush} launch {i + 1} L1D pending hits", g["L1D_total_cache_pending_hits"], 0)
    # Launch 1: the cold load and the store to a line the L1 never held both miss.
    check(f"flush={flush} launch 1 L1D misses", runs[0]["gpgpusim"]["L1D_total_cache_misses"], 2)
    check(f"flush={flush} launch 1 L1D miss rate", runs[0]["gpgpusim"]["L1D_total_cache_miss_rate"], 1.0)
    # Launch 2: the store hits the line its load brought; the load misses only when the L1 was flushed.
    check(f"flush={flush} launch 2 L1D misses", runs[1]["gpgpusim"]["L1D_total_cache_misses"], 1 if flush else 0)
    # Launch 3: launch 2's store evicted the line (write-evict), so the load misses either way; the store hits.
    check(f"flush={flush} launch 3 L1D misses", runs[2]["gpgpusim"]["L1D_total_cache_misses"], 1)
    # L2: each launch writes one line through and reads one line when its L1 load missed (all but launch 2
    # without the flush). Launch 1 also reads the line of kernel parameters its constant-cache miss asks for (the
    # constant cache is not flushed, so later launches hit it). Launch 1's three accesses are cold misses;
    # afterwards every line is in the L2.
    for i, r in enumerate(runs):
        reads = (0 if (i == 1 and not flush) else 1) + (1 if i == 0 else 0)
        check(f"flush={flush} launch {i + 1} L2 accesses", r["gpgpusim"]["L2_total_cache_accesses"], reads + 1)
        check(f"flush={flush} launch {i + 1} L2 misses", r["gpgpusim"]["L2_total_cache_misses"], 3 if i == 0 else 0)
    t = doc["totals"]["gpgpusim"]
    check(f"flush={flush} totals gpu_tot_sim_cycle", t["gpu_tot_sim_cycle"], tot_cycles)
    check(f"flush={flush} totals L1D accesses", t["L1D_total_cache_accesses"], 6)
    check(f"flush={flush} totals L1D misses", t["L1D_total_cache_misses"], 4 if flush else 3)

if failures:
    print("FAILED:\n  " + "\n  ".join(failures))
    sys.exit(1)
print("ok: GPGPU-Sim statistics match the hand counts, with and without the L1 flush")
