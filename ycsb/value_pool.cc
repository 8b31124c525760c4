#include "ycsb/value_pool.h"

#include <algorithm>

#include "ycsb/rng.h"

namespace wirebench::ycsb {

ValuePool::ValuePool(uint64_t seed, size_t max_value_length, size_t size)
    : size_(std::max<size_t>({size, 2 * max_value_length, 1})), data_(size_) {
  Rng rng(seed ^ 0x76616C7565706F6Full);  // "valuepoo": a stream apart from the clients'.
  uint8_t* out = data_.data();
  size_t i = 0;
  while (i < size_) {
    const uint64_t draw = rng.Next();
    // Two of YCSB's 32-bit draws per 64 bits, six bytes each.
    for (int half = 0; half < 2 && i < size_; ++half) {
      const uint32_t bits = uint32_t(draw >> (32 * half));
      for (int k = 0; k < 6 && i < size_; ++k) out[i++] = RandomByteIteratorByte(bits, k);
    }
  }
}

namespace {

// Appends c to the value (when it still fits) and to the running Java hash.
struct DeterministicWriter {
  uint8_t* out;
  size_t length;
  size_t pos = 0;
  int32_t hash = 0;  // String.hashCode of everything appended so far.
  void Put(char c) {
    if (pos < length) out[pos] = uint8_t(c);
    ++pos;
    hash = int32_t(uint32_t(hash) * 31u + uint8_t(c));
  }
  void Put(std::string_view s) {
    for (char c : s) Put(c);
  }
};

}  // namespace

void BuildDeterministicValue(std::string_view key, std::string_view field, size_t length,
                             uint8_t* out) {
  DeterministicWriter w{out, length};
  w.Put(key);
  w.Put(':');
  w.Put(field);
  while (w.pos < length) {
    // sb.append(':'); sb.append(sb.toString().hashCode()): the hash covers
    // the ':' just appended.
    w.Put(':');
    const int32_t h = w.hash;
    char digits[12];
    int n = 0;
    uint32_t mag = h < 0 ? uint32_t(0) - uint32_t(h) : uint32_t(h);
    do {
      digits[n++] = char('0' + mag % 10);
      mag /= 10;
    } while (mag != 0);
    if (h < 0) w.Put('-');
    while (n > 0) w.Put(digits[--n]);
  }
}

bool VerifyDeterministicValue(std::string_view key, std::string_view field, ByteView value) {
  // A stack buffer for the usual lengths; longer values allocate once.
  uint8_t expected[256];
  if (value.size() <= sizeof(expected)) {
    BuildDeterministicValue(key, field, value.size(), expected);
    return std::equal(expected, expected + value.size(), value.data());
  }
  auto big = std::make_unique<uint8_t[]>(value.size());
  BuildDeterministicValue(key, field, value.size(), big.get());
  return std::equal(big.get(), big.get() + value.size(), value.data());
}

}  // namespace wirebench::ycsb
