// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/src/t_fdg.cpp — FDGMalloc (Widmer et al. 2013) §5: X threads each allocate N chunks of
// S bytes; at the end everything is freed.
//   fdg-sizes    §5.1, Fig. 4: X = 64, N = 16, S = 16 ... 8192
//   fdg-threads  §5.2, Fig. 5: X = 1 ... 65536, N and S in {16 ... 512} (combinations that fit)
//   fdg-scaling  §5.3, Fig. 6: 1 ... 512 blocks of 1024 threads, N in {1, 16, 128}, S = 16
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common.hpp"
#include "kernels.hpp"
#include "tests.hpp"

namespace devalloc_bench {

template <class H>
struct FdgAlloc {
  H heap;
  Deadline dl;
  std::size_t bytes;
  u32 count;
  void** slots;
  u64* cycles;
  Counters* ctr;
  DEVALLOC_DEVICE void operator()(std::size_t i) const
  {
    u64 total = 0;
    for (u32 k = 0; k < count; ++k) {
      if (dl.stop(count - k)) {
        for (; k < count; ++k) { slots[i * count + k] = nullptr; }
        break;
      }
      const u64 t0 = cycles_now();
      void* p = heap.alloc(bytes);
      total += cycles_since(t0);
      slots[i * count + k] = p;
      if (p == nullptr) {
        count_add(ctr->failures);
      } else {
        if (misaligned<H::alignment>(p)) { count_add(ctr->verify_errors); }
        stamp(p, bytes, make_tag(i, k));
      }
    }
    cycles[i] = total;
  }
};

template <class H>
struct FdgFree {
  H heap;
  std::size_t bytes;
  u32 count;
  void** slots;
  u64* allocated;
  Counters* ctr;
  DEVALLOC_DEVICE void operator()(std::size_t i) const
  {
    u64 n = 0;
    for (u32 k = 0; k < count; ++k) {
      void* p = slots[i * count + k];
      if (p == nullptr) { continue; }
      if (!stamp_ok(p, bytes, make_tag(i, k))) { count_add(ctr->verify_errors); }
      heap.dealloc(p);
      slots[i * count + k] = nullptr;
      ++n;
    }
    allocated[i] = n;
  }
};

namespace {

template <class E>
void fdg_cell(Context& ctx, std::size_t threads, u32 count, std::size_t bytes, unsigned block, Record params,
              const std::string& series, double work)
{
  using H = typename E::allocator::handle_type;
  const double need =
    1.5 * static_cast<double>(threads) * count * static_cast<double>(bytes) + static_cast<double>(64u << 20);
  CellSpec spec;
  spec.params = std::move(params);
  spec.params.set("threads", threads).set("allocs_per_thread", count).set("size", bytes);
  spec.heap_bytes = clamp_heap(ctx, round_up_pow2(static_cast<std::size_t>(need)));
  spec.threads = static_cast<double>(threads);
  spec.size = static_cast<double>(bytes);
  spec.ops_per_thread = count;
  spec.kernels = 2.0 * (ctx.scale.reps + ctx.scale.warmups);
  spec.series = series;
  spec.work = work;
  if (need > static_cast<double>(ctx.scale.max_heap)) {
    // As in the paper: the memory does not allow this combination.
    if (!ctx.allocator_selected(E::name) || ctx.opt.child) { return; }
    Record r = entry_record<E>(ctx);
    for (const auto& kv : spec.params.fields().items()) { r.set(kv.key(), kv.value()); }
    r.set("cell", cell_label(spec.params));
    r.set("status", "skipped").set("note", "needs more memory than the benchmark's heap limit");
    CellOut out(r);
    finish_cell(ctx, out, 0);
    return;
  }
  run_cell<E>(ctx, spec, [&](Lease<E>& lease, CellOut& out) {
    Array<void*> slots(threads * count);
    Array<u64> cycles(threads), allocated(threads);
    Array<Counters> ctr(1);
    std::vector<double> alloc_rate, free_rate, per_alloc, alloc_ms;
    for (int r = 0; r < ctx.scale.warmups + ctx.scale.reps; ++r) {
      lease.fresh();
      const Timing ta = launch_timed(
        ctx, threads,
        FdgAlloc<H>{lease.handle(), ctx.deadline(), bytes, count, slots.data(), cycles.data(), ctr.data()}, block);
      const bool expired = out.check(ta);
      const Timing tf = launch_timed(
        ctx, threads, FdgFree<H>{lease.handle(), bytes, count, slots.data(), allocated.data(), ctr.data()}, block);
      if (expired) { break; }
      if (r >= ctx.scale.warmups) {
        double n = 0, cyc = 0;
        for (const u64 v : allocated.to_host()) { n += static_cast<double>(v); }
        for (const u64 v : cycles.to_host()) { cyc += static_cast<double>(v); }
        const double attempts = static_cast<double>(threads) * count;
        per_alloc.push_back(cyc / attempts);
        alloc_ms.push_back(ta.ms);
        if (ta.ms > 0) { alloc_rate.push_back(n / (ta.ms * 1e-3)); }
        if (tf.ms > 0) { free_rate.push_back(n / (tf.ms * 1e-3)); }
      }
      if (out.over_budget(ctx)) { break; }
    }
    const Summary ar = summarize(alloc_rate), fr = summarize(free_rate), pc = summarize(per_alloc);
    out.rec.set("alloc_per_s", ar.median).set("free_per_s", fr.median);
    out.rec.set("alloc_cycles_mean", pc.median);
    put_summary(out.rec, "alloc_cycles_rep_mean", pc);
    put_summary(out.rec, "alloc_ms", summarize(alloc_ms));
    out.rec.set("reps", static_cast<long long>(alloc_ms.size()));
    const Counters c = ctr.get(0);
    out.rec.set("failures", c.failures).set("verify_errors", c.verify_errors).set("cycle_source", cycle_source());
  });
}

}  // namespace

void test_fdg_sizes(Context& ctx)
{
  std::vector<std::size_t> sizes;
  if (ctx.quick()) {
    sizes = pow2_range(16, 8192);
  } else {
    for (std::size_t s = 16; s <= 8192; s += 16) { sizes.push_back(s); }
  }
  for_each_allocator(ctx, [&](auto entry) {
    using E = decltype(entry);
    for (const std::size_t s : sizes) { fdg_cell<E>(ctx, 64, 16, s, 64, Record{}, "sizes", static_cast<double>(s)); }
  });
}

void test_fdg_threads(Context& ctx)
{
  std::vector<std::size_t> xs = ctx.quick() ? std::vector<std::size_t>{1, 16, 256, 4096, 65536} : pow2_range(1, 65536);
  xs = cap_threads(ctx, xs);
  std::vector<std::pair<u32, std::size_t>> combos;
  if (ctx.quick()) {
    combos = {{16, 16}, {128, 128}, {512, 512}};
  } else {
    for (const u32 n : {16u, 32u, 64u, 128u, 256u, 512u}) {
      for (const std::size_t s : {16u, 32u, 64u, 128u, 256u, 512u}) { combos.push_back({n, s}); }
    }
  }
  for_each_allocator(ctx, [&](auto entry) {
    using E = decltype(entry);
    for (const auto& c : combos) {
      for (const std::size_t x : xs) {
        fdg_cell<E>(ctx, x, c.first, c.second, 256, Record{},
                    "N=" + std::to_string(c.first) + "/S=" + std::to_string(c.second), static_cast<double>(x));
      }
    }
  });
}

void test_fdg_scaling(Context& ctx)
{
  std::vector<std::size_t> blocks = ctx.quick() ? std::vector<std::size_t>{1, 16, 128, 512} : pow2_range(1, 512);
  std::vector<std::size_t> ok;
  for (const std::size_t b : blocks) {
    if (b * 1024 <= ctx.scale.max_threads) { ok.push_back(b); }
  }
  for_each_allocator(ctx, [&](auto entry) {
    using E = decltype(entry);
    for (const u32 n : {1u, 16u, 128u}) {
      for (const std::size_t b : ok) {
        Record p;
        p.set("blocks", b);
        fdg_cell<E>(ctx, b * 1024, n, 16, 1024, p, "N=" + std::to_string(n), static_cast<double>(b));
      }
    }
  });
}

}  // namespace devalloc_bench
