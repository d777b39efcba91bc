// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/detail/backend.hpp
//
// Host-side memory operations of the two backends: where pools and heap metadata live, and how
// the host reads and writes them. CUDA: device memory through the runtime API, every call checked,
// stream-ordered on the stream_ref the caller gives (default: CUDA's default stream): memory comes
// from cudaMallocAsync / goes back with cudaFreeAsync, fills are cudaMemsetAsync, and a copy to or
// from host memory waits for that stream only. Every call acts on the current device: the
// Allocator makes its own device current (device_guard) around each host operation.
// CPU: host memory, 256-byte aligned, plain copies. Policies call only these, never the runtime.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>

#include "../error.hpp"
#include "../stream.hpp"
#include "platform.hpp"
#include "warp.hpp"

#if DEVALLOC_BACKEND_CUDA
#include <cuda_runtime_api.h>
#else
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#endif

DEVALLOC_NAMESPACE_BEGIN
namespace detail::backend {

/// Alignment of every block handed out by allocate().
inline constexpr std::size_t allocation_alignment = 256;

/// Throws devalloc::error unless a device this backend can use is present.
inline void require_device()
{
#if DEVALLOC_BACKEND_CUDA
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    throw_error(std::string("no CUDA device is available (") +
                (status == cudaSuccess ? "cudaGetDeviceCount reported 0 devices" : cudaGetErrorString(status)) +
                "); build the CPU backend (compile without nvcc) to run on this machine");
  }
#endif
}

/// Id of the current device (CPU: 0).
inline int current_device()
{
#if DEVALLOC_BACKEND_CUDA
  int device = 0;
  DEVALLOC_CUDA_TRY(cudaGetDevice(&device));
  return device;
#else
  return 0;
#endif
}

/// Makes `device` current for its lifetime and restores the previous device afterwards (CUDA;
/// a no-op on the CPU). Host operations of an Allocator run under one, so a heap keeps working
/// when another device is current.
class device_guard {
 public:
  explicit device_guard(int device)
  {
#if DEVALLOC_BACKEND_CUDA
    previous_ = current_device();
    if (previous_ != device) { DEVALLOC_CUDA_TRY(cudaSetDevice(device)); }
#else
    previous_ = device;
#endif
    device_ = device;
  }
  ~device_guard()
  {
#if DEVALLOC_BACKEND_CUDA
    if (previous_ != device_) { (void)cudaSetDevice(previous_); }
#endif
  }
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;

 private:
  int previous_ = 0;
  int device_ = 0;
};

/// Bytes of device memory currently free (CPU: available physical memory). CUDA: the device's free
/// memory plus what the current device's default memory pool holds unused (freed by cudaFreeAsync,
/// not yet given back), which allocate() can reuse.
inline std::size_t free_memory()
{
#if DEVALLOC_BACKEND_CUDA
  std::size_t free_bytes = 0, total_bytes = 0;
  DEVALLOC_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
  cudaMemPool_t pool{};
  if (cudaDeviceGetDefaultMemPool(&pool, current_device()) == cudaSuccess) {
    unsigned long long reserved = 0, used = 0;  // the attributes are cuuint64_t
    if (cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) == cudaSuccess &&
        cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) == cudaSuccess && reserved > used) {
      free_bytes += static_cast<std::size_t>(reserved - used);
    }
  }
  (void)cudaGetLastError();
  return free_bytes;
#else
  // MemAvailable counts reclaimable page cache too (unlike _SC_AVPHYS_PAGES).
  if (std::FILE* meminfo = std::fopen("/proc/meminfo", "r")) {
    char line[256];
    unsigned long long kib = 0;
    bool found = false;
    while (!found && std::fgets(line, sizeof line, meminfo) != nullptr) {
      found = std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1;
    }
    std::fclose(meminfo);
    if (found) { return static_cast<std::size_t>(kib) * 1024u; }
  }
  const long pages = sysconf(_SC_AVPHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  return pages > 0 && page_size > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page_size)
                                    : static_cast<std::size_t>(-1);
#endif
}

/// Allocates `bytes` of backend memory (device memory for CUDA), usable in stream order on
/// `stream` (cudaMallocAsync; work on another stream must first wait for `stream`). Throws
/// devalloc::error on failure.
inline void* allocate(std::size_t bytes, stream_ref stream = {})
{
  require_device();
  if (bytes == 0) { throw_error("cannot allocate 0 bytes of backend memory"); }
#if DEVALLOC_BACKEND_CUDA
  void* p = nullptr;
  const cudaError_t status = cudaMallocAsync(&p, bytes, stream.get());
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    throw_error("cudaMallocAsync of " + std::to_string(bytes) + " bytes failed (" + cudaGetErrorString(status) +
                "); free device memory is " + std::to_string(free_memory()) + " bytes");
  }
  return p;
#else
  (void)stream;
  const std::size_t rounded = (bytes + allocation_alignment - 1) / allocation_alignment * allocation_alignment;
  void* p = std::aligned_alloc(allocation_alignment, rounded);
  if (p == nullptr) { throw_error("host allocation of " + std::to_string(bytes) + " bytes failed"); }
  return p;
#endif
}

/// Releases memory from allocate() in stream order on `stream` (cudaFreeAsync: after the work
/// already queued there). Never throws (used in destructors); nullptr is a no-op.
inline void deallocate(void* p, stream_ref stream = {}) noexcept
{
  if (p == nullptr) { return; }
#if DEVALLOC_BACKEND_CUDA
  if (cudaFreeAsync(p, stream.get()) != cudaSuccess) { (void)cudaGetLastError(); }
#else
  (void)stream;
  std::free(p);
#endif
}

/// Sets `bytes` bytes at `dst` to `value`, in stream order on `stream` (returns without waiting).
inline void fill(void* dst, int value, std::size_t bytes, stream_ref stream = {})
{
#if DEVALLOC_BACKEND_CUDA
  DEVALLOC_CUDA_TRY(cudaMemsetAsync(dst, value, bytes, stream.get()));
#else
  (void)stream;
  std::memset(dst, value, bytes);
#endif
}

/// Copies backend memory to host memory after the work queued on `stream`; waits for `stream`
/// only, and reports its asynchronous errors.
inline void copy_to_host(void* dst, const void* src, std::size_t bytes, stream_ref stream = {})
{
#if DEVALLOC_BACKEND_CUDA
  DEVALLOC_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream.get()));
  DEVALLOC_CUDA_TRY(cudaStreamSynchronize(stream.get()));
#else
  (void)stream;
  std::memcpy(dst, src, bytes);
#endif
}

/// Copies host memory to backend memory in stream order on `stream`; waits for `stream` only (the
/// source may be a temporary of the caller).
inline void copy_to_device(void* dst, const void* src, std::size_t bytes, stream_ref stream = {})
{
#if DEVALLOC_BACKEND_CUDA
  DEVALLOC_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream.get()));
  DEVALLOC_CUDA_TRY(cudaStreamSynchronize(stream.get()));
#else
  (void)stream;
  std::memcpy(dst, src, bytes);
#endif
}

/// Waits for the work queued on `stream` (not the whole device) and reports asynchronous errors.
/// CPU: nothing is asynchronous.
inline void synchronize(stream_ref stream = {})
{
#if DEVALLOC_BACKEND_CUDA
  DEVALLOC_CUDA_TRY(cudaStreamSynchronize(stream.get()));
#else
  (void)stream;
#endif
}

/// Human-readable name of the device workers run on.
inline std::string device_name()
{
#if DEVALLOC_BACKEND_CUDA
  require_device();
  int dev = 0;
  DEVALLOC_CUDA_TRY(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  DEVALLOC_CUDA_TRY(cudaGetDeviceProperties(&prop, dev));
  return prop.name;
#else
  return "host CPU";
#endif
}

/// Number of multiprocessors of the current device: the range of detail::sm_id() (CUDA:
/// cudaDevAttrMultiProcessorCount; CPU: detail::cpu_sm_count, the stand-ins the emulator hands out).
inline unsigned multiprocessor_count()
{
#if DEVALLOC_BACKEND_CUDA
  int dev = 0;
  int count = 0;
  DEVALLOC_CUDA_TRY(cudaGetDevice(&dev));
  DEVALLOC_CUDA_TRY(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, dev));
  return count > 0 ? static_cast<unsigned>(count) : 1u;
#else
  return cpu_sm_count;
#endif
}

}  // namespace detail::backend
DEVALLOC_NAMESPACE_END
