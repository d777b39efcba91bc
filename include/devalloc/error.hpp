// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/error.hpp
//
// Host-side errors. Every misuse the host can see (a heap size of 0 or larger than the device's
// free memory, no GPU for a CUDA allocator, a failed CUDA call, pointers passed to dealloc that the
// allocator does not own) ends in a devalloc::error with a message that says what to change.
#pragma once

#include <stdexcept>
#include <string>

#include "detail/platform.hpp"

#if DEVALLOC_BACKEND_CUDA
#include <cuda_runtime_api.h>
#endif

DEVALLOC_NAMESPACE_BEGIN

/// Thrown on the host for misuse and for failed backend (CUDA) calls.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Thrown when a CUDA runtime call fails; `code()` is the cudaError_t value as an int.
class cuda_error : public error {
 public:
  cuda_error(int code, const std::string& what) : error(what), code_(code) {}
  [[nodiscard]] int code() const noexcept { return code_; }

 private:
  int code_;
};

namespace detail {
[[noreturn]] inline void throw_error(const std::string& what) { throw error("devalloc: " + what); }

#if DEVALLOC_BACKEND_CUDA
[[noreturn]] inline void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line)
{
  throw cuda_error(static_cast<int>(code), std::string("devalloc: CUDA call failed: ") + call + " returned " +
                                             cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ") at " + file +
                                             ":" + std::to_string(line));
}
#endif
}  // namespace detail

DEVALLOC_NAMESPACE_END

#if DEVALLOC_BACKEND_CUDA
/// Evaluates a CUDA runtime call and throws devalloc::cuda_error if it did not return cudaSuccess.
#define DEVALLOC_CUDA_TRY(call)                                                          \
  do {                                                                                   \
    const cudaError_t devalloc_status_ = (call);                                         \
    if (devalloc_status_ != cudaSuccess) {                                               \
      ::devalloc::detail::throw_cuda_error(devalloc_status_, #call, __FILE__, __LINE__); \
    }                                                                                    \
  } while (0)
#endif
