#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 the devalloc authors
"""bench/check-parent-retry.py WRAPPER BUILD_DIR OUT_DIR

CTest cpu:bench_parent_retry (bench/CMakeLists.txt): runs bench/devalloc-bench (WRAPPER) on the CPU
backend of BUILD_DIR (DEVALLOC_BENCH_BACKEND=cuda: on the GPU) with --inject-fault scatter:parent, which makes the benchmark's own process
treat its device as unusable after Scatter's first cell, as a sticky CUDA error does on the GPU.
The wrapper must run the unfinished tests again in a new process (without the option) and merge
the parts: exit status 5, every test with records of both allocators and none skipped for an
unusable device or failed, meta `interrupted_by` naming Scatter's cell, the rerun's output beside
OUT_DIR, and tools/check-results failing the run for the interruption (and for nothing else).
"""
import json
import os
import subprocess
import sys

TESTS = ["launch", "mixed"]


def main(wrapper: str, build: str, out: str) -> int:
    env = dict(os.environ, DEVALLOC_BENCH_BUILD=build)
    env.setdefault("DEVALLOC_BENCH_BACKEND", "cpu")  # DEVALLOC_BENCH_BACKEND=cuda: the same on a GPU
    env.pop("DEVALLOC_BENCH_NO_RETRY", None)
    for stale in (out, out + "-retry1", out + "-retry2"):
        subprocess.run(["rm", "-rf", stale, stale + ".part.json"], check=True)
    run = subprocess.run(["bash", wrapper, "--quick", "--tests", ",".join(TESTS), "--allocators", "cuda-malloc,scatter",
                          "--inject-fault", "scatter:parent", "--quiet", "--no-table", "--out", out],
                         env=env, capture_output=True, text=True)
    print(run.stderr[-2000:])
    problems = []
    if run.returncode != 5:
        problems.append(f"exit status {run.returncode}, expected 5 (a run interrupted and resumed)")
    if not os.path.isdir(out + "-retry1"):
        problems.append(f"no rerun output in {out}-retry1")
    if os.path.isdir(out + "-retry2"):
        problems.append("a second rerun: the first one faulted too (the option must not reach it)")
    data = json.load(open(os.path.join(out, "results.json")))
    meta, records = data["meta"], data["records"]
    stops = meta.get("interrupted_by") or []
    if len(stops) != 1 or stops[0].get("allocator") != "scatter" or "injected" not in str(stops[0].get("error")):
        problems.append(f"interrupted_by should name Scatter's injected fault once: {stops}")
    for t in TESTS:
        for a in ("cuda-malloc", "scatter"):
            if not [r for r in records if r["test"] == t and r["allocator"] == a and r["status"] == "ok"]:
                problems.append(f"{t} / {a}: no record with status ok")
    bad = [r for r in records if r["status"] == "error" or "unusable" in str(r.get("note", ""))]
    if bad:
        problems.append(f"{len(bad)} records failed or skipped for an unusable device, e.g. {bad[0].get('cell')}")
    keys = [(r["test"], r["allocator"], r.get("cell"), r.get("variant"), r.get("repetition"), r.get("sample"))
            for r in records]
    if len(keys) != len(set(keys)):
        problems.append("a cell appears twice in the merged records")
    check = subprocess.run([sys.executable, os.path.join(os.path.dirname(wrapper), "..", "tools", "check-results"),
                            os.path.join(out, "results.json")], capture_output=True, text=True)
    lines = [l for l in check.stdout.splitlines() if not l.startswith("check-results:")]
    if check.returncode != 1 or len(lines) != 1 or "interrupted the run" not in lines[0]:
        problems.append(f"check-results should fail for the interruption alone: {check.returncode}, {check.stdout!r}")
    for p in problems:
        print("FAIL:", p)
    print(f"check-parent-retry: {len(records)} records, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    sys.exit(main(*sys.argv[1:]))
