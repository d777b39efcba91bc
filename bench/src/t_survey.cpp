// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/src/t_survey.cpp
//   survey      the usual modern comparison: 10K and 100K allocations of mixed sizes (4-64 B and
//               512-8192 B, and 16-8192 B: issue 12's GPUMemManSurvey comparison), scaling over
//               2^1 ... 2^20 threads, and allocation until out of memory (utilization, including the
//               ScatterAlloc issue's 64-byte fill)
//   throughput  the ScatterAlloc issue: alloc and free throughput for 2^10 ... 2^20 threads x
//               16, 64, 256, 1024, 4096 bytes, one allocation per thread, written, verified and
//               freed; and its probability test (2^16 threads, 20 launches, 16-256 B, µs per launch)
// Ratios against CUDA's allocator (measured in the same run) are added to every record at the end.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common.hpp"
#include "kernels.hpp"
#include "tests.hpp"

namespace devalloc_bench {

namespace {

struct SizeClass {
  const char* name;
  std::size_t lo, hi;
};

}  // namespace

void test_survey(Context& ctx)
{
  const SizeClass small{"mixed-small", 4, 64}, large{"mixed-large", 512, 8192};
  // Issue 12: "Mixed 16-8192 B at 100 K threads: faster than the best peer" (the GPUMemManSurvey
  // mixed test of Winter et al. on an H100, ms per launch: Ouroboros 0.03 / 0.08 ms at 10 K / 100 K
  // threads, CUDA's malloc 10 / 129 ms, Scatter of c22d696 9.5 / 459 ms).
  const SizeClass wide{"mixed-wide", 16, 8192};
  for_each_allocator(ctx, [&](auto entry) {
    using E = decltype(entry);
    // One allocation per thread of sizes from `sc`, `threads` threads: the cell of (a) and (b).
    const auto one_alloc_cell = [&](const char* variant, const SizeClass& sc, std::size_t threads) {
      CellSpec spec;
      spec.params.set("variant", variant).set("size_class", sc.name).set("threads", threads);
      if (std::string(variant) == "count") { spec.params.set("allocations", threads); }
      spec.params.set("size", static_cast<double>(sc.lo + sc.hi) / 2).set("size_min", sc.lo).set("size_max", sc.hi);
      spec.heap_bytes = one_alloc_heap_for<E>(ctx, threads, sc.hi);
      spec.threads = static_cast<double>(threads);
      spec.size = static_cast<double>(sc.hi);
      spec.kernels = 2.0 * (ctx.scale.reps + ctx.scale.warmups);
      spec.series = std::string(variant) + "/" + sc.name;
      spec.work = static_cast<double>(threads);
      run_cell<E>(ctx, spec, [&](Lease<E>& lease, CellOut& out) {
        one_alloc_per_thread(ctx, lease, out, threads, SizeDist{sc.lo, sc.hi, ctx.opt.seed});
      });
    };
    // (a) 10K and 100K allocations, one per thread.
    for (const SizeClass& sc : {small, large, wide}) {
      for (const std::size_t count : {std::size_t{10000}, std::size_t{100000}}) { one_alloc_cell("count", sc, count); }
    }
    // (b) scaling over 2^1 ... 2^20 threads.
    std::vector<std::size_t> threads_list = ctx.quick()
                                              ? std::vector<std::size_t>{2, 32, 1024, 32768, std::size_t{1} << 20}
                                              : pow2_range(2, std::size_t{1} << 20);
    threads_list = cap_threads(ctx, threads_list);
    std::vector<SizeClass> classes = {small};
    if (!ctx.quick()) { classes.push_back(large); }
    for (const SizeClass& sc : classes) {
      for (const std::size_t threads : threads_list) { one_alloc_cell("scaling", sc, threads); }
    }
    // (c) allocation until out of memory: utilization of a small heap.
    struct FillCase {
      const char* name;
      std::size_t lo, hi;
    };
    std::vector<FillCase> fills = {{"64", 64, 64}, {"1024", 1024, 1024}, {"mixed-small", 4, 64}};
    if (!ctx.quick()) {
      fills.push_back({"16", 16, 16});
      fills.push_back({"mixed-large", 512, 8192});
    }
    const std::vector<std::size_t> heaps =
      ctx.quick() ? std::vector<std::size_t>{16u << 20} : std::vector<std::size_t>{16u << 20, 64u << 20};
    const std::size_t fill_threads = std::min<std::size_t>(DEVALLOC_BACKEND_CUDA ? 4096 : 256, ctx.scale.max_threads);
    for (const std::size_t heap : heaps) {
      for (const FillCase& fc : fills) {
        CellSpec spec;
        spec.params.set("variant", "oom").set("size_class", fc.name).set("threads", fill_threads);
        spec.params.set("size", static_cast<double>(fc.lo + fc.hi) / 2).set("size_min", fc.lo).set("size_max", fc.hi);
        spec.params.set("heap", heap);
        spec.heap_bytes = heap;
        spec.strict_heap = true;
        spec.threads = static_cast<double>(fill_threads);
        spec.size = static_cast<double>(fc.hi);
        spec.ops_per_thread =
          static_cast<double>(heap) / (0.5 * static_cast<double>(fc.lo + fc.hi)) / static_cast<double>(fill_threads);
        spec.kernels = 2;
        run_cell<E>(ctx, spec, [&](Lease<E>& lease, CellOut& out) {
          const FillResult f = fill_until_oom(ctx, lease, fill_threads, SizeDist{fc.lo, fc.hi, ctx.opt.seed});
          if (f.expired) { out.timed_out("deadline"); }
          out.rec.set("allocations", f.allocs).set("allocated_bytes", f.bytes);
          out.rec.set("utilization", f.bytes / static_cast<double>(lease.heap_bytes()));
          out.rec.set("fill_ms", f.fill_ms).set("free_ms", f.free_ms);
          if (f.fill_ms > 0) { out.rec.set("alloc_per_s", static_cast<double>(f.allocs) / (f.fill_ms * 1e-3)); }
          if (f.free_ms > 0) { out.rec.set("free_per_s", static_cast<double>(f.allocs) / (f.free_ms * 1e-3)); }
          // Every worker stops at its first failure: one failure per worker is the expected end.
          out.rec.set("failures", f.failures).set("verify_errors", f.verify_errors).set("slot_full", f.slot_full);
          out.rec.set("failures_expected", true);
        });
      }
    }
  });
}

void test_throughput(Context& ctx)
{
  std::vector<std::size_t> threads_list = ctx.quick()
                                            ? std::vector<std::size_t>{1u << 10, 1u << 13, 1u << 16, 1u << 18, 1u << 20}
                                            : pow2_range(1u << 10, 1u << 20);
  threads_list = cap_threads(ctx, threads_list);
  const std::vector<std::size_t> sizes = {16, 64, 256, 1024, 4096};
  for_each_allocator(ctx, [&](auto entry) {
    using E = decltype(entry);
    for (const std::size_t size : sizes) {
      for (const std::size_t threads : threads_list) {
        CellSpec spec;
        spec.params.set("variant", "one-per-thread").set("threads", threads).set("size", size);
        spec.heap_bytes = one_alloc_heap_for<E>(ctx, threads, size);
        spec.threads = static_cast<double>(threads);
        spec.size = static_cast<double>(size);
        spec.kernels = 2.0 * (ctx.scale.reps + ctx.scale.warmups);
        spec.series = "size=" + std::to_string(size);
        spec.work = static_cast<double>(threads);
        run_cell<E>(ctx, spec, [&](Lease<E>& lease, CellOut& out) {
          one_alloc_per_thread(ctx, lease, out, threads, SizeDist{size, size});
        });
      }
    }
    // The probability test: 2^16 threads (each allocating), 20 launches, 16-256 B.
    const std::size_t threads = std::min<std::size_t>(1u << 16, ctx.scale.max_threads);
    CellSpec spec;
    spec.params.set("variant", "probability")
      .set("threads", threads)
      .set("size", 136)
      .set("size_min", 16)
      .set("size_max", 256);
    spec.params.set("launches", 20);
    spec.heap_bytes = one_alloc_heap_for<E>(ctx, threads, 256);
    spec.threads = static_cast<double>(threads);
    spec.size = 256;
    spec.kernels = 20.0 * (ctx.scale.reps + ctx.scale.warmups);
    run_cell<E>(ctx, spec, [&](Lease<E>& lease, CellOut& out) {
      run_prob_sequence(ctx, lease, out, threads, 1, SizeDist{16, 256}, 20);
    });
  });
}

}  // namespace devalloc_bench
