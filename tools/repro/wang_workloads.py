#!/usr/bin/python3
"""Wang 2016 (OAWS) on the workloads: the CUDA programs of workloads/ that stand for Wang's Table 2 benchmarks, run
unchanged through gpuarch-run on the 15-SM Fermi preset with GTO, LRR, OAWS (static and dynamic), CCWS, SWL and
MASCAR. Writes the reproduction contract's JSON (support/include/gpuarch/support/repro.hpp) with --repro FILE: Fig. 8's IPC gains over
GTO (geometric means over the divergent and the coherent benchmarks) and Fig. 10's fully cached divergent loads.

usage: wang_workloads.py --build DIR [--size paper|small] [--quick] [--programs a,b] [--schedulers a,b] [--jobs N]
                         [--out DIR] [--sample a,b|all] [--resume] [--stored DIR] [--only-stored]
                         [--repro FILE]
--quick runs two programs at the small size (what `repro --quick` checks: the table is produced).
Every finished run leaves its totals in OUT/rows/ (one small JSON each, with the commit that produced it). --resume
reuses the passed ones, so a reproduction that takes days can be run a few programs at a time. Paper-size runs also
reuse the rows of --stored DIR/rows/ (by default tools/repro/results/oaws_workloads, the paper-scale runs kept in the
repository, which `repro wang` therefore only completes; copy new rows there to keep them; --stored '' for none). --only-stored runs nothing and builds the table from the stored rows,
leaving out programs with a run missing."""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from workload_runs import gmean, run_workload  # noqa: E402

# Wang 2016 Table 2 and the workload standing for each (workloads/README.md; PF is read as PathFinder).
DIVERGENT = ["atax", "bicg", "mvt", "gesummv", "syrk", "syr2k", "pathfinder", "bfs", "streamcluster", "kmeans",
             "spmv", "iix"]
COHERENT = ["3dconv", "2mm", "srad_v1", "srad_v2", "backprop", "fdtd2d", "3mm", "lbm"]
QUICK = ["atax", "2mm"]
# The paper-scale runs kept in the repository (one row JSON per run; see --stored).
STORED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "oaws_workloads")
MACHINE = "fermi"  # Wang's memory system (Table 1) on the GTX 480's 15 SMs
BASELINE = "gto"
# Fig. 8's policies; SWL-Best is the better of the two prebuilt warp limits per benchmark (Wang tunes it per
# benchmark, Table 3).
POLICIES = {"OAWS-Static": ["oaws_static"], "OAWS-Dyn": ["oaws_dynamic"], "CCWS": ["ccws"], "MASCAR": ["mascar"],
            "SWL-Best": ["swl_2", "swl_4"], "LRR": ["lrr"]}
# Published values (Wang 2016 Sec. 5.1, Fig. 8: IPC over GTO, averaged over the divergent benchmarks; Fig. 10:
# divergent loads kept fully in the L1D).
PAPER_GAIN = {"OAWS-Static": "+36.7%", "OAWS-Dyn": "+73.1%", "CCWS": "+9.7%", "MASCAR": "+1.7%", "SWL-Best": "+55.5%",
              "LRR": "n/a"}
PAPER_CACHED = {"GTO": "20%", "CCWS": "25%", "SWL-Best": "31%", "OAWS-Dyn": "45%"}


def pct(x):
    return f"{100 * (x - 1):+.1f}%"


def row_path(out, program, scheduler, size, sampled):
    return os.path.join(out, "rows", f"{program}.{MACHINE}.{scheduler}.{size}{'.sampled' if sampled else ''}.json")


def load_row(out, program, scheduler, size, sampled):
    """A stored run's totals, or None when there is none or it failed."""
    try:
        with open(row_path(out, program, scheduler, size, sampled)) as f:
            row = json.load(f)
    except (OSError, ValueError):
        return None
    return row if row.get("passed") else None


def store_row(out, row, sampled, commit):
    path = row_path(out, row["program"], row["scheduler"], row["size"], sampled)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(dict(row, commit=commit, sampled=sampled), f, indent=1, sort_keys=True)


def source_commit():
    """The commit of the source tree the simulator was built from (the rows record it), or "unknown"."""
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        head = subprocess.run(["git", "-C", here, "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", here, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        return head + ("+changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def provenance(runs):
    """A line naming the commits the table's runs came from (stored rows may be older than this build)."""
    commits = sorted({r.get("commit", "this build") for r in runs.values() if r.get("passed")})
    return f"\nRuns from commit{'s' if len(commits) > 1 else ''} {', '.join(commits)}.\n" if commits else ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True)
    ap.add_argument("--size", default="paper", choices=["paper", "small"])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--programs", default="")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--out", default="")
    ap.add_argument("--repro", default="")
    ap.add_argument("--resume", action="store_true", help="reuse the passed runs stored in OUT/rows/")
    ap.add_argument("--stored", default=STORED,
                    help="a directory whose rows/ are reused as well, for paper-size runs (default: the kept results, "
                         "%(default)s; '' for none)")
    ap.add_argument("--only-stored", action="store_true",
                    help="run nothing: the table from OUT/rows/ (programs with a missing run are left out)")
    ap.add_argument("--schedulers", default="",
                    help="run only these schedulers' missing runs (comma-separated), so that several processes can "
                         "share one program's runs; the table is built once every run is stored")
    ap.add_argument("--sample", default="",
                    help="programs (comma-separated, or 'all') whose runs use gpuarch-run --sample: sampled timing "
                         "for the largest inputs (docs/sampling.md); the table says which rows are sampled")
    args = ap.parse_args()
    size = "small" if args.quick else args.size
    programs = args.programs.split(",") if args.programs else (QUICK if args.quick else DIVERGENT + COHERENT)
    out = args.out or os.path.join(args.build, "tools", "repro", "workloads")
    schedulers = [BASELINE] + [s for names in POLICIES.values() for s in names]
    only = [s for s in args.schedulers.split(",") if s]
    if unknown := [s for s in only if s not in schedulers]:
        print(f"wang_workloads: unknown scheduler {', '.join(unknown)} (the reproduction runs {', '.join(schedulers)})",
              file=sys.stderr)
        return 1
    missing = [p for p in programs if not os.path.exists(os.path.join(args.build, "workloads", p))]
    if missing and not args.only_stored:
        print(f"wang_workloads: no workload executable for {', '.join(missing)} under {args.build}/workloads "
              "(build the target gpuarch_workloads; it needs nvcc)", file=sys.stderr)
        return 1

    sampled = set(programs) if args.sample == "all" else {p for p in args.sample.split(",") if p}
    commit = source_commit()
    runs = {}
    plan = []
    for p in programs:
        for s in schedulers:
            stored = None
            kept = [args.stored] if args.stored and size == "paper" else []
            # --only-stored takes a sampled or a full row alike (the table says which each row is); a run
            # reuses only rows with the timing it asked for.
            forms = [p in sampled, p not in sampled] if args.only_stored else [p in sampled]
            for where in ([out] if args.resume or args.only_stored else []) + kept:
                for form in forms:
                    stored = stored or load_row(where, p, s, size, form)
            if stored:
                runs[(p, s)] = stored
            elif not args.only_stored and (not only or s in only):
                plan.append((p, s))
    if args.only_stored:
        kept = [p for p in programs if all((p, s) in runs for s in schedulers)]
        if not kept:
            where = f"{out}/rows" + (f" or {args.stored}/rows" if args.stored and size == "paper" else "")
            print(f"wang_workloads: no {size}-size program has all its runs stored under {where}", file=sys.stderr)
            return 1
        programs = kept
        # The table states the timing each kept row was run with, whatever --sample says now.
        sampled = {p for p in programs if any(runs[(p, s)].get("sampled") for s in schedulers)}
    elif runs:
        print(f"reusing {len(runs)} stored runs; {len(plan)} to run", file=sys.stderr)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(run_workload, args.build, p, MACHINE, s, size, out,
                               ["--sample"] if p in sampled else [], ".sampled" if p in sampled else ""): (p, s)
                   for p, s in plan}
        for i, f in enumerate(concurrent.futures.as_completed(futures), 1):
            r = f.result()
            runs[futures[f]] = r
            store_row(out, r, r["program"] in sampled, commit)
            print(f"[{i}/{len(plan)}] {r['program']} {r['scheduler']}: {'ok' if r['passed'] else 'FAILED'} "
                  f"({r['seconds']:.0f} s)", file=sys.stderr, flush=True)
    if missing_runs := [(p, s) for p in programs for s in schedulers if (p, s) not in runs]:
        print(f"wang_workloads: runs stored in {out}/rows; the table waits for {len(missing_runs)} more "
              f"({', '.join(f'{p} {s}' for p, s in missing_runs)}); once every run is stored, --only-stored prints it",
              file=sys.stderr)
        return 0
    failed = [r for r in runs.values() if not r["passed"]]

    def best(p, names):
        ok = [runs[(p, s)] for s in names if runs[(p, s)]["passed"]]
        return max(ok, key=lambda r: r["ipc"]) if ok else None

    def gain(p, policy):
        base, r = runs[(p, BASELINE)], best(p, POLICIES[policy])
        return r["ipc"] / base["ipc"] if r and base["passed"] and base["ipc"] > 0 else None

    def cached(r):
        c = r["counters"] if r and r["passed"] else {}
        total = c.get("sm.l1.divergent_loads", 0)
        return c.get("sm.l1.fully_cached_divergent_loads", 0) / total if total else None

    divergent = [p for p in programs if p in DIVERGENT]
    coherent = [p for p in programs if p in COHERENT]
    config = f"{MACHINE}, 15 SMs, {size} inputs ({'workloads --size ' + size}), {len(divergent)} divergent programs"
    if sampled:
        config += f", sampled timing for {', '.join(sorted(sampled & set(divergent))) or 'none of them'}"
    rows = []
    for policy in POLICIES:
        gains = [g for p in divergent if (g := gain(p, policy)) is not None]
        rows.append({"item": f"Fig. 8: {policy} IPC over GTO, divergent benchmarks (GMean)",
                     "paper": PAPER_GAIN[policy], "ours": pct(gmean(gains)) if gains else "n/a", "config": config,
                     "note": ""})
    if coherent:
        gains = [g for p in coherent if (g := gain(p, "OAWS-Dyn")) is not None]
        rows.append({"item": "Sec. 5.1: OAWS-Dyn IPC over GTO, coherent benchmarks (GMean)",
                     "paper": "no significant gain", "ours": pct(gmean(gains)) if gains else "n/a",
                     "config": f"{MACHINE}, 15 SMs, {size} inputs, {len(coherent)} coherent programs", "note": ""})
    for policy, paper in PAPER_CACHED.items():
        names = [BASELINE] if policy == "GTO" else POLICIES[policy]
        values = [v for p in divergent if (v := cached(best(p, names))) is not None]
        rows.append({"item": f"Fig. 10: divergent loads fully cached in the L1D, {policy} (mean)", "paper": paper,
                     "ours": f"{100 * sum(values) / len(values):.0f}%" if values else "n/a", "config": config,
                     "note": ""})

    # Per-program table and Fig. 8's bars.
    policies = list(POLICIES)
    md = ["| program | kind | input | GTO IPC | " + " | ".join(policies) + " | GTO L1D miss rate | timing |",
          "|---|---|---|---|" + "---|" * len(policies) + "---|---|"]

    def timing(p):
        # Sampled rows state the largest stated cycle error over their runs (docs/sampling.md).
        done = [r for s in schedulers if (r := runs[(p, s)])["passed"] and r["cycles"] > 0]
        if p not in sampled or not any(r["sampled_launches"] for r in done):
            return "full" if p not in sampled else "full (no launch long or repeated enough to sample)"
        errors = [r["cycles_error"] / r["cycles"] for r in done]
        return f"sampled, stated error up to {100 * max(errors, default=0):.2f}%"
    series = {policy: [] for policy in policies}
    for p in divergent + coherent:
        base = runs[(p, BASELINE)]
        cells = []
        for policy in policies:
            g = gain(p, policy)
            cells.append(f"{g:.3f}" if g else "failed")
            series[policy].append(g or 0.0)
        md.append(f"| {p} | {'divergent' if p in DIVERGENT else 'coherent'} | {base.get('input', size)} | "
                  f"{base['ipc']:.2f} | " + " | ".join(cells) +
                  f" | {100 * base['l1_miss_rate']:.1f}% | {timing(p)} |" if base["passed"] else f"| {p} | failed |")
    report = {"experiment": "oaws_workloads", "paper": "Wang 2016",
              "title": f"Wang 2016 on the workloads ({size} inputs, 15-SM Fermi)", "rows": rows,
              "tables_markdown": f"IPC over GTO per workload ({size} inputs; every run checked by its program):\n\n" +
                                 "\n".join(md) + "\n" + provenance(runs),
              "plots": [{"file": "oaws_workloads_fig8.png", "kind": "bar", "ylabel": "IPC / GTO IPC",
                         "title": f"Wang 2016 Fig. 8 on the workloads ({size} inputs)", "labels": divergent + coherent,
                         "series": series}]}
    print(report["tables_markdown"])
    for r in rows:
        print(f"{r['item']}: paper {r['paper']}, ours {r['ours']}")
    if failed:
        for r in failed:
            print(f"FAILED: {r['program']} {r['scheduler']}: {' / '.join(r.get('error', []))}", file=sys.stderr)
    if args.repro:
        with open(args.repro, "w") as f:
            json.dump(report, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
