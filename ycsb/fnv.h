// FNV-1a 64-bit hashing as YCSB uses it: FnvHash64 is site.ycsb.Utils.fnvhash64
// (the key-scrambling hash of hashed insert order and of the scrambled zipfian
// generator), Fnv1a64 is the plain byte-string FNV-1a used for test vectors.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

namespace wirebench::ycsb {

inline constexpr uint64_t kFnvOffsetBasis64 = 0xCBF29CE484222325ull;
inline constexpr uint64_t kFnvPrime64 = 1099511628211ull;

// FNV-1a 64 over `n` bytes.
constexpr uint64_t Fnv1a64(const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t h = kFnvOffsetBasis64;
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= kFnvPrime64;
  }
  return h;
}

// YCSB's Utils.fnvhash64(long): FNV-1a over the 8 bytes of `val`, low byte
// first, then Java's Math.abs of the signed result. Like Java, the absolute
// value of INT64_MIN is INT64_MIN, so the result is negative in that one case.
constexpr int64_t FnvHash64(int64_t val) {
  // Eight rounds, one per byte from the lowest, written out: this runs for
  // every zipfian draw, and a counted loop costs twice the instructions.
  const uint64_t v = uint64_t(val);
  uint64_t h = kFnvOffsetBasis64;
  h = (h ^ (v & 0xff)) * kFnvPrime64;
  h = (h ^ ((v >> 8) & 0xff)) * kFnvPrime64;
  h = (h ^ ((v >> 16) & 0xff)) * kFnvPrime64;
  h = (h ^ ((v >> 24) & 0xff)) * kFnvPrime64;
  h = (h ^ ((v >> 32) & 0xff)) * kFnvPrime64;
  h = (h ^ ((v >> 40) & 0xff)) * kFnvPrime64;
  h = (h ^ ((v >> 48) & 0xff)) * kFnvPrime64;
  h = (h ^ (v >> 56)) * kFnvPrime64;
  const int64_t s = int64_t(h);
  if (s == std::numeric_limits<int64_t>::min()) return s;
  return s < 0 ? -s : s;
}

}  // namespace wirebench::ycsb
