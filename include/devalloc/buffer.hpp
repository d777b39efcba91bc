// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/buffer.hpp
//
// devalloc::buffer<T>: an owning array in backend memory (device memory on CUDA, host memory on
// the CPU backend) for data that workers write and the host reads back — results of a
// devalloc::launch, pointer tables, counters. Move-only; zero-filled on construction.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/backend.hpp"

DEVALLOC_NAMESPACE_BEGIN

template <class T>
class buffer {
  static_assert(std::is_trivially_copyable_v<T>, "devalloc::buffer<T>: T must be trivially copyable");

 public:
  buffer() = default;

  /// `count` zero-filled elements. Throws devalloc::error if the memory cannot be had.
  explicit buffer(std::size_t count) : count_(count)
  {
    if (count_ > ~std::size_t{0} / sizeof(T)) {
      detail::throw_error("buffer: " + std::to_string(count) + " elements overflow size_t");
    }
    if (count_ != 0) {
      data_ = static_cast<T*>(detail::backend::allocate(count_ * sizeof(T)));
      try {
        detail::backend::fill(data_, 0, count_ * sizeof(T));
      } catch (...) {
        detail::backend::deallocate(data_);
        throw;
      }
    }
  }

  ~buffer() { detail::backend::deallocate(data_); }

  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;
  buffer(buffer&& other) noexcept : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0))
  {}
  buffer& operator=(buffer&& other) noexcept
  {
    if (this != &other) {
      detail::backend::deallocate(data_);
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }

  /// Pointer for workers (valid in kernels on the CUDA backend, not dereferenceable on the host).
  [[nodiscard]] T* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return count_; }

  /// Host copy of the contents (synchronizes with the device).
  [[nodiscard]] std::vector<T> to_host() const
  {
    std::vector<T> host(count_);
    if (count_ != 0) { detail::backend::copy_to_host(host.data(), data_, count_ * sizeof(T)); }
    return host;
  }

  /// Host copy of element `i`.
  [[nodiscard]] T get(std::size_t i) const
  {
    if (i >= count_) { detail::throw_error("buffer::get: index " + std::to_string(i) + " out of range"); }
    T value;
    detail::backend::copy_to_host(&value, data_ + i, sizeof(T));
    return value;
  }

  /// Overwrites the contents with `host` (which must have size() elements).
  void assign(const std::vector<T>& host)
  {
    if (host.size() != count_) { detail::throw_error("buffer::assign: size mismatch"); }
    if (count_ != 0) { detail::backend::copy_to_device(data_, host.data(), count_ * sizeof(T)); }
  }

  void zero()
  {
    if (count_ != 0) { detail::backend::fill(data_, 0, count_ * sizeof(T)); }
  }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

DEVALLOC_NAMESPACE_END
