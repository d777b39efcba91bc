// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/src/t_vinkler.cpp — Vinkler & Havran, "Register Efficient Dynamic Memory Allocator for
// GPUs", §6-7, Tables 1-2, Figs. 3-4:
//   ad         [AD]  Alloc-Dealloc, payload 4 B - 128 KB (padded to 16 B)
//   acd        [ACD] Alloc-Cycle-Dealloc: 10-100 iterations; heaps 128 KB - 2 GB; (full) payloads
//   prob       [P]   Probability: 1 ... full blocks of 256 threads, 10 launches
//   registers  Table 1: registers of a kernel with one alloc and one free, with/without coalescing
// As in the paper one thread per warp allocates (mode "warp"); mode "thread" lets every thread.
// Test length is measured with CUDA events, median of the repetitions.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#if defined(__CUDACC__)
#include <cxxabi.h>
#include <unistd.h>
#endif

#include "common.hpp"
#include "kernels.hpp"
#include "tests.hpp"

#if defined(__CUDACC__)
#include "diag/plain_kernels.cuh"
#endif

namespace devalloc_bench {

template <class H>
struct AcdKernel {
  H heap;
  Deadline dl;
  std::size_t bytes;
  u32 every;
  u32 iterations;
  void** scratch;
  Counters* ctr;
  DEVALLOC_DEVICE void operator()(std::size_t i) const
  {
    if (i % every != 0) { return; }
    const std::size_t a = i / every;
    void** mine = scratch + a * iterations;
    for (u32 k = 0; k < iterations; ++k) {
      if (dl.stop(iterations - k)) {
        for (; k < iterations; ++k) { mine[k] = nullptr; }
        break;
      }
      void* p = heap.alloc(bytes);
      mine[k] = p;
      if (p == nullptr) {
        count_add(ctr->failures);
      } else {
        if (misaligned<H::alignment>(p)) { count_add(ctr->verify_errors); }
        stamp(p, bytes, make_tag(a, k));
      }
    }
    for (u32 k = 0; k < iterations; ++k) {
      void* p = mine[k];
      if (p != nullptr) {
        if (!stamp_ok(p, bytes, make_tag(a, k))) { count_add(ctr->verify_errors); }
        heap.dealloc(p);
      }
    }
  }
};

namespace {

struct ModeInfo {
  const char* name;
  u32 every;
};
const ModeInfo vh_modes[] = {{"warp", 32}, {"thread", 1}};

std::size_t vh_heap(const Context& ctx) { return clamp_heap(ctx, std::size_t{2} << 30); }

/// Records the cell as skipped when all its live requests together exceed 90 % of the heap.
template <class E>
bool exceeds_heap(Context& ctx, const CellSpec& spec, double live_bytes)
{
  if (live_bytes <= 0.9 * static_cast<double>(spec.heap_bytes)) { return false; }
  Record extra;
  extra.set("heap_bytes", spec.heap_bytes).set("live_request_bytes", live_bytes);
  record_not_run<E>(ctx, spec.params, "skipped", "the live requests would exceed the heap", extra);
  return true;
}

void put_time(Record& rec, const std::vector<double>& ms, double ops)
{
  const Summary s = summarize(ms);
  put_summary(rec, "time_ms", s);
  rec.set("reps", static_cast<long long>(s.n));
  if (s.median > 0 && ops > 0) { rec.set("alloc_free_pairs_per_s", ops / (s.median * 1e-3)); }
}

}  // namespace

void test_ad(Context& ctx)
{
  const std::size_t blocks = ctx.scale.full_blocks();
  const std::size_t threads = std::min(blocks * 256, ctx.scale.max_threads);
  std::vector<std::size_t> payloads =
    ctx.quick() ? std::vector<std::size_t>{4, 64, 1024, 16384, 131072} : pow2_range(4, 131072);
  for_each_allocator(ctx, [&](auto entry) {
    using E = decltype(entry);
    using H = typename E::allocator::handle_type;
    for (const ModeInfo& mode : vh_modes) {
      for (const std::size_t payload : payloads) {
        const std::size_t bytes = round_up(payload, 16);
        const std::size_t allocating = (threads + mode.every - 1) / mode.every;
        CellSpec spec;
        spec.params.set("mode", mode.name).set("threads", threads).set("blocks", threads / 256);
        spec.params.set("allocating_threads", allocating).set("payload", payload).set("size", bytes);
        spec.heap_bytes = vh_heap(ctx);
        spec.strict_heap = true;
        spec.threads = static_cast<double>(allocating);
        spec.size = static_cast<double>(bytes);
        spec.kernels = ctx.scale.reps + ctx.scale.warmups;
        spec.series = std::string("mode=") + mode.name;
        spec.work = static_cast<double>(bytes);
        if (exceeds_heap<E>(ctx, spec, static_cast<double>(allocating) * static_cast<double>(bytes))) { continue; }
        run_cell<E>(ctx, spec, [&](Lease<E>& lease, CellOut& out) {
          Array<Counters> ctr(1);
          std::vector<double> ms;
          for (int r = 0; r < ctx.scale.warmups + ctx.scale.reps; ++r) {
            lease.fresh();
            const Timing t =
              launch_timed(ctx, threads, AdKernel<H>{lease.handle(), ctx.deadline(), bytes, mode.every, ctr.data()});
            if (out.check(t)) { break; }
            if (r >= ctx.scale.warmups) { ms.push_back(t.ms); }
            if (out.over_budget(ctx)) { break; }
          }
          const Counters c = ctr.get(0);
          put_time(out.rec, ms, static_cast<double>(allocating));
          out.rec.set("failures", c.failures).set("verify_errors", c.verify_errors);
        });
      }
    }
  });
}

void test_acd(Context& ctx)
{
  const std::size_t blocks = ctx.scale.full_blocks();
  const std::size_t threads = std::min(blocks * 256, ctx.scale.max_threads);
  struct Point {
    std::string variant;
    u32 iterations;
    std::size_t heap;
    std::size_t payload;
  };
  std::vector<Point> points;
  const std::vector<u32> iters =
    ctx.quick() ? std::vector<u32>{10, 50, 100} : std::vector<u32>{10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
  for (const u32 it : iters) { points.push_back({"iterations", it, vh_heap(ctx), 4}); }
  const std::vector<std::size_t> heaps =
    ctx.quick() ? std::vector<std::size_t>{128u << 10, 8u << 20, std::size_t{2} << 30}
                : std::vector<std::size_t>{128u << 10, 512u << 10, 2u << 20,   8u << 20,
                                           32u << 20,  128u << 20, 512u << 20, std::size_t{2} << 30};
  for (const std::size_t h : heaps) { points.push_back({"heap", 10, std::min(h, ctx.scale.max_heap), 4}); }
  if (!ctx.quick()) {
    for (const std::size_t p : pow2_range(4, 131072)) { points.push_back({"payload", 10, vh_heap(ctx), p}); }
  }
  for_each_allocator(ctx, [&](auto entry) {
    using E = decltype(entry);
    using H = typename E::allocator::handle_type;
    for (const ModeInfo& mode : vh_modes) {
      for (const Point& pt : points) {
        const std::size_t bytes = round_up(pt.payload, 16);
        const std::size_t allocating = (threads + mode.every - 1) / mode.every;
        CellSpec spec;
        spec.params.set("variant", pt.variant)
          .set("mode", mode.name)
          .set("threads", threads)
          .set("blocks", threads / 256);
        spec.params.set("allocating_threads", allocating).set("iterations", pt.iterations).set("heap", pt.heap);
        spec.params.set("payload", pt.payload).set("size", bytes);
        spec.heap_bytes = pt.heap;
        spec.strict_heap = true;
        spec.threads = static_cast<double>(allocating);
        spec.size = static_cast<double>(bytes);
        spec.ops_per_thread = pt.iterations;
        spec.kernels = ctx.scale.reps + ctx.scale.warmups;
        spec.series = pt.variant + "/" + mode.name;
        spec.work = static_cast<double>(pt.iterations) * static_cast<double>(bytes);
        // The heap sweep is about running out; elsewhere the requests must fit (a heap exhausted by
        // large requests turns the test into a search for free pages, which is not what it measures).
        // A wrapping allocator (UnsafeWrap) would overwrite live requests there: skipped too.
        if ((pt.variant != "heap" || may_overlap_live<E>)&&exceeds_heap<E>(
              ctx, spec, static_cast<double>(allocating) * pt.iterations * static_cast<double>(bytes))) {
          continue;
        }
        run_cell<E>(ctx, spec, [&](Lease<E>& lease, CellOut& out) {
          Array<Counters> ctr(1);
          Array<void*> scratch(allocating * pt.iterations);
          std::vector<double> ms;
          for (int r = 0; r < ctx.scale.warmups + ctx.scale.reps; ++r) {
            lease.fresh();
            const Timing t = launch_timed(ctx, threads,
                                          AcdKernel<H>{lease.handle(), ctx.deadline(), bytes, mode.every, pt.iterations,
                                                       scratch.data(), ctr.data()});
            if (out.check(t)) { break; }
            if (r >= ctx.scale.warmups) { ms.push_back(t.ms); }
            if (out.over_budget(ctx)) { break; }
          }
          const Counters c = ctr.get(0);
          put_time(out.rec, ms, static_cast<double>(allocating) * pt.iterations);
          out.rec.set("failures", c.failures).set("verify_errors", c.verify_errors);
        });
      }
    }
  });
}

void test_prob(Context& ctx)
{
  const std::size_t full_blocks =
    std::min(ctx.scale.full_blocks(), ctx.scale.max_threads / 256 == 0 ? 1 : ctx.scale.max_threads / 256);
  std::vector<std::size_t> blocks_list;
  if (ctx.quick()) {
    blocks_list = {1, 8, 64, full_blocks};
  } else {
    blocks_list = pow2_range(1, full_blocks);
    blocks_list.push_back(full_blocks);
  }
  std::sort(blocks_list.begin(), blocks_list.end());
  blocks_list.erase(std::unique(blocks_list.begin(), blocks_list.end()), blocks_list.end());
  blocks_list.erase(
    std::remove_if(blocks_list.begin(), blocks_list.end(), [&](std::size_t b) { return b > full_blocks; }),
    blocks_list.end());
  for_each_allocator(ctx, [&](auto entry) {
    using E = decltype(entry);
    for (const ModeInfo& mode : vh_modes) {
      for (const std::size_t blocks : blocks_list) {
        const std::size_t threads = blocks * 256;
        const std::size_t allocating = (threads + mode.every - 1) / mode.every;
        CellSpec spec;
        spec.params.set("mode", mode.name).set("blocks", blocks).set("threads", threads);
        spec.params.set("allocating_threads", allocating).set("payload", 4).set("size", 16);
        spec.heap_bytes = vh_heap(ctx);
        spec.strict_heap = true;
        spec.threads = static_cast<double>(allocating);
        spec.size = 16;
        spec.kernels = 10.0 * (ctx.scale.reps + ctx.scale.warmups);
        spec.series = std::string("mode=") + mode.name;
        spec.work = static_cast<double>(allocating);
        run_cell<E>(ctx, spec, [&](Lease<E>& lease, CellOut& out) {
          run_prob_sequence(ctx, lease, out, threads, mode.every, SizeDist{16, 16}, 10);
        });
      }
    }
  });
}

// ---------------------------------------------------------------------------------------------
// registers (Table 1)

#if DEVALLOC_BACKEND_CUDA
/// One allocation and one deallocation. Coalesced: the warp's lowest active lane allocates for
/// all active lanes and hands out slices (the coalescing V&H add to every allocator).
template <class E, bool Coalesced>
__device__ __forceinline__ void register_probe_body(typename E::allocator::handle_type heap, std::size_t bytes,
                                                    unsigned* sink)
{
  void* p = nullptr;
  if constexpr (Coalesced) {
    const unsigned mask = __activemask();
    const unsigned lane = threadIdx.x & 31u;
    const unsigned leader = static_cast<unsigned>(__ffs(static_cast<int>(mask)) - 1);
    const unsigned rank = static_cast<unsigned>(__popc(mask & ((1u << lane) - 1u)));
    const unsigned total = static_cast<unsigned>(__popc(mask));
    unsigned long long base = 0;
    if (lane == leader) { base = reinterpret_cast<unsigned long long>(heap.alloc(bytes * total)); }
    base = __shfl_sync(mask, base, static_cast<int>(leader));
    p = base != 0 ? reinterpret_cast<char*>(base) + rank * bytes : nullptr;
    if (p == nullptr) { atomicAdd(sink, 1u); }
    __syncwarp(mask);
    if (lane == leader) { heap.dealloc(reinterpret_cast<void*>(base)); }
  } else {
    p = heap.alloc(bytes);
    if (p == nullptr) { atomicAdd(sink, 1u); }
    heap.dealloc(p);
  }
}

template <class E, bool Coalesced>
__global__ void register_probe(typename E::allocator::handle_type heap, std::size_t bytes, unsigned* sink)
{
  register_probe_body<E, Coalesced>(heap, bytes, sink);
}

/// The uncoalesced probe compiled with at most `probe_register_cap` registers (__maxnreg__):
/// whatever does not fit spills to local memory (cudaFuncAttributes::localSizeBytes). Issue 13's
/// question for the Circular family: does an alloc and a free fit in 24 registers? nvcc's own
/// count (`registers`) does not answer it: ptxas takes up to 32 registers wherever that costs no
/// occupancy (64 K registers / 2048 threads per multiprocessor), needed or not.
constexpr int probe_register_cap = 24;
template <class E>
__global__ void __maxnreg__(probe_register_cap)
  register_probe_capped(typename E::allocator::handle_type heap, std::size_t bytes, unsigned* sink)
{
  register_probe_body<E, false>(heap, bytes, sink);
}

namespace {
/// cuobjdump --dump-resource-usage of this executable: demangled function name -> registers.
std::map<std::string, int> cuobjdump_registers(std::string& note)
{
  std::map<std::string, int> regs;
  std::string tool;
  for (const char* candidate : {"cuobjdump", "/usr/local/cuda/bin/cuobjdump"}) {
    const std::string check = std::string("command -v ") + candidate + " >/dev/null 2>&1";
    if (std::system(check.c_str()) == 0) {
      tool = candidate;
      break;
    }
  }
  if (tool.empty()) {
    note = "cuobjdump not found; registers from cudaFuncGetAttributes only";
    return regs;
  }
  char exe[4096];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) {
    note = "cannot read /proc/self/exe";
    return regs;
  }
  exe[n] = '\0';
  const std::string cmd = tool + " --dump-resource-usage '" + exe + "' 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) {
    note = "cuobjdump failed to start";
    return regs;
  }
  char line[8192];
  std::string fn;
  while (std::fgets(line, sizeof line, p) != nullptr) {
    std::string s = line;
    const auto f = s.find("Function ");
    if (f != std::string::npos) {
      fn = s.substr(f + 9);
      while (!fn.empty() && (fn.back() == '\n' || fn.back() == ':' || fn.back() == ' ')) { fn.pop_back(); }
      int status = 0;
      char* dem = abi::__cxa_demangle(fn.c_str(), nullptr, nullptr, &status);
      if (status == 0 && dem != nullptr) { fn = dem; }
      std::free(dem);
      continue;
    }
    const auto r = s.find("REG:");
    if (r != std::string::npos && !fn.empty()) {
      regs[fn] = std::atoi(s.c_str() + r + 4);
      fn.clear();
    }
  }
  const int rc = ::pclose(p);
  note = regs.empty() ? "cuobjdump reported no functions (exit " + std::to_string(rc) + ")"
                      : "cuobjdump --dump-resource-usage";
  return regs;
}
}  // namespace
#endif

void test_registers(Context& ctx)
{
#if DEVALLOC_BACKEND_CUDA
  std::string dump_note;
  const std::map<std::string, int> dumped =
    ctx.opt.child ? std::map<std::string, int>{} : cuobjdump_registers(dump_note);
#endif
  for_each_allocator(ctx, [&](auto entry) {
    using E = decltype(entry);
    for (const bool coalesced : {false, true}) {
      CellSpec spec;
      spec.params.set("variant", coalesced ? "coalesced" : "uncoalesced").set("size", 16).set("threads", 32);
      spec.heap_bytes = std::size_t{16} << 20;
      spec.exempt_from_budget = true;
      run_cell<E>(ctx, spec, [&](Lease<E>& lease, CellOut& out) {
#if DEVALLOC_BACKEND_CUDA
        // A user's plain allocating kernel (bench/diag/plain_kernels.cuh; tools/kernel-regs prints
        // the same kernel's count without a GPU).
        const auto plain_alloc = devalloc_diag::one_alloc<typename E::allocator::handle_type>;
        const auto plain_free = devalloc_diag::one_free<typename E::allocator::handle_type>;
        cudaFuncAttributes attr{};
        const void* fn = coalesced ? reinterpret_cast<const void*>(&register_probe<E, true>)
                                   : reinterpret_cast<const void*>(&register_probe<E, false>);
        DEVALLOC_CUDA_TRY(cudaFuncGetAttributes(&attr, fn));
        out.rec.set("registers", attr.numRegs).set("local_bytes", static_cast<long long>(attr.localSizeBytes));
        out.rec.set("max_threads_per_block", attr.maxThreadsPerBlock).set("registers_source", "cudaFuncGetAttributes");
        if (!coalesced) {
          cudaFuncAttributes capped{};
          DEVALLOC_CUDA_TRY(cudaFuncGetAttributes(&capped, reinterpret_cast<const void*>(&register_probe_capped<E>)));
          out.rec.set("register_cap", probe_register_cap)
            .set("registers_capped", capped.numRegs)
            .set("local_bytes_capped", static_cast<long long>(capped.localSizeBytes));
          cudaFuncAttributes plain{};
          DEVALLOC_CUDA_TRY(cudaFuncGetAttributes(&plain, reinterpret_cast<const void*>(plain_alloc)));
          out.rec.set("registers_plain_alloc", plain.numRegs)
            .set("local_bytes_plain_alloc", static_cast<long long>(plain.localSizeBytes));
        }
        const std::string want = std::string("devalloc_bench::register_probe<devalloc_bench::entries::") +
                                 E::identifier + ", " + (coalesced ? "true" : "false") + ">";
        out.rec.set("registers_cuobjdump", nullptr).set("cuobjdump_note", dump_note);
        for (const auto& kv : dumped) {
          if (kv.first.find(want) != std::string::npos) { out.rec.set("registers_cuobjdump", kv.second); }
        }
        // Run it once: the kernel must work, not only compile.
        Array<unsigned> sink(1);
        Array<unsigned long long> plain_failed(1);  // requests of the plain kernel that got nothing
        if (coalesced) {
          register_probe<E, true><<<1, 32>>>(lease.handle(), 16, sink.data());
        } else {
          register_probe<E, false><<<1, 32>>>(lease.handle(), 16, sink.data());
          DEVALLOC_CUDA_TRY(cudaGetLastError());
          register_probe_capped<E><<<1, 32>>>(lease.handle(), 16, sink.data());
          DEVALLOC_CUDA_TRY(cudaGetLastError());
          Array<void*> got(32);
          plain_alloc<<<1, 32>>>(lease.handle(), got.data(), 16u, 4081u, 32u);
          DEVALLOC_CUDA_TRY(cudaGetLastError());
          plain_free<<<1, 32>>>(lease.handle(), got.data(), 32u, plain_failed.data());
        }
        DEVALLOC_CUDA_TRY(cudaGetLastError());
        DEVALLOC_CUDA_TRY(cudaDeviceSynchronize());
        out.rec.set("failures", static_cast<unsigned long long>(sink.get(0)) + plain_failed.get(0));
#else
        (void)lease;
        out.rec.set("status", "n/a").set("registers", nullptr).set("note", "registers exist only on the GPU (CPU backend)");
#endif
      });
    }
  });
}

}  // namespace devalloc_bench
