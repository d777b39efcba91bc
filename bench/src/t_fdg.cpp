// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/src/t_fdg.cpp — FDGMalloc (Widmer et al. 2013) §5: X threads each allocate N chunks of
// S bytes; at the end everything is freed.
//   fdg-sizes    §5.1, Fig. 4: X = 64, N = 16, S = 16 ... 8192
//   fdg-threads  §5.2, Fig. 5: X = 1 ... 65536, N and S in {16 ... 512} (combinations that fit)
//   fdg-scaling  §5.3, Fig. 6: 1 ... 512 blocks of 1024 threads, N in {1, 16, 128}, S = 16
// Every allocator runs them through the common interface (alloc, then dealloc in a second
// kernel; FDGMalloc's dealloc is a no-op and the lease's reset() frees). FDGMalloc entries also run
// them as the paper did, through their warp API (params.api = "warp"): start(), N x alloc(), keep()
// in the timed kernel; resume(), verify and end() in the second ("free") kernel. fdg / fdg-cuda use
// superblocks, fdg-direct / fdg-cuda-direct send every warp group's request to the underlying
// allocator (§5.1's two variants).
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

/// FDGMalloc's warp API (§4.2): start, count x alloc (timed), keep the header for FdgWarpEnd.
template <class H>
struct FdgWarpAlloc {
  H heap;
  Deadline dl;
  std::size_t bytes;
  u32 count;
  void** slots;
  void** headers;
  u64* cycles;
  Counters* ctr;
  DEVALLOC_DEVICE void operator()(std::size_t i) const
  {
    const u64 s0 = cycles_now();
    auto warp = heap.creation().start();
    u64 total = cycles_since(s0);
    for (u32 k = 0; k < count; ++k) {
      if (dl.stop(count - k)) {
        for (; k < count; ++k) { slots[i * count + k] = nullptr; }
        break;
      }
      const u64 t0 = cycles_now();
      void* p = warp.alloc(bytes);
      total += cycles_since(t0);
      slots[i * count + k] = p;
      if (p == nullptr) {
        count_add(ctr->failures);
      } else {
        if (misaligned<H::alignment>(p)) { count_add(ctr->verify_errors); }
        stamp(p, bytes, make_tag(i, k));
      }
    }
    headers[i] = warp.keep();
    cycles[i] = total;
  }
};

/// ... resume the kept header, verify, end() (strategy 2: everything back to the underlying).
template <class H>
struct FdgWarpEnd {
  H heap;
  std::size_t bytes;
  u32 count;
  void** slots;
  void** headers;
  u64* allocated;
  Counters* ctr;
  DEVALLOC_DEVICE void operator()(std::size_t i) const
  {
    u64 n = 0;
    for (u32 k = 0; k < count; ++k) {
      void* p = slots[i * count + k];
      if (p == nullptr) { continue; }
      if (!stamp_ok(p, bytes, make_tag(i, k))) { count_add(ctr->verify_errors); }
      slots[i * count + k] = nullptr;
      ++n;
    }
    auto warp = heap.creation().resume(static_cast<devalloc::creation::fdg_header*>(headers[i]));
    warp.end();
    allocated[i] = n;
  }
};

template <class E>
inline constexpr bool has_warp_api = devalloc::creation::is_fdg_malloc<typename E::allocator::creation_policy>::value;

namespace {

template <class E>
void fdg_cell(Context& ctx, std::size_t threads, u32 count, std::size_t bytes, unsigned block, Record params,
              const std::string& series, double work, bool warp_api = false)
{
  using H = typename E::allocator::handle_type;
  const double per_thread = static_cast<double>(count) * static_cast<double>(bytes);
  const double need = std::max(1.5 * static_cast<double>(threads) * per_thread,
                               superblock_bytes_needed<E>(static_cast<double>(threads), per_thread)) +
                      static_cast<double>(64u << 20);
  CellSpec spec;
  spec.params = std::move(params);
  spec.params.set("threads", threads).set("allocs_per_thread", count).set("size", bytes);
  if constexpr (has_warp_api<E>) { spec.params.set("api", warp_api ? "warp" : "host"); }
  spec.heap_bytes = clamp_heap(ctx, round_up_pow2(static_cast<std::size_t>(need)));
  spec.threads = static_cast<double>(threads);
  spec.size = static_cast<double>(bytes);
  spec.ops_per_thread = count;
  spec.kernels = 2.0 * (ctx.scale.reps + ctx.scale.warmups);
  spec.series = warp_api ? series + "/warp-api" : series;
  spec.work = work;
  if (need > static_cast<double>(ctx.scale.max_heap)) {
    // As in the paper: the memory does not allow this combination.
    record_not_run<E>(ctx, spec.params, "skipped", "needs more memory than the benchmark's heap limit");
    return;
  }
  run_cell<E>(ctx, spec, [&](Lease<E>& lease, CellOut& out) {
    Array<void*> slots(threads * count), headers(warp_api ? threads : 1);
    Array<u64> cycles(threads), allocated(threads);
    Array<Counters> ctr(1);
    std::vector<double> alloc_rate, free_rate, per_alloc, alloc_ms;
    for (int r = 0; r < ctx.scale.warmups + ctx.scale.reps; ++r) {
      lease.fresh();
      Timing ta, tf;
      if constexpr (has_warp_api<E>) {
        if (warp_api) {
          ta = launch_timed(ctx, threads,
                            FdgWarpAlloc<H>{lease.handle(), ctx.deadline(), bytes, count, slots.data(), headers.data(),
                                            cycles.data(), ctr.data()},
                            block);
          tf = launch_timed(
            ctx, threads,
            FdgWarpEnd<H>{lease.handle(), bytes, count, slots.data(), headers.data(), allocated.data(), ctr.data()},
            block);
        }
      }
      if (!warp_api) {
        ta = launch_timed(
          ctx, threads,
          FdgAlloc<H>{lease.handle(), ctx.deadline(), bytes, count, slots.data(), cycles.data(), ctr.data()}, block);
        tf = launch_timed(ctx, threads,
                          FdgFree<H>{lease.handle(), bytes, count, slots.data(), allocated.data(), ctr.data()}, block);
      }
      const bool expired = out.check(ta);
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
    // "host": alloc/dealloc through the common interface; "warp": FDGMalloc's warp API (a
    // parameter of FDGMalloc cells only, so that other allocators keep their cell labels).
    if constexpr (!has_warp_api<E>) { out.rec.set("api", "host"); }
  });
}

/// Host interface for every allocator; FDGMalloc also through its warp API.
template <class E>
std::vector<bool> warp_api_modes()
{
  if constexpr (has_warp_api<E>) { return {false, true}; }
  return {false};
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
    for (const bool warp_api : warp_api_modes<E>()) {
      for (const std::size_t s : sizes) {
        fdg_cell<E>(ctx, 64, 16, s, 64, Record{}, "sizes", static_cast<double>(s), warp_api);
      }
    }
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
    for (const bool warp_api : warp_api_modes<E>()) {
      for (const auto& c : combos) {
        for (const std::size_t x : xs) {
          fdg_cell<E>(ctx, x, c.first, c.second, 256, Record{},
                      "N=" + std::to_string(c.first) + "/S=" + std::to_string(c.second), static_cast<double>(x),
                      warp_api);
        }
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
    for (const bool warp_api : warp_api_modes<E>()) {
      for (const u32 n : {1u, 16u, 128u}) {
        for (const std::size_t b : ok) {
          Record p;
          p.set("blocks", b);
          fdg_cell<E>(ctx, b * 1024, n, 16, 1024, p, "N=" + std::to_string(n), static_cast<double>(b), warp_api);
        }
      }
    }
  });
}

}  // namespace devalloc_bench
