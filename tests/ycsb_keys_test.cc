// Tests for ycsb/fnv.h and key_name.h: FNV-1a 64 test vectors, YCSB's
// fnvhash64 computed independently from its definition, and key names.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "ycsb/fnv.h"
#include "ycsb/key_name.h"

namespace wirebench::ycsb {
namespace {

// Independent FNV-1a 64 over the 8 little-endian bytes of v, then Java's
// Math.abs, written from the description rather than shared with the product.
int64_t ReferenceFnvOfLong(int64_t v) {
  unsigned char bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = (uint64_t(v) >> (8 * i)) & 0xff;
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char b : bytes) {
    h ^= b;
    h *= 0x100000001b3ull;
  }
  int64_t s = int64_t(h);
  return s == std::numeric_limits<int64_t>::min() ? s : (s < 0 ? -s : s);
}

std::string Key(int64_t keynum, int zeropadding, bool ordered) {
  char buf[512];
  size_t n = BuildKeyName(keynum, zeropadding, ordered, buf, sizeof(buf));
  return std::string(buf, n);
}

TEST(YcsbFnv, StandardFnv1a64Vectors) {
  EXPECT_EQ(Fnv1a64("", 0), 0xcbf29ce484222325ull);
  EXPECT_EQ(Fnv1a64("a", 1), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(Fnv1a64("foobar", 6), 0x85944171f73967e8ull);
}

TEST(YcsbFnv, FnvHash64MatchesDefinition) {
  const unsigned char zeros[8] = {};
  const uint64_t h0 = Fnv1a64(zeros, 8);
  EXPECT_EQ(FnvHash64(0), int64_t(h0) < 0 ? -int64_t(h0) : int64_t(h0));
  const int64_t samples[] = {0,
                             1,
                             2,
                             42,
                             255,
                             256,
                             999,
                             1000,
                             123456789,
                             -1,
                             std::numeric_limits<int64_t>::max(),
                             std::numeric_limits<int64_t>::min()};
  for (int64_t v : samples) EXPECT_EQ(FnvHash64(v), ReferenceFnvOfLong(v)) << v;
  for (int64_t v = 0; v < 100000; v += 7) ASSERT_EQ(FnvHash64(v), ReferenceFnvOfLong(v)) << v;
  // Hand-checked against YCSB's Utils.fnvhash64 (computed with Python from the
  // Java source): the well-known first YCSB key is user6284781860667377211.
  EXPECT_EQ(FnvHash64(0), 6284781860667377211ll);
  EXPECT_EQ(FnvHash64(1), 8517097267634966620ll);
  EXPECT_EQ(FnvHash64(1000), 5952875239596136740ll);
}

TEST(YcsbKeyName, HashedKeysAsYcsbBuildsThem) {
  EXPECT_EQ(Key(0, 1, false), "user6284781860667377211");
  EXPECT_EQ(Key(1, 1, false), "user8517097267634966620");
  EXPECT_EQ(Key(42, 1, false), "user55488592825689361");
  // Zero padding fills up to the digit count, never truncates.
  EXPECT_EQ(Key(42, 20, false), "user00055488592825689361");  // 17 digits + 3 zeros.
  EXPECT_EQ(Key(42, 17, false), "user55488592825689361");
  for (int64_t k = 0; k < 2000; ++k) {
    ASSERT_EQ(Key(k, 1, false), "user" + std::to_string(ReferenceFnvOfLong(k)));
  }
}

TEST(YcsbKeyName, OrderedKeysAndPadding) {
  EXPECT_EQ(Key(5, 1, true), "user5");
  EXPECT_EQ(Key(5, 8, true), "user00000005");
  EXPECT_EQ(Key(123456789, 8, true), "user123456789");
  EXPECT_EQ(Key(0, 3, true), "user000");
}

TEST(YcsbKeyName, EveryDigitCountAndChunkBoundaryAsLongToString) {
  // Digits are written eight at a time: check both sides of every power of
  // ten, including the chunk edges (1e8, 1e16) and the largest long.
  int64_t p = 1;
  for (int digits = 1; digits <= 19; ++digits) {
    for (int64_t v : {p - 1, p, p + 1, 2 * p - 1, 9 * p, p + p / 2}) {
      if (v < 0) continue;
      ASSERT_EQ(Key(v, 1, true), "user" + std::to_string(v)) << v;
    }
    if (digits < 19) p *= 10;
  }
  const int64_t max = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(Key(max, 1, true), "user" + std::to_string(max));
  EXPECT_EQ(Key(100'000'000'000'000'007, 1, true), "user100000000000000007");
}

TEST(YcsbKeyName, JavaAbsOfLongMinIsNegative) {
  // Math.abs(Long.MIN_VALUE) is Long.MIN_VALUE; Long.toString gives the sign,
  // and zero padding counts it as a character.
  const int64_t min = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(Key(min, 1, true), "user-9223372036854775808");
  EXPECT_EQ(Key(min, 22, true), "user00-9223372036854775808");
  EXPECT_EQ(Key(min, 22, true).size(), MaxKeyNameLength(22));
  EXPECT_EQ(Key(min, 1, true).size(), MaxKeyNameLength(1));
}

}  // namespace
}  // namespace wirebench::ycsb
