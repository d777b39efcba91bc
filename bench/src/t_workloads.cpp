// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/src/t_workloads.cpp — the coalescing report (Blach et al.) §4.1, Listings 2-3, Figs. 1-4:
// every thread allocates n floats (25 ... 400), initialises them with 0 ... n-1, runs the Linear or
// the Quadratic workload on them and frees them. malloc, work and free are timed per thread with
// clock64; the means over threads are taken per run; runs are repeated after warm-up runs.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common.hpp"
#include "kernels.hpp"
#include "tests.hpp"

namespace devalloc_bench {

template <class H>
struct WorkloadKernel {
  H heap;
  Deadline dl;
  u32 n;
  bool quadratic;
  u64* malloc_cycles;
  u64* work_cycles;
  u64* free_cycles;
  u64* work_start_ns;
  u64* work_end_ns;
  Counters* ctr;
  // Block-level coalescing (alloc_block_coalesced, a collective of the whole block: no thread may
  // leave before it, so no deadline either; the launch is a multiple of the block size).
  bool block_level = false;
  DEVALLOC_DEVICE void* allocate(std::size_t bytes) const
  {
    if constexpr (H::providesBlockCoalescing) {
      if (block_level) { return heap.alloc_block_coalesced(bytes); }
    }
    return heap.alloc(bytes);
  }
  DEVALLOC_DEVICE void operator()(std::size_t i) const
  {
    malloc_cycles[i] = 0;
    work_cycles[i] = 0;
    free_cycles[i] = 0;
    work_start_ns[i] = ~0ull;
    work_end_ns[i] = 0;
    if (!block_level && dl.stop()) { return; }
    const u64 t0 = cycles_now();
    float* data = static_cast<float*>(allocate(n * sizeof(float)));
    malloc_cycles[i] = cycles_since(t0);
    if (data == nullptr) {
      count_add(ctr->failures);
      return;
    }
    if (misaligned<alignof(float)>(data)) { count_add(ctr->verify_errors); }
    for (u32 k = 0; k < n; ++k) { data[k] = static_cast<float>(k); }
    compiler_barrier();
    const u64 s0 = timer_ns();
    const u64 t2 = cycles_now();
    float sum = 0;
    if (quadratic) {
      for (u32 a = 0; a < n; ++a) {
        for (u32 b = 0; b < n; ++b) { sum += data[a] * data[b]; }
      }
    } else {
      for (u32 a = 0; a < n; ++a) { sum += data[a]; }
    }
    data[0] = sum;
    const u64 t3 = cycles_now();
    const u64 s1 = timer_ns();
    work_cycles[i] = t3 > t2 ? t3 - t2 : 1;
    work_start_ns[i] = s0;
    work_end_ns[i] = s1;
    // Verify: sum of k is exact in float for n <= 400; the quadratic sum to 1 % (float rounding).
    const double m = static_cast<double>(n) * static_cast<double>(n - 1) / 2.0;
    const double expected = quadratic ? m * m : m;
    compiler_barrier();
    const double got = static_cast<double>(static_cast<volatile float*>(data)[0]);
    const double err = got - expected;
    if (quadratic ? (err > 0.01 * expected || err < -0.01 * expected) : got != expected) {
      count_add(ctr->verify_errors);
    }
    const u64 t4 = cycles_now();
    heap.dealloc(data);
    const u64 t5 = cycles_now();
    free_cycles[i] = t5 > t4 ? t5 - t4 : 1;
  }
};

void test_workloads(Context& ctx)
{
  // 12 blocks x 1024 threads filled the paper's GPU; here: the device's resident threads
  // (quick mode: at most 16384).
  std::size_t threads = std::min(
    ctx.quick() ? std::min<std::size_t>(16384, ctx.scale.full_threads) : ctx.scale.full_threads, ctx.scale.max_threads);
  if (threads >= 1024) { threads -= threads % 1024; }  // whole blocks (the block-level variants)
  std::vector<u32> floats;
  if (ctx.quick()) {
    floats = {25, 100, 400};
  } else {
    for (u32 f = 25; f <= 400; f += 25) { floats.push_back(f); }
  }
  const int runs = ctx.quick() ? 3 : 20;
  const int warm = ctx.quick() ? 1 : 2;
  for_each_allocator(ctx, [&](auto entry) {
    using E = decltype(entry);
    using H = typename E::allocator::handle_type;
    // The coalescing allocators with a block level (docs/coalescing.md) also run it: the report's
    // HB / NB, variants "linear-block" / "quadratic-block".
    for (const int variant : {0, 1, 2, 3}) {
      const bool quadratic = variant % 2 == 1;
      const bool block_level = variant >= 2;
      if (block_level && (!H::providesBlockCoalescing || (DEVALLOC_BACKEND_CUDA && threads % 1024 != 0))) { continue; }
      const std::string name = std::string(quadratic ? "quadratic" : "linear") + (block_level ? "-block" : "");
      for (const u32 n : floats) {
        CellSpec spec;
        spec.params.set("variant", name).set("threads", threads).set("floats", n);
        spec.params.set("size", static_cast<long long>(n) * 4);
        spec.heap_bytes = clamp_heap(ctx, std::size_t{1} << 30);
        spec.threads = static_cast<double>(threads);
        spec.size = n * 4.0;
        spec.kernels = runs + warm;
        spec.series = name;
        spec.work = n * (quadratic ? static_cast<double>(n) : 1.0);
        run_cell<E>(ctx, spec, [&](Lease<E>& lease, CellOut& out) {
          Array<u64> mc(threads), wc(threads), fc(threads), ws(threads), we(threads);
          Array<Counters> ctr(1);
          WorkloadKernel<H> k{lease.handle(), ctx.deadline(), n,         quadratic,  mc.data(),  wc.data(),
                              fc.data(),      ws.data(),      we.data(), ctr.data(), block_level};
          std::vector<double> m_mean, w_mean, f_mean, gflops, kernel_ms;
          for (int r = 0; r < warm + runs; ++r) {
            const Timing t = launch_timed(ctx, threads, k, 1024);
            if (out.check(t)) { break; }
            if (r >= warm) {
              const auto a = mc.to_host(), b = wc.to_host(), c = fc.to_host(), s = ws.to_host(), e = we.to_host();
              double sa = 0, sb = 0, sc = 0, done = 0;
              u64 lo = ~0ull, hi = 0;
              for (std::size_t i = 0; i < threads; ++i) {
                if (b[i] == 0) { continue; }
                sa += static_cast<double>(a[i]);
                sb += static_cast<double>(b[i]);
                sc += static_cast<double>(c[i]);
                lo = std::min(lo, s[i]);
                hi = std::max(hi, e[i]);
                ++done;
              }
              if (done > 0) {
                m_mean.push_back(sa / done);
                w_mean.push_back(sb / done);
                f_mean.push_back(sc / done);
                const double flops = done * (quadratic ? 2.0 * n * n : static_cast<double>(n));
                if (hi > lo) { gflops.push_back(flops / static_cast<double>(hi - lo)); }
              }
              kernel_ms.push_back(t.ms);
            }
            if (out.over_budget(ctx)) { break; }
          }
          const Summary ms = summarize(m_mean), wsum = summarize(w_mean), fs = summarize(f_mean), g = summarize(gflops);
          out.rec.set("malloc_cycles_mean", ms.median)
            .set("work_cycles_mean", wsum.median)
            .set("free_cycles_mean", fs.median);
          put_summary(out.rec, "malloc_cycles_run_mean", ms);
          put_summary(out.rec, "work_cycles_run_mean", wsum);
          put_summary(out.rec, "free_cycles_run_mean", fs);
          out.rec.set("work_gflop_per_s", g.median);
          put_summary(out.rec, "work_gflop_per_s", g);
          put_summary(out.rec, "kernel_ms", summarize(kernel_ms));
          out.rec.set("runs", static_cast<long long>(kernel_ms.size())).set("warmup_runs", warm);
          const Counters c = ctr.get(0);
          out.rec.set("failures", c.failures).set("verify_errors", c.verify_errors).set("cycle_source", cycle_source());
        });
      }
    }
  });
}

}  // namespace devalloc_bench
