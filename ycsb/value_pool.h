// Values of the YCSB workload without per-operation randomness.
//
// ValuePool: a block of random bytes generated once from the run's seed by
// YCSB's RandomByteIterator method (six bytes per 32-bit draw, each from its
// own bits of the draw and its own range above ' ': 31, 63 or 95 masks, up to
// 0x7F), so values compress as YCSB's do; a value is a slice of it at an
// offset the client derives from a per-client cursor with one multiply, so no
// random byte is produced on the hot path and no value is copied before the
// codec encodes it. The draws come from wirebench's seeded Rng, not Java's
// ThreadLocalRandom: the same kind of bytes, not the same bytes.
// Deterministic values (dataintegrity=true): YCSB's buildDeterministicValue,
// byte for byte: key + ':' + field, then ':' + Java String.hashCode() of the
// text so far, repeated, cut to the field length. Reads can then be verified.
// Thread-safety: ValuePool is immutable after construction and may be shared;
// the free functions are pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "ycsb/huge_page_buffer.h"
#include "common/bytes.h"

namespace wirebench::ycsb {

// Byte `k` (0..5) of the six RandomByteIterator.fillBytesImpl makes from one
// 32-bit draw: bits 0-4, 5-10, 10-16 masked by 95, 15-19, 20-25, 25-31
// masked by 95, each added to ' '.
inline uint8_t RandomByteIteratorByte(uint32_t bits, int k) {
  static constexpr int kShift[6] = {0, 5, 10, 15, 20, 25};
  static constexpr uint32_t kMask[6] = {31, 63, 95, 31, 63, 95};
  // Java's int >> is arithmetic; the masks keep at most 7 bits, all within
  // the 32 (bits 25..31 for the last), so the logical shift gives the same.
  return uint8_t(((bits >> kShift[k]) & kMask[k]) + ' ');
}

class ValuePool {
 public:
  static constexpr size_t kDefaultSize = 4 << 20;

  // At least `size` bytes, and at least 2 * max_value_length so slices vary.
  ValuePool(uint64_t seed, size_t max_value_length, size_t size = kDefaultSize);
  ValuePool(const ValuePool&) = delete;
  ValuePool& operator=(const ValuePool&) = delete;

  // A `length`-byte slice at an offset spread over the pool by `cursor`
  // (consecutive cursors give unrelated offsets).
  // REQUIRES: length <= max_value_length
  ByteView Slice(uint64_t cursor, size_t length) const {
    const uint64_t span = uint64_t(size_ - length) + 1;
    const uint64_t mixed = cursor * 0x9E3779B97F4A7C15ull;
    const uint64_t offset = uint64_t((unsigned __int128)mixed * span >> 64);
    return ByteView(data_.data() + offset, length);
  }
  // Asks the CPU to bring Slice(cursor, length)'s bytes into cache. A client
  // calls it for its next value when it takes one: the pool is larger than
  // L2 and offsets are spread over it, so without it the encoder's copy of
  // nearly every value starts with a cache miss (perf put that first load at
  // a tenth of the raw codec's client CPU); with it the miss overlaps the
  // round trip before the client's next operation. Changes no byte.
  void Prefetch(uint64_t cursor, size_t length) const {
    const ByteView v = Slice(cursor, length);
    // Every line the slice touches: its first byte's, then each 64 bytes on,
    // then its last byte's.
    for (size_t at = 0; at < v.size(); at += 64) __builtin_prefetch(v.data() + at);
    if (!v.empty()) __builtin_prefetch(v.data() + v.size() - 1);
  }
  size_t size() const { return size_; }
  const uint8_t* data() const { return data_.data(); }

 private:
  size_t size_;
  HugePageBuffer data_;
};

// Writes YCSB's deterministic value for (key, field) of `length` bytes into
// out; allocates nothing.
void BuildDeterministicValue(std::string_view key, std::string_view field, size_t length,
                             uint8_t* out);
// True when `value` is exactly the deterministic value for (key, field) of
// value.size() bytes.
bool VerifyDeterministicValue(std::string_view key, std::string_view field, ByteView value);

}  // namespace wirebench::ycsb
