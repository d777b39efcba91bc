// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/creation/circular.hpp
//
// CreationPolicies of the CMalloc family (Vinkler & Havran, "Register Efficient Dynamic Memory
// Allocator for GPUs", §5.2-5.4, Algorithm 3), made safe under any scheduling:
//
//   Circular            CMalloc   (§5.2): header = 32-bit flag + 32-bit next; one memOffset
//   CircularFused       CFMalloc  (§5.3): flag fused into a 64-bit word with the next offset
//   CircularMulti       CMMalloc  (§5.4): one sub-heap and offset per multiprocessor
//   CircularFusedMulti  CFMMalloc (§5.4): both
//
// All four are basic_circular<Header, Config>; docs/cmalloc.md describes the algorithm, the
// safety argument and the configuration in full. In short:
//
// Layout. The pool holds [control words][data]. The data area is a sequence of chunks, each an
// 8-byte header (detail/chunk_header.hpp) followed by its payload; chunk boundaries sit at
// 16 u + 8 bytes (u = offset in 16-byte units), so every payload starts 16-byte aligned and every
// chunk is a multiple of 16 bytes. Chunks are linked by the next offsets in their headers, in
// address order, each counted from the start of its segment (below; 32-bit); the search goes
// round the segments in a circle (after the last segment comes the first).
//
// Pre-split (eq. 1). The data area is H sub-heaps (H = 1, or the number of multiprocessors for the
// Multi variants) of L levels of R units each; level l of a sub-heap is split into 2^l chunks of
// R / 2^l units: chunk i (1-based, in heap order) of a sub-heap has R / 2^floor(log2 i) units, the
// paper's binary heap C(i). R is the largest size for which L levels fit and the smallest chunk
// is at least config::min_presplit_bytes. Units left over form one more chunk at the end.
//
// Segments. Each level of each sub-heap is a segment (s = h * L + l, units [s R, (s + 1) R), the
// last one up to the end). A segment's start is a chunk boundary forever; merging never crosses a
// segment's end, so the largest request is one segment. Each segment has a registration word
// (merging | dirty | count of workers walking it: one 32-bit word) and a hint (the offset where the
// next search starts: the chunk after the last allocation, as the paper's memOffset). Each
// sub-heap has a current segment (memOffset's role: where its workers start).
//
// Allocation (Algorithm 3, create): from the caller's sub-heap's current segment, segment by
// segment: register in the segment (one fetch_add; if its merge flag is set, unregister and move
// on: no waiting), walk its chunks from the hint (on the second lap: from the segment's start) to
// the segment's end, and claim the first free chunk of at least need = ceil((bytes + 8) / 16) units by one CAS on its
// header (free -> claimed). The claimer splits the chunk if it has at least need * max_frag units
// (writes the remainder's header), then publishes it (claimed -> used, with the remainder as its
// next: a release store), moves the hint past its chunk and unregisters. A walker that reads a
// claimed header re-reads it a few times (split_wait_reads) until it is published, instead of
// jumping over the whole chunk to its old next. If a whole lap finds nothing, the caller merges every segment it can
// (defragment(): runs of free chunks become one) and tries one more lap, each segment from its
// start, before returning nullptr.
//
// Deallocation (Algorithm 3, free): one CAS used -> free on the chunk's header (a second free
// finds it free and is reported), then one fetch_or that sets the segment's dirty bit (a merge
// request). Merging is done in a merge session (the merging bit, taken by a CAS from a word with
// no session and no walkers): its owner, while dirty is set, clears it and merges the whole
// segment (every run of consecutive free chunks becomes one chunk; while walkers wait to walk it,
// at most merge_passes passes),
// then drops the session by a CAS that expects dirty clear. The fetch_or's old value says who
// merges: a session owner (it sees dirty when it tries to leave), the walkers (the last one out,
// whose fetch_sub returns 1 | dirty, takes the session), or, if the segment was idle, the freer
// itself. So a free-only launch leaves every segment it freed in merged (issue 13: a free that
// found its segment busy used to stay unmerged until create() failed a lap and found the segment
// idle, which thousands of walkers on a GPU rarely allow).
//
// Why it is safe under any scheduling (independent thread scheduling, preemption, a debugger
// stop): an offset is only ever held by a worker that is registered in the segment it lies in,
// and a chunk boundary disappears only by a merge, which needs the segment's merge session, which
// can only be taken while nobody is registered (walkers that register during a session see the
// merging bit in their fetch_add's result and leave without reading anything; the last walker
// takes the session only after its own fetch_sub, holding no offset). So every header a walker
// reads or CASes is a real header for as long as it holds the offset, however long it is stopped;
// the CAS then validates exactly what the walker read (fused: state and next; split: the flag,
// and the winner re-reads next), so a stale read can only make a CAS fail. A merge pass absorbs
// only headers it reads free inside the session, which nobody can claim then (no walkers) nor
// free (a free needs a used header). A stopped walker delays merges in its segment (the last
// walker out runs them), never another worker; a stopped session owner makes walkers skip its
// segment; nobody waits for anybody. The paper's single memOffset, which can point at a
// merged-away header, becomes a segment index plus a per-segment hint that is valid whenever a
// registered walker reads it (a pass that absorbs the hint's header moves it to the run's start).
//
// No merge request is lost: every operation on a registration word after the pre-split is a
// read-modify-write, and dirty and the merging bit live in that one word. A free's fetch_or lands
// either before the session owner's closing CAS (which then fails on dirty, so the owner clears
// dirty by an acquire CAS and runs one more pass), or while walkers are registered (the fetch_sub
// that leaves no walker returns dirty, and that walker takes the session), or on an idle word (the
// freer takes it). Memory order: the free's header CAS and its fetch_or are release; the CAS that
// takes the session and the CAS that clears dirty are acquire and read a value later in the word's
// modification order, i.e. in the release sequence of every earlier fetch_or and fetch_sub, so the
// frees and the walkers' splits and hints happen before the pass. The closing CAS is release and
// a walker's registration acquire, so a walker reads the merged headers and hint. Only a session
// that has spent merge_passes while walkers are registered lets go with dirty set; the last of
// those walkers merges the segment when it leaves (a session never lets go with dirty set and no
// walker registered, since then nobody may come after it).
//
// Contract:
//   * create(bytes): thread safe; any subset of a warp may call. Returns a 16-byte aligned pointer
//     to bytes bytes, or nullptr if no chunk of need units was found in two laps (or bytes is
//     larger than a segment).
//   * destroy(p): thread safe, lock-free. May merge the chunk's whole segment before it returns
//     (when it finds the segment idle). freed for the start of a live allocation; invalid_pointer for a
//     pointer outside the data area, not 16-byte aligned, or whose header is not a used header
//     (traits.detects_invalid_pointers is false all the same: a pointer inside a chunk may find
//     user data that looks like a used header, and freeing it is undefined behaviour, as for
//     free()); double_free for a chunk that is free (or was merged away) and not handed out again.
//   * available_slots(n): slots of n bytes in the free memory, counting each run of consecutive
//     free chunks of a segment as one chunk (create() merges such runs before it gives up). Exact
//     while the heap does not change; an allocation may take more than one slot's bytes (a chunk
//     below need * max_frag units is taken whole): traits.exact_available_slots is false.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "../detail/atomic.hpp"
#include "../detail/backend.hpp"
#include "../detail/chunk_header.hpp"
#include "../detail/fixed_divisor.hpp"
#include "../detail/platform.hpp"
#include "../detail/warp.hpp"
#include "../error.hpp"
#include "../free_result.hpp"
#include "../launch.hpp"
#include "../pool.hpp"
#include "../stream.hpp"
#include "../traits.hpp"

#ifndef DEVALLOC_CIRCULAR_MIN_PRESPLIT_BYTES
/// Smallest chunk of the pre-split binary heap, in bytes (a multiple of 16).
#define DEVALLOC_CIRCULAR_MIN_PRESPLIT_BYTES 256
#endif
#ifndef DEVALLOC_CIRCULAR_MAX_FRAG
/// A claimed chunk is split when it has at least max_frag times the units the request needs.
#define DEVALLOC_CIRCULAR_MAX_FRAG 2
#endif

DEVALLOC_NAMESPACE_BEGIN
namespace creation {

/// Configuration of the Circular family. `sub_heaps`: 1 = one heap and one offset (CMalloc,
/// CFMalloc); 0 = one per multiprocessor of the device (CMMalloc, CFMMalloc; the CPU backend's 64
/// stand-in ids); any other value = that many.
template <std::size_t MinPresplitBytes = DEVALLOC_CIRCULAR_MIN_PRESPLIT_BYTES,
          unsigned MaxFrag = DEVALLOC_CIRCULAR_MAX_FRAG, unsigned SubHeaps = 1>
struct basic_circular_config {
  static constexpr std::size_t min_presplit_bytes = MinPresplitBytes;
  static constexpr unsigned max_frag = MaxFrag;
  static constexpr unsigned sub_heaps = SubHeaps;
  static_assert(MinPresplitBytes >= 32 && MinPresplitBytes % 16 == 0,
                "basic_circular_config: MinPresplitBytes must be a multiple of 16, at least 32");
  static_assert(MaxFrag >= 2,
                "basic_circular_config: MaxFrag must be at least 2 (a split leaves a chunk of at least "
                "the request's size behind)");
};

using CircularConfig = basic_circular_config<>;
using CircularMultiConfig = basic_circular_config<DEVALLOC_CIRCULAR_MIN_PRESPLIT_BYTES, DEVALLOC_CIRCULAR_MAX_FRAG, 0>;

template <class Header, class Config = CircularConfig>
class basic_circular {
 public:
  using config = Config;
  using header = Header;
  /// A chunk's offset inside its segment, in 16-byte units from the segment's start, and chunk
  /// sizes. Headers store next offsets this way too, so every offset a walker holds is 32-bit for
  /// both layouts and any heap (a segment holds fewer than 2^32 units: init_heap() checks it).
  /// Offsets across the whole heap (std::uint64_t) appear only in destroy() and the geometry.
  using offset_type = std::uint32_t;

  static constexpr creation_traits traits = [] {
    creation_traits t{};
    t.reuses_freed_memory = true;
    t.exact_refill = false;  // merging changes the layout: a refill can find more (or fewer) chunks
    t.checks_ownership = true;
    t.provides_available_slots = true;
    t.natural_alignment = 16;
    t.needs_pool = true;
    t.resettable = true;
    t.detects_invalid_pointers = false;  // a pointer inside a chunk finds user data, not a header
    t.detects_double_free = true;
    t.supports_shared_chunks = false;
    t.exact_available_slots = false;
    return t;
  }();

  /// Bytes of a header; the payload follows it.
  static constexpr std::size_t header_bytes = 8;
  /// Unit of chunk sizes and offsets.
  static constexpr std::size_t unit = 16;
  /// Bit of a segment's registration word that marks its merge session (held by one worker).
  static constexpr std::uint32_t merging = 0x80000000u;
  /// Bit of a segment's registration word: a chunk was freed there that no merge pass has seen
  /// yet (set by every free; cleared by the session owner that then merges the whole segment).
  static constexpr std::uint32_t dirty = 0x40000000u;
  /// The rest of the registration word: the number of registered walkers (below 2^30: at most
  /// the device's resident threads).
  static constexpr std::uint32_t walkers = dirty - 1;
  /// Whole-segment merge passes one session runs at most while walkers are registered (walkers
  /// that came during the session and skip it) before it lets go, leaving `dirty` set for the last
  /// of those walkers. With no walker registered the owner goes on while `dirty` is set: nobody
  /// else is sure to come (the end of a free-only launch), so letting go would leave the segment
  /// unmerged (issue 13: H100 runs left 1-4 unmerged pairs per segment that way).
  static constexpr int merge_passes = 4;
  /// Re-reads of a claimed chunk, waiting for its claimer to publish it with the remainder of its
  /// split linked (search()); bounded, so a stopped claimer delays a walker by this many pauses
  /// per chunk only.
  static constexpr std::uint32_t split_wait_reads = 32;

  basic_circular() = default;

  /// Host. Lays out the heap in `pool` and pre-splits it (a kernel on `stream`). Throws if the
  /// pool cannot hold one smallest chunk, or if a segment would hold 2^32 - 1 units or more (64
  /// GiB; a pool of terabytes).
  static basic_circular init_heap(pool_span pool, stream_ref stream)
  {
    basic_circular heap;
    unsigned h = config::sub_heaps != 0 ? config::sub_heaps : detail::backend::multiprocessor_count();
    const std::uint64_t min_units = config::min_presplit_bytes / unit;
    // Control words need at most this much; the data area starts 256-aligned behind them.
    auto control_bytes = [](std::uint64_t subs, std::uint64_t segments) {
      return (subs * 4 + segments * 8 + 255) / 256 * 256;  // current, registration words, hints
    };
    if (pool.data == nullptr || pool.bytes < control_bytes(1, 64) + unit * min_units + header_bytes) {
      detail::throw_error("Circular: the pool must hold at least " +
                          std::to_string(control_bytes(1, 64) + unit * min_units + header_bytes) + " bytes, got " +
                          std::to_string(pool.bytes));
    }
    std::uint64_t units = 0;
    // Levels per sub-heap: at most 64 (segments <= 64 * sub-heaps), so control_bytes(h, 64 h) bounds it.
    // Fewer sub-heaps where the pool cannot give each one smallest chunk.
    while (h > 1 && pool.bytes < control_bytes(h, 64ull * h) + unit * min_units * h + header_bytes) { h /= 2; }
    units = (pool.bytes - control_bytes(h, 64ull * h) - header_bytes) / unit;
    heap.units_ = units;
    const std::uint64_t per_sub = units / h;
    std::uint32_t levels = 1;
    while (levels < 40 && (per_sub / (levels + 1)) >> levels >= min_units) { ++levels; }
    heap.levels_ = levels;
    heap.root_ = detail::fixed_divisor<std::uint64_t>(((per_sub / levels) >> (levels - 1)) << (levels - 1));
    heap.sub_heaps_ = h;
    heap.segments_ = h * levels;
    if (units - heap.segment_start(heap.segments_ - 1) >= no_chunk) {
      detail::throw_error("Circular: a segment of this " + std::to_string(pool.bytes) + "-byte pool would hold " +
                          std::to_string(units - heap.segment_start(heap.segments_ - 1)) +
                          " units of 16 bytes; chunk offsets inside a segment are 32-bit (at most " +
                          std::to_string(no_chunk - 1) + "): use a smaller pool or more sub-heaps (CircularMulti)");
    }
    char* base = static_cast<char*>(pool.data);
    heap.current_ = reinterpret_cast<std::uint32_t*>(base);
    heap.reg_ = heap.current_ + h;
    heap.hint_ = heap.reg_ + heap.segments_;
    heap.base_ = base + control_bytes(h, 64ull * h);
    heap.finalize_heap(stream);
    return heap;
  }

  /// Host. Frees every allocation: rewrites the control words and the pre-split headers (a kernel
  /// on `stream`). No kernel may be using the heap when the stream reaches it.
  void finalize_heap(stream_ref stream)
  {
    launch_options one_lane;
    one_lane.cpu_lanes = 1;
    one_lane.stream = stream;
    const std::uint64_t per_sub = (std::uint64_t{1} << levels_) - 1;
    const std::uint64_t chunks = per_sub * sub_heaps_ + (units_ > std::uint64_t{segments_} * root_.divisor() ? 1 : 0);
    launch(chunks, presplit{*this, per_sub}, one_lane);
  }

  /// Host. The policy owns no memory beside the pool.
  void release(stream_ref) noexcept {}

  /// Device. See the file comment. Written for few live values (issue 13's register target): one
  /// counter for both laps (the second starts where the first did, after segments_ steps of s), the
  /// sub-heap read again on success instead of kept, and one exit that makes the pointer from
  /// (s, u) (with early `return nullptr`s nvcc kept the null result in a register through the
  /// whole walk).
  DEVALLOC_DEVICE void* create(std::size_t bytes) const noexcept
  {
    const std::size_t units_needed = (bytes + header_bytes + unit - 1) / unit;
    // More than the heap or than any segment (which also keeps need an offset_type): no lap.
    const std::uint32_t steps = bytes > unit * units_ || units_needed >= no_chunk ? 0u : 2 * segments_;
    const offset_type need = static_cast<offset_type>(units_needed);
    std::uint32_t s = detail::atomic_load_relaxed(current_[sub_heap()]);
    offset_type u = no_chunk;
    for (std::uint32_t k = 0; k < steps; ++k) {
      if (k == segments_) { defragment(); }  // a whole lap found nothing
      u = search(s, need, k >= segments_);
      if (u != no_chunk) {
        if (k != 0) {
          detail::device_atomic<std::uint32_t>(current_[sub_heap()]).store(s, detail::memory_order_relaxed);
        }
        break;
      }
      s = s + 1 == segments_ ? 0 : s + 1;
    }
    return u == no_chunk ? nullptr : header_at(s, u) + header_bytes;
  }

  /// Device. See the file comment.
  DEVALLOC_DEVICE free_result destroy(void* p) const noexcept
  {
    if (!owns(p)) { return free_result::invalid_pointer; }
    const std::uintptr_t offset = static_cast<std::uintptr_t>(static_cast<char*>(p) - base_);
    if (offset % unit != 0 || offset < unit) { return free_result::invalid_pointer; }
    const std::uint64_t a = offset / unit - 1;  // the chunk's unit in the heap
    void* h = static_cast<char*>(p) - header_bytes;
    const detail::chunk_view v = Header::load(h);
    if (v.state == detail::chunk_free || v.state == detail::chunk_absorbed) { return free_result::double_free; }
    const std::uint32_t s = segment_of(a);
    const offset_type u = static_cast<offset_type>(a - segment_start(s));
    if (v.state != detail::chunk_used || v.next <= u || v.next > segment_units(s)) {
      return free_result::invalid_pointer;
    }
    if (!Header::release(h, v)) { return free_result::double_free; }
    request_merge(s);
    return free_result::freed;
  }

  DEVALLOC_DEVICE bool is_oom(const void* p, std::size_t bytes) const noexcept { return bytes != 0 && p == nullptr; }

  /// Host and device: p lies in the data area (not necessarily at a chunk).
  DEVALLOC_HOST_DEVICE bool owns(const void* p) const noexcept
  {
    const char* c = static_cast<const char*>(p);
    return base_ != nullptr && c >= base_ && c < base_ + unit * units_ + header_bytes;
  }

  /// Device. Chunks of `slot_bytes` the free memory holds (see the file comment).
  DEVALLOC_DEVICE std::size_t available_slots(std::size_t slot_bytes) const noexcept
  {
    if (slot_bytes == 0 || slot_bytes > unit * units_) { return 0; }
    const std::size_t units_needed = (slot_bytes + header_bytes + unit - 1) / unit;
    if (units_needed >= no_chunk) { return 0; }
    const offset_type need = static_cast<offset_type>(units_needed);
    std::size_t slots = 0;
    for (std::uint32_t s = 0; s < segments_; ++s) {
      const offset_type end = segment_units(s);
      offset_type run = 0;
      for (offset_type u = 0; u < end;) {
        const detail::chunk_view v = Header::load(header_at(s, u));
        if (v.next <= u || v.next > end) { break; }  // only while the heap changes
        if (v.state == detail::chunk_free) {
          run += v.next - u;
        } else {
          slots += slots_in(run, need);
          run = 0;
        }
        u = v.next;
      }
      slots += slots_in(run, need);
    }
    return slots;
  }

  /// Host. Same count, computed by one worker on the device (a kernel on `stream`).
  std::size_t available_slots_host(std::size_t slot_bytes, stream_ref stream) const
  {
    auto* out = static_cast<std::size_t*>(detail::backend::allocate(sizeof(std::size_t), stream));
    launch_options one_lane;
    one_lane.cpu_lanes = 1;
    one_lane.stream = stream;
    launch(1, slot_counter{*this, slot_bytes, out}, one_lane);
    std::size_t result = 0;
    detail::backend::copy_to_host(&result, out, sizeof(result), stream);
    detail::backend::deallocate(out, stream);
    return result;
  }

  /// Host. E.g. "Circular<header=split, sub_heaps=1, min_presplit_bytes=256, max_frag=2>"
  /// (CircularFused, CircularMulti, CircularFusedMulti for the others).
  static std::string classname()
  {
    const bool fused = std::string(Header::name) == "fused";
    return std::string("Circular") + (fused ? "Fused" : "") + (config::sub_heaps == 1 ? "" : "Multi") +
           "<header=" + Header::name + ", sub_heaps=" +
           (config::sub_heaps == 0 ? std::string("per-multiprocessor") : std::to_string(config::sub_heaps)) +
           ", min_presplit_bytes=" + std::to_string(config::min_presplit_bytes) +
           ", max_frag=" + std::to_string(config::max_frag) + ">";
  }

  // The kernels of the host functions (public: nvcc refuses private types as kernel template
  // arguments).

  /// Worker i writes the i-th pre-split header (eq. 1) and, per segment / sub-heap, the control words.
  struct presplit {
    basic_circular heap;
    std::uint64_t per_sub;  // chunks per sub-heap: 2^L - 1
    DEVALLOC_DEVICE void operator()(std::size_t i) const
    {
      const std::uint64_t sub = i / per_sub;
      if (sub >= heap.sub_heaps_) {  // the leftover chunk, at the end of the last segment
        const std::uint32_t last = heap.segments_ - 1;
        const offset_type u = static_cast<offset_type>(heap.root_.divisor());
        Header::init(heap.header_at(last, u), detail::chunk_free, heap.segment_units(last));
        return;
      }
      const std::uint64_t k = i % per_sub + 1;  // 1-based index in the binary heap
      std::uint32_t level = 0;
      while ((k >> (level + 1)) != 0) { ++level; }
      const offset_type size = static_cast<offset_type>(heap.root_.divisor() >> level);
      const std::uint32_t s = static_cast<std::uint32_t>(sub) * heap.levels_ + level;
      const offset_type u = static_cast<offset_type>(k - (std::uint64_t{1} << level)) * size;
      Header::init(heap.header_at(s, u), detail::chunk_free, u + size);
      if (u == 0) {
        heap.reg_[s] = 0;
        heap.hint_[s] = 0;
        if (level == 0) { heap.current_[sub] = s; }
      }
    }
  };

  struct slot_counter {
    basic_circular heap;
    std::size_t bytes;
    std::size_t* out;
    DEVALLOC_DEVICE void operator()(std::size_t) const { *out = heap.available_slots(bytes); }
  };

  // Geometry (host and device), for tests and diagnostics.
  DEVALLOC_HOST_DEVICE std::uint32_t sub_heaps() const noexcept { return sub_heaps_; }
  DEVALLOC_HOST_DEVICE std::uint32_t levels() const noexcept { return levels_; }
  DEVALLOC_HOST_DEVICE std::uint32_t segments() const noexcept { return segments_; }
  /// R: units of each segment (the last one also holds the leftover units).
  DEVALLOC_HOST_DEVICE std::uint64_t root_units() const noexcept { return root_.divisor(); }
  DEVALLOC_HOST_DEVICE std::uint64_t total_units() const noexcept { return units_; }
  /// The data area: the chunk at unit a of the heap has its header at data() + 16 a + 8 and its
  /// payload at data() + 16 (a + 1). Its header's next offset is relative to its segment's start.
  DEVALLOC_HOST_DEVICE char* data() const noexcept { return base_; }
  /// Segment s covers the heap's units [segment_start(s), segment_end(s)).
  DEVALLOC_HOST_DEVICE std::uint64_t segment_start(std::uint32_t s) const noexcept { return root_.divisor() * s; }
  DEVALLOC_HOST_DEVICE std::uint64_t segment_end(std::uint32_t s) const noexcept
  {
    return s + 1 == segments_ ? units_ : root_.divisor() * (s + 1);
  }
  DEVALLOC_HOST_DEVICE offset_type segment_units(std::uint32_t s) const noexcept
  {
    return static_cast<offset_type>(segment_end(s) - segment_start(s));
  }
  /// The segment that holds the heap's unit a.
  DEVALLOC_HOST_DEVICE std::uint32_t segment_of(std::uint64_t a) const noexcept
  {
    const std::uint64_t s = root_.quotient(a);  // no divide instruction (detail/fixed_divisor.hpp)
    return s >= segments_ ? segments_ - 1 : static_cast<std::uint32_t>(s);
  }

  /// Slots of `need` units in a free chunk of `units` units, as successive allocations of need
  /// units carve it (split while at least need * max_frag units are left, then take it whole).
  DEVALLOC_HOST_DEVICE static offset_type slots_in(offset_type units, offset_type need) noexcept
  {
    if (units < need) { return 0; }
    if (std::uint64_t{units} < std::uint64_t{need} * config::max_frag) { return 1; }
    return units / need - config::max_frag + 2;
  }

 private:
  static constexpr offset_type no_chunk = ~offset_type{0};

  /// The caller's sub-heap (its multiprocessor's, for the Multi variants).
  DEVALLOC_DEVICE DEVALLOC_FORCEINLINE std::uint32_t sub_heap() const noexcept
  {
    return config::sub_heaps == 1 ? 0u : detail::sm_id() % sub_heaps_;
  }

  /// The header of the chunk at offset u of segment s.
  DEVALLOC_HOST_DEVICE DEVALLOC_FORCEINLINE char* header_at(std::uint32_t s, offset_type u) const noexcept
  {
    return base_ + unit * (segment_start(s) + u) + header_bytes;
  }

  /// Registers in segment s, searches it from its hint (from its start if `from_start`) to its
  /// end, unregisters. Returns the claimed chunk or no_chunk.
  DEVALLOC_DEVICE offset_type search(std::uint32_t s, offset_type need, bool from_start) const noexcept
  {
    const offset_type end = segment_units(s);
    if (end < need) { return no_chunk; }
    detail::device_atomic<std::uint32_t> reg(reg_[s]);
    offset_type u = no_chunk;
    // A walker that finds a merge session moves on without reading anything (if the session ended
    // meanwhile, it may be the last one out: leave() below).
    if ((reg.fetch_add(1, detail::memory_order_acquire) & merging) == 0) {
      // Acquire: the hint may name a remainder another walker just split off; its header is read whole.
      u = from_start ? 0 : detail::device_atomic<offset_type>(hint_[s]).load(detail::memory_order_acquire);
      char* const first = detail::opaque_pointer(header_at(s, 0));  // one value in the loop
      std::uint32_t waits = 0;                                      // re-reads of the claimed chunk at u
      for (;;) {
        if (u >= end) {
          u = no_chunk;
          break;
        }
        void* h = first + unit * u;
        const detail::chunk_view v = Header::load(h);
        if (v.state == detail::chunk_free && v.next - u >= need) {
          if (!Header::claim(h, v)) { continue; }  // someone else changed it: read it again
          const offset_type next = Header::claimed_next(h, v);
          if (next - u < need) {  // split header: next changed before the claim
            Header::unclaim(h, next);
            continue;
          }
          offset_type after = next;
          // next - u >= need * max_frag, without a 64-bit product (a value fewer to keep).
          if ((next - u) / config::max_frag >= need) {
            after = u + need;
            Header::init(first + unit * after, detail::chunk_free, next);
          }
          Header::publish(h, v, after);
          detail::device_atomic<offset_type>(hint_[s]).store(after < end ? after : 0, detail::memory_order_release);
          break;  // u is the chunk
        }
        // A chunk its claimer is splitting: the remainder is linked when the claimer publishes it,
        // right after its claim. Jumping to the old next would skip the remainder: for a merged
        // segment (one free chunk) that is the segment's end, and under load every walker but the
        // claimer skipped every segment that way (issue 13: thousands of nullptr in the launch after
        // a reuse launch, H100). So re-read it up to split_wait_reads times; a claimer that is
        // stopped longer is passed (its chunk's old next), nobody waits for it.
        if (v.state == detail::chunk_claimed && waits < split_wait_reads) {
          ++waits;
          detail::pause_briefly();
          continue;
        }
        if (v.next <= u) {  // never for a header (defensive: no endless walk)
          u = no_chunk;
          break;
        }
        u = v.next;
        waits = 0;
      }
    }
    // Release: the split's headers and the hint are ordered before a later session or walker.
    leave(s, reg.fetch_sub(1, detail::memory_order_release));
    return u;
  }

  /// destroy(), after its chunk in segment s went used -> free: asks for a merge pass over s. One
  /// fetch_or sets `dirty` on s's registration word; if that word showed a session or walkers, its
  /// owner or the last of them runs the pass (they find `dirty` in the same word), else this
  /// worker tries to take the session and runs it.
  DEVALLOC_DEVICE void request_merge(std::uint32_t s) const noexcept
  {
    // Release: the header's used -> free is ordered before the pass of whoever acquires `dirty`.
    const std::uint32_t before =
      detail::device_atomic<std::uint32_t>(reg_[s]).fetch_or(dirty, detail::memory_order_release);
    if ((before & (merging | walkers)) == 0) { merge_if_idle(s, before | dirty); }
  }

  /// A walker that unregistered from s (`before`: the registration word its fetch_sub returned).
  /// The last walker out of a dirty segment runs the merge the frees among the walkers asked for.
  DEVALLOC_DEVICE void leave(std::uint32_t s, std::uint32_t before) const noexcept
  {
    if (before == (1u | dirty)) { merge_if_idle(s, dirty); }
  }

  /// Takes s's merge session if its registration word still equals `idle` (no session, no
  /// walkers; `dirty` as it may be) and runs end_session(). The CAS leaves `dirty` set, so the
  /// session merges the whole segment at least once. Does nothing if the word changed: whoever
  /// changed it (a walker, another session) finds `dirty` when it leaves.
  DEVALLOC_DEVICE void merge_if_idle(std::uint32_t s, std::uint32_t idle) const noexcept
  {
    // Acquire: the frees that set `dirty`, and the walkers' splits and hints, happen before the pass.
    if (detail::device_atomic<std::uint32_t>(reg_[s]).compare_exchange_strong(
          idle, dirty | merging, detail::memory_order_acquire, detail::memory_order_relaxed)) {
      end_session(s);
    }
  }

  /// Session owner of s: while `dirty` is set, clears it and merges the whole segment; then ends
  /// the session by a CAS that expects the word it last saw, so a free whose fetch_or lands before
  /// that CAS makes it fail and is merged by one more pass. The count may change meanwhile (walkers
  /// that see the session and leave): the CAS then retries. After merge_passes passes the owner
  /// lets go with `dirty` set only while walkers are registered: the last of them to leave finds
  /// `dirty` and merges (leave()). With none registered it goes on: the passes end when the frees
  /// do (each pass serves every free before it), so no request is left for a worker that may
  /// never come.
  DEVALLOC_DEVICE void end_session(std::uint32_t s) const noexcept
  {
    detail::device_atomic<std::uint32_t> reg(reg_[s]);
    std::uint32_t word = reg.load(detail::memory_order_relaxed);
    int passes = 0;
    for (;;) {
      if ((word & dirty) != 0 && (passes < merge_passes || (word & walkers) == 0)) {
        // Acquire: every free whose fetch_or set the `dirty` cleared here happens before the pass.
        if (reg.compare_exchange_weak(word, word & ~dirty, detail::memory_order_acquire,
                                      detail::memory_order_relaxed)) {
          merge_segment(s);
          ++passes;
          word &= ~dirty;
        }
      } else if (reg.compare_exchange_weak(word, word & ~merging, detail::memory_order_release,
                                           detail::memory_order_relaxed)) {
        // Release: the merged headers and the hint are ordered before the next walker's registration.
        return;
      }
    }
  }

  /// Merge session only: one pass over segment s that makes every run of consecutive free chunks
  /// one chunk. One loop with the run's first chunk as its only state (issue 13's register target):
  /// each further free chunk of the run is marked absorbed and the run's first header takes its
  /// next offset. A hint at an absorbed header moves to the run's start (the hint is always a chunk
  /// boundary: the start, a split's remainder, the chunk after one, or a run's start).
  DEVALLOC_DEVICE void merge_segment(std::uint32_t s) const noexcept
  {
    const offset_type end = segment_units(s);
    char* const first = detail::opaque_pointer(header_at(s, 0));  // one value in the loop
    offset_type run = no_chunk;  // first chunk of the run of free chunks that ends at u
    for (offset_type u = 0; u < end;) {
      void* h = first + unit * u;
      const detail::chunk_view v = Header::load(h);
      if (v.next <= u || v.next > end) { break; }  // never for a header (defensive)
      if (v.state != detail::chunk_free) {
        run = no_chunk;
      } else if (run == no_chunk) {
        run = u;
      } else {
        Header::mark_absorbed(h, v);
        Header::set_next(first + unit * run, v.next);
        // Relaxed: the hint's last writers (walkers, earlier sessions) released the registration
        // word this session acquired; release: the merged headers are ordered before the hint.
        detail::device_atomic<offset_type> hint(hint_[s]);
        if (hint.load(detail::memory_order_relaxed) == u) { hint.store(run, detail::memory_order_release); }
      }
      u = v.next;
    }
  }

  /// The slow path of create(): merges every segment that has no session and no walkers.
  DEVALLOC_DEVICE void defragment() const noexcept
  {
    for (std::uint32_t s = 0; s < segments_; ++s) {
      const std::uint32_t word = detail::atomic_load_relaxed(reg_[s]);
      if ((word & (merging | walkers)) == 0) { merge_if_idle(s, word); }
    }
  }

  std::uint32_t* current_ = nullptr;           // [sub_heaps]: the segment where a sub-heap's search starts
  std::uint32_t* reg_ = nullptr;               // [segments]: walkers registered | merging
  offset_type* hint_ = nullptr;                // [segments]: where a segment's search starts
  char* base_ = nullptr;                       // the data area
  std::uint64_t units_ = 0;                    // chunks cover the heap's units [0, units_)
  detail::fixed_divisor<std::uint64_t> root_;  // R: units per segment
  std::uint32_t sub_heaps_ = 1;
  std::uint32_t levels_ = 1;
  std::uint32_t segments_ = 1;
};

/// CMalloc (§5.2): 32-bit flag + 32-bit next (segment-relative), one offset.
using Circular = basic_circular<detail::chunk_header_split, CircularConfig>;
/// CFMalloc (§5.3): the flag fused into a 64-bit next word, one offset.
using CircularFused = basic_circular<detail::chunk_header_fused, CircularConfig>;
/// CMMalloc (§5.4): CMalloc with one sub-heap and offset per multiprocessor.
using CircularMulti = basic_circular<detail::chunk_header_split, CircularMultiConfig>;
/// CFMMalloc (§5.4): CFMalloc with one sub-heap and offset per multiprocessor.
using CircularFusedMulti = basic_circular<detail::chunk_header_fused, CircularMultiConfig>;

}  // namespace creation
DEVALLOC_NAMESPACE_END
