#!/usr/bin/env python3
"""The layering table of docs/architecture.md ("Slots and what may include what") against the includes.

Every row names folders (or top-level headers) in backticks in its first column and, in its last column, the
folders and headers they may include, also in backticks; a folder may always include itself, and "everything"
(the word, in the last column) allows any gpuarch header. Every `#include <gpuarch/...>` of every header under
include/gpuarch must be allowed by its row, and every folder and top-level header must have a row. Prints each
violation with its file and line, and exits 1 when there is any.
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[2])
include_root = root / "include" / "gpuarch"
doc = (root / "docs" / "architecture.md").read_text()

section = doc.split("## Slots and what may include what", 1)
if len(section) != 2:
    sys.exit("docs/architecture.md has no 'Slots and what may include what' section")
rows = [line for line in section[1].split("\n## ", 1)[0].splitlines() if line.startswith("| `")]

def unit_of(name: str) -> str:
    """`sched/` -> sched, `sm.hpp` -> sm.hpp."""
    return name.rstrip("/")

allowed: dict[str, set[str] | None] = {}
for row in rows:
    cells = [c.strip() for c in row.strip("|").split("|")]
    owners = [unit_of(n) for n in re.findall(r"`([^`]+)`", cells[0]) for n in n.split()]
    may = cells[-1]
    targets = None if "everything" in may else {unit_of(n) for n in re.findall(r"`([^`]+)`", may)}
    for owner in owners:
        allowed[owner] = targets

def unit_of_path(path: pathlib.Path) -> str:
    rel = path.relative_to(include_root)
    return rel.parts[0] if len(rel.parts) > 1 else rel.name

errors = []
units = {unit_of_path(p) for p in include_root.rglob("*.hpp")}
for unit in sorted(units - allowed.keys()):
    errors.append(f"docs/architecture.md: no layering row for `{unit}`")
include = re.compile(r'#include\s*[<"]gpuarch/([^>"]+)[>"]')
for header in sorted(include_root.rglob("*.hpp")):
    owner = unit_of_path(header)
    targets = allowed.get(owner)
    if targets is None:
        continue
    for number, line in enumerate(header.read_text().splitlines(), 1):
        m = include.search(line)
        if not m:
            continue
        target = m.group(1).split("/")[0]
        if target == owner or target in targets:
            continue
        errors.append(f"{header.relative_to(root)}:{number}: `{owner}` includes `{m.group(1)}`, which its row of "
                      f"docs/architecture.md's layering table does not allow")

for e in errors:
    print(e)
print(f"layering: {len(list(include_root.rglob('*.hpp')))} headers, {len(rows)} rows, {len(errors)} violations")
sys.exit(1 if errors else 0)
