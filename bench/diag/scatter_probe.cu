// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/diag/scatter_probe.cu — where the time of Scatter's probability test goes.
//
// The issue's probability test (2^16 threads, each allocating with p 0.75 when it holds nothing
// and freeing with p 0.75 when it holds something, 20 launches, 16-256 B) is latency bound: every
// thread is resident at once, so a launch lasts as long as its slowest thread. This tool runs that
// sequence and reports, per Scatter configuration, the launch time (CUDA events), each thread's
// alloc and free time (cycles_now: clock64), and — in the build with DIAG_PROBE=1 — each thread's counts of
// the allocator's inner events (detail/probe.hpp), so the slowest threads can be explained.
//
//   devalloc-scatter-probe[-counts] [threads=65536] [launches=20] [reps=3] [lo=16] [hi=256]
//   devalloc-scatter-probe tput [threads=65536] [every=1]   (alloc/free G/s, one allocation per
//                                                            `every`-th thread)
//   devalloc-scatter-probe mix [threads] [every] [reps] [lo] [hi]   (as tput, sizes uniform in lo..hi)
//   devalloc-scatter-probe census [threads] [launches] [reps] [lo] [hi]   (64 MiB, threads x 4 allocations)
//   devalloc-scatter-probe harness [threads] [launches] [reps] [lo] [hi]   (default configuration: what
//                                  devalloc-bench's probability kernel adds to the allocator's time)
//
// Environment: PROBE_RESET=1 resets the heap before every repetition (devalloc-bench's cells start on
// fresh heaps); PROBE_HEAP=<bytes> sets tput/mix's heap (devalloc-bench's fill cells); PROBE_SMEM=<bytes>
// gives their alloc kernel dynamic shared memory (fewer resident blocks, same code); PROBE_SLOW=<k> prints
// the k slowest allocations of their last repetition (with event counts in DIAG_PROBE builds); PROBE_DEFAULT_ONLY,
// PROBE_SIMD_ONLY and PROBE_PAGES (the default and 8, 16, 32 KiB pages) pick the configurations;
// PROBE_SIZE_GROUP=<g> has g threads in a row share one size in tput / mix (32: sizes mixed across
// warps only, not within one).
// Built with -DPROBE_MINIMAL=1 it holds only the default and XMallocSIMD (a small binary for A/B
// builds of the library with nvcc by hand).
//
// A diagnostic, not part of the benchmark: its figures are not records of devalloc-bench.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#ifndef DIAG_PROBE
#define DIAG_PROBE 0
#endif
#ifndef PROBE_MINIMAL
#define PROBE_MINIMAL 0
#endif
#ifndef DIAG_TRACE
#define DIAG_TRACE 0
#endif

__device__ void diag_probe(unsigned event);
#define DEVALLOC_PROBE(e) diag_probe(::devalloc::detail::probe::e)

#include <devalloc/devalloc.hpp>

#include "../../tests/support/patterns.hpp"
#include "common.hpp"
#include "kernels.hpp"

namespace {

using u64 = unsigned long long;
constexpr unsigned n_events = devalloc::detail::probe::count;

// Per thread x event counters of the current launch (DIAG_PROBE builds); null: not counting.
__device__ u64* g_counts = nullptr;
// Per thread, a timeline of the current launch (DIAG_TRACE builds; null: not tracing): entry 0
// counts the entries that follow, each `event << 56 | clock64`. Events n_events and n_events + 1
// are the start and the end of the thread's alloc().
constexpr unsigned trace_len = 64;
__device__ u64* g_trace = nullptr;

}  // namespace

__device__ void diag_probe(unsigned event)
{
#if DIAG_TRACE
  if (g_trace != nullptr) {
    u64* tr = g_trace + (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) * trace_len;
    const u64 used = tr[0];
    if (used + 1 < trace_len) {
      tr[used + 1] = static_cast<u64>(event) << 56 | (static_cast<u64>(clock64()) & ((u64{1} << 56) - 1));
      tr[0] = used + 1;
    }
  }
#endif
#if DIAG_PROBE
  if (g_counts != nullptr) {
    const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    ++g_counts[t * n_events + event];
  }
#else
  (void)event;
#endif
}

namespace {

using devalloc::creation::ScatterConfig;
struct Default : ScatterConfig {};
template <std::uint32_t Slots>
struct Slots_ : ScatterConfig {  // directory slots per class
  static constexpr std::uint32_t class_slots = Slots;
};
template <std::uint32_t Slots>
struct WarpSlots_ : ScatterConfig {  // directory slots of whole-warp groups
  static constexpr std::uint32_t warp_slots = Slots;
};
struct Paper : ScatterConfig {  // the paper's super blocks (the walk's unit)
  static constexpr unsigned long long accessblocksize = 2ull << 30;
};
template <std::uint32_t Bytes>
struct Page_ : ScatterConfig {  // another page size
  static constexpr std::uint32_t pagesize = Bytes;
};

template <class Config, class Distribution = devalloc::distribution::Noop>
using heap_of = devalloc::Allocator<devalloc::creation::Scatter<Config>, Distribution, devalloc::oom::ReturnNull,
                                    devalloc::reserve_pool::CudaMalloc, devalloc::alignment::Shrink<16>>;
/// Marks a configuration to be run with XMallocSIMD (thesis §4.3.3) instead of Noop.
template <class Config>
struct Simd : Config {};
template <class Config>
struct heap_for {
  using type = heap_of<Config>;
};
template <class Config>
struct heap_for<Simd<Config>> {
  using type = heap_of<Config, devalloc::distribution::XMallocSIMD<>>;
};

// The benchmark's random numbers and cycle counter (bench/src/common.hpp).
using devalloc_bench::cycles_now;
using devalloc_bench::cycles_since;
using devalloc_bench::hash3;
using devalloc_bench::uniform_size;
using devalloc_bench::unit_real;

struct Params {
  unsigned threads = 1u << 16;
  int launches = 20;
  int reps = 3;
  unsigned lo = 16, hi = 256;
};

// op: 0 nothing, 1 alloc ok, 2 alloc failed, 3 free
template <class H>
__global__ void prob_kernel(H heap, Params p, void** state, unsigned* size_of, long long* cycles, unsigned char* op,
                            u64 seed, int launch, unsigned* bad)
{
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= p.threads) { return; }
  const auto h = hash3(seed, static_cast<u64>(launch), i);
  const double u = unit_real(h);
  void* q = state[i];
  op[i] = 0;
  cycles[i] = 0;
  if (q == nullptr) {
    if (u < 0.75) {
      const auto s = static_cast<unsigned>(uniform_size(hash3(h, 1, 0), p.lo, p.hi));
      const auto t0 = cycles_now();
      void* r = heap.alloc(s);
      cycles[i] = static_cast<long long>(cycles_since(t0));
      size_of[i] = s;
      op[i] = r == nullptr ? 2 : 1;
      if (r != nullptr) {
        *static_cast<unsigned*>(r) = i;
        state[i] = r;
      }
    }
  } else if (u < 0.75) {
    if (*static_cast<unsigned*>(q) != i) { atomicAdd(bad, 1u); }
    const auto t0 = cycles_now();
    heap.dealloc(q);
    cycles[i] = static_cast<long long>(cycles_since(t0));
    op[i] = 3;
    state[i] = nullptr;
  }
}

__global__ void empty_kernel(unsigned threads, unsigned* sink)
{
  if (blockIdx.x * blockDim.x + threadIdx.x == threads) { *sink = 1; }
}

#define TRY(x) DEVALLOC_CUDA_TRY(x)

double pct(std::vector<long long> v, double q)
{
  if (v.empty()) { return 0; }
  std::sort(v.begin(), v.end());
  return static_cast<double>(v[static_cast<std::size_t>(q * (v.size() - 1))]);
}

/// Records `e1`, waits for it and returns the milliseconds since `e0`.
float stop_ms(cudaEvent_t e0, cudaEvent_t e1)
{
  TRY(cudaEventRecord(e1));
  TRY(cudaEventSynchronize(e1));
  float ms = 0;
  TRY(cudaEventElapsedTime(&ms, e0, e1));
  return ms;
}

template <class Config>
void run(const char* name, const Params& p, double cycles_per_us)
{
  using H = typename heap_for<Config>::type;
  const std::size_t heap_bytes = std::size_t{128} << 20;  // what devalloc-bench gives this test at 2^16 threads
  const unsigned n = p.threads;
  devalloc::buffer<void*> state(n);
  devalloc::buffer<unsigned> size_of(n);
  devalloc::buffer<long long> cycles(n);
  devalloc::buffer<unsigned char> op(n);
  devalloc::buffer<unsigned> bad(1);
  devalloc::buffer<u64> counts(DIAG_PROBE ? static_cast<std::size_t>(n) * n_events : 1);
  cudaEvent_t e0, e1;
  TRY(cudaEventCreate(&e0));
  TRY(cudaEventCreate(&e1));
  std::vector<double> launch_us, first_us, rep_mean_us;
  std::vector<long long> alloc_c, free_c, crit;
  std::vector<double> totals(n_events, 0.0);
  struct Worst {
    long long cycles;
    unsigned size;
    int launch;
    std::vector<u64> ev;
  };
  std::vector<Worst> worst;
  u64 failures = 0;
  auto launch_prob = [&](H& heap, int rep, int l) {
    prob_kernel<<<(n + 255) / 256, 256>>>(heap.handle(), p, state.data(), size_of.data(), cycles.data(), op.data(),
                                          1234567ull + 7919ull * rep, l, bad.data());
    TRY(cudaGetLastError());
  };
  for (int rep = 0; rep < p.reps; ++rep) {
    H heap(heap_bytes);
    TRY(cudaMemset(state.data(), 0, sizeof(void*) * n));
    TRY(cudaMemset(bad.data(), 0, sizeof(unsigned)));
    for (int l = 0; l < p.launches; ++l) {
      if (DIAG_PROBE) {
        TRY(cudaMemset(counts.data(), 0, sizeof(u64) * n * n_events));
        u64* ptr = counts.data();
        TRY(cudaMemcpyToSymbol(g_counts, &ptr, sizeof(ptr)));
      }
      TRY(cudaEventRecord(e0));
      launch_prob(heap, rep, l);
      const float ms = stop_ms(e0, e1);
      if (rep == 0) { continue; }  // warm-up
      launch_us.push_back(ms * 1e3);
      if (l == 0) {
        first_us.push_back(ms * 1e3);
        rep_mean_us.push_back(0);
      }
      rep_mean_us.back() += ms * 1e3 / p.launches;  // devalloc-bench's figure: the mean over a fresh heap's launches
      std::vector<long long> c = cycles.to_host();
      std::vector<unsigned char> o = op.to_host();
      std::vector<unsigned> sz = size_of.to_host();
      std::vector<u64> ev = DIAG_PROBE ? counts.to_host() : std::vector<u64>{};
      long long lmax = 0;
      for (unsigned i = 0; i < n; ++i) {
        if (o[i] == 0) { continue; }
        lmax = std::max(lmax, c[i]);
        if (o[i] == 3) {
          free_c.push_back(c[i]);
        } else {
          alloc_c.push_back(c[i]);
          failures += o[i] == 2;
          Worst w{c[i], sz[i], l, {}};
          if constexpr (DIAG_PROBE != 0) {
            for (unsigned e = 0; e < n_events; ++e) { w.ev.push_back(ev[static_cast<std::size_t>(i) * n_events + e]); }
          }
          if (worst.size() < 6 || w.cycles > worst.back().cycles) {
            worst.push_back(std::move(w));
            std::sort(worst.begin(), worst.end(), [](const Worst& a, const Worst& b) { return a.cycles > b.cycles; });
            if (worst.size() > 6) { worst.pop_back(); }
          }
        }
        if constexpr (DIAG_PROBE != 0) {
          for (unsigned e = 0; e < n_events; ++e) {
            totals[e] += static_cast<double>(ev[static_cast<std::size_t>(i) * n_events + e]);
          }
        }
      }
      crit.push_back(lmax);
    }
    if (bad.to_host()[0] != 0) { std::printf("  !! %u corrupted allocations\n", bad.to_host()[0]); }
    if (DIAG_PROBE) {
      u64* none = nullptr;
      TRY(cudaMemcpyToSymbol(g_counts, &none, sizeof(none)));
    }
  }
  // The same launches back to back with one event pair around each fresh heap's sequence
  // (devalloc-bench's figure since the sequence timing): no per-launch host round trip.
  std::vector<double> seq_us;
  TRY(cudaMemset(bad.data(), 0, sizeof(unsigned)));
  for (int rep = 0; rep < p.reps; ++rep) {
    H heap(heap_bytes);
    TRY(cudaMemset(state.data(), 0, sizeof(void*) * n));
    TRY(cudaEventRecord(e0));
    for (int l = 0; l < p.launches; ++l) { launch_prob(heap, rep, l); }
    const float ms = stop_ms(e0, e1);
    if (rep > 0) { seq_us.push_back(ms * 1e3 / p.launches); }
  }
  if (bad.to_host()[0] != 0) { std::printf("  !! %u corrupted allocations (sequence)\n", bad.to_host()[0]); }
  std::sort(seq_us.begin(), seq_us.end());
  TRY(cudaEventDestroy(e0));
  TRY(cudaEventDestroy(e1));
  std::vector<double> lu = launch_us;
  std::sort(lu.begin(), lu.end());
  const double launches = static_cast<double>(launch_us.size());
  std::sort(rep_mean_us.begin(), rep_mean_us.end());
  std::sort(first_us.begin(), first_us.end());
  std::printf(
    "%-9s launch us: median %7.1f min %7.1f max %7.1f | mean per rep (median) %7.1f | first launch (median) %7.1f | "
    "slowest thread per launch us: median %7.1f max %7.1f | in a sequence (median) %7.1f\n",
    name, lu[lu.size() / 2], lu.front(), lu.back(), rep_mean_us[rep_mean_us.size() / 2], first_us[first_us.size() / 2],
    pct(crit, 0.5) / cycles_per_us, pct(crit, 1.0) / cycles_per_us, seq_us[seq_us.size() / 2]);
  std::printf(
    "          alloc us: p50 %6.2f p99 %6.2f p99.9 %6.2f max %7.1f (n/launch %.0f, failed %llu) | free us: p50 %6.2f "
    "p99 %6.2f max %7.1f (n/launch %.0f)\n",
    pct(alloc_c, 0.5) / cycles_per_us, pct(alloc_c, 0.99) / cycles_per_us, pct(alloc_c, 0.999) / cycles_per_us,
    pct(alloc_c, 1.0) / cycles_per_us, static_cast<double>(alloc_c.size()) / launches, failures,
    pct(free_c, 0.5) / cycles_per_us, pct(free_c, 0.99) / cycles_per_us, pct(free_c, 1.0) / cycles_per_us,
    static_cast<double>(free_c.size()) / launches);
  if (DIAG_PROBE) {
    std::printf("          events per launch:");
    for (unsigned e = 0; e < n_events; ++e) {
      std::printf(" %s %.0f", devalloc::detail::probe::name(e), totals[e] / launches);
    }
    std::printf("\n");
  }
  for (const Worst& w : worst) {
    std::printf("          slow alloc %7.1f us size %3u launch %2d", w.cycles / cycles_per_us, w.size, w.launch);
    for (unsigned e = 0; e < w.ev.size(); ++e) {
      if (w.ev[e] != 0) { std::printf(" %s=%llu", devalloc::detail::probe::name(e), w.ev[e]); }
    }
    std::printf("\n");
  }
  std::fflush(stdout);
}

/// The size thread i asks for in tput / mix: `lo` alone, or uniform in lo..hi with `size_group`
/// threads in a row sharing one draw (PROBE_SIZE_GROUP).
DEVALLOC_HOST_DEVICE inline unsigned mix_size(unsigned i, unsigned lo, unsigned hi, unsigned size_group)
{
  if (hi <= lo) { return lo; }
  return static_cast<unsigned>(uniform_size(hash3(i / size_group * size_group, 7, 0x5EED), lo, hi));
}

template <class H>
__global__ void alloc_kernel(H heap, unsigned n, unsigned size, unsigned hi, void** out, unsigned* failed,
                             unsigned every, u64* spent, unsigned size_group)
{
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) { return; }
  out[i] = nullptr;
  if (i % every != 0) { return; }
  const unsigned s = mix_size(i, size, hi, size_group);
  const auto t0 = cycles_now();
  if (DIAG_TRACE) { diag_probe(n_events); }
  void* p = heap.alloc(s);
  if (DIAG_TRACE) { diag_probe(n_events + 1); }
  if (spent != nullptr) { spent[i] = cycles_now() - t0; }
  if (p == nullptr) {
    atomicAdd(failed, 1u);
  } else {
    *static_cast<unsigned*>(p) = i;
  }
  out[i] = p;
}

template <class H>
__global__ void free_kernel(H heap, unsigned n, void** in, unsigned* bad)
{
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || in[i] == nullptr) { return; }
  if (*static_cast<unsigned*>(in[i]) != i) { atomicAdd(bad, 1u); }
  heap.dealloc(in[i]);
}

// DIAG_TRACE: prints the timelines of `warps` warps (the slowest lane's warp first): per lane its
// size and its events, in microseconds from the warp's first start ("+" marks the start, "." the
// end of alloc()).
void print_trace(const std::vector<u64>& tr, unsigned n, unsigned warps, unsigned lo, unsigned hi, unsigned size_group)
{
  int khz = 0;
  TRY(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  const double per_us = khz / 1e3;
  constexpr u64 clock_mask = (u64{1} << 56) - 1;
  auto at = [&](unsigned t, unsigned k) { return tr[static_cast<std::size_t>(t) * trace_len + k]; };
  auto span_of = [&](unsigned t) {
    const u64 used = at(t, 0);
    return used < 2 ? u64{0} : (at(t, used) & clock_mask) - (at(t, 1) & clock_mask);
  };
  unsigned slowest = 0;
  for (unsigned t = 0; t < n; ++t) {
    if (span_of(t) > span_of(slowest)) { slowest = t; }
  }
  std::vector<unsigned> chosen = {slowest / 32};
  for (unsigned w = 1; w < warps; ++w) { chosen.push_back(static_cast<unsigned>((u64{n} / 32) * w / warps)); }
  for (const unsigned w : chosen) {
    u64 base = ~u64{0};
    for (unsigned l = 0; l < 32 && w * 32 + l < n; ++l) {
      if (at(w * 32 + l, 0) != 0) { base = std::min(base, at(w * 32 + l, 1) & clock_mask); }
    }
    std::printf("\n   trace warp %u:", w);
    for (unsigned l = 0; l < 32 && w * 32 + l < n; ++l) {
      const unsigned t = w * 32 + l;
      const unsigned sz = mix_size(t, lo, hi, size_group);
      std::printf("\n    lane %2u %4u B:", l, sz);
      for (u64 k = 1; k <= at(t, 0); ++k) {
        const unsigned e = static_cast<unsigned>(at(t, k) >> 56);
        const double us = static_cast<double>((at(t, k) & clock_mask) - base) / per_us;
        const char* nm = e == n_events ? "+" : e == n_events + 1 ? "." : devalloc::detail::probe::name(e);
        std::printf(" %s@%.2f", nm, us);
      }
    }
  }
  std::printf("\n");
}

// One allocation per thread, written, verified and freed (devalloc-bench throughput's cell).
template <class Config>
void tput(const char* name, unsigned n, const std::vector<unsigned>& sizes, unsigned every, unsigned hi = 0)
{
  using H = typename heap_for<Config>::type;
  std::printf("%-9s", name);
  devalloc::buffer<void*> ptrs(n);
  devalloc::buffer<unsigned> flags(2);
  cudaEvent_t e0, e1, e2;
  TRY(cudaEventCreate(&e0));
  TRY(cudaEventCreate(&e1));
  TRY(cudaEventCreate(&e2));
  for (const unsigned size : sizes) {
    std::size_t heap_bytes = 1;
    const double mean = hi > size ? 0.5 * (size + hi) * 1.3 : size;  // mixed: pages round up
    while (heap_bytes < 1.5 * n * mean + (64u << 20)) { heap_bytes *= 2; }
    // PROBE_HEAP=<bytes>: the heap of devalloc-bench's fill cells instead (live demand / heap).
    if (const char* h = std::getenv("PROBE_HEAP")) { heap_bytes = std::strtoull(h, nullptr, 0); }
    H heap(heap_bytes);
    std::vector<double> a, f;
    devalloc::buffer<u64> counts(DIAG_PROBE ? static_cast<std::size_t>(n) * n_events : 1);
    // PROBE_RESET=1: every repetition on a reset heap, as devalloc-bench's cells run (Lease::fresh);
    // without it the repetitions after the first meet the directory the previous one left.
    const bool reset_each = std::getenv("PROBE_RESET") != nullptr;
    // PROBE_SLOW=<k>: the k slowest allocations of the last repetition (clock64 around alloc()),
    // with their sizes and, in DIAG_PROBE builds, their event counts: what the launch's tail did.
    const unsigned slow_lanes = std::getenv("PROBE_SLOW") != nullptr ? std::atoi(std::getenv("PROBE_SLOW")) : 0u;
    devalloc::buffer<u64> spent(slow_lanes != 0 ? n : 1);
    std::vector<u64> last_events;
    // PROBE_SMEM=<bytes>: dynamic shared memory per block of the alloc kernel, which bounds the
    // blocks resident per multiprocessor (occupancy) without changing the code.
    const unsigned smem = std::getenv("PROBE_SMEM") != nullptr ? std::atoi(std::getenv("PROBE_SMEM")) : 0u;
    // PROBE_SIZE_GROUP=<g>: g threads in a row draw one size (32: one size per warp, sizes still
    // mixed across warps), which tells the cost of mixing within a warp from that across warps.
    const unsigned size_group =
      std::getenv("PROBE_SIZE_GROUP") != nullptr ? std::max(1, std::atoi(std::getenv("PROBE_SIZE_GROUP"))) : 1u;
    // PROBE_TRACE=<w> (DIAG_TRACE builds): the timeline of every lane of w warps in the last
    // repetition (the slowest lane's warp first, then warps spread over the launch).
    const unsigned trace_warps =
      DIAG_TRACE && std::getenv("PROBE_TRACE") != nullptr ? std::atoi(std::getenv("PROBE_TRACE")) : 0u;
    devalloc::buffer<u64> trace(trace_warps != 0 ? static_cast<std::size_t>(n) * trace_len : 1);
    if (smem > 48u * 1024u) {
      TRY(cudaFuncSetAttribute(alloc_kernel<typename H::handle_type>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(smem)));
    }
    for (int r = 0; r < 6; ++r) {
      if (reset_each) { heap.reset(); }
      if (DIAG_PROBE) {
        TRY(cudaMemset(counts.data(), 0, sizeof(u64) * n * n_events));
        u64* ptr = counts.data();
        TRY(cudaMemcpyToSymbol(g_counts, &ptr, sizeof(ptr)));
      }
      TRY(cudaMemset(flags.data(), 0, 2 * sizeof(unsigned)));
      if (trace_warps != 0 && r == 5) {
        TRY(cudaMemset(trace.data(), 0, sizeof(u64) * trace.size()));
        u64* ptr = trace.data();
        TRY(cudaMemcpyToSymbol(g_trace, &ptr, sizeof(ptr)));
      }
      TRY(cudaEventRecord(e0));
      TRY(cudaMemset(spent.data(), 0, sizeof(u64) * spent.size()));
      alloc_kernel<<<(n + 255) / 256, 256, smem>>>(heap.handle(), n, size, hi, ptrs.data(), flags.data(), every,
                                                   slow_lanes != 0 ? spent.data() : nullptr, size_group);
      TRY(cudaGetLastError());
      TRY(cudaEventRecord(e1));
      free_kernel<<<(n + 255) / 256, 256>>>(heap.handle(), n, ptrs.data(), flags.data() + 1);
      TRY(cudaGetLastError());
      TRY(cudaEventRecord(e2));
      TRY(cudaEventSynchronize(e2));
      float ma = 0, mf = 0;
      TRY(cudaEventElapsedTime(&ma, e0, e1));
      TRY(cudaEventElapsedTime(&mf, e1, e2));
      const std::vector<unsigned> fl = flags.to_host();
      if (fl[0] != 0 || fl[1] != 0) { std::printf(" [!! %u failed %u corrupt]", fl[0], fl[1]); }
      if (r > 0) {
        a.push_back(ma);
        f.push_back(mf);
      }
      if constexpr (DIAG_PROBE != 0) {
        const std::vector<u64> ev = counts.to_host();
        std::vector<u64> tot(n_events, 0), top(n_events, 0);
        for (std::size_t i = 0; i < n; ++i) {
          for (unsigned e = 0; e < n_events; ++e) {
            tot[e] += ev[i * n_events + e];
            top[e] = std::max(top[e], ev[i * n_events + e]);
          }
        }
        last_events = ev;
        std::printf("\n   %uB rep %d alloc %.3f ms:", size, r, ma);
        for (unsigned e = 0; e < n_events; ++e) {
          if (tot[e] != 0) { std::printf(" %s %llu (max %llu)", devalloc::detail::probe::name(e), tot[e], top[e]); }
        }
        u64* none = nullptr;
        TRY(cudaMemcpyToSymbol(g_counts, &none, sizeof(none)));
      }
    }
    if (trace_warps != 0) {
      u64* none = nullptr;
      TRY(cudaMemcpyToSymbol(g_trace, &none, sizeof(none)));
      print_trace(trace.to_host(), n, trace_warps, size, hi, size_group);
    }
    if (slow_lanes != 0) {
      int khz = 0;
      TRY(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
      const double per_us = khz / 1e3;
      const std::vector<u64> c = spent.to_host();
      // Only the threads that allocated (every `every`-th), slowest first.
      std::vector<unsigned> order;
      for (unsigned i = 0; i < n; i += every) { order.push_back(i); }
      std::sort(order.begin(), order.end(), [&](unsigned x, unsigned y) { return c[x] > c[y]; });
      const std::size_t m = order.size();
      auto pct = [&](double q) { return c[order[static_cast<std::size_t>((1.0 - q) * (m - 1))]] / per_us; };
      std::printf("\n   last repetition, alloc us: p50 %.2f p99 %.2f p99.9 %.2f max %.1f", pct(0.5), pct(0.99),
                  pct(0.999), pct(1.0));
      for (unsigned k = 0; k < slow_lanes && k < m; ++k) {
        const unsigned i = order[k];
        const unsigned sz = mix_size(i, size, hi, size_group);
        std::printf("\n   slow %7.1f us thread %u size %u:", c[i] / per_us, i, sz);
        for (unsigned e = 0; e < n_events && !last_events.empty(); ++e) {
          const u64 v = last_events[static_cast<std::size_t>(i) * n_events + e];
          if (v != 0) { std::printf(" %s %llu", devalloc::detail::probe::name(e), v); }
        }
      }
      std::printf("\n");
    }
    std::sort(a.begin(), a.end());
    std::sort(f.begin(), f.end());
    const double ops = static_cast<double>((n + every - 1) / every);
    std::printf(hi > size ? " | %u-%uB" : " | %4uB", size, hi);
    std::printf(" alloc %6.2fG free %6.2fG (alloc %.3f ms)", ops / (a[a.size() / 2] * 1e6),
                ops / (f[f.size() / 2] * 1e6), a[a.size() / 2]);
  }
  std::printf("\n");
  std::fflush(stdout);
  TRY(cudaEventDestroy(e0));
  TRY(cudaEventDestroy(e1));
  TRY(cudaEventDestroy(e2));
}

template <class H>
__global__ void census_kernel(H heap, unsigned n, unsigned lo, unsigned hi, unsigned round, unsigned write,
                              unsigned suite_sizes, void** out, unsigned* failed)
{
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) { return; }
  for (unsigned k = 0; k < 4; ++k) {
    auto drawn = static_cast<unsigned>(uniform_size(hash3(i, k, 0x5EED), lo, hi));
    if (suite_sizes != 0u) { drawn = static_cast<unsigned>(devalloc::testing::mixed_size{hi}(i, k)); }
    const unsigned size = (drawn + round - 1u) / round * round;
    void* p = heap.alloc(size);
    if (p == nullptr) {
      atomicAdd(failed, 1u);
      atomicAdd(failed + 1u + min((size - 1u) / 256u, 15u), 1u);  // by size in 256-byte steps, the last open
    }
    out[4 * i + k] = p;
    // write != 0: the request's bytes written one by one before the next request (as the suite's
    // write_pattern), so the lanes of a warp come back to alloc() at different times.
    if (write != 0u && p != nullptr) {
      for (unsigned b = 0; b < drawn; ++b) { static_cast<unsigned char*>(p)[b] = static_cast<unsigned char>(i + b); }
    }
  }
}

// The scatter suite's census load (ManySizesShareThePagesOfTheirClass): 64 MiB, n x 4 of lo..hi B;
// PROBE_ROUND=<r> rounds each size up to a multiple of r, as alignment::Shrink<r> pads it, and
// PROBE_WRITE=1 writes each allocation byte by byte before the next, PROBE_SUITE_SIZES=1 draws the
// sizes as the scatter suite's mixed_size does (with all three, the load of the suite's
// PointersKeepTheirAlignment).
template <class Config>
void census(const char* name, unsigned n, unsigned lo, unsigned hi)
{
  using H = typename heap_for<Config>::type;
  H heap(std::size_t{64} << 20);
  devalloc::buffer<void*> ptrs(4 * static_cast<std::size_t>(n));
  devalloc::buffer<unsigned> failed(17);
  TRY(cudaMemset(failed.data(), 0, 17 * sizeof(unsigned)));
  const unsigned round = std::getenv("PROBE_ROUND") != nullptr ? std::max(1, std::atoi(std::getenv("PROBE_ROUND"))) : 1;
  const unsigned write = std::getenv("PROBE_WRITE") != nullptr ? 1u : 0u;
  const unsigned suite_sizes = std::getenv("PROBE_SUITE_SIZES") != nullptr ? 1u : 0u;
  devalloc::buffer<u64> counts(DIAG_PROBE ? static_cast<std::size_t>(n) * n_events : 1);
  if (DIAG_PROBE) {
    TRY(cudaMemset(counts.data(), 0, sizeof(u64) * counts.size()));
    u64* ptr = counts.data();
    TRY(cudaMemcpyToSymbol(g_counts, &ptr, sizeof(ptr)));
  }
  census_kernel<<<(n + 255) / 256, 256>>>(heap.handle(), n, lo, hi, round, write, suite_sizes, ptrs.data(),
                                          failed.data());
  TRY(cudaGetLastError());
  TRY(cudaDeviceSynchronize());
  const std::vector<unsigned> nulls = failed.to_host();
  std::printf("%-9s census 64 MiB, %u x 4 of %u..%u B rounded to %u: %u null\n", name, n, lo, hi, round, nulls[0]);
  if (nulls[0] != 0) {
    std::printf("          null by size:");
    for (unsigned b = 0; b < 16; ++b) {
      if (nulls[1 + b] == 0) { continue; }
      if (b < 15) {
        std::printf(" %u-%u B: %u", b * 256 + 1, b * 256 + 256, nulls[1 + b]);
      } else {
        std::printf(" %u B and more: %u", b * 256 + 1, nulls[1 + b]);
      }
    }
    std::printf("\n");
  }
  // PROBE_PAGES_BY_CHUNK=1: the pages the load left, by chunk size: pages and free chunks in them,
  // and the free chunks by the kind of directory entry that names their page (none: only the walk
  // finds them; a tight heap runs out of what lies there).
  if (std::getenv("PROBE_PAGES_BY_CHUNK") != nullptr) {
    using S = typename H::creation_policy;
    const auto pages = heap.handle().creation().pages_host();
    const auto holders = heap.handle().creation().directory_holders_host();
    std::map<std::uint32_t, std::pair<unsigned, unsigned>> by_chunk;
    std::map<std::uint32_t, std::array<unsigned, 4>> by_holder;  // free chunks by holder kind
    unsigned free_pages = 0;
    for (std::size_t q = 0; q < pages.size(); ++q) {
      const auto& v = pages[q];
      if (v.chunk == 0) {
        ++free_pages;
      } else if (v.chunk <= S::pagesize) {
        auto& e = by_chunk[v.chunk];
        ++e.first;
        const unsigned room = S::layout_of(v.chunk).spots - v.count;
        e.second += room;
        by_holder[v.chunk][static_cast<unsigned>(holders[q])] += room;
      }
    }
    std::printf("          pages: %u free;", free_pages);
    for (const auto& [chunk, e] : by_chunk) { std::printf(" %u B: %u (%u free chunks)", chunk, e.first, e.second); }
    std::printf(
      "\n          free chunks in pages named by no entry / a class slot / a whole-warp slot / the class page:");
    for (const auto& [chunk, h] : by_holder) { std::printf(" %u B: %u / %u / %u / %u", chunk, h[0], h[1], h[2], h[3]); }
    std::printf("\n");
  }
  if (DIAG_PROBE) {
    u64* none = nullptr;
    TRY(cudaMemcpyToSymbol(g_counts, &none, sizeof(none)));
    const std::vector<u64> ev = counts.to_host();
    std::printf("          events:");
    for (unsigned e = 0; e < n_events; ++e) {
      u64 total = 0;
      for (std::size_t t = 0; t < n; ++t) { total += ev[t * n_events + e]; }
      if (total != 0) { std::printf(" %s %llu", devalloc::detail::probe::name(e), total); }
    }
    std::printf("\n");
  }
}

// ---------------------------------------------------------------------------------------------
// harness: what devalloc-bench's probability kernel (ProbKernel, bench/src/kernels.hpp) adds to
// the allocator's time. The same random decisions and sizes as ProbKernel; each bit of X adds one
// piece of the benchmark's per-worker work. Every variant's launch sequence is timed with one event
// pair (the benchmark's method), median over fresh heaps.
enum : unsigned {
  x_deadline = 1,  // Deadline::stop(): %globaltimer read and compare
  x_stamp = 2,     // stamp()/stamp_ok() of the first and last 4 bytes (else one word written/read)
  x_log = 4,       // the per-launch operation log (one byte store per acting worker)
  x_lengths = 8,   // the request's length stored at alloc and read back at free
  x_all = 15,
  x_hoist = 16,  // the length loaded together with the state (not after the branch on it)
  x_late = 32    // diagnosis only: verify after the free (may see the chunk's next owner: errors)
};

template <class H, unsigned X>
__global__ void harness_kernel(H heap, devalloc_bench::Deadline dl, devalloc_bench::SizeDist sizes, void** state,
                               unsigned* lengths, unsigned char* log, unsigned* bad, u64 seed, unsigned launch,
                               unsigned n)
{
  const unsigned a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= n) { return; }
  if constexpr ((X & x_deadline) != 0) {
    if (dl.stop()) { return; }
  }
  const u64 h = hash3(seed, launch, a);
  void* p = state[a];
  const unsigned hoisted = (X & x_hoist) != 0 ? lengths[a] : 0u;
  if (p == nullptr) {
    if (unit_real(h) < 0.75) {
      const std::size_t s = sizes.at(a, launch);
      void* q = heap.alloc(s);
      if (q == nullptr) {
        atomicAdd(bad, 1u);
        return;
      }
      if constexpr ((X & x_stamp) != 0) {
        devalloc_bench::stamp(q, s, devalloc_bench::make_tag(a, 0x9999));
      } else {
        *static_cast<unsigned*>(q) = a;
      }
      state[a] = q;
      if constexpr ((X & x_lengths) != 0) { lengths[a] = static_cast<unsigned>(s); }
      if constexpr ((X & x_log) != 0) { log[static_cast<std::size_t>(launch) * n + a] = 1; }
    }
  } else if (unit_real(h) < 0.75) {
    auto verify = [&] {
      bool ok = false;
      if constexpr ((X & x_stamp) != 0) {
        const std::size_t s = (X & x_lengths) == 0 ? 4 : (X & x_hoist) != 0 ? hoisted : lengths[a];
        ok = devalloc_bench::stamp_ok(p, s, devalloc_bench::make_tag(a, 0x9999));
      } else {
        ok = *static_cast<volatile unsigned*>(p) == a;
      }
      if (!ok) { atomicAdd(bad, 1u); }
    };
    if constexpr ((X & x_late) == 0) { verify(); }
    heap.dealloc(p);
    if constexpr ((X & x_late) != 0) { verify(); }
    state[a] = nullptr;
    if constexpr ((X & x_log) != 0) { log[static_cast<std::size_t>(launch) * n + a] = 2; }
  }
}

template <class H>
__global__ void bench_prob_kernel(devalloc_bench::ProbKernel<H> k, unsigned n)
{
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { k(i); }
}

template <class H, unsigned X>
double harness_us(const Params& p, const char* label, bool use_bench_kernel = false)
{
  const unsigned n = p.threads;
  devalloc::buffer<void*> state(n);
  devalloc::buffer<unsigned> lengths(n);
  devalloc::buffer<unsigned char> log(static_cast<std::size_t>(n) * p.launches);
  devalloc::buffer<unsigned> bad(1);
  devalloc::buffer<devalloc_bench::DeadlineState> dls(1);
  devalloc::buffer<devalloc_bench::Counters> ctr(1);
  TRY(cudaMemset(bad.data(), 0, sizeof(unsigned)));
  TRY(cudaMemset(dls.data(), 0, sizeof(devalloc_bench::DeadlineState)));
  TRY(cudaMemset(ctr.data(), 0, sizeof(devalloc_bench::Counters)));
  devalloc_bench::Deadline dl{dls.data(), ~0ull, ~0ull};  // never passes: the check's cost only
  cudaEvent_t e0, e1;
  TRY(cudaEventCreate(&e0));
  TRY(cudaEventCreate(&e1));
  std::vector<double> us;
  for (int rep = 0; rep < p.reps; ++rep) {
    H heap(std::size_t{128} << 20);
    TRY(cudaMemset(state.data(), 0, sizeof(void*) * n));
    TRY(cudaMemset(log.data(), 0, static_cast<std::size_t>(n) * p.launches));
    const devalloc_bench::SizeDist sizes{p.lo, p.hi, 20240611ull + static_cast<u64>(rep)};
    const u64 seed = 20240611ull + 7919ull * static_cast<u64>(rep);
    TRY(cudaEventRecord(e0));
    for (int l = 0; l < p.launches; ++l) {
      if (use_bench_kernel) {
        devalloc_bench::ProbKernel<typename H::handle_type> k{heap.handle(),
                                                              dl,
                                                              sizes,
                                                              1u,
                                                              state.data(),
                                                              lengths.data(),
                                                              log.data(),
                                                              n,
                                                              ctr.data(),
                                                              0.75,
                                                              0.75,
                                                              seed,
                                                              static_cast<unsigned>(l)};
        bench_prob_kernel<<<(n + 255) / 256, 256>>>(k, n);
      } else {
        harness_kernel<typename H::handle_type, X><<<(n + 255) / 256, 256>>>(heap.handle(), dl, sizes, state.data(),
                                                                             lengths.data(), log.data(), bad.data(),
                                                                             seed, static_cast<unsigned>(l), n);
      }
      TRY(cudaGetLastError());
    }
    const float ms = stop_ms(e0, e1);
    if (rep > 0) { us.push_back(ms * 1e3 / p.launches); }
  }
  TRY(cudaEventDestroy(e0));
  TRY(cudaEventDestroy(e1));
  std::sort(us.begin(), us.end());
  const unsigned errors =
    bad.to_host()[0] + static_cast<unsigned>(ctr.to_host()[0].verify_errors + ctr.to_host()[0].failures);
  std::printf("harness   %-34s us per launch in a sequence: median %6.1f min %6.1f max %6.1f%s\n", label,
              us[us.size() / 2], us.front(), us.back(), errors != 0 ? "  !! errors" : "");
  return us[us.size() / 2];
}

template <class Config>
void harness(const Params& p)
{
  using H = typename heap_for<Config>::type;
  harness_us<H, 0>(p, "allocator only (one word)");
  harness_us<H, x_deadline>(p, "+ deadline check");
  harness_us<H, x_stamp>(p, "+ 8-byte stamp/verify");
  harness_us<H, x_log>(p, "+ operation log");
  harness_us<H, x_lengths>(p, "+ lengths");
  harness_us<H, x_stamp | x_lengths>(p, "+ stamp/verify with lengths (tail read)");
  harness_us<H, x_all & ~x_deadline>(p, "all but the deadline check");
  harness_us<H, x_all & ~x_log>(p, "all but the operation log");
  harness_us<H, x_stamp | x_lengths | x_hoist>(p, "stamp with lengths, length hoisted");
  harness_us<H, x_stamp | x_lengths | x_late>(p, "stamp with lengths, verified after free");
  harness_us<H, x_all | x_hoist>(p, "all, length hoisted");
  harness_us<H, x_all>(p, "all of the above");
  harness_us<H, 0>(p, "devalloc-bench's ProbKernel", true);
  harness_us<H, 0>(p, "allocator only (again)");
}

enum class Mode { prob, tput, mix, census, harness };

template <class Config>
void both(const char* name, const Params& p, double cycles_per_us, Mode mode)
{
  if (mode == Mode::tput) {
    if (p.lo == p.hi) {
      tput<Config>(name, p.threads, {p.lo}, static_cast<unsigned>(p.launches));
    } else {
      tput<Config>(name, p.threads, {16, 64, 256, 1024, 4096}, static_cast<unsigned>(p.launches));
    }
  } else if (mode == Mode::mix) {
    tput<Config>(name, p.threads, {p.lo}, static_cast<unsigned>(p.launches), p.hi);
  } else if (mode == Mode::census) {
    census<Config>(name, p.threads, p.lo, p.hi);
  } else if (mode == Mode::harness) {
    harness<Config>(p);
  } else {
    run<Config>(name, p, cycles_per_us);
  }
}

}  // namespace

int main(int argc, char** argv)
{
  Params p;
  Mode mode = Mode::prob;
  if (argc > 1 && std::string(argv[1]) == "tput") { mode = Mode::tput; }
  if (argc > 1 && std::string(argv[1]) == "mix") { mode = Mode::mix; }
  if (argc > 1 && std::string(argv[1]) == "census") { mode = Mode::census; }
  if (argc > 1 && std::string(argv[1]) == "harness") { mode = Mode::harness; }
  if (mode != Mode::prob) {
    ++argv;
    --argc;
  }
  if (argc > 1) { p.threads = static_cast<unsigned>(std::strtoul(argv[1], nullptr, 0)); }
  if (argc > 2) { p.launches = std::atoi(argv[2]); }
  if (argc > 3) { p.reps = std::atoi(argv[3]); }
  if (argc > 4) { p.lo = static_cast<unsigned>(std::atoi(argv[4])); }
  if (argc > 5) { p.hi = static_cast<unsigned>(std::atoi(argv[5])); }
  if (p.threads == 0 || p.launches < 1 || p.reps < 2 || p.lo == 0 || p.hi < p.lo ||
      p.hi > (mode == Mode::mix ? 65536u : 4096u)) {
    std::fprintf(stderr, "usage: %s [threads>0] [launches>=1] [reps>=2] [lo>0] [hi>=lo, <=4096]\n", argv[0]);
    return 2;
  }
  cudaDeviceProp prop{};
  TRY(cudaGetDeviceProperties(&prop, 0));
  int khz = 0;
  TRY(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  const double cycles_per_us = khz / 1e3;
  std::printf(
    "%s, %u threads, %d launches x %d reps (first rep warm-up), sizes %u..%u, probe counts %s, clock %.0f MHz\n",
    prop.name, p.threads, p.launches, p.reps, p.lo, p.hi, DIAG_PROBE ? "on" : "off", cycles_per_us);
  {
    devalloc::buffer<unsigned> sink(1);
    cudaEvent_t e0, e1;
    TRY(cudaEventCreate(&e0));
    TRY(cudaEventCreate(&e1));
    std::vector<double> us;
    for (int r = 0; r < 50; ++r) {
      TRY(cudaEventRecord(e0));
      empty_kernel<<<(p.threads + 255) / 256, 256>>>(p.threads, sink.data());
      TRY(cudaGetLastError());
      const float ms = stop_ms(e0, e1);
      us.push_back(ms * 1e3);
    }
    std::sort(us.begin(), us.end());
    std::vector<double> seq;  // launches back to back, one event pair (devalloc-bench's figure)
    for (int r = 0; r < 10; ++r) {
      TRY(cudaEventRecord(e0));
      for (int l = 0; l < p.launches; ++l) {
        empty_kernel<<<(p.threads + 255) / 256, 256>>>(p.threads, sink.data());
        TRY(cudaGetLastError());
      }
      const float ms = stop_ms(e0, e1);
      seq.push_back(ms * 1e3 / p.launches);
    }
    std::sort(seq.begin(), seq.end());
    std::printf("empty     launch us: median %7.1f | in a sequence of %d: %7.1f\n", us[us.size() / 2], p.launches,
                seq[seq.size() / 2]);
    TRY(cudaEventDestroy(e0));
    TRY(cudaEventDestroy(e1));
  }
  if (std::getenv("PROBE_SIMD_ONLY") != nullptr) {
    both<Simd<Default>>("simd", p, cycles_per_us, mode);
    return 0;
  }
  both<Default>("default", p, cycles_per_us, mode);
  if (PROBE_MINIMAL || mode == Mode::harness || std::getenv("PROBE_DEFAULT_ONLY") != nullptr) { return 0; }
#if !PROBE_MINIMAL  // -DPROBE_MINIMAL=1: the default and XMallocSIMD only (a small binary for A/B builds)
  // PROBE_PAGES=1: the default and other page sizes only (8, 16 and 32 KiB).
  if (std::getenv("PROBE_PAGES") != nullptr) {
    both<Page_<8192>>("page8k", p, cycles_per_us, mode);
    both<Page_<16384>>("page16k", p, cycles_per_us, mode);
    both<Page_<32768>>("page32k", p, cycles_per_us, mode);
    return 0;
  }
  both<WarpSlots_<0>>("wslots0", p, cycles_per_us, mode);
  both<WarpSlots_<2048>>("wslots2k", p, cycles_per_us, mode);
  both<WarpSlots_<16384>>("wslots16k", p, cycles_per_us, mode);
  both<Slots_<128>>("slots128", p, cycles_per_us, mode);
  both<Paper>("paper", p, cycles_per_us, mode);
  both<Simd<Default>>("simd", p, cycles_per_us, mode);
#endif
  return 0;
}
