// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/creation/scatter/search.hpp
//
// `creation::scatter_detail::search<Config>`: creation::Scatter's allocation of chunks up to one
// page. Its fallback is the search of ScatterAlloc (Steinberger et al. 2012, §5.3 the hash of
// eq. (3), §5.4 the region walk and super blocks, §6.1 alloc and tryUsePage) as the mallocMC
// thesis turned it into a creation policy (Eckert 2014, §4.3.5); its fast path is this project's
// class directory (docs/scatter.md, "Search"):
//
//   * class_of / accepts: the chunk size a page opened for a request gets (size classes) and the
//     chunk sizes a request may use (wastefactor, alignment).
//   * alloc_chunk: the lanes of a warp that ask for one class together (match_any) are served by
//     their leader from the class' directory slot of their multiprocessor quarter (of their
//     warp sixteenth in classes of fewer than 8 chunks a page: fine_keyed) — one
//     fetch_add for the group on the page the slot names; when that page is full (or gone), a new
//     page comes from the free-page map (detail/page_bitmap.hpp) near eq. (3)'s page and is
//     installed in the slot by CAS (directory_round; a lone lane of a class of few chunks a page
//     that loses the CAS follows the slot with its page in hand). A small group whose slot's page served
//     nobody first tries the class page (one word per class: the page the class opened last), so
//     that a sparse class fills one page at a time. Only when the map has no free page near
//     there does the request walk the heap as the paper does: pass 0 (regions over 90 % skipped),
//     then the exhaustive pass 1 (search_block, try_page_group, try_page, reserve).
//   * open_page: the owner of a page taken from the free-page map gives it its chunk size.
//   * offer_page: a free that makes a full page non-full offers it to its class' slot.
//   * count_free_chunks: getAvailableSlots up to a page (thesis §4.3.5), with the same acceptance
//     rule as the search.
//
// The spots themselves are won through creation/scatter/fill.hpp's take_spot (the page format of
// detail/bitfield_page.hpp); requests larger than a page are creation/scatter/pages.hpp's.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../../detail/atomic.hpp"
#include "../../detail/bitfield.hpp"
#include "../../detail/bitfield_page.hpp"
#include "../../detail/hash.hpp"
#include "../../detail/page_bitmap.hpp"
#include "../../detail/platform.hpp"
#include "../../detail/probe.hpp"
#include "../../detail/warp.hpp"
#include "pages.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace creation::scatter_detail {

template <class Config>
class search : public multi_page<Config> {
  using base = multi_page<Config>;
  using page_format = detail::bitfield_page<Config::pagesize, Config::span_pages>;

 protected:
  // Scatter's configuration values the search reads (creation/scatter.hpp documents them).
  static constexpr std::uint32_t wastefactor = Config::wastefactor;
  static constexpr std::uint32_t class_slots = Config::class_slots;
  static constexpr std::uint32_t warp_slots = Config::warp_slots;
  static constexpr std::uint32_t open_wait_reads = Config::open_wait_reads;
  static constexpr std::uint32_t span_pages = Config::span_pages;
  /// Rounds of the directory path before a request falls back to the walk.
  static constexpr std::uint32_t directory_rounds = 4;
  /// Directory scans after the rounds, before the walk. A scan reads each entry once, shared by
  /// the lanes that scan together; in the tightest heaps some lanes came out of it empty
  /// while room was still being handed back (reservations that over-counted, given back), and
  /// the walk then spent the last free pages on single groups: H100 probe, 2^17 threads x 16-256 B
  /// at 90 % fill, 160 and 656 nullptr of 786 432 requests with one scan, none in five runs with
  /// two (docs/scatter.md, Search, item 5).
  static constexpr std::uint32_t scan_passes = 2;
  /// Words of the free-page map (64 pages each) a request reads for a new page before the walk.
  static constexpr std::uint32_t claim_words = 16;
  /// Times a lane that lost its slot's install CAS follows the slot with its page in hand
  /// (directory_round) before it gives the page back and comes round again.
  static constexpr std::uint32_t follow_tries = 16;
  /// directory_round: the share followed the slot to another page (its grant is in grant_page,
  /// grant). Above every page index, below page_bitmap::none - 1 (a lost page).
  static constexpr std::uint32_t followed = detail::page_bitmap::none - 2u;

  using base::account_increment;
  using base::active_block_;
  using base::bitmasks_;
  using base::block_over;
  using base::block_pages;
  using base::blocks_;
  using base::directory_;
  using base::directory_classes;
  using base::free_map_;
  using base::give_back;
  using base::mark_span;
  using base::over_threshold;
  using base::page_data;
  using base::pages_;
  using base::pages_per_block_;
  using base::pagesize;
  using base::region_add;
  using base::region_of;
  using base::region_pages_;
  using base::region_size;
  using base::regions_;
  using base::room_add;
  using base::room_max_spots;
  using base::room_stride;
  using base::room_stripes;
  using base::rooms_;
  using base::slots_;
  using base::states_;
  using base::take_spot;
  using base::warp_slots_;
  using page_format::chunk_of;
  using page_format::clear_segment_words;
  using page_format::count_of;
  using page_format::flat_spots;
  using page_format::has_spot;
  using page_format::hierarchy_threshold;
  using page_format::large_state;
  using page_format::layout_of;
  using page_format::load_state;
  using page_format::lock_count;
  using page_format::max_span;
  using page_format::min_chunk;
  using page_format::pack;
  using page_format::segment_word;
  using page_format::span_min_chunk;
  using page_format::span_tail;
  using typename base::page_map;
  using typename page_format::page_layout;

 public:
  /// Chunk size of a page opened for a request of `size` bytes (a multiple of 16, <= pagesize):
  /// for a flat layout, the largest multiple of the request's alignment (min(lowbit(size), 256))
  /// with as many chunks per page as `size` and at most size x wastefactor; above span_min_chunk
  /// (half a page; span_pages > 1) the smallest such chunk over spans of 1..span_pages pages (a
  /// 2096-byte request: 4096 B in one page, 2720 B as 3 in 2 pages, 2448 B as 5 in 3, 2336 B as
  /// 7 in 4: 2336; sizes uniform in 16-4096 B then need 1.10 times their sum instead of 1.29, computed;
  /// layout_of gives the chunk's span). Hierarchical sizes keep `size`. The result is accepted by every
  /// request of that class (accepts()).
  DEVALLOC_HOST_DEVICE static constexpr std::uint32_t class_of(std::uint32_t size) noexcept
  {
    return size > span_min_chunk && max_span > 1u ? span_class(size) : single_page_class(size);
  }

 protected:
  /// class_of without spans: the chunk size for `size` when the chunks lie in single pages.
  DEVALLOC_HOST_DEVICE static constexpr std::uint32_t single_page_class(std::uint32_t size) noexcept
  {
    if (size <= hierarchy_threshold) { return size; }
    const std::uint32_t align = align_of(size);
    const std::uint32_t n = flat_spots(size);
    return cap(size, pagesize / n / align * align);  // >= size: size is a multiple of align, <= pagesize / n
  }
  /// class_of above span_min_chunk: the smallest chunk over spans of 1..max_span pages.
  DEVALLOC_HOST_DEVICE static constexpr std::uint32_t span_class(std::uint32_t size) noexcept
  {
    const std::uint32_t align = align_of(size);
    std::uint32_t c = pagesize / flat_spots(size) / align * align;
    for (std::uint32_t pages = 2; pages <= max_span; ++pages) {
      // m chunks of `size` fit the span (fewer than 2 a page); the chunk keeps the alignment.
      const std::uint32_t m = pages * pagesize / size;
      const std::uint32_t spanned = pages * pagesize / m / align * align;  // >= size, as above
      if (spanned < c) { c = spanned; }
    }
    return cap(size, c);
  }
  /// The alignment a request of `size` bytes keeps: min(lowbit(size), 256).
  DEVALLOC_HOST_DEVICE static constexpr std::uint32_t align_of(std::uint32_t size) noexcept
  {
    const std::uint32_t low = size & (0u - size);
    return low < 256u ? low : 256u;
  }
  /// Chunk size `c` for a request of `size` bytes, at most size x wastefactor (rounded down to
  /// the request's alignment).
  DEVALLOC_HOST_DEVICE static constexpr std::uint32_t cap(std::uint32_t size, std::uint32_t c) noexcept
  {
    const std::uint64_t limit = static_cast<std::uint64_t>(size) * wastefactor / align_of(size) * align_of(size);
    return c > limit ? static_cast<std::uint32_t>(limit) : c;
  }

  DEVALLOC_HOST_DEVICE static constexpr std::uint32_t round_size(std::size_t bytes) noexcept
  {
    // bytes <= pagesize <= 2^30 here
    return static_cast<std::uint32_t>((bytes + (min_chunk - 1)) / min_chunk * min_chunk);
  }

  /// Whether a page split into `chunk`-byte chunks may serve a request of `size` bytes (§6.1
  /// alloc line 11 with the wastefactor; plus: the chunk keeps the alignment the request's size
  /// carries, so AlignmentPolicy padding to N gives N-aligned pointers).
  DEVALLOC_HOST_DEVICE static constexpr bool accepts(std::uint32_t chunk, std::uint32_t size) noexcept
  {
    const std::uint32_t align = align_of(size);
    return chunk >= size && chunk <= pagesize &&
           static_cast<std::uint64_t>(chunk) <= static_cast<std::uint64_t>(size) * wastefactor &&
           (chunk & (align - 1u)) == 0;
  }

  /// Lanes of one class in a warp from which on a group takes a slot of its own warp sixteenth.
  static constexpr std::uint32_t fine_group = 8;

  /// Whether a group of `lanes` lanes of chunk size `chunk` keys its class slot by warp sixteenth
  /// of its multiprocessor (slot_for) instead of by multiprocessor quarter: a whole warp (with no
  /// warp slots), and any group of a class of fewer than fine_group chunks a page (chunks over
  /// pagesize / fine_group bytes). Such a page serves at most seven requests, so a slot shared by
  /// a quarter's warps opened one page after another for them, each open a chain of dependent
  /// atomics; four times the keys fill four times the pages at once. What it costs is at most
  /// one open page more per key and class, of seven chunks or fewer. H100, devalloc-bench, three
  /// rounds alternated (results/gpu/2026-12-07_s33_H100/fine-keys/fk): mixed 16-4096 B at 2^17 / 2^20
  /// threads 1.80 -> 2.15 / 2.63 -> 2.78 G allocs/s, 512-8192 B 1.79 -> 2.01 / 2.10 -> 2.62 G,
  /// log-uniform 16-4096 B at 2^17 1.97 -> 2.26 G, the fill of 16-4096 B at 25 % 1.73 -> 2.12 G,
  /// its tight fill's failing requests unchanged (fill_anatomy at 2^17 80 / 90 %, 2^18 90 %: 9.1 /
  /// 17.3 / 15.1 % against 9.0 / 17.4 / 15.1 %); chunks of 512 B and less do not take it.
  DEVALLOC_HOST_DEVICE static constexpr bool fine_keyed(std::uint32_t chunk, std::uint32_t lanes) noexcept
  {
    return lanes >= fine_group || chunk > pagesize / fine_group;
  }

  /// The directory slot of chunk size `chunk` for the calling warp. Groups of fewer than
  /// fine_group lanes (mixed sizes, divergent callers) of a class of many chunks a page share one
  /// slot per multiprocessor quarter: few pages open per class. Larger groups (one size in the
  /// whole warp), and every group of a class of few chunks a page (fine_keyed), use one per
  /// sixteenth of a multiprocessor's warps: about four resident warps per slot instead of sixteen,
  /// so a page is not contended by more warps than it can serve.
  DEVALLOC_DEVICE std::uint32_t& slot_for(std::uint32_t chunk, std::uint32_t lanes) const noexcept
  {
    const std::uint32_t cls_index = class_index(chunk);
    if (lanes >= fine_group && warp_slots_ != 0) { return warp_row()[warp_slot_key(cls_index) % warp_slots_]; }
    const std::uint32_t key =
      fine_keyed(chunk, lanes) ? detail::sm_id() * 16u + detail::warp_id() % 16u : small_slot_key();
    // detail::mod_small written out: through the call nvcc 13 laid out the alloc kernels
    // differently (same registers; not measured on the GPU), while this is ad9bec0's measured code.
    return class_row(cls_index)[key < slots_ ? key : key % slots_];
  }

  /// Whether the slots of groups of `lanes` lanes are fewer than the keys that pick them (slot_for:
  /// 4 multiprocessor quarters per multiprocessor for small groups, 16 per multiprocessor for whole
  /// warps without warp slots, and up to 64 co-resident warps per multiprocessor for the warp
  /// slots), so that one slot serves warps of several multiprocessors: a small heap's few slots
  /// (slots_for, warp_slots_for). directory_round lets losers of a shared slot's install follow it.
  /// Small groups count quarters also where fine_keyed gives them warp sixteenths (their lone
  /// lanes follow anyway, directory_round): counted as sixteenths, every tight heap's slots were
  /// "shared", shares of two or more lanes of those classes followed too, and the 16-4096 B fill
  /// at 80 % ran at 0.29x (19.5 against 68 M allocs/s; H100, five rounds,
  /// results/gpu/2026-12-07_s33_H100/fine-keys, `fkm`).
  DEVALLOC_DEVICE bool slot_shared(std::uint32_t lanes) const noexcept
  {
    const std::uint32_t sms = detail::sm_count();  // %nsmid: 132 on an H100 SXM
    if (lanes >= fine_group && warp_slots_ != 0) { return warp_slots_ < 64u * sms; }
    return slots_ < (lanes >= fine_group ? 16u : 4u) * sms;
  }

  /// Directory row of chunk size `chunk` (16-byte classes folded onto directory_classes rows).
  DEVALLOC_HOST_DEVICE static constexpr std::uint32_t class_index(std::uint32_t chunk) noexcept
  {
    return (chunk / min_chunk - 1u) % directory_classes;
  }
  /// The slots of class row `cls_index`, and the whole-warp slots (after the class rows).
  DEVALLOC_DEVICE std::uint32_t* class_row(std::uint32_t cls_index) const noexcept
  {
    return directory_ + static_cast<std::size_t>(cls_index) * slots_;
  }
  DEVALLOC_DEVICE std::uint32_t* warp_row() const noexcept
  {
    return directory_ + static_cast<std::size_t>(directory_classes) * slots_;
  }
  /// Slot keys before the modulo: a whole-warp group's (consecutive warps, resident together, get
  /// consecutive slots; classes are spread apart) and a small group's (its multiprocessor quarter).
  DEVALLOC_DEVICE static std::uint32_t warp_slot_key(std::uint32_t cls_index) noexcept
  {
    return detail::warp_id() + cls_index * 1031u;
  }
  DEVALLOC_DEVICE static std::uint32_t small_slot_key() noexcept
  {
    return detail::sm_id() * 4u + detail::warp_id() % 4u;
  }

  /// The class page of chunk size `chunk`: one word per class (after the warp slots) naming the
  /// page of the class that was opened last. A small group whose slot's page served nobody (an
  /// empty slot, a full page) reserves there before it opens a page of its own, and its slot
  /// adopts that page, so that a sparse class (mixed sizes: a few hundred requests of a class
  /// spread over hundreds of slots) fills one page at a time instead of opening a page per slot.
  DEVALLOC_DEVICE std::uint32_t& class_page(std::uint32_t chunk) const noexcept
  {
    return warp_row()[warp_slots_ + class_index(chunk)];
  }

  /// The dense-map flag (the word after the class pages): 1 while the free-page map is nearly
  /// full where pages are being taken. Small groups whose slot's page is full go to the class page
  /// only while it is set (an empty slot always does). The class page keeps a sparse class from
  /// opening a page per slot, which matters only when free pages run short; in a roomy heap the
  /// slots of a dense class sharing one class page was the cost (H100 probe, one run, 2^20 threads:
  /// 16-256 B 2.4 -> 4.1 G allocs/s, 512-8192 B 1.2 -> 2.4 G with the flag; docs/scatter.md,
  /// Search, item 3).
  DEVALLOC_DEVICE std::uint32_t& dense_map() const noexcept { return warp_row()[warp_slots_ + directory_classes]; }
  /// The flag is set by a claim that leaves its map word with at least dense_set_bits of 64 pages
  /// taken, cleared by one that leaves at most dense_clear_bits (hysteresis: a flag that followed
  /// every claim at 48 flipped so often that 2^20 threads x 16-4096 B lost 20 %).
  static constexpr std::uint32_t dense_set_bits = 56;
  static constexpr std::uint32_t dense_clear_bits = 32;
  /// Only claims in every dense_sample_words-th word of the map sample it (note_density): the
  /// flag is one word for the whole heap, and every claim reading it, and writing it whenever the
  /// samples crossed the thresholds, made that word's L2 slice a queue for everything else it holds
  /// (H100 probe, 2^20 threads, results/gpu/2026-11-27_mark_H100 in commit 1cd75b3's tree: sampled
  /// so, 4 KiB went 3.9 -> 8.6 G allocs/s, 1 KiB 7.8 -> 10.3 G, 16-4096 B 1.53 -> 1.63-1.72 G, the
  /// tight heaps' cells alike; with the flag never updated, an experiment, 16-4096 B 1.90 G). The
  /// sample is biased: claims fill map words one after another, so the word a claim took reads
  /// fuller than the map, and the flag is set at times in roomy heaps (with it never set, 16-4096 B
  /// at 2^20 ran 8-12 % faster and the tight 16-256 B fill 13 % slower; other signals tried lost
  /// elsewhere: results/gpu/2026-11-27_dense_H100 in commit 1cd75b3's tree).
  static constexpr std::uint32_t dense_sample_words = 16;

  // ---------------------------------------------------------------------------------------------
  // Allocation of chunks up to one page

  DEVALLOC_DEVICE void* alloc_chunk(std::uint32_t size) const noexcept
  {
    DEVALLOC_PROBE(alloc_chunk);
    // The chunk size a page opened for this request gets; same chunk count per page as `size`.
    const std::uint32_t cls = class_of(size);
    const page_layout fresh = layout_of(cls);
    // The round in the low bits, `narrowed` set once a round answered round_result::narrow (one
    // loop variable: a flag of its own took two allocating kernels from 80 to 84 registers).
    for (std::uint32_t round = 0; (round & ~narrowed) < directory_rounds; ++round) {
      void* p = nullptr;
      const round_result r = directory_round(cls, fresh, round, p);
      if (r == round_result::served) { return p; }
      if (r == round_result::narrow) { round |= narrowed; }
      DEVALLOC_PROBE(round_again);
    }
    // The pages of this class that other slots keep open (a tight heap's free-page map runs dry
    // while they still have room), scan_passes times (nothing for a class of one chunk a page).
    for (std::uint32_t pass = 0; pass < scan_passes; ++pass) {
      if (void* p = scan_directory(cls, fresh)) { return p; }
    }
    return alloc_last(size, cls, fresh);
  }

  /// The end of alloc_chunk, after the directory rounds and scans (one call site of the walk, so
  /// that it is inlined once).
  ///   * A span class (layout_of(cls).span > 1): a free aligned group anywhere in the free-page
  ///     map (claim_group over the whole map) opened as a span for this request alone; else the
  ///     request goes on as its class without spans (single_page_class). In this order a heap
  ///     filled by one worker gives exactly count_free_chunks' count.
  ///   * A class of one chunk a page (more than half a page): every chunk size it accepts holds
  ///     one chunk a page or is a span, so a free page or a span with room that the room
  ///     counters name (alloc_counted) can serve it.
  ///   * A request that only chunk sizes of few chunks a page (or spans) accept: the pages the
  ///     room counters name, then a free page (alloc_counted), never the walk.
  ///   * Else the walk, both passes.
  DEVALLOC_DEVICE void* alloc_last(std::uint32_t size, std::uint32_t cls, page_layout fresh) const noexcept
  {
    if (fresh.spans()) {
      DEVALLOC_PROBE(whole_span);
      const std::uint32_t group =
        free_map_.claim_group(map_start(cls, detail::lane_id()), fresh.span, free_map_.word_count());
      if (group != detail::page_bitmap::none) { return open_for_one(group, cls, fresh); }
      cls = single_page_class(size);
      fresh = layout_of(cls);
    }
    if constexpr (Config::resetfreedpages) {
      if (fresh.spots == 1u || pagesize / size <= room_max_spots) { return alloc_counted(size, cls, fresh); }
    }
    return walk(size, cls, fresh, 0u);
  }

  /// A request that the directory rounds and scans did not serve, of more than half a page (one
  /// chunk a page) or of more than pagesize / (room_max_spots + 1) bytes: every chunk size it
  /// accepts (accepts(): size .. size x wastefactor) holds m = 1 .. room_max_spots chunks a page
  /// or is a span's. The room counters (fill.hpp, room_key, room_add) count the pages of m >= 2
  /// chunks, and the spans, with room per stripe (page mod room_stripes; a span at its first
  /// page); a page of one chunk with room is a free page (resetfreedpages). So, instead of the
  /// walk over every page:
  ///   1. the first walk_batch pages of the walk (from eq. (3)'s page): in a roomy heap one of
  ///      them serves, a page of the class with room or a free page, as the walk's did;
  ///   2. the pages of each stripe whose counters of the request's chunk counts are not 0
  ///      (walk_pages with stride room_stripes), room_batch stripes' counters read together from
  ///      a hashed start;
  ///   3. the whole free-page map (a class of one chunk a page: this step alone), where a request
  ///      that finds nothing fails.
  /// A page taken from the map keeps room and is offered to the class directory (offer_opened:
  /// nothing for a page of one chunk). Complete at rest (invariant R1: the counters are exact,
  /// and every page with room of a chunk size the request accepts is in a stripe read in step 2
  /// or free in the map); a page that gains room behind the reader meanwhile may be missed, as
  /// the walk misses one, and so may a page in the middle of its reset (count 0, not yet free in
  /// the map; docs/scatter.md, Known limitations). Before, a request of more than half a page
  /// walked (eight lanes of one warp tried 38 000-43 000 pages one by one in pass 0 before
  /// failing, sizes uniform in 16-4096 B at 80 % fill: a 55 ms launch on the H100), and from
  /// 6434e8b to 2026-11-27 (nineteenth session) a request of few chunks a page that saw room in
  /// the counters walked every region when it lost that room to others (300 requests a launch
  /// in that load, 13-23 ms each; docs/scatter.md, "Walking only the stripes with room").
  DEVALLOC_DEVICE void* alloc_counted(std::uint32_t size, std::uint32_t cls, const page_layout& fresh) const noexcept
  {
    const std::uint32_t start = map_start(cls, detail::lane_id());
    // The chunk counts of the sizes the request accepts: least .. most (its own size).
    const std::uint32_t most = pagesize / size;
    const std::uint64_t largest = static_cast<std::uint64_t>(size) * wastefactor;
    std::uint32_t least = largest >= pagesize ? 1u : pagesize / static_cast<std::uint32_t>(largest);
    if (least < 2u) { least = 2u; }
    // With spans, also the spans of 2 .. span_most chunks whose chunks may be `size` or more
    // (fill.hpp, room_key): m <= max_span x pagesize / size. A span of n pages holds more than n
    // chunks (else its chunk size lies one a page), so none serves a request with
    // max_span x pagesize / size <= max_span (above 3276 B with 4 KiB pages and span_pages 4):
    // span_most 0, and such a request (a class of one chunk a page) reads no counters.
    std::uint32_t span_most = 0;
    if constexpr (max_span > 1u) {
      span_most = max_span * pagesize / size;
      if (span_most > 2u * max_span - 1u) { span_most = 2u * max_span - 1u; }
      if (largest <= span_min_chunk || span_most <= max_span) { span_most = 0; }
    }
    if (least <= most || span_most != 0) {
      // Step 1: the first walk_batch pages of the walk's pass 0 (eq. (3)'s page); then step 2,
      // stripe by stripe: one call site of walk_pages for both (its other one is search_block's).
      std::uint32_t page = static_cast<std::uint32_t>(
        detail::scatter_hash(cls, Config::hash_k_size, detail::sm_id(), Config::hash_k_mp, 0) % pages_);
      std::uint32_t stride = 1u;
      std::uint32_t count = pages_ - page < walk_batch ? pages_ - page : walk_batch;
      const std::uint32_t first = start % room_stripes & ~(room_batch - 1u);
      std::uint32_t b = 0;        // stripes whose counters were read
      std::uint32_t stripe0 = 0;  // the first stripe of the last room_batch read
      std::uint32_t room = 0;     // stripes of that batch with room, not walked yet
      for (;;) {
        if (void* p = walk_pages(page, stride, count, size, cls, fresh, true)) { return p; }
        while (room == 0 && b < room_stripes) {
          stripe0 = (first + b) % room_stripes;
          b += room_batch;
          // A stripe with any counter not 0 (one that lags below 0 too: it may hide another's room).
          // Pages of least .. most chunks (counter m - 1), then spans of 2 .. span_most chunks.
          for (std::uint32_t m = least; m <= most; ++m) { add_stripes_with_room(room, stripe0, m - 1u); }
          if constexpr (max_span > 1u) {
            for (std::uint32_t m = 2u; m <= span_most; ++m) {
              add_stripes_with_room(room, stripe0, room_max_spots + m - 2u);
            }
          }
        }
        if (room == 0) { break; }
        DEVALLOC_PROBE(room_stripe);
        page = stripe0 + detail::lowest_bit(room);
        room &= room - 1u;
        stride = room_stripes;
        count = page < pages_ ? (pages_ - page + room_stripes - 1u) / room_stripes : 0u;
      }
    }
    // Step 3 (alone for a class of one chunk a page).
    DEVALLOC_PROBE(whole_page);
    const std::uint32_t page = free_map_.claim_one(start, free_map_.word_count());
    if (page == detail::page_bitmap::none) { return nullptr; }
    void* p = open_for_one(page, cls, fresh);
    offer_opened(page, cls, fresh);
    return p;
  }

  /// Sets bit j of `room` where room counter `key` of stripe stripe0 + j is not 0 (j < room_batch;
  /// alloc_counted).
  DEVALLOC_DEVICE void add_stripes_with_room(std::uint32_t& room, std::uint32_t stripe0,
                                             std::uint32_t key) const noexcept
  {
    std::uint32_t seen[room_batch];
    DEVALLOC_UNROLL
    for (std::uint32_t j = 0; j < room_batch; ++j) {
      seen[j] = detail::atomic_load_relaxed(rooms_[(stripe0 + j) * room_stride + key]);
    }
    DEVALLOC_UNROLL
    for (std::uint32_t j = 0; j < room_batch; ++j) { room |= static_cast<std::uint32_t>(seen[j] != 0) << j; }
  }

  /// Stripes of room counters read together (alloc_counted; independent loads, one latency). 16
  /// (d345813) kept 16 loads live and took a plain allocating kernel (tools/kernel-regs) from 80 to
  /// 96 registers, two resident blocks of 256 threads instead of three; 8 keeps it at 80.
  static constexpr std::uint32_t room_batch = 8;
  static_assert(room_stripes % room_batch == 0, "Scatter: room_batch must divide room_stripes");

  /// `count` pages from `first`, `stride` apart (all below pages_), for one that may serve the
  /// request (may_serve, then try_page: pass 0 with `exhaustive` false, else pass 1 — a free page
  /// taken from the map and opened for it, or a CAS reservation on a page of a chunk size it
  /// accepts). The states of walk_batch pages are read together (independent loads, one latency;
  /// all loads first, then the tests: a test between two loads would wait for the first); near a
  /// full heap a walk that read one page a latency took about a millisecond per failing request
  /// (a heap of 82 000 pages). The page loop of both the walk (search_block) and alloc_counted.
  DEVALLOC_DEVICE void* walk_pages(std::uint32_t first, std::uint32_t stride, std::uint32_t count, std::uint32_t size,
                                   std::uint32_t cls, const page_layout& fresh, bool exhaustive) const noexcept
  {
    for (std::uint32_t k = 0; k < count; k += walk_batch) {
      const std::uint32_t batch = count - k < walk_batch ? count - k : walk_batch;
      std::uint64_t seen[walk_batch];
      DEVALLOC_UNROLL
      for (std::uint32_t j = 0; j < walk_batch; ++j) {
        // Past the batch: its first page again (in bounds; a select between a load and a constant,
        // or a page index formed once per batch, cost plain kernels 1-4 registers: tools/kernel-regs).
        seen[j] = load_state(states_, first + (k + (j < batch ? j : 0u)) * stride);
      }
      std::uint32_t candidates = 0;
      DEVALLOC_UNROLL
      for (std::uint32_t j = 0; j < walk_batch; ++j) {
        if (j < batch && may_serve(seen[j], size, fresh, cls, exhaustive)) { candidates |= 1u << j; }
      }
      for (; candidates != 0; candidates &= candidates - 1u) {
        const std::uint32_t at = first + (k + detail::lowest_bit(candidates)) * stride;
        if (void* p = try_page(at, size, fresh, cls, exhaustive)) { return p; }
      }
    }
    return nullptr;
  }

  /// The walk (ScatterAlloc §6.1 with §5.4's regions and super blocks) from eq. (3)'s page, for a
  /// request of `size` bytes of class `cls` (`fresh`: its layout), from pass `first_pass` (0, or
  /// 1: the exhaustive pass only).
  DEVALLOC_DEVICE void* walk(std::uint32_t size, std::uint32_t cls, const page_layout& fresh,
                             std::uint32_t first_pass) const noexcept
  {
    DEVALLOC_PROBE(walk);
    const std::uint64_t hash = detail::scatter_hash(cls, Config::hash_k_size, detail::sm_id(), Config::hash_k_mp, 0);
    detail::device_atomic<std::uint32_t> active(*active_block_);
    const std::uint32_t first_block = blocks_ > 1 ? active.load(detail::memory_order_relaxed) % blocks_ : 0u;
    // Pass 0: the paper's search (regions over 90 % full skipped, fetch_add reservations), super
    // block by super block from the active one, moving the active pointer past blocks that fail.
    // Pass 1: every page of every region that is not completely full, with CAS reservations that
    // never over-count, so that a heap with a free slot anywhere does not report out of memory.
    for (std::uint32_t pass = first_pass; pass < 2; ++pass) {
      if (pass == 1) { DEVALLOC_PROBE(pass1); }
      std::uint32_t block = first_block;
      for (std::uint32_t tried = 0; tried < blocks_; ++tried) {
        if (void* p = search_block(block, size, fresh, cls, hash, pass != 0)) { return p; }
        const std::uint32_t next = block + 1u == blocks_ ? 0u : block + 1u;
        if (pass == 0 && blocks_ > 1) {
          std::uint32_t expected = block;  // §5.4: proceed to the next super block
          active.compare_exchange_strong(expected, next, detail::memory_order_relaxed, detail::memory_order_relaxed);
        }
        block = next;
      }
    }
    return nullptr;
  }

  /// Where a request starts looking in the free-page map: a hash of (warp, class, multiprocessor,
  /// `salt`: the directory round, or the lane) spread evenly over the heap (a linear mix such as
  /// eq. (3)'s piles starts of different multiprocessors onto the same words, which then fill first).
  DEVALLOC_DEVICE std::uint32_t map_start(std::uint32_t cls, std::uint32_t salt) const noexcept
  {
    const std::uint32_t key = detail::warp_id() * 0x9E3779B9u ^ cls * Config::hash_k_size ^
                              detail::sm_id() * Config::hash_k_mp ^ salt * 0x85EBCA6Bu;
    return static_cast<std::uint32_t>((std::uint64_t{detail::mix32(key)} * pages_) >> 32);
  }

  /// Takes page `page` in the free-page map for a layout of `span` pages: the page alone, or (a
  /// span) the aligned group it starts, all or none.
  DEVALLOC_DEVICE bool claim_span(std::uint32_t page, std::uint32_t span) const noexcept
  {
    if (max_span == 1u || span == 1u) { return free_map_.claim_unit(page); }
    return page % span == 0 && page + span <= pages_ && free_map_.claim_run(page, span) == detail::page_bitmap::none;
  }

  /// A page the caller took from the free-page map, opened with chunk size `cls` for the caller
  /// alone (one reservation), and its first spot.
  DEVALLOC_DEVICE void* open_for_one(std::uint32_t page, std::uint32_t cls, const page_layout& fresh) const noexcept
  {
    if (one_chunk_page(fresh)) {
      open_page_full(page, cls, fresh);
      region_add(page, 1u);
      return page_data(page);
    }
    open_page(page, cls, fresh, 1u);
    return take_spot(page, cls, fresh, 0u);
  }

  /// directory_round's outcome for a lane: served; not served (`again`, `no_free_page`: the map
  /// words it read had no free page; `narrow`: its whole-warp slot names another class's page with
  /// room, the next rounds take its class's slots).
  enum class round_result { served, again, no_free_page, narrow };
  /// alloc_chunk: a bit of its round counter, set once a round answered round_result::narrow.
  static constexpr std::uint32_t narrowed = 1u << 8;
  /// directory_round: set in an opener's share lanes when its page went into a small group's slot.
  static constexpr std::uint32_t offer_class_bit = 1u << 31;

  /// One round of the directory path for the lanes of the warp that call it together (any subset
  /// of a warp, `arrived`), in groups by class `cls`. Each group's leader reads its slot and
  /// reserves on the page it names with one fetch_add for the group's lanes beyond whole pages
  /// (`want`: k mod chunks a page; re-reading a few times a page that is installed but not opened
  /// yet). The lanes left without a reservation (whole pages' worth, and those the slot's page was
  /// full, gone or short for) take new pages from the free-page map: one page per `chunks per
  /// page` of them (a share), opened by the share's first lane; the pages of every group's shares
  /// are taken by one lane with one fetch_or where one map word has them. A share whose page
  /// keeps room (at most one a group, its first) puts the page into the slot by CAS before opening
  /// it, so that a lost CAS costs a page given back unused (or followed: below), and no page with
  /// room is left outside the directory. Then every lane with a page claims its chunk's bit, all
  /// groups in one call of take_spot. Waits: __syncwarp and the *_sync collectives of the lanes
  /// that arrived together, which all reach them (no lane leaves the round before its end); no
  /// lane waits for one that may not run.
  DEVALLOC_DEVICE round_result directory_round(std::uint32_t cls, const page_layout& fresh, std::uint32_t round,
                                               void*& out) const noexcept
  {
    // Every lane of the round, whatever its class: the groups go through the round's steps
    // together (see "together" below).
    const std::uint32_t arrived = detail::active_mask();
    // Groups by class and by `narrowed` (lanes of one class may be in different rounds), so that
    // a group's lanes choose one slot (chunk sizes are below 2^31: the top bit is free).
    const std::uint32_t peers = detail::match_any(arrived, cls | (round >= narrowed ? 1u << 31 : 0u));
    const unsigned leader = detail::leader_lane(peers);
    const std::uint32_t rank = detail::rank_in(peers);
    const std::uint32_t k = detail::popcount(peers);
    // The lanes of the group that the slot's page serves: a group of k >= spots lanes fills
    // k / spots pages by itself (whole shares: they take fresh pages at once, for the slot's page
    // could serve only part of them and every such group would queue on it), and its other
    // k % spots lanes go to the slot's page as a group of that many lanes would; a smaller group
    // goes there whole. (Before, a group of k >= spots lanes took fresh pages for all of them and
    // its last page, part-filled, was only offered to the slots, which in a tight heap named pages
    // with room already: such pages kept their room outside the directory until a walk found it.
    // 16384 x 4 requests of 1-1500 B padded to 256 B in 64 MiB, H100 probe, per class: 460-590
    // such pages of 768 B chunks, and when a round's groups went together, more of them and
    // 15-59 requests of 1281-1536 B without memory; docs/scatter.md, "One path per warp".)
    // (k < spots, every group of a class of 32 chunks a page or more, skips the division.)
    const std::uint32_t want = k < fresh.spots ? k : k % fresh.spots;
    // The lanes the slot is chosen for: a group of fine_group lanes or more takes a whole-warp slot,
    // unless that slot named another class's page with room in an earlier round (round_result::
    // narrow, then `narrowed` in `round`): then its class's slots, as a small group's.
    const std::uint32_t slot_lanes = round >= narrowed ? 1u : want;
    detail::device_atomic<std::uint32_t> entry(slot_for(cls, slot_lanes));
    std::uint32_t seen_entry = 0;
    std::uint32_t grant_page = 0;  // 1 + page of the grant (0: none)
    std::uint32_t grant = 0;       // first reservation index << 6 | reservations granted
    bool moved = false;            // the slot changed meanwhile: the want lanes try again with its page
    bool foreign = false;          // the slot names a page of another chunk size with room
    // The class page as the leader read it, when that page is known to serve none of the group's
    // lanes beyond their grants (empty; full, of another class or still being opened when the
    // leader reserved on it; or the slot's own page, which served nobody): a page this round
    // installs in the slot then replaces it with one CAS from that value, without reading it again
    // (offer, which kept a page that had room by then: a page still being opened); 0 with
    // class_known false: not known.
    std::uint32_t class_expect = 0;
    bool class_known = false;
    if (rank == 0 && want != 0) {
      seen_entry = entry.load(detail::memory_order_relaxed);
      // A small group's class page and the dense-map flag are loaded with the slot (their loads in
      // flight together), in case the slot's page serves nobody.
      const bool small = slot_lanes < fine_group;
      const std::uint32_t class_seen = small ? detail::atomic_load_relaxed(class_page(cls)) : 0u;
      const std::uint32_t dense_seen = small ? detail::atomic_load_relaxed(dense_map()) : 0u;
      // A whole-warp slot is shared by the classes whose keys meet in it (warp_slot_key): its page
      // of another class, with room (`foreign`), stays where it is; the lanes beyond the grant
      // come round and take their class's slots (`narrow`). Installed over, the page would keep
      // that room outside the directory, for the walk alone (a tight heap's mixed small sizes,
      // filled until they run out: H100, 4 096 threads x 4-64 B in 16 MiB, about 1 000 such pages
      // of 16-48 B chunks and 63 % of the heap used; docs/scatter.md, "Whole-warp slots of several
      // classes").
      reserve_on_entry(seen_entry, cls, fresh, want, grant_page, grant, small ? nullptr : &foreign);
      if (grant == 0 && small && (seen_entry == 0 || dense_seen != 0u)) {
        // The slot's page served nobody (an empty slot; a full page while the map is dense): the
        // class page, if it names another page of the class with room; the slot then names that
        // page too. So a class opens a new page only when its class page is full as well: a
        // sparse class fills one page at a time. (Only for empty slots, each slot of a sparse
        // class opened a page of its own once the class page filled: 7 nullptr of 65 536 in the
        // census test, H100; so full slots come here too once the map is dense.)
        const std::uint32_t other = class_seen;
        class_known = true;
        class_expect = other;
        if (other != 0 && other != seen_entry) {
          reserve_on_entry(other, cls, fresh, want, grant_page, grant, nullptr);
          if (grant != 0 && entry.compare_exchange_strong(seen_entry, other, detail::memory_order_relaxed,
                                                          detail::memory_order_relaxed)) {
            seen_entry = other;
          }
        }
      }
      if ((grant & 63u) < want) { moved = entry.load(detail::memory_order_relaxed) != seen_entry; }
    }
    // The leader's acquire happens before every member's bit claim.
    detail::sync_lanes(peers);
    grant_page = detail::shuffle(peers, grant_page, leader);
    grant = detail::shuffle(peers, grant, leader);
    seen_entry = detail::shuffle(peers, seen_entry, leader);
    class_expect = detail::shuffle(peers, class_expect, leader);
    // moved (bit 0), foreign (bit 1) and class_known (bit 2) in one shuffle.
    const std::uint32_t slot_news =
      detail::shuffle(peers, (moved ? 1u : 0u) | (foreign ? 2u : 0u) | (class_known ? 4u : 0u), leader);
    moved = (slot_news & 3u) != 0u;
    const std::uint32_t got = grant & 63u;
    // Together: from here on the lanes of every group of the round (`arrived`) take the same
    // steps at once, those with a grant too, so that the groups' atomics are in flight together.
    // Each group on a path of its own, a warp of mixed sizes (up to 20 groups) ran its groups'
    // page claims and bit claims one after another (DIAG_TRACE timelines of 2^17 threads x
    // 16-4096 B, H100: a warp's groups claimed pages at 15, 17, 24 and 34 us; with one size per
    // warp the same cell ran 3x faster: docs/scatter.md, Search, "One path per warp").
    const bool granted = rank < got;
    std::uint32_t page = detail::page_bitmap::none;
    std::uint32_t in_share = 0;  // the lane's index in its share (lanes without a grant)
    bool retry = false;          // the lane's share is the part-filled one and the slot moved
    // The page this lane opened (none: none), its state before the open (the count: transient
    // +1s), and the share's lanes, with offer_class_bit set if the page went into a small group's
    // slot (then it goes into the class page too). Not read before the bit claims, so that the
    // open's returned value is not waited for before them.
    std::uint32_t opened = detail::page_bitmap::none;
    std::uint64_t opened_state = 0;
    std::uint32_t opened_lanes = 0;
    // Nothing more to do together when every lane has a grant (one size a warp, mostly); the
    // shares below are worked out only past this test (computed before it, they cost 2^20
    // threads x 16 B 8 % in the benchmark's own kernel).
    if (detail::ballot(arrived, !granted) != 0u) {
      // New pages for the lanes left: shares of up to `per` lanes, one page each, each opened by
      // its share's first lane (the opener). The share whose page keeps room (fewer lanes than
      // the page has chunks: the want lanes beyond a partial grant; at most one a group) comes
      // first, so that its page goes into the slot before it is opened: a lost CAS then gives the
      // page back unused. (Put last and opened before its CAS, as before, a lost CAS left a page
      // with room that no directory entry named: 220-370 such pages of each class of 768-2048 B
      // chunks in the tight census load of "The lanes of the group" above.)
      const std::uint32_t rest = peers & ~detail::lowest_lanes(peers, got);
      const std::uint32_t left = k - got;
      const std::uint32_t my = rank - got;  // meaningless for granted lanes
      const std::uint32_t per = fresh.spots < 32u ? fresh.spots : 32u;
      const std::uint32_t odd = left % per;  // lanes of a first, part-filled share (0: none)
      const std::uint32_t share_first = my < odd ? 0u : odd + (my - odd) / per * per;
      const std::uint32_t share_lanes = my < odd ? odd : per;
      const bool keeps_room = share_lanes < fresh.spots;  // then share_first == 0
      // Only the share whose page keeps room tries the slot's new page again; whole shares take
      // their pages.
      retry = !granted && moved && keeps_room;
      const bool opener = !granted && !retry && my == share_first;
      in_share = my - share_first;
      const std::uint32_t start = map_start(cls, round);
      // A span class: each opener takes an aligned group of pages (claim_group).
      if (fresh.spans() && opener) { page = free_map_.claim_group(start, fresh.span, claim_words); }
      // The pages of every group's openers in one claim: the lowest opener takes them from the
      // free-page map, as many of one word as it can with one fetch_or (neighbouring pages: their
      // states and data are neighbours too), and hands them out by shuffle in lane order.
      const std::uint32_t openers = detail::ballot(arrived, opener && !fresh.spans());
      const std::uint32_t opener_index = detail::rank_in(openers);
      if constexpr (page_map::units_per_page > 1u) {
        // A map of units (runs, Config::run_unit) holds 64 / units_per_page pages a word: one
        // lane's claims of a word at a time took a latency per few pages (H100, results/gpu/
        // 2026-12-07_s38_H100/scatter-runs: mixed 16-256 B 4.48 -> 3.74 G, small launches +9 us).
        // Each opener claims its own page near the start instead, all at once.
        if ((openers >> detail::lane_id() & 1u) != 0u) {
          const auto taken = free_map_.claim_some(start + opener_index, 1u, claim_words);
          if (taken.word == detail::page_bitmap::none) {
            DEVALLOC_PROBE(map_empty);
          } else {
            if (taken.word % dense_sample_words == 0) { note_density(taken.used); }
            page = taken.word * page_map::pages_per_word + detail::lowest_bit64(taken.bits);
          }
        }
      } else {
        const std::uint32_t pages_wanted = detail::popcount(openers);
        const unsigned taker = detail::leader_lane(openers | (openers == 0u ? 1u : 0u));
        for (std::uint32_t have = 0; have < pages_wanted;) {
          detail::page_bitmap::word_claim taken{detail::page_bitmap::none, 0};
          if (detail::lane_id() == taker) {
            taken = free_map_.claim_some(start, pages_wanted - have, claim_words);
            if (taken.word != detail::page_bitmap::none && taken.word % dense_sample_words == 0) {
              note_density(taken.used);
            }
          }
          const std::uint32_t word = detail::shuffle(arrived, taken.word, taker);
          const std::uint64_t bits = detail::shuffle(arrived, taken.bits, taker);
          if (word == detail::page_bitmap::none) {
            DEVALLOC_PROBE(map_empty);
            break;
          }
          const std::uint32_t n = detail::popcount64(bits);
          if ((openers >> detail::lane_id() & 1u) != 0u && opener_index >= have && opener_index < have + n) {
            page = word * page_map::pages_per_word + detail::nth_bit64(bits, opener_index - have);
          }
          have += n;
        }
      }
      // Each share's lanes claim their chunks' bits (take_spot), a share of a flat page's whole
      // chunk count too: opening such pages full (open_page_full, chunks taken by index) cost the
      // benchmark's own 256 B and mixed 16-256 B cells 3 % (results/gpu/2026-11-27_09f76a4_H100/
      // bench-ab, variant vB), although the probe's kernel gained 4 %; it stays for one-lane opens
      // (open_for_one). Pages of one chunk opened so here cost every mixed cell 6-10 % as well
      // (results/gpu/2026-11-27_s18_H100/ab-variants (in commit 1e90c4e's tree), `full1`).
      if (opener && page != detail::page_bitmap::none) {
        bool installed = false;
        if (keeps_room) {
          // Keep the page's room for the slot's warps: install it before opening it, so that a
          // lost CAS just gives it back.
          std::uint32_t expected = seen_entry;
          bool won = entry.compare_exchange_strong(expected, page + 1u, detail::memory_order_relaxed,
                                                   detail::memory_order_relaxed);
          // A won page is opened before the losers of the warp's other groups follow their slots
          // (a divergent loop of dependent atomics): its open is then in flight meanwhile.
          if (won) {
            opened = page;
            opened_state = publish_open(page, cls, fresh, share_lanes);
          }
          if (!won && ((share_lanes == 1u && fresh.spots < fine_group) || slot_shared(slot_lanes))) {
            // Lost the slot to another group's page. The share keeps its page in hand and follows
            // the slot: share_lanes reservations on the page the slot names now (its own page then
            // goes back unused; lanes beyond a partial grant come round again), or, when that page
            // cannot serve the class, its own page installed in its place; at most follow_tries
            // times. Done by a share of one lane in a class of fewer than fine_group chunks a page
            // (XMallocSIMD's combined 2048-byte chunks: the losers that gave their page back and
            // came round were served two a round), and by any share whose slot is shared by more
            // multiprocessor quarters (or co-resident warps) than it has keys for: in small heaps,
            // lost installs were most of the rounds and sent requests to the directory scan (2^17
            // threads x 16-256 B at 80 % fill: 52 000 lost installs and 14 000 scans for 131 072
            // requests). Elsewhere a loser gives its page back and comes round: following there
            // cost 2^20 threads x 16-256 B in a 1 GiB heap 19 % (docs/scatter.md, Search, item 2).
            // No page is kept half-empty outside a slot.
            for (std::uint32_t t = 0; !won && t < follow_tries; ++t) {
              DEVALLOC_PROBE(follow_slot);
              std::uint32_t other_page = 0;
              std::uint32_t other = 0;
              reserve_on_entry(expected, cls, fresh, share_lanes, other_page, other, nullptr);
              if (other != 0) {
                free_map_.release(page, fresh.pages(), detail::memory_order_relaxed);
                grant_page = other_page;  // the share's grant, handed to its members below
                grant = other;
                page = followed;
                break;
              }
              // Replace only a page that cannot serve the class (full, another chunk size, reset):
              // a page still being opened, or one a free gave room meanwhile, keeps its slot, and
              // this lane reads the slot again after a pause. (Coming round again instead, as
              // before, lost 6-9 % of the mixed-size rate: H100 probe, docs/scatter.md.)
              if (expected != 0 && !cannot_serve(expected - 1u, cls, fresh.spots)) {
                detail::pause_briefly();
                expected = entry.load(detail::memory_order_relaxed);
                continue;
              }
              won = entry.compare_exchange_strong(expected, page + 1u, detail::memory_order_relaxed,
                                                  detail::memory_order_relaxed);
            }
          }
          if (won) {
            installed = slot_lanes < fine_group;  // small groups share their new page through the class page
          } else if (page != followed) {
            DEVALLOC_PROBE(open_lost);
            free_map_.release(page, fresh.pages(), detail::memory_order_relaxed);
            page = detail::page_bitmap::none - 1u;  // lost the slot: try again with the new page
          }
        }
        // The page's chunk size and reservations now; its counter and the class page after the
        // share's bit claims (below), so that the members' claims do not wait for them.
        if (page < pages_) {
          if (opened != page) {
            opened = page;
            opened_state = publish_open(page, cls, fresh, share_lanes);
          }
          opened_lanes = share_lanes | (installed ? offer_class_bit : 0u);
        }
      }
      // The share's first lane opened the page (and zeroed a hierarchical page's words) before
      // its members claim bits; it also tells them if it gave the page back.
      if (!granted && !retry) {
        const std::uint32_t members = detail::lanes_of(rest, share_first, share_lanes);
        detail::sync_lanes(members);
        const unsigned share_leader = detail::leader_lane(members);
        page = detail::shuffle(members, page, share_leader);
        if (page == followed) {
          grant_page = detail::shuffle(members, grant_page, share_leader);
          grant = detail::shuffle(members, grant, share_leader);
        }
      }
    }
    // One bit claim for every lane that has a page (a grant, a followed slot, a page of its own).
    std::uint32_t spot_page = detail::page_bitmap::none;
    std::uint32_t index = 0;
    round_result result = round_result::again;
    if (granted) {
      spot_page = grant_page - 1u;
      index = (grant >> 6) + rank;
    } else if (retry) {
      // The slot moved: the lane tries its new page in the next round (result stays `again`), or
      // it names another class's page with room: the lane takes its class's slots from now on.
      if ((slot_news & 2u) != 0u) { result = round_result::narrow; }
    } else if (page == followed) {
      index = in_share;
      if (index < (grant & 63u)) {
        spot_page = grant_page - 1u;
        index += grant >> 6;
      }
    } else if (page == detail::page_bitmap::none) {
      result = round_result::no_free_page;
    } else if (page < pages_) {
      spot_page = page;
      index = in_share;
    }
    if (spot_page != detail::page_bitmap::none) {
      out = take_spot(spot_page, cls, fresh, index);
      if (out != nullptr) { result = round_result::served; }
    }
    // The opener's bookkeeping, off its share's path: before, the members' bit claims waited for
    // the open's returned count and the class page's load, state load and CAS (docs/scatter.md,
    // "Fewer latencies on the page-opening path").
    if (opened != detail::page_bitmap::none) {
      count_opened(opened, fresh, opened_lanes & ~offer_class_bit, count_of(opened_state));
      if ((opened_lanes & offer_class_bit) != 0u) {
        if ((slot_news & 4u) != 0u) {
          // The class page served none of the group's lanes when the leader read it: one CAS from
          // that value (two loads fewer on the opener's path, which its warp waits for; a page
          // that another round installed meanwhile keeps its place).
          detail::device_atomic<std::uint32_t>(class_page(cls))
            .compare_exchange_strong(class_expect, opened + 1u, detail::memory_order_relaxed,
                                     detail::memory_order_relaxed);
        } else {
          offer(class_page(cls), opened, cls, fresh.spots);
        }
      }
    }
    return result;
  }

  /// The leader's reservation for its group of `k` lanes on the page that directory entry `seen`
  /// names (1 + page; 0: none): one fetch_add(k) if the page has exactly chunk size `cls` and
  /// room (what the page had no room for is given back), re-reading a few times a page that is
  /// installed but not opened yet; a page that the last free reset (chunk size 0, free in the map)
  /// is claimed back in place and opened for this class. Sets grant_page (1 + page) and grant
  /// (first reservation index << 6 | reservations granted); leaves them unchanged if nothing was
  /// granted. With `foreign` (not null), sets *foreign when nothing was granted because the page
  /// has another chunk size and room for requests of that size (has_other_room).
  DEVALLOC_DEVICE void reserve_on_entry(std::uint32_t seen, std::uint32_t cls, const page_layout& fresh,
                                        std::uint32_t k, std::uint32_t& grant_page, std::uint32_t& grant,
                                        bool* foreign) const noexcept
  {
    if (seen == 0) { return; }
    DEVALLOC_PROBE(page_try);
    const std::uint32_t page = seen - 1u;
    detail::device_atomic<std::uint64_t> state(states_[page]);
    // The reservation first, as tryUsePage does (§6.1 lines 2-6): one fetch_add, no load of the
    // state before it — the entry's page has room for the group in most tries (2^20 threads x
    // 16-256 B: 437 000 of 472 000), and a load first was one more memory latency on every
    // request's path. What the page had no room for goes back (give_back): a transient +k, which
    // every reader of a state already allows for.
    // acquire: frees that made the room happen before the bit claims (tryUsePage 2-6).
    std::uint64_t old = state.fetch_add(k, detail::memory_order_acquire);
    if (chunk_of(old) == 0) {
      // Not a page of any class: installed but not opened yet (taken in the map; its owner opens
      // it right after the CAS), or reset by the last free. The +k goes back (a failed
      // reservation wrote nothing: relaxed); an installed page is re-read a bounded number of
      // times, and a reset page the entry still names is claimed back in place and opened for
      // this class (no new entry, no CAS race).
      give_back(page, cls, fresh.spots, k, detail::memory_order_relaxed);
      std::uint64_t now = state.load(detail::memory_order_relaxed);
      for (std::uint32_t wait = 0; wait < open_wait_reads && chunk_of(now) == 0 && free_map_.taken(page); ++wait) {
        DEVALLOC_PROBE(open_wait);
        detail::pause_briefly();
        now = state.load(detail::memory_order_relaxed);
      }
      if (chunk_of(now) == 0 && !free_map_.taken(page) && claim_span(page, fresh.span)) {
        open_page(page, cls, fresh, k);
        grant_page = seen;
        grant = k;  // reservations 0 .. k-1 (k < fresh.spots: the lanes beyond whole pages)
        return;
      }
      // Only a page of exactly this class serves the group: its lanes ask for different sizes of
      // the class, and only the class' chunk size fits each of them.
      if (!has_room(now, cls, fresh.spots)) {
        if (foreign != nullptr) { *foreign = has_other_room(now, cls); }
        return;
      }
      old = state.fetch_add(k, detail::memory_order_acquire);
    }
    DEVALLOC_PROBE(reserve);
    account_increment(page, old, cls, fresh.spots, k);
    std::uint32_t got = 0;
    if (has_room(old, cls, fresh.spots)) {
      got = fresh.spots - count_of(old) < k ? fresh.spots - count_of(old) : k;
      grant_page = seen;
      grant = count_of(old) << 6 | got;
    }
    if (got == 0 && foreign != nullptr) { *foreign = has_other_room(old, cls); }
    if (got < k) {
      DEVALLOC_PROBE(reserve_short);
      // A failed reservation wrote nothing: relaxed.
      give_back(page, cls, fresh.spots, k - got, detail::memory_order_relaxed);
    }
  }

  /// Whether a page in state `state` is split into chunks of exactly `chunk` bytes (`spots` of
  /// them a page) and has a spot left: the one test of a directory entry's page (reservations,
  /// the slot follow, offers, the directory scan).
  DEVALLOC_HOST_DEVICE static constexpr bool has_room(std::uint64_t state, std::uint32_t chunk,
                                                      std::uint32_t spots) noexcept
  {
    return chunk_of(state) == chunk && count_of(state) < spots;
  }

  /// Whether a page in state `state` is split into chunks of another size than `chunk` (up to a
  /// page: not part of a multi-page chunk) and has a spot left.
  DEVALLOC_HOST_DEVICE static constexpr bool has_other_room(std::uint64_t state, std::uint32_t chunk) noexcept
  {
    const std::uint32_t other = chunk_of(state);
    return other != chunk && other != 0u && other <= pagesize && has_spot(other, count_of(state));
  }

  /// Whether page `page` (as a directory entry names it) can serve no request of chunk size
  /// `cls` (`spots` chunks) for now: full, of another chunk size, or reset and given back to the
  /// free-page map. A page taken but not opened yet (its owner installs before it opens) can.
  DEVALLOC_DEVICE bool cannot_serve(std::uint32_t page, std::uint32_t cls, std::uint32_t spots) const noexcept
  {
    const std::uint64_t now = load_state(states_, page);
    if (chunk_of(now) == 0) { return !free_map_.taken(page); }
    return !has_room(now, cls, spots);
  }

  /// Every directory entry that may name a page of chunk size `cls` — the class page, the class'
  /// row, then the whole-warp slots — read by the lanes of the warp that scan for this class
  /// together (match_any; any subset of a warp): each lane reads scan_batch entries a step and the
  /// states of the pages they name, all loads of a step independent (two memory latencies a step),
  /// so a group of k lanes reads k x scan_batch entries a step. The pages found with room of this
  /// chunk size serve the group one page at a time: the lowest lane still without a chunk reserves
  /// for all such lanes by CAS (reserve_up_to: never over-counts). Returns nullptr for a lane the
  /// whole scan found no room for. Runs only after the directory rounds failed (alloc_chunk): in
  /// a tight heap the pages the slots keep open are where the room is, and reading a few thousand
  /// entries is cheaper than the walk over every page's state. On a reset heap it is the launch's
  /// tail: the few requests that lose every round to contention scan, and the kernel waits for
  /// them (docs/scatter.md, Search, item 5). Before, each lane read its entries alone, one state
  /// after another.
  /// A class of one chunk a page reads nothing: such a page is never put into the directory with
  /// room (every group of it takes pages directly, and its free leaves no live chunk to offer),
  /// and a scan takes about a millisecond under load while the kernel waits for its slowest lane
  /// (devalloc-bench on an H100, 2^17 threads x 4 KiB at 90 % fill: 45 M -> 0.81 G allocs/s).
  /// A class of fewer than fine_group chunks a page reads no whole-warp slots: its groups of
  /// fine_group lanes or more fill whole pages and send the rest (fewer than fine_group lanes) to
  /// the class slots, so they never install one there, and those
  /// slots name its pages only by accident (a page reset and reopened for it while a stale slot
  /// still named it). The 4 096 or so such entries of a 128 MiB heap were most of the scan, and
  /// the scan of one lone lane was the launch's tail: XMallocSIMD's 64-byte requests (one
  /// 2048-byte chunk a warp, two a page) at 2^18 threads on a reset heap ran 0.25-0.48 G
  /// allocs/s, 1.9-2.6 G without those entries (H100 probe, 9 launches each; docs/scatter.md,
  /// Search, item 5 (g)).
  DEVALLOC_DEVICE void* scan_directory(std::uint32_t cls, const page_layout& fresh) const noexcept
  {
    if (fresh.spots == 1u) { return nullptr; }
    DEVALLOC_PROBE(directory_scan);
    const std::uint32_t peers = detail::match_any(detail::active_mask(), cls);
    const unsigned lane = detail::lane_id();
    const unsigned leader = detail::leader_lane(peers);
    const std::uint32_t rank = detail::rank_in(peers);
    const std::uint32_t k = detail::popcount(peers);
    const std::uint32_t cls_index = class_index(cls);
    const std::uint32_t* rows[3] = {&class_page(cls), class_row(cls_index), warp_row()};
    const std::uint32_t counts[3] = {1u, slots_, warp_slots_};
    // The group starts at its own slots (groups of different lanes of a multiprocessor apart).
    const std::uint32_t starts[3] = {0u, small_slot_key() + leader, warp_slot_key(cls_index) + leader};
    void* out = nullptr;
    const std::uint32_t rows_read = fresh.spots < fine_group ? 2u : 3u;  // no whole-warp slots: above
    for (std::uint32_t r = 0; r < rows_read; ++r) {
      const std::uint32_t n = counts[r];
      if (n == 0) { continue; }  // no whole-warp slots (Config::warp_slots 0)
      // One division a row; the entries' positions then wrap by a subtraction (pos < n).
      const std::uint32_t start = starts[r] % n;
      // Every lane of the group runs the same steps (n, k are the group's): the ballots and
      // shuffles below see all of `peers`.
      for (std::uint32_t step = 0; step < n; step += k * scan_batch) {
        std::uint32_t entries[scan_batch];
        DEVALLOC_UNROLL
        for (std::uint32_t j = 0; j < scan_batch; ++j) {
          const std::uint32_t pos = step + j * k + rank;  // the group's loads of one j are neighbours
          const std::uint32_t at = start + pos < n ? start + pos : start + pos - n;
          entries[j] = pos < n ? detail::atomic_load_relaxed(rows[r][at]) : 0u;
        }
        std::uint64_t seen_states[scan_batch];
        DEVALLOC_UNROLL
        for (std::uint32_t j = 0; j < scan_batch; ++j) {
          seen_states[j] = entries[j] != 0 ? load_state(states_, entries[j] - 1u) : 0u;
        }
        std::uint32_t room = 0;  // bit j: entries[j] names a page of this chunk size with room
        DEVALLOC_UNROLL
        for (std::uint32_t j = 0; j < scan_batch; ++j) {
          if (entries[j] != 0 && has_room(seen_states[j], cls, fresh.spots)) { room |= 1u << j; }
        }
        for (;;) {
          const std::uint32_t needy = detail::ballot(peers, out == nullptr);
          if (needy == 0) { return out; }
          const std::uint32_t finders = detail::ballot(peers, room != 0u);
          if (finders == 0) { break; }
          // The lowest lane that found a page offers its first one to the group.
          const unsigned finder = detail::leader_lane(finders);
          std::uint32_t offered = 0;
          if (lane == finder) {
            const unsigned first = detail::lowest_bit(room);
            room &= room - 1u;
            DEVALLOC_UNROLL
            for (std::uint32_t j = 0; j < scan_batch; ++j) {
              if (j == first) { offered = entries[j]; }
            }
          }
          const std::uint32_t page = detail::shuffle(peers, offered, finder) - 1u;
          const unsigned reserver = detail::leader_lane(needy);
          std::uint32_t grant = 0;
          if (lane == reserver) { grant = reserve_up_to(page, cls, fresh, detail::popcount(needy)); }
          // The reserver's acquire happens before every member's bit claim.
          detail::sync_lanes(peers);
          grant = detail::shuffle(peers, grant, reserver);
          if (out == nullptr) {
            const std::uint32_t my = detail::rank_in(needy);
            if (my < (grant & 63u)) { out = take_spot(page, cls, fresh, (grant >> 6) + my); }
          }
        }
      }
    }
    return out;
  }

  /// After a claim that left `used` of its map word's 64 pages taken: sets or clears the
  /// dense-map flag (dense_set_bits, dense_clear_bits); a relaxed hint, written only on a change.
  DEVALLOC_DEVICE void note_density(std::uint32_t used) const noexcept
  {
    detail::device_atomic<std::uint32_t> flag(dense_map());
    const std::uint32_t was = flag.load(detail::memory_order_relaxed);
    if (was == 0u && used >= dense_set_bits) { flag.store(1u, detail::memory_order_relaxed); }
    if (was != 0u && used <= dense_clear_bits) { flag.store(0u, detail::memory_order_relaxed); }
  }

  /// Directory entries each lane of scan_directory reads a step (with the states of their pages:
  /// independent loads, two memory latencies a step).
  static constexpr std::uint32_t scan_batch = 8;

  /// A free made page `page` (chunk size `chunk`, `spots` chunks) non-full: offer it to the
  /// calling warp's slot of its class (the small groups' slot) if that slot names no page with
  /// room of that class.
  DEVALLOC_DEVICE void offer_page(std::uint32_t page, std::uint32_t chunk, std::uint32_t spots) const noexcept
  {
    offer(slot_for(chunk, 1u), page, chunk, spots);
  }

  /// A page the walk opened (a free page it came across) keeps room: offered to the calling warp's
  /// slot of its class and to the class page (each takes it only if it names no page of the class
  /// with room), so that the directory rounds and scans find that room, not only a later walk:
  /// the rule of directory_round (no page with room outside the directory) for the walk's pages.
  /// Requests reach the walk in a tight heap when the map words their rounds look at are taken;
  /// in the census load of docs/scatter.md, "One path per warp", 90-400 requests a class walked
  /// before directory_round kept its pages in the directory, none after, so this offer is not
  /// measured on its own.
  DEVALLOC_DEVICE void offer_opened(std::uint32_t page, std::uint32_t cls, const page_layout& fresh) const noexcept
  {
    if (fresh.spans() || fresh.spots == 1u) { return; }
    offer_page(page, cls, fresh.spots);
    offer(class_page(cls), page, cls, fresh.spots);
  }

  /// Puts page `page` (chunk size `chunk`, `spots` chunks) into directory word `word` unless the
  /// word names it already or names a page of that chunk size with room. A relaxed hint: the
  /// chunk size and room are checked by whoever reserves.
  DEVALLOC_DEVICE void offer(std::uint32_t& word, std::uint32_t page, std::uint32_t chunk,
                             std::uint32_t spots) const noexcept
  {
    detail::device_atomic<std::uint32_t> entry(word);
    std::uint32_t current = entry.load(detail::memory_order_relaxed);
    if (current == page + 1u) { return; }
    if (current != 0) {
      const std::uint64_t seen = load_state(states_, current - 1u);
      if (has_room(seen, chunk, spots)) { return; }
    }
    entry.compare_exchange_strong(current, page + 1u, detail::memory_order_relaxed, detail::memory_order_relaxed);
  }

  /// §6.1 alloc lines 1-32 within one super block: start at the hashed page, walk region by
  /// region (skipping regions over the fill threshold), wrapping around once.
  DEVALLOC_DEVICE void* search_block(std::uint32_t block, std::uint32_t size, const page_layout& fresh,
                                     std::uint32_t cls, std::uint64_t hash, bool exhaustive) const noexcept
  {
    const std::uint32_t first = block * pages_per_block_;
    const std::uint32_t n = block_pages(block);
    std::uint32_t pos = static_cast<std::uint32_t>(hash % n);
    std::uint32_t left = n;
    std::uint32_t skipped = 0;  // regions skipped in pass 0
    while (left > 0) {
      const std::uint32_t page = first + pos;
      const std::uint32_t region = region_of(page);
      const std::uint32_t region_pages = region_size(region);
      const std::uint32_t region_end = region * region_pages_ + region_pages;  // within this block
      std::uint32_t span = region_end - page;
      if (span > left) { span = left; }
      const std::uint32_t full = detail::atomic_load_relaxed(regions_[region]);
      // §5.4 / alloc line 6: skip regions whose pages are more than 90 % full (pass 1: only full ones).
      const bool usable = exhaustive ? full < region_pages : !over_threshold(full, region_pages);
      if (usable) {
        if (void* p = walk_pages(page, 1u, span, size, cls, fresh, exhaustive)) { return p; }
      } else {
        DEVALLOC_PROBE(region_skip);
        // A sample of the block's regions is over the threshold: the rest of this walk would
        // likely skip them all (a shortcut of the paper's walk; without it, thousands of workers
        // that started in a super block that filled up meanwhile each walk all of its regions).
        // Asked at the first skipped region and every block_over_every-th after it: block_over
        // reads up to 32 counters, and a failing request in a tight heap skips thousands of
        // regions (asked at every one, 16-4096 B at 80 % fill took 27-29 instead of 22-23 ms:
        // H100 probe, with the exact block counters of that time).
        if (!exhaustive && skipped++ % block_over_every == 0 && block_over(block, region)) { return nullptr; }
      }
      left -= span;
      pos += span;
      if (pos == n) { pos = 0; }
    }
    return nullptr;
  }

  /// Pages whose states the walk reads together (search_block).
  static constexpr std::uint32_t walk_batch = 8;
  /// Skipped regions per look at the super block's counters (search_block, block_over).
  static constexpr std::uint32_t block_over_every = 32;

  /// Whether a page in state `state` may serve the walk's request (a snapshot; try_page and
  /// try_page_group decide): a free page, or a page with a spot left of the request's own class
  /// (pass 0) or of a chunk size the request accepts (pass 1).
  DEVALLOC_HOST_DEVICE static constexpr bool may_serve(std::uint64_t state, std::uint32_t size,
                                                       const page_layout& fresh, std::uint32_t cls,
                                                       bool exhaustive) noexcept
  {
    const std::uint32_t chunk = chunk_of(state);
    if (chunk == 0) { return true; }
    if (chunk == cls) { return count_of(state) < fresh.spots; }
    return exhaustive && accepts(chunk, size) && count_of(state) < layout_of(chunk).spots;
  }

  /// §6.1 alloc lines 8-27 for one page: use it if its chunk size fits, take it from the free-page
  /// map and open it if it is free.
  DEVALLOC_DEVICE void* try_page(std::uint32_t page, std::uint32_t size, const page_layout& fresh, std::uint32_t cls,
                                 bool exhaustive) const noexcept
  {
    if (!exhaustive) { return try_page_group(page, fresh, cls); }
    const std::uint64_t seen = load_state(states_, page);
    if (!may_serve(seen, size, fresh, cls, true)) { return nullptr; }  // another size, or full
    const std::uint32_t chunk = chunk_of(seen);
    if (chunk == 0) {
      // Ours if we take it in the map (else someone else opens or resets it; a span class: if it
      // starts a free aligned group).
      if (!claim_span(page, fresh.span)) { return nullptr; }
      void* p = open_for_one(page, cls, fresh);
      offer_opened(page, cls, fresh);
      return p;
    }
    return reserve(page, chunk, chunk == cls ? fresh : layout_of(chunk));
  }

  /// Pass 0 for one page, for the lanes of the warp that arrive at this page together with the
  /// same size class (match_any; any subset of a warp, on either backend): the lowest
  /// lane acts for all k of them with one atomic — it takes a free page from the free-page map
  /// and opens it keeping min(k, chunks) reservations, or reserves k on a page of their own class
  /// (the exact chunk size) with one fetch_add(k) and gives back what the page had no room for
  /// (larger chunks that accepts() allows are left to the exhaustive pass 1: with the directory scan
  /// shared by a warp's lanes, more requests reach the walk while a tight heap still has pages
  /// of larger classes with room, and taking those chunks for small requests failed the Scatter
  /// suite's Shrink<256> alignment test in 7 of 130 H100 runs; with the exact class, 0 of 60 (and 0 of 60 with it only
  /// while the map is dense): results/gpu/2026-11-26_4308cc5_H100/scan-variants.log (commit 74ec19e's tree)) — then
  /// each lane with a reservation takes its spot (bit) from its own reservation index. Lanes left without a reservation
  /// go on searching alone. The only wait is __syncwarp(peers) for the leader, who never waits for anyone.
  DEVALLOC_DEVICE void* try_page_group(std::uint32_t page, const page_layout& fresh, std::uint32_t cls) const noexcept
  {
    DEVALLOC_PROBE(page_try);
    // Lanes of one class are interchangeable here: pass 0 opens a free page with the class' chunk
    // size and reserves only on pages of exactly that size, which every request of the class fits.
    const std::uint32_t peers =
      detail::match_any(detail::active_mask(), (static_cast<unsigned long long>(page) << 32) | cls);
    const unsigned leader = detail::leader_lane(peers);
    const std::uint32_t rank = detail::rank_in(peers);
    std::uint32_t grant = 0;  // first reservation index << 8 | reservations granted
    if (rank == 0) {
      const std::uint32_t k = detail::popcount(peers);
      detail::device_atomic<std::uint64_t> state(states_[page]);
      const std::uint64_t seen = state.load(detail::memory_order_relaxed);
      const std::uint32_t granted = k < fresh.spots ? k : fresh.spots;
      const std::uint32_t c = chunk_of(seen);
      if (c == 0) {
        // Free page (alloc lines 16-19): ours if we take it in the free-page map (a span class: if
        // it starts a free aligned group).
        if (claim_span(page, fresh.span)) {
          open_page(page, cls, fresh, granted);
          grant = granted;
          if (granted < fresh.spots) { offer_opened(page, cls, fresh); }
        }
      } else if (c == cls) {
        // Used page of the request's own class (alloc lines 23-27 with the exact chunk size: a
        // larger chunk, which accepts() allows up to wastefactor times the request, only in pass 1).
        const std::uint32_t spots = fresh.spots;
        if (count_of(seen) < spots) {
          // acquire: frees that made the room happen before the bit claims (tryUsePage 2-6).
          DEVALLOC_PROBE(reserve);
          const std::uint64_t old = state.fetch_add(k, detail::memory_order_acquire);
          account_increment(page, old, c, spots, k);
          std::uint32_t got = 0;
          if (has_room(old, c, spots)) {
            got = spots - count_of(old) < k ? spots - count_of(old) : k;
            grant = count_of(old) << 8 | got;
          }
          if (got < k) {
            DEVALLOC_PROBE(reserve_short);
            give_back(page, c, spots, k - got, detail::memory_order_relaxed);
          }
        }
      }
    }
    // The leader's acquire (and the bitfields it zeroed) happen before every member's bit claim.
    detail::sync_lanes(peers);
    grant = detail::shuffle(peers, grant, leader);
    if (rank >= (grant & 0xFFu)) { return nullptr; }
    return take_spot(page, cls, fresh, (grant >> 8) + rank);
  }

  /// Reserves up to `want` (1..63) chunks on page `page` if it is split into chunks of exactly
  /// `chunk` bytes (`layout`) and has room, by CAS, which never over-counts (the exhaustive pass,
  /// the directory scan: tight heaps). Returns first reservation index << 6 | chunks reserved
  /// (0: none); the caller takes the spots from that index.
  DEVALLOC_DEVICE std::uint32_t reserve_up_to(std::uint32_t page, std::uint32_t chunk, const page_layout& layout,
                                              std::uint32_t want) const noexcept
  {
    detail::device_atomic<std::uint64_t> state(states_[page]);
    std::uint64_t old = state.load(detail::memory_order_relaxed);
    std::uint32_t got = 0;
    for (;;) {
      if (!has_room(old, chunk, layout.spots)) { return 0u; }
      DEVALLOC_PROBE(reserve);
      got = layout.spots - count_of(old) < want ? layout.spots - count_of(old) : want;
      if (state.compare_exchange_weak(old, old + got, detail::memory_order_acquire, detail::memory_order_relaxed)) {
        break;
      }
    }
    account_increment(page, old, chunk, layout.spots, got);
    return count_of(old) << 6 | got;
  }

  /// One chunk of page `page` (reserve_up_to for one), its spot taken; nullptr if the page has no
  /// room of chunk size `chunk`.
  DEVALLOC_DEVICE void* reserve(std::uint32_t page, std::uint32_t chunk, const page_layout& layout) const noexcept
  {
    const std::uint32_t grant = reserve_up_to(page, chunk, layout, 1u);
    return grant != 0 ? take_spot(page, chunk, layout, grant >> 6) : nullptr;
  }

  /// Opens page `page`, which the caller has taken in the free-page map (so its chunk size is 0
  /// and nobody else opens it; a span: with the span's other pages, claim_span), with chunk size
  /// `cls` of this `layout`, keeping `granted` reservations (1..chunks; the caller then takes
  /// spots from index 0).
  ///   Flat layouts: the page bitfield is zero whenever the chunk size is 0 (invariant C4: frees
  ///   clear their bits before giving back, a multi-page free zeroes its page count before
  ///   releasing the pages), so one fetch_add of (cls, granted) makes the page usable. The state
  ///   may hold transient +1s of reservers that read an old directory entry; adding keeps them, and
  ///   their give-back finds the page as it is.
  ///   Hierarchical layouts: the in-page segment words lie in what other layouts (and multi-page
  ///   chunks) use as data, so the owner zeroes them first; the fetch_add (release) publishes them
  ///   to every reserver (acquire).
  /// The previous owner's writes happen before ours through the free-page map (its release, our
  /// claim's acquire).
  /// Whether a page of `layout` holds one chunk, in one flat page (not a span): opened for one
  /// request it is full at once, and open_page_full hands its chunk out without a bit claim
  /// (open_for_one). Directory rounds claim a bit per lane even where a share fills its page:
  /// opening those pages full cost the benchmark's own 256 B and mixed cells 3 % (directory_round).
  DEVALLOC_HOST_DEVICE static constexpr bool one_chunk_page(const page_layout& layout) noexcept
  {
    return !layout.hierarchical && !layout.spans() && layout.spots == 1u;
  }

  /// Opens page `page`, taken from the free-page map by the caller, with chunk size `cls` full
  /// (a one_chunk_page layout): its one reservation and its bit the caller's, whose chunk 0 it
  /// then takes: one reservation and one bitfield write, no bit claim (an atomic round trip). Both
  /// are relaxed and need no answer: nobody else can reserve on a full page or write its bitfield
  /// before its chunk is freed, and whoever frees it got its pointer from the caller, after this,
  /// so the free's fetch_and reads the bit written here. The state first, then the bit: C4 (bits
  /// clear while the chunk size is 0) holds throughout. The caller adds the page to its region
  /// counter (region_add).
  DEVALLOC_DEVICE void open_page_full(std::uint32_t page, std::uint32_t cls, const page_layout& layout) const noexcept
  {
    DEVALLOC_PROBE(open_won);
    DEVALLOC_PROBE(open_full);
    detail::device_atomic<std::uint64_t>(states_[page])
      .fetch_add(pack(cls, layout.spots), detail::memory_order_relaxed);
    detail::device_atomic<std::uint32_t>(bitmasks_[page])
      .store(detail::low_bits(layout.spots), detail::memory_order_relaxed);
  }

  DEVALLOC_DEVICE void open_page(std::uint32_t page, std::uint32_t cls, const page_layout& layout,
                                 std::uint32_t granted) const noexcept
  {
    count_opened(page, layout, granted, count_of(publish_open(page, cls, layout, granted)));
  }

  /// open_page in two halves, for a caller with other work to overlap (directory_round: the
  /// bit claims of the share's lanes): publish_open gives the page its chunk size and the
  /// `granted` reservations and returns the state before (its count: transient +1s of stale
  /// reservers); count_opened, given that count, adds the page to its region counter (full) or
  /// room counter.
  /// The counters are hints read by searches that run meanwhile (pass 0's region skip, the room
  /// counters' alloc_counted); at rest they are exact (invariants R1, 7) once both halves ran.
  DEVALLOC_DEVICE void count_opened(std::uint32_t page, const page_layout& layout, std::uint32_t granted,
                                    std::uint32_t count_before) const noexcept
  {
    if (count_before + granted >= layout.spots) {
      region_add(page, 1u);
    } else {
      room_add(page, layout.spans(), layout.spots, 1u);
    }
  }
  DEVALLOC_DEVICE std::uint64_t publish_open(std::uint32_t page, std::uint32_t cls, const page_layout& layout,
                                             std::uint32_t granted) const noexcept
  {
    DEVALLOC_PROBE(open_won);
    detail::device_atomic<std::uint64_t> state(states_[page]);
    if (layout.hierarchical) {
      detail::device_atomic<std::uint32_t>(bitmasks_[page]).store(0u, detail::memory_order_relaxed);
      clear_segment_words(page_data(page));
    }
    // A span: its other pages are marked before the first page's state (release) names the size.
    if (layout.spans()) { mark_span(page, layout.span); }
    const std::uint64_t before =
      state.fetch_add(pack(cls, granted), layout.hierarchical || layout.spans() ? detail::memory_order_release
                                                                                : detail::memory_order_relaxed);
    return before;
  }

  // ---------------------------------------------------------------------------------------------
  // getAvailableSlots up to a page (thesis §4.3.5), shared by the host and the device variant

  /// Per-page count: pages [begin, pages_) with stride `step`. A free page counts the chunks of
  /// the request's class (a span class: of its class without spans, single_page_class), and a
  /// free aligned group of a span class's pages the rest of the span's chunks, counted at its first
  /// page (alloc_chunk takes groups before single pages: alloc_spanless).
  DEVALLOC_HOST_DEVICE std::uint64_t count_free_chunks(const std::uint64_t* states, const std::uint64_t* map_words,
                                                       std::uint32_t begin, std::uint32_t step,
                                                       std::uint32_t size) const noexcept
  {
    const std::uint32_t cls = class_of(size);
    const page_layout fresh = layout_of(cls);
    const page_layout single = fresh.span > 1u ? layout_of(single_page_class(size)) : fresh;
    const std::uint32_t per_page = single.span == 1u ? single.spots : 0u;  // a free page alone
    std::uint64_t slots = 0;
    for (std::uint64_t page = begin; page < pages_; page += step) {
      const auto at = static_cast<std::uint32_t>(page);
      const std::uint64_t state = load_state(states, at);
      const std::uint32_t chunk = chunk_of(state);
      const std::uint32_t used = count_of(state);
      if (chunk == 0) {
        if (used != 0) { continue; }
        if constexpr (page_map::units_per_page > 1u) {
          // With runs of units a page of state 0 is free only if no run holds any of its units.
          const std::uint64_t word =
            detail::atomic_load_relaxed(const_cast<std::uint64_t&>(map_words[at / page_map::pages_per_word]));
          if (page_map::page_units(word, at) != 0) { continue; }
        } else {
          (void)map_words;
        }
        slots += per_page;
        if (fresh.spans() && at % fresh.span == 0 && at + fresh.span <= pages_) {
          bool group_free = true;
          for (std::uint32_t d = 1; d < fresh.span; ++d) { group_free = group_free && load_state(states, at + d) == 0; }
          if (group_free) { slots += fresh.spots - fresh.span * per_page; }
        }
        continue;
      }
      if (!accepts(chunk, size)) { continue; }
      const std::uint32_t spots = chunk == cls ? fresh.spots : layout_of(chunk).spots;
      if (used < spots) { slots += spots - used; }
    }
    return slots;
  }
};

}  // namespace creation::scatter_detail
DEVALLOC_NAMESPACE_END
