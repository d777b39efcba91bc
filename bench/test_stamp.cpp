// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2026 the devalloc authors
// bench/test_stamp.cpp — the bench's verification (stamp / stamp_ok, bench/src/common.hpp) catches
// what it is there to catch: a byte of the head or of the tail overwritten, another allocation's
// tag. CPU backend; CTest: cpu:bench_stamp_detects_corruption.
#include <cstdio>

#include "common.hpp"

int main()
{
  using namespace devalloc_bench;
  int failures = 0;
  auto expect = [&](bool ok, const char* what, std::size_t bytes, std::size_t at) {
    if (!ok) {
      std::printf("FAIL: %s (bytes %zu, byte %zu)\n", what, bytes, at);
      ++failures;
    }
  };
  const u32 tag = make_tag(12345, 7);
  const u32 other = make_tag(12346, 7);
  // Every start alignment (aligned 4-byte pieces are word stores/loads, the others bytes).
  for (std::size_t bytes = 1; bytes <= 40; ++bytes) {
    for (std::size_t off = 4; off < 8; ++off) {
      alignas(16) unsigned char base[64];
      for (unsigned char& c : base) { c = 0xEE; }
      void* p = base + off;
      stamp(p, bytes, tag);
      expect(stamp_ok(p, bytes, tag), "an intact stamp verifies", bytes, 0);
      expect(!stamp_ok(p, bytes, other), "another allocation's tag is caught", bytes, 0);
      expect(base[off - 1] == 0xEE && base[off + bytes] == 0xEE, "stamp writes only inside the allocation", bytes, 0);
      for (std::size_t j = 0; j < bytes; ++j) {
        const bool stamped = j < 4 || j + 4 >= bytes;
        expect(base[off + j] == (stamped ? tag_byte(tag, j) : 0xEE), "word and byte stores write the same bytes", bytes,
               j);
      }
      for (std::size_t j = 0; j < bytes; ++j) {
        const bool stamped = j < 4 || j + 4 >= bytes;
        unsigned char& b = base[off + j];
        const unsigned char kept = b;
        b ^= 0x40;
        expect(stamp_ok(p, bytes, tag) == !stamped, "a changed head or tail byte is caught (only those are stamped)",
               bytes, j);
        b = kept;
      }
    }
  }
  std::printf("%s\n", failures == 0 ? "stamp: all checks pass" : "stamp: failures");
  return failures == 0 ? 0 : 1;
}
