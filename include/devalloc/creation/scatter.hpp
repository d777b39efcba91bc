// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/creation/scatter.hpp
//
// CreationPolicy `Scatter<Config>`: ScatterAlloc (Steinberger et al. 2012, §5 and §6) as the
// mallocMC thesis (Eckert 2014, §4.3.5) turned it into a creation policy, with the thesis' bug fixes
// (§5.4) and getAvailableSlots. docs/scatter.md describes the page protocol and its invariants.
//
// Layout of the pool (every structure lives inside it; the policy object only holds pointers):
//
//   [header 256 B: active super block][page states: 8 B x pages][page bitfields: 4 B x pages]
//   [region counters: 4 B x regions][free-page map: 1 bit x pages]
//   [room counters: 128 stripes x 32 B]
//   [class directory: 4 B x (classes x (slots + 1) + warp slots + 1)][pad to 256][page 0][page 1] ... [page pages-1]
//
//   * Pages (§5.2) of Config::pagesize bytes. A page is free (chunk size 0), split into equal
//     chunks of one size (<= pagesize, a multiple of 16), or part of a multi-page chunk (§6.3).
//   * The page usage table (§5.2) of a page is its 64-bit state = (chunk size << 32 | fill count)
//     plus a 32-bit bitfield. Chunk size and fill count share one word so that "the chunk size may
//     only change while the count is zero" is a single compare-and-swap (see "protocol" below).
//   * Up to 32 chunks: the bitfield marks used chunks. Smaller chunks (thesis §4.3.5, fig. 2.5):
//     the page holds segments of 32 chunks plus "additional" chunks; each segment's 32-bit bitfield
//     sits at the end of the page (segment s at page end - 4 (s + 1)), and the bitfield in the table
//     marks segments that are (believed to be) full. Up to 32 x 32 = 1024 chunks per page.
//   * Super blocks ("access blocks", §5.1/§5.4): consecutive runs of pages_per_block() pages
//     (Config::accessblocksize bytes, clamped to the heap; the last one may be shorter).
//     Allocation starts in the active super block and moves the active pointer forward when that
//     block cannot serve it; frees in other blocks reactivate them with a probability that grows
//     with the free space of the freed page's region.
//   * Regions (§5.4) of Config::regionsize pages (never straddling super blocks) count their full
//     pages; the search skips regions that are more than 90 % full.
//   * All super blocks' metadata sits in one array in front of the pages, so pages of consecutive
//     super blocks are adjacent and a multi-page chunk may span super blocks: requests larger than
//     a page find a run of free pages in the free-page map (§6.3 / thesis fig. 2.3 scan the page
//     table instead), which lets one allocation take (almost) the whole heap.
//   * The free-page map (detail/page_bitmap.hpp) says which pages are taken; whoever sets a page's
//     bit owns it and alone opens it. The class directory names, per size class and
//     multiprocessor slot, the page that slot's warps are filling (docs/scatter.md, Search).
//
// Protocol (the invariants are stated and tested in docs/scatter.md / tests/scatter):
//   reserve   fetch_add(state, 1): the page had room iff the returned chunk size is the one we
//             expected and the returned count is below its chunk count (§6.1 tryUsePage line 2).
//             A failed reservation is given back with fetch_sub (a "transient" +1).
//   claim     a page is taken by setting its bit in the free-page map (fetch_or); its owner opens
//             it with fetch_add(state, (size, k)) keeping k reservations (a free page's bitfield
//             is always 0; a hierarchical page's in-page segment words are zeroed first and the
//             fetch_add publishes them). Reservers that read an old directory entry and added to
//             a free page find chunk size 0 in the returned value and give their +1 back.
//   spot      with a reservation held, a bit is won by atomicOr from the lane id with the
//             find-next-free-bit step (§6.1 lines 7-19; detail/bitfield.hpp).
//   free      only a pointer at the start of a live chunk frees (destroy() returns free_result::freed);
//             others are reported as invalid_pointer / double_free and change nothing.
//             Clear the bit, then fetch_sub(state, 1) (release). Whoever takes the count from 1
//             to 0 (a free or a transient's give-back) tries CAS((size, 0) -> 0) when
//             Config::resetfreedpages: the page becomes free again (and its bit in the map is
//             cleared) unless someone reserved in the meantime, who then does the same when it leaves. This is the
//             paper's lock-by-count reset (§6.2 free lines 10-16) done in one step, and no page keeps a stale chunk
//             size.
//
// Where each piece lives (each file names the seed sections it implements). Scatter derives from
// one chain of class templates, each adding functions and none adding data, so that the policy
// object stays one trivially copyable value of pointers and every call is an ordinary inline
// member call (no virtual functions):
//   detail/bitfield_page.hpp         the page format, parameterised by the page size only (reusable
//                                    by other creation policies): page_layout / layout_of, flat and
//                                    hierarchical pages, segment words, the packed state word
//                                    (pack, chunk_of, count_of, lock_count, large_chunk), and
//                                    winning / releasing a spot (take_spot, release_spot,
//                                    mark_segment_full)
//   creation/scatter/heap.hpp        scatter_detail::heap: the pool layout above (geometry, plan)
//                                    and the heap view (pointers, page / super block / region
//                                    geometry)
//   creation/scatter/fill.hpp        scatter_detail::fill: region fill counters (region_add /
//                                    region_sub, over_threshold) and the super block look at a
//                                    sample of them (block_over),
//                                    account_increment, give_back, free_chunk, maybe_reactivate
//   creation/scatter/pages.hpp       scatter_detail::multi_page: requests larger than a page
//                                    (alloc_pages, take_pages, free_pages, add_run_to_regions)
//                                    and the free-page runs getAvailableSlots counts
//   creation/scatter/search.hpp      scatter_detail::search: size classes (class_of, accepts), the
//                                    class directory (alloc_chunk, directory_round, offer_page),
//                                    open_page, the fallback walk from eq. (3)'s page
//                                    (search_block, try_page, try_page_group, reserve),
//                                    count_free_chunks
//   detail/page_bitmap.hpp           the free-page map (claim_one, claim_run, find_run, release)
//   creation/scatter.hpp (this file) the configuration and Scatter's interface: host set-up and
//                                    diagnostics, create, destroy (classifying every pointer),
//                                    chunk_start, available_slots
//
// Configuration (thesis §4.3.7): derive from ScatterConfig and override members, e.g.
//   struct MyConfig : devalloc::creation::ScatterConfig { static constexpr std::uint32_t pagesize = 1024; };
// or change a default for a whole build with -DDEVALLOC_SCATTER_<NAME>=<value> (names below).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../detail/atomic.hpp"
#include "../detail/backend.hpp"
#include "../detail/bitfield.hpp"
#include "../detail/bitfield_page.hpp"
#include "../detail/platform.hpp"
#include "../pool.hpp"
#include "../traits.hpp"
#include "../detail/warp.hpp"
#include "scatter/fill.hpp"
#include "scatter/heap.hpp"
#include "scatter/pages.hpp"
#include "scatter/search.hpp"
#include "../error.hpp"
#include "../free_result.hpp"
#include "../stream.hpp"

/// Bytes per page (§5.2). A multiple of 256 in 256..2^30.
#include "../detail/scatter_pagesize.hpp"
/// Bytes per super block / access block (§5.1). Clamped to the heap; need not divide it. Default:
/// no limit (one super block; see ScatterConfig::accessblocksize).
#ifndef DEVALLOC_SCATTER_ACCESSBLOCKSIZE
#define DEVALLOC_SCATTER_ACCESSBLOCKSIZE (~0ull)
#endif
/// Pages per region (§5.4).
#ifndef DEVALLOC_SCATTER_REGIONSIZE
#define DEVALLOC_SCATTER_REGIONSIZE 16
#endif
/// A request of S bytes may take a chunk of up to S x wastefactor bytes (§6.1 alloc line 3).
#ifndef DEVALLOC_SCATTER_WASTEFACTOR
#define DEVALLOC_SCATTER_WASTEFACTOR 2
#endif
/// 1: a page whose last chunk is freed forgets its chunk size (§6.2). 0: it keeps it for ever.
#ifndef DEVALLOC_SCATTER_RESETFREEDPAGES
#define DEVALLOC_SCATTER_RESETFREEDPAGES 1
#endif
/// k_S of eq. (3) (§5.3, §8: 38183).
#ifndef DEVALLOC_SCATTER_HASH_K_SIZE
#define DEVALLOC_SCATTER_HASH_K_SIZE 38183
#endif
/// k_mp of eq. (3) (§5.3, §8: 17497).
#ifndef DEVALLOC_SCATTER_HASH_K_MP
#define DEVALLOC_SCATTER_HASH_K_MP 17497
#endif
/// Directory slots per size class (see ScatterConfig::class_slots).
#ifndef DEVALLOC_SCATTER_CLASS_SLOTS
#define DEVALLOC_SCATTER_CLASS_SLOTS 2048
#endif
/// Re-reads of a directory page that another warp has just installed and is opening, before the
/// request replaces it (see ScatterConfig::open_wait_reads).
/// Directory slots of whole-warp groups of one size (see ScatterConfig::warp_slots).
#ifndef DEVALLOC_SCATTER_WARP_SLOTS
#define DEVALLOC_SCATTER_WARP_SLOTS 8192
#endif
#ifndef DEVALLOC_SCATTER_OPEN_WAIT_READS
#define DEVALLOC_SCATTER_OPEN_WAIT_READS 8
#endif
/// Most pages a span of chunks covers (see ScatterConfig::span_pages; 1: no spans).
#ifndef DEVALLOC_SCATTER_SPAN_PAGES
#define DEVALLOC_SCATTER_SPAN_PAGES 1
#endif
/// Bytes of a unit of the free map when requests above runs_above are runs of units (see
/// ScatterConfig::run_unit; 0: no runs, a free map of pages).
#ifndef DEVALLOC_SCATTER_RUN_UNIT
#define DEVALLOC_SCATTER_RUN_UNIT 0
#endif
/// Requests above this many bytes are runs of units when run_unit is not 0 (see ScatterConfig::runs_above).
#ifndef DEVALLOC_SCATTER_RUNS_ABOVE
#define DEVALLOC_SCATTER_RUNS_ABOVE 512
#endif

DEVALLOC_NAMESPACE_BEGIN
namespace creation {

/// Scatter's configuration (the thesis' "HeapProperties") with every setting a template argument.
/// Use ScatterConfig (the defaults, which -DDEVALLOC_SCATTER_<NAME>=<value> change) and derive
/// from it to override members in code. Because the defaults are template arguments, two
/// translation units built with different -DDEVALLOC_SCATTER_* values get different types (and
/// symbols), never two definitions of one.
template <std::uint32_t PageSize, unsigned long long AccessBlockSize, std::uint32_t RegionSize,
          std::uint32_t WasteFactor, bool ResetFreedPages, std::uint32_t HashKSize, std::uint32_t HashKMp,
          std::uint32_t ClassSlots, std::uint32_t WarpSlots, std::uint32_t OpenWaitReads, std::uint32_t SpanPages,
          std::uint32_t RunUnit = 0, std::uint32_t RunsAbove = 512>
struct basic_scatter_config {
  /// Bytes per page. Requests up to this size share pages; larger ones take consecutive pages.
  static constexpr std::uint32_t pagesize = PageSize;
  /// Bytes per super block ("access block", §5.1): the unit of the fallback walk (docs/scatter.md,
  /// Search, step 3). Larger than the heap: one super block (the default).
  static constexpr unsigned long long accessblocksize = AccessBlockSize;
  /// Pages per region (§5.4: the unit of the 90 % fill check of the fallback walk).
  static constexpr std::uint32_t regionsize = RegionSize;
  /// A request may use a chunk up to this factor larger than itself; a page opened for a request
  /// of S bytes gets its size class (the largest chunk size with as many chunks per page as S, a
  /// multiple of S's alignment, at most S x wastefactor).
  static constexpr std::uint32_t wastefactor = WasteFactor;
  /// Reset the chunk size of fully freed pages and return them to the free-page map (needed for
  /// exact refills with other sizes).
  static constexpr bool resetfreedpages = ResetFreedPages;
  /// Hash factors of eq. (3): where a request starts looking for a free page (and where the
  /// fallback walk starts): S k_S + mp k_mp.
  static constexpr std::uint32_t hash_k_size = HashKSize;
  static constexpr std::uint32_t hash_k_mp = HashKMp;
  /// Directory slots per size class (not in the paper; docs/scatter.md, Search): a warp's
  /// small groups of one class use the slot of their multiprocessor quarter, groups of 8 or
  /// more lanes, and every group of a class of fewer than 8 chunks a page, the slot of their warp
  /// sixteenth ((16 mp + warp mod 16) mod slots; search.hpp, fine_keyed). Fewer slots:
  /// fewer pages open per class (a heap of P pages uses at most P / 128); more: fewer warps on
  /// each page's fill counter.
  static constexpr std::uint32_t class_slots = ClassSlots;
  /// Directory slots of groups of 8 or more lanes of one class (a warp asking for one size),
  /// shared by all classes: the slot of the warp's index (mod slots), so that each resident warp
  /// fills a page of its own rather than queueing with others on a slot's fill counter. A heap of
  /// P pages uses at most P / 8. 0: such groups use their class' slots (one per warp sixteenth).
  static constexpr std::uint32_t warp_slots = WarpSlots;
  /// Re-reads (with a short sleep) of a directory page that another warp has installed but not
  /// yet opened, before the request installs a page of its own.
  static constexpr std::uint32_t open_wait_reads = OpenWaitReads;
  /// Most pages (1..8) that one span of chunks covers: a chunk size of more than half a
  /// page is laid out over the span of up to span_pages pages that holds the most chunks per page
  /// (2720 B: 3 chunks in 2 pages; 3072 B: 4 in 3), and a request's size class is the smallest
  /// such chunk. 1 (the default): every chunk lies in one page (a 2049-byte request takes a
  /// whole page). 4: sizes uniform in 16-4096 B need 1.10 instead of 1.29 times their sum (computed
  /// from the classes); measured, the 80 % fill of them failed 4x fewer requests, at half
  /// the allocation rate for such sizes (docs/scatter.md, Configuration).
  static constexpr std::uint32_t span_pages = SpanPages;
  /// Bytes of a unit of the free map (a power of two, 16 to pagesize / 2; 0, the default: the map
  /// has a bit a page). Not 0: a page is an aligned group of pagesize / run_unit units of one map,
  /// and every request above runs_above bytes is a run of ceil(bytes / run_unit) units anywhere in
  /// it (detail::unit_runs: a start and an end bit a unit), so that large and mixed sizes round up
  /// to a unit, not to a page's share, and strand no part-filled pages: the two-granularity heap of
  /// docs/notes/two-granularity-heap.md (step 2; a model of the one-shot fill of sizes uniform in
  /// 16-4096 B, tools/heap-layout-sim.cpp: 4 KiB pages up to 512 B and runs of 256 B above fail none
  /// at 80 %, 0-5 % at 90 % by the class slots, where pages alone fail 8.6 / 17 %). Needs span_pages 1.
  static constexpr std::uint32_t run_unit = RunUnit;
  /// Requests above this many bytes are runs when run_unit is not 0 (at least run_unit, at most
  /// pagesize); those up to it take chunks of pages as before.
  static constexpr std::uint32_t runs_above = RunsAbove;
};

/// The default configuration (build-time overridable through the DEVALLOC_SCATTER_* macros above).
using ScatterConfig =
  basic_scatter_config<DEVALLOC_SCATTER_PAGESIZE, DEVALLOC_SCATTER_ACCESSBLOCKSIZE, DEVALLOC_SCATTER_REGIONSIZE,
                       DEVALLOC_SCATTER_WASTEFACTOR, (DEVALLOC_SCATTER_RESETFREEDPAGES != 0),
                       DEVALLOC_SCATTER_HASH_K_SIZE, DEVALLOC_SCATTER_HASH_K_MP, DEVALLOC_SCATTER_CLASS_SLOTS,
                       DEVALLOC_SCATTER_WARP_SLOTS, DEVALLOC_SCATTER_OPEN_WAIT_READS, DEVALLOC_SCATTER_SPAN_PAGES,
                       DEVALLOC_SCATTER_RUN_UNIT, DEVALLOC_SCATTER_RUNS_ABOVE>;

template <class Config = ScatterConfig>
class Scatter : public scatter_detail::search<Config> {
  using base = scatter_detail::search<Config>;
  using page_format = detail::bitfield_page<Config::pagesize, Config::span_pages>;

 public:
  using config = Config;

  // The configuration's values (basic_scatter_config documents them), as the layers that read
  // them hold them: heap.hpp (page and block sizes), fill.hpp (page reset), search.hpp (the rest).
  using base::accessblocksize;
  using base::class_slots;
  using base::directory_classes;
  using base::directory_words;
  using base::open_wait_reads;
  using base::pagesize;
  using base::regionsize;
  using base::resetfreedpages;
  using base::run_unit;
  using base::span_pages;
  using base::warp_slots;
  using base::wastefactor;

  static_assert(pagesize >= 256 && pagesize % 256 == 0 && pagesize <= (1u << 30),
                "Scatter: pagesize must be a multiple of 256 between 256 and 2^30 bytes; change Config::pagesize "
                "or -DDEVALLOC_SCATTER_PAGESIZE");
  static_assert(accessblocksize >= 1,
                "Scatter: accessblocksize must be at least 1 byte (it is rounded up to one page)");
  static_assert(regionsize >= 1 && regionsize <= (1u << 20),
                "Scatter: regionsize must be between 1 and 2^20 pages; change Config::regionsize or "
                "-DDEVALLOC_SCATTER_REGIONSIZE");
  static_assert(wastefactor >= 1 && wastefactor <= 1024,
                "Scatter: wastefactor must be between 1 and 1024; change Config::wastefactor or "
                "-DDEVALLOC_SCATTER_WASTEFACTOR");
  static_assert(warp_slots <= (1u << 20),
                "Scatter: warp_slots must be at most 2^20; change Config::warp_slots or -DDEVALLOC_SCATTER_WARP_SLOTS");
  static_assert(class_slots >= 1 && class_slots <= (1u << 16),
                "Scatter: class_slots must be between 1 and 65536; change Config::class_slots or "
                "-DDEVALLOC_SCATTER_CLASS_SLOTS");
  static_assert(
    span_pages >= 1 && span_pages <= 8,
    "Scatter: span_pages must be between 1 and 8; change Config::span_pages or -DDEVALLOC_SCATTER_SPAN_PAGES");
  static_assert(run_unit == 0 || ((run_unit & (run_unit - 1u)) == 0 && run_unit >= 16 && run_unit <= pagesize / 2u &&
                                  pagesize / (run_unit == 0 ? 1u : run_unit) <= 64u),
                "Scatter: run_unit must be 0 (no runs) or a power of two from 16 to pagesize / 2 with at most 64 units "
                "a page; change Config::run_unit or -DDEVALLOC_SCATTER_RUN_UNIT");
  static_assert(run_unit == 0 || (Config::runs_above >= run_unit && Config::runs_above <= pagesize),
                "Scatter: runs_above must be between run_unit and pagesize; change Config::runs_above or "
                "-DDEVALLOC_SCATTER_RUNS_ABOVE");
  static_assert(
    run_unit == 0 || span_pages == 1,
    "Scatter: runs of units (run_unit) and spans of pages (span_pages > 1) do not combine; set one of them off");
  static_assert(open_wait_reads <= 1024,
                "Scatter: open_wait_reads must be at most 1024; change Config::open_wait_reads or "
                "-DDEVALLOC_SCATTER_OPEN_WAIT_READS");

  /// Chunk sizes, page layout and page states: detail/bitfield_page.hpp.
  using page_format::hierarchy_threshold;
  using page_format::min_chunk;

  static constexpr creation_traits traits = [] {
    creation_traits t{};
    t.reuses_freed_memory = true;
    t.exact_refill = resetfreedpages;
    t.checks_ownership = true;
    t.provides_available_slots = true;
    t.natural_alignment = min_chunk;
    t.needs_pool = true;
    t.resettable = true;
    t.detects_invalid_pointers = true;
    t.detects_double_free = true;
    t.supports_shared_chunks = true;
    // With runs (run_unit), getAvailableSlots above runs_above counts the runs that fit the free
    // stretches; a run placed at its hashed start splits a stretch, so a fill may get one fewer.
    t.exact_available_slots = run_unit == 0;
    return t;
  }();

  /// How a page is split for one chunk size (page_layout, layout_of, flat_spots, has_spot):
  /// detail/bitfield_page.hpp.
  using page_format::flat_spots;
  using page_format::has_spot;
  using page_format::layout_of;
  using typename page_format::page_layout;

  /// Chunk size of a page opened for a request (size classes): creation/scatter/search.hpp.
  using base::class_of;

  /// The pool's layout (max_pages, geometry, plan(), min_pool_bytes): creation/scatter/heap.hpp.
  using base::min_pool_bytes;
  using base::plan;
  using typename base::geometry;

  Scatter() = default;

  // ---------------------------------------------------------------------------------------------
  // Host interface

  /// Host. Sets up the heap in `pool` (thesis initHeap): plans the layout, zeroes all metadata in
  /// stream order on `stream`. Throws devalloc::error if the pool cannot hold one page and its
  /// metadata.
  static Scatter init_heap(pool_span pool, stream_ref stream)
  {
    if (pool.data == nullptr) { detail::throw_error("Scatter: the pool is empty (no memory was reserved)"); }
    const geometry g = plan(reinterpret_cast<std::uintptr_t>(pool.data), pool.bytes);
    if (g.pages == 0) {
      detail::throw_error("Scatter: a heap of " + std::to_string(pool.bytes) + " bytes cannot hold one page of " +
                          std::to_string(pagesize) + " bytes plus metadata; use a heap of at least " +
                          std::to_string(min_pool_bytes) +
                          " bytes or a smaller pagesize (Config::pagesize / "
                          "-DDEVALLOC_SCATTER_PAGESIZE)");
    }
    char* base = static_cast<char*>(pool.data);
    Scatter heap;
    heap.active_block_ = reinterpret_cast<std::uint32_t*>(base + g.meta_offset);
    heap.states_ = reinterpret_cast<std::uint64_t*>(base + g.states_offset);
    heap.bitmasks_ = reinterpret_cast<std::uint32_t*>(base + g.bitmasks_offset);
    heap.regions_ = reinterpret_cast<std::uint32_t*>(base + g.regions_offset);
    heap.free_map_ = page_map(reinterpret_cast<std::uint64_t*>(base + g.free_map_offset), g.pages);
    if constexpr (run_unit != 0) {
      auto* bounds = reinterpret_cast<std::uint64_t*>(base + g.run_bounds_offset);
      heap.runs_ = detail::unit_runs(heap.free_map_.units(), bounds, bounds + page_map::words_for(g.pages));
    }
    heap.rooms_ = reinterpret_cast<std::uint32_t*>(base + g.rooms_offset);
    heap.directory_ = reinterpret_cast<std::uint32_t*>(base + g.directory_offset);
    heap.slots_ = g.slots;
    heap.warp_slots_ = g.warp_slots;
    heap.data_ = base + g.data_offset;
    heap.data_end_ = heap.data_ + static_cast<std::size_t>(g.pages) * pagesize;
    heap.meta_bytes_ = g.meta_bytes;
    heap.set_geometry(g.pages, g.pages_per_block, g.blocks, g.region_pages, g.regions);
    heap.finalize_heap(stream);
    return heap;
  }

  /// Host. Frees every allocation (thesis finalizeHeap; Allocator::reset()): zeroes the page
  /// states, bitfields, region counters and the active super block, in stream order on `stream`.
  /// In-page bitfields are rewritten when a page is next claimed. No kernel may be running on the
  /// heap, in any stream, when the stream reaches this point.
  void finalize_heap(stream_ref stream)
  {
    if (active_block_ != nullptr) { detail::backend::fill(active_block_, 0, meta_bytes_, stream); }
  }

  /// Host. All structures live in the pool: nothing to release.
  void release(stream_ref) noexcept {}

  /// Host. "Scatter<...>" with every configuration parameter (thesis info()).
  static std::string classname()
  {
    const std::string block = accessblocksize == ~0ull ? "heap" : std::to_string(accessblocksize);
    return "Scatter<pagesize=" + std::to_string(pagesize) + ", accessblocksize=" + block +
           ", regionsize=" + std::to_string(regionsize) + ", wastefactor=" + std::to_string(wastefactor) +
           ", resetfreedpages=" + std::to_string(resetfreedpages ? 1 : 0) +
           ", k_S=" + std::to_string(Config::hash_k_size) + ", k_mp=" + std::to_string(Config::hash_k_mp) +
           ", class_slots=" + std::to_string(class_slots) + ", warp_slots=" + std::to_string(warp_slots) +
           ", open_wait_reads=" + std::to_string(open_wait_reads) + ", span_pages=" + std::to_string(span_pages) +
           (run_unit == 0
              ? std::string()
              : ", run_unit=" + std::to_string(run_unit) + ", runs_above=" + std::to_string(Config::runs_above)) +
           ">";
  }

  // Geometry of this heap (host and device; valid after init_heap).
  DEVALLOC_HOST_DEVICE std::uint32_t page_count() const noexcept { return pages_; }
  DEVALLOC_HOST_DEVICE std::uint32_t pages_per_block() const noexcept { return pages_per_block_; }
  DEVALLOC_HOST_DEVICE std::uint32_t block_count() const noexcept { return blocks_; }
  DEVALLOC_HOST_DEVICE std::uint32_t region_pages() const noexcept { return region_pages_; }
  DEVALLOC_HOST_DEVICE std::uint32_t region_count() const noexcept { return regions_count_; }
  /// Bytes of the page area: the largest request that can succeed.
  DEVALLOC_HOST_DEVICE std::size_t data_bytes() const noexcept { return static_cast<std::size_t>(data_end_ - data_); }
  DEVALLOC_HOST_DEVICE const char* data_begin() const noexcept { return data_; }

  /// True iff `p` points into the page area (foreign pointers are then reported by the host
  /// class instead of being freed).
  DEVALLOC_HOST_DEVICE bool owns(const void* p) const noexcept
  {
    const char* c = static_cast<const char*>(p);
    return c >= data_ && c < data_end_;
  }

  /// Host. Slots of `slot_bytes` that could still be allocated (thesis §4.3.5 getAvailableSlots,
  /// host variant): copies the page states and counts like the device variant. No kernel may
  /// change the heap meanwhile.
  std::size_t available_slots_host(std::size_t slot_bytes, stream_ref stream) const
  {
    if (slot_bytes == 0 || pages_ == 0) { return 0; }
    std::vector<std::uint64_t> states(pages_);
    detail::backend::copy_to_host(states.data(), states_, states.size() * sizeof(std::uint64_t), stream);
    // The map only where runs share it with pages (count_free_chunks reads it only then).
    std::vector<std::uint64_t> map_words(run_unit == 0 ? 0u : free_map_.word_count());
    if constexpr (run_unit != 0) {
      detail::backend::copy_to_host(map_words.data(), free_map_.words(), map_words.size() * sizeof(std::uint64_t),
                                    stream);
    }
    if constexpr (run_unit != 0) {
      if (slot_bytes > Config::runs_above) {
        detail::free_stretch_counter counter{(static_cast<std::uint64_t>(slot_bytes) + run_unit - 1u) / run_unit};
        for (std::uint32_t w = 0; w < free_map_.word_count(); ++w) {
          counter.add_word(map_words[w], free_map_.valid(w));
        }
        return static_cast<std::size_t>(counter.finish());
      }
    }
    if (slot_bytes > pagesize) {
      const std::uint64_t need = pages_needed(slot_bytes);
      if (need > pages_) { return 0; }
      const run_summary r = summarize_runs(states.data(), 0, pages_, need);
      return static_cast<std::size_t>(r.all_free ? r.head / need : r.head / need + r.inner + r.tail / need);
    }
    return static_cast<std::size_t>(count_free_chunks(states.data(), map_words.data(), 0, 1, round_size(slot_bytes)));
  }

  /// One page's usage table entry, as read by page_host().
  struct page_view {
    std::uint32_t chunk = 0;  ///< 0 free, 1..pagesize chunk size, large_chunk part of a multi-page chunk
    std::uint32_t count = 0;  ///< fill count (large pages: the lock value)
    std::uint32_t bits = 0;   ///< usage bitfield / segment-full hints / page count of a multi-page chunk
  };

  /// Host. The usage table entry of page `page` (for tests and debugging).
  page_view page_host(std::uint32_t page) const
  {
    std::uint64_t state = 0;
    std::uint32_t bits = 0;
    detail::backend::copy_to_host(&state, states_ + page, sizeof(state));
    detail::backend::copy_to_host(&bits, bitmasks_ + page, sizeof(bits));
    return {chunk_of(state), count_of(state), bits};
  }

  /// Host. Every page's usage table entry (one copy of the tables; for tests and diagnostics).
  std::vector<page_view> pages_host() const
  {
    std::vector<std::uint64_t> states(pages_);
    std::vector<std::uint32_t> bits(pages_);
    detail::backend::copy_to_host(states.data(), states_, states.size() * sizeof(std::uint64_t));
    detail::backend::copy_to_host(bits.data(), bitmasks_, bits.size() * sizeof(std::uint32_t));
    std::vector<page_view> out(pages_);
    for (std::uint32_t p = 0; p < pages_; ++p) { out[p] = {chunk_of(states[p]), count_of(states[p]), bits[p]}; }
    return out;
  }

  /// Which kind of class directory entry names a page (directory_holders_host).
  enum class holder : std::uint8_t {
    none = 0,        ///< no entry: a page with room here is found only by the walk
    class_slot = 1,  ///< a slot of its class' row (small groups)
    warp_slot = 2,   ///< a whole-warp slot
    class_page = 3,  ///< its class' class page (takes precedence when several name it)
  };

  /// Host. For every page, the kind of class directory entry that names it (a snapshot; for tests
  /// and diagnostics: room in pages that no entry names is what a tight heap runs out of,
  /// docs/scatter.md, "One path per warp, and no room outside the directory"). No kernel may
  /// change the heap meanwhile.
  std::vector<holder> directory_holders_host() const
  {
    const std::vector<std::uint32_t> directory = directory_host();
    const std::size_t class_rows = std::size_t{directory_classes} * slots_;
    std::vector<holder> out(pages_, holder::none);
    for (std::size_t w = 0; w < class_rows + warp_slots_ + directory_classes && w < directory.size(); ++w) {
      if (directory[w] == 0 || directory[w] > pages_) { continue; }
      const holder kind = w < class_rows                 ? holder::class_slot
                          : w < class_rows + warp_slots_ ? holder::warp_slot
                                                         : holder::class_page;
      holder& h = out[directory[w] - 1u];
      if (static_cast<std::uint8_t>(kind) > static_cast<std::uint8_t>(h)) { h = kind; }
    }
    return out;
  }

  /// Host. The active super block (where allocations start searching).
  std::uint32_t active_block_host() const
  {
    std::uint32_t active = 0;
    detail::backend::copy_to_host(&active, active_block_, sizeof(active));
    return active;
  }

  /// Host and device. Index of the page holding `p` (p must satisfy owns()).
  DEVALLOC_HOST_DEVICE std::uint32_t page_of(const void* p) const noexcept
  {
    return static_cast<std::uint32_t>(static_cast<std::size_t>(static_cast<const char*>(p) - data_) / pagesize);
  }

  /// Host. Checks every invariant of docs/scatter.md that must hold while no kernel runs on the
  /// heap. Returns "" when all hold, else a description of the first violations found.
  std::string check_invariants_host() const
  {
    std::vector<std::uint64_t> states(pages_);
    std::vector<std::uint32_t> bits(pages_);
    std::vector<std::uint32_t> regions(regions_count_);
    std::uint32_t active = 0;
    detail::backend::copy_to_host(states.data(), states_, states.size() * sizeof(std::uint64_t));
    detail::backend::copy_to_host(bits.data(), bitmasks_, bits.size() * sizeof(std::uint32_t));
    detail::backend::copy_to_host(regions.data(), regions_, regions.size() * sizeof(std::uint32_t));
    detail::backend::copy_to_host(&active, active_block_, sizeof(active));
    std::string errors;
    int reported = 0;
    auto fail = [&](const std::string& what) {
      if (reported++ < 8) { errors += what + "\n"; }
    };
    if (active >= blocks_) { fail("active super block " + std::to_string(active) + " >= " + std::to_string(blocks_)); }
    std::vector<std::uint32_t> full_pages(regions_count_, 0);
    std::vector<std::uint64_t> free_words(free_map_.word_count());
    detail::backend::copy_to_host(free_words.data(), free_map_.words(), free_words.size() * sizeof(std::uint64_t));
    for (std::uint32_t page = 0; page < pages_; ++page) {
      // F1: a page is taken in the free-page map iff its state is not 0 (with runs: all of its
      // units are taken if its state is not 0, and the units of a page of state 0 that are taken
      // belong to runs, R2 below).
      const std::uint64_t units = free_words[page * units_per_page / 64u] >> (page * units_per_page % 64u);
      const std::uint64_t page_bits =
        units_per_page == 64u ? ~std::uint64_t{0} : (std::uint64_t{1} << units_per_page) - 1u;
      const bool all = (units & page_bits) == page_bits;
      const bool taken = (units & page_bits) != 0;
      if (states[page] != 0 && !all) {
        fail("page " + std::to_string(page) + ": in use but free in the free-page map");
      }
      if (states[page] == 0 && taken && run_unit == 0) {
        fail("page " + std::to_string(page) + ": taken in the free-page map but free");
      }
    }
    if constexpr (run_unit != 0) {
      // R2: the runs' bounds. Each start bit opens a run that the next end bit closes, with no
      // start between them; a run's units are taken and lie in pages of state 0; outside runs no
      // end bit is set, and the taken units of a page of state 0 are a run's.
      const std::uint32_t units = runs_.map().units();
      std::vector<std::uint64_t> starts(free_map_.word_count()), ends(free_map_.word_count());
      detail::backend::copy_to_host(starts.data(), runs_.starts(), starts.size() * sizeof(std::uint64_t));
      detail::backend::copy_to_host(ends.data(), runs_.ends(), ends.size() * sizeof(std::uint64_t));
      bool open = false;
      for (std::uint32_t u = 0; u < units; ++u) {
        const bool start = detail::page_bitmap::taken_in(starts.data(), u);
        const bool end = detail::page_bitmap::taken_in(ends.data(), u);
        const bool taken = detail::page_bitmap::taken_in(free_words.data(), u);
        const std::string where = "unit " + std::to_string(u) + ": ";
        if (start) {
          if (open) { fail(where + "a run starts inside a run"); }
          open = true;
        }
        if (open) {
          if (!taken) { fail(where + "a run's unit is free in the map"); }
          if (states[u / units_per_page] != 0) { fail(where + "a run's unit in a class page"); }
        } else {
          if (end) { fail(where + "a run's end without its start"); }
          if (taken && states[u / units_per_page] == 0) { fail(where + "taken on a free page, in no run"); }
        }
        if (end) { open = false; }
      }
      if (open) { fail("a run without its end"); }
      for (std::uint32_t w = 0; w < free_map_.word_count(); ++w) {
        if (((starts[w] | ends[w]) & ~free_map_.valid(w)) != 0) { fail("run bounds: bits beyond the last unit"); }
      }
    }
    for (std::uint32_t w = 0; w < free_map_.word_count(); ++w) {
      if ((free_words[w] & ~free_map_.valid(w)) != 0) { fail("free-page map: bits beyond the last page"); }
    }
    {
      const std::vector<std::uint32_t> directory = directory_host();
      for (const std::uint32_t entry : directory) {
        if (entry > pages_) { fail("class directory: entry " + std::to_string(entry) + " beyond the pages"); }
      }
    }
    {
      // R1: per room counter (counted chunk count m of a page, or of a span), the stripes sum to
      // the pages (spans) of m chunks with room (fill.hpp, room_key, room_add).
      std::vector<std::uint32_t> rooms(room_words);
      detail::backend::copy_to_host(rooms.data(), rooms_, rooms.size() * sizeof(std::uint32_t));
      std::vector<std::uint32_t> with_room(room_stride, 0);
      for (std::uint32_t page = 0; page < pages_; ++page) {
        const std::uint32_t chunk = chunk_of(states[page]);
        if (chunk == 0 || chunk > pagesize || chunk % min_chunk != 0) { continue; }
        const page_layout layout = layout_of(chunk);
        const std::uint32_t key = room_key(layout.spans(), layout.spots);
        if (key != room_none && count_of(states[page]) < layout.spots) { ++with_room[key]; }
      }
      for (std::uint32_t key = 0; key < room_stride; ++key) {
        std::uint32_t sum = 0;
        for (std::uint32_t stripe = 0; stripe < room_stripes; ++stripe) { sum += rooms[stripe * room_stride + key]; }
        if (sum != with_room[key]) {
          const bool span = key >= room_max_spots;
          const std::uint32_t m = span ? key - room_max_spots + 2u : key + 1u;
          fail("room counters: " + std::to_string(static_cast<std::int32_t>(sum)) +
               (span ? " spans of " : " pages of ") + std::to_string(m) + " chunks with room counted, " +
               std::to_string(with_room[key]) + " have room");
        }
      }
    }
    for (std::uint32_t page = 0; page < pages_; ++page) {
      const std::uint32_t chunk = chunk_of(states[page]);
      const std::uint32_t count = count_of(states[page]);
      const std::string where = "page " + std::to_string(page) + ": ";
      if (chunk == 0) {
        if (count != 0) { fail(where + "free page with fill count " + std::to_string(count)); }
        if (bits[page] != 0) { fail(where + "free page with bitfield " + std::to_string(bits[page])); }
        continue;
      }
      if (chunk == large_chunk) {
        const std::uint32_t run = bits[page];
        if ((run & span_tail) != 0) {
          fail(where + "a span's page (" + std::to_string(run & ~span_tail) +
               " after its first) without its first page");
          continue;
        }
        if (run == 0 || run > pages_ - page) {
          fail(where + "multi-page chunk with page count " + std::to_string(run));
          continue;
        }
        for (std::uint32_t k = 0; k < run; ++k) {
          if (states[page + k] != large_state) {
            fail(where + "multi-page chunk: page +" + std::to_string(k) + " not reserved");
          }
          if (k != 0 && bits[page + k] != 0) { fail(where + "multi-page chunk: inner page with a page count"); }
          ++full_pages[(page + k) / region_pages_];
        }
        page += run - 1;
        continue;
      }
      if (chunk > pagesize || chunk % min_chunk != 0) {
        fail(where + "invalid chunk size " + std::to_string(chunk));
        continue;
      }
      const page_layout layout = layout_of(chunk);
      if (count > layout.spots) {
        fail(where + "fill count " + std::to_string(count) + " > " + std::to_string(layout.spots) + " chunks");
        continue;
      }
      if (count == 0 && resetfreedpages) {
        fail(where + "stale chunk size " + std::to_string(chunk) + " on an empty page");
      }
      if (count == layout.spots) { ++full_pages[page / region_pages_]; }
      if (layout.span > 1u) {
        // A span: its other pages are marked (large_state, span_tail | distance); the region
        // counters count its first page only.
        if (page % layout.span != 0 || layout.span > pages_ - page) {
          fail(where + "span of " + std::to_string(layout.span) + " pages not at an aligned group");
        }
        for (std::uint32_t d = 1; d < layout.span && page + d < pages_; ++d) {
          if (states[page + d] != large_state || bits[page + d] != (span_tail | d)) {
            fail(where + "span: page +" + std::to_string(d) + " not marked as the span's");
          }
        }
      }
      if (!layout.hierarchical) {
        if ((bits[page] & ~detail::low_bits(layout.spots)) != 0) { fail(where + "bits set beyond the chunk count"); }
        if (detail::popcount(bits[page]) != count) {
          fail(where + "fill count " + std::to_string(count) + " but " + std::to_string(detail::popcount(bits[page])) +
               " bits set");
        }
        if (layout.span > 1u && layout.span <= pages_ - page) { page += layout.span - 1u; }
        continue;
      }
      const std::uint32_t segments = layout.segments();
      std::vector<std::uint32_t> words(segments);
      for (std::uint32_t s = 0; s < segments; ++s) {
        detail::backend::copy_to_host(&words[s], &segment_word(page_data(page), s), sizeof(std::uint32_t));
      }
      std::uint32_t used = 0;
      for (std::uint32_t s = 0; s < segments; ++s) {
        const std::uint32_t range = detail::low_bits(layout.segment_spots(s));
        if ((words[s] & ~range) != 0) { fail(where + "segment " + std::to_string(s) + ": bits beyond its chunks"); }
        used += detail::popcount(words[s] & range);
        if (((bits[page] >> s) & 1u) != 0 && (words[s] & range) != range) {
          fail(where + "segment " + std::to_string(s) + " marked full but is not");
        }
      }
      if ((bits[page] & ~detail::low_bits(segments)) != 0) { fail(where + "full marks beyond the segment count"); }
      if (used != count) {
        fail(where + "fill count " + std::to_string(count) + " but " + std::to_string(used) + " in-page bits set");
      }
    }
    for (std::uint32_t r = 0; r < regions_count_; ++r) {
      if (regions[r] != full_pages[r]) {
        fail("region " + std::to_string(r) + ": counter " + std::to_string(regions[r]) + " but " +
             std::to_string(full_pages[r]) + " full pages");
      }
    }
    if (reported > 8) { errors += "... " + std::to_string(reported - 8) + " more\n"; }
    return errors;
  }

  // ---------------------------------------------------------------------------------------------
  // Device interface

  /// Device. Thread safe; any subset of a warp may call. Returns a chunk of at least `bytes`
  /// bytes, aligned to 16 and to the largest power of two (<= 256) dividing round16(bytes), or
  /// nullptr when no chunk could be found (heap full for this size, or bytes > data_bytes()).
  /// Never blocks on another worker: every loop either makes progress or moves on.
  DEVALLOC_DEVICE void* create(std::size_t bytes) const noexcept
  {
    if (bytes == 0 || pages_ == 0) { return nullptr; }
    if constexpr (run_unit != 0) {
      if (bytes > Config::runs_above) { return alloc_run(bytes); }
    } else {
      if (bytes > pagesize) { return alloc_pages(bytes); }
    }
    return alloc_chunk(round_size(bytes));
  }

  /// Device. Returns a chunk from create() to the heap (ScatterAlloc §6.2, §6.3). Thread safe like
  /// create(). Classifies every other pointer without changing the heap (docs/scatter.md, "Free"):
  ///   freed            p is the start of a live chunk: its bit is cleared and its reservation given
  ///                    back (a multi-page chunk: its pages are released).
  ///   invalid_pointer  p is outside the page area, inside a chunk, in a page's tail or in-page
  ///                    bitfields, not 16-aligned on a free page, or on a non-first page of a
  ///                    multi-page chunk.
  ///   double_free      p is where a chunk starts but nothing is live there: its bit is clear, its
  ///                    page holds no chunk (the page was reset), or the multi-page chunk it
  ///                    started was released.
  /// Undetectable: a second free after the memory was handed out again frees the new owner's chunk
  /// if it starts at the same address (the usage table cannot tell the two apart). Scatter knows
  /// nothing of distribution policies: chunks shared by distribution::XMallocSIMD are freed through
  /// XMallocSIMD::deallocate, which calls destroy() with the chunk start once.
  DEVALLOC_DEVICE free_result destroy(void* p) const noexcept
  {
    if (!owns(p)) { return free_result::invalid_pointer; }
    const std::size_t offset = static_cast<std::size_t>(static_cast<char*>(p) - data_);
    auto page = static_cast<std::uint32_t>(offset / pagesize);
    auto in_page = static_cast<std::uint32_t>(offset - static_cast<std::size_t>(page) * pagesize);
    std::uint64_t seen = load_state(states_, page);
    std::uint32_t chunk = chunk_of(seen);
    if (chunk == large_chunk) {
      // Another page of a span: the chunk is its first page's (in_page then counts from there).
      if (!span_first(page, in_page)) { return in_page == 0 ? free_pages(page) : free_result::invalid_pointer; }
      seen = load_state(states_, page);
      chunk = chunk_of(seen);
    }
    if (chunk == 0) {
      if constexpr (run_unit != 0) {
        // Not a class page: a run starts here (its start bit claims the free), or p is inside a
        // run, or on a page being opened (units taken), or on free units.
        const auto unit = static_cast<std::uint32_t>(offset / run_unit);
        if (offset % run_unit == 0) { return runs_.give_back(unit); }
        if (runs_.map().taken(unit)) { return free_result::invalid_pointer; }
      }
      // A free page: any 16-aligned offset may have been a chunk start before the page was reset.
      return in_page % min_chunk == 0 ? free_result::double_free : free_result::invalid_pointer;
    }
    if (chunk > pagesize) { return free_result::invalid_pointer; }  // never a chunk size (C1)
    const page_layout layout = layout_of(chunk);
    const std::uint32_t index = in_page / chunk;
    if (index >= layout.spots || in_page != index * chunk) {
      return free_result::invalid_pointer;  // inside a chunk, the page's (span's) tail or its in-page bitfields
    }
    // A live chunk holds a reservation, so its page's count is in [1, LOCK): a count of 0 (a page
    // that kept its size) or >= LOCK (a page being opened) has no live chunk, and its in-page
    // segment words may not be initialised yet: leave them alone.
    const std::uint32_t count = count_of(seen);
    if (count == 0 || count >= lock_count) { return free_result::double_free; }
    bool offer = false;
    const bool freed = free_chunk(page, chunk, layout, index, offer);
    // The page was full and keeps live chunks: offer its room to the class directory.
    if (offer) { offer_page(page, chunk, layout.spots); }
    if (!freed) { return free_result::double_free; }
    if (blocks_ > 1) { maybe_reactivate(page, p); }
    return free_result::freed;
  }

  /// Device. The start of the live chunk that contains `p` (p itself if it is a chunk start), or
  /// nullptr if p is not inside a live chunk (traits.supports_shared_chunks: distribution policies
  /// that share chunks find their header with it). A relaxed snapshot of the usage table: exact
  /// while the chunk containing p stays live (its owner is the caller), a hint otherwise.
  DEVALLOC_DEVICE void* chunk_start(const void* p) const noexcept
  {
    if (!owns(p)) { return nullptr; }
    const std::size_t offset = static_cast<std::size_t>(static_cast<const char*>(p) - data_);
    auto page = static_cast<std::uint32_t>(offset / pagesize);
    auto in_page = static_cast<std::uint32_t>(offset - static_cast<std::size_t>(page) * pagesize);
    std::uint64_t seen = load_state(states_, page);
    std::uint32_t chunk = chunk_of(seen);
    if (chunk == large_chunk && span_first(page, in_page)) {
      seen = load_state(states_, page);
      chunk = chunk_of(seen);
    }
    if (chunk == large_chunk) {
      // The first page of a multi-page chunk holds its page count; the inner pages hold 0.
      for (std::uint32_t first = page;; --first) {
        const std::uint32_t need = detail::atomic_load_relaxed(bitmasks_[first]);
        if (need != 0) { return static_cast<std::uint64_t>(first) + need > page ? page_data(first) : nullptr; }
        if (first == 0 || chunk_of(load_state(states_, first - 1u)) != large_chunk) { return nullptr; }
      }
    }
    if constexpr (run_unit != 0) {
      if (chunk == 0) {
        const std::uint32_t first = runs_.run_containing(static_cast<std::uint32_t>(offset / run_unit));
        return first == detail::unit_runs::none ? nullptr : data_ + static_cast<std::size_t>(first) * run_unit;
      }
    }
    const std::uint32_t count = count_of(seen);
    if (chunk == 0 || chunk > pagesize || count == 0 || count >= lock_count) { return nullptr; }
    const page_layout layout = layout_of(chunk);
    const std::uint32_t index = in_page / chunk;
    if (index >= layout.spots) { return nullptr; }
    char* base = page_data(page);
    const std::uint32_t word = layout.hierarchical ? detail::atomic_load_relaxed(segment_word(base, index / 32u))
                                                   : detail::atomic_load_relaxed(bitmasks_[page]);
    if (((word >> (index % 32u)) & 1u) == 0) { return nullptr; }
    return base + static_cast<std::size_t>(index) * chunk;
  }

  /// Device. A request failed iff it asked for bytes and got nullptr (thesis §4.3.5 isOOM).
  DEVALLOC_DEVICE bool is_oom(const void* p, std::size_t bytes) const noexcept { return bytes != 0 && p == nullptr; }

  /// Device. Slots of `slot_bytes` that could still be allocated (thesis §4.3.5): above a page,
  /// runs of free pages; otherwise, per page, free chunks on pages whose chunk size a request of
  /// this size would use plus whole free pages. The lanes of the calling warp that ask for the
  /// same size share the work (match_any + shuffles, so any subset of a warp may call). Exact only
  /// while the heap does not change.
  DEVALLOC_DEVICE std::size_t available_slots(std::size_t slot_bytes) const noexcept
  {
    if (slot_bytes == 0 || pages_ == 0) { return 0; }
    const std::uint32_t group = detail::match_any(detail::active_mask(), static_cast<unsigned long long>(slot_bytes));
    const std::uint32_t rank = detail::rank_in(group);
    const std::uint32_t lanes = detail::popcount(group);
    if constexpr (run_unit != 0) {
      if (slot_bytes > Config::runs_above) {
        // Runs of units: the free stretches of the unit map, read by the group's lowest lane.
        unsigned long long runs = 0;
        if (rank == 0) {
          const detail::page_bitmap& map = runs_.map();
          detail::free_stretch_counter counter{(static_cast<std::uint64_t>(slot_bytes) + run_unit - 1u) / run_unit};
          for (std::uint32_t w = 0; w < map.word_count(); ++w) {
            counter.add_word(detail::atomic_load_relaxed(map.words()[w]), map.valid(w));
          }
          runs = counter.finish();
        }
        return static_cast<std::size_t>(detail::shuffle(group, runs, detail::leader_lane(group)));
      }
    }
    if (slot_bytes > pagesize) {
      const std::uint64_t need = pages_needed(slot_bytes);
      if (need > pages_) { return 0; }
      // Contiguous share per lane, then the runs are stitched together in lane order.
      const std::uint32_t share = pages_ / lanes + (pages_ % lanes != 0);
      const std::uint64_t lo64 = static_cast<std::uint64_t>(rank) * share;
      const auto lo = static_cast<std::uint32_t>(lo64 < pages_ ? lo64 : pages_);
      const auto hi = static_cast<std::uint32_t>(lo + share < pages_ ? lo + share : pages_);
      const run_summary mine = summarize_runs(states_, lo, hi, need);
      std::uint64_t slots = 0;
      std::uint64_t carry = 0;
      for (std::uint32_t rest = group; rest != 0; rest &= rest - 1u) {
        const unsigned src = detail::lowest_bit(rest);
        const auto head = detail::shuffle(group, static_cast<unsigned long long>(mine.head), src);
        const auto tail = detail::shuffle(group, static_cast<unsigned long long>(mine.tail), src);
        const auto inner = detail::shuffle(group, static_cast<unsigned long long>(mine.inner), src);
        const bool all_free = detail::shuffle(group, static_cast<unsigned>(mine.all_free), src) != 0;
        if (all_free) {
          carry += head;
        } else {
          slots += (carry + head) / need + inner;
          carry = tail;
        }
      }
      return static_cast<std::size_t>(slots + carry / need);
    }
    const std::uint64_t mine = count_free_chunks(states_, free_map_.words(), rank, lanes, round_size(slot_bytes));
    unsigned long long below = 0;
    return static_cast<std::size_t>(detail::group_sum(group, static_cast<unsigned long long>(mine), below));
  }

  /// The page state's marks (multi-page chunk, LOCK) and the segment scan bound:
  /// detail/bitfield_page.hpp.
  using page_format::large_chunk;
  using page_format::lock_count;
  using page_format::max_scan_rounds;

 private:
  /// Host. One copy of the class directory's words (the class rows, the whole-warp slots, the
  /// class pages and the dense-map flag: heap.hpp, directory_words).
  std::vector<std::uint32_t> directory_host() const
  {
    std::vector<std::uint32_t> directory(directory_words(slots_, warp_slots_));
    detail::backend::copy_to_host(directory.data(), directory_, directory.size() * sizeof(std::uint32_t));
    return directory;
  }

  // The heap view (creation/scatter/heap.hpp).
  using base::active_block_;
  using base::bitmasks_;
  using base::blocks_;
  using base::data_;
  using base::data_end_;
  using base::directory_;
  using base::free_map_;
  using base::meta_bytes_;
  using base::page_data;
  using base::pages_;
  using base::pages_per_block_;
  using base::region_pages_;
  using base::region_size;
  using base::regions_;
  using base::regions_count_;
  using base::room_key;
  using base::room_max_spots;
  using base::room_none;
  using base::room_stride;
  using base::room_stripes;
  using base::room_words;
  using base::rooms_;
  using base::runs_;
  using base::slots_;
  using base::states_;
  using base::units_per_page;
  using base::warp_slots_;
  using typename base::page_map;

  // Fill accounting, give-back and free (creation/scatter/fill.hpp).
  using base::free_chunk;
  using base::maybe_reactivate;
  using base::over_threshold;

  // Requests larger than a page, and their free-page runs (creation/scatter/pages.hpp).
  using base::alloc_pages;
  using base::alloc_run;
  using base::free_pages;
  using base::pages_needed;
  using base::summarize_runs;
  using typename base::run_summary;

  // The search for chunks up to a page and their count (creation/scatter/search.hpp).
  using base::alloc_chunk;
  using base::count_free_chunks;
  using base::offer_page;
  using base::round_size;

  // The page format (detail/bitfield_page.hpp).
  using page_format::chunk_of;
  using page_format::count_of;
  using page_format::large_state;
  using page_format::load_state;
  using page_format::segment_word;
  using page_format::span_tail;

  /// Device. If page `page` (whose state was seen as large_chunk) is one of a span's other pages
  /// (its bitfield word is span_tail | distance), moves `page` to the span's first page and adds
  /// the distance in bytes to `in_page`, and returns true; else (a page of a multi-page chunk)
  /// changes nothing and returns false.
  DEVALLOC_DEVICE bool span_first(std::uint32_t& page, std::uint32_t& in_page) const noexcept
  {
    if constexpr (page_format::max_span == 1u) { return false; }
    const std::uint32_t mark = detail::atomic_load_relaxed(bitmasks_[page]);
    if ((mark & span_tail) == 0) { return false; }
    const std::uint32_t d = mark & ~span_tail;
    if (d == 0 || d >= page_format::max_span || d > page) { return false; }  // never written (C1)
    page -= d;
    in_page += d * pagesize;
    return true;
  }
};

}  // namespace creation
DEVALLOC_NAMESPACE_END
