#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 the devalloc authors
"""bench/check-childproc-retry.py RESULTS.json ALLOCATOR {completed|failed again}

Checks a run of cpu:bench_childproc_retry_* (bench/CMakeLists.txt): the CPU backend emulating
CUDA's process-wide malloc heap, with --inject-fault making a child process's device unusable (or
the child die) while it runs ALLOCATOR's cells, as a sticky CUDA error does on the GPU
(docs/coalescing.md, "Known defects"). Every test of the run must list that fault in meta
`child_faults` with the expected retry outcome, ALLOCATOR's records must all come from the retry
(`retried_after`), the other allocators' records from the first child or the parent, and no record
may say the device was unusable unless the retry failed too, nor appear twice.
"""
import json
import sys


def main(path: str, allocator: str, outcome: str) -> int:
    data = json.load(open(path))
    meta, records = data["meta"], data["records"]
    problems = []
    tests = [t["name"] if isinstance(t, dict) else t for t in meta.get("tests") or []]
    faults = meta.get("child_faults") or []
    for t in tests:
        mine = [f for f in faults if f["test"] == t]
        if not mine:
            problems.append(f"{t}: no child fault recorded")
        for f in mine:
            if allocator not in f["allocators"]:
                problems.append(f"{t}: the retry did not run {allocator} (ran {f['allocators']})")
            if f["retry"] != outcome:
                problems.append(f"{t}: retry {f['retry']!r}, expected {outcome!r}")
    own = [r for r in records if r["allocator"] == allocator]
    if not own:
        problems.append(f"no record of {allocator}")
    if any(not r.get("retried_after") for r in own):
        problems.append(f"{allocator}: records of the first attempt were kept")
    unusable = [r for r in records if "unusable" in str(r.get("note", "")) or r["status"] == "error"]
    if outcome == "completed" and unusable:
        problems.append(f"{len(unusable)} records with an error or an unusable device after a completed retry")
    if outcome != "completed" and not unusable:
        problems.append("a retry that failed again left no error record")
    # Each cell once: a child writes its records as it goes and the rest at its end, never twice.
    keys = [(r["test"], r["allocator"], r.get("cell"), r.get("variant"), r.get("repetition"), r.get("sample"))
            for r in records]
    if len(set(keys)) != len(keys):
        problems.append(f"{len(keys) - len(set(keys))} records written twice")
    print(f"{len(faults)} child faults over {len(tests)} tests; {len(own)} records of {allocator}")
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    sys.exit(main(*sys.argv[1:]))
