// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/creation/fdg_malloc.hpp
//
// CreationPolicy `FDGMalloc<Config, Underlying>`: the Fast Dynamic GPU Memory Allocator of Widmer,
// Wodniok, Weber and Goesele (GPGPU-6, 2013; seed: fdgmalloc-widmer-2013.txt). A warp-level
// allocator on top of an underlying allocator (the paper's "system wide default allocator", §3
// assumption 1; here a creation policy, by default Scatter, selectable: DeviceMalloc is the
// paper's CUDA malloc). Memory is never freed one allocation at a time, only all at once (§3
// assumption 2): dealloc() is a no-op, and a warp's memory returns to the underlying allocator with
// tidyUp() / end() (§3.4) or Allocator::reset().
//
// Data layout (§3.1, Fig. 1), every piece allocated from the underlying allocator:
//   warp header  current superblock, head of the superblock lists, TotalCount, ActiveCount, the
//                tidyUp generation, a magic word (alive), who started it (misuse reports), a
//                spare superblock (a lost install's: see open_superblock).
//   superblock   Config::superblock_bytes (32 KiB): [SB_Allocated, its list entry: 16 B][data].
//                Requests are rounded to Config::min_block (16 B, §3.3) and served at prefix
//                offsets.
//   list         Config::list_entries (126) pointers to superblocks and large chunks, SB_Counter
//                and the list it replaced (a full list is replaced by a new one that links the old
//                one, §3.1; 16 B + 126 x 8 B = 1 KiB).
//
// Two ways to use it:
//   1. The paper's warp-level API (§4.2, Listing 1), through the policy object of a handle:
//        const auto& fdg = handle.creation();
//        auto warp = fdg.start();                 // the lanes that need a header vote (§3.2)
//        void* p = warp.alloc(bytes);             // §3.3
//        warp.tidyUp();                           // strategy 1: free all, keep allocating
//        warp.end();                              // strategy 2: free all and the header
//        auto* kept = warp.keep();                // strategy 3: keep for a later kernel ...
//        auto again = fdg.resume(kept);           // ... which resumes it (and ends it at last)
//      A header belongs to the lanes that called start() together (TotalCount of them); each of
//      them must call one of tidyUp/end/keep, and the last of ActiveCount runs the strategy (§3.4).
//   2. The common host class (Allocator::alloc from any thread): create() finds the calling warp's
//      header in a per-warp table indexed by global warp id (modulo Config::warp_table; made by
//      the first caller of the warp, lock-free); dealloc() is a no-op; Allocator::reset() returns
//      everything (it ends every header). Headers of the table live until reset() / destruction.
//
// Allocation (§3.3, Fig. 3), by any subset of a warp's lanes (those that share a header group by
// match_any): each request is rounded up to min_block; an exclusive prefix sum over the group gives
// each lane its offset (one warp's memory is contiguous, in lane order). The worker (highest
// lane, §4.1) reserves the group's total in the current superblock with one atomic add on
// SB_Allocated and shuffles (superblock, old offset) to the group; lanes whose range fits are
// served; the others vote again, their worker opens a new superblock (registered in the list) and
// they are served from it. A group total above the superblock's capacity (or every request when
// Config::use_superblocks is false, the paper's "FDGMalloc without superblocks", §5.1) is one
// request to the underlying allocator, registered in the list all the same.
//
// Independent thread scheduling: no lock-step assumption; every collective uses the mask of the
// lanes that arrived. Several groups of one warp (or, in the table, of warps whose ids collide)
// may allocate from one header at the same time: SB_Allocated is reserved by atomic add, the
// current superblock is replaced by CAS (a group that loses takes its bytes from the winner's
// superblock where they fit and keeps its own as the header's spare: see open_superblock), lists
// are appended by atomic add and replaced by CAS (a Treiber push: a new list holds the entry and
// links the old one). tidyUp() is a barrier of the header's lanes: the lanes that are not last
// wait (bounded, pause_briefly) for the last one to finish freeing, so that none allocates in
// memory being freed; after Config::tidy_wait_limit pauses a lane gives up, the misuse is counted
// (a lane that started the header never called tidyUp) and it returns. end() and keep() do not
// wait.
//
// Misuse (§4.2, Listing 2) is counted on the device and reported by Allocator::check_errors()
// (misuse_report): alloc/tidyUp/end/keep on a warp that has no header (a lane that did not call
// start()), calls on a header after end(), tidyUp() waits that gave up, and headers started but
// neither ended nor kept when the host checks (named by block and warp; the registry of started
// headers holds Config::registry entries, headers beyond it are counted, not named). Debug builds
// (Config::debug, default: !NDEBUG) also print each device-side misuse at once, naming block, warp
// and lane (the kernel's name is not available in device code; the host message names the
// allocator). A default-constructed warp (no policy) cannot count: its calls print in debug builds
// and return nullptr; use fdg.null_warp() for a lane that may not get a header.
//
// Contract: pointers are 16-byte aligned (min_block is a multiple of 16 and the underlying
// allocator returns 16-byte-aligned chunks for requests that are multiples of 16, as Scatter,
// DeviceMalloc and AtomicBump do); nullptr when the underlying allocator is out of memory or a
// request exceeds 2^40 bytes. create() never waits for another lane. getAvailableSlots() is the
// underlying allocator's count (the rest of open superblocks is not counted). Not provided:
// ownership, interior-pointer and double-free checks (dealloc() changes nothing).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <cstdio>

#include "../detail/atomic.hpp"
#include "../detail/backend.hpp"
#include "../detail/platform.hpp"
#include "../detail/warp.hpp"
#include "../error.hpp"
#include "../free_result.hpp"
#include "../launch.hpp"
#include "../pool.hpp"
#include "../stream.hpp"
#include "../traits.hpp"
#include "scatter.hpp"

#ifndef DEVALLOC_FDG_SUPERBLOCK_BYTES
#define DEVALLOC_FDG_SUPERBLOCK_BYTES 32768
#endif
#ifndef DEVALLOC_FDG_MIN_BLOCK
#define DEVALLOC_FDG_MIN_BLOCK 16
#endif
#ifndef DEVALLOC_FDG_LIST_ENTRIES
#define DEVALLOC_FDG_LIST_ENTRIES 126
#endif
#ifndef DEVALLOC_FDG_WARP_TABLE
#define DEVALLOC_FDG_WARP_TABLE 65536
#endif
#ifndef DEVALLOC_FDG_REGISTRY
#define DEVALLOC_FDG_REGISTRY 4096
#endif
#ifndef DEVALLOC_FDG_DEBUG
#ifdef NDEBUG
#define DEVALLOC_FDG_DEBUG 0
#else
#define DEVALLOC_FDG_DEBUG 1
#endif
#endif

DEVALLOC_NAMESPACE_BEGIN
namespace creation {

/// FDGMalloc's configuration with every setting a template argument (files built with different
/// -DDEVALLOC_FDG_* values get different types). Use FDGConfig and derive to override in code.
template <std::size_t SuperblockBytes, std::size_t MinBlock, std::uint32_t ListEntries, std::uint32_t WarpTable,
          std::uint32_t Registry, bool Debug>
struct basic_fdg_config {
  /// Bytes of one superblock, its 16-byte SB_Allocated word included (§5.1: 32 KiB).
  static constexpr std::size_t superblock_bytes = SuperblockBytes;
  /// Every request is rounded up to a multiple of this (§3.3: 16 B). A power of two >= 16.
  static constexpr std::size_t min_block = MinBlock;
  /// Entries of one superblock list (§5.1: 126; with its count and link a list is 1 KiB).
  static constexpr std::uint32_t list_entries = ListEntries;
  /// false: every request goes to the underlying allocator (one per group of lanes), registered in
  /// the list: the paper's "FDGMalloc without superblocks" (§5.1, §5.2).
  static constexpr bool use_superblocks = true;
  /// Entries of the per-warp header table of the common host class path (global warp id modulo
  /// this; 8 B each). Warps whose ids collide share a header, which is correct, only slower.
  static constexpr std::uint32_t warp_table = WarpTable;
  /// Entries of the registry of headers made by start() (8 B each): the host names headers that
  /// were never ended, and reset() frees them, from it.
  static constexpr std::uint32_t registry = Registry;
  /// Pauses a lane waits in tidyUp() for the header's other lanes before it gives up.
  static constexpr std::uint32_t tidy_wait_limit = 1u << 22;
  /// Print each device-side misuse at once (block, warp, lane).
  static constexpr bool debug = Debug;
};

using FDGConfig = basic_fdg_config<DEVALLOC_FDG_SUPERBLOCK_BYTES, DEVALLOC_FDG_MIN_BLOCK, DEVALLOC_FDG_LIST_ENTRIES,
                                   DEVALLOC_FDG_WARP_TABLE, DEVALLOC_FDG_REGISTRY, DEVALLOC_FDG_DEBUG != 0>;

/// The paper's second variant: every group's request goes to the underlying allocator.
struct FDGDirectConfig : FDGConfig {
  static constexpr bool use_superblocks = false;
};

namespace fdg_detail {

/// A superblock's bookkeeping word (SB_Allocated, §3.1), followed by its data.
struct superblock_head {
  unsigned long long allocated;  // bytes reserved in the data area (may run past the capacity once full)
  unsigned long long entry;      // the list entry that registers it (unsigned long long*)
};

/// A superblock list (§3.1): SB_Counter, the list it replaced, the entries.
template <std::uint32_t Entries>
struct sb_list {
  std::uint32_t count;  // entries taken; may run past Entries once full (then min(count, Entries) are valid)
  std::uint32_t unused;
  unsigned long long next;  // the list this one replaced (0: none)
  unsigned long long entries[Entries];
};

/// The WarpHeader (§3.1). Pointers are kept as integers for the device-scope atomics.
struct warp_header {
  unsigned long long current;   // superblock_head* being filled (0: none open)
  unsigned long long lists;     // head of the superblock lists
  std::uint32_t total_count;    // TotalCount: lanes that called start() together
  std::uint32_t active_count;   // ActiveCount: of those, the lanes that have not run a strategy yet
  std::uint32_t epoch;          // tidyUp() generation (the barrier of tidyUp)
  std::uint32_t magic;          // header_magic while alive
  std::uint32_t kept;           // keep() ran (strategy 3) and end() has not
  std::uint32_t registry_slot;  // 1 + index in the registry (0: not registered, table header)
  std::uint32_t origin_block;   // block / warp (in block) that called start(): misuse reports
  std::uint32_t origin_warp;
  std::uint32_t reported;  // the host reported it as never ended
  std::uint32_t unused;
  unsigned long long spare;  // superblock_head* of a lost install, registered and empty (0: none)
};

inline constexpr std::uint32_t header_magic = 0xFD6A110Cu;
inline constexpr std::size_t header_bytes = 64;
static_assert(sizeof(warp_header) <= header_bytes, "warp_header grew past its 64-byte allocation");

/// Device counters (the first 256 bytes of the policy's metadata).
struct counters {
  unsigned long long without_header;    // alloc/tidyUp/end/keep by a lane without a header
  unsigned long long after_end;         // a call on a header that end() freed (or not a header)
  unsigned long long tidy_timeouts;     // tidyUp() waits that gave up
  unsigned long long extra_calls;       // more strategy calls than lanes started the header
  unsigned long long headers_started;   // by start()
  unsigned long long headers_ended;     // by end()
  unsigned long long headers_kept;      // kept (strategy 3) and not ended yet
  unsigned long long registry_full;     // start() headers the registry had no room for
  unsigned long long headers_reported;  // never-ended headers reported to the host already
};
inline constexpr std::size_t counters_bytes = 256;
static_assert(sizeof(counters) <= counters_bytes, "fdg counters grew past their 256 bytes");

/// Where the caller runs, for misuse messages: CUDA: linear block index, warp in block, lane.
/// CPU backend: devalloc::launch's blocks of 256 threads (8 warps) over the emulated warp index.
struct location {
  unsigned block, warp, lane;
};
DEVALLOC_DEVICE inline location here() noexcept
{
#if DEVALLOC_BACKEND_CUDA
  const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  return {block, tid / detail::warp_size, detail::lane_id()};
#else
  const unsigned w = detail::warp_id();
  return {w / 8u, w % 8u, detail::lane_id()};
#endif
}

DEVALLOC_DEVICE inline void print_misuse(const char* what) noexcept
{
  const location at = here();
#if DEVALLOC_BACKEND_CUDA
  printf("devalloc FDGMalloc misuse: %s (block %u, warp %u, lane %u)\n", what, at.block, at.warp, at.lane);
#else
  std::fprintf(stderr, "devalloc FDGMalloc misuse: %s (block %u, warp %u, lane %u)\n", what, at.block, at.warp,
               at.lane);
#endif
}

DEVALLOC_HOST_DEVICE constexpr std::size_t round_up(std::size_t n, std::size_t to) noexcept
{
  return (n + to - 1) / to * to;
}

/// The kernel of FDGMalloc::finalize_heap / release over a non-resettable underlying allocator:
/// worker i ends the header in entry i of the table or the registry (a namespace-scope type, as
/// nvcc requires of a __global__ template's argument).
template <class Policy>
struct end_walk {
  Policy policy;
  DEVALLOC_DEVICE void operator()(std::size_t i) const { policy.end_entry(i); }
};

}  // namespace fdg_detail

/// Opaque handle of a warp header kept for a later kernel (strategy 3, warp::keep()).
struct fdg_header;

template <class Config = FDGConfig, class Underlying = Scatter<>>
class FDGMalloc {
  static_assert(Config::min_block >= 16 && (Config::min_block & (Config::min_block - 1)) == 0,
                "FDGMalloc: Config::min_block must be a power of two >= 16 (pointers stay 16-byte aligned)");
  static_assert(Config::superblock_bytes % Config::min_block == 0 &&
                  Config::superblock_bytes >= sizeof(fdg_detail::superblock_head) + Config::min_block,
                "FDGMalloc: Config::superblock_bytes must be a multiple of min_block with room for one block "
                "behind its 16-byte SB_Allocated word");
  static_assert(Config::list_entries >= 1 && Config::warp_table >= 1,
                "FDGMalloc: Config::list_entries and Config::warp_table must be at least 1");
  static_assert(Underlying::traits.frees_individually,
                "FDGMalloc: the underlying allocator must free single chunks (tidyUp/end give each "
                "superblock back); use Scatter or DeviceMalloc");

  using header = fdg_detail::warp_header;
  using list = fdg_detail::sb_list<Config::list_entries>;
  using u64 = unsigned long long;

 public:
  using config = Config;
  using underlying_type = Underlying;

  /// Usable bytes of one superblock.
  static constexpr std::size_t superblock_capacity = Config::superblock_bytes - sizeof(fdg_detail::superblock_head);
  /// Requests above this fail at once (keeps every sum of a warp's requests far from overflow).
  static constexpr std::size_t max_request = std::size_t{1} << 40;

  static constexpr creation_traits traits{/*reuses_freed_memory*/ false,
                                          /*exact_refill*/ false,
                                          /*checks_ownership*/ false,
                                          /*provides_available_slots*/ Underlying::traits.provides_available_slots,
                                          /*natural_alignment*/ 16,
                                          /*needs_pool*/ Underlying::traits.needs_pool,
                                          /*resettable*/ true,
                                          /*detects_invalid_pointers*/ false,
                                          /*detects_double_free*/ false,
                                          /*supports_shared_chunks*/ false,
                                          /*combines_requests*/ true,
                                          /*frees_individually*/ false,
                                          /*warp_contiguous*/ Config::use_superblocks};

  // -------------------------------------------------------------------------------------------
  // The paper's warp-level API (§4.2).

  /// A lane's view of its warp header (the paper's `Warp*`); defined below the class.
  class warp;

  /// Device. The paper's Warp::start() (§3.2, Fig. 2): the lanes that call together vote; the
  /// worker (most significant lane of the vote, §4.1) allocates the header and the first
  /// superblock and shuffles the header to the others. TotalCount = ActiveCount = the number of
  /// voting lanes. Any subset of a warp may call; subsets that call separately get separate
  /// headers. On out-of-memory every lane gets a warp without header (valid() false; alloc()
  /// returns nullptr).
  DEVALLOC_DEVICE warp start() const noexcept
  {
    const std::uint32_t vote = detail::active_mask();
    const unsigned worker = detail::highest_bit(vote);
    u64 h = 0;
    if (detail::lane_id() == worker) {
      h = reinterpret_cast<u64>(new_header(detail::popcount(vote)));
      if (h != 0) { register_header(*reinterpret_cast<header*>(h)); }
    }
    h = detail::shuffle(vote, h, worker);
    return warp(*this, reinterpret_cast<header*>(h), h == 0);
  }

  /// Device. The warp a lane holds before start() (alloc() on it is the misuse of Listing 2, and
  /// counted as such).
  DEVALLOC_DEVICE warp null_warp() const noexcept { return warp(*this, nullptr, false); }

  /// Device. A warp over a header kept by warp::keep() in an earlier kernel (strategy 3). The
  /// same number of lanes as started it use it and eventually call tidyUp/end/keep.
  DEVALLOC_DEVICE warp resume(fdg_header* kept) const noexcept
  {
    auto* h = reinterpret_cast<header*>(kept);
    warp w(*this, h, false);
    if (h != nullptr && detail::atomic_load_relaxed(h->magic) != fdg_detail::header_magic) {
      w.misuse(&fdg_detail::counters::after_end, "resume() of a warp header that was ended");
      w.header_ = nullptr;
      w.oom_ = true;
    }
    return w;
  }

  // -------------------------------------------------------------------------------------------
  // CreationPolicy interface (the common host class).

  FDGMalloc() = default;

  /// Host. Sets up the underlying allocator in `pool` and FDGMalloc's own metadata (counters, the
  /// per-warp header table, the start() registry: 256 + 8 x (warp_table + registry) bytes) in
  /// backend memory of its own.
  static FDGMalloc init_heap(pool_span pool, stream_ref stream)
  {
    FDGMalloc heap;
    heap.meta_ = static_cast<unsigned char*>(detail::backend::allocate(meta_bytes, stream));
    try {
      detail::backend::fill(heap.meta_, 0, meta_bytes, stream);
      heap.under_ = Underlying::init_heap(pool, stream);
    } catch (...) {
      detail::backend::deallocate(heap.meta_, stream);
      throw;
    }
    return heap;
  }

  /// Host. Frees everything (every header ends, kept ones included), in stream order: a
  /// resettable underlying allocator is reset; otherwise a kernel walks the header table and the
  /// registry and gives every superblock, list, large chunk and header back to it. The misuse
  /// counters are kept until check_errors() reports them. No kernel may use the heap meanwhile.
  void finalize_heap(stream_ref stream)
  {
    if constexpr (Underlying::traits.resettable) {
      under_.finalize_heap(stream);
    } else {
      end_every_header(stream);
    }
    forget_headers(stream);
  }

  /// Host. Gives everything back (an underlying allocator without pool, e.g. DeviceMalloc, gets
  /// every chunk back first: its heap outlives this one) and frees the metadata.
  void release(stream_ref stream) noexcept
  {
    if (meta_ == nullptr) { return; }
    try {
      if constexpr (!Underlying::traits.needs_pool) { end_every_header(stream); }
    } catch (...) {}
    under_.release(stream);
    detail::backend::deallocate(meta_, stream);
    meta_ = nullptr;
  }

  /// Device. Serves `bytes` for the calling lane from its warp's header (made on first use);
  /// any subset of a warp may call. See the file comment.
  DEVALLOC_DEVICE void* create(std::size_t bytes) const noexcept
  {
    const std::uint32_t arrived = detail::active_mask();
    const bool ok = bytes != 0 && bytes <= max_request;
    const std::uint32_t group = detail::ballot(arrived, ok);
    if (!ok) { return nullptr; }
    const unsigned worker = detail::highest_bit(group);
    u64 h = 0;
    if (detail::lane_id() == worker) {
      h = reinterpret_cast<u64>(table_header(detail::warp_id() % Config::warp_table));
    }
    h = detail::shuffle(group, h, worker);
    if (h == 0) { return nullptr; }
    return alloc_group(group, reinterpret_cast<header*>(h), fdg_detail::round_up(bytes, Config::min_block));
  }

  /// Device. A no-op (§3 assumption 2: memory is freed all at once); returns free_result::freed
  /// for every pointer and changes nothing (traits.frees_individually is false).
  DEVALLOC_DEVICE free_result destroy(void*) const noexcept { return free_result::freed; }

  DEVALLOC_DEVICE bool is_oom(const void* p, std::size_t bytes) const noexcept { return bytes != 0 && p == nullptr; }

  /// Device / host. The underlying allocator's free slots (open superblocks' rest not counted).
  DEVALLOC_DEVICE std::size_t available_slots(std::size_t slot_bytes) const
  {
    return under_.available_slots(slot_bytes);
  }
  std::size_t available_slots_host(std::size_t slot_bytes, stream_ref stream) const
  {
    return under_.available_slots_host(slot_bytes, stream);
  }

  /// Host. Misuse counted since the last report (empty if none); each is reported once. Headers
  /// started and neither ended nor kept are named by block and warp (up to 8). Called by
  /// Allocator::check_errors() after the stream's kernels.
  std::string misuse_report(stream_ref stream)
  {
    fdg_detail::counters c{};
    detail::backend::copy_to_host(&c, meta_, sizeof(c), stream);
    std::vector<u64> registry(Config::registry);
    detail::backend::copy_to_host(registry.data(), registry_words(), sizeof(u64) * registry.size(), stream);
    std::string named;
    unsigned long long never_ended_named = 0;
    for (const u64 entry : registry) {
      if (entry == 0) { continue; }
      header h{};
      detail::backend::copy_to_host(&h, reinterpret_cast<const void*>(entry), sizeof(h), stream);
      if (h.magic != fdg_detail::header_magic || h.kept != 0 || h.reported != 0) { continue; }
      if (never_ended_named < 8) {
        named += (named.empty() ? "" : ", ") + std::string("block ") + std::to_string(h.origin_block) + " warp " +
                 std::to_string(h.origin_warp);
      }
      ++never_ended_named;
      const std::uint32_t one = 1;
      detail::backend::copy_to_device(reinterpret_cast<unsigned char*>(entry) + offsetof(header, reported), &one,
                                      sizeof(one), stream);
    }
    // Headers the registry had no room for are counted from started - ended - kept.
    const unsigned long long live = c.headers_started - c.headers_ended;
    const unsigned long long accounted = c.headers_kept + c.headers_reported + never_ended_named;
    const unsigned long long unnamed = live > accounted ? live - accounted : 0;
    const unsigned long long never_ended = never_ended_named + unnamed;

    std::string message;
    const auto add = [&message](unsigned long long n, const std::string& text) {
      if (n != 0) { message += (message.empty() ? "" : "; ") + std::to_string(n) + " " + text; }
    };
    add(c.without_header,
        "call(s) of alloc/tidyUp/end/keep by a lane without a warp header (start() not called; "
        "FDGMalloc paper, Listing 2)");
    add(c.after_end, "call(s) on a warp header after end()");
    add(never_ended, "warp header(s) started and neither ended nor kept (leaked; FDGMalloc paper, Listing 2)" +
                       (named.empty() ? std::string() : " at " + named + (never_ended > 8 ? ", ..." : "")));
    add(c.tidy_timeouts, "tidyUp() call(s) gave up waiting for the header's other lanes");
    add(c.extra_calls, "tidyUp/end/keep call(s) more than the lanes that started the header");
    if (message.empty()) { return message; }
    fdg_detail::counters cleared = c;
    cleared.without_header = cleared.after_end = cleared.tidy_timeouts = cleared.extra_calls = 0;
    cleared.headers_reported += never_ended;
    detail::backend::copy_to_device(meta_, &cleared, sizeof(cleared), stream);
    return "FDGMalloc misuse (" + classname() + "): " + message;
  }

  /// Host. Headers made by start() that are alive (not ended), read after the stream's kernels.
  std::size_t live_headers_host(stream_ref stream) const
  {
    fdg_detail::counters c{};
    detail::backend::copy_to_host(&c, meta_, sizeof(c), stream);
    return static_cast<std::size_t>(c.headers_started - c.headers_ended);
  }

  /// The underlying allocator (e.g. for its getAvailableSlots before and after end()).
  DEVALLOC_HOST_DEVICE const Underlying& underlying() const noexcept { return under_; }

  /// Host. "FDGMalloc<superblock=..., ..., underlying=...>".
  static std::string classname()
  {
    return std::string("FDGMalloc<") + (Config::use_superblocks ? "superblock=" : "direct, superblock=") +
           std::to_string(Config::superblock_bytes) + ", min_block=" + std::to_string(Config::min_block) +
           ", list_entries=" + std::to_string(Config::list_entries) +
           ", warp_table=" + std::to_string(Config::warp_table) + ", registry=" + std::to_string(Config::registry) +
           (Config::debug ? ", debug" : "") + ", underlying=" + Underlying::classname() + ">";
  }

  /// Device (walk kernel). Ends the header in entry `i` of the table (i < warp_table) or registry.
  DEVALLOC_DEVICE void end_entry(std::size_t i) const noexcept
  {
    const u64 entry = i < Config::warp_table ? table_words()[i] : registry_words()[i - Config::warp_table];
    if (entry == 0) { return; }
    header& h = *reinterpret_cast<header*>(entry);
    free_chunks(h);
    h.magic = 0;
    under_.destroy(&h);
  }

 private:
  static constexpr std::size_t meta_bytes =
    fdg_detail::counters_bytes + sizeof(u64) * (std::size_t{Config::warp_table} + Config::registry);

  DEVALLOC_HOST_DEVICE u64* table_words() const noexcept
  {
    return reinterpret_cast<u64*>(meta_ + fdg_detail::counters_bytes);
  }
  DEVALLOC_HOST_DEVICE u64* registry_words() const noexcept { return table_words() + Config::warp_table; }
  DEVALLOC_DEVICE void count(unsigned long long fdg_detail::counters::*counter, unsigned long long n) const noexcept
  {
    auto* c = reinterpret_cast<fdg_detail::counters*>(meta_);
    detail::device_atomic<unsigned long long>(c->*counter).fetch_add(n, detail::memory_order_relaxed);
  }

  void end_every_header(stream_ref stream)
  {
    launch_options options;
    options.stream = stream;
    options.cpu_lanes = 1;
    launch(std::size_t{Config::warp_table} + Config::registry, fdg_detail::end_walk<FDGMalloc>{*this}, options);
  }

  void forget_headers(stream_ref stream)
  {
    detail::backend::fill(table_words(), 0, sizeof(u64) * (std::size_t{Config::warp_table} + Config::registry), stream);
    // Every header is gone: the live-header accounting starts again (misuse counters stay).
    const std::size_t first = offsetof(fdg_detail::counters, headers_started);
    detail::backend::fill(meta_ + first, 0, sizeof(fdg_detail::counters) - first, stream);
  }

  /// Worker lane. A header with its first superblock (§3.2), or nullptr when out of memory.
  DEVALLOC_DEVICE header* new_header(std::uint32_t lanes) const noexcept
  {
    auto* h = static_cast<header*>(under_.create(fdg_detail::header_bytes));
    if (h == nullptr) { return nullptr; }
    const fdg_detail::location at = fdg_detail::here();
    h->current = 0;
    h->lists = 0;
    h->total_count = lanes;
    h->active_count = lanes;
    h->epoch = 0;
    h->kept = 0;
    h->registry_slot = 0;
    h->origin_block = at.block;
    h->origin_warp = at.warp;
    h->reported = 0;
    h->unused = 0;
    h->spare = 0;
    if constexpr (Config::use_superblocks) { open_superblock(*h, 0, 0); }  // a failure leaves none open
    detail::device_atomic<std::uint32_t>(h->magic).store(fdg_detail::header_magic, detail::memory_order_release);
    return h;
  }

  /// Worker lane of a start(): files the header in the registry (a bounded probe from the warp's
  /// hash), or counts that it could not.
  DEVALLOC_DEVICE void register_header(header& h) const noexcept
  {
    count(&fdg_detail::counters::headers_started, 1);
    u64* registry = registry_words();
    const std::uint32_t start = (detail::warp_id() * 2654435761u) % Config::registry;
    for (std::uint32_t k = 0; k < 64u && k < Config::registry; ++k) {
      const std::uint32_t slot = (start + k) % Config::registry;
      u64 expected = 0;
      if (detail::device_atomic<u64>(registry[slot])
            .compare_exchange_strong(expected, reinterpret_cast<u64>(&h), detail::memory_order_release,
                                     detail::memory_order_relaxed)) {
        h.registry_slot = slot + 1u;
        return;
      }
    }
    count(&fdg_detail::counters::registry_full, 1);
  }

  /// One lane: the header of table entry `slot`, made and published by CAS if there is none (a
  /// lane that loses the race ends the header it made and takes the winner's).
  DEVALLOC_DEVICE header* table_header(std::uint32_t slot) const noexcept
  {
    detail::device_atomic<u64> entry(table_words()[slot]);
    u64 h = entry.load(detail::memory_order_acquire);
    if (h != 0) { return reinterpret_cast<header*>(h); }
    header* made = new_header(detail::warp_size);
    if (made == nullptr) { return nullptr; }
    if (entry.compare_exchange_strong(h, reinterpret_cast<u64>(made), detail::memory_order_acq_rel,
                                      detail::memory_order_acquire)) {
      return made;
    }
    free_chunks(*made);
    under_.destroy(made);
    return reinterpret_cast<header*>(h);
  }

  /// One lane (end()'s last): gives everything back, the header included.
  DEVALLOC_DEVICE void end_header(header& h) const noexcept
  {
    free_chunks(h);
    if (h.kept != 0) { count(&fdg_detail::counters::headers_kept, ~0ull); }  // -1
    if (h.registry_slot != 0) {
      detail::device_atomic<u64>(registry_words()[h.registry_slot - 1]).store(0, detail::memory_order_relaxed);
    }
    detail::device_atomic<std::uint32_t>(h.magic).store(0u, detail::memory_order_relaxed);
    count(&fdg_detail::counters::headers_ended, 1);
    under_.destroy(&h);
  }

  /// One lane, no other user of `h`: every registered chunk and every list back to the
  /// underlying allocator (§3.4).
  DEVALLOC_DEVICE void free_chunks(header& h) const noexcept
  {
    u64 l = detail::device_atomic<u64>(h.lists).load(detail::memory_order_acquire);
    while (l != 0) {
      list& current = *reinterpret_cast<list*>(l);
      const std::uint32_t taken = detail::atomic_load_relaxed(current.count);
      const std::uint32_t n = taken < Config::list_entries ? taken : Config::list_entries;
      for (std::uint32_t i = 0; i < n; ++i) {
        if (current.entries[i] != 0) { under_.destroy(reinterpret_cast<void*>(current.entries[i])); }  // 0: cleared
      }
      const u64 next = current.next;
      under_.destroy(&current);
      l = next;
    }
    detail::device_atomic<u64>(h.lists).store(0, detail::memory_order_relaxed);
    detail::device_atomic<u64>(h.current).store(0, detail::memory_order_relaxed);
    detail::device_atomic<u64>(h.spare).store(0, detail::memory_order_relaxed);  // it was in a list
  }

  /// One lane. Files `chunk` in the header's list; a full (or missing) list is replaced by a new
  /// one that holds the chunk and links the old (lock-free push). Returns the entry that holds the
  /// chunk (a lane may clear it again while no strategy runs: free_chunks skips cleared entries),
  /// nullptr when out of memory.
  DEVALLOC_DEVICE u64* register_chunk(header& h, u64 chunk) const noexcept
  {
    detail::device_atomic<u64> head(h.lists);
    for (;;) {
      u64 l = head.load(detail::memory_order_acquire);
      if (l != 0) {
        list& current = *reinterpret_cast<list*>(l);
        const std::uint32_t slot =
          detail::device_atomic<std::uint32_t>(current.count).fetch_add(1u, detail::memory_order_relaxed);
        if (slot < Config::list_entries) {
          current.entries[slot] = chunk;
          return &current.entries[slot];
        }
      }
      auto* fresh = static_cast<list*>(under_.create(sizeof(list)));
      if (fresh == nullptr) { return nullptr; }
      fresh->count = 1;
      fresh->unused = 0;
      fresh->next = l;
      fresh->entries[0] = chunk;
      if (head.compare_exchange_strong(l, reinterpret_cast<u64>(fresh), detail::memory_order_acq_rel,
                                       detail::memory_order_relaxed)) {
        return &fresh->entries[0];
      }
      under_.destroy(fresh);  // another lane replaced the list first: file the chunk in its list
    }
  }

  /// One lane. `reserve` bytes for the caller's group from a new superblock (registered), which
  /// replaces `seen` as the header's current one: the header's spare if it has one (below), else
  /// one from the underlying allocator. Returns the address of the group's bytes, 0 when out of
  /// memory.
  ///
  /// Groups of one warp open superblocks at the same time whenever its lanes diverge (independent
  /// thread scheduling: lanes served from the old superblock call again while the rest still wait
  /// for the underlying allocator). Only one new superblock can become current; if the loser kept
  /// its own for its one group, as the paper's §3.3 does, all but a group's bytes of it stayed
  /// empty: over Scatter on an H100, 4 096 lanes filling 64 MiB with 64 B requests got 55 % of the
  /// heap while Scatter had handed out 95 % of its pages as superblocks. So a loser takes its bytes
  /// from the winner's superblock where they fit and keeps its own, empty, as the header's spare for
  /// the next superblock change (lost_install).
  DEVALLOC_DEVICE u64 open_superblock(header& h, u64 reserve, u64 seen) const noexcept
  {
    constexpr u64 data = sizeof(fdg_detail::superblock_head);
    u64 p = take_spare(h);
    if (p == 0) {
      auto* fresh = static_cast<fdg_detail::superblock_head*>(under_.create(Config::superblock_bytes));
      if (fresh == nullptr) { return 0; }
      u64* const entry = register_chunk(h, reinterpret_cast<u64>(fresh));
      if (entry == nullptr) {
        under_.destroy(fresh);
        return 0;
      }
      fresh->entry = reinterpret_cast<u64>(entry);
      p = reinterpret_cast<u64>(fresh);
    }
    detail::device_atomic<u64>(reinterpret_cast<fdg_detail::superblock_head*>(p)->allocated)
      .store(reserve, detail::memory_order_relaxed);
    // release: our `allocated` before the pointer.
    if (detail::device_atomic<u64>(h.current).compare_exchange_strong(seen, p, detail::memory_order_release,
                                                                      detail::memory_order_relaxed)) {
      return p + data;
    }
    return lost_install(h, p, reserve);
  }

  /// One lane, out of line (see lost_install): the header's spare superblock, taken (0: none).
  DEVALLOC_NOINLINE DEVALLOC_DEVICE u64 take_spare(header& h) const noexcept
  {
    detail::device_atomic<u64> spare(h.spare);
    // acquire: the spare's `entry`, written before its release CAS.
    return spare.load(detail::memory_order_relaxed) != 0 ? spare.exchange(0, detail::memory_order_acquire) : 0;
  }

  /// One lane, out of line (inlined, its loop raised FDGMalloc's allocating kernels over Scatter
  /// from 110 to 137 registers): open_superblock's CAS lost to another group's new superblock.
  /// Takes `reserve` bytes from the superblock the header names now where they fit, and superblock
  /// `p` (registered, not installed) becomes the header's spare, or, if the header has one, goes
  /// back to the underlying allocator (its list entry cleared first: giving every loser's back cost
  /// devalloc-bench's smallest FDGMalloc launches up to 26 %). Where the bytes do not fit, that
  /// superblock is full and `p` replaces it. Each failed CAS means another group installed a
  /// superblock: lock-free.
  DEVALLOC_NOINLINE DEVALLOC_DEVICE u64 lost_install(header& h, u64 p, u64 reserve) const noexcept
  {
    constexpr u64 data = sizeof(fdg_detail::superblock_head);
    detail::device_atomic<u64> current(h.current);
    // acquire: the winner's `allocated` (stored before its release CAS) is read below.
    u64 seen = current.load(detail::memory_order_acquire);
    for (;;) {
      if (seen != 0) {
        detail::device_atomic<u64> allocated(reinterpret_cast<fdg_detail::superblock_head*>(seen)->allocated);
        if (allocated.load(detail::memory_order_relaxed) + reserve <= superblock_capacity) {
          const u64 old = allocated.fetch_add(reserve, detail::memory_order_relaxed);
          if (old + reserve <= superblock_capacity) {
            u64 none = 0;
            // release: `entry` before the spare's pointer.
            if (!detail::device_atomic<u64>(h.spare).compare_exchange_strong(none, p, detail::memory_order_release,
                                                                             detail::memory_order_relaxed)) {
              auto* sb = reinterpret_cast<fdg_detail::superblock_head*>(p);
              *reinterpret_cast<u64*>(sb->entry) = 0;
              under_.destroy(sb);
            }
            return seen + data + old;
          }
        }
      }
      if (current.compare_exchange_strong(seen, p, detail::memory_order_acq_rel, detail::memory_order_acquire)) {
        return p + data;
      }
    }
  }

  /// One lane. A chunk of `bytes` straight from the underlying allocator, registered (§3.3 large
  /// requests; every request without superblocks). 0 when out of memory.
  DEVALLOC_DEVICE u64 direct_chunk(header& h, u64 bytes) const noexcept
  {
    void* p = under_.create(static_cast<std::size_t>(bytes));
    if (p == nullptr) { return 0; }
    if (register_chunk(h, reinterpret_cast<u64>(p)) == nullptr) {
      under_.destroy(p);
      return 0;
    }
    return reinterpret_cast<u64>(p);
  }

  /// The lanes of `group` (all holding `h`) allocate `bytes` each (a multiple of min_block): §3.3.
  DEVALLOC_DEVICE void* alloc_group(std::uint32_t group, header* h, std::size_t bytes) const noexcept
  {
    constexpr u64 data = sizeof(fdg_detail::superblock_head);
    if (!Config::use_superblocks) { return alloc_direct(group, h, bytes); }
    std::uint32_t pending = group;
    for (unsigned attempt = 0;; ++attempt) {
      // Phase 1: the current superblock, one atomic add for the pending lanes.
      u64 below = 0;
      const u64 total = detail::group_sum<u64>(pending, bytes, below);
      if (total > superblock_capacity) { return alloc_direct(pending, h, bytes); }
      const unsigned worker = detail::highest_bit(pending);
      u64 sb = 0, old = superblock_capacity;
      if (detail::lane_id() == worker) {
        sb = detail::device_atomic<u64>(h->current).load(detail::memory_order_acquire);
        if (sb != 0) {
          detail::device_atomic<u64> allocated(reinterpret_cast<fdg_detail::superblock_head*>(sb)->allocated);
          old = allocated.load(detail::memory_order_relaxed);
          if (old < superblock_capacity) { old = allocated.fetch_add(total, detail::memory_order_relaxed); }
        }
      }
      sb = detail::shuffle(pending, sb, worker);
      old = detail::shuffle(pending, old, worker);
      const bool fits = sb != 0 && old + below + bytes <= superblock_capacity;
      const std::uint32_t rest = detail::ballot(pending, !fits);
      if (fits) { return reinterpret_cast<void*>(sb + data + old + below); }
      // Phase 2: the lanes that did not fit vote again. If another group has opened a superblock
      // meanwhile, they try that one (a bounded number of times: each retry means another group
      // progressed); otherwise their worker opens the next superblock for them.
      pending = rest;
      u64 below2 = 0;
      const u64 total2 = detail::group_sum<u64>(pending, bytes, below2);
      const unsigned worker2 = detail::highest_bit(pending);
      u64 fresh = 0;  // 1: retry the current superblock; else the group's bytes (0: out of memory)
      if (detail::lane_id() == worker2) {
        const u64 now = detail::device_atomic<u64>(h->current).load(detail::memory_order_acquire);
        fresh = now != sb && now != 0 && attempt < 8 ? 1 : open_superblock(*h, total2, sb);
      }
      fresh = detail::shuffle(pending, fresh, worker2);
      if (fresh == 1) { continue; }
      return fresh != 0 ? reinterpret_cast<void*>(fresh + below2) : nullptr;
    }
  }

  /// The lanes of `group`: one chunk of the underlying allocator for all of them (§3.3 large
  /// requests, or every request without superblocks), at prefix offsets.
  DEVALLOC_DEVICE void* alloc_direct(std::uint32_t group, header* h, std::size_t bytes) const noexcept
  {
    u64 below = 0;
    const u64 total = detail::group_sum<u64>(group, bytes, below);
    const unsigned worker = detail::highest_bit(group);
    u64 base = detail::lane_id() == worker ? direct_chunk(*h, total) : 0;
    base = detail::shuffle(group, base, worker);
    return base != 0 ? reinterpret_cast<void*>(base + below) : nullptr;
  }

  Underlying under_{};
  unsigned char* meta_ = nullptr;
};

/// True for FDGMalloc specializations (e.g. for a benchmark that uses the warp API where it can).
template <class T>
struct is_fdg_malloc : std::false_type {};
template <class C, class U>
struct is_fdg_malloc<FDGMalloc<C, U>> : std::true_type {};

/// A lane's view of its warp header (the paper's `Warp*`). Trivially copyable; valid in the
/// kernel that made it (start / resume) until the lane runs end() or keep().
template <class Config, class Underlying>
class FDGMalloc<Config, Underlying>::warp {
 public:
  warp() = default;

  /// Device. The paper's warp->alloc(size) (§3.3): `bytes` rounded up to min_block, served
  /// with the other lanes holding the same header that call together. Any subset of the
  /// header's lanes may call. Returns a 16-byte-aligned pointer, or nullptr for bytes == 0,
  /// bytes > max_request, out of memory, or a lane without header (counted as misuse unless its
  /// start() ran out of memory). Never waits for a lane that did not call.
  DEVALLOC_DEVICE void* alloc(std::size_t bytes) const noexcept
  {
    const std::uint32_t arrived = detail::active_mask();
    const std::uint32_t group = detail::match_any(arrived, reinterpret_cast<u64>(header_));
    bool ok = bytes != 0 && bytes <= max_request;
    if (header_ == nullptr) {
      if (!oom_) { misuse(&fdg_detail::counters::without_header, "alloc() by a lane without a warp header"); }
      ok = false;
    } else if (detail::atomic_load_relaxed(header_->magic) != fdg_detail::header_magic) {
      misuse(&fdg_detail::counters::after_end, "alloc() on a warp header after end()");
      ok = false;
    }
    const std::uint32_t callers = detail::ballot(group, ok);
    if (!ok) { return nullptr; }
    return policy_.alloc_group(callers, header_, fdg_detail::round_up(bytes, Config::min_block));
  }

  /// Device. Strategy 1 (§3.4): the last of the header's ActiveCount lanes to call frees every
  /// superblock, list and large chunk, opens a new superblock and resets ActiveCount to
  /// TotalCount; the header keeps working. Every lane that called start() must call it; the
  /// others wait (bounded) for the last one, so no lane allocates in memory being freed.
  /// Every pointer from this header is invalid afterwards.
  DEVALLOC_DEVICE void tidyUp() const noexcept
  {
    if (!usable("tidyUp()")) { return; }
    header& h = *header_;
    const std::uint32_t epoch = detail::device_atomic<std::uint32_t>(h.epoch).load(detail::memory_order_acquire);
    if (!last_of_active()) {
      for (std::uint32_t i = 0; i < Config::tidy_wait_limit; ++i) {
        if (detail::device_atomic<std::uint32_t>(h.epoch).load(detail::memory_order_acquire) != epoch) { return; }
        detail::pause_briefly();
      }
      misuse(&fdg_detail::counters::tidy_timeouts,
             "tidyUp() gave up waiting: a lane that started the warp header did not call tidyUp()");
      return;
    }
    policy_.free_chunks(h);
    if constexpr (Config::use_superblocks) { policy_.open_superblock(h, 0, 0); }
    detail::device_atomic<std::uint32_t>(h.active_count).store(h.total_count, detail::memory_order_relaxed);
    detail::device_atomic<std::uint32_t>(h.epoch).store(epoch + 1u, detail::memory_order_release);
  }

  /// Device. Strategy 2 (§3.4): the last of ActiveCount frees everything, the header included.
  /// No lane may use this header afterwards. Does not wait.
  DEVALLOC_DEVICE void end() noexcept
  {
    if (!usable("end()")) { return; }
    header* h = header_;
    header_ = nullptr;
    oom_ = true;  // a later call on this copy is the caller's error, but not "without header"
    if (last_of_active(h)) { policy_.end_header(*h); }
  }

  /// Device. Strategy 3 (§3.4): keep the header and its memory for a later kernel; every lane of
  /// the header calls it (the last resets ActiveCount to TotalCount) and gets the header, which
  /// FDGMalloc::resume() turns into a warp again. It must eventually be ended (end()).
  DEVALLOC_DEVICE fdg_header* keep() noexcept
  {
    if (!usable("keep()")) { return nullptr; }
    header* h = header_;
    header_ = nullptr;
    oom_ = true;
    if (last_of_active(h)) {
      if (detail::device_atomic<std::uint32_t>(h->kept).exchange(1u, detail::memory_order_relaxed) == 0u) {
        policy_.count(&fdg_detail::counters::headers_kept, 1);
      }
      detail::device_atomic<std::uint32_t>(h->active_count).store(h->total_count, detail::memory_order_release);
    }
    return reinterpret_cast<fdg_header*>(h);
  }

  /// The lane holds a header (start() succeeded, not ended or kept since).
  DEVALLOC_HOST_DEVICE bool valid() const noexcept { return header_ != nullptr; }

 private:
  friend class FDGMalloc;
  DEVALLOC_DEVICE warp(const FDGMalloc& policy, header* h, bool oom) noexcept
      : policy_(policy), header_(h), oom_(oom), bound_(true)
  {}

  DEVALLOC_DEVICE bool usable(const char* what) const noexcept
  {
    if (header_ == nullptr) {
      if (!oom_) { misuse(&fdg_detail::counters::without_header, what); }
      return false;
    }
    if (detail::atomic_load_relaxed(header_->magic) != fdg_detail::header_magic) {
      misuse(&fdg_detail::counters::after_end, what);
      return false;
    }
    return true;
  }

  DEVALLOC_DEVICE bool last_of_active() const noexcept { return last_of_active(header_); }
  DEVALLOC_DEVICE bool last_of_active(header* h) const noexcept
  {
    const std::uint32_t before =
      detail::device_atomic<std::uint32_t>(h->active_count).fetch_sub(1u, detail::memory_order_acq_rel);
    if (before == 0u) {  // more calls than lanes started the header: undo, report
      detail::device_atomic<std::uint32_t>(h->active_count).fetch_add(1u, detail::memory_order_relaxed);
      misuse(&fdg_detail::counters::extra_calls,
             "more tidyUp()/end()/keep() calls than lanes that started the warp header");
      return false;
    }
    return before == 1u;
  }

  DEVALLOC_DEVICE void misuse(unsigned long long fdg_detail::counters::*counter, const char* what) const noexcept
  {
    if constexpr (Config::debug) { fdg_detail::print_misuse(what); }
    if (bound_) { policy_.count(counter, 1); }
  }

  FDGMalloc policy_{};
  header* header_ = nullptr;
  bool oom_ = false;    // start() ran out of memory (alloc then returns nullptr quietly)
  bool bound_ = false;  // made by a policy (can count misuse)
};

}  // namespace creation
DEVALLOC_NAMESPACE_END
