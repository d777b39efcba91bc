// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/src/mpi_collectives.hpp — a small in-kernel library of MPI collectives over ranks =
// threads, as GPU MPI runs MPI programs (one rank per thread; Blach et al. §4.2): Reduce (sum, to
// root 0), Broadcast (from root 0) and All-to-All, on buffers every rank allocates from the
// allocator under test.
//
// Communication is through a mailbox in global memory (Mailbox): a rank publishes its buffer's
// address and raises its flag to the call's epoch (release); its peers wait for the flag
// (acquire) and read the buffer directly; a rank frees its buffer only after every reader has
// said it is done (a counter). Every rank must therefore be resident at once (the grid must fit
// the device, as in GPU MPI); every wait is bounded by the launch's deadline and, when it expires,
// the call gives up and reports failure (verification then counts it) instead of hanging.
// Flags hold epochs (1, 2, ... per launch; the host zeroes the mailbox before each launch), so
// consecutive calls in one launch (a warm-up and the measured call) need no reset in between.
#pragma once

#include <cstddef>
#include <cstdint>

#include <devalloc/detail/atomic.hpp>
#include <devalloc/detail/warp.hpp>

#include "common.hpp"

namespace devalloc_bench {
namespace mpi {

struct Mailbox {
  double** buffer;  // per rank: its published buffer
  u32* flag;        // per rank: epoch of its last publication
  u64* done;        // per rank: readers finished with its buffer (cumulative over epochs)
};

/// Device. Waits until `word` >= `target` (acquire) or the deadline passes (false).
DEVALLOC_DEVICE inline bool wait_at_least(u32& word, u32 target, const Deadline& dl)
{
  devalloc::detail::device_atomic<u32> w(word);
  while (w.load(devalloc::detail::memory_order_acquire) < target) {
    if (dl.stop()) { return false; }
    devalloc::detail::pause_briefly();
  }
  return true;
}
DEVALLOC_DEVICE inline bool wait_at_least(u64& word, u64 target, const Deadline& dl)
{
  devalloc::detail::device_atomic<u64> w(word);
  while (w.load(devalloc::detail::memory_order_acquire) < target) {
    if (dl.stop()) { return false; }
    devalloc::detail::pause_briefly();
  }
  return true;
}

DEVALLOC_DEVICE inline void publish(const Mailbox& box, u32 rank, double* buf, u32 epoch)
{
  box.buffer[rank] = buf;
  devalloc::detail::device_atomic<u32>(box.flag[rank]).store(epoch, devalloc::detail::memory_order_release);
}

DEVALLOC_DEVICE inline void mark_done(const Mailbox& box, u32 owner)
{
  devalloc::detail::device_atomic<u64>(box.done[owner]).fetch_add(1, devalloc::detail::memory_order_acq_rel);
}

/// MPI_Reduce(send, recv, n, MPI_DOUBLE, MPI_SUM, root 0): recv (root only) = sum over ranks of
/// send. `readers_before`: done-count of this rank's buffer before the call (cumulative).
DEVALLOC_DEVICE inline bool reduce(const Mailbox& box, u32 rank, u32 ranks, double* send, double* recv, u32 n,
                                   u32 epoch, const Deadline& dl)
{
  publish(box, rank, send, epoch);
  bool ok = true;
  if (rank == 0) {
    for (u32 k = 0; k < n; ++k) { recv[k] = 0; }
    for (u32 r = 0; r < ranks && ok; ++r) {
      ok = wait_at_least(box.flag[r], epoch, dl);
      if (!ok) { break; }
      const double* src = box.buffer[r];
      for (u32 k = 0; k < n; ++k) { recv[k] += src[k]; }
      mark_done(box, r);
    }
  }
  // The root has read this rank's buffer: only then may it be changed or freed.
  return wait_at_least(box.done[rank], epoch, dl) && ok;
}

/// MPI_Bcast(buf, n, MPI_DOUBLE, root 0): every rank's buf = the root's.
DEVALLOC_DEVICE inline bool broadcast(const Mailbox& box, u32 rank, u32 ranks, double* buf, u32 n, u32 epoch,
                                      const Deadline& dl)
{
  if (rank == 0) {
    publish(box, 0, buf, epoch);
    // Every other rank has copied the root's buffer (done counts ranks - 1 per epoch).
    return wait_at_least(box.done[0], static_cast<u64>(epoch) * (ranks - 1u), dl);
  }
  if (!wait_at_least(box.flag[0], epoch, dl)) { return false; }
  const double* src = box.buffer[0];
  for (u32 k = 0; k < n; ++k) { buf[k] = src[k]; }
  mark_done(box, 0);
  return true;
}

/// MPI_Alltoall(send, n, MPI_DOUBLE, recv, n, MPI_DOUBLE): recv[src * n + k] = src's send[rank * n + k].
/// Ranks read their peers in rotated order (rank + 1, rank + 2, ...) to spread the load.
DEVALLOC_DEVICE inline bool all_to_all(const Mailbox& box, u32 rank, u32 ranks, double* send, double* recv, u32 n,
                                       u32 epoch, const Deadline& dl)
{
  publish(box, rank, send, epoch);
  bool ok = true;
  for (u32 step = 0; step < ranks; ++step) {
    const u32 src = (rank + step) % ranks;
    if (!wait_at_least(box.flag[src], epoch, dl)) {
      ok = false;
      break;
    }
    const double* from = box.buffer[src] + static_cast<std::size_t>(rank) * n;
    double* to = recv + static_cast<std::size_t>(src) * n;
    for (u32 k = 0; k < n; ++k) { to[k] = from[k]; }
    mark_done(box, src);
  }
  return wait_at_least(box.done[rank], static_cast<u64>(epoch) * ranks, dl) && ok;
}

}  // namespace mpi
}  // namespace devalloc_bench
