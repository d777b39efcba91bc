// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/diag/oom_fill.cu — allocation until out of memory over the `scatter` preset: how much of
// the heap the requests got, and where the rest of the room is.
//
//   devalloc-oom-fill [threads=4096] [lo=4] [hi=64] [heap_mib=16] [no-warp-slots]
//
// Every thread allocates sizes uniform in lo..hi bytes until its first nullptr (GPUMemManSurvey's
// `oom` cell, which devalloc-bench's survey test runs with 4 096 threads x 4-64 B in 16 MiB).
// Prints the requested bytes over the heap, then what one thread and one warp still get, then for
// each chunk size its pages, the chunks in them, and its part-filled pages by the directory entry
// that names them (none: only the walk finds their room; docs/scatter.md, "Whole-warp slots of
// several classes"). `no-warp-slots` builds the heap with ScatterConfig::warp_slots = 0.
//
// A diagnostic, not part of the benchmark: its figures are not records of devalloc-bench.
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#include <devalloc/devalloc.hpp>

namespace {

using devalloc::detail::device_atomic;
using devalloc::detail::memory_order_relaxed;

struct NoWarpSlotsConfig : devalloc::creation::ScatterConfig {
  static constexpr std::uint32_t warp_slots = 0;
};
using no_warp_slots =
  devalloc::Allocator<devalloc::creation::Scatter<NoWarpSlotsConfig>, devalloc::distribution::Noop,
                      devalloc::oom::ReturnNull, devalloc::reserve_pool::CudaMalloc, devalloc::alignment::Shrink<16>>;

/// Request k of thread i: lo + a hash of (i, k) mod span.
__host__ __device__ unsigned request_size(std::uint64_t i, std::uint64_t k, unsigned lo, unsigned span)
{
  std::uint64_t x = i * 0x9E3779B97F4A7C15ull ^ (k + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return lo + static_cast<unsigned>(x % span);
}

/// `threads` threads (ids from `first`) allocate until their first nullptr; adds the requests and
/// their bytes to *count and *bytes.
template <class Handle>
void fill(Handle h, std::size_t threads, std::uint64_t first, unsigned lo, unsigned span, unsigned long long* count,
          unsigned long long* bytes)
{
  devalloc::launch(threads, [=] __device__(std::size_t i) {
    for (std::uint64_t k = 0;; ++k) {
      const unsigned s = request_size(first + i, k, lo, span);
      if (h.alloc(s) == nullptr) { return; }
      device_atomic<unsigned long long>(*count).fetch_add(1, memory_order_relaxed);
      device_atomic<unsigned long long>(*bytes).fetch_add(s, memory_order_relaxed);
    }
  });
}

template <class Heap>
int run(std::size_t threads, unsigned lo, unsigned hi, std::size_t mib)
{
  using policy = typename Heap::creation_policy;
  const std::size_t heap_bytes = mib << 20;
  Heap heap(heap_bytes);
  auto h = heap.handle();
  devalloc::buffer<unsigned long long> count(1), bytes(1);
  const unsigned span = hi - lo + 1u;
  fill(h, threads, 0, lo, span, count.data(), bytes.data());
  std::printf(
    "%zu threads x %u-%u B until out of memory, heap %zu MiB: %llu allocations, %.1f %% of the heap requested\n",
    threads, lo, hi, mib, count.get(0), 100.0 * static_cast<double>(bytes.get(0)) / heap_bytes);
  for (const std::size_t more : {std::size_t{1}, std::size_t{32}}) {
    const unsigned long long before = count.get(0);
    fill(h, more, 1ull << 40, lo, span, count.data(), bytes.data());
    std::printf("then %zu more thread(s): %llu more allocations\n", more, count.get(0) - before);
  }
  const auto c = h.creation();
  const auto pages = c.pages_host();
  const auto holders = c.directory_holders_host();
  struct row {
    unsigned pages = 0;
    unsigned long long chunks = 0;
    std::array<unsigned, 4> part{};  // part-filled pages by holder: none, class slot, warp slot, class page
  };
  std::map<unsigned, row> rows;
  unsigned free_pages = 0;
  unsigned long long chunk_bytes = 0, split_bytes = 0;
  for (std::size_t p = 0; p < pages.size(); ++p) {
    const auto& v = pages[p];
    if (v.chunk == 0) {
      ++free_pages;
      continue;
    }
    if (v.chunk > policy::pagesize) { continue; }  // part of a multi-page chunk
    row& r = rows[v.chunk];
    ++r.pages;
    r.chunks += v.count;
    chunk_bytes += static_cast<unsigned long long>(v.count) * v.chunk;
    split_bytes += policy::pagesize;
    if (v.count < policy::layout_of(v.chunk).spots) { ++r.part[static_cast<unsigned>(holders[p])]; }
  }
  std::printf("free pages %u of %zu; chunks hold %.1f %% of the split pages' bytes\n", free_pages, pages.size(),
              split_bytes != 0 ? 100.0 * static_cast<double>(chunk_bytes) / split_bytes : 0.0);
  for (const auto& [chunk, r] : rows) {
    std::printf(
      "chunk %u B: %u pages, %llu chunks; part-filled pages named by no entry %u, a class slot %u, a warp slot "
      "%u, the class page %u\n",
      chunk, r.pages, r.chunks, r.part[0], r.part[1], r.part[2], r.part[3]);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv)
{
  const std::size_t threads = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : 4096u;
  const unsigned lo = argc > 2 ? static_cast<unsigned>(std::strtoul(argv[2], nullptr, 0)) : 4u;
  const unsigned hi = argc > 3 ? static_cast<unsigned>(std::strtoul(argv[3], nullptr, 0)) : 64u;
  const std::size_t mib = argc > 4 ? std::strtoull(argv[4], nullptr, 0) : 16u;
  const bool no_warp = argc > 5 && std::strcmp(argv[5], "no-warp-slots") == 0;
  if (threads == 0 || lo == 0 || hi < lo || mib == 0 || (argc > 5 && !no_warp)) {
    std::fprintf(stderr, "usage: %s [threads>0] [lo>0] [hi>=lo] [heap_mib>0] [no-warp-slots]\n", argv[0]);
    return 2;
  }
  return no_warp ? run<no_warp_slots>(threads, lo, hi, mib) : run<devalloc::presets::scatter>(threads, lo, hi, mib);
}
