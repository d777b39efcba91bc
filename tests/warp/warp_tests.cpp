// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// tests/warp/warp_tests.cpp
//
// The CPU backend's warp emulator (detail/cpu_warp.hpp) under devalloc::launch: every primitive of
// detail/warp.hpp checked against a serial reference over the random lane subsets the emulator
// forms, over many seeds; divergent branches running different collectives at once; ids of lanes,
// warps and multiprocessors; repeatable schedules; and the reports of misuse (deadlock, a mask
// without the caller, mixed collectives, a shuffle from outside the mask). CPU backend only: on a
// GPU the primitives are the hardware's *_sync intrinsics. Also the bit helpers beside them
// (nth_bit64, lanes_of) and detail::page_bitmap's claims on maps of fewer words than it reads at
// once (its word index wraps without a division).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <devalloc/detail/atomic.hpp>
#include <devalloc/detail/page_bitmap.hpp>
#include <devalloc/detail/page_groups.hpp>
#include <devalloc/detail/unit_runs.hpp>
#include <devalloc/detail/warp.hpp>
#include <devalloc/error.hpp>
#include <devalloc/launch.hpp>

#if !DEVALLOC_BACKEND_CPU
#error "tests/warp is a CPU-backend test (the warp emulator); build it with a host compiler"
#endif

namespace devalloc::testing {
namespace {

using detail::warp_size;

std::uint32_t mix(std::uint64_t x)
{
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  x *= 0x94D049BB133111EBull;
  return static_cast<std::uint32_t>(x ^ (x >> 32));
}

launch_options lanes32(std::uint64_t seed, unsigned threads = 2)
{
  launch_options o;
  o.cpu_lanes = 32;
  o.cpu_threads = threads;
  o.seed = seed;
  return o;
}

/// What one lane saw in one round of the primitive checks.
struct record {
  bool present = false;
  unsigned lane = 0;
  std::uint32_t ticket = 0;  ///< worker * rounds + round: names this record
  std::uint32_t mask = 0;
  std::uint32_t group = 0;  ///< the leader's ticket (shuffle): names the group
  std::uint32_t value = 0;
  std::uint32_t ballot = 0, match = 0, next_value = 0, min = 0, reduce = 0;
  std::uint32_t sum = 0, below = 0;
  // Divergent part: odd and even lanes regroup at their own sites and run different collectives.
  std::uint32_t branch_mask = 0, branch_group = 0, branch_result = 0;
};

constexpr unsigned rounds = 3;

/// Runs the primitives on every lane; records[i * rounds + r] is worker i's round r.
std::vector<record> run_primitives(std::size_t workers, std::uint64_t seed)
{
  std::vector<record> records(workers * rounds);
  launch(
    workers,
    [&](std::size_t i) {
      // Lanes leave the loop at different rounds, and a group may mix lanes of different rounds
      // (the same call site); the last lanes of a group may find the previous rendezvous of the
      // same mask still being read.
      const unsigned my_rounds = 1 + mix(i * 7 + seed) % rounds;
      for (unsigned r = 0; r < my_rounds; ++r) {
        record& out = records[i * rounds + r];
        out.present = true;
        out.lane = detail::lane_id();
        out.ticket = static_cast<std::uint32_t>(i * rounds + r);
        const std::uint32_t mask = detail::active_mask();
        const std::uint32_t v = mix(seed * 1000003u + i * 31u + r);
        out.mask = mask;
        out.value = v;
        out.ballot = detail::ballot(mask, (v & 1u) != 0);
        out.match = detail::match_any(mask, v % 3u);
        out.group = detail::shuffle(mask, out.ticket, detail::leader_lane(mask));
        // Each lane reads a different lane: the next lane of the group, cyclically.
        const std::uint32_t above = mask & ~((2u << out.lane) - 1u);
        const unsigned next = above != 0 ? detail::lowest_bit(above) : detail::lowest_bit(mask);
        out.next_value = detail::shuffle(mask, v, next);
        out.min = detail::group_min(mask, v);
        out.reduce = detail::group_reduce_add(mask, v % 1000u);
        std::uint32_t below = 0;
        out.sum = detail::group_sum(mask, v % 1000u, below);
        out.below = below;
        detail::sync_lanes(mask);
        if (out.lane % 2 == 1) {  // odd lanes: their own group and a ballot
          const std::uint32_t m = detail::active_mask();
          out.branch_mask = m;
          out.branch_group = detail::shuffle(m, out.ticket, detail::leader_lane(m));
          out.branch_result = detail::ballot(m, (v & 2u) != 0);
        } else {  // even lanes: another group and a match_any, at the same time
          const std::uint32_t m = detail::active_mask();
          out.branch_mask = m;
          out.branch_group = detail::shuffle(m, out.ticket, detail::leader_lane(m));
          out.branch_result = detail::match_any(m, v % 2u);
        }
      }
    },
    lanes32(seed));
  return records;
}

/// The records of each group: group name -> records.
using groups = std::map<std::uint32_t, std::vector<const record*>>;

/// Checks that the records named `name` are exactly the lanes of their mask, one each, all with the
/// same mask, led by the record named `name`; returns the record of each lane.
std::map<unsigned, const record*> members(const std::vector<const record*>& group, std::uint32_t record::*mask,
                                          const std::vector<record>& all, std::uint32_t name)
{
  std::map<unsigned, const record*> by_lane;
  const std::uint32_t m = group.front()->*mask;
  for (const record* r : group) {
    EXPECT_EQ(r->*mask, m) << "lanes of one group got different masks";
    EXPECT_NE(m & (1u << r->lane), 0u) << "active_mask() lacks the caller";
    EXPECT_TRUE(by_lane.emplace(r->lane, r).second) << "two records of lane " << r->lane << " in one group";
  }
  EXPECT_EQ(by_lane.size(), detail::popcount(m)) << "the group's mask names lanes that are not in it";
  EXPECT_EQ(all[name].lane, detail::lowest_bit(m)) << "the group was not led by its lowest lane";
  return by_lane;
}

/// Checks every group of one launch against a serial reference; counts group sizes.
void check(const std::vector<record>& all, std::map<unsigned, unsigned>& sizes)
{
  groups main, branch;
  for (const record& r : all) {
    if (!r.present) { continue; }
    main[r.group].push_back(&r);
    branch[r.branch_group].push_back(&r);
  }
  for (const auto& [name, group] : main) {
    const auto lanes = members(group, &record::mask, all, name);
    if (::testing::Test::HasFailure()) { return; }
    ++sizes[static_cast<unsigned>(lanes.size())];
    const std::uint32_t m = group.front()->mask;
    for (const auto& [lane, r] : lanes) {
      std::uint32_t ballot = 0, match = 0, sum = 0, below = 0, min = ~0u;
      for (const auto& [l, o] : lanes) {
        ballot |= (o->value & 1u) << l;
        if (o->value % 3u == r->value % 3u) { match |= 1u << l; }
        sum += o->value % 1000u;
        if (l < lane) { below += o->value % 1000u; }
        min = std::min(min, o->value);
      }
      const std::uint32_t above = m & ~((2u << lane) - 1u);
      EXPECT_EQ(r->ballot, ballot);
      EXPECT_EQ(r->match, match);
      EXPECT_EQ(r->next_value, lanes.at(above != 0 ? detail::lowest_bit(above) : detail::lowest_bit(m))->value);
      EXPECT_EQ(r->min, min);
      EXPECT_EQ(r->reduce, sum);
      EXPECT_EQ(r->sum, sum);
      EXPECT_EQ(r->below, below);
    }
  }
  for (const auto& [name, group] : branch) {
    const auto lanes = members(group, &record::branch_mask, all, name);
    if (::testing::Test::HasFailure()) { return; }
    const std::uint32_t parity = lanes.begin()->first % 2 == 1 ? 0xAAAAAAAAu : 0x55555555u;
    EXPECT_EQ(group.front()->branch_mask & ~parity, 0u) << "a branch group mixes odd and even lanes";
    for (const auto& [lane, r] : lanes) {
      std::uint32_t expected = 0;
      for (const auto& [l, o] : lanes) {
        if (lane % 2 == 1) {
          expected |= ((o->value >> 1) & 1u) << l;
        } else if (o->value % 2u == r->value % 2u) {
          expected |= 1u << l;
        }
      }
      EXPECT_EQ(r->branch_result, expected) << (lane % 2 == 1 ? "ballot" : "match_any") << " in a branch";
    }
  }
}

TEST(CpuWarp, PrimitivesMatchASerialReferenceUnderRandomSubsets)
{
  constexpr std::size_t workers = 3 * 32 + 9;  // a partial last warp
  std::map<unsigned, unsigned> group_sizes;    // lanes in a group -> groups of that size
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    check(run_primitives(workers, seed), group_sizes);
    if (HasFailure()) { return; }
  }
  // Random subsets: lanes alone, whole warps, and sizes in between all occur.
  EXPECT_GT(group_sizes[1], 0u);
  EXPECT_GT(group_sizes[32], 0u);
  unsigned between = 0;
  for (unsigned k = 2; k < 32; ++k) { between += group_sizes[k] != 0; }
  EXPECT_GE(between, 8u) << "group sizes are not spread";
}

TEST(CpuWarp, LaneWarpAndMultiprocessorIds)
{
  constexpr std::size_t workers = 70;  // lanes 6..31 of warp 2 do not exist
  std::vector<unsigned> lane(workers), warp(workers), sm(workers), hits(workers);
  launch(
    workers,
    [&](std::size_t i) {
      lane[i] = detail::lane_id();
      warp[i] = detail::warp_id();
      sm[i] = detail::sm_id();
      ++hits[i];
      (void)detail::active_mask();
    },
    lanes32(7));
  for (std::size_t i = 0; i < workers; ++i) {
    EXPECT_EQ(hits[i], 1u);
    EXPECT_EQ(lane[i], i % 32);
    EXPECT_EQ(warp[i], i / 32);
    EXPECT_EQ(sm[i], sm[i - i % 32]) << "lanes of one warp on different multiprocessors";
  }
  // Multiprocessors as a GPU deals blocks: warps of one 256-thread block (8 warps) share one, the
  // blocks go round the 64 (so warp k % 4 varies on each multiprocessor, as %warpid's low bits do).
  std::vector<unsigned> sm_of_warp(detail::cpu::block_warps * 130);
  launch(
    sm_of_warp.size() * 32,
    [&](std::size_t i) {
      if (detail::lane_id() == 0) { sm_of_warp[i / 32] = detail::sm_id(); }
    },
    lanes32(7));
  for (std::size_t k = 0; k < sm_of_warp.size(); ++k) {
    EXPECT_EQ(sm_of_warp[k], k / detail::cpu::block_warps % detail::cpu_sm_count) << k;
  }
}

TEST(CpuWarp, ResidentWarpsInterleave)
{
  // One thread, 12 warps, each lane inside a stretch of atomics: with one resident warp the thread
  // runs the warps one after another (at most one inside at a time); with four, their lanes
  // interleave at the atomics and primitives, as a multiprocessor's resident warps do. Every
  // worker runs once either way (the last warp partial).
  constexpr std::size_t warps = 12, workers = warps * 32 - 5;
  for (const unsigned resident : {1u, 4u}) {
    SCOPED_TRACE("resident warps " + std::to_string(resident));
    std::vector<unsigned> hits(workers), lanes_inside(warps);
    unsigned warps_inside = 0, most = 0;
    launch_options o = lanes32(11, 1);
    o.cpu_resident_warps = resident;
    launch(
      workers,
      [&](std::size_t i) {
        const std::size_t w = i / 32;
        detail::device_atomic<unsigned> inside(lanes_inside[w]), count(warps_inside), peak(most);
        if (inside.fetch_add(1u, detail::memory_order_relaxed) == 0u) {
          count.fetch_add(1u, detail::memory_order_relaxed);
        }
        for (int r = 0; r < 8; ++r) {
          peak.fetch_max(count.load(detail::memory_order_relaxed), detail::memory_order_relaxed);
          (void)detail::active_mask();
        }
        ++hits[i];
        if (inside.fetch_sub(1u, detail::memory_order_relaxed) == 1u) {
          count.fetch_sub(1u, detail::memory_order_relaxed);
        }
      },
      o);
    EXPECT_EQ(std::count(hits.begin(), hits.end(), 1u), static_cast<std::ptrdiff_t>(workers));
    EXPECT_EQ(warps_inside, 0u);
    if (resident == 1) {
      EXPECT_EQ(most, 1u) << "one resident warp: warps ran one after another";
    } else {
      EXPECT_GT(most, 1u) << "four resident warps never overlapped";
      EXPECT_LE(most, resident);
    }
  }
  launch_options bad;
  bad.cpu_resident_warps = 257;
  EXPECT_THROW(launch(
                 64, [](std::size_t) {}, bad),
               devalloc::error);
  ASSERT_EQ(::setenv("DEVALLOC_CPU_RESIDENT_WARPS", "300", 1), 0);
  EXPECT_THROW(launch(64, [](std::size_t) {}), devalloc::error);
  ::unsetenv("DEVALLOC_CPU_RESIDENT_WARPS");
}

TEST(CpuWarp, ASeedRepeatsTheSchedule)
{
  // Without memory shared between lanes, a warp's schedule depends only on the seed.
  const auto masks = [](std::uint64_t seed) {
    std::vector<std::uint32_t> m(4 * 32 * 3);
    launch(
      4 * 32,
      [&](std::size_t i) {
        for (unsigned r = 0; r < 3; ++r) {
          const std::uint32_t mask = detail::active_mask();
          m[i * 3 + r] = mask ^ detail::ballot(mask, (i + r) % 3 == 0);
        }
      },
      lanes32(seed, 4));
    return m;
  };
  EXPECT_EQ(masks(12345), masks(12345));
  bool differs = false;
  for (std::uint64_t s = 2; s < 10 && !differs; ++s) { differs = masks(1) != masks(s); }
  EXPECT_TRUE(differs) << "different seeds gave the same schedule";
}

TEST(CpuWarp, AGroupDoesNotWaitForASpinningLane)
{
  // Lane 0 waits (pause_briefly) for a flag that the other lanes set after active_mask(): their
  // group must close although lane 0 never arrives at that site.
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    std::atomic<int> flag{0};
    std::atomic<std::uint32_t> seen{0};
    launch(
      32,
      [&](std::size_t i) {
        if (i == 0) {
          while (flag.load() == 0) { detail::pause_briefly(); }
        } else {
          seen.fetch_or(detail::active_mask());
          flag.store(1);
        }
      },
      lanes32(seed));
    EXPECT_EQ(seen.load() & 1u, 0u);
  }
}

TEST(CpuWarp, OneLaneModeAndPlainThreadsAreOneLaneWarps)
{
  std::vector<std::uint32_t> mask(64), lane(64);
  launch_options o;
  o.cpu_lanes = 1;
  launch(
    64,
    [&](std::size_t i) {
      mask[i] = detail::active_mask();
      lane[i] = detail::lane_id();
    },
    o);
  for (std::size_t i = 0; i < 64; ++i) {
    EXPECT_EQ(mask[i], 1u);
    EXPECT_EQ(lane[i], 0u);
  }
  std::uint32_t m = 0, b = 0;
  std::thread([&] {
    m = detail::active_mask();
    b = detail::ballot(m, true);
  }).join();
  EXPECT_EQ(m, 1u);
  EXPECT_EQ(b, 1u);
}

TEST(CpuWarp, EnvironmentSetsTheLaneCount)
{
  ASSERT_EQ(::setenv("DEVALLOC_CPU_LANES", "1", 1), 0);
  std::vector<std::uint32_t> lane(64, 99);
  launch(64, [&](std::size_t i) { lane[i] = detail::lane_id(); });
  ::unsetenv("DEVALLOC_CPU_LANES");
  EXPECT_EQ(std::count(lane.begin(), lane.end(), 0u), 64);
  launch(64, [&](std::size_t i) { lane[i] = detail::lane_id(); });
  EXPECT_EQ(lane[33], 1u);
  launch_options bad;
  bad.cpu_lanes = 33;
  EXPECT_THROW(launch(
                 1, [](std::size_t) {}, bad),
               devalloc::error);
}

/// launch's devalloc::error message for a worker function that misuses the primitives.
template <class F>
std::string report_of(F f)
{
  try {
    launch(32, f, lanes32(99));  // one warp: the report names it
  } catch (const devalloc::error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(CpuWarp, ADeadlockIsReported)
{
  // Lane 0 waits in a ballot for lane 1, which never calls it.
  const std::string what = report_of([](std::size_t i) {
    if (detail::lane_id() == 0) { (void)detail::ballot(0x3u, true); }
    (void)i;
  });
  EXPECT_NE(what.find("deadlock"), std::string::npos) << what;
  EXPECT_NE(what.find("lane 0 (worker 0): waits in ballot(mask 0x00000003) at"), std::string::npos) << what;
  EXPECT_NE(what.find("warp_tests.cpp"), std::string::npos) << what;
  EXPECT_NE(what.find("launch_options::seed=99"), std::string::npos) << what;
}

TEST(CpuWarp, MisusedPrimitivesAreReported)
{
  EXPECT_NE(report_of([](std::size_t) {
              (void)detail::ballot(0x1u << ((detail::lane_id() + 1) % 32), true);
            }).find("which lacks the caller"),
            std::string::npos);
  EXPECT_NE(report_of([](std::size_t) {
              const std::uint32_t m = detail::active_mask();
              if (detail::lane_id() == detail::leader_lane(m)) {
                (void)detail::ballot(m, true);
              } else {
                (void)detail::match_any(m, 1);
              }
            }).find("call different collectives"),
            std::string::npos);
  EXPECT_NE(report_of([](std::size_t) {
              const std::uint32_t m = detail::active_mask();
              (void)detail::shuffle(m, 1u, 31u - detail::lowest_bit(~m | 0x80000000u));
            }).find("outside mask"),
            std::string::npos);
}

TEST(CpuWarp, AWorkersExceptionWinsOverTheWaitItLeaves)
{
  // Worker 37 throws; the other lanes of its warp then wait for it in sync_lanes forever. The
  // launch reports the exception, not a deadlock.
  EXPECT_THROW(launch(
                 64,
                 [](std::size_t i) {
                   if (i == 37) { throw std::runtime_error("worker 37"); }
                   detail::sync_lanes(0xFFFFFFFFu);
                 },
                 lanes32(5)),
               std::runtime_error);
}

TEST(BitHelpers, NthBitAndLanesOfMatchASerialReference)
{
  for (std::uint64_t seed = 1; seed < 4000; ++seed) {
    const std::uint64_t x =
      (std::uint64_t{mix(seed)} << 32 | mix(seed * 7919u)) & (seed % 3 == 0 ? ~0ull : mix(seed * 31u));
    std::vector<unsigned> set;  // the set bits of x, lowest first
    for (unsigned b = 0; b < 64; ++b) {
      if (((x >> b) & 1u) != 0) { set.push_back(b); }
    }
    ASSERT_EQ(detail::popcount64(x), set.size());
    for (unsigned n = 0; n < set.size(); ++n) {
      ASSERT_EQ(detail::nth_bit64(x, n), set[n]) << std::hex << x << " n " << n;
    }
    const auto mask = static_cast<std::uint32_t>(x);
    const unsigned count = detail::popcount(mask);
    for (unsigned first = 0; first <= count; ++first) {
      for (unsigned len = 0; first + len <= count; ++len) {
        std::uint32_t want = 0;
        unsigned rank = 0;
        for (unsigned b = 0; b < 32; ++b) {
          if (((mask >> b) & 1u) == 0) { continue; }
          if (rank >= first && rank < first + len) { want |= 1u << b; }
          ++rank;
        }
        ASSERT_EQ(detail::lanes_of(mask, first, len), want) << std::hex << mask << " first " << first << " len " << len;
      }
    }
  }
}

TEST(PageBitmap, ClaimsHandOutEveryUnitOnceOnMapsOfAnySize)
{
  // Maps of 1 .. 6 words (fewer and more than claim_some reads at once, page_bitmap::batch), some
  // with a partial last word; claims of 1 .. 5 units from starts all over the map until the map is
  // full: every unit exactly once, none beyond the last, and none once the map is full.
  for (std::uint32_t units : {1u, 5u, 63u, 64u, 65u, 130u, 191u, 256u, 300u, 384u}) {
    for (std::uint32_t start_step : {1u, 7u, 61u}) {
      std::vector<std::uint64_t> words(detail::page_bitmap::words_for(units), 0);
      const detail::page_bitmap map(words.data(), units);
      std::vector<int> got(units, 0);
      std::uint32_t taken = 0;
      for (std::uint32_t call = 0; taken < units; ++call) {
        ASSERT_LT(call, 4u * units) << "units " << units;
        const std::uint32_t want = 1u + call % 5u;
        const auto claim = map.claim_some(call * start_step, want, map.word_count());
        ASSERT_NE(claim.word, detail::page_bitmap::none) << "units " << units << ": free units left but none found";
        ASSERT_NE(claim.bits, 0u);
        ASSERT_LE(detail::popcount64(claim.bits), want);
        for (unsigned b = 0; b < 64; ++b) {
          if (((claim.bits >> b) & 1u) == 0) { continue; }
          const std::uint32_t u = claim.word * 64u + b;
          ASSERT_LT(u, units);
          ++got[u];
          ++taken;
        }
      }
      for (std::uint32_t u = 0; u < units; ++u) { ASSERT_EQ(got[u], 1) << "units " << units << " unit " << u; }
      EXPECT_EQ(map.claim_some(start_step, 1u, map.word_count()).word, detail::page_bitmap::none);
      EXPECT_EQ(map.claim_one(0u, map.word_count()), detail::page_bitmap::none);
    }
  }
}

TEST(PageBitmap, ClaimTakesTheWantedFreeUnitsOfTheStartWordAroundTakenOnes)
{
  // claim_some starts with a blind fetch_or at start's bit: units that were taken already must
  // not be handed out, and the rest of the wanted units come from the same word's free bits.
  const std::uint64_t taken_before = 0x00000000F0F0F0F0ull;  // units 4-7, 12-15, 20-23, 28-31
  std::vector<std::uint64_t> words{taken_before, 0};
  const detail::page_bitmap map(words.data(), 128);
  const auto claim = map.claim_some(4u, 6u, map.word_count());  // start on a taken unit
  ASSERT_EQ(claim.word, 0u);
  EXPECT_EQ(detail::popcount64(claim.bits), 6u);
  EXPECT_EQ(claim.bits & taken_before, 0u) << std::hex << claim.bits;
  EXPECT_EQ(words[0], taken_before | claim.bits);
  EXPECT_EQ(claim.used, detail::popcount64(taken_before) + 6u);
  EXPECT_EQ(words[1], 0u);
  // Wrapping inside a free word: units 62, 63, then 0, 1 of word 1 (units 126, 127, 64, 65).
  const auto wrapped = map.claim_some(64u + 62u, 4u, map.word_count());
  ASSERT_EQ(wrapped.word, 1u);
  EXPECT_EQ(wrapped.bits, (std::uint64_t{3} << 62) | 3u);
  // A full start word: the claim moves on to the next word with free units.
  std::vector<std::uint64_t> full{~std::uint64_t{0}, ~std::uint64_t{0} ^ (std::uint64_t{1} << 9), 0};
  const detail::page_bitmap map2(full.data(), 192);
  const auto moved = map2.claim_some(3u, 2u, map2.word_count());
  ASSERT_EQ(moved.word, 1u);
  EXPECT_EQ(moved.bits, std::uint64_t{1} << 9);
  EXPECT_EQ(full[0], ~std::uint64_t{0});
}

TEST(PageBitmap, FindRunFindsARunIffOneExistsFromAnyStartInOnePass)
{
  // Maps of 1 .. 13 words (fewer and more than a batch of find_run's reads, some with a partial
  // last word), random taken units, runs of 1 .. 130 units (inside a word, across words, longer than
  // a word): from every start word, with one pass over the map plus the words a run reaches
  // (creation::Runs' bound), find_run returns a run of free units iff the map has one, and claims
  // exactly it.
  std::uint64_t seed = 0x9E3779B97F4A7C15ull;
  const auto next = [&seed] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return seed >> 11;
  };
  // Every unit taken but one stretch: the only run (across word and batch boundaries, longer than
  // a word, at the map's ends) is found from every start word, and a stretch one unit short is not.
  for (std::uint32_t units : {300u, 777u}) {
    for (std::uint32_t n : {2u, 9u, 64u, 65u, 130u}) {
      for (std::uint32_t at : {0u, 1u, 60u, 63u, 126u, 190u, 255u, units - n}) {
        for (std::uint32_t len : {n - 1u, n}) {
          if (at + len > units) { continue; }
          std::vector<std::uint64_t> words(detail::page_bitmap::words_for(units), ~std::uint64_t{0});
          for (std::uint32_t u = at; u < at + len; ++u) { words[u / 64] &= ~(std::uint64_t{1} << (u % 64)); }
          const std::vector<std::uint64_t> before = words;
          const detail::page_bitmap map(words.data(), units);
          for (std::uint32_t w = 0; w < map.word_count(); ++w) {
            const std::uint32_t first = map.find_run(w * 64u, n, map.word_count() + n / 64u + 2u);
            if (len < n) {
              EXPECT_EQ(first, detail::page_bitmap::none) << "units " << units << " stretch " << at << "+" << len;
            } else {
              EXPECT_EQ(first, at) << "units " << units << " n " << n << " at " << at << " start word " << w;
            }
            words = before;
          }
        }
      }
    }
  }
  for (std::uint32_t units : {7u, 64u, 100u, 256u, 300u, 512u, 777u, 832u}) {
    for (int density = 0; density <= 15; density += 3) {
      std::vector<std::uint64_t> words(detail::page_bitmap::words_for(units), 0);
      for (std::uint32_t u = 0; u < units; ++u) {
        if (static_cast<int>(next() % 16u) < density) { words[u / 64] |= std::uint64_t{1} << (u % 64); }
      }
      const detail::page_bitmap map(words.data(), units);
      for (std::uint32_t n : {1u, 2u, 3u, 9u, 17u, 63u, 64u, 65u, 130u}) {
        // The longest free stretch (the reference).
        std::uint32_t longest = 0, stretch = 0;
        for (std::uint32_t u = 0; u < units; ++u) {
          stretch = ((words[u / 64] >> (u % 64)) & 1u) == 0 ? stretch + 1u : 0u;
          longest = stretch > longest ? stretch : longest;
        }
        for (std::uint32_t w = 0; w < map.word_count(); ++w) {
          const std::vector<std::uint64_t> before = words;
          const std::uint32_t first = map.find_run(w * 64u, n, map.word_count() + n / 64u + 2u);
          if (longest < n) {
            EXPECT_EQ(first, detail::page_bitmap::none) << "units " << units << " n " << n << " start word " << w;
            continue;
          }
          ASSERT_NE(first, detail::page_bitmap::none)
            << "units " << units << " n " << n << " start word " << w << ": a run of " << longest << " exists";
          ASSERT_LE(first + n, units);
          for (std::uint32_t u = 0; u < units; ++u) {
            const bool was = ((before[u / 64] >> (u % 64)) & 1u) != 0;
            const bool is = ((words[u / 64] >> (u % 64)) & 1u) != 0;
            if (u >= first && u < first + n) {
              ASSERT_FALSE(was) << "unit " << u << " was taken already";
              ASSERT_TRUE(is);
            } else {
              ASSERT_EQ(was, is) << "unit " << u << " outside the run changed";
            }
          }
          words = before;  // undo (the map views the same storage)
        }
      }
    }
  }
}

TEST(PageBitmap, ClaimRunTakesAllOrNothing)
{
  // Runs of 1 .. 700 units (up to 12 words: several batches of fetch_ors) from every offset of a
  // word, against a map with one unit taken at each position of the run in turn: the claim fails,
  // names the taken unit, and leaves the map as it was; with nothing in the way it takes exactly
  // the run.
  constexpr std::uint32_t units = 64u * 16u;
  for (std::uint32_t n : {1u, 5u, 64u, 65u, 200u, 257u, 700u}) {
    for (std::uint32_t first : {0u, 1u, 63u, 64u, 100u}) {
      if (first + n > units) { continue; }
      for (std::uint32_t blocker = first; blocker < first + n; blocker += (n > 40u ? 37u : 1u)) {
        std::vector<std::uint64_t> words(detail::page_bitmap::words_for(units), 0);
        words[blocker / 64] |= std::uint64_t{1} << (blocker % 64);
        const std::vector<std::uint64_t> before = words;
        const detail::page_bitmap map(words.data(), units);
        ASSERT_EQ(map.claim_run(first, n), blocker) << "n " << n << " first " << first;
        ASSERT_EQ(words, before) << "a failed claim left bits behind (n " << n << ", blocker " << blocker << ")";
      }
      std::vector<std::uint64_t> words(detail::page_bitmap::words_for(units), 0);
      const detail::page_bitmap map(words.data(), units);
      ASSERT_EQ(map.claim_run(first, n), detail::page_bitmap::none);
      for (std::uint32_t u = 0; u < units; ++u) {
        ASSERT_EQ(detail::page_bitmap::taken_in(words.data(), u), u >= first && u < first + n) << u;
      }
    }
  }
}

TEST(PageBitmap, ContendedFindRunsLeaveNoRunBehind)
{
  // Threads take runs of n units from one map until each one's find_run returns none: the runs are
  // disjoint, and at the end no run of n free units is left (a search that ended early because
  // it lost claims would leave one: nothing is ever freed here, so a run free at the end was free
  // during every search).
  for (std::uint32_t n : {1u, 3u, 17u, 70u, 300u}) {
    for (int round = 0; round < 20; ++round) {
      constexpr std::uint32_t units = 64u * 24u + 37u;
      std::vector<std::uint64_t> words(detail::page_bitmap::words_for(units), 0);
      const detail::page_bitmap map(words.data(), units);
      constexpr int threads = 8;
      std::vector<std::vector<std::uint32_t>> got(threads);
      std::vector<std::thread> pool;
      for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
          std::uint32_t start = static_cast<std::uint32_t>(t) * 977u + static_cast<std::uint32_t>(round) * 131u;
          for (;;) {
            const std::uint32_t first = map.find_run(start % units, n, map.word_count() + n / 64u + 2u);
            if (first == detail::page_bitmap::none) { break; }
            got[t].push_back(first);
            start += 7919u;
          }
        });
      }
      for (auto& th : pool) { th.join(); }
      std::vector<int> owner(units, 0);
      for (const auto& runs : got) {
        for (std::uint32_t first : runs) {
          for (std::uint32_t u = first; u < first + n; ++u) {
            ASSERT_EQ(owner[u]++, 0) << "unit " << u << " taken twice";
          }
        }
      }
      std::uint32_t stretch = 0, longest = 0;
      for (std::uint32_t u = 0; u < units; ++u) {
        ASSERT_EQ(((words[u / 64] >> (u % 64)) & 1u) != 0, owner[u] != 0) << "map and runs disagree at unit " << u;
        stretch = owner[u] == 0 ? stretch + 1u : 0u;
        longest = stretch > longest ? stretch : longest;
      }
      EXPECT_LT(longest, n) << "a run of " << longest << " free units was left (n " << n << ", round " << round << ")";
    }
  }
}

TEST(PageBitmap, FreeStretchCounterMatchesABitByBitCount)
{
  // Random maps of 1 .. 13 words (some with a partial last word), densities from empty to full,
  // and runs of 1 .. 130 units: the word-level count (a step per stretch) equals the count of a
  // walk bit by bit, and a stretch is cut by the map's end, not carried into the invalid bits.
  std::uint64_t seed = 0xD1B54A32D192ED03ull;
  const auto next = [&seed] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return seed >> 11;
  };
  for (std::uint32_t units : {1u, 7u, 63u, 64u, 65u, 100u, 256u, 300u, 777u, 832u}) {
    for (int density = 0; density <= 16; density += 2) {
      std::vector<std::uint64_t> words(detail::page_bitmap::words_for(units), 0);
      for (std::uint32_t u = 0; u < units; ++u) {
        if (static_cast<int>(next() % 16u) < density) { words[u / 64] |= std::uint64_t{1} << (u % 64); }
      }
      // Bits past the last unit set or not: they stand for nothing either way.
      if (units % 64 != 0 && (next() & 1u) != 0) { words.back() |= ~std::uint64_t{0} << (units % 64); }
      const detail::page_bitmap map(words.data(), units);
      for (std::uint64_t n : {1u, 2u, 3u, 9u, 17u, 63u, 64u, 65u, 130u}) {
        std::uint64_t expected = 0, stretch = 0;
        for (std::uint32_t u = 0; u < units; ++u) {
          if (((words[u / 64] >> (u % 64)) & 1u) == 0) {
            ++stretch;
          } else {
            expected += stretch / n;
            stretch = 0;
          }
        }
        expected += stretch / n;
        detail::free_stretch_counter counter{n};
        for (std::uint32_t w = 0; w < map.word_count(); ++w) { counter.add_word(words[w], map.valid(w)); }
        EXPECT_EQ(counter.finish(), expected) << "units " << units << " density " << density << " n " << n;
      }
    }
  }
}

/// Removes the run at `pick` (mod size) from a thread's live runs and gives its units up in
/// `owner` (each must be `me`'s, else a failure is counted); returns it.
std::pair<std::uint32_t, std::uint32_t> pop_run(std::vector<std::pair<std::uint32_t, std::uint32_t>>& mine,
                                                std::uint32_t pick, std::vector<std::atomic<int>>& owner, int me,
                                                std::atomic<int>& failures)
{
  const std::size_t i = pick % mine.size();
  const auto run = mine[i];
  mine[i] = mine.back();
  mine.pop_back();
  for (std::uint32_t u = run.first; u < run.first + run.second; ++u) {
    if (owner[u].exchange(0) != me) { ++failures; }
  }
  return run;
}

TEST(UnitRuns, ContendedRunsAreFreedByTheirBoundsAlone)
{
  // Eight threads take runs of 1 .. 150 units (find_run, then mark_bounds) and free some of them
  // again (give_back) in a random order, each keeping a pattern in its runs' units: no two live
  // runs share a unit, every free of a run start frees exactly that run (its end found from the
  // end bits alone), a second free reads double_free, a free inside a run reads invalid_pointer
  // and changes nothing, run_containing finds each live run from any of its units, and once every
  // run is freed the map and both boundary bitmaps are zero again.
  constexpr std::uint32_t units = 64u * 40u + 23u;
  const std::uint32_t words = detail::unit_runs::words_for(units);
  std::vector<std::uint64_t> bits(3u * words, 0);
  const detail::unit_runs runs(detail::page_bitmap(bits.data(), units), bits.data() + words, bits.data() + 2u * words);
  std::vector<std::atomic<int>> owner(units);
  for (auto& o : owner) { o.store(0); }
  constexpr int threads = 8;
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> live(threads);
  std::atomic<int> failures{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      std::uint64_t seed = 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(t + 1);
      const auto next = [&seed] {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<std::uint32_t>(seed >> 33);
      };
      for (int step = 0; step < 3000; ++step) {
        auto& mine = live[t];
        if (!mine.empty() && next() % 3u == 0) {
          const auto [first, n] = pop_run(mine, next(), owner, t + 1, failures);
          if (n > 1 && runs.give_back(first + 1u) != free_result::invalid_pointer) { ++failures; }
          if (runs.run_containing(first + n - 1u) != first) { ++failures; }
          if (runs.give_back(first) != free_result::freed) { ++failures; }
          continue;
        }
        const std::uint32_t n = 1u + next() % (next() % 4u == 0 ? 150u : 12u);
        const std::uint32_t first = runs.map().find_run(next() % units, n, runs.map().word_count() + n / 64u + 2u);
        if (first == detail::unit_runs::none) { continue; }
        runs.mark_bounds(first, n);
        for (std::uint32_t u = first; u < first + n; ++u) {
          if (owner[u].exchange(t + 1) != 0) { ++failures; }
        }
        mine.emplace_back(first, n);
      }
    });
  }
  for (auto& th : pool) { th.join(); }
  EXPECT_EQ(failures.load(), 0) << "overlapping runs, or a free that did not free exactly its run";
  std::uint32_t freed_twice = 0;
  for (auto& mine : live) {
    for (const auto& [first, n] : mine) {
      EXPECT_EQ(runs.run_containing(first), first);
      EXPECT_EQ(runs.end_from(first), first + n - 1u);
      ASSERT_EQ(runs.give_back(first), free_result::freed) << "run at " << first;
      freed_twice += runs.give_back(first) == free_result::double_free ? 1u : 0u;
      EXPECT_EQ(runs.run_containing(first), detail::unit_runs::none);
    }
  }
  std::uint32_t total = 0;
  for (const auto& mine : live) { total += static_cast<std::uint32_t>(mine.size()); }
  EXPECT_GT(total, 0u);
  EXPECT_EQ(freed_twice, total) << "a second free of a run must read double_free";
  for (std::uint32_t w = 0; w < 3u * words; ++w) { EXPECT_EQ(bits[w], 0u) << "word " << w << " of map, starts, ends"; }
}

template <std::uint32_t G>
void page_groups_and_runs_share_one_map()
{
  // Threads take whole pages of G units (claim_some of 1 .. 9 pages, claim_one, claim_unit) and
  // runs of 1 .. 40 units (find_run on the units) from one map and give some back: no unit is
  // owned twice, a page claim only ever takes pages that were wholly free, every give-back frees
  // its units, and the free pages of a word (free_pages) agree with a unit-by-unit reading.
  constexpr std::uint32_t pages = 64u / G * 37u + 3u;
  std::vector<std::uint64_t> words(detail::page_groups<G>::words_for(pages), 0);
  const detail::page_groups<G> map(words.data(), pages);
  const std::uint32_t units = pages * G;
  std::vector<std::atomic<int>> owner(units);
  for (auto& o : owner) { o.store(0); }
  std::atomic<int> failures{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < 8; ++t) {
    pool.emplace_back([&, t] {
      std::uint64_t seed = 0xA0761D6478BD642Full * static_cast<std::uint64_t>(t + 3);
      const auto next = [&seed] {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<std::uint32_t>(seed >> 33);
      };
      std::vector<std::pair<std::uint32_t, std::uint32_t>> mine;  // first unit, units
      const auto own = [&](std::uint32_t first, std::uint32_t n) {
        for (std::uint32_t u = first; u < first + n; ++u) {
          if (owner[u].exchange(t + 1) != 0) { ++failures; }
        }
        mine.emplace_back(first, n);
      };
      for (int step = 0; step < 4000; ++step) {
        const std::uint32_t what = next() % 8u;
        if (what < 3u && !mine.empty()) {
          const auto [first, n] = pop_run(mine, next(), owner, t + 1, failures);
          map.units().release(first, n);
        } else if (what < 5u) {
          const auto got = map.claim_some(next() % pages, 1u + next() % 9u, 1u + next() % 8u);
          if (got.word == detail::page_groups<G>::none) { continue; }
          if (got.bits == 0 || (got.bits >> detail::page_groups<G>::pages_per_word) != 0) { ++failures; }
          for (std::uint64_t b = got.bits; b != 0; b &= b - 1u) {
            const std::uint32_t page = got.word * detail::page_groups<G>::pages_per_word + detail::lowest_bit64(b);
            if (page >= pages) { ++failures; }
            own(page * G, G);
          }
        } else if (what == 5u) {
          const std::uint32_t page = next() % pages;
          if (map.claim_unit(page)) { own(page * G, G); }
          const std::uint32_t one = map.claim_one(next() % pages, map.word_count());
          if (one != detail::page_groups<G>::none) { own(one * G, G); }
        } else {
          const std::uint32_t n = 1u + next() % 40u;
          const std::uint32_t first = map.units().find_run(next() % units, n, map.word_count() + n / 64u + 2u);
          if (first != detail::page_bitmap::none) { own(first, n); }
        }
      }
      for (const auto& [first, n] : mine) {
        for (std::uint32_t u = first; u < first + n; ++u) { owner[u].store(0); }
        map.units().release(first, n);
      }
    });
  }
  for (auto& th : pool) { th.join(); }
  EXPECT_EQ(failures.load(), 0) << "G " << G << ": a unit owned twice, or a page outside the map";
  for (const std::uint64_t w : words) { EXPECT_EQ(w, 0u) << "G " << G << ": units left taken"; }
  // free_pages against a reading unit by unit, on random words.
  std::uint64_t seed = 12345;
  for (int i = 0; i < 2000; ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    const std::uint64_t value = seed & (seed >> 7) & (i % 3 == 0 ? ~std::uint64_t{0} : seed << 3);
    std::uint64_t expected = 0;
    for (std::uint32_t p = 0; p < detail::page_groups<G>::pages_per_word; ++p) {
      bool all_free = true;
      for (std::uint32_t k = 0; k < G; ++k) { all_free = all_free && ((value >> (p * G + k)) & 1u) == 0; }
      expected |= static_cast<std::uint64_t>(all_free) << p;
    }
    ASSERT_EQ(detail::page_groups<G>::free_pages(value), expected) << "G " << G << " value " << value;
    ASSERT_EQ(detail::page_groups<G>::expand(expected) & value, 0u);
  }
}

TEST(PageGroups, PagesAndRunsOfUnitsShareOneMap)
{
  page_groups_and_runs_share_one_map<2>();
  page_groups_and_runs_share_one_map<4>();
  page_groups_and_runs_share_one_map<16>();
  page_groups_and_runs_share_one_map<64>();
}

}  // namespace
}  // namespace devalloc::testing
