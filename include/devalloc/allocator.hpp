// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/allocator.hpp
//
// The host class (mallocMC thesis ch. 3, §4.2): devalloc::Allocator composes five policies at
// compile time into one allocator.
//
//   Creation      — builds the heap in the pool and serves requests (creation/)
//   Distribution  — may combine the requests of a warp into one and split the result (distribution/)
//   OOM           — what a failed request returns or does (oom/)
//   ReservePool   — where the pool comes from (reserve_pool/)
//   Alignment     — aligns the pool and pads every request (alignment/)
//
// Allocator is the owning host object (RAII: the heap is set up in the constructor and torn down
// in the destructor; movable, not copyable). handle() returns an AllocatorHandle: a small,
// trivially copyable value that kernels take by value and call alloc()/dealloc() on, in the manner
// of cuCollections' static_map / static_map_ref.
//
// Streams and devices (CUDA backend): the heap belongs to the device that was current when it was
// built, and every host operation makes that device current for its duration (so it works while
// another device is current). Host operations are stream-ordered in CCCL's terms: construction,
// stats(), reset(), getAvailableSlots() and destruction run on a devalloc::stream_ref
// (cuda::stream_ref; default: the stream given at construction, itself defaulting to CUDA's
// default stream) and synchronize that stream only, never the whole device. Kernels that use the
// heap on another stream must be ordered with it by the caller (events), as for any
// stream-ordered memory.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "detail/atomic.hpp"
#include "detail/backend.hpp"
#include "detail/platform.hpp"
#include "free_result.hpp"
#include "policy_check.hpp"
#include "pool.hpp"
#include "traits.hpp"
#include "error.hpp"
#include "stream.hpp"

DEVALLOC_NAMESPACE_BEGIN

/// Counters the device side keeps and the host reads (Allocator::stats()).
struct allocator_stats {
  /// alloc() calls with a non-zero size that returned nullptr (out of memory or too large).
  unsigned long long failed_allocations = 0;
  /// dealloc() calls with a pointer the allocator did not hand out: not owned (where
  /// traits.checks_ownership), or inside the heap but not the start of a live allocation (where
  /// traits.detects_invalid_pointers; with a distribution policy that shares chunks, also a pointer
  /// into a shared chunk that is no member's). Nothing was freed.
  unsigned long long invalid_frees = 0;
  /// dealloc() calls with a pointer whose allocation was freed before (where
  /// traits.detects_double_free, and as long as its memory was not handed out again). Nothing was
  /// freed.
  unsigned long long double_frees = 0;
};

namespace detail {
/// The creation policy reports misuse of an API of its own (Allocator::check_errors).
template <class C, class = void>
struct has_misuse_report : std::false_type {};
template <class C>
struct has_misuse_report<C, std::void_t<decltype(std::declval<C&>().misuse_report(std::declval<stream_ref>()))>>
    : std::true_type {};

template <class T>
constexpr T max_of(T a, T b)
{
  return a < b ? b : a;
}

/// What an allocator promises: the creation policy's traits, unless the distribution policy
/// changes what frees can tell (`static constexpr creation_traits adjust_traits(creation_traits)`,
/// e.g. distribution::CoalesceDynamic, whose headers carry no tag).
template <class Creation, class Distribution, class = void>
struct allocator_traits_of {
  static constexpr creation_traits value = Creation::traits;
};
template <class Creation, class Distribution>
struct allocator_traits_of<Creation, Distribution,
                           std::void_t<decltype(Distribution::adjust_traits(Creation::traits))>> {
  static constexpr creation_traits value = Distribution::adjust_traits(Creation::traits);
};

/// Alignment of every pointer alloc() returns: the Alignment policy's and the creation policy's
/// (the larger), unless the distribution policy places payloads itself and says so
/// (`static constexpr std::size_t payload_alignment`, e.g. distribution::CoalesceDynamic<4>).
template <class Distribution, class = void>
struct distribution_alignment {
  static constexpr std::size_t value(std::size_t others) noexcept { return others; }
};
template <class Distribution>
struct distribution_alignment<Distribution, std::void_t<decltype(Distribution::payload_alignment)>> {
  static constexpr std::size_t value(std::size_t) noexcept { return Distribution::payload_alignment; }
};

/// A creation policy that itself combines requests (`static constexpr bool combines_requests`,
/// e.g. creation::CoalesceHashed): its inner heap sees superblocks, not the callers' sizes.
template <class Creation, class = void>
struct creation_combines_requests : std::false_type {};
template <class Creation>
struct creation_combines_requests<Creation, std::void_t<decltype(Creation::combines_requests)>>
    : std::bool_constant<Creation::combines_requests> {};

/// Block-level coalescing (AllocatorHandle::alloc_block_coalesced): a distribution policy's
/// `static void* alloc_block(const Creation&, std::size_t)`, or a creation policy's
/// `void* create_block(std::size_t) const`.
template <class Creation, class Distribution, class = void>
struct has_distribution_alloc_block : std::false_type {};
template <class Creation, class Distribution>
struct has_distribution_alloc_block<
  Creation, Distribution,
  std::void_t<decltype(Distribution::alloc_block(std::declval<const Creation&>(), std::size_t{}))>> : std::true_type {};
template <class Creation, class = void>
struct has_create_block : std::false_type {};
template <class Creation>
struct has_create_block<Creation, std::void_t<decltype(std::declval<const Creation&>().create_block(std::size_t{}))>>
    : std::true_type {};
}  // namespace detail

/// Device-side view of an Allocator. Trivially copyable; pass it to kernels by value. Valid while
/// the heap it refers to is alive: moving the Allocator moves the heap with it (the handle stays
/// valid for the new owner); destroying the owner invalidates it.
template <class Creation, class Distribution, class OOM, class ReservePool, class Alignment>
class AllocatorHandle {
 public:
  /// Every pointer alloc() returns is a multiple of this many bytes.
  static constexpr std::size_t alignment = detail::distribution_alignment<Distribution>::value(
    detail::max_of(Alignment::guaranteed_alignment, Creation::traits.natural_alignment));
  static constexpr bool providesAvailableSlots = Creation::traits.provides_available_slots;
  /// alloc_block_coalesced() is available (distribution::CoalesceBlock, creation::CoalesceHashed).
  static constexpr bool providesBlockCoalescing =
    detail::has_distribution_alloc_block<Creation, Distribution>::value || detail::has_create_block<Creation>::value;

  AllocatorHandle() = default;
  AllocatorHandle(Creation creation, allocator_stats* stats) noexcept : creation_(creation), stats_(stats) {}

  /// Device. Allocates `bytes` bytes for the calling worker.
  /// Thread safety: any number of workers, any subset of a warp, may call concurrently.
  /// Returns: a pointer aligned to `alignment`, not overlapping any other live allocation;
  ///          nullptr for `bytes == 0` (not counted as a failure); on failure (out of memory, or
  ///          more than the heap) whatever the OOM policy returns — nullptr for ReturnNull, which
  ///          is counted in stats().failed_allocations. Trap stops the kernel instead.
  /// Pipeline (thesis §3.2): pad -> collect -> create -> OOM check -> distribute.
  DEVALLOC_DEVICE void* alloc(std::size_t bytes) const
  {
    if (bytes == 0) { return nullptr; }
    const std::size_t padded = Alignment::apply_padding(bytes);
    Distribution distribution{};
    const std::size_t request = distribution.collect(padded);
    void* block = request != 0 ? creation_.create(request) : nullptr;
    if (creation_.is_oom(block, request)) { block = OOM::handle_oom(block, request); }
    void* result = distribution.distribute(block);
    if (result == nullptr) {
      detail::device_atomic<unsigned long long>(stats_->failed_allocations).fetch_add(1, detail::memory_order_relaxed);
    }
    return result;
  }

  /// Device. Block-level coalesced allocation (Blach et al. §3.1): a COLLECTIVE of every thread of
  /// the thread block, like __syncthreads() — all threads must call it, with the same `bytes`;
  /// one thread allocates a superblock and each gets its own slot, in thread order. Only for
  /// policies that provide it (distribution::CoalesceBlock, creation::CoalesceHashed). If the
  /// threads' sizes differ, it falls back to coalescing per warp. CPU backend: there are no
  /// thread blocks; the lanes of a warp that call together form the group (as alloc()).
  /// Each pointer is freed with dealloc() on its own, by any worker, in any later kernel.
  /// Returns: as alloc() (nullptr for bytes == 0; on failure the OOM policy's result, counted).
  DEVALLOC_DEVICE void* alloc_block_coalesced(std::size_t bytes) const
  {
    static_assert(providesBlockCoalescing,
                  "alloc_block_coalesced: neither policy coalesces per block; use distribution::CoalesceBlock or "
                  "creation::CoalesceHashed<...>");
    const std::size_t padded = bytes == 0 ? 0 : Alignment::apply_padding(bytes);
    void* result = nullptr;
    if constexpr (detail::has_distribution_alloc_block<Creation, Distribution>::value) {
      result = Distribution::alloc_block(creation_, padded);
    } else {
      result = creation_.create_block(padded);
    }
    if (bytes == 0) { return nullptr; }
    if (result == nullptr) {
      result = OOM::handle_oom(result, padded);
      if (result == nullptr) {
        detail::device_atomic<unsigned long long>(stats_->failed_allocations)
          .fetch_add(1, detail::memory_order_relaxed);
      }
    }
    return result;
  }

  /// Device. Returns memory from alloc() to the heap: Distribution::deallocate(creation, p), which
  /// is the creation policy's destroy(p) unless the distribution policy shares chunks (XMallocSIMD).
  /// Thread safe like alloc(). Misuse is detected, ignored and counted where the policy's traits
  /// (Creation::traits) say so, undefined behaviour where they do not:
  ///   * nullptr: no-op.
  ///   * a pointer this allocator does not own: stats().invalid_frees (traits.checks_ownership).
  ///   * a pointer inside the heap that alloc() did not return (inside an allocation, in the heap's
  ///     bookkeeping): stats().invalid_frees (traits.detects_invalid_pointers).
  ///   * a second dealloc() of one pointer: stats().double_frees (traits.detects_double_free) --
  ///     unless the memory was handed out again in between and the new allocation starts at the
  ///     same address: that one is then freed (no allocator can tell the two apart).
  /// Allocator::check_errors() reports the counts on the host.
  DEVALLOC_DEVICE void dealloc(void* p) const
  {
    if (p == nullptr) { return; }
    // A creation policy that classifies pointers itself (traits.detects_invalid_pointers) reports a
    // foreign one as invalid_pointer below; the others are asked here, once.
    if constexpr (Creation::traits.checks_ownership && !Creation::traits.detects_invalid_pointers) {
      if (!creation_.owns(p)) {
        detail::device_atomic<unsigned long long>(stats_->invalid_frees).fetch_add(1, detail::memory_order_relaxed);
        return;
      }
    }
    const free_result result = Distribution::deallocate(creation_, p);
    if (result == free_result::invalid_pointer) {
      detail::device_atomic<unsigned long long>(stats_->invalid_frees).fetch_add(1, detail::memory_order_relaxed);
    } else if (result == free_result::double_free) {
      detail::device_atomic<unsigned long long>(stats_->double_frees).fetch_add(1, detail::memory_order_relaxed);
    }
  }

  /// Device. Number of chunks of `slot_bytes` (after padding) that can still be allocated. Only for
  /// creation policies with traits.provides_available_slots. Not synchronized with concurrent
  /// alloc/dealloc: exact only while the heap does not change.
  DEVALLOC_DEVICE std::size_t getAvailableSlots(std::size_t slot_bytes) const
  {
    static_assert(providesAvailableSlots,
                  "getAvailableSlots: this creation policy does not provide it (check "
                  "Allocator::providesAvailableSlots before calling)");
    if (slot_bytes == 0) { return 0; }
    return creation_.available_slots(Alignment::apply_padding(slot_bytes));
  }

  /// Access to the creation policy's device state, for policy-specific calls.
  DEVALLOC_HOST_DEVICE const Creation& creation() const noexcept { return creation_; }

 private:
  Creation creation_{};
  allocator_stats* stats_ = nullptr;
};

/// The host class. See the file comment; every member function runs on the host.
template <class Creation, class Distribution, class OOM, class ReservePool, class Alignment>
class Allocator {
  static_assert(detail::policy_constraints<Creation, Distribution, OOM, ReservePool, Alignment>::value);

 public:
  using creation_policy = Creation;
  using distribution_policy = Distribution;
  using oom_policy = OOM;
  using reserve_pool_policy = ReservePool;
  using alignment_policy = Alignment;
  using handle_type = AllocatorHandle<Creation, Distribution, OOM, ReservePool, Alignment>;

  static constexpr std::size_t alignment = handle_type::alignment;
  static constexpr bool providesAvailableSlots = handle_type::providesAvailableSlots;
  /// The creation policy's traits, as the distribution policy may adjust them (adjust_traits).
  static constexpr creation_traits traits = detail::allocator_traits_of<Creation, Distribution>::value;
  /// The distribution policy hands the creation policy combined requests (e.g. XMallocSIMD on
  /// CUDA): one alloc() then does not take exactly one getAvailableSlots(size) slot.
  /// Likewise a creation policy that serves a warp's requests from one chunk of its own
  /// (traits.combines_requests, e.g. FDGMalloc's superblocks, or a static combines_requests).
  static constexpr bool combines_requests = Distribution::combines_requests ||
                                            detail::creation_combines_requests<Creation>::value ||
                                            Creation::traits.combines_requests;

  static_assert(std::is_trivially_copyable_v<handle_type>,
                "the creation policy must be trivially copyable: it is passed to kernels by value");

  /// Builds a heap of `heap_bytes` bytes (thesis: initHeap) on the current device, in stream order
  /// on `stream` (which also becomes the default stream of the other host operations; the heap is
  /// ready for kernels on `stream` when this returns, and for other streams once they wait for it).
  /// The pool comes from `reserve_pool` (default-constructed unless the policy needs arguments,
  /// e.g. UserPool{pointer, bytes}). Throws devalloc::error if heap_bytes is 0, exceeds the
  /// device's free memory, no device is present (CUDA backend), or the pool is too small for the
  /// creation policy's structures.
  explicit Allocator(std::size_t heap_bytes, ReservePool reserve_pool = {}, stream_ref stream = {})
      : reserve_pool_(std::move(reserve_pool)), stream_(stream)
  {
    if (heap_bytes == 0) { detail::throw_error("Allocator: the heap size must be greater than 0 bytes"); }
    detail::backend::require_device();
    device_ = detail::backend::current_device();
    if constexpr (ReservePool::takes_memory) {
      const std::size_t free_bytes = detail::backend::free_memory();
      if (heap_bytes > free_bytes) {
        detail::throw_error("Allocator: a heap of " + std::to_string(heap_bytes) + " bytes is larger than the " +
                            std::to_string(free_bytes) + " bytes of free " +
                            (DEVALLOC_BACKEND_CUDA ? "device" : "host") + " memory");
      }
    }
    stats_ = static_cast<allocator_stats*>(detail::backend::allocate(sizeof(allocator_stats), stream_));
    try {
      detail::backend::fill(stats_, 0, sizeof(allocator_stats), stream_);
      pool_ = reserve_pool_.reserve(heap_bytes, stream_);
      try {
        heap_bytes_ = heap_bytes;
        creation_ = Creation::init_heap(Alignment::align_pool(pool_), stream_);
      } catch (...) {
        reserve_pool_.release(pool_, stream_);
        throw;
      }
    } catch (...) {
      detail::backend::deallocate(stats_, stream_);
      stats_ = nullptr;
      throw;
    }
  }

  /// Builds a heap as above with a default-constructed ReservePool, on `stream`.
  Allocator(std::size_t heap_bytes, stream_ref stream) : Allocator(heap_bytes, ReservePool{}, stream) {}

  /// Returns the pool in stream order on stream() and waits for that stream (thesis: finalizeHeap;
  /// the structures go with the pool, so nothing is reset first — UserPool memory is left as it
  /// is). No kernel on another stream may still use the heap.
  ~Allocator() { destroy(); }

  Allocator(const Allocator&) = delete;
  Allocator& operator=(const Allocator&) = delete;

  Allocator(Allocator&& other) noexcept
      : reserve_pool_(std::move(other.reserve_pool_)),
        pool_(std::exchange(other.pool_, pool_span{})),
        heap_bytes_(std::exchange(other.heap_bytes_, 0)),
        creation_(std::exchange(other.creation_, Creation{})),
        stats_(std::exchange(other.stats_, nullptr)),
        stream_(other.stream_),
        device_(other.device_)
  {}

  Allocator& operator=(Allocator&& other) noexcept
  {
    if (this != &other) {
      destroy();
      reserve_pool_ = std::move(other.reserve_pool_);
      pool_ = std::exchange(other.pool_, pool_span{});
      heap_bytes_ = std::exchange(other.heap_bytes_, 0);
      creation_ = std::exchange(other.creation_, Creation{});
      stats_ = std::exchange(other.stats_, nullptr);
      stream_ = other.stream_;
      device_ = other.device_;
    }
    return *this;
  }

  /// The device handle kernels use. Cheap; call it once and pass the value to kernels.
  [[nodiscard]] handle_type handle() const
  {
    require_live();
    return handle_type(creation_, stats_);
  }

  /// Host. Number of chunks of `slot_bytes` that can still be allocated (thesis getAvailableSlots,
  /// host variant), read after the work queued on `stream` (default: stream()); waits for that
  /// stream only. Only if providesAvailableSlots; no kernel on another stream may change the heap
  /// meanwhile.
  [[nodiscard]] std::size_t getAvailableSlots(std::size_t slot_bytes) const
  {
    return getAvailableSlots(slot_bytes, stream_);
  }
  [[nodiscard]] std::size_t getAvailableSlots(std::size_t slot_bytes, stream_ref stream) const
  {
    static_assert(providesAvailableSlots,
                  "getAvailableSlots: this creation policy does not provide it (check "
                  "Allocator::providesAvailableSlots before calling)");
    require_live();
    if (slot_bytes == 0) { return 0; }
    const detail::backend::device_guard on_device(device_);
    return creation_.available_slots_host(Alignment::apply_padding(slot_bytes), stream);
  }

  /// Host. Frees every allocation at once, in stream order on `stream` (default: stream()): the
  /// heap returns to its state after construction and every pointer handed out becomes invalid.
  /// No kernel on another stream may be running on the heap. Counters are kept. Returns without
  /// waiting (the reset is queued on the stream).
  void reset() { reset(stream_); }
  void reset(stream_ref stream)
  {
    static_assert(traits.resettable,
                  "Allocator::reset: this creation policy cannot free everything at once (traits.resettable is "
                  "false, e.g. DeviceMalloc, whose heap belongs to CUDA); dealloc() each pointer instead");
    require_live();
    const detail::backend::device_guard on_device(device_);
    creation_.finalize_heap(stream);
  }

  /// Host. Reads the device counters after the work queued on `stream` (default: stream()); waits
  /// for that stream only, and reports its asynchronous errors as devalloc::cuda_error.
  [[nodiscard]] allocator_stats stats() const { return stats(stream_); }
  [[nodiscard]] allocator_stats stats(stream_ref stream) const
  {
    require_live();
    const detail::backend::device_guard on_device(device_);
    allocator_stats result;
    detail::backend::copy_to_host(&result, stats_, sizeof(result), stream);
    return result;
  }

  /// Host. Zeroes the counters, in stream order on `stream` (default: stream()).
  void reset_stats() { reset_stats(stream_); }
  void reset_stats(stream_ref stream)
  {
    require_live();
    const detail::backend::device_guard on_device(device_);
    detail::backend::fill(stats_, 0, sizeof(allocator_stats), stream);
  }

  /// Host. Throws devalloc::error if any dealloc() call was a misuse the device could only count
  /// (stats().invalid_frees: a pointer this allocator did not hand out; stats().double_frees: a
  /// pointer freed before); the message names both counts. Resets those two counters (a misuse is
  /// reported once); failed_allocations is kept. A creation policy with an API of its own reports
  /// its misuse here too (host `std::string misuse_report(stream_ref)`, empty if none, each misuse
  /// once; e.g. FDGMalloc's warp headers that were never ended). Runs on stream().
  void check_errors() { check_errors(std::string_view{}); }

  /// Host. As check_errors(), naming `kernel` (what the caller launched since the last check, e.g.
  /// the kernel's name) at the start of the message: "after kernel `build_tree`: ...". Device
  /// code cannot read the name of the kernel it runs in, so the caller supplies it.
  void check_errors(std::string_view kernel)
  {
    const allocator_stats s = stats();
    std::string message;
    if (s.invalid_frees != 0 || s.double_frees != 0) {
      allocator_stats cleared = s;
      cleared.invalid_frees = 0;
      cleared.double_frees = 0;
      const detail::backend::device_guard on_device(device_);
      detail::backend::copy_to_device(stats_, &cleared, sizeof(cleared), stream_);
      message = "dealloc() misuse (" + Creation::classname() + ", " + Distribution::classname() +
                "): " + std::to_string(s.invalid_frees) +
                " invalid free(s) (a pointer this allocator did not hand out, or one inside an allocation), " +
                std::to_string(s.double_frees) + " double free(s) (a pointer freed before)";
    }
    if constexpr (detail::has_misuse_report<Creation>::value) {
      const detail::backend::device_guard on_device(device_);
      const std::string policy = creation_.misuse_report(stream_);
      if (!policy.empty()) { message += (message.empty() ? "" : "; ") + policy; }
    }
    if (message.empty()) { return; }
    if (!kernel.empty()) { message = "after kernel `" + std::string(kernel) + "`: " + message; }
    detail::throw_error(message);
  }

  /// Bytes requested at construction.
  [[nodiscard]] std::size_t heap_bytes() const noexcept { return heap_bytes_; }

  /// The stream host operations use by default (the one given at construction).
  [[nodiscard]] stream_ref stream() const noexcept { return stream_; }

  /// Host. Makes `stream` the default stream of later host operations and of destruction (e.g.
  /// before the stream given at construction is destroyed). Does not wait for anything.
  void set_stream(stream_ref stream) noexcept { stream_ = stream; }

  /// The device the heap lives on (CUDA device id; 0 on the CPU backend).
  [[nodiscard]] int device() const noexcept { return device_; }

  /// Host. Names every policy with its parameters, separated by `separator` (thesis: info()).
  [[nodiscard]] static std::string info(const std::string& separator = ", ")
  {
    return "Creation=" + Creation::classname() + separator + "Distribution=" + Distribution::classname() + separator +
           "OOM=" + OOM::classname() + separator + "ReservePool=" + ReservePool::classname() + separator +
           "Alignment=" + Alignment::classname();
  }

 private:
  void require_live() const
  {
    if (stats_ == nullptr) { detail::throw_error("Allocator: used after it was moved from"); }
  }

  void destroy() noexcept
  {
    if (stats_ == nullptr) { return; }
    try {
      const detail::backend::device_guard on_device(device_);
      // Stream-ordered: the pool goes back after the kernels queued on the stream; waiting for the
      // stream then lets the caller reuse UserPool memory at once.
      creation_.release(stream_);
      reserve_pool_.release(pool_, stream_);
      detail::backend::deallocate(stats_, stream_);
      detail::backend::synchronize(stream_);
    } catch (...) {
      // A sticky CUDA error (e.g. after a Trap) or a device that cannot be made current: the
      // memory is released with the context.
    }
    stats_ = nullptr;
  }

  ReservePool reserve_pool_{};
  pool_span pool_{};
  std::size_t heap_bytes_ = 0;
  Creation creation_{};
  allocator_stats* stats_ = nullptr;
  stream_ref stream_{};
  int device_ = 0;
};

DEVALLOC_NAMESPACE_END
