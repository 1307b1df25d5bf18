#!/usr/bin/env python3
"""Runs a program under gpuarch-run --stats and checks the JSON: every launch with its counters, totals that add up.

usage: check_stats.py GPUARCH_RUN PROGRAM JSON_PATH
"""
import json
import subprocess
import sys

run, program, path = sys.argv[1:4]
result = subprocess.run([run, "--machine", "fermi", "--stats", path, "--", program], capture_output=True, text=True)
if result.returncode != 0:
    sys.exit(f"program failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
with open(path) as f:
    doc = json.load(f)
launches = doc["launches"]
assert len(launches) == 2, launches
names = [l["name"] for l in launches]
assert any("gemm_tiled" in n for n in names) and any("histogram" in n for n in names), names
for l in launches:
    assert l["cycles"] > 0 and l["warp_instructions"] > 0, l
    assert l["stats"]["sm.warp_instructions"] == l["warp_instructions"], l["name"]
    assert l["stats"]["sm.thread_instructions"] == l["thread_instructions"], l["name"]
    assert 0 < l["achieved_occupancy"] <= 1, l["achieved_occupancy"]
    assert l["register_source"].startswith("cubin sm_75"), l["register_source"]
totals = doc["totals"]
assert totals["launches"] == 2
assert totals["cycles"] == sum(l["cycles"] for l in launches)
assert totals["thread_instructions"] == sum(l["thread_instructions"] for l in launches)
assert doc["machine"] == "fermi" and doc["variant"].startswith("Fermi/GTO"), doc["variant"]
print(f"stats JSON ok: {len(launches)} launches, {totals['cycles']} cycles")
