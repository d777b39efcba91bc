// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// devalloc/policy_check.hpp
//
// Compile-time checks of the five policies (mallocMC thesis §4.2 "PolicyConstraints"): first that
// each policy has the members its kind requires, then the constraints between policies that are
// not orthogonal. A policy author adds a constraint by specializing `policy_check` for a pair of
// policy templates; its static_asserts fire when the Allocator is instantiated.
#pragma once

#include "detail/platform.hpp"

#include <cstddef>
#include <type_traits>
#include <utility>

#include "free_result.hpp"
#include "pool.hpp"
#include "stream.hpp"

DEVALLOC_NAMESPACE_BEGIN

/// Constraint between two policies; the primary template accepts every pair. Specialize it to
/// add a check (see distribution/xmalloc_simd.hpp for an example).
template <class PolicyA, class PolicyB>
struct policy_check {
  static constexpr bool value = true;
};

namespace detail {

template <class, class = void>
struct has_creation_members : std::false_type {};
template <class C>
struct has_creation_members<C,
                            std::void_t<decltype(C::init_heap(std::declval<pool_span>(), std::declval<stream_ref>())),
                                        decltype(std::declval<C&>().finalize_heap(std::declval<stream_ref>())),
                                        decltype(std::declval<C&>().release(std::declval<stream_ref>())),
                                        decltype(C::traits), decltype(C::classname())>> : std::true_type {};

template <class, class = void>
struct has_distribution_members : std::false_type {};
template <class D>
struct has_distribution_members<
  D, std::void_t<decltype(D::classname()), typename D::config, decltype(D::combines_requests)>> : std::true_type {};

template <class, class = void>
struct has_oom_members : std::false_type {};
template <class O>
struct has_oom_members<O, std::void_t<decltype(O::returns_null), decltype(O::classname())>> : std::true_type {};

template <class, class = void>
struct has_reserve_pool_members : std::false_type {};
template <class R>
struct has_reserve_pool_members<
  R, std::void_t<decltype(std::declval<R&>().reserve(std::size_t{}, std::declval<stream_ref>())),
                 decltype(std::declval<R&>().release(pool_span{}, std::declval<stream_ref>())),
                 decltype(R::provides_pool), decltype(R::takes_memory), decltype(R::classname())>> : std::true_type {};

template <class, class = void>
struct has_alignment_members : std::false_type {};
template <class A>
struct has_alignment_members<
  A, std::void_t<decltype(A::align_pool(pool_span{})), decltype(A::apply_padding(std::size_t{})),
                 decltype(A::guaranteed_alignment), decltype(A::classname())>> : std::true_type {};

/// The free protocol: the creation policy's destroy(p) and the distribution policy's
/// deallocate(creation, p) return free_result (AllocatorHandle::dealloc counts misuse by it).
template <class, class = void>
struct has_destroy_result : std::false_type {};
template <class C>
struct has_destroy_result<C, std::void_t<decltype(std::declval<const C&>().destroy(static_cast<void*>(nullptr)))>>
    : std::is_same<decltype(std::declval<const C&>().destroy(static_cast<void*>(nullptr))), free_result> {};

template <class, class, class = void>
struct has_deallocate_result : std::false_type {};
template <class C, class D>
struct has_deallocate_result<
  C, D, std::void_t<decltype(D::deallocate(std::declval<const C&>(), static_cast<void*>(nullptr)))>>
    : std::is_same<decltype(D::deallocate(std::declval<const C&>(), static_cast<void*>(nullptr))), free_result> {};

/// Instantiated by Allocator; every static_assert message says what to change.
template <class Creation, class Distribution, class OOM, class ReservePool, class Alignment>
struct policy_constraints {
  static_assert(
    has_creation_members<Creation>::value,
    "devalloc::Allocator: the first policy must be a CreationPolicy (static init_heap(pool_span, stream_ref), "
    "finalize_heap(stream_ref), release(stream_ref), create/destroy/is_oom on the device, static traits, classname()), "
    "e.g. devalloc::creation::AtomicBump");
  static_assert(has_distribution_members<Distribution>::value,
                "devalloc::Allocator: the second policy must be a DistributionPolicy (collect/distribute/deallocate, "
                "config, combines_requests, "
                "classname()), e.g. devalloc::distribution::Noop");
  static_assert(has_oom_members<OOM>::value,
                "devalloc::Allocator: the third policy must be an OOMPolicy (handle_oom, returns_null, classname()), "
                "e.g. devalloc::oom::ReturnNull");
  static_assert(has_reserve_pool_members<ReservePool>::value,
                "devalloc::Allocator: the fourth policy must be a ReservePoolPolicy (reserve, release, provides_pool, "
                "takes_memory, "
                "classname()), e.g. devalloc::reserve_pool::CudaMalloc");
  static_assert(has_alignment_members<Alignment>::value,
                "devalloc::Allocator: the fifth policy must be an AlignmentPolicy (align_pool, apply_padding, "
                "guaranteed_alignment, classname()), e.g. devalloc::alignment::Shrink<16>");

  static_assert(
    !has_creation_members<Creation>::value || has_destroy_result<Creation>::value,
    "devalloc::Allocator: the CreationPolicy's device destroy(void* p) const must return devalloc::free_result "
    "(freed, invalid_pointer or double_free; devalloc/free_result.hpp)");
  static_assert(!has_creation_members<Creation>::value || !has_distribution_members<Distribution>::value ||
                  has_deallocate_result<Creation, Distribution>::value,
                "devalloc::Allocator: the DistributionPolicy needs a device `template <class Creation> static "
                "free_result deallocate(const Creation&, void* p)` (distribution::Noop's calls creation.destroy(p))");
  static_assert(!Creation::traits.needs_pool || ReservePool::provides_pool,
                "devalloc::Allocator: this CreationPolicy builds its heap inside a pool; use a ReservePoolPolicy "
                "that provides one (reserve_pool::CudaMalloc or reserve_pool::UserPool), not CudaSetLimits");
  static_assert(Creation::traits.needs_pool || !ReservePool::provides_pool,
                "devalloc::Allocator: creation::DeviceMalloc uses the platform's own heap; pair it with "
                "reserve_pool::CudaSetLimits, which sizes that heap, instead of a pool-providing policy");
  static_assert(Alignment::guaranteed_alignment <= 256,
                "devalloc::Allocator: alignments above 256 bytes are not supported (pools are 256-byte aligned); "
                "lower the AlignmentPolicy's N");

  // Pairwise constraints a policy author may add by specializing devalloc::policy_check.
  static_assert(policy_check<Creation, Distribution>::value,
                "see the static_assert in the policy_check specialization");
  static_assert(policy_check<Creation, Alignment>::value, "see the static_assert in the policy_check specialization");
  static_assert(policy_check<Distribution, Alignment>::value,
                "see the static_assert in the policy_check specialization");
  static_assert(policy_check<Creation, ReservePool>::value, "see the static_assert in the policy_check specialization");

  static constexpr bool value = true;
};

}  // namespace detail
DEVALLOC_NAMESPACE_END
