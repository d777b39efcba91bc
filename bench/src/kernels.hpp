// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/src/kernels.hpp
//
// Worker functors shared by several tests (one live allocation per thread, fill until out of
// memory, free everything, probe the largest allocatable block) and the host routines around
// them. Every functor is a plain struct with a DEVALLOC_DEVICE operator()(std::size_t worker)
// const, so one definition runs as a CUDA kernel (bench_kernel) and on std::threads
// (devalloc::launch).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "common.hpp"

namespace devalloc_bench {

/// Sizes of allocation k of worker i: uniform in [lo, hi] (lo == hi: fixed), or log-uniform
/// (log_uniform_size) where `log_uniform` is set. A deterministic hash of (seed, i, k): the
/// verification kernel and the host recompute the same size.
struct SizeDist {
  std::size_t lo = 16, hi = 16;
  u64 seed = 0;
  bool log_uniform = false;
  DEVALLOC_HOST_DEVICE std::size_t at(std::size_t i, std::size_t k) const
  {
    if (lo == hi) { return lo; }
    const u64 h = hash3(seed, i, k);
    return log_uniform ? log_uniform_size(h, lo, hi) : uniform_size(h, lo, hi);
  }
  /// Mean size (the continuous log-uniform mean (hi - lo) / ln(hi / lo) where log_uniform).
  [[nodiscard]] double mean() const
  {
    if (log_uniform && hi > lo) {
      return static_cast<double>(hi - lo) / std::log(static_cast<double>(hi) / static_cast<double>(lo));
    }
    return 0.5 * static_cast<double>(lo + hi);
  }
};

/// Each worker allocates until its first failure (or `per` allocations, or the deadline) and
/// remembers its pointers in slots [i*per, i*per + per).
template <class H>
struct FillKernel {
  H heap;
  Deadline dl;
  SizeDist sizes;
  void** slots;
  u32* lengths;
  u32* counts;
  Counters* ctr;
  u32 per;
  DEVALLOC_DEVICE void operator()(std::size_t i) const
  {
    u32 n = 0;
    for (; n < per; ++n) {
      if (dl.stop()) { break; }
      const std::size_t s = sizes.at(i, n);
      void* p = heap.alloc(s);
      if (p == nullptr) {
        count_add(ctr->failures);
        break;
      }
      if (misaligned<H::alignment>(p)) { count_add(ctr->verify_errors); }
      stamp(p, s, make_tag(i, n));
      slots[i * per + n] = p;
      lengths[i * per + n] = static_cast<u32>(s);
    }
    if (n == per) { count_add(ctr->slot_full); }
    counts[i] = n;
  }
};

/// Frees every pointer FillKernel left (verifying each stamp first).
template <class H>
struct FreeFilledKernel {
  H heap;
  void** slots;
  u32* lengths;
  u32* counts;
  Counters* ctr;
  u32 per;
  DEVALLOC_DEVICE void operator()(std::size_t i) const
  {
    const u32 n = counts[i];
    for (u32 k = 0; k < n; ++k) {
      void* p = slots[i * per + k];
      if (!stamp_ok(p, lengths[i * per + k], make_tag(i, k))) { count_add(ctr->verify_errors); }
      heap.dealloc(p);
    }
    counts[i] = 0;
  }
};

/// One worker: allocate `bytes`, report success, free at once.
template <class H>
struct ProbeKernel {
  H heap;
  std::size_t bytes;
  u64* ok;
  DEVALLOC_DEVICE void operator()(std::size_t) const
  {
    void* p = heap.alloc(bytes);
    *ok = p != nullptr ? 1u : 0u;
    if (p != nullptr) {
      stamp(p, bytes, 77u);
      heap.dealloc(p);
    }
  }
};

struct FillResult {
  u64 allocs = 0;
  double bytes = 0;
  double fill_ms = 0;
  double free_ms = 0;
  u64 failures = 0;
  u64 verify_errors = 0;
  u64 slot_full = 0;
  bool expired = false;
  std::vector<LiveAllocation> live;  // filled when keep_layout
};

/// Fills the heap with `threads` workers until every worker has seen a failure; frees everything
/// (timed) afterwards. The allocator must be empty before.
template <class E>
FillResult fill_until_oom(Context& ctx, Lease<E>& lease, std::size_t threads, SizeDist sizes, bool keep_layout = false)
{
  using H = typename Lease<E>::handle_type;
  FillResult r;
  const double capacity = static_cast<double>(lease.heap_bytes()) / std::max(1.0, static_cast<double>(sizes.lo));
  const u32 per = static_cast<u32>(std::min<double>(1u << 30, 2.0 * capacity / static_cast<double>(threads) + 8));
  Array<void*> slots(threads * per);
  Array<u32> lengths(threads * per);
  Array<u32> counts(threads);
  Array<Counters> ctr(1);
  FillKernel<H> fill{lease.handle(), ctx.deadline(4 * ctx.cell_budget_s()),
                     sizes,          slots.data(),
                     lengths.data(), counts.data(),
                     ctr.data(),     per};
  const Timing tf = launch_timed(ctx, threads, fill);
  r.fill_ms = tf.ms;
  r.expired = tf.expired;
  const auto c = counts.to_host();
  std::vector<u32> len;
  std::vector<void*> ptr;
  if (keep_layout) {
    len = lengths.to_host();
    ptr = slots.to_host();
  }
  for (std::size_t i = 0; i < threads; ++i) {
    r.allocs += c[i];
    if (keep_layout) {
      for (u32 k = 0; k < c[i]; ++k) {
        r.live.push_back({reinterpret_cast<std::uintptr_t>(ptr[i * per + k]), len[i * per + k]});
        r.bytes += len[i * per + k];
      }
    }
  }
  if (!keep_layout) {
    // Sum the requested bytes on the host from the same size function the workers used.
    for (std::size_t i = 0; i < threads; ++i) {
      for (u32 k = 0; k < c[i]; ++k) { r.bytes += static_cast<double>(sizes.at(i, k)); }
    }
  }
  FreeFilledKernel<H> release{lease.handle(), slots.data(), lengths.data(), counts.data(), ctr.data(), per};
  const Timing tr = launch_timed(ctx, threads, release);
  r.free_ms = tr.ms;
  const Counters cc = ctr.get(0);
  r.failures = cc.failures;
  r.verify_errors = cc.verify_errors;
  r.slot_full = cc.slot_full;
  return r;
}

/// Largest single allocation that succeeds right now (binary search with one worker, each probe
/// freed at once). Only for allocators that reuse freed memory.
template <class E>
std::size_t largest_allocatable(Context& ctx, Lease<E>& lease, std::size_t granule)
{
  using H = typename Lease<E>::handle_type;
  Array<u64> ok(1);
  auto probe = [&](std::size_t bytes) {
    ok.zero();
    launch_plain(ctx, 1, ProbeKernel<H>{lease.handle(), bytes, ok.data()}, 32);
    return ok.get(0) != 0;
  };
  granule = std::max<std::size_t>(1, granule);
  std::size_t lo = 0, hi = lease.heap_bytes() / granule + 1;  // lo*granule succeeds (0 trivially), hi*granule fails
  if (!probe(granule)) { return 0; }
  lo = 1;
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (probe(mid * granule)) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo * granule;
}

/// [P]: each allocating thread holds at most one allocation; without one it allocates with
/// p_alloc, with one it frees with p_free. State persists across launches. A worker records what
/// it did in its byte of the launch's row of `log` (1 allocated, 2 freed; a store, no atomic and
/// no read: the host counts after the sequence).
template <class H>
struct ProbKernel {
  H heap;
  Deadline dl;
  SizeDist sizes;
  u32 every;
  void** state;
  u32* lengths;
  unsigned char* log;  // [launch][allocating worker]
  std::size_t allocating;
  Counters* ctr;
  double p_alloc, p_free;
  u64 seed;
  u32 launch;
  DEVALLOC_DEVICE void operator()(std::size_t i) const
  {
    if (i % every != 0) { return; }
    const std::size_t a = i / every;
    if (dl.stop()) { return; }
    const u64 h = hash3(seed, launch, a);
    void* p = state[a];
    if (p == nullptr) {
      if (unit_real(h) < p_alloc) {
        const std::size_t s = sizes.at(a, launch);
        void* q = heap.alloc(s);
        if (q == nullptr) {
          count_add(ctr->failures);
        } else {
          if (misaligned<H::alignment>(q)) { count_add(ctr->verify_errors); }
          stamp(q, s, make_tag(a, 0x9999));
          state[a] = q;
          lengths[a] = static_cast<u32>(s);
          log[launch * allocating + a] = 1;
        }
      }
    } else if (unit_real(h) < p_free) {
      if (!stamp_ok(p, lengths[a], make_tag(a, 0x9999))) { count_add(ctr->verify_errors); }
      heap.dealloc(p);
      state[a] = nullptr;
      log[launch * allocating + a] = 2;
    }
  }
};

template <class H>
struct ProbCleanup {
  H heap;
  void** state;
  u32* lengths;
  Counters* ctr;
  DEVALLOC_DEVICE void operator()(std::size_t a) const
  {
    if (state[a] != nullptr) {
      if (!stamp_ok(state[a], lengths[a], make_tag(a, 0x9999))) { count_add(ctr->verify_errors); }
      heap.dealloc(state[a]);
      state[a] = nullptr;
    }
  }
};

/// The Probability test's kernel sequence; used by prob and by throughput (ScatterAlloc issue).
/// Each repetition starts from a fresh heap and times its `launches` kernels as one sequence
/// (launch_timed_sequence: Vinkler & Havran measure a test's entire GPU time with CUDA events);
/// µs per launch is the sequence's median time over the launches. The allocation and
/// deallocation counts are the last measured repetition's, counted from the workers' log.
template <class E>
void run_prob_sequence(Context& ctx, Lease<E>& lease, CellOut& out, std::size_t threads, u32 every, SizeDist sizes,
                       int launches)
{
  using H = typename E::allocator::handle_type;
  const std::size_t allocating = (threads + every - 1) / every;
  Array<Counters> ctr(1);
  Array<void*> state(allocating);
  Array<u32> lengths(allocating);
  Array<unsigned char> log(allocating * static_cast<std::size_t>(launches));
  std::vector<double> totals;
  double allocs = 0, frees = 0;
  for (int r = 0; r < ctx.scale.warmups + ctx.scale.reps; ++r) {
    lease.fresh();
    state.zero();
    log.zero();
    const ProbKernel<H> k{lease.handle(),
                          ctx.deadline(),
                          SizeDist{sizes.lo, sizes.hi, ctx.opt.seed + static_cast<u64>(r)},
                          every,
                          state.data(),
                          lengths.data(),
                          log.data(),
                          allocating,
                          ctr.data(),
                          0.75,
                          0.75,
                          ctx.opt.seed + 7919ull * static_cast<u64>(r),
                          0u};
    const Timing t = launch_timed_sequence(ctx, threads, launches, [&](int l) {
      ProbKernel<H> kl = k;
      kl.launch = static_cast<u32>(l);
      return kl;
    });
    const bool stop = out.check(t);
    launch_plain(ctx, allocating, ProbCleanup<H>{lease.handle(), state.data(), lengths.data(), ctr.data()});
    if (stop) { break; }
    if (r >= ctx.scale.warmups) {
      totals.push_back(t.ms);
      allocs = frees = 0;
      for (const unsigned char op : log.to_host()) {
        allocs += op == 1;
        frees += op == 2;
      }
    }
    if (out.over_budget(ctx)) { break; }
  }
  const Summary s = summarize(totals);
  put_summary(out.rec, "time_ms", s);
  out.rec.set("launches", launches).set("reps", static_cast<long long>(s.n));
  out.rec.set("us_per_launch", s.median * 1e3 / launches);
  out.rec.set("timing", "one event pair around the launch sequence");
  out.rec.set("allocations", allocs).set("deallocations", frees);
  if (s.median > 0) {
    out.rec.set("alloc_per_s", allocs / (s.median * 1e-3));
    out.rec.set("free_per_s", frees / (s.median * 1e-3));
  }
  const Counters c = ctr.get(0);
  out.rec.set("failures", c.failures).set("verify_errors", c.verify_errors);
}

/// One allocation of sizes.at(i, 0) bytes per worker, stamped; the pointer (or nullptr) in ptrs[i].
template <class H>
struct OneAlloc {
  H heap;
  Deadline dl;
  SizeDist sizes;
  void** ptrs;
  Counters* ctr;
  DEVALLOC_DEVICE void operator()(std::size_t i) const
  {
    ptrs[i] = nullptr;
    if (dl.stop()) { return; }
    const std::size_t s = sizes.at(i, 0);
    void* p = heap.alloc(s);
    if (p == nullptr) {
      count_add(ctr->failures);
      return;
    }
    stamp(p, s, make_tag(i, s));
    ptrs[i] = p;
  }
};

/// Checks OneAlloc's stamp and alignment while every allocation is live (a kernel of its own).
template <class H>
struct VerifyOne {
  SizeDist sizes;
  void** ptrs;
  Counters* ctr;
  DEVALLOC_DEVICE void operator()(std::size_t i) const
  {
    void* p = ptrs[i];
    if (p == nullptr) { return; }
    const std::size_t s = sizes.at(i, 0);
    if (misaligned<H::alignment>(p) || !stamp_ok(p, s, make_tag(i, s))) { count_add(ctr->verify_errors); }
  }
};

template <class H>
struct FreeOne {
  H heap;
  void** ptrs;
  DEVALLOC_DEVICE void operator()(std::size_t i) const
  {
    void* p = ptrs[i];
    if (p != nullptr) {
      heap.dealloc(p);
      ptrs[i] = nullptr;
    }
  }
};

/// One allocation per thread, all live at once: alloc kernel (timed, each allocation stamped),
/// verification kernel, free kernel (timed); repeated on a fresh heap (warm-ups first). Layout
/// checked for overlaps on the last rep. Records alloc_per_s / free_per_s (successful
/// allocations per second of the kernel, median over the timed reps), `failures` (null returns of
/// every rep, warm-ups included) and, over the timed reps only, `failures_measured`,
/// `attempts_measured` (requests made before the deadline) and `failure_fraction` (their ratio).
template <class E>
void one_alloc_per_thread(Context& ctx, Lease<E>& lease, CellOut& out, std::size_t threads, SizeDist sizes)
{
  using H = typename E::allocator::handle_type;
  Array<void*> ptrs(threads);
  Array<Counters> ctr(1);
  std::vector<double> alloc_ms, free_ms, alloc_rate, free_rate;
  double overlaps = 0, measured_failures = 0, measured_attempts = 0;
  const int total = ctx.scale.warmups + ctx.scale.reps;
  for (int r = 0; r < total; ++r) {
    lease.fresh();
    const Counters before = ctr.get(0);
    const Timing ta =
      launch_timed(ctx, threads, OneAlloc<H>{lease.handle(), ctx.deadline(), sizes, ptrs.data(), ctr.data()});
    const bool expired = out.check(ta);
    launch_plain(ctx, threads, VerifyOne<H>{sizes, ptrs.data(), ctr.data()});
    const double failed = static_cast<double>(ctr.get(0).failures - before.failures);
    const double attempted = static_cast<double>(threads) - static_cast<double>(ta.skipped);
    const double ok = attempted - failed;
    if (r == total - 1 || expired) {
      const auto p = ptrs.to_host();
      std::vector<LiveAllocation> live;
      for (std::size_t i = 0; i < threads; ++i) {
        if (p[i] != nullptr) { live.push_back({reinterpret_cast<std::uintptr_t>(p[i]), sizes.at(i, 0)}); }
      }
      overlaps += static_cast<double>(count_overlaps(live));
    }
    const Timing tf = launch_timed(ctx, threads, FreeOne<H>{lease.handle(), ptrs.data()});
    if (expired) { break; }
    if (r >= ctx.scale.warmups) {
      alloc_ms.push_back(ta.ms);
      free_ms.push_back(tf.ms);
      if (ta.ms > 0) { alloc_rate.push_back(ok / (ta.ms * 1e-3)); }
      if (tf.ms > 0) { free_rate.push_back(ok / (tf.ms * 1e-3)); }
      measured_failures += failed;
      measured_attempts += attempted;
    }
    if (out.over_budget(ctx)) { break; }
  }
  const Summary ar = summarize(alloc_rate), fr = summarize(free_rate);
  out.rec.set("alloc_per_s", ar.median).set("free_per_s", fr.median);
  put_summary(out.rec, "alloc_per_s", ar);
  put_summary(out.rec, "free_per_s", fr);
  put_summary(out.rec, "alloc_ms", summarize(alloc_ms));
  put_summary(out.rec, "free_ms", summarize(free_ms));
  out.rec.set("reps", static_cast<long long>(alloc_ms.size()));
  const Counters c = ctr.get(0);
  out.rec.set("failures", c.failures).set("verify_errors", static_cast<double>(c.verify_errors) + overlaps);
  out.rec.set("failures_measured", measured_failures).set("attempts_measured", measured_attempts);
  out.rec.set("failure_fraction", measured_attempts > 0 ? measured_failures / measured_attempts : NAN);
}

/// One alloc, stamp, verify (contents and alignment) and free per worker; with `every` > 1 only
/// every `every`-th worker allocates (Vinkler & Havran AD, one thread per warp). Also the cost
/// model's calibration kernel (every = 1).
template <class H>
struct AdKernel {
  H heap;
  Deadline dl;
  std::size_t bytes;
  u32 every;
  Counters* ctr;
  DEVALLOC_DEVICE void operator()(std::size_t i) const
  {
    if (i % every != 0) { return; }
    if (dl.stop()) { return; }
    void* p = heap.alloc(bytes);
    if (p == nullptr) {
      count_add(ctr->failures);
      return;
    }
    const u32 tag = make_tag(i, bytes);
    stamp(p, bytes, tag);
    if (misaligned<H::alignment>(p) || !stamp_ok(p, bytes, tag)) { count_add(ctr->verify_errors); }
    heap.dealloc(p);
  }
};

}  // namespace devalloc_bench
