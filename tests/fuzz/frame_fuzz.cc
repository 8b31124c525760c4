// libFuzzer target for the frame parser (transports/wirebench/frame.h ParseFrame), fed the
// way a connection feeds it: the input is a byte stream, parsed frame after
// frame, in two arrival splits (whole, and cut at a point the first byte
// chooses), against a maximum the second byte chooses. The parser must
// never look past what it was given, must agree between the whole and the
// split stream, and every kBad must say why.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "transports/wirebench/frame.h"

namespace {

using wirebench::ByteView;
using wirebench::wbrpc::Frame;
using wirebench::wbrpc::ParseFrame;
using wirebench::wbrpc::ParseResult;

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "frame parser: %s\n", what);
  std::abort();
}

struct Parsed {
  std::vector<std::string> frames;  // Header and payload of each frame, as bytes.
  bool bad = false;
};

// Parses `stream` as it would arrive in two reads, the first `split` bytes long.
Parsed ParseStream(const uint8_t* stream, size_t size, size_t split, uint32_t max) {
  Parsed out;
  size_t pos = 0;
  for (size_t avail : {split, size}) {
    for (;;) {
      Frame f;
      std::string why;
      ByteView in(stream + pos, avail - pos);
      ParseResult r = ParseFrame(in, max, &f, &why);
      if (r == ParseResult::kNeedMore) break;
      if (r == ParseResult::kBad) {
        if (why.empty()) Fail("kBad without a reason");
        out.bad = true;
        return out;
      }
      if (f.total_size > in.size() || f.total_size < wirebench::wbrpc::kFrameHeaderSize)
        Fail("frame extent outside the input");
      if (f.header.length > max) Fail("frame over the maximum accepted");
      if (!f.payload.Within(in.data(), in.size())) Fail("payload view outside the input");
      if (f.payload.size() != f.header.payload_size()) Fail("payload size disagrees with length");
      out.frames.emplace_back(reinterpret_cast<const char*>(in.data()), f.total_size);
      pos += f.total_size;
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  static const uint32_t kMaxima[] = {wirebench::rpc::kDefaultMaxCallBytes, 8, 9, 64, 1024, 0xFFFFFFFFu};
  const uint32_t max = kMaxima[data[1] % (sizeof(kMaxima) / sizeof(kMaxima[0]))];
  const size_t n = size - 2;
  // The stream in an allocation of its own: a read past the end is caught.
  std::unique_ptr<uint8_t[]> stream(new uint8_t[n ? n : 1]);
  std::memcpy(stream.get(), data + 2, n);
  const size_t split = n == 0 ? 0 : data[0] % (n + 1);
  Parsed whole = ParseStream(stream.get(), n, n, max);
  Parsed cut = ParseStream(stream.get(), n, split, max);
  if (whole.frames != cut.frames || whole.bad != cut.bad)
    Fail("splitting the stream changed what was parsed");
  return 0;
}
