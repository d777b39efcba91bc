// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/detail/tagged_stack.hpp
//
// A lock-free LIFO list (Treiber stack) of nodes named by 32-bit indices, with a 64-bit head word
// `tag << 32 | top`. Every successful change of the head (push, pop, take_all) increments the tag,
// so a compare-and-swap that read the head before someone else popped and pushed the same node
// again fails (the ABA problem of a plain Treiber stack). The tag wraps after 2^32 changes of one
// head: a worker stopped between reading a head and its CAS for that many operations on the same
// list could still be fooled (as with any 32-bit tag; 64-bit words keep the CAS one instruction).
//
// Nodes keep their link (the index of the node below them) in a 32-bit word the caller names with
// a `link(index)` callable returning a reference to it; `empty` (all ones) ends the list.
//
// Reading a node's link before the CAS that pops it is a read of memory the popper does not own
// yet: by then the node may have been popped by someone else and its memory reused. The value is
// then garbage, but only used if the CAS succeeds, which (tag) means nothing changed the list since
// the head was read: the node was on top all along and its link is the one written before its
// push. The read is a relaxed atomic load; nothing is ever written to a node the caller does not
// own. Used by detail/list_heap.hpp (the free lists of creation::ListFirstFit and ListPerSM).
//
// Memory order (device scope): a push is a release CAS (the node's contents, written before,
// become visible to its popper), a pop an acquire-release CAS (acquire: sees what the pusher
// wrote; release: whoever later reads the head after the pop also sees what the popper did
// before it, which detail/list_heap.hpp's in-flight counter relies on).
#pragma once

#include <cstdint>

#include "atomic.hpp"
#include "platform.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace detail {

struct tagged_stack {
  /// The index that ends a list (and the top of an empty one).
  static constexpr std::uint32_t empty = 0xFFFFFFFFu;
  /// A head word of an empty list (any tag).
  static constexpr std::uint64_t empty_head = ~std::uint64_t{0};

  /// The top node of a head word (`empty` for an empty list).
  DEVALLOC_HOST_DEVICE static constexpr std::uint32_t top(std::uint64_t head) noexcept
  {
    return static_cast<std::uint32_t>(head);
  }

  /// The head word that follows `head` when `node` becomes the top.
  DEVALLOC_HOST_DEVICE static constexpr std::uint64_t successor(std::uint64_t head, std::uint32_t node) noexcept
  {
    return (((head >> 32) + 1) << 32) | node;
  }

  /// Device. The current head (acquire: the top node's contents as its pusher wrote them).
  DEVALLOC_DEVICE static std::uint64_t load(std::uint64_t& head) noexcept
  {
    return device_atomic<std::uint64_t>(head).load(memory_order_acquire);
  }

  /// Device. Pushes `node`, which the caller owns; it belongs to the list afterwards. Lock-free.
  template <class Link>
  DEVALLOC_DEVICE static void push(std::uint64_t& head, std::uint32_t node, Link&& link) noexcept
  {
    device_atomic<std::uint64_t> h(head);
    std::uint64_t old = h.load(memory_order_relaxed);
    do {
      device_atomic<std::uint32_t>(link(node)).store(top(old), memory_order_relaxed);
    } while (!h.compare_exchange_weak(old, successor(old, node), memory_order_release, memory_order_relaxed));
  }

  /// Device. Pops the top node and returns it (the caller owns it), or `empty`. Lock-free.
  template <class Link>
  DEVALLOC_DEVICE static std::uint32_t pop(std::uint64_t& head, Link&& link) noexcept
  {
    device_atomic<std::uint64_t> h(head);
    std::uint64_t old = h.load(memory_order_acquire);
    while (top(old) != empty) {
      const std::uint32_t below = device_atomic<std::uint32_t>(link(top(old))).load(memory_order_relaxed);
      if (h.compare_exchange_weak(old, successor(old, below), memory_order_acq_rel, memory_order_acquire)) {
        return top(old);
      }
    }
    return empty;
  }

  /// Device. Pops `node` if it is the top of the list and `still(node)` holds once the head has
  /// been read with `node` on top (the caller checks there what it read of the node before: while
  /// `node` stays on top its contents do not change). Returns whether the caller now owns `node`.
  /// Never waits: a lost race returns false.
  template <class Link, class Check>
  DEVALLOC_DEVICE static bool pop_if_top(std::uint64_t& head, std::uint32_t node, Link&& link, Check&& still) noexcept
  {
    device_atomic<std::uint64_t> h(head);
    std::uint64_t old = h.load(memory_order_acquire);
    if (top(old) != node || !still(node)) { return false; }
    const std::uint32_t below = device_atomic<std::uint32_t>(link(node)).load(memory_order_relaxed);
    return h.compare_exchange_strong(old, successor(old, below), memory_order_acq_rel, memory_order_relaxed);
  }

  /// Device. Takes the whole list: returns its top (the caller owns every node, linked as they
  /// were) or `empty`. Lock-free.
  DEVALLOC_DEVICE static std::uint32_t take_all(std::uint64_t& head) noexcept
  {
    device_atomic<std::uint64_t> h(head);
    std::uint64_t old = h.load(memory_order_acquire);
    while (top(old) != empty) {
      if (h.compare_exchange_weak(old, successor(old, empty), memory_order_acq_rel, memory_order_acquire)) {
        return top(old);
      }
    }
    return empty;
  }
};

}  // namespace detail
DEVALLOC_NAMESPACE_END
