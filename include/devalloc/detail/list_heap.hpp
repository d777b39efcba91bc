// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/detail/list_heap.hpp
//
// The engine of the list-based baselines of ScatterAlloc (Steinberger et al. 2012, §4): a segment
// list of chunks with headers, free lists in size bins, split on allocation, merge with the
// successor on free. creation::ListFirstFit (one arena: "size list") and creation::ListPerSM (one
// arena per multiprocessor: "mp lists") are list_heap<Config> with their own configurations;
// docs/lists.md describes the design in full.
//
// Layout. The pool holds [arena controls][chunk-start bitmap][data]. The data area is a sequence
// of chunks in address order (the paper's segment list: a chunk's successor is at its start plus
// its size, so no prev/next pointers are stored). A chunk is a 16-byte header followed by its
// payload; sizes and offsets are in 16-byte units, so every payload is 16-byte aligned. Header:
//   info  (64 bits): state << 32 | size in units   (state: used, listed, held, absorbed)
//   link  (32 bits): the next chunk of its free list while it is in one
// The data area is cut into arenas (1, or one per multiprocessor); chunks never cross an arena's
// end. Each arena owns: 128 free lists ("bins": exact sizes below 16 units, then four bins per
// power of two), each a lock-free tagged stack (detail/tagged_stack.hpp) of its free chunks; a
// frontier (the arena's never-used tail, the "wilderness", is carved by an atomic CAS on it); a
// bitmap of non-empty bins (a hint only); an in-flight word; a merge flag; a dirty flag.
// The chunk-start bitmap has one bit per unit, set exactly where a chunk's header is valid.
//
// Allocation (create): need = payload units + 1. From the caller's arena (then the others, in
// order): pop the top of the first non-empty bin whose chunks all hold `need` (first fit over the
// size-ordered bins, §4), split off the rest as a new free chunk if it has at least 2 units, mark
// the chunk used; else carve `need` units from the frontier. If nothing is found: merge the arenas
// that saw frees (below), then scan every bin and frontier again; while memory is in flight
// somewhere (popped to be split, or held by a merge), retry (merge and scan) with a pause that
// grows from 32 ns to 64 us, until config::retry_rounds rounds (about 1 s) passed in which no
// merge made progress (a merge ticks its arena's progress word every 64 chunks, and counts its
// end), or scans after patience merges per arena (and two more) found nothing, before returning
// nullptr.
//
// Free (destroy): the start bit and the header must name a used chunk; one CAS used -> listed
// claims the free (a second free finds it listed: double free). Then the chunk grows over its
// successors while it can (merge on free, §4): a successor that is the top of its bin is popped
// (a pop like any other) and absorbed; a successor that is the frontier takes the chunk back into
// the wilderness. Then it is pushed onto its bin.
//
// Merge (slow path of create, per arena, only after frees): a worker takes the arena's merge flag
// (a try-lock: if it is taken, nobody waits for it), takes every bin's whole list at once, marks
// those chunks held, merges every run of held chunks into its first chunk, and pushes the rest
// back (each also growing over tops of bins and into the frontier as a free does).
//
// What is merged: (1) on free, a chunk with every successor that is on top of its bin at that
// moment, and with the frontier; (2) in a merge, every run of consecutive chunks that were in bins
// when it started, and on release again with tops and the frontier. Not merged: a free chunk with
// its predecessor (no back link: it merges when the predecessor is freed or in the next merge), a
// chunk buried in a bin under others (until a merge), chunks a stopped merge holds (until it
// resumes). A merge runs only when a request found nothing and the arena saw frees since its last
// merge; getAvailableSlots counts each run of free chunks as one (what a merge makes of it).
//
// Why it is safe under any scheduling (independent thread scheduling, preemption, a debugger stop
// between any two instructions):
//  1. Ownership. A chunk is owned by exactly one worker or by one bin: the popper of a bin's top
//     (the tag makes the pop CAS fail if anything changed the list since its head was read), the
//     carver of frontier units (CAS), the freer that turned used into listed (CAS), the merge that
//     took a bin's list (CAS). Only the owner writes a header; nobody writes to a chunk it does
//     not own, and every CAS on a header or head validates the word it read.
//  2. A header stops being a header only when its owner absorbs it into the chunk before it (or
//     into the wilderness), and every chunk absorbed was owned by the absorber (popped from the top
//     of its bin, or held by the absorber's merge). The absorber clears the chunk's start bit
//     before the memory can be handed out (its release push / frontier CAS orders it).
//  3. Stale pointers. A worker may hold the index of a chunk it does not own in three places: a
//     bin's top read before its pop CAS (reads of the node's link and info: garbage if the chunk
//     was popped and reused meanwhile, used only if the tagged CAS succeeds, which proves it was
//     not); a successor it inspects while growing its own chunk (that successor's only
//     predecessor is the inspector's own chunk, so nobody else can absorb it: its header stays a
//     header; a successor being carved has no start bit yet and is left alone); a pointer passed
//     to destroy() (below). So no CAS ever lands on memory that has become payload.
//  4. A held chunk is touched only by the arena's merge (one at a time: the merge flag); free and
//     allocation treat `held` as "not mine" and stop. A merge reads the links of the chunks it
//     holds only while it holds all of them (survivors are relinked before any is pushed back).
//  5. Nobody waits for anybody. Every loop is a CAS retry (someone else's CAS succeeded), a walk
//     over chunks the walker owns, or the slow path's retry, which is bounded (retry_rounds pauses
//     without a merge's progress; a bounded number of merges seen) and happens only while another
//     worker holds free memory privately; if that worker is
//     stopped, the request fails after the bound instead of waiting for it (the only effect of a
//     stopped worker: memory it holds is invisible, and a merge flag it holds makes others skip
//     merging that arena).
//
// destroy(p) of a pointer it did not hand out: outside the data area, misaligned, or without a
// chunk start (inside a chunk, or a chunk merged away): invalid_pointer; a chunk start whose
// header is listed/held/absorbed: double_free. Both change nothing. A second free of a chunk that
// was merged into its predecessor or returned to the wilderness meanwhile has no start bit any
// more and counts as an invalid free. Undefined (as for free()): freeing a pointer again after its
// memory was handed out again, or concurrently with the reuse.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "../error.hpp"
#include "../free_result.hpp"
#include "../launch.hpp"
#include "../pool.hpp"
#include "../stream.hpp"
#include "../traits.hpp"
#include "atomic.hpp"
#include "backend.hpp"
#include "page_bitmap.hpp"
#include "platform.hpp"
#include "tagged_stack.hpp"
#include "warp.hpp"

#ifndef DEVALLOC_LIST_RETRY_ROUNDS
/// List heaps: how many times a request that found nothing scans again while other workers hold
/// free memory privately (a chunk popped to be split, a merge), with a short pause in between.
/// 16384 (about 1 s of pauses): under compute-sanitizer racecheck a holder can go unscheduled for
/// longer than 1024 rounds (about 65 ms), and the list tests' churn failed 4 of 5 runs there; 16384
/// passed 5 of 5 (H100, docs/lists.md).
#define DEVALLOC_LIST_RETRY_ROUNDS 16384
#endif

DEVALLOC_NAMESPACE_BEGIN
namespace detail {

/// Size classes of the list heaps: exact sizes below 16 units, then 4 bins per power of two.
struct list_bins {
  static constexpr std::uint32_t count = 128;
  static constexpr std::uint32_t exact = 16;
  /// The bin of a chunk of u units (u >= 1).
  DEVALLOC_HOST_DEVICE static std::uint32_t of(std::uint32_t u) noexcept
  {
    if (u < exact) { return u; }
    const std::uint32_t e = highest_bit(u);
    return exact + 4u * (e - 4u) + ((u >> (e - 2u)) & 3u);
  }
  /// The smallest size bin b holds.
  DEVALLOC_HOST_DEVICE static constexpr std::uint32_t lower(std::uint32_t b) noexcept
  {
    if (b < exact) { return b; }
    const std::uint32_t e = 4u + (b - exact) / 4u;
    return (4u + (b - exact) % 4u) << (e - 2u);
  }
  /// The first bin all of whose chunks have at least `need` units.
  DEVALLOC_HOST_DEVICE static std::uint32_t first_fitting(std::uint32_t need) noexcept
  {
    const std::uint32_t b = of(need);
    return lower(b) == need ? b : b + 1u;
  }
};

/// Config: static constexpr `arenas` (0: one per multiprocessor), `min_arena_bytes` (fewer
/// arenas where they would be smaller), `retry_rounds` (>= 1), and `static std::string
/// classname()` (the policy's name with every parameter).
template <class Config>
class list_heap {
 public:
  using config = Config;

  static constexpr creation_traits traits = [] {
    creation_traits t{};
    t.reuses_freed_memory = true;
    t.exact_refill = false;  // merging is partial until a request fails: a refill may split differently
    t.checks_ownership = true;
    t.provides_available_slots = true;
    t.natural_alignment = 16;
    t.needs_pool = true;
    t.resettable = true;
    t.detects_invalid_pointers = true;  // the chunk-start bitmap
    t.detects_double_free = true;
    t.supports_shared_chunks = false;
    t.exact_available_slots = false;  // runs of free chunks count as merged; a chunk may be taken whole
    return t;
  }();

  /// Bytes of a unit: chunk sizes, offsets and the header.
  static constexpr std::size_t unit = 16;
  static constexpr std::uint32_t bins = list_bins::count;
  static constexpr std::uint32_t none = tagged_stack::empty;
  /// Chunk states (bits 32-33 of a header's info word).
  static constexpr std::uint32_t absorbed = 0, used = 1, listed = 2, held = 3;
  /// A split leaves a free chunk only if it has at least this many units (header + 16 bytes).
  static constexpr std::uint32_t min_chunk = 2;

  struct chunk_header {
    std::uint64_t info;
    std::uint32_t link;
    std::uint32_t reserved;
  };
  static_assert(sizeof(chunk_header) == unit, "list_heap: a chunk header is one unit");

  /// An arena's control words (in the pool, before the data area).
  struct arena_control {
    std::uint64_t heads[bins];  ///< tagged stacks of free chunks
    std::uint64_t nonempty[2];  ///< bin b non-empty (a hint: may lag behind)
    std::uint64_t flight;       ///< (completions << 32) + workers holding free memory privately
    std::uint32_t frontier;     ///< first unit of the wilderness
    std::uint32_t merging;      ///< merge flag (try-lock)
    std::uint32_t dirty;        ///< a free happened since the last merge
    std::uint32_t progress;     ///< ticks of the arena's merges (one per merge_tick chunks handled)
    std::uint32_t merges;       ///< merges of the arena that ran to their end
    std::uint32_t reserved;
  };

  list_heap() = default;

  /// Host. Lays out the heap in `pool` and initialises it (a kernel on `stream`). Throws if the
  /// pool cannot hold one arena's control words and 64 units, or holds more than 64 GiB of data.
  static list_heap init_heap(pool_span pool, stream_ref stream)
  {
    std::uint64_t arenas = config::arenas != 0 ? config::arenas : backend::multiprocessor_count();
    auto control_bytes = [](std::uint64_t n) { return (n * sizeof(arena_control) + 255) / 256 * 256; };
    const std::uint64_t minimum = control_bytes(1) + 256 + 64 * unit;
    if (pool.data == nullptr || pool.bytes < minimum) {
      throw_error(config::classname() + ": the pool must hold at least " + std::to_string(minimum) + " bytes, got " +
                  std::to_string(pool.bytes));
    }
    if constexpr (config::min_arena_bytes > 0) {
      while (arenas > 1 && (pool.bytes - std::min<std::uint64_t>(pool.bytes, control_bytes(arenas))) / arenas <
                             config::min_arena_bytes) {
        arenas /= 2;
      }
    }
    const std::uint64_t rest = pool.bytes - control_bytes(arenas);
    // One start bit per unit: units * (16 + 1/8) bytes, plus rounding of the bitmap.
    std::uint64_t units = (rest - 256) * 8 / (8 * unit + 1);
    const std::uint64_t bitmap_bytes = ((units + 63) / 64 * 8 + 255) / 256 * 256;
    units = std::min<std::uint64_t>(units, (rest - bitmap_bytes) / unit);
    if (units >= none) {
      throw_error(config::classname() + ": 32-bit offsets address at most 64 GiB of 16-byte units; this pool of " +
                  std::to_string(pool.bytes) + " bytes is larger (use a smaller heap)");
    }
    list_heap heap;
    char* base = static_cast<char*>(pool.data);
    heap.control_ = reinterpret_cast<arena_control*>(base);
    heap.starts_ = reinterpret_cast<std::uint64_t*>(base + control_bytes(arenas));
    heap.base_ = base + control_bytes(arenas) + bitmap_bytes;
    heap.units_ = static_cast<std::uint32_t>(units);
    heap.arenas_ = static_cast<std::uint32_t>(arenas);
    heap.arena_units_ = static_cast<std::uint32_t>(units / arenas);
    heap.finalize_heap(stream);
    return heap;
  }

  /// Host. Frees every allocation: clears the start bitmap and every arena (kernels on `stream`).
  /// No kernel may be using the heap when the stream reaches it.
  void finalize_heap(stream_ref stream)
  {
    backend::fill(starts_, 0, page_bitmap::words_for(units_) * sizeof(std::uint64_t), stream);
    launch_options one_lane;
    one_lane.cpu_lanes = 1;
    one_lane.stream = stream;
    launch(arenas_, arena_init{*this}, one_lane);
  }

  /// Host. The policy owns no memory beside the pool.
  void release(stream_ref) noexcept {}

  /// Host. The configuration's name and parameters (Allocator::info()).
  static std::string classname() { return config::classname(); }

  /// Device. Thread safe; any subset of a warp may call. A 16-byte aligned pointer to `bytes`
  /// bytes, or nullptr if no arena has room for them (see the file comment).
  DEVALLOC_DEVICE void* create(std::size_t bytes) const noexcept
  {
    if (bytes == 0 || bytes > unit * (std::size_t{arena_units_max()} - 1)) { return nullptr; }  // need > an arena
    const std::uint32_t need = static_cast<std::uint32_t>((bytes + unit - 1) / unit + 1);
    const std::uint32_t first = list_bins::first_fitting(need);
    const std::uint32_t home = arenas_ == 1 ? 0u : sm_id() % arenas_;
    std::uint32_t a = home;
    for (std::uint32_t k = 0; k < arenas_; ++k) {
      std::uint32_t u = from_bins(a, need, first, true);
      if (u == none) { u = carve(a, need); }
      if (u != none) { return payload(u); }
      a = a + 1 == arenas_ ? 0u : a + 1;
    }
    return slow_path(home, need, first);
  }

  /// Device. Thread safe. See the file comment for what each result means.
  DEVALLOC_DEVICE free_result destroy(void* p) const noexcept
  {
    if (!owns(p)) { return free_result::invalid_pointer; }
    const std::uintptr_t offset = static_cast<std::uintptr_t>(static_cast<char*>(p) - base_);
    if (offset % unit != 0 || offset < unit) { return free_result::invalid_pointer; }
    const std::uint32_t u = static_cast<std::uint32_t>(offset / unit - 1);
    if (!starts().taken(u, memory_order_acquire)) { return free_result::invalid_pointer; }
    device_atomic<std::uint64_t> info(header(u).info);
    std::uint64_t w = info.load(memory_order_acquire);
    const std::uint32_t a = arena_of(u);
    for (;;) {
      const std::uint32_t state = state_of(w);
      if (state != used) { return free_result::double_free; }
      if (size_of(w) < min_chunk || std::uint64_t{u} + size_of(w) > arena_end(a)) {
        return free_result::invalid_pointer;  // never for a header (defensive)
      }
      if (info.compare_exchange_weak(w, pack(listed, size_of(w)), memory_order_acq_rel, memory_order_acquire)) {
        break;
      }
    }
    arena_control& c = control_[a];
    if (atomic_load_relaxed(c.dirty) == 0) { device_atomic<std::uint32_t>(c.dirty).store(1, memory_order_relaxed); }
    release_chunk(a, u, size_of(w));
    return free_result::freed;
  }

  DEVALLOC_DEVICE bool is_oom(const void* p, std::size_t bytes) const noexcept { return bytes != 0 && p == nullptr; }

  /// Host and device: p lies in the data area (not necessarily at a chunk).
  DEVALLOC_HOST_DEVICE bool owns(const void* p) const noexcept
  {
    const char* c = static_cast<const char*>(p);
    return base_ != nullptr && c >= base_ && c < base_ + unit * std::size_t{units_};
  }

  /// Device. Chunks of `slot_bytes` the free memory holds, counting each run of consecutive free
  /// chunks of an arena (and the wilderness after it) as one chunk, as a merge would make it: a
  /// run of r units holds floor(r / need) of them. Exact while the heap does not change.
  DEVALLOC_DEVICE std::size_t available_slots(std::size_t slot_bytes) const noexcept
  {
    if (slot_bytes == 0 || slot_bytes > unit * (std::size_t{arena_units_max()} - 1)) { return 0; }
    const std::uint64_t need = (slot_bytes + unit - 1) / unit + 1;
    std::size_t slots = 0;
    for (std::uint32_t a = 0; a < arenas_; ++a) {
      const std::uint32_t f = atomic_load_relaxed(control_[a].frontier);
      std::uint64_t run = 0;
      for (std::uint32_t u = arena_start(a); u < f;) {
        const std::uint64_t w = atomic_load_relaxed(header(u).info);
        const std::uint32_t s = size_of(w);
        if (s == 0 || std::uint64_t{u} + s > f) { break; }  // only while the heap changes
        if (state_of(w) == listed || state_of(w) == held) {
          run += s;
        } else {
          slots += run / need;
          run = 0;
        }
        u += s;
      }
      slots += (run + (arena_end(a) - f)) / need;
    }
    return slots;
  }

  /// Host. Same count, computed by one worker on the device (a kernel on `stream`).
  std::size_t available_slots_host(std::size_t slot_bytes, stream_ref stream) const
  {
    auto* out = static_cast<std::size_t*>(backend::allocate(sizeof(std::size_t), stream));
    launch_options one_lane;
    one_lane.cpu_lanes = 1;
    one_lane.stream = stream;
    launch(1, slot_counter{*this, slot_bytes, out}, one_lane);
    std::size_t result = 0;
    backend::copy_to_host(&result, out, sizeof(result), stream);
    backend::deallocate(out, stream);
    return result;
  }

  // The kernels of the host functions (public: nvcc refuses private types as kernel template
  // arguments).
  struct arena_init {
    list_heap heap;
    DEVALLOC_DEVICE void operator()(std::size_t i) const
    {
      arena_control& c = heap.control_[i];
      for (std::uint32_t b = 0; b < bins; ++b) { c.heads[b] = tagged_stack::empty_head; }
      c.nonempty[0] = 0;
      c.nonempty[1] = 0;
      c.flight = 0;
      c.frontier = heap.arena_start(static_cast<std::uint32_t>(i));
      c.merging = 0;
      c.dirty = 0;
      c.progress = 0;
      c.merges = 0;
      c.reserved = 0;
    }
  };
  struct slot_counter {
    list_heap heap;
    std::size_t bytes;
    std::size_t* out;
    DEVALLOC_DEVICE void operator()(std::size_t) const { *out = heap.available_slots(bytes); }
  };

  // Geometry and inspection (host and device), for tests and diagnostics.
  DEVALLOC_HOST_DEVICE std::uint32_t arenas() const noexcept { return arenas_; }
  DEVALLOC_HOST_DEVICE std::uint32_t total_units() const noexcept { return units_; }
  DEVALLOC_HOST_DEVICE std::uint32_t arena_start(std::uint32_t a) const noexcept { return a * arena_units_; }
  DEVALLOC_HOST_DEVICE std::uint32_t arena_end(std::uint32_t a) const noexcept
  {
    return a + 1 == arenas_ ? units_ : (a + 1) * arena_units_;
  }
  DEVALLOC_HOST_DEVICE std::uint32_t arena_of(std::uint32_t u) const noexcept
  {
    const std::uint32_t a = u / arena_units_;
    return a >= arenas_ ? arenas_ - 1 : a;
  }
  /// The data area: chunk u's header is at data() + 16 u, its payload at data() + 16 (u + 1).
  DEVALLOC_HOST_DEVICE char* data() const noexcept { return base_; }
  DEVALLOC_HOST_DEVICE arena_control* control() const noexcept { return control_; }

 private:
  DEVALLOC_HOST_DEVICE static constexpr std::uint64_t pack(std::uint32_t state, std::uint32_t size) noexcept
  {
    return std::uint64_t{state} << 32 | size;
  }
  DEVALLOC_HOST_DEVICE static constexpr std::uint32_t state_of(std::uint64_t w) noexcept
  {
    return static_cast<std::uint32_t>(w >> 32) & 3u;
  }
  DEVALLOC_HOST_DEVICE static constexpr std::uint32_t size_of(std::uint64_t w) noexcept
  {
    return static_cast<std::uint32_t>(w);
  }

  DEVALLOC_HOST_DEVICE std::uint32_t arena_units_max() const noexcept
  {
    return arena_end(arenas_ - 1) - arena_start(arenas_ - 1);
  }
  DEVALLOC_HOST_DEVICE chunk_header& header(std::uint32_t u) const noexcept
  {
    return *reinterpret_cast<chunk_header*>(base_ + unit * std::size_t{u});
  }
  DEVALLOC_DEVICE void* payload(std::uint32_t u) const noexcept { return base_ + unit * (std::size_t{u} + 1); }
  DEVALLOC_HOST_DEVICE page_bitmap starts() const noexcept { return page_bitmap(starts_, units_); }
  DEVALLOC_DEVICE auto links() const noexcept
  {
    char* base = base_;
    return [base](std::uint32_t u) -> std::uint32_t& {
      return reinterpret_cast<chunk_header*>(base + unit * std::size_t{u})->link;
    };
  }
  /// Links of chunks the caller owns (atomic: a stale popper may read them at the same time).
  DEVALLOC_DEVICE std::uint32_t link_of(std::uint32_t u) const noexcept { return atomic_load_relaxed(header(u).link); }
  DEVALLOC_DEVICE void set_link(std::uint32_t u, std::uint32_t next) const noexcept
  {
    device_atomic<std::uint32_t>(header(u).link).store(next, memory_order_relaxed);
  }

  // --- in-flight accounting: a worker that holds free memory privately (a popped chunk it will
  // split, a successor it absorbs, a merge) is counted from before it takes the memory until the
  // rest is back in a bin; a request that found nothing retries while the count or the number of
  // completions changed (slow_path).
  DEVALLOC_DEVICE static void flight_begin(arena_control& c) noexcept
  {
    device_atomic<std::uint64_t>(c.flight).fetch_add(1, memory_order_relaxed);
  }
  /// Ends `n` in-flight counts (release: what they put back is visible to a later acquire load).
  DEVALLOC_DEVICE static void flight_end(arena_control& c, std::uint32_t n = 1) noexcept
  {
    device_atomic<std::uint64_t>(c.flight).fetch_add((std::uint64_t{n} << 32) - n, memory_order_release);
  }
  DEVALLOC_DEVICE static void flight_cancel(arena_control& c) noexcept
  {
    device_atomic<std::uint64_t>(c.flight).fetch_sub(1, memory_order_relaxed);
  }

  // --- bins
  DEVALLOC_DEVICE void push(std::uint32_t a, std::uint32_t u, std::uint32_t size) const noexcept
  {
    arena_control& c = control_[a];
    const std::uint32_t b = list_bins::of(size);
    tagged_stack::push(c.heads[b], u, links());
    const std::uint64_t bit = std::uint64_t{1} << (b % 64);
    if ((atomic_load_relaxed(c.nonempty[b / 64]) & bit) == 0) {
      device_atomic<std::uint64_t>(c.nonempty[b / 64]).fetch_or(bit, memory_order_release);
    }
  }

  /// The first bin from `b` on whose hint bit is set, or `bins`.
  DEVALLOC_DEVICE static std::uint32_t next_hinted(arena_control& c, std::uint32_t b) noexcept
  {
    while (b < bins) {
      const std::uint64_t word = atomic_load_relaxed(c.nonempty[b / 64]) & (~std::uint64_t{0} << (b % 64));
      if (word != 0) { return (b / 64) * 64 + lowest_bit64(word); }
      b = (b / 64 + 1) * 64;
    }
    return bins;
  }

  /// A pop found bin b empty: clear its hint, then set it again if a push came in between.
  DEVALLOC_DEVICE static void clear_hint(arena_control& c, std::uint32_t b) noexcept
  {
    const std::uint64_t bit = std::uint64_t{1} << (b % 64);
    device_atomic<std::uint64_t> word(c.nonempty[b / 64]);
    word.fetch_and(~bit, memory_order_acq_rel);
    if (tagged_stack::top(tagged_stack::load(c.heads[b])) != none) { word.fetch_or(bit, memory_order_release); }
  }

  /// Pops a chunk of at least `need` units from arena a's bins from `first` on (hinted: only bins
  /// whose hint is set), takes `need` units of it and returns it, or `none`.
  DEVALLOC_DEVICE std::uint32_t from_bins(std::uint32_t a, std::uint32_t need, std::uint32_t first,
                                          bool hinted) const noexcept
  {
    arena_control& c = control_[a];
    for (std::uint32_t b = first; b < bins; ++b) {
      if (hinted) {
        b = next_hinted(c, b);
        if (b == bins) { break; }
      }
      if (tagged_stack::top(tagged_stack::load(c.heads[b])) == none) {
        if (hinted) { clear_hint(c, b); }
        continue;
      }
      // Exact bins hold one size: a chunk that leaves less than min_chunk is taken whole, and
      // nobody else needs to know it is in flight (see slow_path).
      const bool may_split = b >= list_bins::exact || b - need >= min_chunk;
      if (may_split) { flight_begin(c); }
      const std::uint32_t u = tagged_stack::pop(c.heads[b], links());
      if (u == none) {
        if (may_split) { flight_cancel(c); }
        if (hinted) { clear_hint(c, b); }
        continue;
      }
      take(a, u, need);
      if (may_split) { flight_end(c); }
      return u;
    }
    return none;
  }

  /// The caller popped chunk u (at least `need` units): splits off what it does not need and
  /// marks it used.
  DEVALLOC_DEVICE void take(std::uint32_t a, std::uint32_t u, std::uint32_t need) const noexcept
  {
    device_atomic<std::uint64_t> info(header(u).info);
    std::uint32_t size = size_of(info.load(memory_order_relaxed));
    if (size - need >= min_chunk) {
      const std::uint32_t rest = u + need;
      device_atomic<std::uint64_t>(header(rest).info).store(pack(listed, size - need), memory_order_relaxed);
      starts().mark(rest, memory_order_release);
      release_chunk(a, rest, size - need);
      size = need;
    }
    info.store(pack(used, size), memory_order_release);
  }

  /// Carves `need` units from arena a's frontier; returns the chunk or `none`.
  DEVALLOC_DEVICE std::uint32_t carve(std::uint32_t a, std::uint32_t need) const noexcept
  {
    device_atomic<std::uint32_t> frontier(control_[a].frontier);
    const std::uint32_t end = arena_end(a);
    std::uint32_t f = frontier.load(memory_order_relaxed);
    do {
      if (end - f < need) { return none; }
    } while (!frontier.compare_exchange_weak(f, f + need, memory_order_acquire, memory_order_relaxed));
    device_atomic<std::uint64_t>(header(f).info).store(pack(used, need), memory_order_relaxed);
    starts().mark(f, memory_order_release);
    return f;
  }

  /// Chunk u (`size` units, owned by the caller, header listed or held) grows over its
  /// successors: tops of bins, and (merge phase only: `absorb_held`) chunks the caller's merge
  /// holds; unless `absorb_held`, a chunk that reaches the frontier goes back to the wilderness.
  /// Returns the new size, or 0 if the chunk went back to the wilderness. Each top it absorbs
  /// adds one to `opened`: an in-flight count the caller ends once chunk u is back in a bin.
  DEVALLOC_DEVICE std::uint32_t grow(std::uint32_t a, std::uint32_t u, std::uint32_t size, bool absorb_held,
                                     std::uint32_t& opened) const noexcept
  {
    arena_control& c = control_[a];
    const std::uint32_t end = arena_end(a);
    device_atomic<std::uint32_t> frontier(c.frontier);
    for (;;) {
      const std::uint32_t y = u + size;
      if (y >= end) { return size; }
      std::uint32_t f = frontier.load(memory_order_acquire);
      if (y >= f) {
        if (y != f || absorb_held) { return size; }
        // The last chunk before the wilderness: give it back. Its start bit goes first, so that
        // nobody takes its memory for a header once the frontier has moved.
        starts().release(u, 1, memory_order_relaxed);
        if (frontier.compare_exchange_strong(f, u, memory_order_release, memory_order_relaxed)) { return 0; }
        starts().mark(u, memory_order_relaxed);
        continue;  // someone carved at y meanwhile
      }
      if (!starts().taken(y, memory_order_acquire)) { return size; }  // being carved: not a header yet
      device_atomic<std::uint64_t> info(header(y).info);
      const std::uint64_t w = info.load(memory_order_acquire);
      const std::uint32_t state = state_of(w);
      if (state == held && absorb_held) {
        // held by this merge (one merge per arena): ours
      } else if (state == listed) {
        std::uint64_t& head = c.heads[list_bins::of(size_of(w))];
        if (tagged_stack::top(tagged_stack::load(head)) != y) { return size; }  // buried: merged later
        auto unchanged = [&](std::uint32_t) { return info.load(memory_order_relaxed) == w; };
        flight_begin(c);
        if (!tagged_stack::pop_if_top(head, y, links(), unchanged)) {
          flight_cancel(c);
          return size;
        }
        ++opened;  // owned now; visible again once the caller has put chunk u back
      } else {
        return size;
      }
      info.store(pack(absorbed, size_of(w)), memory_order_relaxed);
      starts().release(y, 1, memory_order_relaxed);
      size += size_of(w);
    }
  }

  /// Chunk u (owned by the caller) grows over its successors and goes into its bin (or back to
  /// the wilderness).
  DEVALLOC_DEVICE void release_chunk(std::uint32_t a, std::uint32_t u, std::uint32_t size) const noexcept
  {
    std::uint32_t opened = 0;
    size = grow(a, u, size, false, opened);
    if (size != 0) {
      device_atomic<std::uint64_t>(header(u).info).store(pack(listed, size), memory_order_relaxed);
      push(a, u, size);
    }
    if (opened != 0) { flight_end(control_[a], opened); }
  }

  /// Merges arena a if it saw frees since its last merge and nobody else merges it (see the
  /// file comment: take every bin, merge runs of held chunks, push the survivors back).
  DEVALLOC_DEVICE void merge(std::uint32_t a) const noexcept
  {
    arena_control& c = control_[a];
    if (atomic_load_relaxed(c.dirty) == 0) { return; }
    device_atomic<std::uint32_t> flag(c.merging);
    std::uint32_t idle = 0;
    if (!flag.compare_exchange_strong(idle, 1u, memory_order_acquire, memory_order_relaxed)) { return; }
    device_atomic<std::uint32_t>(c.dirty).store(0, memory_order_relaxed);
    flight_begin(c);
    std::uint32_t handled = 0;  // chunks handled, for the progress ticks
    // 1. Take every bin; mark its chunks held; chain the lists.
    std::uint32_t list = none;
    std::uint32_t tail = none;
    for (std::uint32_t b = 0; b < bins; ++b) {
      const std::uint32_t top = tagged_stack::take_all(c.heads[b]);
      if (top == none) { continue; }
      if (tail == none) {
        list = top;
      } else {
        set_link(tail, top);
      }
      for (std::uint32_t x = top; x != none; x = link_of(x)) {
        device_atomic<std::uint64_t> info(header(x).info);
        info.store(pack(held, size_of(info.load(memory_order_relaxed))), memory_order_relaxed);
        tail = x;
        tick(c, handled);
      }
    }
    // 2. Every held chunk absorbs the held chunks (and tops of bins) after it.
    std::uint32_t opened = 0;
    for (std::uint32_t x = list; x != none; x = link_of(x)) {
      tick(c, handled);
      device_atomic<std::uint64_t> info(header(x).info);
      const std::uint64_t w = info.load(memory_order_relaxed);
      if (state_of(w) != held) { continue; }
      info.store(pack(held, grow(a, x, size_of(w), true, opened)), memory_order_relaxed);
    }
    // 3. Chain the survivors (every chunk is still ours: absorbed ones are read for the last time).
    std::uint32_t survivors = none;
    std::uint32_t last = none;
    for (std::uint32_t x = list; x != none;) {
      const std::uint32_t next = link_of(x);
      if (state_of(atomic_load_relaxed(header(x).info)) == held) {
        if (last == none) {
          survivors = x;
        } else {
          set_link(last, x);
        }
        last = x;
      }
      x = next;
      tick(c, handled);
    }
    if (last != none) { set_link(last, none); }
    // 4. Push them back (each may still grow over a top of a bin or into the wilderness).
    for (std::uint32_t x = survivors; x != none;) {
      const std::uint32_t next = link_of(x);
      release_chunk(a, x, size_of(atomic_load_relaxed(header(x).info)));
      x = next;
      tick(c, handled);
    }
    if (opened != 0) { flight_end(c, opened); }
    flight_end(c);
    device_atomic<std::uint32_t> merges(c.merges);  // only the flag's owner writes it
    merges.store(merges.load(memory_order_relaxed) + 1u, memory_order_relaxed);
    flag.store(0, memory_order_release);
  }

  /// Chunks a merge handles between two ticks of its arena's progress word.
  static constexpr std::uint32_t merge_tick = 64;

  /// A merge handled one more chunk: every merge_tick of them it ticks the arena's progress word
  /// (only the merge flag's owner writes it), so that requests waiting for the memory it holds
  /// see it advance (slow_path).
  DEVALLOC_DEVICE static void tick(arena_control& c, std::uint32_t& handled) noexcept
  {
    if (++handled % merge_tick == 0) {
      device_atomic<std::uint32_t> progress(c.progress);
      progress.store(progress.load(memory_order_relaxed) + 1u, memory_order_relaxed);
    }
  }

  /// What the slow path watches of the other workers' merges: the sums over the arenas of their
  /// progress ticks and of their completed merges.
  struct merge_watch {
    std::uint64_t ticks = 0;
    std::uint64_t merges = 0;
  };

  /// Sum of the arenas' in-flight words; `busy` tells whether any worker holds memory now, and
  /// `watch` sums their merges' progress.
  DEVALLOC_DEVICE std::uint64_t flights(bool& busy, merge_watch& watch) const noexcept
  {
    std::uint64_t sum = 0;
    busy = false;
    watch = {};
    for (std::uint32_t a = 0; a < arenas_; ++a) {
      const std::uint64_t f = device_atomic<std::uint64_t>(control_[a].flight).load(memory_order_acquire);
      busy = busy || static_cast<std::uint32_t>(f) != 0;
      sum += f;
      watch.ticks += atomic_load_relaxed(control_[a].progress);
      watch.merges += atomic_load_relaxed(control_[a].merges);
    }
    return sum;
  }

  /// create() found nothing in the fast path: merge (the arenas that saw frees), then scan
  /// everything (bins without hints, frontiers), round after round, until it finds a chunk, or a
  /// scan saw nothing while no memory was in flight before or during it, or retry_rounds rounds
  /// passed in which no merge made progress, or the scans after `patience` merges per arena (and
  /// two more) found nothing.
  DEVALLOC_DEVICE void* slow_path(std::uint32_t home, std::uint32_t need, std::uint32_t first) const noexcept
  {
    merge_watch start{};
    {
      bool busy = false;
      flights(busy, start);
    }
    // Ticks and ended merges only grow: their sum changes when either does.
    std::uint64_t progress_seen = start.ticks + start.merges;
    const std::uint64_t merges_allowed = std::uint64_t{patience} * arenas_ + 2u;
    std::uint32_t stale = 0;  // rounds since a merge last made progress
    for (std::uint32_t round = 0; stale < config::retry_rounds; ++round, ++stale) {
      // Every round, not only the first: frees since the last merge (a churning heap) leave runs
      // that only a merge joins, and the merge that ran meanwhile may not have seen them.
      for (std::uint32_t k = 0, a = home; k < arenas_; ++k, a = a + 1 == arenas_ ? 0u : a + 1) { merge(a); }
      bool busy_before = false;
      bool busy_after = false;
      merge_watch watch{};
      const std::uint64_t before = flights(busy_before, watch);
      std::uint32_t a = home;
      for (std::uint32_t k = 0; k < arenas_; ++k) {
        std::uint32_t u = from_bins(a, need, first, false);
        if (u == none) { u = carve(a, need); }
        if (u != none) { return payload(u); }
        a = a + 1 == arenas_ ? 0u : a + 1;
      }
      // The scan started after merges_allowed merges had ended: they gave back what they held,
      // and there was still nothing (under churn merges never stop: a request that cannot be
      // served must fail all the same).
      if (watch.merges - start.merges >= merges_allowed) { return nullptr; }
      const std::uint64_t after = flights(busy_after, watch);
      if (!busy_before && !busy_after && before == after) { return nullptr; }
      // A merge that is making progress holds memory this request may need: its rounds do not
      // count (a single arena's merge of tens of thousands of chunks by one worker takes longer
      // than retry_rounds pauses on a GPU: ListFirstFit failed thousands of requests under load;
      // under compute-sanitizer it takes seconds). A stopped merge stops ticking, and the request
      // fails after retry_rounds rounds: no wall-clock bound, so slow execution changes nothing.
      // A merge that ended is progress too (one of fewer than merge_tick chunks never ticks);
      // merges_allowed bounds how often that resets the count.
      if (watch.ticks + watch.merges != progress_seen) {
        progress_seen = watch.ticks + watch.merges;
        stale = 0;
      }
      // Backoff: 32 ns doubling to 64 us a pause, so the bound spans a merge of a large arena by
      // one worker (milliseconds on a GPU; with a fixed 32 ns pause, 1024 rounds gave up after
      // about 50 us, and 8192 workers on one arena failed by the tens of thousands on an H100),
      // and waiting requests rescan the bins less often while the merge runs.
      pause_for(32u << (round < 11u ? round : 11u));
    }
    return nullptr;
  }

  /// Merges per arena a request in the slow path sees end (and scans after) before it gives up
  /// (under churn, merges may never stop).
  static constexpr std::uint32_t patience = 2;

  arena_control* control_ = nullptr;  // [arenas]
  std::uint64_t* starts_ = nullptr;   // one bit per unit: a chunk's header starts there
  char* base_ = nullptr;              // the data area
  std::uint32_t units_ = 0;
  std::uint32_t arenas_ = 1;
  std::uint32_t arena_units_ = 0;
};

}  // namespace detail
DEVALLOC_NAMESPACE_END
