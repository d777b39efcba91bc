import re,collections,sys
d=collections.defaultdict(list); vs=[]
run=v=cell=None
for l in open(sys.argv[1]):
    m=re.match(r'##### run (\d) (\w+)',l)
    if m:
        run,v=m.groups()
        if v not in vs: vs.append(v)
        continue
    m=re.match(r'### (.*)',l)
    if m: cell=m.group(1); continue
    m=re.search(r'alloc\s+([\d.]+)G free\s+([\d.]+)G',l)
    if m: d[(cell,v)].append(float(m.group(1)))
cells=[]
for (c,v) in d:
    if c not in cells: cells.append(c)
import statistics
print(f"{'cell':30s}"+"".join(f"{v:>22s}" for v in vs))
for c in cells:
    print(f"{c:30s}"+"".join(f"{statistics.median(d[(c,v)]):6.2f} ({'/'.join(f'{x:.2f}' for x in d[(c,v)])})".rjust(22) for v in vs))
