// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/src/t_coalesce.cpp — the coalescing report (Blach et al.) §4.2, Listing 4, Fig. 5: MPI
// collectives with one rank per thread (mpi_collectives.hpp), whose buffers come from the
// allocator under test:
//   a = malloc(elems doubles); b = malloc(elems doubles); initialise a;
//   Reduce / Broadcast: one warm-up call, then the measured call; All-to-All: the measured call only;
//   verify; free(a); free(b).
// Per thread: wall time (the device's nanosecond timer) of the measured call, of the two mallocs
// and of the two frees; per run the median over threads; over the runs the 5th, 50th and 95th
// percentiles (Fig. 5). Scales: 8 blocks x 32 threads x 4 doubles (the report's All-to-All), and
// the largest the device holds: every resident thread as a rank (Reduce, Broadcast: 16 doubles, as
// the report's 30 x 512 threads), for All-to-All the most ranks whose R^2 buffers fit the heap
// limit (Scale::max_heap; a rank's buffers hold R x 4 doubles each). Every rank must be resident at
// once; every wait ends at the cell's deadline (then the cell reports verify errors, not a hang).
// The CPU backend runs each warp on a thread of its own (small sizes), so CI runs every path.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common.hpp"
#include "kernels.hpp"
#include "mpi_collectives.hpp"
#include "tests.hpp"

namespace devalloc_bench {

enum class MpiOp : int { reduce = 0, broadcast = 1, all_to_all = 2 };

inline const char* mpi_op_name(MpiOp op)
{
  return op == MpiOp::reduce ? "reduce" : op == MpiOp::broadcast ? "broadcast" : "all-to-all";
}

/// Exact values (integers below 2^53): rank r's a[k] (Reduce, Broadcast) and send[dst * n + k].
DEVALLOC_HOST_DEVICE inline double mpi_value(u32 rank, u32 k) { return static_cast<double>(rank) * 1024.0 + k; }
DEVALLOC_HOST_DEVICE inline double a2a_value(u32 src, u32 dst, u32 ranks, u32 n, u32 k)
{
  return (static_cast<double>(src) * ranks + dst) * n + k;
}

template <class H>
struct MpiKernel {
  H heap;
  Deadline dl;
  MpiOp op;
  u32 n;
  u32 ranks;
  mpi::Mailbox box;
  u64* op_ns;
  u64* malloc_ns;
  u64* free_ns;
  Counters* ctr;
  DEVALLOC_DEVICE void operator()(std::size_t i) const
  {
    const auto rank = static_cast<u32>(i);
    op_ns[i] = 0;
    const std::size_t elems = op == MpiOp::all_to_all ? static_cast<std::size_t>(n) * ranks : n;
    const u64 m0 = timer_ns();
    auto* a = static_cast<double*>(heap.alloc(elems * sizeof(double)));
    auto* b = static_cast<double*>(heap.alloc(elems * sizeof(double)));
    const u64 m1 = timer_ns();
    malloc_ns[i] = m1 > m0 ? m1 - m0 : 1;
    if (a == nullptr || b == nullptr) {
      // This rank cannot take part: its peers wait until the deadline, which marks the cell
      // timed out.
      count_add(ctr->failures);
      heap.dealloc(a);
      heap.dealloc(b);
      return;
    }
    if (op == MpiOp::all_to_all) {
      for (u32 dst = 0; dst < ranks; ++dst) {
        for (u32 k = 0; k < n; ++k) { a[static_cast<std::size_t>(dst) * n + k] = a2a_value(rank, dst, ranks, n, k); }
      }
    } else {
      for (u32 k = 0; k < n; ++k) { a[k] = mpi_value(rank, k); }
    }
    bool ok = true;
    u32 epoch = 1;
    if (op == MpiOp::reduce) {  // warm-up
      ok = mpi::reduce(box, rank, ranks, a, b, n, epoch++, dl);
    } else if (op == MpiOp::broadcast) {
      ok = mpi::broadcast(box, rank, ranks, a, n, epoch++, dl);
    }
    const u64 s0 = timer_ns();
    if (op == MpiOp::reduce) {
      ok = mpi::reduce(box, rank, ranks, a, b, n, epoch, dl) && ok;
    } else if (op == MpiOp::broadcast) {
      ok = mpi::broadcast(box, rank, ranks, a, n, epoch, dl) && ok;
    } else {
      ok = mpi::all_to_all(box, rank, ranks, a, b, n, epoch, dl);
    }
    const u64 s1 = timer_ns();
    op_ns[i] = s1 > s0 ? s1 - s0 : 1;
    // A collective that ends past the deadline is not verified either: a peer whose wait gave up
    // at the deadline frees its buffer (below) while this rank may still have been reading it (the
    // root's reduce read a freed buffer on the H100: 16 wrong sums in a timed-out cell of CUDA's
    // malloc). If the deadline had not passed when the collective ended, every read it made came
    // before any peer gave up, so the check below is sound (%globaltimer is one clock for all).
    if (ok && dl.passed()) { ok = false; }
    // A collective that returned false was stopped by the launch's deadline (a peer that could not
    // allocate never arrives, or the launch ran out of time): the cell is marked timed out
    // (out.check; the wait that gave up counted itself skipped, dl.passed() above marks it), not
    // as a wrong result.
    u64 wrong = 0;
    if (ok && op == MpiOp::reduce && rank == 0) {
      for (u32 k = 0; k < n; ++k) {
        const double expected =
          1024.0 * (static_cast<double>(ranks) * (ranks - 1.0) / 2.0) + static_cast<double>(ranks) * k;
        wrong += b[k] != expected;
      }
    } else if (ok && op == MpiOp::broadcast) {
      for (u32 k = 0; k < n; ++k) { wrong += a[k] != mpi_value(0, k); }
    } else if (ok && op == MpiOp::all_to_all) {
      for (u32 src = 0; src < ranks; ++src) {
        for (u32 k = 0; k < n; ++k) {
          wrong += b[static_cast<std::size_t>(src) * n + k] != a2a_value(src, rank, ranks, n, k);
        }
      }
    }
    if (wrong != 0) { count_add(ctr->verify_errors, wrong); }
    const u64 f0 = timer_ns();
    heap.dealloc(a);
    heap.dealloc(b);
    const u64 f1 = timer_ns();
    free_ns[i] = f1 > f0 ? f1 - f0 : 1;
  }
};

namespace {

double median_of(std::vector<double> v)
{
  if (v.empty()) { return NAN; }
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

/// Nearest-rank percentile (p in [0, 100]) of a non-empty list.
double percentile(std::vector<double> v, double p)
{
  if (v.empty()) { return NAN; }
  std::sort(v.begin(), v.end());
  const auto idx = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, idx == 0 ? 0 : idx - 1)];
}

template <class E>
void mpi_cell(Context& ctx, MpiOp op, u32 ranks, u32 n, unsigned block, const std::string& scale_name)
{
  using H = typename E::allocator::handle_type;
  const std::size_t elems = op == MpiOp::all_to_all ? static_cast<std::size_t>(n) * ranks : n;
  const std::size_t need = static_cast<std::size_t>(ranks) * 2 * (elems * sizeof(double) + 64) * 2 + (64u << 20);
  CellSpec spec;
  spec.params.set("op", mpi_op_name(op)).set("scale", scale_name).set("ranks", static_cast<long long>(ranks));
  spec.params.set("doubles", static_cast<long long>(n))
    .set("blocks", static_cast<long long>((ranks + block - 1) / block));
  spec.params.set("threads_per_block", static_cast<long long>(block));
  spec.heap_bytes = clamp_heap(ctx, round_up_pow2(need));
  spec.threads = ranks;
  spec.size = static_cast<double>(elems * sizeof(double));
  spec.ops_per_thread = 2;
  const int runs = ctx.quick() ? 5 : 20;
  spec.kernels = runs + 1;
  spec.series = std::string(mpi_op_name(op)) + "/" + scale_name;
  spec.work = static_cast<double>(ranks);
  if constexpr (E::allocator::alignment < alignof(double)) {
    // The ranks' buffers hold doubles: an allocator that guarantees less alignment (4-byte
    // segment headers) would fault on the GPU (misaligned address), so its cells are not run.
    record_not_run<E>(ctx, spec.params, "n/a",
                      "buffers of doubles need 8-byte alignment; this allocator guarantees " +
                        std::to_string(E::allocator::alignment) + " bytes");
    return;
  }
  run_cell<E>(ctx, spec, [&](Lease<E>& lease, CellOut& out) {
    Array<double*> buffers(ranks);
    Array<u32> flags(ranks);
    Array<u64> done(ranks), op_ns(ranks), malloc_ns(ranks), free_ns(ranks);
    Array<Counters> ctr(1);
    std::vector<double> op_med, malloc_med, free_med;
    // CPU backend: every warp on a thread of its own, so that all ranks run at once.
    const unsigned saved_threads = ctx.opt.cpu_threads;
    if (DEVALLOC_BACKEND_CPU) {
      ctx.opt.cpu_threads = std::max<unsigned>(saved_threads, static_cast<unsigned>((ranks + 31) / 32));
    }
    for (int r = 0; r < 1 + runs; ++r) {  // one warm-up launch
      flags.zero();
      done.zero();
      MpiKernel<H> k{lease.handle(),
                     ctx.deadline(),
                     op,
                     n,
                     ranks,
                     mpi::Mailbox{buffers.data(), flags.data(), done.data()},
                     op_ns.data(),
                     malloc_ns.data(),
                     free_ns.data(),
                     ctr.data()};
      const Timing t = launch_timed(ctx, ranks, k, block);
      if (out.check(t)) { break; }
      if (r >= 1) {
        const auto to_d = [](const std::vector<u64>& v) { return std::vector<double>(v.begin(), v.end()); };
        op_med.push_back(median_of(to_d(op_ns.to_host())) * 1e-6);
        malloc_med.push_back(median_of(to_d(malloc_ns.to_host())) * 1e-6);
        free_med.push_back(median_of(to_d(free_ns.to_host())) * 1e-6);
      }
      if (out.over_budget(ctx)) { break; }
    }
    ctx.opt.cpu_threads = saved_threads;
    for (const auto& [name, v] : {std::pair<const char*, const std::vector<double>*>{"op_ms", &op_med},
                                  {"malloc_ms", &malloc_med},
                                  {"free_ms", &free_med}}) {
      out.rec.set(std::string(name) + "_p5", percentile(*v, 5));
      out.rec.set(std::string(name) + "_median", percentile(*v, 50));
      out.rec.set(std::string(name) + "_p95", percentile(*v, 95));
    }
    out.rec.set("runs", static_cast<long long>(op_med.size()));
    const Counters c = ctr.get(0);
    out.rec.set("failures", c.failures).set("verify_errors", c.verify_errors).set("timer", "per-thread ns timer");
  });
}

}  // namespace

void test_mpi(Context& ctx)
{
  // The device's resident threads, in whole warps; the heap limit bounds All-to-All's R^2 buffers.
  const std::size_t resident = std::min(ctx.scale.full_threads, ctx.scale.max_threads);
  const auto largest = static_cast<u32>(std::max<std::size_t>(32, resident - resident % 32));
  const double a2a_fit = std::sqrt(static_cast<double>(ctx.scale.max_heap) / (4.0 * sizeof(double) * 2 * 2));
  auto a2a_largest = static_cast<u32>(std::min<double>(largest, a2a_fit));
  a2a_largest = std::max<u32>(32, a2a_largest - a2a_largest % 32);
  for_each_allocator(ctx, [&](auto entry) {
    using E = decltype(entry);
    for (const MpiOp op : {MpiOp::reduce, MpiOp::broadcast, MpiOp::all_to_all}) {
      mpi_cell<E>(ctx, op, 8 * 32, 4, 32, "8x32");
      const u32 big = op == MpiOp::all_to_all ? a2a_largest : largest;
      if (big > 8 * 32) { mpi_cell<E>(ctx, op, big, op == MpiOp::all_to_all ? 4 : 16, 256, "largest"); }
    }
  });
}

}  // namespace devalloc_bench
