// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/diag/fill_anatomy.cu — where a tight fill of mixed sizes fails, over the `scatter` preset.
//
//   devalloc-fill-anatomy [threads=262144] [fraction=0.9] [lo=16] [hi=4096]
//
// devalloc-bench's `fill` cell in one launch: each thread allocates once, sizes uniform in lo..hi
// bytes, in a heap sized so that their sum (each rounded up to 16 bytes) is `fraction` of it.
// Prints the failing requests by size band (the bands follow the chunk counts of a 4 KiB page:
// up to a quarter page, 3 / 2 / 1 chunks a page, and the span classes' limits 2730 / 3276 B), then
// the free pages, the other pages of spans and multi-page chunks, and the free chunks' bytes by
// the band of their chunk size with the part-filled pages (or spans) that hold them: room that a
// failing request of a larger band cannot use. Each request's time inside alloc (%globaltimer on
// the GPU, steady_clock on the CPU backend) is kept per request and printed by band and outcome
// (mean and largest, and a log2 histogram): where a tight launch's time goes (docs/scatter.md,
// "Where a tight fill's time goes").
//
// The `-s4` build (devalloc-fill-anatomy-s4) has span_pages 4; the `-phases` build
// (devalloc-fill-anatomy-phases, FILL_ANATOMY_PHASES) also splits each failing request's time into
// the steps of alloc_chunk (directory rounds, scans, the room counters' stripes, the walk, the
// whole free-page map). A build with -DDEVALLOC_SCATTER_PAGESIZE=... measures other page sizes
// (the bands keep 4 KiB pages' limits); -DFILL_ANATOMY_PRESET=scatter_runs the runs of units above
// 512 B (its pages of runs count as free pages: their states are 0). The same source builds for the CPU
// backend (g++ -x c++ -std=c++17 with the library's include directories): there the sizes and
// heaps are the same, but the workers are a few std::threads.
//
// On the CPU backend, DEVALLOC_CPU_RESIDENT_WARPS=128 has 512 warps inside the allocator at once
// (4 threads), as a GPU has thousands: one warp a thread shows no stranding.
//
// Built for the CPU backend with -DFILL_ANATOMY_PROBE=1 it also counts the allocator's inner events
// (detail/probe.hpp) and prints them per request: "steps a request" (the directory's page tries,
// reservations, failed reservations, re-reads of pages not opened yet, bit-claim retries, rounds
// and follows) is a proxy for a search's cost on the GPU where the emulator's own time is not
// (session 2026-12-07, thirty-second: the class-page variant cfr took 2.7-3.0x the steps of main
// at 25 % fill and ran 2.8-3.7x slower there on an H200; docs/scatter.md, "A class page for every
// full slot, measured").
//
// A diagnostic, not part of the benchmark: its figures are not records of devalloc-bench.
#ifndef FILL_ANATOMY_PRESET
#define FILL_ANATOMY_PRESET scatter  // a Scatter preset of include/devalloc/presets.hpp (scatter_runs: runs of units)
#endif

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#if defined(FILL_ANATOMY_PHASES) && FILL_ANATOMY_PHASES && defined(__CUDACC__)
// The GPU build with -DFILL_ANATOMY_PHASES=1 (target devalloc-fill-anatomy-phases) stamps, per
// request, the first time its search reached each later step of alloc_chunk (the directory scan,
// the room counters' stripes, the walk, the whole free-page map): the probe hook below writes
// %globaltimer into the request's own slot (one store the first time; no atomics), and the report
// splits each failing request's time into those steps by band. A diagnostic's own device global.
#define DEVALLOC_PROBE(e) ::fill_anatomy_phases::mark(::devalloc::detail::probe::e)
#include <devalloc/detail/probe.hpp>

#include "../src/clock.hpp"
namespace fill_anatomy_phases {
constexpr int marks = 4;  // directory scan, room stripe, walk, whole map (or whole span)
constexpr const char* mark_names[marks] = {"scan", "stripes", "walk", "map"};
__device__ unsigned long long* stamps;  // marks x threads, zeroed before the launch
__device__ unsigned long long threads;
__device__ inline void mark(unsigned e)
{
  namespace probe = ::devalloc::detail::probe;
  const int m = e == probe::directory_scan                         ? 0
                : e == probe::room_stripe                          ? 1
                : e == probe::walk                                 ? 2
                : e == probe::whole_page || e == probe::whole_span ? 3
                                                                   : -1;
  if (m < 0 || stamps == nullptr) { return; }
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= threads) { return; }
  unsigned long long& slot = stamps[static_cast<unsigned long long>(m) * threads + i];
  if (slot == 0) { slot = devalloc_bench::timer_ns(); }
}
}  // namespace fill_anatomy_phases
#define FILL_ANATOMY_STAMPS 1
#else
#define FILL_ANATOMY_STAMPS 0
#endif

#if defined(FILL_ANATOMY_PROBE) && FILL_ANATOMY_PROBE && !defined(__CUDACC__)
#include <atomic>
namespace fill_anatomy_probe {
inline std::atomic<unsigned long long> counts[64];
}  // namespace fill_anatomy_probe
#define DEVALLOC_PROBE(e) \
  ::fill_anatomy_probe::counts[::devalloc::detail::probe::e].fetch_add(1, std::memory_order_relaxed)
#define FILL_ANATOMY_COUNTS 1
#else
#define FILL_ANATOMY_COUNTS 0
#endif

#include <devalloc/devalloc.hpp>

#include "../src/clock.hpp"

#if FILL_ANATOMY_COUNTS
static_assert(devalloc::detail::probe::count <= 64, "fill_anatomy: enlarge fill_anatomy_probe::counts");
#endif

namespace {

using devalloc::detail::device_atomic;
using devalloc::detail::memory_order_relaxed;

constexpr int bands = 7;
const char* const band_names[bands] = {"16-256",    "257-1024",  "1025-1365", "1366-2048",
                                       "2049-2730", "2731-3276", "3277-4096+"};

/// Size band of a request or chunk size (band_names).
DEVALLOC_HOST_DEVICE inline int band_of(unsigned s)
{
  return s <= 256 ? 0 : s <= 1024 ? 1 : s <= 1365 ? 2 : s <= 2048 ? 3 : s <= 2730 ? 4 : s <= 3276 ? 5 : 6;
}

/// Log2 buckets of a request's time (bucket b: below 2^b ns; the last one: the rest).
constexpr int time_buckets = 32;

/// Request of thread i: lo + a hash of i (the library's splitmix64 finalizer) mod span.
DEVALLOC_HOST_DEVICE inline unsigned request_size(std::uint64_t i, unsigned lo, unsigned span)
{
  return lo + static_cast<unsigned>(devalloc::detail::mix64(i * 0x9E3779B97F4A7C15ull) % span);
}

}  // namespace

int main(int argc, char** argv)
{
  using heap_type = devalloc::presets::FILL_ANATOMY_PRESET;
  using policy = heap_type::creation_policy;
  const std::size_t threads = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : std::size_t{1} << 18;
  const double fraction = argc > 2 ? std::atof(argv[2]) : 0.9;
  const unsigned lo = argc > 3 ? static_cast<unsigned>(std::strtoul(argv[3], nullptr, 0)) : 16u;
  const unsigned hi = argc > 4 ? static_cast<unsigned>(std::strtoul(argv[4], nullptr, 0)) : 4096u;
  if (threads == 0 || !(fraction > 0.0 && fraction <= 1.0) || lo == 0 || hi < lo) {
    std::fprintf(stderr, "usage: %s [threads>0] [fraction in (0,1]] [lo>0] [hi>=lo]\n", argv[0]);
    return 2;
  }
  const unsigned span = hi - lo + 1u;
  double demand = 0;
  for (std::size_t i = 0; i < threads; ++i) { demand += (request_size(i, lo, span) + 15u) / 16u * 16u; }
  const std::size_t heap_bytes = (static_cast<std::size_t>(demand / fraction) + 15u) / 16u * 16u;
  heap_type heap(heap_bytes);
  const auto h = heap.handle();
  // Each request's start and end (ns) in arrays of their own, so that the measurement adds one
  // store a request, not atomics on a few shared counters (a first version did so: its 25 % fill
  // spanned 0.24 ms from first start to last end on an H100, where devalloc-bench's kernel of that
  // cell takes 0.061 ms).
  devalloc::buffer<unsigned long long> starts(threads), ends(threads);
  devalloc::buffer<unsigned char> outcome(threads);  // 1: the request failed
  unsigned long long* t0s = starts.data();
  unsigned long long* t1s = ends.data();
  unsigned char* out = outcome.data();
#if FILL_ANATOMY_STAMPS
  devalloc::buffer<unsigned long long> stamps(fill_anatomy_phases::marks * threads);
  {
    unsigned long long* ptr = stamps.data();
    const unsigned long long n = threads;  // stamps: zero-filled by devalloc::buffer
    DEVALLOC_CUDA_TRY(cudaMemcpyToSymbol(fill_anatomy_phases::stamps, &ptr, sizeof(ptr)));
    DEVALLOC_CUDA_TRY(cudaMemcpyToSymbol(fill_anatomy_phases::threads, &n, sizeof(n)));
  }
#endif
  const auto wall0 = std::chrono::steady_clock::now();
  devalloc::launch(threads, [=] DEVALLOC_DEVICE(std::size_t i) {
    const unsigned s = request_size(i, lo, span);
    const unsigned long long t0 = devalloc_bench::timer_ns();
    void* p = h.alloc(s);
    const unsigned long long t1 = devalloc_bench::timer_ns();
    t0s[i] = t0;
    t1s[i] = t1;
    out[i] = p == nullptr ? 1 : 0;
  });
  const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall0).count();
  const std::vector<unsigned long long> t0_host = starts.to_host(), t1_host = ends.to_host();
  const std::vector<unsigned char> failed_host = outcome.to_host();
  std::array<unsigned long long, bands> asked{}, failed{};
  // By outcome (0 served, 1 failed) and band: time sum and largest; log2 histogram by outcome.
  unsigned long long time_sum[2][bands] = {}, time_max[2][bands] = {}, histogram[2][time_buckets] = {};
  unsigned long long first_start = ~0ull, last_end = 0;
  for (std::size_t i = 0; i < threads; ++i) {
    const int b = band_of(request_size(i, lo, span));
    const int o = failed_host[i];
    const unsigned long long dt = t1_host[i] - t0_host[i];
    ++asked[b];
    failed[b] += o;
    time_sum[o][b] += dt;
    time_max[o][b] = dt > time_max[o][b] ? dt : time_max[o][b];
    int bucket = 0;
    while (bucket < time_buckets - 1 && (1ull << bucket) <= dt) { ++bucket; }
    ++histogram[o][bucket];
    first_start = t0_host[i] < first_start ? t0_host[i] : first_start;
    last_end = t1_host[i] > last_end ? t1_host[i] : last_end;
  }
  unsigned long long failing = 0;
  for (int b = 0; b < bands; ++b) { failing += failed[b]; }
  std::printf(
    "%zu threads x %u-%u B, heap %zu B (demand %.0f %% of it), span_pages %u: %.2f %% of the requests failed\n",
    threads, lo, hi, heap_bytes, 100.0 * fraction, static_cast<unsigned>(policy::config::span_pages),
    100.0 * static_cast<double>(failing) / static_cast<double>(threads));
  for (int b = 0; b < bands; ++b) {
    const unsigned long long served = asked[b] - failed[b];
    std::printf(
      "  requests of %-10s B: %8llu of %8llu failed; us in alloc: served mean %.1f max %.1f, failed mean %.1f max "
      "%.1f\n",
      band_names[b], failed[b], asked[b], served ? 1e-3 * static_cast<double>(time_sum[0][b]) / served : 0.0,
      1e-3 * static_cast<double>(time_max[0][b]),
      failed[b] ? 1e-3 * static_cast<double>(time_sum[1][b]) / failed[b] : 0.0,
      1e-3 * static_cast<double>(time_max[1][b]));
  }
  std::printf("launch %.3f ms on the host's clock; first alloc start to last end %.3f ms\n", wall_ms,
              1e-6 * static_cast<double>(last_end - first_start));
  for (int o = 0; o < 2; ++o) {
    std::printf("  %s requests by time in alloc (below 2^b ns: count):", o == 0 ? "served" : "failed");
    for (int b = 0; b < time_buckets; ++b) {
      if (histogram[o][b] != 0) { std::printf(" %d:%llu", b, histogram[o][b]); }
    }
    std::printf("\n");
  }
#if FILL_ANATOMY_STAMPS
  {
    // Each failing request's time split at the first stamp of each later step: before the first
    // stamp (the directory rounds), then from each stamp to the next one in time (or the end).
    namespace ph = fill_anatomy_phases;
    const std::vector<unsigned long long> st = stamps.to_host();
    double part[bands][ph::marks + 1] = {};
    unsigned long long reached[bands][ph::marks] = {};
    for (std::size_t i = 0; i < threads; ++i) {
      if (!failed_host[i]) { continue; }
      const int b = band_of(request_size(i, lo, span));
      unsigned long long at[ph::marks];
      for (int m = 0; m < ph::marks; ++m) { at[m] = st[m * threads + i]; }
      unsigned long long first = t1_host[i];
      for (int m = 0; m < ph::marks; ++m) { first = at[m] != 0 && at[m] < first ? at[m] : first; }
      part[b][0] += static_cast<double>(first - t0_host[i]);
      for (int m = 0; m < ph::marks; ++m) {
        if (at[m] == 0) { continue; }
        ++reached[b][m];
        unsigned long long next = t1_host[i];
        for (int q = 0; q < ph::marks; ++q) { next = at[q] > at[m] && at[q] < next ? at[q] : next; }
        part[b][m + 1] += static_cast<double>(next - at[m]);
      }
    }
    std::printf("failing requests' us by step (mean over the band's failing requests; reached: how many):\n");
    for (int b = 0; b < bands; ++b) {
      if (failed[b] == 0) { continue; }
      const double n = static_cast<double>(failed[b]);
      std::printf("  %-10s B: rounds %.1f", band_names[b], 1e-3 * part[b][0] / n);
      for (int m = 0; m < ph::marks; ++m) {
        std::printf(" | %s %.1f (%llu)", ph::mark_names[m], 1e-3 * part[b][m + 1] / n, reached[b][m]);
      }
      std::printf("\n");
    }
  }
#endif
  // The heap at the end of the launch: free chunks by the band of their chunk size, and which
  // directory entry names each part-filled page of chunk sizes up to 1024 B (room held by class
  // slots is what a one-shot fill strands: docs/scatter.md, "The stranding on the CPU").
  std::array<unsigned long long, bands> free_bytes{}, part_filled{};
  unsigned long long held[4] = {};
  unsigned free_pages = 0, marked = 0;
  const auto pages = h.creation().pages_host();
  const auto holders = h.creation().directory_holders_host();
  for (std::size_t p = 0; p < pages.size(); ++p) {
    const auto& v = pages[p];
    if (v.chunk == 0) {
      ++free_pages;
    } else if (v.chunk > policy::pagesize) {
      ++marked;  // a span's other page, or a page of a multi-page chunk
    } else if (const unsigned spots = policy::layout_of(v.chunk).spots; v.count < spots) {
      free_bytes[band_of(v.chunk)] += static_cast<unsigned long long>(spots - v.count) * v.chunk;
      ++part_filled[band_of(v.chunk)];
      if (v.chunk <= 1024u) { ++held[static_cast<int>(holders[p])]; }
    }
  }
  std::printf("pages %zu: %u free, %u other pages of spans or multi-page chunks\n", pages.size(), free_pages, marked);
  std::printf(
    "  part-filled pages of chunks up to 1024 B named by: no entry %llu, a class slot %llu, a warp slot %llu, "
    "the class page %llu\n",
    held[0], held[1], held[2], held[3]);
  for (int b = 0; b < bands; ++b) {
    std::printf("  free chunks of %-10s B: %5.2f %% of the heap, in %llu part-filled pages or spans\n", band_names[b],
                100.0 * static_cast<double>(free_bytes[b]) / static_cast<double>(heap_bytes), part_filled[b]);
  }
#if FILL_ANATOMY_COUNTS
  namespace probe = devalloc::detail::probe;
  const auto count = [](unsigned e) { return static_cast<double>(fill_anatomy_probe::counts[e].load()); };
  const double requests = count(probe::alloc_chunk) > 0 ? count(probe::alloc_chunk) : 1.0;
  std::printf("events per request up to a page (%.0f requests):", requests);
  for (unsigned e = 1; e < probe::count; ++e) {
    if (count(e) > 0) { std::printf(" %s %.3f", probe::name(e), count(e) / requests); }
  }
  const unsigned steps[] = {probe::page_try,    probe::reserve,     probe::reserve_short, probe::open_wait,
                            probe::claim_retry, probe::round_again, probe::follow_slot};
  double sum = 0;
  for (const unsigned e : steps) { sum += count(e); }
  std::printf(
    "\n  steps a request (page_try + reserve + reserve_short + open_wait + claim_retry + round_again"
    " + follow_slot): %.2f\n",
    sum / requests);
#endif
  return 0;
}
