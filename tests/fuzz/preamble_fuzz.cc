// libFuzzer target for the connection preamble (transports/wirebench/frame.h ParsePreamble):
// arbitrary first bytes of a connection, offered one byte at a time as a
// slow peer would send them. The verdict must be consistent as bytes arrive
// (kNeedMore only before 8 bytes, never kBad and then not), every kBad says
// why, and a complete preamble is exactly the magic, a version, a codec id
// and two zero bytes.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "transports/wirebench/frame.h"

namespace {
[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "preamble parser: %s\n", what);
  std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wirebench::wbrpc;
  std::unique_ptr<uint8_t[]> bytes(new uint8_t[size ? size : 1]);
  std::memcpy(bytes.get(), data, size);
  bool was_bad = false;
  for (size_t n = 0; n <= size; ++n) {
    Preamble p;
    std::string why;
    ParseResult r = ParsePreamble(wirebench::ByteView(bytes.get(), n), &p, &why);
    if (r == ParseResult::kBad) {
      if (why.empty()) Fail("kBad without a reason");
      was_bad = true;
      continue;
    }
    if (was_bad) Fail("more bytes turned a bad preamble good");
    if (r == ParseResult::kNeedMore) {
      if (n >= kPreambleSize) Fail("kNeedMore with a whole preamble in hand");
      if (std::memcmp(bytes.get(), kMagic, n < 4 ? n : 4) != 0) Fail("wrong magic not refused");
      continue;
    }
    if (n < kPreambleSize) Fail("complete before 8 bytes");
    if (std::memcmp(bytes.get(), kMagic, 4) != 0) Fail("wrong magic accepted");
    if (bytes[6] != 0 || bytes[7] != 0) Fail("nonzero reserved bytes accepted");
    if (p.version != bytes[4] || p.codec_id != bytes[5]) Fail("version or codec misread");
  }
  return 0;
}
