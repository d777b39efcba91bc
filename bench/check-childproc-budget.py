#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 the devalloc authors
"""Checks the results of cpu:bench_childproc_budget_run (bench/CMakeLists.txt).

That run (the CPU backend emulating CUDA's process-wide malloc heap, a 2 MiB parent heap, `mixed`
cells of 4 MiB that therefore run in child processes, a run budget spent during `launch`) must
keep the baseline's delegated cells, run, while the other allocator of the same child process,
over its share of the budget, is skipped: one allocator over budget must not keep the whole child
from starting (e27641a).
"""
import json
import sys


def main(path: str) -> int:
    records = json.load(open(path))["records"]
    mixed = [r for r in records if r["test"] == "mixed"]
    baseline = [r for r in mixed if r["allocator"] == "cuda-malloc"]
    other = [r for r in mixed if r["allocator"] == "coalesce-dynamic"]
    problems = []
    ok = [r for r in baseline if r["status"] == "ok"]
    if not ok:
        problems.append("no cuda-malloc cell of `mixed` ran (statuses: %s)" % sorted({r["status"] for r in baseline}))
    delegated = [r for r in ok if r.get("child_process") is True]
    if ok and not delegated:
        problems.append("cuda-malloc's `mixed` cells ran in the parent's heap, not in a child process")
    if not other or any(r["status"] != "skipped_budget" for r in other):
        problems.append("coalesce-dynamic's `mixed` cells must all be skipped_budget (statuses: %s)"
                        % sorted({r["status"] for r in other}))
    errors = [r for r in records if r["status"] == "error"]
    if errors:
        problems.append("%d records with status error, e.g. %s" % (len(errors), errors[0].get("error", "")))
    print("mixed: cuda-malloc %d ok (%d in a child process), coalesce-dynamic %d skipped_budget"
          % (len(ok), len(delegated), sum(r["status"] == "skipped_budget" for r in other)))
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
