"""prof.py NCU_SOURCE_CSV[.gz] [TOP]: per-address attribution of ncu --page source (cuda,sass) CSV: each SASS instruction is listed under
every frame of its inline stack; it is counted once, at its innermost frame in devalloc's own logic
(CCCL, intrinsics and detail/atomic.hpp wrappers skipped)."""
import csv, gzip, io, collections, os, sys, re
# Function names come from the source lines of the profiled library: DEVALLOC_INCLUDE=<include dir
# of c5db8c9> (e.g. of `git worktree add /tmp/c5 c5db8c9`); default: this tree's.
INCLUDE = os.environ.get('DEVALLOC_INCLUDE') or os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', '..', 'include')
RANK = [('plain_kernels', 9), ('/devalloc/allocator.hpp', 8), ('creation/scatter.hpp', 7), ('scatter/search.hpp', 6),
        ('scatter/fill.hpp', 5), ('scatter/pages.hpp', 5), ('scatter/heap.hpp', 5), ('detail/bitfield_page.hpp', 4),
        ('detail/page_bitmap.hpp', 3), ('detail/bitfield.hpp', 3), ('detail/fixed_divisor.hpp', 3), ('detail/hash.hpp', 3),
        ('detail/warp.hpp', 2), ('alignment/', 2)]
def rank(f):
    for k, v in RANK:
        if k in f: return v
    return None
def load(path):
    with gzip.open(path, 'rt') as f: L = [l for l in f if l.startswith('"')]
    cur = None; line = None; src = None; hdr = None
    frames = collections.defaultdict(list); data = {}
    for r in csv.reader(io.StringIO(''.join(L))):
        if not r: continue
        if r[0] == 'File Path': cur = r[1]; continue
        if r[0] == 'Function Name': continue
        if r[0] == 'Line No':
            hdr = r
            if len(r) < 20: cur = None
            continue
        if cur is None: continue
        if r[0] != '': line = int(r[0]); src = r[1]; continue
        if not r[2].startswith('0x'): continue
        a = int(r[2], 16)
        frames[a].append((cur, line, src))
        if a not in data:
            st = {hdr[i][6:]: int(r[i]) for i in range(len(hdr)) if hdr[i].startswith('stall_') and '(Not' not in hdr[i] and i < len(r) and r[i].isdigit()}
            data[a] = (int(r[4] or 0), int(r[7] or 0), st)
    out = {}
    for a, fr in frames.items():
        cand = [(rank(f), f, l, s) for f, l, s in fr if rank(f) is not None]
        if cand:
            _, f, l, s = min(cand)
            out[a] = (f.split('/include/')[-1].split('/bench/')[-1], l, s) + data[a]
        else:
            out[a] = (fr[0][0].split('/')[-1], fr[0][1], fr[0][2]) + data[a]
    return out
def func_of(path, l, cache={}):
    p = os.path.join(INCLUDE, path)
    if p not in cache:
        try:
            src = open(p).read().splitlines()
        except OSError:
            cache[p] = []; return None
        cache[p] = [(i + 1, re.sub(r'\s+', ' ', s.strip())[:60]) for i, s in enumerate(src)
                    if re.match(r'\s*(template\b.*)?(static )?(DEVALLOC_\w+ )+.*\w+\(', s)]
    best = None
    for s, n in cache[p]:
        if s <= l: best = n
    return best
if __name__ == '__main__':
    d = load(sys.argv[1]); top = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    S = sum(v[3] for v in d.values()); I = sum(v[4] for v in d.values())
    tot = collections.Counter()
    for v in d.values(): tot.update(v[5])
    T = sum(tot.values())
    print(f"SASS instructions {len(d)} ({16 * len(d)} bytes), warp stall samples {S}, instructions executed {I}")
    print("stall reasons: " + ', '.join(f"{k} {v * 100 / T:.1f} %" for k, v in tot.most_common(8)))
    lines = collections.defaultdict(lambda: [0, 0, 0, collections.Counter(), ''])
    funcs = collections.defaultdict(lambda: [0, 0, 0])
    for a, (f, l, s, smp, ins, st) in d.items():
        x = lines[(f, l)]; x[0] += smp; x[1] += ins; x[2] += 1; x[3].update(st); x[4] = s
        fn = func_of(f, l) if f.startswith('devalloc/') else None
        y = funcs[(f, fn)]; y[0] += smp; y[1] += ins; y[2] += 1
    print(f"## top {top} source lines by stall samples: samples %, instructions executed %, SASS instructions there, top stall reasons")
    for (f, l), (smp, ins, n, st, s) in sorted(lines.items(), key=lambda kv: -kv[1][0])[:top]:
        r = ', '.join(f"{k} {v * 100 // max(smp, 1)}%" for k, v in st.most_common(2))
        print(f"{smp * 100 / S:5.1f} % {ins * 100 / I:5.1f} % {n:5d}  {f}:{l}  [{r}]")
    print("## functions (innermost frame) by SASS instructions: instructions, samples %, executed %")
    for (f, fn), (smp, ins, n) in sorted(funcs.items(), key=lambda kv: -kv[1][2])[:top]:
        print(f"{n:6d} {smp * 100 / S:5.1f} % {ins * 100 / I:5.1f} %  {f}  {fn}")
