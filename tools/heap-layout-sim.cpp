// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// tools/heap-layout-sim.cpp — a one-shot fill of a GPU heap simulated on the host, to compare heap
// layouts before building them (docs/notes/two-granularity-heap.md).
//
//   g++ -O2 -std=c++17 -pthread tools/heap-layout-sim.cpp -o /tmp/heap-layout-sim && /tmp/heap-layout-sim
//
// N requests (2^17 and 2^18), sizes uniform in 16-4096 B rounded to 16, one allocation each in a
// random order, into a heap of their sum over f (0.8, 0.9), mean of three seeds. The heap is units
// of U bytes in 64-unit map words. A request of at most T bytes is a class request: its chunk
// size and chunks a page are Scatter's (class_of) for 4096-byte pages, or for pages of P_small
// bytes when its chunk is at most C_small; each class has K slots (a request picks one at random),
// each with an open page; a slot whose page is full opens a free aligned page (first such page from
// a random map word); with none left the request takes room in any open page of its class, then
// of a larger class up to twice its size, else fails. A larger request takes a run of ceil(s / U)
// units (the first run from a random map word, wrapping), else fails. A layout may count `meta`
// bytes of bookkeeping per unit inside the pool (the heap is then the demand over f, less its
// tables: as fill_anatomy sizes its pools). U = 4096 with T = 4096 is
// Scatter's layout (K = 528: an H100's slot count; the GPU's fill_anatomy fails 9.1 / 17.4 % at
// 80 / 90 %, this model 8.6 / 17.0 %). Prints a markdown table: failed requests (class and run
// requests apart), and the heap's bytes as stranded (free chunks of open pages), fragments (free
// units that form no free 4096-byte page), free pages, page tails and used, with the rounding
// (chunk bytes over the served requests' bytes); the parts are checked to sum to the heap.
// A planning tool, not a model of the GPU's timing: it says how much room a layout leaves, not
// how fast it is.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <thread>
#include <vector>
using namespace std;
typedef uint64_t u64;
typedef unsigned __int128 u128;

struct RNG {
  u64 s;
  explicit RNG(u64 seed) : s(seed * 0x2545F4914F6CDD1DULL + 12345) {}
  u64 next()
  {
    s += 0x9E3779B97F4A7C15ULL;
    u64 z = s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  u64 below(u64 n) { return next() % n; }
};

struct Result {
  double fail = 0, freepg = 0, frag = 0, strand = 0, tail = 0, used = 0, round = 0;
  double largeFail = 0, classFail = 0;
};

struct Layout {
  int U, T, K, Ps, Cs;  // Ps = P_small (4096 = existing behaviour), Cs = C_small (ignored when Ps == 4096)
  double meta = 0;      // bookkeeping bytes per unit inside the pool (0: the heap is all data)
  int unitBytes() const
  {
    return U == 4096 ? Ps : U;
  }  // baseline: units of P_small bytes so small pages are whole units
};

// Class table for demand sizes 16..4096 (multiples of 16), for a given (P_small, C_small)
struct ClassTable {
  vector<int> cOf;              // index s/16 -> class index
  vector<int> c, chunks, page;  // per class (sorted by c): chunk size, chunks per page, page bytes
  ClassTable(int Ps, int Cs)
  {
    map<int, int> cpage;  // c -> page bytes
    vector<int> cs(257, 0);
    for (int s = 16; s <= 4096; s += 16) {
      int k4 = 4096 / s, c4 = (4096 / k4 / 16) * 16;
      bool small = Ps < 4096 && c4 <= Cs;
      // check: membership by 4096-page chunk, by request size and by P_small chunk agree
      if (Ps < 4096) {
        int kP = Ps / s, cP = kP ? (Ps / kP / 16) * 16 : 1 << 30;
        if (small != (s <= Cs) || small != (cP <= Cs)) {
          fprintf(stderr, "membership mismatch s=%d\n", s);
          exit(1);
        }
      }
      int pg = small ? Ps : 4096;
      int k = pg / s, cc = (pg / k / 16) * 16;
      if (cc < s) {
        fprintf(stderr, "chunk < size\n");
        exit(1);
      }
      cs[s / 16] = cc;
      auto it = cpage.find(cc);
      if (it != cpage.end() && it->second != pg) {
        fprintf(stderr, "class %d in two page sizes\n", cc);
        exit(1);
      }
      cpage[cc] = pg;
    }
    map<int, int> idx;
    for (auto& kv : cpage) {
      idx[kv.first] = (int)c.size();
      c.push_back(kv.first);
      page.push_back(kv.second);
      chunks.push_back(kv.second / kv.first);
    }
    cOf.assign(257, -1);
    for (int s = 16; s <= 4096; s += 16) {
      int ci = idx[cs[s / 16]];
      cOf[s / 16] = ci;
      if (chunks[ci] != page[ci] / s) {
        fprintf(stderr, "chunks per page != k: s=%d\n", s);
        exit(1);
      }
    }
  }
};

struct Sim {
  int U, place = 0;
  int P[2];  // units per page: [0] = 4096-B page, [1] = small page
  long long units;
  int nw;
  vector<u64> F;              // free bitmap, 1 = free
  vector<u64> L2nz, L2pg[2];  // per-word: any free unit / any free aligned page of kind
  u64 alignedMask[2];
  bool noPages[2] = {false, false};
  int minFailN = INT_MAX;
  RNG rng;
  Sim(u64 seed) : rng(seed) {}

  u64 pageMask(u64 w, int kd) const
  {
    u64 g = w;
    for (int sh = 1; sh < P[kd]; sh <<= 1) g &= g >> sh;
    return g & alignedMask[kd];
  }
  void upd(int i)
  {
    u64 bit = 1ULL << (i & 63);
    if (F[i])
      L2nz[i >> 6] |= bit;
    else
      L2nz[i >> 6] &= ~bit;
    for (int kd = 0; kd < 2; kd++) {
      if (pageMask(F[i], kd))
        L2pg[kd][i >> 6] |= bit;
      else
        L2pg[kd][i >> 6] &= ~bit;
    }
  }
  static int nextSet(const vector<u64>& L, int from, int to)
  {
    if (from >= to) return -1;
    int wi = from >> 6;
    u64 m = L[wi] & (~0ULL << (from & 63));
    while (true) {
      if (m) {
        int r = (wi << 6) + __builtin_ctzll(m);
        return r < to ? r : -1;
      }
      wi++;
      if ((wi << 6) >= to) return -1;
      m = L[wi];
    }
  }
  // same policy as sim.cpp: random start word, first word (wrapping) with a free aligned page of the kind, lowest in it
  long long claimPage(int kd)
  {
    int w0 = (int)rng.below(nw);
    if (noPages[kd]) return -1;
    int w = nextSet(L2pg[kd], w0, nw);
    if (w < 0) w = nextSet(L2pg[kd], 0, w0);
    if (w < 0) {
      noPages[kd] = true;
      return -1;
    }
    u64 pm = pageMask(F[w], kd);
    int b = __builtin_ctzll(pm);
    u64 grp = (P[kd] == 64) ? ~0ULL : (((1ULL << P[kd]) - 1) << b);
    F[w] &= ~grp;
    upd(w);
    return (long long)w * 64 + b;
  }
  u64 starts(int i, int n) const
  {
    u128 x = ((u128)(i + 1 < nw ? F[i + 1] : 0) << 64) | F[i];
    u128 m = x;
    for (int j = 1; j < n; j++) m &= x >> j;
    return (u64)m;
  }
  long long allocRun(int n)
  {  // placement 'first' (sim.cpp showed 'packed' never differs)
    int w0 = (int)rng.below(nw);
    if (n >= minFailN) return -1;
    for (int pass = 0; pass < 2; pass++) {
      int from = pass ? 0 : w0, to = pass ? w0 : nw;
      int i = nextSet(L2nz, from, to);
      while (i >= 0) {
        u64 S = starts(i, n);
        if (S) {
          int b = __builtin_ctzll(S);
          long long p = (long long)i * 64 + b;
          for (long long u = p; u < p + n; u++) F[u >> 6] &= ~(1ULL << (u & 63));
          upd(i);
          if ((p + n - 1) >> 6 != i) upd(i + 1);
          return p;
        }
        i = nextSet(L2nz, i + 1, to);
      }
    }
    minFailN = min(minFailN, n);
    return -1;
  }
};

Result simulate(int N, const Layout& L, double f, u64 seed)
{
  ClassTable CT(L.Ps, L.Cs);
  RNG gen(seed * 7919 + 17);
  vector<int> dem(N);
  long long sumDem = 0;
  for (int i = 0; i < N; i++) {
    int s = 16 + (int)gen.below(4081);
    s = (s + 15) / 16 * 16;
    dem[i] = s;
    sumDem += s;
  }
  // The pool is the demand over f; with `meta` bytes of bookkeeping a unit (Scatter: state,
  // bitfield, region counter and map bit, 12.4 B a page) the data area is its unit share.
  long long H = (long long)((double)sumDem / f * L.unitBytes() / (L.unitBytes() + L.meta)) / 4096 * 4096;
  int UB = L.unitBytes();
  Sim S(seed * 104729 + 3);
  S.U = UB;
  S.P[0] = 4096 / UB;
  S.P[1] = (L.Ps < 4096 ? L.Ps : 4096) / UB;
  S.units = H / UB;
  S.nw = (int)((S.units + 63) / 64);
  S.F.assign(S.nw, ~0ULL);
  if (S.units % 64) S.F[S.nw - 1] = (1ULL << (S.units % 64)) - 1;
  for (int kd = 0; kd < 2; kd++) {
    S.alignedMask[kd] = 0;
    for (int b = 0; b < 64; b += S.P[kd]) S.alignedMask[kd] |= 1ULL << b;
    S.L2pg[kd].assign((S.nw + 63) / 64, 0);
  }
  S.L2nz.assign((S.nw + 63) / 64, 0);
  for (int i = 0; i < S.nw; i++) S.upd(i);

  int nc = (int)CT.c.size();
  vector<long long> slotPage((size_t)nc * L.K, -1);
  vector<int> slotUsed((size_t)nc * L.K, 0);
  vector<long long> pagesByClass(nc, 0);
  long long alloc = 0, servedDem = 0, fails = 0, lfail = 0, cfail = 0;

  for (int r = 0; r < N; r++) {
    int s = dem[r];
    if (s <= L.T) {
      int ci = CT.cOf[s / 16];
      int c = CT.c[ci], ch = CT.chunks[ci];
      int kd = CT.page[ci] == 4096 ? 0 : 1;
      size_t base = (size_t)ci * L.K;
      size_t sl = base + S.rng.below(L.K);
      if (slotPage[sl] >= 0 && slotUsed[sl] < ch) {
        slotUsed[sl]++;
        alloc += c;
        servedDem += s;
        continue;
      }
      long long p = S.claimPage(kd);
      if (p >= 0) {
        slotPage[sl] = p;
        slotUsed[sl] = 1;
        pagesByClass[ci]++;
        alloc += c;
        servedDem += s;
        continue;
      }
      // fallback: same class's other open pages, then larger classes c < c' <= 2s (any page size)
      bool ok = false;
      for (int cj = ci; cj < nc && !ok && CT.c[cj] <= 2 * s; cj++) {
        size_t bj = (size_t)cj * L.K;
        for (int k = 0; k < L.K; k++) {
          if (slotPage[bj + k] >= 0 && slotUsed[bj + k] < CT.chunks[cj]) {
            slotUsed[bj + k]++;
            alloc += CT.c[cj];
            servedDem += s;
            ok = true;
            break;
          }
        }
      }
      if (!ok) {
        fails++;
        cfail++;
      }
    } else {
      int n = (s + UB - 1) / UB;
      long long p = S.allocRun(n);
      if (p >= 0) {
        alloc += (long long)n * UB;
        servedDem += s;
      } else {
        fails++;
        lfail++;
      }
    }
  }
  long long freeUnits = 0, freePages = 0;
  for (int i = 0; i < S.nw; i++) {
    freeUnits += __builtin_popcountll(S.F[i]);
    freePages += __builtin_popcountll(S.pageMask(S.F[i], 0));
  }
  long long freePgB = freePages * 4096, fragB = freeUnits * (long long)UB - freePgB;
  long long strandB = 0, tailB = 0;
  for (int ci = 0; ci < nc; ci++) {
    for (int k = 0; k < L.K; k++) {
      size_t sl = (size_t)ci * L.K + k;
      if (slotPage[sl] >= 0) strandB += (long long)(CT.chunks[ci] - slotUsed[sl]) * CT.c[ci];
    }
    tailB += pagesByClass[ci] * ((long long)CT.page[ci] - (long long)CT.chunks[ci] * CT.c[ci]);
  }
  long long total = alloc + freePgB + fragB + strandB + tailB;
  if (total != H) {
    fprintf(stderr, "ACCOUNTING MISMATCH U=%d T=%d K=%d Ps=%d Cs=%d N=%d f=%.1f seed=%llu: %lld vs %lld\n", L.U, L.T,
            L.K, L.Ps, L.Cs, N, f, (unsigned long long)seed, total, H);
    exit(2);
  }
  Result R;
  R.fail = 100.0 * fails / N;
  R.classFail = 100.0 * cfail / N;
  R.largeFail = 100.0 * lfail / N;
  R.freepg = 100.0 * freePgB / H;
  R.frag = 100.0 * fragB / H;
  R.strand = 100.0 * strandB / H;
  R.tail = 100.0 * tailB / H;
  R.used = 100.0 * alloc / H;
  R.round = servedDem ? (double)alloc / servedDem : 0;
  return R;
}

struct Job {
  Layout L;
  double f;
  int N;
  Result mean;
};
static atomic<long> g_checks(0);

void runJobs(vector<Job>& jobs, int nthreads)
{
  atomic<size_t> next(0);
  auto worker = [&]() {
    size_t j;
    while ((j = next++) < jobs.size()) {
      Result m;
      for (int seed = 1; seed <= 3; seed++) {
        Result r = simulate(jobs[j].N, jobs[j].L, jobs[j].f, seed);
        g_checks++;
        m.fail += r.fail / 3;
        m.freepg += r.freepg / 3;
        m.frag += r.frag / 3;
        m.strand += r.strand / 3;
        m.tail += r.tail / 3;
        m.used += r.used / 3;
        m.round += r.round / 3;
        m.classFail += r.classFail / 3;
        m.largeFail += r.largeFail / 3;
      }
      jobs[j].mean = m;
    }
  };
  vector<thread> th;
  for (int t = 0; t < nthreads; t++) th.emplace_back(worker);
  for (auto& t : th) t.join();
}

int main()
{
  int nthreads = max(1u, thread::hardware_concurrency());
  auto t0 = chrono::steady_clock::now();
  vector<Layout> layouts;
  for (int U : {256, 512})
    for (int T : {512, 1024})
      for (int K : {132, 528}) {
        layouts.push_back({U, T, K, 4096, 0});
        for (int Ps : {1024, 2048})
          for (int Cs : {256, 512}) layouts.push_back({U, T, K, Ps, Cs});
      }
  layouts.push_back({4096, 4096, 528, 4096, 0});
  // One granularity in Scatter itself (pagesize 256 / 512: every request above a page a run), with
  // and without its page tables in the pool (H100 fill_anatomy, session 37: 256 B pages fail 0 /
  // 3.07 % at 80 / 90 %, 512 B pages 0 / 4.53 %), and today's layout with its tables.
  for (double meta : {0.0, 12.375}) {
    layouts.push_back({256, 256, 528, 256, 256, meta});
    layouts.push_back({512, 512, 528, 512, 512, meta});
  }
  layouts.push_back({4096, 4096, 528, 4096, 0, 12.375});
  for (int Ps : {1024, 2048})
    for (int Cs : {256, 512}) layouts.push_back({4096, 4096, 528, Ps, Cs});
  vector<Job> jobs;
  for (auto& L : layouts)
    for (int N : {131072, 262144})
      for (double f : {0.8, 0.9}) jobs.push_back({L, f, N, {}});
  runJobs(jobs, nthreads);
  double secs = chrono::duration<double>(chrono::steady_clock::now() - t0).count();

  printf(
    "| U | T | K | P_small | C_small | meta B/unit | N | f | fail %% | (class / large fail %%) | strand %% | frag %% | "
    "free whole 4K "
    "pages %% | page-tail %% | used %% | rounding |\n");
  printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (auto& j : jobs) {
    const Result& m = j.mean;
    char cs[16];
    if (j.L.Ps == 4096)
      snprintf(cs, sizeof cs, "-");
    else
      snprintf(cs, sizeof cs, "%d", j.L.Cs);
    printf(
      "| %d | %d | %d | %d | %s | %.1f | %d | %.1f | %.3f | %.3f / %.3f | %.2f | %.2f | %.2f | %.2f | %.2f | %.4f |\n",
      j.L.U, j.L.T, j.L.K, j.L.Ps, cs, j.L.meta, j.N, j.f, m.fail, m.classFail, m.largeFail, m.strand, m.frag, m.freepg,
      m.tail, m.used, m.round);
  }
  fprintf(stderr, "%ld simulations, all accounting checks passed, %.1f s on %d threads\n", g_checks.load(), secs,
          nthreads);
  return 0;
}
