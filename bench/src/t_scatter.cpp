// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/src/t_scatter.cpp — ScatterAlloc (Steinberger et al., InPar 2012) §3.3, §7, §8:
//   scatter-ops     Fig. 3: cycles per alloc / free against thread count (p_alloc = p_free = 0.75)
//   scatter-access  §7 "data access performance": cycles to access the memory each thread holds
//   fragmentation   §3.3 eq. (1)-(2), Fig. 4: internal / external fragmentation and overhead
//   temporal        Fig. 2: 16384 threads, 128-160 B, p_alloc 0.05, p_free 0, against fill level
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common.hpp"
#include "kernels.hpp"
#include "tests.hpp"

namespace devalloc_bench {

/// One launch of the ScatterAlloc test: each worker allocates with p_alloc (if it has room to
/// remember one more allocation) and frees one of its earlier allocations with p_free. Each
/// operation is timed with the in-kernel cycle counter; optionally the worker then reads all the
/// memory it holds (timed as well).
template <class H>
struct OpsStep {
  H heap;
  Deadline dl;
  SizeDist sizes;
  void** slots;
  u32* lengths;
  u32* tags;
  u32* counts;
  u64* alloc_cycles;
  u64* free_cycles;
  u64* access_cycles;
  u64* access_words;
  u64* sink;
  Counters* ctr;
  u32 K;
  double p_alloc, p_free;
  u64 seed;
  u32 launch;
  bool access;
  DEVALLOC_DEVICE void operator()(std::size_t i) const
  {
    alloc_cycles[i] = 0;
    free_cycles[i] = 0;
    if (access) {
      access_cycles[i] = 0;
      access_words[i] = 0;
    }
    if (dl.stop()) { return; }
    const u64 h = hash3(seed, launch, i);
    u32 n = counts[i];
    void** my = slots + i * K;
    u32* my_len = lengths + i * K;
    u32* my_tag = tags + i * K;
    if (unit_real(h) < p_alloc) {
      if (n < K) {
        const std::size_t s = sizes.at(i, (static_cast<std::size_t>(launch) << 8) + n);
        const u64 t0 = cycles_now();
        void* p = heap.alloc(s);
        alloc_cycles[i] = cycles_since(t0);
        if (p != nullptr) {
          if (misaligned<H::alignment>(p)) { count_add(ctr->verify_errors); }
          const u32 tag = make_tag(h, n);
          stamp(p, s, tag);
          my[n] = p;
          my_len[n] = static_cast<u32>(s);
          my_tag[n] = tag;
          ++n;
        } else {
          count_add(ctr->failures);
        }
      } else {
        count_add(ctr->slot_full);
      }
    }
    if (n > 0 && unit_real(mix64(h ^ 0x5bd1e995ull)) < p_free) {
      const u32 j = static_cast<u32>(mix64(h ^ 0x27d4eb2full) % n);
      void* p = my[j];
      if (!stamp_ok(p, my_len[j], my_tag[j])) { count_add(ctr->verify_errors); }
      const u64 t0 = cycles_now();
      heap.dealloc(p);
      free_cycles[i] = cycles_since(t0);
      --n;
      my[j] = my[n];
      my_len[j] = my_len[n];
      my_tag[j] = my_tag[n];
    }
    counts[i] = n;
    if (access && n > 0) {
      u64 words = 0;
      u32 sum = 0;
      const u64 t0 = cycles_now();
      for (u32 k = 0; k < n; ++k) {
        const std::size_t s = my_len[k];
        if ((reinterpret_cast<std::uintptr_t>(my[k]) & 3u) == 0) {
          const u32* w = static_cast<const u32*>(my[k]);
          for (std::size_t q = 0; q < s / 4; ++q) { sum += w[q]; }
          words += s / 4;
        } else {
          const unsigned char* b = static_cast<const unsigned char*>(my[k]);
          for (std::size_t q = 0; q < s; ++q) { sum += b[q]; }
          words += s;
        }
      }
      access_cycles[i] = cycles_since(t0);
      access_words[i] = words;
      sink[i] = sum;
    }
  }
};

/// Starts each worker near the steady state of OpsStep's random walk: a uniformly random number
/// of allocations in 0 .. K-1 (the walk's stationary distribution is uniform there, with less
/// weight on K), so that the warm-up needs a few launches instead of ~K^2.
template <class H>
struct OpsPrefill {
  H heap;
  Deadline dl;
  SizeDist sizes;
  void** slots;
  u32* lengths;
  u32* tags;
  u32* counts;
  Counters* ctr;
  u32 K;
  u64 seed;
  DEVALLOC_DEVICE void operator()(std::size_t i) const
  {
    const u64 h = hash3(seed, 0xFEEDull, i);
    const u32 want = static_cast<u32>(h % K);
    u32 n = 0;
    for (u32 k = 0; k < want; ++k) {
      if (dl.stop()) { break; }
      const std::size_t s = sizes.at(i, (std::size_t{1} << 40) + k);
      void* p = heap.alloc(s);
      if (p == nullptr) {
        count_add(ctr->failures);
        break;
      }
      const u32 tag = make_tag(h, k);
      stamp(p, s, tag);
      slots[i * K + n] = p;
      lengths[i * K + n] = static_cast<u32>(s);
      tags[i * K + n] = tag;
      ++n;
    }
    counts[i] = n;
  }
};

/// Frees everything OpsStep left (verifying stamps). Untimed.
template <class H>
struct OpsCleanup {
  H heap;
  void** slots;
  u32* lengths;
  u32* tags;
  u32* counts;
  Counters* ctr;
  u32 K;
  DEVALLOC_DEVICE void operator()(std::size_t i) const
  {
    for (u32 k = 0; k < counts[i]; ++k) {
      if (!stamp_ok(slots[i * K + k], lengths[i * K + k], tags[i * K + k])) { count_add(ctr->verify_errors); }
      heap.dealloc(slots[i * K + k]);
    }
    counts[i] = 0;
  }
};

namespace {

struct OpsConfig {
  std::size_t threads = 1024;
  SizeDist sizes;
  double p_alloc = 0.75, p_free = 0.75;
  u32 K = 8;
  int max_warmup = 12;
  int measured = 5;
  bool access = false;
  bool layout = false;  // keep the live allocations for fragmentation analysis
};

struct OpsResult {
  std::vector<double> alloc_cycles, free_cycles, access_cycles_per_word, access_cycles;
  std::vector<double> launch_alloc_mean, launch_free_mean, launch_ms;
  std::vector<double> live_history;
  int warmup_launches = 0;
  bool steady = false;
  u64 failures = 0, verify_errors = 0, slot_full = 0, allocs = 0, frees = 0;
  std::vector<LiveAllocation> live;
};

double mean_of(const std::vector<double>& v)
{
  if (v.empty()) { return NAN; }
  double s = 0;
  for (const double x : v) { s += x; }
  return s / static_cast<double>(v.size());
}

struct NoAnalysis {
  void operator()(OpsResult&) const {}
};

/// The protocol of §7: launch until the number of live allocations is steady, then measure.
/// `analyze(result)` runs while the live allocations are still held (with result.live filled
/// when cfg.layout), before everything is freed.
template <class E, class Analyze = NoAnalysis>
OpsResult run_ops(Context& ctx, Lease<E>& lease, const OpsConfig& cfg, CellOut& out, Analyze&& analyze = {})
{
  using H = typename Lease<E>::handle_type;
  OpsResult r;
  const std::size_t n = cfg.threads;
  Array<void*> slots(n * cfg.K);
  Array<u32> lengths(n * cfg.K), tags(n * cfg.K), counts(n);
  Array<u64> alloc_cyc(n), free_cyc(n), access_cyc(cfg.access ? n : 1), access_words(cfg.access ? n : 1),
    sink(cfg.access ? n : 1);
  Array<Counters> ctr(1);
  OpsStep<H> step{lease.handle(),
                  ctx.deadline(),
                  SizeDist{cfg.sizes.lo, cfg.sizes.hi, ctx.opt.seed ^ 0x1234},
                  slots.data(),
                  lengths.data(),
                  tags.data(),
                  counts.data(),
                  alloc_cyc.data(),
                  free_cyc.data(),
                  access_cyc.data(),
                  access_words.data(),
                  sink.data(),
                  ctr.data(),
                  cfg.K,
                  cfg.p_alloc,
                  cfg.p_free,
                  ctx.opt.seed,
                  0u,
                  false};
  u32 launch = 0;
  {
    const Timing t =
      launch_timed(ctx, n,
                   OpsPrefill<H>{lease.handle(), ctx.deadline(), step.sizes, slots.data(), lengths.data(), tags.data(),
                                 counts.data(), ctr.data(), cfg.K, ctx.opt.seed});
    out.check(t);
  }
  auto live_now = [&] {
    double live = 0;
    for (const u32 c : counts.to_host()) { live += c; }
    return live;
  };
  bool stop = out.rec.str("status") == "timed_out";
  // Warm-up: until the live count changed by less than 3 % over the last two launches.
  for (int w = 0; w < cfg.max_warmup && !stop; ++w) {
    step.launch = launch++;
    step.access = false;
    const Timing t = launch_timed(ctx, n, step);
    if (out.check(t) || out.over_budget(ctx)) { stop = true; }
    r.live_history.push_back(live_now());
    ++r.warmup_launches;
    const std::size_t h = r.live_history.size();
    if (h >= 3) {
      const double a = r.live_history[h - 3], b = r.live_history[h - 2], c = r.live_history[h - 1];
      const double scale = std::max(1.0, c);
      if (std::fabs(c - b) / scale < 0.03 && std::fabs(b - a) / scale < 0.03) {
        r.steady = true;
        break;
      }
    }
  }
  for (int m = 0; m < cfg.measured && !stop; ++m) {
    step.launch = launch++;
    step.access = cfg.access;
    const Timing t = launch_timed(ctx, n, step);
    if (out.check(t)) { stop = true; }
    r.launch_ms.push_back(t.ms);
    const auto ac = alloc_cyc.to_host();
    const auto fc = free_cyc.to_host();
    std::vector<double> la, lf;
    for (std::size_t i = 0; i < n; ++i) {
      if (ac[i] != 0) { la.push_back(static_cast<double>(ac[i])); }
      if (fc[i] != 0) { lf.push_back(static_cast<double>(fc[i])); }
    }
    r.allocs += la.size();
    r.frees += lf.size();
    r.launch_alloc_mean.push_back(mean_of(la));
    r.launch_free_mean.push_back(mean_of(lf));
    r.alloc_cycles.insert(r.alloc_cycles.end(), la.begin(), la.end());
    r.free_cycles.insert(r.free_cycles.end(), lf.begin(), lf.end());
    if (cfg.access) {
      const auto xc = access_cyc.to_host();
      const auto xw = access_words.to_host();
      for (std::size_t i = 0; i < n; ++i) {
        if (xc[i] != 0 && xw[i] != 0) {
          r.access_cycles.push_back(static_cast<double>(xc[i]));
          r.access_cycles_per_word.push_back(static_cast<double>(xc[i]) / static_cast<double>(xw[i]));
        }
      }
    }
    r.live_history.push_back(live_now());
    if (!stop && out.over_budget(ctx)) { stop = true; }
  }
  if (cfg.layout) {
    const auto c = counts.to_host();
    const auto p = slots.to_host();
    const auto l = lengths.to_host();
    for (std::size_t i = 0; i < n; ++i) {
      for (u32 k = 0; k < c[i]; ++k) {
        r.live.push_back({reinterpret_cast<std::uintptr_t>(p[i * cfg.K + k]), l[i * cfg.K + k]});
      }
    }
  }
  analyze(r);
  launch_plain(
    ctx, n, OpsCleanup<H>{lease.handle(), slots.data(), lengths.data(), tags.data(), counts.data(), ctr.data(), cfg.K});
  const Counters c = ctr.get(0);
  r.failures = c.failures;
  r.verify_errors = c.verify_errors;
  r.slot_full = c.slot_full;
  return r;
}

void put_ops(Record& rec, const OpsResult& r)
{
  const Summary a = summarize(r.alloc_cycles);
  const Summary f = summarize(r.free_cycles);
  rec.set("alloc_cycles_mean", a.mean).set("alloc_cycles_cv", a.cv).set("alloc_cycles_median", a.median);
  rec.set("alloc_cycles_p10", a.p10).set("alloc_cycles_p90", a.p90);
  rec.set("free_cycles_mean", f.mean).set("free_cycles_cv", f.cv).set("free_cycles_median", f.median);
  rec.set("free_cycles_p10", f.p10).set("free_cycles_p90", f.p90);
  put_summary(rec, "alloc_cycles_launch_mean", summarize(r.launch_alloc_mean));
  put_summary(rec, "free_cycles_launch_mean", summarize(r.launch_free_mean));
  put_summary(rec, "launch_ms", summarize(r.launch_ms));
  rec.set("allocs_measured", r.allocs).set("frees_measured", r.frees);
  rec.set("warmup_launches", r.warmup_launches).set("measured_launches", static_cast<long long>(r.launch_ms.size()));
  rec.set("steady", r.steady);
  rec.set("live_allocations", r.live_history.empty() ? 0.0 : r.live_history.back());
  rec.set("failures", r.failures).set("verify_errors", r.verify_errors).set("slot_full", r.slot_full);
  rec.set("cycle_source", cycle_source());
}

template <class E>
std::size_t ops_heap(const Context& ctx, const OpsConfig& cfg)
{
  const double live = static_cast<double>(cfg.threads) * cfg.K * static_cast<double>(cfg.sizes.hi);
  double need = 3 * live;
  if constexpr (!E::allocator::traits.reuses_freed_memory) {
    need = std::max(need, 1.2 * (static_cast<double>(cfg.max_warmup + cfg.measured) * cfg.p_alloc + cfg.K) *
                            static_cast<double>(cfg.threads) * static_cast<double>(cfg.sizes.hi));
  }
  return clamp_heap(ctx, round_up_pow2(std::max<std::size_t>(16u << 20, static_cast<std::size_t>(need))));
}

std::vector<std::size_t> ops_threads(const Context& ctx)
{
  const std::size_t full = ctx.scale.full_threads;
  std::vector<std::size_t> list;
  if (ctx.quick()) {
    list = {256, 2048, 16384, full / 4, full};
  } else {
    list = pow2_range(32, full);
    list.push_back(full);
  }
  std::vector<std::size_t> out;
  for (const auto n : cap_threads(ctx, list)) {
    if (n <= full) { out.push_back(n); }
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

void test_scatter_ops(Context& ctx)
{
  const std::vector<std::size_t> sizes = {16, 32, 64, 128};
  for_each_allocator(ctx, [&](auto entry) {
    using E = decltype(entry);
    for (const std::size_t size : sizes) {
      for (const std::size_t threads : ops_threads(ctx)) {
        OpsConfig cfg;
        cfg.threads = threads;
        cfg.sizes = SizeDist{size, size};
        cfg.max_warmup = ctx.quick() ? 12 : 40;
        cfg.measured = ctx.quick() ? 5 : 20;
        CellSpec spec;
        spec.params.set("threads", threads).set("size", size).set("p_alloc", cfg.p_alloc).set("p_free", cfg.p_free);
        spec.heap_bytes = ops_heap<E>(ctx, cfg);
        spec.threads = static_cast<double>(threads);
        spec.size = static_cast<double>(size);
        spec.ops_per_thread = 1.5;
        spec.kernels = 8;
        spec.series = "size=" + std::to_string(size);
        spec.work = static_cast<double>(threads);
        run_cell<E>(ctx, spec, [&](Lease<E>& lease, CellOut& out) { put_ops(out.rec, run_ops(ctx, lease, cfg, out)); });
      }
    }
  });
}

namespace {

/// ScatterAlloc §7-8's workload for scatter-access and fragmentation: sizes 512 +- spread/2,
/// p_alloc = p_free = 0.6, 4 slots per thread.
std::vector<std::size_t> paper_spreads(const Context& ctx)
{
  return ctx.quick() ? std::vector<std::size_t>{0, 448, 896}
                     : std::vector<std::size_t>{0, 128, 256, 384, 512, 640, 768, 896};
}

OpsConfig spread_workload(const Context& ctx, std::size_t threads, std::size_t spread, std::size_t quick_measured)
{
  OpsConfig cfg;
  cfg.threads = threads;
  cfg.sizes = SizeDist{512 - spread / 2, 512 + spread / 2};
  cfg.p_alloc = cfg.p_free = 0.6;
  cfg.K = 4;
  cfg.max_warmup = ctx.quick() ? 10 : 30;
  cfg.measured = ctx.quick() ? quick_measured : 10;
  return cfg;
}

CellSpec spread_cell(std::size_t threads, std::size_t spread, const OpsConfig& cfg)
{
  CellSpec spec;
  spec.params.set("threads", threads).set("size", 512).set("size_spread", spread);
  spec.params.set("size_min", cfg.sizes.lo).set("size_max", cfg.sizes.hi).set("p_alloc", 0.6).set("p_free", 0.6);
  spec.threads = static_cast<double>(threads);
  spec.size = 512;
  spec.ops_per_thread = 1.2;
  spec.kernels = 8;
  return spec;
}

}  // namespace

void test_scatter_access(Context& ctx)
{
  std::vector<std::size_t> thread_list = {1024, 4096};
  if (!ctx.quick()) { thread_list.push_back(ctx.scale.full_threads); }
  thread_list = cap_threads(ctx, thread_list);
  const std::vector<std::size_t> spreads = paper_spreads(ctx);
  for_each_allocator(ctx, [&](auto entry) {
    using E = decltype(entry);
    for (const std::size_t threads : thread_list) {
      for (const std::size_t spread : spreads) {
        OpsConfig cfg = spread_workload(ctx, threads, spread, 4);
        cfg.access = true;
        CellSpec spec = spread_cell(threads, spread, cfg);
        spec.heap_bytes = ops_heap<E>(ctx, cfg);
        spec.series = "spread=" + std::to_string(spread);
        spec.work = static_cast<double>(threads);
        run_cell<E>(ctx, spec, [&](Lease<E>& lease, CellOut& out) {
          const OpsResult r = run_ops(ctx, lease, cfg, out);
          put_ops(out.rec, r);
          const Summary w = summarize(r.access_cycles_per_word);
          const Summary a = summarize(r.access_cycles);
          out.rec.set("access_cycles_per_word_mean", w.mean).set("access_cycles_per_word_median", w.median);
          out.rec.set("access_cycles_per_word_cv", w.cv);
          out.rec.set("access_cycles_per_thread_mean", a.mean).set("access_cycles_per_thread_cv", a.cv);
        });
      }
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Fragmentation (§3.3): measured on the live allocations after the steady state of §7.

namespace {

/// Heap bytes that can hold no allocation of `size` bytes on an empty heap (measured by filling).
template <class E>
void put_overhead(Context& ctx, Lease<E>& lease, std::size_t fill_threads, SizeDist dist, Record& rec, double& usable)
{
  const FillResult f = fill_until_oom(ctx, lease, fill_threads, dist);
  lease.fresh();
  usable = f.bytes;
  rec.set("empty_heap_fill_bytes", f.bytes);
  rec.set("overhead_pct", f.expired ? NAN : 100.0 * (1.0 - f.bytes / static_cast<double>(lease.heap_bytes())));
  rec.set("verify_errors", rec.num("verify_errors", 0) + static_cast<double>(f.verify_errors));
  if (f.expired) { rec.set("overhead_note", "fill timed out"); }
}

/// eq. (2): 1 - largest free region / free memory, with the largest region found by probing and
/// the free memory from getAvailableSlots where the allocator provides it, else estimated as the
/// empty-heap capacity minus the regions in use.
template <class E>
void put_external(Context& ctx, Lease<E>& lease, double usable, double region_bytes, std::size_t granule, Record& rec)
{
  using A = typename E::allocator;
  double free_bytes = NAN, largest = NAN;
  std::string method;
  if constexpr (A::providesAvailableSlots) {
    free_bytes = static_cast<double>(lease.get().getAvailableSlots(granule)) * static_cast<double>(granule);
    method = "getAvailableSlots(" + std::to_string(granule) + ")";
  } else {
    free_bytes = usable - region_bytes;
    method = "empty-heap capacity minus live regions";
  }
  if constexpr (A::traits.reuses_freed_memory) {
    largest = static_cast<double>(largest_allocatable(ctx, lease, 16));
  } else if constexpr (A::providesAvailableSlots) {
    largest = free_bytes;  // a bump allocator's free memory is one region
  }
  rec.set("free_bytes", free_bytes).set("free_bytes_method", method).set("largest_free_bytes", largest);
  if (std::isfinite(free_bytes) && std::isfinite(largest) && free_bytes > 0) {
    rec.set("external_frag", std::min(1.0, std::max(0.0, 1.0 - largest / std::max(free_bytes, largest))));
  } else {
    rec.set("external_frag", nullptr);
  }
}

}  // namespace

void test_fragmentation(Context& ctx)
{
  std::vector<std::size_t> thread_list = cap_threads(ctx, {1024, 4096});
  const std::vector<std::size_t> spreads = paper_spreads(ctx);
  // ScatterAlloc §8 gives every allocator 16 MB; the CPU backend keeps that.
  const std::size_t heap = std::size_t{16} << 20;
  for_each_allocator(ctx, [&](auto entry) {
    using E = decltype(entry);
    using A = typename E::allocator;
    for (const std::size_t threads : thread_list) {
      for (const std::size_t spread : spreads) {
        OpsConfig cfg = spread_workload(ctx, threads, spread, 3);
        cfg.layout = true;
        CellSpec spec = spread_cell(threads, spread, cfg);
        spec.heap_bytes = heap;
        spec.strict_heap = true;
        run_cell<E>(ctx, spec, [&](Lease<E>& lease, CellOut& out) {
          double usable = 0;
          put_overhead(ctx, lease, std::min<std::size_t>(threads, 1024), SizeDist{512, 512}, out.rec, usable);
          const OpsResult r = run_ops(ctx, lease, cfg, out, [&](OpsResult& live) {
            double regions = 0;
            const double fint = internal_fragmentation(live.live, A::alignment, &regions);
            double requested = 0;
            for (const auto& l : live.live) { requested += static_cast<double>(l.requested); }
            out.rec.set("internal_frag", fint).set("internal_frag_method", "address spacing (docs/bench.md)");
            out.rec.set("live_requested_bytes", requested).set("live_region_bytes", regions);
            out.rec.set("fill_level", requested / static_cast<double>(lease.heap_bytes()));
            out.rec.set("overlaps", count_overlaps(live.live));
            put_external(ctx, lease, usable, regions, 16, out.rec);
          });
          const double before = out.rec.num("verify_errors", 0);
          put_ops(out.rec, r);
          out.rec.set("verify_errors", out.rec.num("verify_errors", 0) + before + out.rec.num("overlaps", 0));
        });
      }
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Temporal development (Fig. 2): threads keep allocating (p_alloc 0.05, p_free 0) until the heap
// is full; alloc time and fragmentation are sampled against the fill level.

template <class H>
struct TemporalStep {
  H heap;
  Deadline dl;
  SizeDist sizes;
  void** slots;
  u32* lengths;
  u32* counts;
  u64* alloc_cycles;
  Counters* ctr;
  u32 K;
  double p_alloc;
  u64 seed;
  u32 launch;
  DEVALLOC_DEVICE void operator()(std::size_t i) const
  {
    alloc_cycles[i] = 0;
    if (dl.stop()) { return; }
    const u64 h = hash3(seed, launch, i);
    if (unit_real(h) >= p_alloc) { return; }
    const u32 n = counts[i];
    if (n >= K) {
      count_add(ctr->slot_full);
      return;
    }
    const std::size_t s = sizes.at(i, launch);
    const u64 t0 = cycles_now();
    void* p = heap.alloc(s);
    alloc_cycles[i] = cycles_since(t0);
    if (p == nullptr) {
      count_add(ctr->failures);
      return;
    }
    if (misaligned<H::alignment>(p)) { count_add(ctr->verify_errors); }
    count_add(ctr->allocs);
    stamp(p, s, make_tag(i, n));
    slots[i * K + n] = p;
    lengths[i * K + n] = static_cast<u32>(s);
    counts[i] = n + 1;
  }
};

void test_temporal(Context& ctx)
{
  const std::size_t threads = std::min<std::size_t>(16384, ctx.scale.max_threads);
  // Two 8 MB super blocks for 16384 threads (§8); scaled with the thread count so that the heap
  // fills after about as many launches.
  const std::size_t heap = std::max<std::size_t>(std::size_t{1} << 20, (std::size_t{16} << 20) / (16384 / threads));
  const u32 K = 48;
  const double p_alloc = 0.05;
  const int sample_every = ctx.quick() ? 8 : 2;
  const int max_launches = 600;
  for_each_allocator(ctx, [&](auto entry) {
    using E = decltype(entry);
    using A = typename E::allocator;
    using H = typename A::handle_type;
    CellSpec spec;
    spec.params.set("threads", threads).set("size", 144).set("size_min", 128).set("size_max", 160);
    spec.params.set("p_alloc", p_alloc).set("p_free", 0.0);
    spec.heap_bytes = heap;
    spec.strict_heap = true;
    spec.threads = static_cast<double>(threads) * p_alloc;
    spec.size = 144;
    spec.kernels = static_cast<double>(heap) / 144.0 / (static_cast<double>(threads) * p_alloc);
    run_cell<E>(ctx, spec, [&](Lease<E>& lease, CellOut& out) {
      out.rec.set("failures_expected", true);  // the test runs until the heap is full
      double usable = 0;
      put_overhead(ctx, lease, std::min<std::size_t>(threads, 1024), SizeDist{144, 144}, out.rec, usable);
      const double overhead = out.rec.num("overhead_pct");
      Array<void*> slots(threads * K);
      Array<u32> lengths(threads * K), counts(threads);
      Array<u64> cyc(threads);
      Array<Counters> ctr(1);
      TemporalStep<H> step{lease.handle(), ctx.deadline(), SizeDist{128, 160, ctx.opt.seed ^ 0x77},
                           slots.data(),   lengths.data(), counts.data(),
                           cyc.data(),     ctr.data(),     K,
                           p_alloc,        ctx.opt.seed,   0u};
      std::vector<double> window, all;
      u64 failures_before = 0;
      int launches = 0, samples = 0;
      double fill = 0;
      bool full = false;
      for (int l = 0; l < max_launches && !full; ++l) {
        step.launch = static_cast<u32>(l);
        const Timing t = launch_timed(ctx, threads, step);
        ++launches;
        if (out.check(t) || out.over_budget(ctx)) { break; }
        const auto c = cyc.to_host();
        double attempts = 0;
        for (const u64 v : c) {
          if (v != 0) {
            window.push_back(static_cast<double>(v));
            all.push_back(static_cast<double>(v));
            ++attempts;
          }
        }
        const Counters cc = ctr.get(0);
        const double failed_now = static_cast<double>(cc.failures - failures_before);
        failures_before = cc.failures;
        full = attempts > 0 && failed_now >= 0.5 * attempts;
        if ((l + 1) % sample_every != 0 && !full) { continue; }
        // Sample: layout of everything live.
        const auto n = counts.to_host();
        const auto p = slots.to_host();
        const auto len = lengths.to_host();
        std::vector<LiveAllocation> live;
        double requested = 0;
        for (std::size_t i = 0; i < threads; ++i) {
          for (u32 k = 0; k < n[i]; ++k) {
            live.push_back({reinterpret_cast<std::uintptr_t>(p[i * K + k]), len[i * K + k]});
            requested += len[i * K + k];
          }
        }
        Record srec = out.rec;
        double regions = 0;
        const Summary ws = summarize(window);
        fill = requested / static_cast<double>(lease.heap_bytes());
        srec.set("variant", "sample").set("launch", l + 1).set("sample", samples++);
        srec.set("fill_level", fill).set("live_allocations", static_cast<double>(live.size()));
        srec.set("alloc_cycles_mean", ws.mean).set("alloc_cycles_cv", ws.cv).set("alloc_cycles_median", ws.median);
        srec.set("internal_frag", internal_fragmentation(live, A::alignment, &regions));
        srec.set("overhead_pct", overhead).set("failures", failed_now).set("verify_errors", count_overlaps(live));
        put_external(ctx, lease, usable, regions, 16, srec);
        out.extra.push_back(srec);
        window.clear();
      }
      launch_plain(ctx, threads,
                   FreeFilledKernel<H>{lease.handle(), slots.data(), lengths.data(), counts.data(), ctr.data(), K});
      const Counters cc = ctr.get(0);
      const Summary a = summarize(all);
      out.rec.set("variant", "summary").set("launches", launches).set("samples", samples).set("final_fill_level", fill);
      out.rec.set("reached_full", full).set("alloc_cycles_mean", a.mean).set("alloc_cycles_cv", a.cv);
      out.rec.set("failures", cc.failures)
        .set("verify_errors", out.rec.num("verify_errors", 0) + static_cast<double>(cc.verify_errors));
      out.rec.set("slot_full", cc.slot_full).set("cycle_source", cycle_source());
      double sample_errors = 0;
      for (const auto& r : out.extra) { sample_errors += r.num("verify_errors", 0); }
      out.rec.set("verify_errors", out.rec.num("verify_errors", 0) + sample_errors);
    });
  });
}

}  // namespace devalloc_bench
