// devalloc/detail/backend.hpp
//
// Host-side memory operations of the two backends: where pools and heap metadata live, and how
// the host reads and writes them. CUDA: device memory through the runtime API, every call checked.
// CPU: host memory, 256-byte aligned, plain copies. Policies call only these, never the runtime.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>

#include "../error.hpp"
#include "platform.hpp"

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

/// Bytes of device memory currently free (CPU: available physical memory).
inline std::size_t free_memory()
{
#if DEVALLOC_BACKEND_CUDA
  std::size_t free_bytes = 0, total_bytes = 0;
  DEVALLOC_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
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

/// Allocates `bytes` of backend memory (device memory for CUDA). Throws devalloc::error on failure.
inline void* allocate(std::size_t bytes)
{
  require_device();
  if (bytes == 0) { throw_error("cannot allocate 0 bytes of backend memory"); }
#if DEVALLOC_BACKEND_CUDA
  void* p = nullptr;
  const cudaError_t status = cudaMalloc(&p, bytes);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    throw_error("cudaMalloc of " + std::to_string(bytes) + " bytes failed (" + cudaGetErrorString(status) +
                "); free device memory is " + std::to_string(free_memory()) + " bytes");
  }
  return p;
#else
  const std::size_t rounded = (bytes + allocation_alignment - 1) / allocation_alignment * allocation_alignment;
  void* p = std::aligned_alloc(allocation_alignment, rounded);
  if (p == nullptr) { throw_error("host allocation of " + std::to_string(bytes) + " bytes failed"); }
  return p;
#endif
}

/// Releases memory from allocate(). Never throws (used in destructors); nullptr is a no-op.
inline void deallocate(void* p) noexcept
{
  if (p == nullptr) { return; }
#if DEVALLOC_BACKEND_CUDA
  (void)cudaFree(p);
#else
  std::free(p);
#endif
}

inline void fill(void* dst, int value, std::size_t bytes)
{
#if DEVALLOC_BACKEND_CUDA
  DEVALLOC_CUDA_TRY(cudaMemset(dst, value, bytes));
#else
  std::memset(dst, value, bytes);
#endif
}

inline void copy_to_host(void* dst, const void* src, std::size_t bytes)
{
#if DEVALLOC_BACKEND_CUDA
  DEVALLOC_CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
#else
  std::memcpy(dst, src, bytes);
#endif
}

inline void copy_to_device(void* dst, const void* src, std::size_t bytes)
{
#if DEVALLOC_BACKEND_CUDA
  DEVALLOC_CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
#else
  std::memcpy(dst, src, bytes);
#endif
}

/// Waits for all device work (CPU: nothing is asynchronous) and reports asynchronous errors.
inline void synchronize()
{
#if DEVALLOC_BACKEND_CUDA
  DEVALLOC_CUDA_TRY(cudaDeviceSynchronize());
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

}  // namespace detail::backend
DEVALLOC_NAMESPACE_END
