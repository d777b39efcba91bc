#!/usr/bin/env python3
"""python3 compare.py DIR: devalloc-bench's FDGMalloc cells of the builds in DIR (NAME-RUN.json.gz),
each build against `base`: geometric mean of the cells' median alloc/s ratios per test, allocator
and API, and the three largest drops and gains."""
import collections, glob, gzip, json, math, os, sys

d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
vals = collections.defaultdict(lambda: collections.defaultdict(list))
for p in sorted(glob.glob(os.path.join(d, "*.json.gz"))):
    build = os.path.basename(p).rsplit("-", 1)[0]
    for r in json.load(gzip.open(p))["records"]:
        if r.get("status") == "ok" and r.get("alloc_per_s"):
            vals[(r["test"], r["allocator"], r["cell"])][build].append(r["alloc_per_s"])


def med(x):
    return sorted(x)[len(x) // 2]


builds = sorted({b for v in vals.values() for b in v} - {"base"})
for nb in builds:
    groups, rows = collections.defaultdict(list), []
    for k, v in vals.items():
        if "base" in v and nb in v:
            ratio = med(v[nb]) / med(v["base"])
            groups[(k[0], k[1], "warp" if "api=warp" in k[2] else "host")].append(ratio)
            rows.append((ratio, k, v["base"], v[nb]))
    print(f"== {nb} / base")
    for g, rs in sorted(groups.items()):
        gm = math.exp(sum(map(math.log, rs)) / len(rs))
        print(f"{g[0]:12s} {g[1]:9s} {g[2]} cells {len(rs):3d} geomean {gm:.3f} min {min(rs):.2f} max {max(rs):.2f}")
    rows.sort()
    for ratio, k, b, n in rows[:3] + rows[-3:]:
        print(f"  {ratio:.2f} {k[0]} {k[1]} {k[2]}: " + " ".join("%.3g" % x for x in b) + " -> " +
              " ".join("%.3g" % x for x in n))
