// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/src/t_thesis.cpp — mallocMC thesis (Eckert 2014) §5.1, Figs. 5.1 and 5.2: the host draws
// a random number per step and launches, each with probability 0.75, a kernel in which every one
// of N_worker workers allocates one chunk of N_byte bytes and one in which every worker frees one.
// After a warm-up the clock64 cycles of every alloc and free are averaged.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "common.hpp"
#include "kernels.hpp"
#include "tests.hpp"

namespace devalloc_bench {

template <class H>
struct ThesisAlloc {
  H heap;
  Deadline dl;
  void** slots;
  u32* counts;
  u64* cycles;
  Counters* ctr;
  u32 K;
  std::size_t size;
  DEVALLOC_DEVICE void operator()(std::size_t i) const
  {
    cycles[i] = 0;
    if (dl.stop()) { return; }
    const u32 n = counts[i];
    if (n >= K) {
      count_add(ctr->slot_full);
      return;
    }
    const u64 t0 = cycles_now();
    void* p = heap.alloc(size);
    cycles[i] = cycles_since(t0);
    if (p == nullptr) {
      count_add(ctr->failures);
      return;
    }
    if (misaligned<H::alignment>(p)) { count_add(ctr->verify_errors); }
    stamp(p, size, make_tag(i, n));
    slots[i * K + n] = p;
    counts[i] = n + 1;
  }
};

template <class H>
struct ThesisFree {
  H heap;
  Deadline dl;
  void** slots;
  u32* counts;
  u64* cycles;
  Counters* ctr;
  u32 K;
  std::size_t size;
  DEVALLOC_DEVICE void operator()(std::size_t i) const
  {
    cycles[i] = 0;
    if (dl.stop()) { return; }
    const u32 n = counts[i];
    if (n == 0) { return; }
    void* p = slots[i * K + n - 1];
    if (!stamp_ok(p, size, make_tag(i, n - 1))) { count_add(ctr->verify_errors); }
    const u64 t0 = cycles_now();
    heap.dealloc(p);
    cycles[i] = cycles_since(t0);
    counts[i] = n - 1;
  }
};

/// Starts every worker with a uniformly random number of allocations in 0 .. K-1 (independent
/// per worker), near the fill level the host loop's random walk settles at.
template <class H>
struct ThesisPrefill {
  H heap;
  Deadline dl;
  void** slots;
  u32* counts;
  Counters* ctr;
  u32 K;
  std::size_t size;
  u64 seed;
  DEVALLOC_DEVICE void operator()(std::size_t i) const
  {
    const u32 want = static_cast<u32>(hash3(seed, 0xBEEFull, i) % K);
    u32 n = 0;
    for (; n < want; ++n) {
      if (dl.stop()) { break; }
      void* p = heap.alloc(size);
      if (p == nullptr) {
        count_add(ctr->failures);
        break;
      }
      stamp(p, size, make_tag(i, n));
      slots[i * K + n] = p;
    }
    counts[i] = n;
  }
};

template <class H>
struct ThesisCleanup {
  H heap;
  void** slots;
  u32* counts;
  Counters* ctr;
  u32 K;
  std::size_t size;
  DEVALLOC_DEVICE void operator()(std::size_t i) const
  {
    for (u32 k = 0; k < counts[i]; ++k) {
      if (!stamp_ok(slots[i * K + k], size, make_tag(i, k))) { count_add(ctr->verify_errors); }
      heap.dealloc(slots[i * K + k]);
    }
    counts[i] = 0;
  }
};

namespace {
// The thesis' N_worker list (footnote to §5.1.1), for a GPU of 16640 resident threads.
const std::vector<std::size_t> thesis_workers = {
  2,    4,    6,    8,    12,   16,   20,   24,   28,   32,   40,   48,    56,    64,    80,
  96,   128,  160,  192,  224,  256,  320,  384,  448,  512,  640,  768,   896,   1024,  1280,
  1536, 1792, 2048, 2560, 3072, 3584, 4096, 5120, 6144, 7168, 8192, 10240, 12288, 14336, 16384};
}  // namespace

void test_thesis_synthetic(Context& ctx)
{
  // Scaled to this device: the list's 16384 becomes the device's resident thread count.
  const double factor = static_cast<double>(ctx.scale.full_threads) / 16384.0;
  std::vector<std::size_t> list;
  for (std::size_t k = 0; k < thesis_workers.size(); ++k) {
    if (ctx.quick() && !(k % 5 == 0 || k + 1 == thesis_workers.size())) { continue; }
    list.push_back(std::max<std::size_t>(
      1, static_cast<std::size_t>(std::llround(static_cast<double>(thesis_workers[k]) * factor))));
  }
  list = cap_threads(ctx, list);
  const std::vector<std::size_t> sizes = {16, 32, 64, 128};
  const u32 K = 16;
  const int warm_max = ctx.quick() ? 10 : 40;
  const int measured = ctx.quick() ? 8 : 30;
  const int reps = ctx.quick() ? 1 : 3;
  for_each_allocator(ctx, [&](auto entry) {
    using E = decltype(entry);
    using A = typename E::allocator;
    using H = typename A::handle_type;
    for (const std::size_t size : sizes) {
      for (std::size_t idx = 0; idx < list.size(); ++idx) {
        const std::size_t workers = list[idx];
        CellSpec spec;
        spec.params.set("threads", workers).set("size", size).set("thesis_workers_scale", factor);
        double need = 4.0 * static_cast<double>(workers) * K * static_cast<double>(size);
        if constexpr (!A::traits.reuses_freed_memory) {
          need = 1.2 * static_cast<double>(reps) * (warm_max + measured + K) * static_cast<double>(workers) *
                 static_cast<double>(size);
        }
        spec.heap_bytes =
          clamp_heap(ctx, round_up_pow2(std::max<std::size_t>(64u << 20, static_cast<std::size_t>(need))));
        spec.threads = static_cast<double>(workers);
        spec.size = static_cast<double>(size);
        spec.kernels = static_cast<double>(reps) * (warm_max + measured) * 1.5;
        spec.series = "size=" + std::to_string(size);
        spec.work = static_cast<double>(workers);
        run_cell<E>(ctx, spec, [&](Lease<E>& lease, CellOut& out) {
          Array<void*> slots(workers * K);
          Array<u32> counts(workers);
          Array<u64> cyc(workers);
          Array<Counters> ctr(1);
          std::mt19937_64 rng(ctx.opt.seed ^ (workers * 131 + size));
          std::uniform_real_distribution<double> coin(0.0, 1.0);
          std::vector<double> alloc_all, free_all, rep_alloc_mean, rep_free_mean;
          int warm_done = 0;
          bool steady_all = true;
          bool stop = false;
          for (int rep = 0; rep < reps && !stop; ++rep) {
            if (rep > 0) { lease.fresh(); }
            ThesisAlloc<H> ak{
              lease.handle(), ctx.deadline(), slots.data(), counts.data(), cyc.data(), ctr.data(), K, size};
            ThesisFree<H> fk{
              lease.handle(), ctx.deadline(), slots.data(), counts.data(), cyc.data(), ctr.data(), K, size};
            std::vector<double> live;
            std::vector<double> ra, rf;
            auto collect = [&](std::vector<double>& into) {
              for (const u64 v : cyc.to_host()) {
                if (v != 0) { into.push_back(static_cast<double>(v)); }
              }
            };
            // One step of the thesis' host loop: alloc kernel and free kernel, each with p = 0.75.
            auto one_step = [&](bool measuring) {
              if (coin(rng) < 0.75 && !stop) {
                const Timing t = launch_timed(ctx, workers, ak);
                if (out.check(t)) { stop = true; }
                if (measuring) { collect(ra); }
              }
              if (coin(rng) < 0.75 && !stop) {
                const Timing t = launch_timed(ctx, workers, fk);
                if (out.check(t)) { stop = true; }
                if (measuring) { collect(rf); }
              }
              if (!stop && out.over_budget(ctx)) { stop = true; }
            };
            {
              const Timing t =
                launch_timed(ctx, workers,
                             ThesisPrefill<H>{lease.handle(), ctx.deadline(), slots.data(), counts.data(), ctr.data(),
                                              K, size, ctx.opt.seed + static_cast<u64>(rep)});
              if (out.check(t)) { stop = true; }
            }
            // Warm-up until the fill level is steady (live count within 3 % over two steps).
            bool steady = false;
            for (int step = 0; step < warm_max && !steady && !stop; ++step) {
              one_step(false);
              ++warm_done;
              double n = 0;
              for (const u32 c : counts.to_host()) { n += c; }
              live.push_back(n);
              const std::size_t h = live.size();
              if (h >= 3) {
                const double sc = std::max(1.0, live[h - 1]);
                steady =
                  std::fabs(live[h - 1] - live[h - 2]) / sc < 0.03 && std::fabs(live[h - 2] - live[h - 3]) / sc < 0.03;
              }
            }
            steady_all = steady_all && steady;
            for (int m = 0; m < measured && !stop; ++m) { one_step(true); }
            launch_plain(ctx, workers,
                         ThesisCleanup<H>{lease.handle(), slots.data(), counts.data(), ctr.data(), K, size});
            const Summary a = summarize(ra), f = summarize(rf);
            rep_alloc_mean.push_back(a.mean);
            rep_free_mean.push_back(f.mean);
            alloc_all.insert(alloc_all.end(), ra.begin(), ra.end());
            free_all.insert(free_all.end(), rf.begin(), rf.end());
          }
          const Summary a = summarize(alloc_all), f = summarize(free_all);
          const Summary ra = summarize(rep_alloc_mean), rf = summarize(rep_free_mean);
          out.rec.set("alloc_cycles_mean", a.mean).set("alloc_cycles_cv", a.cv).set("alloc_cycles_median", a.median);
          out.rec.set("free_cycles_mean", f.mean).set("free_cycles_cv", f.cv).set("free_cycles_median", f.median);
          put_summary(out.rec, "alloc_cycles_rep_mean", ra);
          put_summary(out.rec, "free_cycles_rep_mean", rf);
          out.rec.set("allocs_measured", static_cast<double>(alloc_all.size()));
          out.rec.set("frees_measured", static_cast<double>(free_all.size()));
          out.rec.set("reps", static_cast<long long>(rep_alloc_mean.size())).set("warmup_steps", warm_done);
          out.rec.set("steady", steady_all);
          const Counters c = ctr.get(0);
          out.rec.set("failures", c.failures).set("verify_errors", c.verify_errors).set("slot_full", c.slot_full);
          out.rec.set("cycle_source", cycle_source());
        });
      }
    }
  });
}

}  // namespace devalloc_bench
