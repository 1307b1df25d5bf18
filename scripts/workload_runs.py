"""Runs one workload (workloads/, a CUDA program built with nvcc -cudart shared) through gpuarch-run and reads back
its totals: shared by the demo (scripts/demo.py) and the reproduction of Wang 2016 on the workloads
(tools/repro/wang_workloads.py)."""
import json
import math
import os
import subprocess
import tempfile
import time


def all_workloads():
    """The name of every workload program (workloads/<suite>/<name>.cu, built as BUILD/workloads/<name>), sorted."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "workloads")
    return sorted(os.path.splitext(name)[0] for suite in os.listdir(root) if os.path.isdir(os.path.join(root, suite))
                  for name in os.listdir(os.path.join(root, suite)) if name.endswith(".cu"))


def run_timed(cmd, env):
    """Runs cmd to completion; returns (CompletedProcess with text stdout and stderr, CPU seconds of the process and
    the children it waited for). CPU time, unlike wall time, does not grow when other work shares the host, so
    speed comparisons between runs made at different moments stay fair."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, text=True, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(cmd, proc.returncode, out.read(), err.read()), usage.ru_utime + usage.ru_stime


def workload_command(build, program, machine, scheduler, size, stats, options=()):
    """The gpuarch-run command line that runs workload `program` at `size` on `machine` under `scheduler`, writing
    its statistics to `stats`; `options` go to gpuarch-run before the program."""
    cmd = [os.path.join(build, "tools", "gpuarch-run", "gpuarch-run"), "--machine", machine, "--scheduler",
           scheduler, "--quiet", "--stats", stats, *options]
    if size == "paper":
        # The suites' standard inputs run longer than the per-launch safety limits (20 M cycles, 40 M warp
        # instructions) allow: lift them.
        cmd += ["--set", "max_cycles=0", "--set", "max_warp_instructions=0"]
    return cmd + ["--", os.path.join(build, "workloads", program), "--size", size]


def run_workload(build, program, machine, scheduler, size, out_dir, options=(), tag=""):
    """One run; returns a dict with `passed` and, when it passed, the GPGPU-Sim-named totals and a few of gpuarch's
    own counters summed over the launches. Each program gets its own PTX cache under out_dir/cache. `options` go to
    gpuarch-run (`--sample`), and `tag` names the run's statistics file apart from others of the same program."""
    stats = os.path.join(out_dir, "runs", f"{program}.{machine}.{scheduler}.{size}{tag}.json")
    os.makedirs(os.path.dirname(stats), exist_ok=True)
    env = dict(os.environ, GPUARCH_CACHE_DIR=os.path.join(out_dir, "cache", program))
    cmd = workload_command(build, program, machine, scheduler, size, stats, ["--stats-format", "gpgpusim", *options])
    start = time.monotonic()
    p, cpu_seconds = run_timed(cmd, env)
    row = {"program": program, "machine": machine, "scheduler": scheduler, "size": size,
           "seconds": time.monotonic() - start, "cpu_seconds": cpu_seconds,
           "passed": p.returncode == 0 and f"{program}: ok" in p.stdout}
    if not row["passed"]:
        row["error"] = (p.stdout + p.stderr).strip().splitlines()[-3:]
        return row
    # The program's own line, `<name>: ok (<size>, <input>)`, says what input it ran (tables quote it).
    for line in p.stdout.splitlines():
        prefix = f"{program}: ok ("
        if line.startswith(prefix) and line.endswith(")"):
            row["input"] = line[len(prefix):-1]
    with open(stats) as f:
        doc = json.load(f)
    g = doc["totals"]["gpgpusim"]
    info = doc["machine_info"]
    counters = {}
    # The warp pools of the launch that executes the most thread instructions (the one that decides the run's
    # cycles): warps an SM holds at once, per scheduler, and how many the kernel's occupancy allows.
    dominant, dominant_insn = None, -1
    for launch in doc["launches"]:
        for name, value in launch["stats"].items():
            if isinstance(value, (int, float)):
                counters[name] = counters.get(name, 0) + value
        insn = launch["stats"].get("sm.thread_instructions", 0)
        if insn > dominant_insn:
            dominant, dominant_insn = launch, insn
    pool = warp_pool(dominant, info) if dominant else (0.0, 0.0)
    row.update(cycles=g["gpu_tot_sim_cycle"], insn=g["gpu_tot_sim_insn"], ipc=g["gpu_tot_ipc"],
               l1_miss_rate=g["L1D_total_cache_miss_rate"], l2_miss_rate=g["L2_total_cache_miss_rate"],
               launches=len(doc["launches"]), cycles_error=doc["totals"].get("cycles_error", 0.0),
               sampled_launches=doc["totals"].get("sampled_launches", 0), warps_per_scheduler=pool[0],
               warp_pool_per_scheduler=pool[1], sms=info["sms"],
               dominant_ctas=dominant["ctas"] if dominant else 0,
               resident_ctas_per_sm=dominant["resident_ctas_per_sm"] if dominant else 0, counters=counters)
    return row


def warp_pool(launch, info):
    """(warps an SM holds at once per scheduler, warps per scheduler the kernel's occupancy allows) for one launch:
    the CTAs an SM can hold (resident_ctas_per_sm: threads, warps, CTAs, registers and shared memory), or its
    round-robin share of the grid when that is smaller, times the warps of a CTA. The pools are full when the two
    are equal: the grid gives every SM all the CTAs it can hold."""
    threads = launch["block"][0] * launch["block"][1] * launch["block"][2]
    warps_per_cta = -(-threads // info["warp_size"])
    schedulers = max(1, info["schedulers_per_sm"])
    resident = launch["resident_ctas_per_sm"]
    held = min(resident, -(-launch["ctas"] // info["sms"]))
    return held * warps_per_cta / schedulers, resident * warps_per_cta / schedulers


def gmean(values):
    values = [v for v in values if v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else 0.0
