#include "ycsb/key_name.h"

#include <cassert>
#include <cstring>

#include "ycsb/fnv.h"

namespace wirebench::ycsb {

namespace {
// "00" .. "99": two digits per division.
constexpr char kDigitPairs[] =
    "0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546"
    "474849"
    "5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596"
    "979899";

// Writes the four digits of v (< 10000) at p.
inline void Write4(uint32_t v, char* p) {
  std::memcpy(p, kDigitPairs + (v / 100) * 2, 2);
  std::memcpy(p + 2, kDigitPairs + (v % 100) * 2, 2);
}

// Writes the decimal digits of `mag` (no leading zeros) so that they end
// just before `end`; returns how many. Eight digits at a time in 32-bit
// arithmetic: a 19-digit key number costs two 64-bit divisions, not ten.
size_t WriteDigitsBackwards(uint64_t mag, char* end) {
  constexpr uint64_t kEight = 100'000'000;
  char* p = end;
  while (mag >= kEight) {
    const uint32_t chunk = uint32_t(mag % kEight);
    mag /= kEight;
    p -= 8;
    Write4(chunk / 10000, p);
    Write4(chunk % 10000, p + 4);
  }
  uint32_t m = uint32_t(mag);
  while (m >= 100) {
    p -= 2;
    std::memcpy(p, kDigitPairs + (m % 100) * 2, 2);
    m /= 100;
  }
  if (m >= 10) {
    p -= 2;
    std::memcpy(p, kDigitPairs + m * 2, 2);
  } else {
    *--p = char('0' + m);
  }
  return size_t(end - p);
}

}  // namespace

size_t BuildKeyName(int64_t keynum, int zeropadding, bool ordered_inserts, char* buf, size_t cap) {
  assert(cap >= MaxKeyNameLength(zeropadding));
  (void)cap;
  const int64_t value = ordered_inserts ? keynum : FnvHash64(keynum);
  // Long.toString(value), built backwards.
  char digits[kMaxKeyDigits];
  const bool negative = value < 0;
  const uint64_t mag = negative ? uint64_t(0) - uint64_t(value) : uint64_t(value);
  size_t n = WriteDigitsBackwards(mag, digits + kMaxKeyDigits);
  if (negative) digits[kMaxKeyDigits - 1 - n++] = '-';
  std::memcpy(buf, kKeyPrefix, kKeyPrefixLength);
  size_t len = kKeyPrefixLength;
  // Java: fill = zeropadding - value.length(), counting the sign.
  for (int fill = zeropadding - int(n); fill > 0; --fill) buf[len++] = '0';
  std::memcpy(buf + len, digits + kMaxKeyDigits - n, n);
  return len + n;
}

}  // namespace wirebench::ycsb
