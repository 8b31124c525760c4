#include "bench/ycsb/key_name.h"

#include <cassert>
#include <cstring>

#include "bench/ycsb/fnv.h"

namespace wirebench::ycsb {

namespace {
// "00" .. "99": two digits per division.
constexpr char kDigitPairs[] =
    "0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546"
    "474849"
    "5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596"
    "979899";
}  // namespace

size_t BuildKeyName(int64_t keynum, int zeropadding, bool ordered_inserts, char* buf, size_t cap) {
  assert(cap >= MaxKeyNameLength(zeropadding));
  (void)cap;
  const int64_t value = ordered_inserts ? keynum : FnvHash64(keynum);
  // Long.toString(value), built backwards.
  char digits[kMaxKeyDigits];
  size_t n = 0;
  const bool negative = value < 0;
  uint64_t mag = negative ? uint64_t(0) - uint64_t(value) : uint64_t(value);
  while (mag >= 100) {
    const unsigned pair = unsigned(mag % 100) * 2;
    mag /= 100;
    digits[kMaxKeyDigits - 1 - n++] = kDigitPairs[pair + 1];
    digits[kMaxKeyDigits - 1 - n++] = kDigitPairs[pair];
  }
  if (mag >= 10) {
    const unsigned pair = unsigned(mag) * 2;
    digits[kMaxKeyDigits - 1 - n++] = kDigitPairs[pair + 1];
    digits[kMaxKeyDigits - 1 - n++] = kDigitPairs[pair];
  } else {
    digits[kMaxKeyDigits - 1 - n++] = char('0' + mag);
  }
  if (negative) digits[kMaxKeyDigits - 1 - n++] = '-';
  std::memcpy(buf, kKeyPrefix, kKeyPrefixLength);
  size_t len = kKeyPrefixLength;
  // Java: fill = zeropadding - value.length(), counting the sign.
  for (int fill = zeropadding - int(n); fill > 0; --fill) buf[len++] = '0';
  std::memcpy(buf + len, digits + kMaxKeyDigits - n, n);
  return len + n;
}

}  // namespace wirebench::ycsb
