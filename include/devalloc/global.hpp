// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/global.hpp — opt-in drop-in use (mallocMC thesis §4.1 and appendix A).
//
// For code that cannot pass an allocator handle around: one global allocator per program and, on
// request, device malloc()/free() replaced by it. Include this header in ONE translation unit (with
// relocatable device code, the symbols are visible to all), then at global scope:
//
//   DEVALLOC_SET_ALLOCATOR_TYPE(devalloc::presets::bump)  // defines the global allocator's type
//   DEVALLOC_OVERWRITE_MALLOC()                           // optional: device malloc/free use it
//
// which provides, in namespace devalloc::global:
//   void initHeap(std::size_t bytes);        host: builds the global allocator (throws devalloc::error)
//   void finalizeHeap();                     host: destroys it; every pointer becomes invalid
//   void* malloc(std::size_t); void free(void*);   device: through the global allocator
//   bool providesAvailableSlots();           host and device
//   std::size_t getAvailableSlots(std::size_t);    host and device (if provided)
//   allocator_type& allocator();             host: the owning object (stats(), info(), ...)
//
// DEVALLOC_OVERWRITE_MALLOC() defines extern "C" __device__ malloc/free, which replaces CUDA's
// device heap for every malloc/free in device code of the program. Device new/delete are not
// covered: with CUDA 13.0, `new int[4]` still takes CUDA's own heap (tests/dropin prints
// what the toolkit at hand does); use malloc + placement new for objects. It cannot be
// used with creation::DeviceMalloc (a function cannot replace itself: static_assert). On the CPU
// backend it replaces nothing (the host's malloc stays); call devalloc::global::malloc there.
// Calling malloc before initHeap, or after finalizeHeap, is undefined behaviour.
#pragma once

#include <cstddef>
#include <cstring>
#include <optional>
#include <type_traits>

#include "devalloc.hpp"

DEVALLOC_NAMESPACE_BEGIN
namespace detail {
/// Raw, trivially constructible storage for the global handle (a __device__ variable may not
/// have a constructor that does anything).
template <class Handle>
struct global_handle_storage {
  alignas(Handle) unsigned char bytes[sizeof(Handle)];
};
}  // namespace detail
DEVALLOC_NAMESPACE_END

#if DEVALLOC_BACKEND_CUDA
#define DEVALLOC_DETAIL_GLOBAL_VARIABLE __device__
#define DEVALLOC_DETAIL_PUBLISH_HANDLE(handle) \
  DEVALLOC_CUDA_TRY(cudaMemcpyToSymbol(global_handle, &(handle), sizeof(handle)))
#else
#define DEVALLOC_DETAIL_GLOBAL_VARIABLE
#define DEVALLOC_DETAIL_PUBLISH_HANDLE(handle) std::memcpy(global_handle.bytes, &(handle), sizeof(handle))
#endif

/// Defines the global allocator of the program (use once, at global scope).
#define DEVALLOC_SET_ALLOCATOR_TYPE(...)                                                                          \
  DEVALLOC_NAMESPACE_BEGIN                                                                                        \
  namespace global {                                                                                              \
  using allocator_type = __VA_ARGS__;                                                                             \
  using handle_type = typename allocator_type::handle_type;                                                       \
  DEVALLOC_DETAIL_GLOBAL_VARIABLE ::devalloc::detail::global_handle_storage<handle_type> global_handle;           \
  inline std::optional<allocator_type>& owner()                                                                   \
  {                                                                                                               \
    static std::optional<allocator_type> instance;                                                                \
    return instance;                                                                                              \
  }                                                                                                               \
  inline allocator_type& allocator()                                                                              \
  {                                                                                                               \
    if (!owner()) { ::devalloc::detail::throw_error("global allocator used before initHeap()"); }                 \
    return *owner();                                                                                              \
  }                                                                                                               \
  inline void initHeap(std::size_t bytes)                                                                         \
  {                                                                                                               \
    allocator_type fresh(bytes); /* throws before anything changes */                                             \
    const handle_type handle = fresh.handle();                                                                    \
    DEVALLOC_DETAIL_PUBLISH_HANDLE(handle);                                                                       \
    owner() = std::move(fresh);                                                                                   \
  }                                                                                                               \
  inline void finalizeHeap()                                                                                      \
  {                                                                                                               \
    const handle_type empty{}; /* a published empty handle fails loudly instead of using freed memory */          \
    DEVALLOC_DETAIL_PUBLISH_HANDLE(empty);                                                                        \
    owner().reset();                                                                                              \
  }                                                                                                               \
  DEVALLOC_DEVICE inline const handle_type& device_handle()                                                       \
  {                                                                                                               \
    return *reinterpret_cast<const handle_type*>(global_handle.bytes);                                            \
  }                                                                                                               \
  DEVALLOC_DEVICE inline void* malloc(std::size_t bytes) { return device_handle().alloc(bytes); }                 \
  DEVALLOC_DEVICE inline void free(void* p) { device_handle().dealloc(p); }                                       \
  DEVALLOC_HOST_DEVICE constexpr bool providesAvailableSlots() { return allocator_type::providesAvailableSlots; } \
  /* templates: compiled only when called, so allocators without getAvailableSlots still work */                  \
  template <class A = allocator_type>                                                                             \
  inline std::size_t getAvailableSlots(std::size_t bytes)                                                         \
  {                                                                                                               \
    static_assert(A::providesAvailableSlots, "the global allocator does not provide getAvailableSlots");          \
    return allocator().getAvailableSlots(bytes);                                                                  \
  }                                                                                                               \
  template <class A = allocator_type>                                                                             \
  DEVALLOC_DEVICE inline std::size_t getAvailableSlotsOnDevice(std::size_t bytes)                                 \
  {                                                                                                               \
    static_assert(A::providesAvailableSlots, "the global allocator does not provide getAvailableSlots");          \
    return device_handle().getAvailableSlots(bytes);                                                              \
  }                                                                                                               \
  } /* namespace global */                                                                                        \
  DEVALLOC_NAMESPACE_END

#if DEVALLOC_BACKEND_CUDA
/// Replaces device malloc/free with the global allocator (use once, at global scope, after
/// DEVALLOC_SET_ALLOCATOR_TYPE). The definitions exist only in nvcc's device pass: in the host
/// pass an extern "C" __device__ malloc is emitted as a host symbol and would replace the host's
/// malloc (seen with nvcc 13.0: every host allocation of the program then failed).
#define DEVALLOC_OVERWRITE_MALLOC()                                                                           \
  static_assert(                                                                                              \
    !std::is_same_v<::devalloc::global::allocator_type::creation_policy, ::devalloc::creation::DeviceMalloc>, \
    "DEVALLOC_OVERWRITE_MALLOC: the global allocator uses creation::DeviceMalloc, i.e. CUDA's "               \
    "malloc itself; choose another creation policy or do not overwrite malloc");                              \
  DEVALLOC_DETAIL_DEVICE_MALLOC_OVERRIDE
#if defined(__CUDA_ARCH__)
#define DEVALLOC_DETAIL_DEVICE_MALLOC_OVERRIDE                                                                 \
  extern "C" __device__ void* malloc(std::size_t bytes) noexcept { return ::devalloc::global::malloc(bytes); } \
  extern "C" __device__ void free(void* p) noexcept { ::devalloc::global::free(p); }
#else
#define DEVALLOC_DETAIL_DEVICE_MALLOC_OVERRIDE
#endif
#else
#define DEVALLOC_OVERWRITE_MALLOC()                                                                           \
  static_assert(                                                                                              \
    !std::is_same_v<::devalloc::global::allocator_type::creation_policy, ::devalloc::creation::DeviceMalloc>, \
    "DEVALLOC_OVERWRITE_MALLOC: the global allocator uses creation::DeviceMalloc")
#endif
