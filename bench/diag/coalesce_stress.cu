// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/diag/coalesce_stress.cu — the coalescing allocators under devalloc-bench's scatter-ops load,
// with their superblocks from CUDA's malloc and from creation::Scatter, to tell whether the rare
// verification errors of that test (results/gpu/2026-11-25_0c42e64_H100 in commit 1cd75b3's
// tree: coalesce-dynamic, 270 336 threads x 128 B, 10 stamps) come from the coalescing code or
// from CUDA's malloc.
//
//   devalloc-coalesce-stress [threads=270336] [size=128] [launches=40] [rounds=3] [only]
//   (only = mailbox-dynamic runs MailboxDynamic below, a diagnostic variant of CoalesceDynamic;
//   list-coalesce-dynamic, list-coalesce-block, fenced-coalesce-dynamic, fenced-coalesce-block and
//   coalesce-hashed run further issue-15 diagnostics, see main; traced-coalesce-dynamic and
//   traced-coalesce-block log every superblock CUDA's malloc returns and every free and replay the log
//   after each round: TracingMalloc; traced-cuda-malloc does so for CUDA's malloc alone)
//   (size 0: each allocation's size drawn in 16 .. 1552 B, the sizes of coalescing superblocks)
//   (environment: DEVALLOC_STRESS_CUDA_HEAP=<bytes> sizes CUDA's malloc heap, default 2 GiB;
//   DEVALLOC_STRESS_HEAP=<bytes> the Scatter heap of the scatter-* allocators, default 1 GiB;
//   DEVALLOC_STRESS_STRIDE=k: only every k-th thread allocates and frees; DEVALLOC_STRESS_CROSS=1: each
//   thread frees its neighbouring lane's allocations; DEVALLOC_STRESS_PAIR=1: two lanes share each
//   block, the even one allocating and freeing it)
//
// Each launch: every thread allocates with p 0.75 (if it holds fewer than 8) and stamps the memory
// (every word), then frees one of its allocations with p 0.75 after checking its stamp; after the
// last launch every live allocation is checked and freed. A diagnostic, not part of the benchmark.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <devalloc/devalloc.hpp>

#include "common.hpp"  // hash3, unit_real, make_tag, tag_word: the benchmark's own

namespace coalesce_stress_diag {

// Diagnostic variant of distribution::CoalesceDynamic<16> (issue 15): the members of a group wait
// for their leader to come back from the creation policy by polling a shared-memory flag, not at a
// warp-synchronous shuffle; once it is back, everything is CoalesceDynamic's. If coalescing over
// CUDA's malloc stops corrupting memory this way, the corruption needs lanes blocked in a warp
// shuffle while their leader is inside CUDA's malloc. Not for use outside this tool (8 KiB of
// static shared memory a block, a spin wait).
class MailboxDynamic {
 public:
  struct config {};
  using inner = devalloc::distribution::CoalesceDynamic<16>;
  static constexpr bool combines_requests = true;
  static constexpr std::size_t payload_alignment = 16;
  static constexpr devalloc::creation_traits adjust_traits(devalloc::creation_traits t) noexcept
  {
    return inner::adjust_traits(t);
  }

  __device__ std::size_t collect(std::size_t bytes) noexcept
  {
    const unsigned arrived = __activemask();
    group_ = __ballot_sync(arrived, bytes <= inner::max_request);
    if (bytes > inner::max_request) { group_ = 0; }
    if (group_ != 0) {
      leader_ = static_cast<unsigned>(__ffs(static_cast<int>(group_)) - 1);
      if ((threadIdx.x & 31u) == leader_) { *box() = 0u; }
      __syncwarp(group_);  // the reset before any member polls
    }
    return inner_.collect(bytes);
  }

  __device__ void* distribute(void* block) noexcept
  {
    if (group_ != 0) {
      volatile unsigned* flag = box();
      if ((threadIdx.x & 31u) == leader_) {
        __threadfence_block();
        *flag = 1u;  // back from the creation policy
      } else {
        while (*flag == 0u) { __nanosleep(64); }
      }
    }
    return inner_.distribute(block);
  }

  template <class Creation>
  __device__ static devalloc::free_result deallocate(const Creation& creation, void* p) noexcept
  {
    return inner::deallocate(creation, p);
  }

  static std::string classname() { return "MailboxDynamic(diagnostic)"; }

 private:
  __device__ unsigned* box() const noexcept
  {
    __shared__ unsigned flags[32][32];  // [warp of the block][leader lane]
    const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    return &flags[(t / 32u) % 32u][leader_];
  }

  inner inner_{};
  unsigned group_ = 0;
  unsigned leader_ = 0;
};

// Diagnostic creation policies (issue 15): CUDA's malloc (creation::DeviceMalloc) with a hook after
// every malloc() that returned a block and before every free(): Hooks::created(p, bytes) and
// Hooks::destroying(p), on the device; Hooks::attach() on the host gives the hooks their state.
template <class Hooks>
class HookedMalloc {
 public:
  using inner = devalloc::creation::DeviceMalloc;
  struct config {};
  static constexpr devalloc::creation_traits traits = inner::traits;
  static HookedMalloc init_heap(devalloc::pool_span pool, devalloc::stream_ref stream)
  {
    HookedMalloc m;
    m.inner_ = inner::init_heap(pool, stream);
    m.hooks_ = Hooks::attach();
    return m;
  }
  void finalize_heap(devalloc::stream_ref stream) { inner_.finalize_heap(stream); }
  void release(devalloc::stream_ref stream) noexcept { inner_.release(stream); }
  __device__ void* create(std::size_t bytes) const noexcept
  {
    void* p = inner_.create(bytes);
    if (p != nullptr) { hooks_.created(p, bytes); }
    return p;
  }
  __device__ devalloc::free_result destroy(void* p) const noexcept
  {
    hooks_.destroying(p);
    return inner_.destroy(p);
  }
  __device__ bool is_oom(const void* p, std::size_t bytes) const noexcept { return inner_.is_oom(p, bytes); }
  static std::string classname() { return Hooks::name(); }

 private:
  inner inner_{};
  Hooks hooks_{};
};

// FencedMalloc: a device-scope fence after every malloc() and before every free(), so that whatever
// the coalescing code wrote into a superblock is ordered before CUDA's allocator sees the free, and
// CUDA's bookkeeping before the new owner's writes. If coalescing over it stops corrupting memory,
// the corruption is an ordering between our atomics and CUDA's allocator (it did not: 8 of 132
// rounds, results/gpu/2026-11-26_1b3c11b_H100 (in commit 1cd75b3's tree)).
struct FenceHooks {
  static FenceHooks attach() { return {}; }
  __device__ void created(void*, std::size_t) const noexcept { __threadfence(); }
  __device__ void destroying(void*) const noexcept { __threadfence(); }
  static std::string name() { return "FencedMalloc(diagnostic)"; }
};
using FencedMalloc = HookedMalloc<FenceHooks>;

// TracingMalloc: every block CUDA's malloc returns and every block given back written to an event
// log, numbered by one device-wide counter taken after malloc() returns and before free() is called.
// The host replays the log in that order (check_trace): a block returned while an overlapping block
// has been returned and not yet given back was live in two places at once on CUDA's side (the
// numbering is conservative: a block's number comes after its return, a free's before the free); a
// free of a block that is not live is a second free, or a foreign one, by the caller.
struct TraceEvent {
  unsigned long long addr;
  unsigned bytes;  // 0: a free
  unsigned pad;
};
struct TraceLog {
  TraceEvent* events = nullptr;
  unsigned long long* count = nullptr;
  unsigned long long capacity = 0;
};
TraceLog g_trace;  // host copy, for check_trace (allocated once, for the process' lifetime)

struct TraceHooks {
  TraceLog log;
  static TraceHooks attach()
  {
    if (g_trace.events == nullptr) {
      g_trace.capacity = 16u << 20;
      DEVALLOC_CUDA_TRY(cudaMalloc(&g_trace.events, g_trace.capacity * sizeof(TraceEvent)));
      DEVALLOC_CUDA_TRY(cudaMalloc(&g_trace.count, sizeof(unsigned long long)));
      DEVALLOC_CUDA_TRY(cudaMemset(g_trace.count, 0, sizeof(unsigned long long)));
    }
    return TraceHooks{g_trace};
  }
  __device__ void created(void* p, std::size_t bytes) const noexcept { record(p, static_cast<unsigned>(bytes)); }
  __device__ void destroying(void* p) const noexcept { record(p, 0u); }
  __device__ void record(void* p, unsigned bytes) const noexcept
  {
    const unsigned long long i = atomicAdd(log.count, 1ull);
    if (i < log.capacity) { log.events[i] = TraceEvent{reinterpret_cast<unsigned long long>(p), bytes, 0u}; }
  }
  static std::string name() { return "TracingMalloc(diagnostic)"; }
};
using TracingMalloc = HookedMalloc<TraceHooks>;

// Host: replays the event log since the last call (see TracingMalloc) and prints what it finds.
// `live` carries the blocks still live from one call to the next.
inline void check_trace(std::map<unsigned long long, std::pair<unsigned long long, unsigned long long>>& live)
{
  unsigned long long n = 0;
  DEVALLOC_CUDA_TRY(cudaMemcpy(&n, g_trace.count, sizeof n, cudaMemcpyDeviceToHost));
  const unsigned long long kept = std::min(n, g_trace.capacity);
  std::vector<TraceEvent> ev(kept);
  DEVALLOC_CUDA_TRY(cudaMemcpy(ev.data(), g_trace.events, kept * sizeof(TraceEvent), cudaMemcpyDeviceToHost));
  DEVALLOC_CUDA_TRY(cudaMemset(g_trace.count, 0, sizeof(unsigned long long)));
  unsigned long long overlaps = 0, bad_frees = 0, mallocs = 0, frees = 0;
  for (unsigned long long i = 0; i < kept; ++i) {
    const TraceEvent& e = ev[i];
    if (e.bytes != 0) {
      ++mallocs;
      const unsigned long long a = e.addr, end = e.addr + e.bytes;
      auto it = live.lower_bound(end);  // first block starting at or after end: no overlap
      if (it != live.begin()) {
        auto prev = std::prev(it);
        if (prev->second.first > a) {
          if (++overlaps <= 8) {
            std::printf("  trace: OVERLAP event %llu malloc [%#llx, +%u) with live [%#llx, +%llu) of event %llu\n", i,
                        a, e.bytes, prev->first, prev->second.first - prev->first, prev->second.second);
          }
        }
      }
      live[a] = {end, i};
    } else {
      ++frees;
      auto it = live.find(e.addr);
      if (it == live.end()) {
        if (++bad_frees <= 8) { std::printf("  trace: FREE of a block not live, event %llu, %#llx\n", i, e.addr); }
      } else {
        live.erase(it);
      }
    }
  }
  std::printf(
    "  trace: %llu events%s, %llu mallocs, %llu frees, %llu overlaps, %llu frees of blocks not live, %zu live\n", n,
    n > kept ? " (log overflowed: only the first kept)" : "", mallocs, frees, overlaps, bad_frees, live.size());
}

}  // namespace coalesce_stress_diag

namespace {

using devalloc_bench::u32;
using devalloc_bench::u64;
constexpr u32 K = 8;

// Only every g_stride-th thread allocates and frees (DEVALLOC_STRESS_STRIDE; 32: one lane a warp, as
// the leaders of coalescing groups call the creation policy).
__constant__ u32 g_stride = 1;
// 1: each thread frees its neighbouring lane's allocations (DEVALLOC_STRESS_CROSS=1; stride 1 only).
__constant__ u32 g_cross = 0;
// DEVALLOC_STRESS_PAIR=1: step_pair / drain_pair instead of step / drain (host flag).
bool g_pair_host = false;
// Called after each round (tracing modes: check_trace).
std::function<void()> g_after_round;

struct Counters {
  u32 allocs, fails, frees, bad_stamps, bad_words;
};

// Every word of the allocation, where the benchmark's stamp() writes its first and last 4 bytes.
// Bytes of an allocation: `size`, or with size 0 a size drawn from its tag in 16 .. 1552 (the sizes of
// the coalescing superblocks of up to 32 lanes, for CUDA's malloc alone).
__device__ u32 bytes_of(u32 size, u32 tag) { return size != 0 ? size : 16u * (1u + tag % 97u); }

__device__ void stamp(void* p, u32 size, u32 tag)
{
  u32* w = static_cast<u32*>(p);
  for (u32 k = 0; k < size / 4; ++k) { w[k] = devalloc_bench::tag_word(tag, 4 * k); }
}
__device__ u32 bad_words(const void* p, u32 size, u32 tag)
{
  const u32* w = static_cast<const u32*>(p);
  u32 bad = 0;
  for (u32 k = 0; k < size / 4; ++k) { bad += w[k] != devalloc_bench::tag_word(tag, 4 * k); }
  return bad;
}

// Counts a wrong stamp of allocation p (size bytes, stamped with tag).
__device__ void check(const void* p, u32 size, u32 tag, Counters* c)
{
  const u32 bad = bad_words(p, size, tag);
  if (bad != 0) {
    atomicAdd(&c->bad_stamps, 1u);
    atomicAdd(&c->bad_words, bad);
  }
}

// Stamps a new allocation p (nullptr: a failed request) and appends it to the caller's list of m.
__device__ void keep(void* p, u32 size, u32 tag, void** list, u32* list_tag, u32& m, Counters* c)
{
  if (p == nullptr) {
    atomicAdd(&c->fails, 1u);
    return;
  }
  stamp(p, size, tag);
  list[m] = p;
  list_tag[m] = tag;
  ++m;
  atomicAdd(&c->allocs, 1u);
}

template <class H>
__global__ void step(H heap, void** slots, u32* tags, u32* counts, u32 size, u64 seed, u32 launch, u32 n, Counters* c)
{
  const u32 i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || i % g_stride != 0) { return; }
  const u64 h = devalloc_bench::hash3(seed, launch, i);
  u32 m = counts[i];
  void** my = slots + static_cast<u64>(i) * K;
  u32* my_tag = tags + static_cast<u64>(i) * K;
  if (devalloc_bench::unit_real(h) < 0.75 && m < K) {
    const u32 tag = devalloc_bench::make_tag(h, m);
    keep(heap.alloc(bytes_of(size, tag)), bytes_of(size, tag), tag, my, my_tag, m, c);
  }
  counts[i] = m;
  // DEVALLOC_STRESS_CROSS: the free below takes one of the neighbouring lane's allocations (lane
  // i ^ 1), so that blocks are freed by another thread than the one that allocated them, as a
  // coalescing superblock is (every lane takes part: a thread count that is a multiple of 32).
  if (g_cross != 0) { __syncwarp(); }
  const u32 q = g_cross != 0 ? (i ^ 1u) : i;
  u32 mq = counts[q];
  void** their = slots + static_cast<u64>(q) * K;
  u32* their_tag = tags + static_cast<u64>(q) * K;
  if (mq > 0 && devalloc_bench::unit_real(devalloc_bench::mix64(h ^ 0x5bd1e995ull)) < 0.75) {
    const u32 j = static_cast<u32>(devalloc_bench::mix64(h ^ 0x27d4eb2full) % mq);
    check(their[j], bytes_of(size, their_tag[j]), their_tag[j], c);
    heap.dealloc(their[j]);
    atomicAdd(&c->frees, 1u);
    --mq;
    their[j] = their[mq];
    their_tag[j] = their_tag[mq];
  }
  counts[q] = mq;
  if (g_cross != 0) { __syncwarp(); }
}

// DEVALLOC_STRESS_PAIR=1: lanes 2k and 2k+1 share each block. The even lane allocates 2 x size,
// hands the pointer to the odd lane by shuffle, each stamps and checks its own half, and the even
// lane frees the block after both checked it: other threads write into a block than the one that
// allocated it, as in a coalescing superblock, with CUDA's malloc alone. Both lanes of a pair take
// the same decisions (the even lane's hash), so their lists stay in step.
template <class H>
__global__ void step_pair(H heap, void** slots, u32* tags, u32* counts, u32 size, u64 seed, u32 launch, u32 n,
                          Counters* c)
{
  const u32 i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) { return; }
  const unsigned lane = threadIdx.x & 31u;
  const unsigned pair = 3u << (lane & ~1u);
  const bool even = (lane & 1u) == 0;
  const u64 h = devalloc_bench::hash3(seed, launch, i & ~1u);
  u32 m = counts[i];
  void** my = slots + static_cast<u64>(i) * K;
  u32* my_tag = tags + static_cast<u64>(i) * K;
  if (devalloc_bench::unit_real(h) < 0.75 && m < K) {
    void* block = even ? heap.alloc(2u * size) : nullptr;
    block = reinterpret_cast<void*>(__shfl_sync(pair, reinterpret_cast<unsigned long long>(block), lane & ~1u));
    void* half = block == nullptr ? nullptr : static_cast<char*>(block) + (even ? 0u : size);
    keep(half, size, devalloc_bench::make_tag(devalloc_bench::hash3(seed, launch, i), m), my, my_tag, m, c);
  }
  if (m > 0 && devalloc_bench::unit_real(devalloc_bench::mix64(h ^ 0x5bd1e995ull)) < 0.75) {
    const u32 j = static_cast<u32>(devalloc_bench::mix64(h ^ 0x27d4eb2full) % m);
    check(my[j], size, my_tag[j], c);
    __syncwarp(pair);  // both halves checked before the block goes back
    if (even) { heap.dealloc(my[j]); }
    atomicAdd(&c->frees, 1u);
    --m;
    my[j] = my[m];
    my_tag[j] = my_tag[m];
  }
  counts[i] = m;
}

template <class H>
__global__ void drain_pair(H heap, void** slots, u32* tags, u32* counts, u32 size, u32 n, Counters* c)
{
  const u32 i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) { return; }
  const unsigned lane = threadIdx.x & 31u;
  const unsigned pair = 3u << (lane & ~1u);
  for (u32 j = 0; j < counts[i]; ++j) {
    const u64 s = static_cast<u64>(i) * K + j;
    check(slots[s], size, tags[s], c);
    __syncwarp(pair);
    if ((lane & 1u) == 0) { heap.dealloc(slots[s]); }
  }
  counts[i] = 0;
}

template <class H>
__global__ void drain(H heap, void** slots, u32* tags, u32* counts, u32 size, u32 n, Counters* c)
{
  const u32 i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || i % g_stride != 0) { return; }
  for (u32 j = 0; j < counts[i]; ++j) {
    const u64 s = static_cast<u64>(i) * K + j;
    check(slots[s], bytes_of(size, tags[s]), tags[s], c);
    heap.dealloc(slots[s]);
  }
  counts[i] = 0;
}

template <class A>
void run(const char* name, std::size_t heap_bytes, u32 n, u32 size, u32 launches, u32 rounds)
{
  devalloc::buffer<void*> slots(std::size_t{n} * K);
  devalloc::buffer<u32> tags(std::size_t{n} * K);
  devalloc::buffer<u32> counts(n);
  devalloc::buffer<Counters> c(1);
  cudaEvent_t e0, e1;
  DEVALLOC_CUDA_TRY(cudaEventCreate(&e0));
  DEVALLOC_CUDA_TRY(cudaEventCreate(&e1));
  A allocator(heap_bytes);
  for (u32 r = 0; r < rounds; ++r) {
    counts.zero();
    c.zero();
    DEVALLOC_CUDA_TRY(cudaEventRecord(e0));
    for (u32 l = 0; l < launches; ++l) {
      if (g_pair_host) {
        step_pair<<<(n + 255) / 256, 256>>>(allocator.handle(), slots.data(), tags.data(), counts.data(), size,
                                            20251125ull + r, l, n, c.data());
      } else {
        step<<<(n + 255) / 256, 256>>>(allocator.handle(), slots.data(), tags.data(), counts.data(), size,
                                       20251125ull + r, l, n, c.data());
      }
      DEVALLOC_CUDA_TRY(cudaGetLastError());
    }
    if (g_pair_host) {
      drain_pair<<<(n + 255) / 256, 256>>>(allocator.handle(), slots.data(), tags.data(), counts.data(), size, n,
                                           c.data());
    } else {
      drain<<<(n + 255) / 256, 256>>>(allocator.handle(), slots.data(), tags.data(), counts.data(), size, n, c.data());
    }
    DEVALLOC_CUDA_TRY(cudaGetLastError());
    DEVALLOC_CUDA_TRY(cudaEventRecord(e1));
    DEVALLOC_CUDA_TRY(cudaEventSynchronize(e1));
    float ms = 0;
    DEVALLOC_CUDA_TRY(cudaEventElapsedTime(&ms, e0, e1));
    const Counters h = c.get(0);
    const auto st = allocator.stats();
    std::printf(
      "%-26s round %u: %u launches %7.1f ms  allocs %u fails %u frees %u  bad stamps %u (words %u)  "
      "invalid frees %llu double frees %llu\n",
      name, r, launches, ms, h.allocs, h.fails, h.frees, h.bad_stamps, h.bad_words,
      static_cast<unsigned long long>(st.invalid_frees), static_cast<unsigned long long>(st.double_frees));
    if (g_after_round) { g_after_round(); }
    std::fflush(stdout);
  }
  DEVALLOC_CUDA_TRY(cudaEventDestroy(e0));
  DEVALLOC_CUDA_TRY(cudaEventDestroy(e1));
}

}  // namespace

int main(int argc, char** argv)
{
  const u32 n = argc > 1 ? static_cast<u32>(std::strtoul(argv[1], nullptr, 0)) : 270336u;
  const u32 size = argc > 2 ? static_cast<u32>(std::strtoul(argv[2], nullptr, 0)) : 128u;
  const u32 launches = argc > 3 ? static_cast<u32>(std::strtoul(argv[3], nullptr, 0)) : 40u;
  const u32 rounds = argc > 4 ? static_cast<u32>(std::strtoul(argv[4], nullptr, 0)) : 3u;
  const std::string only = argc > 5 ? argv[5] : "";
  if (n == 0 || size % 16 != 0 || launches == 0 || rounds == 0) {
    std::fprintf(stderr,
                 "usage: %s [threads] [size, multiple of 16; 0: 16..1552 per allocation] [launches] [rounds] [only]\n",
                 argv[0]);
    return 2;
  }
  using namespace devalloc;
  using scatter_dynamic = Allocator<creation::Scatter<>, distribution::CoalesceDynamic<16>, oom::ReturnNull,
                                    reserve_pool::CudaMalloc, alignment::NoAlignment>;
  // The process' CUDA heap, as devalloc-bench's; DEVALLOC_STRESS_CUDA_HEAP=<bytes> makes it small
  // enough that superblock requests fail (the allocators' out-of-memory paths under this load).
  if (const char* stride = std::getenv("DEVALLOC_STRESS_STRIDE")) {
    const u32 k = std::max(1u, static_cast<u32>(std::strtoul(stride, nullptr, 0)));
    DEVALLOC_CUDA_TRY(cudaMemcpyToSymbol(g_stride, &k, sizeof k));
  }
  if (const char* cross = std::getenv("DEVALLOC_STRESS_CROSS")) {
    const u32 k = std::strtoul(cross, nullptr, 0) != 0 ? 1u : 0u;
    if (k != 0 && (n % 32 != 0 || std::getenv("DEVALLOC_STRESS_STRIDE") != nullptr)) {
      std::fprintf(stderr, "DEVALLOC_STRESS_CROSS needs a multiple of 32 threads and no stride\n");
      return 2;
    }
    DEVALLOC_CUDA_TRY(cudaMemcpyToSymbol(g_cross, &k, sizeof k));
  }
  if (const char* pair = std::getenv("DEVALLOC_STRESS_PAIR")) {
    g_pair_host = std::strtoul(pair, nullptr, 0) != 0;
    if (g_pair_host && (n % 32 != 0 || size == 0 || std::getenv("DEVALLOC_STRESS_STRIDE") != nullptr ||
                        std::getenv("DEVALLOC_STRESS_CROSS") != nullptr)) {
      std::fprintf(stderr, "DEVALLOC_STRESS_PAIR needs a multiple of 32 threads, a size, no stride and no cross\n");
      return 2;
    }
  }
  const char* small_heap = std::getenv("DEVALLOC_STRESS_CUDA_HEAP");
  const std::size_t cuda_heap = small_heap != nullptr ? std::strtoull(small_heap, nullptr, 0) : std::size_t{2} << 30;
  // scatter-ops' heap for this cell; DEVALLOC_STRESS_HEAP=<bytes> sizes it (Scatter's out-of-memory paths).
  const char* scatter_heap = std::getenv("DEVALLOC_STRESS_HEAP");
  const std::size_t heap = scatter_heap != nullptr ? std::strtoull(scatter_heap, nullptr, 0) : std::size_t{1} << 30;
  std::printf("%u threads x %u B, p_alloc = p_free = 0.75, %u slots per thread, %u launches x %u rounds\n", n, size, K,
              launches, rounds);
  auto want = [&](const char* name) { return only.empty() || only == name; };
  if (want("coalesce-dynamic")) {
    run<presets::coalesce_dynamic>("coalesce-dynamic", cuda_heap, n, size, launches, rounds);
  }
  if (want("coalesce-block")) { run<presets::coalesce_block>("coalesce-block", cuda_heap, n, size, launches, rounds); }
  if (only == "mailbox-dynamic") {  // diagnostic only (MailboxDynamic): not part of the default set
    using mailbox_dynamic = Allocator<creation::DeviceMalloc, coalesce_stress_diag::MailboxDynamic, oom::ReturnNull,
                                      reserve_pool::CudaSetLimits, alignment::NoAlignment>;
    run<mailbox_dynamic>("mailbox-dynamic", cuda_heap, n, size, launches, rounds);
  }
  if (want("cuda-malloc")) {
    // CUDA's malloc alone takes about 0.25 s a launch at this load: 5 launches, unless the
    // command names it (`only`), which runs it as long as the others.
    const bool alone = only == "cuda-malloc";
    run<presets::device_malloc>("cuda-malloc", cuda_heap, n, size, alone ? launches : 5, alone ? rounds : 1);
  }
  if (want("scatter-coalesce-dynamic")) {
    run<scatter_dynamic>("scatter-coalesce-dynamic", heap, n, size, launches, rounds);
  }
  // Issue 15 diagnostics, run only when named: the coalescing allocators over creation::ListFirstFit
  // (LIFO reuse of freed chunks from exact size bins, double and invalid frees detected; its heap:
  // DEVALLOC_STRESS_HEAP), over CUDA's malloc with fences around every call (FencedMalloc), and
  // coalesce-hashed (superblock counts in a hash map, no headers) over CUDA's malloc.
  using list_dynamic = Allocator<creation::ListFirstFit, distribution::CoalesceDynamic<16>, oom::ReturnNull,
                                 reserve_pool::CudaMalloc, alignment::NoAlignment>;
  using list_block = Allocator<creation::ListFirstFit, distribution::CoalesceBlock, oom::ReturnNull,
                               reserve_pool::CudaMalloc, alignment::NoAlignment>;
  using fenced_dynamic = Allocator<coalesce_stress_diag::FencedMalloc, distribution::CoalesceDynamic<16>,
                                   oom::ReturnNull, reserve_pool::CudaSetLimits, alignment::NoAlignment>;
  using fenced_block = Allocator<coalesce_stress_diag::FencedMalloc, distribution::CoalesceBlock, oom::ReturnNull,
                                 reserve_pool::CudaSetLimits, alignment::NoAlignment>;
  if (only == "list-coalesce-dynamic") { run<list_dynamic>("list-coalesce-dynamic", heap, n, size, launches, rounds); }
  if (only == "list-coalesce-block") { run<list_block>("list-coalesce-block", heap, n, size, launches, rounds); }
  if (only == "fenced-coalesce-dynamic") {
    run<fenced_dynamic>("fenced-coalesce-dynamic", cuda_heap, n, size, launches, rounds);
  }
  if (only == "fenced-coalesce-block") {
    run<fenced_block>("fenced-coalesce-block", cuda_heap, n, size, launches, rounds);
  }
  using traced_dynamic = Allocator<coalesce_stress_diag::TracingMalloc, distribution::CoalesceDynamic<16>,
                                   oom::ReturnNull, reserve_pool::CudaSetLimits, alignment::NoAlignment>;
  using traced_block = Allocator<coalesce_stress_diag::TracingMalloc, distribution::CoalesceBlock, oom::ReturnNull,
                                 reserve_pool::CudaSetLimits, alignment::NoAlignment>;
  std::map<unsigned long long, std::pair<unsigned long long, unsigned long long>> live;
  using traced_malloc = Allocator<coalesce_stress_diag::TracingMalloc, distribution::Noop, oom::ReturnNull,
                                  reserve_pool::CudaSetLimits, alignment::NoAlignment>;
  if (only == "traced-coalesce-dynamic" || only == "traced-coalesce-block" || only == "traced-cuda-malloc") {
    g_after_round = [&live] { coalesce_stress_diag::check_trace(live); };
  }
  if (only == "traced-coalesce-dynamic") {
    run<traced_dynamic>("traced-coalesce-dynamic", cuda_heap, n, size, launches, rounds);
  }
  if (only == "traced-cuda-malloc") { run<traced_malloc>("traced-cuda-malloc", cuda_heap, n, size, launches, rounds); }
  if (only == "traced-coalesce-block") {
    run<traced_block>("traced-coalesce-block", cuda_heap, n, size, launches, rounds);
  }
  if (only == "coalesce-hashed") {
    run<presets::coalesce_hashed>("coalesce-hashed", cuda_heap, n, size, launches, rounds);
  }
  if (want("scatter-coalesce-block")) {
    run<presets::scatter_coalesce_block>("scatter-coalesce-block", heap, n, size, launches, rounds);
  }
  return 0;
}
