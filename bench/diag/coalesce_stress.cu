// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/diag/coalesce_stress.cu — the coalescing allocators under devalloc-bench's scatter-ops load,
// with their superblocks from CUDA's malloc and from creation::Scatter, to tell whether the rare
// verification errors of that test (results/gpu/2026-11-25_0c42e64_H100: coalesce-dynamic,
// 270 336 threads x 128 B, 10 stamps) come from the coalescing code or from CUDA's malloc.
//
//   devalloc-coalesce-stress [threads=270336] [size=128] [launches=40] [rounds=3]
//
// Each launch: every thread allocates with p 0.75 (if it holds fewer than 8) and stamps the memory
// (every word), then frees one of its allocations with p 0.75 after checking its stamp; after the
// last launch every live allocation is checked and freed. A diagnostic, not part of the benchmark.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <devalloc/devalloc.hpp>

namespace {

using u32 = unsigned;
using u64 = unsigned long long;
constexpr u32 K = 8;

#define CHECK(x)                                                                              \
  do {                                                                                        \
    const cudaError_t e_ = (x);                                                               \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

__host__ __device__ u64 mix(u64 x)
{
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}
__device__ double unit(u64 h) { return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0); }

struct Counters {
  u32 allocs, fails, frees, bad_stamps, bad_words;
};

__device__ void stamp(void* p, u32 size, u32 tag)
{
  u32* w = static_cast<u32*>(p);
  for (u32 k = 0; k < size / 4; ++k) { w[k] = tag ^ (k * 0x9E3779B9u); }
}
__device__ u32 bad_words(const void* p, u32 size, u32 tag)
{
  const u32* w = static_cast<const u32*>(p);
  u32 bad = 0;
  for (u32 k = 0; k < size / 4; ++k) { bad += w[k] != (tag ^ (k * 0x9E3779B9u)); }
  return bad;
}

template <class H>
__global__ void step(H heap, void** slots, u32* tags, u32* counts, u32 size, u64 seed, u32 launch, u32 n, Counters* c)
{
  const u32 i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) { return; }
  const u64 h = mix(seed ^ mix(static_cast<u64>(launch) << 32 | i));
  u32 m = counts[i];
  void** my = slots + static_cast<u64>(i) * K;
  u32* my_tag = tags + static_cast<u64>(i) * K;
  if (unit(h) < 0.75 && m < K) {
    void* p = heap.alloc(size);
    if (p != nullptr) {
      const u32 tag = static_cast<u32>(mix(h ^ 0xabcdefull));
      stamp(p, size, tag);
      my[m] = p;
      my_tag[m] = tag;
      ++m;
      atomicAdd(&c->allocs, 1u);
    } else {
      atomicAdd(&c->fails, 1u);
    }
  }
  if (m > 0 && unit(mix(h ^ 0x5bd1e995ull)) < 0.75) {
    const u32 j = static_cast<u32>(mix(h ^ 0x27d4eb2full) % m);
    const u32 bad = bad_words(my[j], size, my_tag[j]);
    if (bad != 0) {
      atomicAdd(&c->bad_stamps, 1u);
      atomicAdd(&c->bad_words, bad);
    }
    heap.dealloc(my[j]);
    atomicAdd(&c->frees, 1u);
    --m;
    my[j] = my[m];
    my_tag[j] = my_tag[m];
  }
  counts[i] = m;
}

template <class H>
__global__ void drain(H heap, void** slots, u32* tags, u32* counts, u32 size, u32 n, Counters* c)
{
  const u32 i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) { return; }
  for (u32 j = 0; j < counts[i]; ++j) {
    const u64 s = static_cast<u64>(i) * K + j;
    const u32 bad = bad_words(slots[s], size, tags[s]);
    if (bad != 0) {
      atomicAdd(&c->bad_stamps, 1u);
      atomicAdd(&c->bad_words, bad);
    }
    heap.dealloc(slots[s]);
  }
  counts[i] = 0;
}

template <class A>
void run(const char* name, std::size_t heap_bytes, u32 n, u32 size, u32 launches, u32 rounds)
{
  void** slots = nullptr;
  u32 *tags = nullptr, *counts = nullptr;
  Counters* c = nullptr;
  CHECK(cudaMalloc(&slots, sizeof(void*) * n * K));
  CHECK(cudaMalloc(&tags, sizeof(u32) * n * K));
  CHECK(cudaMalloc(&counts, sizeof(u32) * n));
  CHECK(cudaMalloc(&c, sizeof(Counters)));
  A allocator(heap_bytes);
  for (u32 r = 0; r < rounds; ++r) {
    CHECK(cudaMemset(counts, 0, sizeof(u32) * n));
    CHECK(cudaMemset(c, 0, sizeof(Counters)));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    CHECK(cudaEventRecord(e0));
    for (u32 l = 0; l < launches; ++l) {
      step<<<(n + 255) / 256, 256>>>(allocator.handle(), slots, tags, counts, size, 20251125ull + r, l, n, c);
      CHECK(cudaGetLastError());
    }
    drain<<<(n + 255) / 256, 256>>>(allocator.handle(), slots, tags, counts, size, n, c);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    Counters h{};
    CHECK(cudaMemcpy(&h, c, sizeof(h), cudaMemcpyDeviceToHost));
    const auto st = allocator.stats();
    std::printf(
      "%-26s round %u: %u launches %7.1f ms  allocs %u fails %u frees %u  bad stamps %u (words %u)  "
      "invalid frees %llu double frees %llu\n",
      name, r, launches, ms, h.allocs, h.fails, h.frees, h.bad_stamps, h.bad_words,
      static_cast<unsigned long long>(st.invalid_frees), static_cast<unsigned long long>(st.double_frees));
    std::fflush(stdout);
  }
  CHECK(cudaFree(slots));
  CHECK(cudaFree(tags));
  CHECK(cudaFree(counts));
  CHECK(cudaFree(c));
}

}  // namespace

int main(int argc, char** argv)
{
  const u32 n = argc > 1 ? static_cast<u32>(std::strtoul(argv[1], nullptr, 0)) : 270336u;
  const u32 size = argc > 2 ? static_cast<u32>(std::strtoul(argv[2], nullptr, 0)) : 128u;
  const u32 launches = argc > 3 ? static_cast<u32>(std::strtoul(argv[3], nullptr, 0)) : 40u;
  const u32 rounds = argc > 4 ? static_cast<u32>(std::strtoul(argv[4], nullptr, 0)) : 3u;
  const std::string only = argc > 5 ? argv[5] : "";
  if (n == 0 || size == 0 || size % 16 != 0 || launches == 0 || rounds == 0) {
    std::fprintf(stderr, "usage: %s [threads] [size, multiple of 16] [launches] [rounds] [only]\n", argv[0]);
    return 2;
  }
  using namespace devalloc;
  using scatter_dynamic = Allocator<creation::Scatter<>, distribution::CoalesceDynamic<16>, oom::ReturnNull,
                                    reserve_pool::CudaMalloc, alignment::NoAlignment>;
  const std::size_t cuda_heap = std::size_t{2} << 30;  // the process' CUDA heap, as devalloc-bench's
  const std::size_t heap = std::size_t{1} << 30;       // scatter-ops' heap for this cell
  std::printf("%u threads x %u B, p_alloc = p_free = 0.75, %u slots per thread, %u launches x %u rounds\n", n, size, K,
              launches, rounds);
  auto want = [&](const char* name) { return only.empty() || only == name; };
  if (want("coalesce-dynamic")) {
    run<presets::coalesce_dynamic>("coalesce-dynamic", cuda_heap, n, size, launches, rounds);
  }
  if (want("coalesce-block")) { run<presets::coalesce_block>("coalesce-block", cuda_heap, n, size, launches, rounds); }
  if (want("cuda-malloc")) { run<presets::device_malloc>("cuda-malloc", cuda_heap, n, size, 5, 1); }
  if (want("scatter-coalesce-dynamic")) {
    run<scatter_dynamic>("scatter-coalesce-dynamic", heap, n, size, launches, rounds);
  }
  if (want("scatter-coalesce-block")) {
    run<presets::scatter_coalesce_block>("scatter-coalesce-block", heap, n, size, launches, rounds);
  }
  return 0;
}
