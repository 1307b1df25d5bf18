#!/usr/bin/env python3
"""The CUDA runtime's and gpuarch-run's own sources must not include the SM or the GPU.

They only pass options and results along (gpuarch/timed_launch.hpp, support/simulator.hpp); the typed variants live
in the registry's generated units. A source that reached sm.hpp or gpu.hpp, even through another header, would
recompile after every change to an SM header, and a runtime built with one registry unit
(GPUARCH_RUNTIME_UNITS, docs/cuda_runtime.md) would take about four times as long to rebuild. Follows every
`#include "..."` and `#include <gpuarch/...>` textually (conditional includes count as taken) from each source and
prints the chain that reaches a forbidden header; exits 1 when there is one.
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parents[2]).resolve()
search = [root / "include", root / "support" / "include", root / "support" / "src"]
sources = sorted(
    [root / "support/include/gpuarch/support/simulator.hpp", root / "support/src/registry.cpp"]
    + [f for folder in ("tools/cudart", "tools/gpuarch-run") for pattern in ("*.cpp", "*.hpp")
       for f in (root / folder).glob(pattern)])
# The SM, the GPU and every slot's policies: what a registry unit instantiates.
forbidden_files = {"gpuarch/sm.hpp", "gpuarch/gpu.hpp", "gpuarch/core_interface.hpp", "gpuarch/machines.hpp"}
forbidden_dirs = {"gpuarch/" + d for d in ("sched", "pipeline", "mem", "regfile", "exec", "frontend", "fetch")}
include = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def resolve(name: str, quoted: bool, including: pathlib.Path) -> pathlib.Path | None:
    candidates = ([including.parent / name] if quoted else []) + [d / name for d in search]
    return next((c.resolve() for c in candidates if c.is_file()), None)


def forbidden(path: pathlib.Path) -> bool:
    rel = path.relative_to(root / "include").as_posix() if path.is_relative_to(root / "include") else ""
    return rel in forbidden_files or any(rel.startswith(d + "/") for d in forbidden_dirs)


errors = []
for source in sources:
    if not source.is_file():
        errors.append(f"{source.relative_to(root)}: listed here but missing; update this script")
        continue
    chain_to = {source.resolve(): None}  # header -> the file that first included it
    queue = [source.resolve()]
    while queue:
        current = queue.pop()
        for quote, name in include.findall(current.read_text()):
            if quote == "<" and not name.startswith("gpuarch/"):
                continue  # the standard library and third-party headers
            target = resolve(name, quote == '"', current)
            if target is None or target in chain_to:
                continue  # generated headers (variant_units.hpp) hold only names; seen ones are walked already
            chain_to[target] = current
            if forbidden(target):
                chain, step = [], target
                while step is not None:
                    chain.append(str(step.relative_to(root)))
                    step = chain_to[step]
                errors.append(f"{source.relative_to(root)} includes {chain[0]}: " + " <- ".join(chain))
                continue
            queue.append(target)

for e in errors:
    print(e)
print(f"runtime includes: {len(sources)} sources, {len(errors)} reaching the SM or the GPU")
sys.exit(1 if errors else 0)
