// YCSB row keys: CoreWorkload.buildKeyName. A key is "user", then zeros up to
// `zeropadding` digits, then the decimal key number, where the key number is
// first scrambled with FnvHash64 unless insertorder=ordered.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wirebench::ycsb {

// Longest decimal form of an int64 ("-9223372036854775808").
inline constexpr size_t kMaxKeyDigits = 20;
inline constexpr char kKeyPrefix[] = "user";
inline constexpr size_t kKeyPrefixLength = 4;

// Bytes BuildKeyName may write for a given zero padding.
constexpr size_t MaxKeyNameLength(int zeropadding) {
  return kKeyPrefixLength +
         (size_t(zeropadding) > kMaxKeyDigits ? size_t(zeropadding) : kMaxKeyDigits);
}

// Writes the key of `keynum` into buf (no terminating NUL) and returns its
// length. Allocates nothing.
// REQUIRES: cap >= MaxKeyNameLength(zeropadding)
size_t BuildKeyName(int64_t keynum, int zeropadding, bool ordered_inserts, char* buf, size_t cap);

}  // namespace wirebench::ycsb
