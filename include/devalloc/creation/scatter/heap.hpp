// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/creation/scatter/heap.hpp
//
// `creation::scatter_detail::heap<Config>`: the root of creation::Scatter (creation/scatter.hpp) —
// where the pool's bytes go and the view of them that every piece works on. It implements the heap
// structure of ScatterAlloc (Steinberger et al. 2012, §5.1 super blocks / "access blocks", §5.2
// pages and page usage table, §5.4 regions) as the mallocMC thesis lays it out (Eckert 2014,
// §4.3.5, initHeap):
//
//   [header 256 B: active super block][page states: 8 B x pages][page bitfields: 4 B x pages]
//   [region counters: 4 B x regions]
//   [free-page bitmap: 1 bit per page, 64-bit words; with runs (run_unit) 1 bit per unit]
//   [with runs: run start bits, run end bits: 1 bit per unit each]
//   [room counters: room_stripes sectors of 32 B: pages with room per chunk count 1..8]
//   [class directory: 4 B x (classes x (slots + 1) + warp slots) + the dense-map flag, 4 B]
//   [pad to 256][page 0][page 1] ... [page pages-1]
//
// The free-page bitmap (detail/page_bitmap.hpp), the room counters and the class directory are
// this project's additions (docs/scatter.md, "Search"): the bitmap hands out free pages, the room
// counters say whether any page of few chunks has room (fill.hpp, room_add), the directory keeps
// per size class and multiprocessor slot the page its warps are filling.
//
// plan() computes that layout on the host; the heap object holds only the pointers into it and
// the geometry (page, super block and region counts), so creation::Scatter, which derives from
// this class through the other pieces (heap -> fill -> pages -> search -> Scatter; each adds
// functions, none adds data), stays one trivially copyable value of pointers. The page format
// (layout within a page, bitfields, the state word) is detail/bitfield_page.hpp's.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../../detail/bitfield_page.hpp"
#include "../../detail/fixed_divisor.hpp"
#include "../../detail/page_bitmap.hpp"
#include "../../detail/page_groups.hpp"
#include "../../detail/platform.hpp"
#include "../../detail/unit_runs.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace creation::scatter_detail {

template <class Config>
class heap : protected detail::bitfield_page<Config::pagesize, Config::span_pages> {
 protected:
  static constexpr std::uint32_t pagesize = Config::pagesize;
  static constexpr unsigned long long accessblocksize = Config::accessblocksize;
  static constexpr std::uint32_t regionsize = Config::regionsize;
  /// Bytes of a unit of the free map (0: a bit a page) and the units of a page (Config::run_unit).
  static constexpr std::uint32_t run_unit = Config::run_unit;
  static constexpr std::uint32_t units_per_page = run_unit == 0 ? 1u : pagesize / run_unit;
  /// The free map: of pages (page_bitmap), or of units with pages as aligned groups (page_groups).
  using page_map = detail::page_map<units_per_page>;

 public:
  /// Most pages one heap can have (page indices are 32-bit; byte offsets are 64-bit).
  static constexpr std::uint32_t max_pages = 1u << 31;

  /// Where the pool's bytes go (host). pages == 0: the pool is too small.
  struct geometry {
    std::size_t meta_offset = 0;  ///< header: from pool start
    std::size_t meta_bytes = 0;   ///< header + tables, up to the first page
    std::size_t states_offset = 0;
    std::size_t bitmasks_offset = 0;
    std::size_t regions_offset = 0;
    std::size_t free_map_offset = 0;    ///< free-page bitmap (64-bit words)
    std::size_t run_bounds_offset = 0;  ///< runs' start bits, then their end bits (run_unit != 0)
    std::size_t rooms_offset = 0;       ///< room counters (room_words, 32-byte aligned)
    std::size_t directory_offset = 0;   ///< class directory: page numbers of the class rows, warp slots, class pages
    std::size_t data_offset = 0;        ///< first page, 256-byte aligned
    std::uint32_t pages = 0;
    std::uint32_t pages_per_block = 0;
    std::uint32_t blocks = 0;
    std::uint32_t region_pages = 0;  ///< pages per region (<= regionsize, divides pages_per_block)
    std::uint32_t regions = 0;
    std::uint32_t slots = 0;       ///< directory slots per class
    std::uint32_t warp_slots = 0;  ///< directory slots of whole-warp groups (any class)
  };

  /// Host. Splits `bytes` bytes at address `base` into metadata and as many pages as fit.
  /// A super block larger than the heap becomes one super block of all pages; a heap that does
  /// not divide into super blocks gets a shorter last one. 64-bit arithmetic throughout.
  static geometry plan(std::uintptr_t base, std::size_t bytes) noexcept
  {
    geometry g{};
    const std::uintptr_t meta = align_up(base, 256);
    if (meta < base || meta - base >= bytes) { return g; }
    const std::size_t available = bytes - (meta - base);
    // Largest page count whose layout fits (binary search; the fit is monotonic in the count).
    std::size_t hi = available / (std::size_t{pagesize} + 12u) + 1u;  // does not fit
    if (hi > max_pages + std::size_t{1}) { hi = max_pages + std::size_t{1}; }
    std::size_t lo = 0;  // fits (trivially)
    while (hi - lo > 1) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (layout_for(static_cast<std::uint32_t>(mid), meta).end - meta <= available) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    if (lo == 0) { return g; }
    const planned p = layout_for(static_cast<std::uint32_t>(lo), meta);
    g.meta_offset = meta - base;
    g.states_offset = p.states - base;
    g.bitmasks_offset = p.bitmasks - base;
    g.regions_offset = p.regions - base;
    g.free_map_offset = p.free_map - base;
    g.run_bounds_offset = p.run_bounds - base;
    g.rooms_offset = p.rooms - base;
    g.directory_offset = p.directory - base;
    g.data_offset = p.data - base;
    g.meta_bytes = p.data - meta;
    g.pages = static_cast<std::uint32_t>(lo);
    g.pages_per_block = p.pages_per_block;
    g.blocks = p.blocks;
    g.region_pages = p.region_pages;
    g.regions = p.regions_count;
    g.slots = p.slots;
    g.warp_slots = p.warp_slots;
    return g;
  }

  /// Size classes the directory tells apart: chunk sizes 16, 32, ... map to entries 0, 1, ...
  /// (modulo this count for pages above 8 KiB, whose larger classes then share entries).
  static constexpr std::uint32_t directory_classes = pagesize / 16u < 512u ? pagesize / 16u : 512u;

  /// Directory slots per class for a heap of `pages` pages: Config::class_slots, fewer in small
  /// heaps (one per 128 pages). A sparse class does not open a page per slot: a slot whose page
  /// served nobody takes the class page first (search.hpp, class_page). Fewer slots cost throughput in small heaps
  /// (H100, 2^17 threads x 16-256 B in 128 MiB: 1.57 G allocs/s with one slot per 128 pages,
  /// 0.05 G with one per 512; docs/scatter.md, class_slots).
  DEVALLOC_HOST_DEVICE static constexpr std::uint32_t slots_for(std::uint32_t pages) noexcept
  {
    std::uint64_t slots = static_cast<std::uint64_t>(pages) / 128u;
    if (slots > Config::class_slots) { slots = Config::class_slots; }
    return slots == 0 ? 1u : static_cast<std::uint32_t>(slots);
  }

  /// Directory slots of groups of fine_group or more lanes of one class (a whole warp asking for
  /// one size), shared by every class, for a heap of `pages` pages: Config::warp_slots, fewer in
  /// small heaps (one per 8 pages), 0 if Config::warp_slots is 0 (such groups then use their
  /// class' slots).
  DEVALLOC_HOST_DEVICE static constexpr std::uint32_t warp_slots_for(std::uint32_t pages) noexcept
  {
    if (Config::warp_slots == 0) { return 0u; }
    std::uint64_t slots = static_cast<std::uint64_t>(pages) / 8u;
    if (slots > Config::warp_slots) { slots = Config::warp_slots; }
    return slots == 0 ? 1u : static_cast<std::uint32_t>(slots);
  }

  /// Words of the class directory: the class rows (`slots` per class), the whole-warp slots, one
  /// class page per class and the dense-map flag (search.hpp).
  DEVALLOC_HOST_DEVICE static constexpr std::size_t directory_words(std::uint32_t slots,
                                                                    std::uint32_t warp_slots) noexcept
  {
    return std::size_t{directory_classes} * (slots + 1u) + warp_slots + 1u;
  }

  /// Pages with room are counted per chunk count m (chunks a page) for m <= room_max_spots
  /// (fill.hpp, room_add; m = 1 is never counted: such a page with room is a free page), in
  /// room_stripes copies, one 32-byte sector each (stripe: the page's index modulo room_stripes),
  /// so that pages filling at once do not all add to one word. Spans (span_pages > 1) are counted
  /// apart, per chunk count of the span (m = 2 .. 2 span_pages - 1: a span's chunks are above
  /// half a page), at their first page (fill.hpp, room_key).
  static constexpr std::uint32_t room_max_spots = 8;
  static constexpr std::uint32_t room_stripes = 128;
  /// Counters of spans a stripe: chunk counts 2 .. 2 max_span - 1 (none without spans: max_span 1).
  static constexpr std::uint32_t room_span_keys =
    detail::bitfield_page<Config::pagesize, Config::span_pages>::max_span * 2u - 2u;
  /// Words of one stripe (counter m - 1 for pages of m = 1 .. room_max_spots chunks, then
  /// room_max_spots + m - 2 for spans of m chunks; whole 32-byte sectors), and of all room counters.
  static constexpr std::uint32_t room_stride = (room_max_spots + room_span_keys + 7u) / 8u * 8u;
  static constexpr std::uint32_t room_words = room_stripes * room_stride;
  static_assert(room_max_spots <= room_stride, "heap: a stripe of room counters must hold every counted chunk count");

  /// Smallest pool (in bytes, from any address) that holds one page: alignment, header, one
  /// page's state, bitfield and region counter, bitmap word, room counters, directory, page
  /// alignment.
  static constexpr std::size_t min_pool_bytes = 255 + 256 + 16 + 7 + 8 + (run_unit == 0 ? 0 : 16) + 31 +
                                                4 * room_words + 4 * directory_words(1, 1) + 255 + pagesize;

 protected:
  static constexpr std::uintptr_t align_up(std::uintptr_t x, std::uintptr_t a) noexcept { return x + (a - x % a) % a; }

  struct planned {
    std::uintptr_t states, bitmasks, regions, free_map, run_bounds, rooms, directory, data, end;
    std::uint32_t pages_per_block, blocks, region_pages, regions_count, slots, warp_slots;
  };

  // Layout of `pages` pages with the metadata starting at `meta` (256-aligned). 64-bit sums.
  static planned layout_for(std::uint32_t pages, std::uintptr_t meta) noexcept
  {
    planned p{};
    std::uint64_t per_block = accessblocksize / pagesize;
    if (per_block == 0) { per_block = 1; }
    std::uint64_t region = regionsize < per_block ? regionsize : per_block;
    if (per_block >= pages) {
      per_block = pages == 0 ? 1 : pages;  // a super block larger than the heap: one super block of every page
    } else {
      per_block -= per_block % region;  // several super blocks: regions must not straddle them
    }
    if (region > per_block) { region = per_block; }
    p.pages_per_block = static_cast<std::uint32_t>(per_block);
    p.blocks = static_cast<std::uint32_t>(pages == 0 ? 0 : (pages + per_block - 1) / per_block);
    p.region_pages = static_cast<std::uint32_t>(region);
    p.regions_count = static_cast<std::uint32_t>(pages == 0 ? 0 : (pages + region - 1) / region);
    p.states = meta + 256;
    p.bitmasks = p.states + std::uintptr_t{8} * pages;
    p.regions = p.bitmasks + std::uintptr_t{4} * pages;
    p.free_map = align_up(p.regions + std::uintptr_t{4} * p.regions_count, 8);
    p.run_bounds = p.free_map + std::uintptr_t{8} * page_map::words_for(pages);
    p.rooms = align_up(p.run_bounds + (run_unit == 0 ? 0u : std::uintptr_t{16} * page_map::words_for(pages)), 32);
    p.directory = p.rooms + std::uintptr_t{4} * room_words;
    p.slots = slots_for(pages);
    p.warp_slots = warp_slots_for(pages);
    p.data = align_up(p.directory + std::uintptr_t{4} * directory_words(p.slots, p.warp_slots), 256);
    p.end = p.data + static_cast<std::uintptr_t>(pages) * pagesize;
    return p;
  }

  DEVALLOC_HOST_DEVICE char* page_data(std::uint32_t page) const noexcept
  {
    return data_ + static_cast<std::size_t>(page) * pagesize;
  }

  /// Pages of super block `block` (the last one may be short).
  DEVALLOC_HOST_DEVICE std::uint32_t block_pages(std::uint32_t block) const noexcept
  {
    return block + 1u == blocks_ ? pages_ - block * pages_per_block_ : pages_per_block_;
  }

  /// Regions of super block `block`.
  DEVALLOC_HOST_DEVICE std::uint32_t block_regions(std::uint32_t block) const noexcept
  {
    const std::uint32_t n = block_pages(block);
    const std::uint32_t whole = region_of(n);
    return whole + (n != whole * region_pages_);
  }

  /// The region of page `page` (page / region_pages_ without a divide instruction: the fill
  /// accounting asks at every page that fills or empties, and each division took about 20
  /// instructions and their registers in every allocating kernel).
  DEVALLOC_HOST_DEVICE std::uint32_t region_of(std::uint32_t page) const noexcept { return region_div_.quotient(page); }

  /// Sets the geometry's counts and their divisors (init_heap).
  void set_geometry(std::uint32_t pages, std::uint32_t pages_per_block, std::uint32_t blocks,
                    std::uint32_t region_pages, std::uint32_t regions) noexcept
  {
    pages_ = pages;
    pages_per_block_ = pages_per_block;
    blocks_ = blocks;
    region_pages_ = region_pages;
    regions_count_ = regions;
    region_div_ = detail::fixed_divisor<std::uint32_t>(region_pages);
  }
  DEVALLOC_HOST_DEVICE std::uint32_t region_size(std::uint32_t region) const noexcept
  {
    const std::uint32_t first = region * region_pages_;
    return pages_ - first < region_pages_ ? pages_ - first : region_pages_;
  }

  std::uint64_t* states_ = nullptr;        // per page: chunk size << 32 | fill count
  std::uint32_t* bitmasks_ = nullptr;      // per page: usage bits / segment-full marks / run length
  std::uint32_t* regions_ = nullptr;       // per region: full pages (and pages of multi-page chunks)
  std::uint32_t* active_block_ = nullptr;  // first word of the metadata (header)
  page_map free_map_;  // per page (per unit with runs): taken (split, multi-page, being opened or reset; a run) or free
  detail::unit_runs runs_;              // run_unit != 0: the runs' bounds over free_map_'s units
  std::uint32_t* rooms_ = nullptr;      // room_stripes x room_stride: pages with room per chunk count (room_add)
  std::uint32_t* directory_ = nullptr;  // per class and slot: 1 + the page the slot's warps fill (0: none)
  std::uint32_t slots_ = 1;             // directory slots per class
  std::uint32_t warp_slots_ = 0;        // directory slots of whole-warp groups, after the class rows
                                        // (then one class page per class: class_page(),
                                        // then the dense-map flag: dense_map())
  char* data_ = nullptr;
  char* data_end_ = nullptr;
  std::size_t meta_bytes_ = 0;
  std::uint32_t pages_ = 0;
  std::uint32_t pages_per_block_ = 0;
  std::uint32_t blocks_ = 0;
  std::uint32_t region_pages_ = 1;
  std::uint32_t regions_count_ = 0;
  // Divisor by region_pages_ (region_of).
  detail::fixed_divisor<std::uint32_t> region_div_;
};

}  // namespace creation::scatter_detail
DEVALLOC_NAMESPACE_END
