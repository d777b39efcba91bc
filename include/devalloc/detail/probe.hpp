// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/detail/probe.hpp
//
// Optional event hooks for profiling an allocator's inner steps (how many pages an allocation
// tried, how many bit claims collided, ...). By default DEVALLOC_PROBE(event) expands to nothing,
// so the hooks cost nothing. A profiling build defines it before including devalloc, e.g.
//
//   __device__ void my_probe(unsigned event);            // counts per thread, say
//   #define DEVALLOC_PROBE(e) my_probe(::devalloc::detail::probe::e)
//   #include <devalloc/devalloc.hpp>
//
// bench/diag/scatter_probe.cu is such a build. Events are named in `probe::event`; the hook
// receives the enumerator (convertible to unsigned).
#pragma once

#include "platform.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace detail::probe {

enum event : unsigned {
  alloc_chunk = 0,  ///< Scatter: a request up to one page entered the search
  page_try,         ///< Scatter: one page looked at (per group leader: directory round or walk)
  pass1,            ///< Scatter: pass 0 found nothing, the exhaustive pass 1 started
  open_won,         ///< Scatter: this worker (or group leader) opened a page it took from the free-page map
  open_lost,        ///< Scatter: a page taken for a directory slot went back (another warp installed one)
  open_wait,        ///< Scatter: one re-read of a directory page that is installed but not opened
  reserve,          ///< Scatter: one fetch_add/CAS reservation on a used page
  reserve_short,    ///< Scatter: a reservation the page had no room for was given back
  claim_retry,      ///< bitfield_claim: an atomicOr found its bit taken and tried another
  segment_skip,     ///< Scatter: a hierarchical segment was full (skipped or claimed in vain)
  free_chunk,       ///< Scatter: one chunk freed
  page_reset,       ///< Scatter: a fully freed page forgot its chunk size
  region_skip,      ///< Scatter pass 0: a region over the fill threshold was skipped
  walk,             ///< Scatter: the directory path gave up, the walk (pass 0) started
  map_empty,        ///< Scatter: the words of the free-page map a directory round read had no free page
  round_again,      ///< Scatter: a directory round ended without serving the lane (another round follows)
  directory_scan,   ///< Scatter: the directory rounds failed; the class' open pages are scanned before the walk
  follow_slot,      ///< Scatter: a lane that lost its slot's install CAS tried the slot's new page, its own in hand
  whole_page,       ///< Scatter: a request of 1-8 chunks a page looked through the whole free-page map (alloc_counted)
  whole_span,       ///< Scatter: a request of a span class looked through the whole free-page map for a group
  open_full,        ///< Scatter: a page of one chunk opened full for its request (no bit claim)
  room_stripe,      ///< Scatter: a request of few chunks a page read the pages of one stripe the room counters named
  count             ///< number of events
};

/// Name of an event, for reports.
constexpr const char* name(unsigned e) noexcept
{
  constexpr const char* names[] = {"alloc_chunk", "page_try",       "pass1",         "open_won",    "open_lost",
                                   "open_wait",   "reserve",        "reserve_short", "claim_retry", "segment_skip",
                                   "free_chunk",  "page_reset",     "region_skip",   "walk",        "map_empty",
                                   "round_again", "directory_scan", "follow_slot",   "whole_page",  "whole_span",
                                   "open_full",   "room_stripe"};
  return e < count ? names[e] : "?";
}

}  // namespace detail::probe
DEVALLOC_NAMESPACE_END

#ifndef DEVALLOC_PROBE
#define DEVALLOC_PROBE(event) ((void)0)
#endif
