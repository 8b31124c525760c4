// libFuzzer target for one codec's request decoder or response decoder,
// built once per codec and direction (tests/fuzz/CMakeLists.txt defines
// WIREBENCH_FUZZ_CODEC_NAME, a registry name, and WIREBENCH_FUZZ_RESPONSE).
//
// Input: one byte choosing the method (Mutate, Get, Scan, Multi, low two
// bits), then the payload exactly as it would follow the call header. The
// decoder instance is kept across inputs, as a connection keeps its codec,
// so state left behind by a bad payload is exercised too. Whatever decodes
// is read field by field, re-encoded, decoded again by a second instance,
// and must come back the same.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>

#include "codecs/codec.h"
#include "tests/fuzz/fuzz_dump.h"

#ifndef WIREBENCH_FUZZ_CODEC_NAME
#error "define WIREBENCH_FUZZ_CODEC_NAME"
#endif
#ifndef WIREBENCH_FUZZ_RESPONSE
#error "define WIREBENCH_FUZZ_RESPONSE (0: requests, 1: responses)"
#endif

namespace wirebench::fuzz {
namespace {

std::unique_ptr<Codec> MakeCodec() {
  auto c = NewCodec(std::string_view(WIREBENCH_FUZZ_CODEC_NAME));
  if (!c.ok()) {
    std::fprintf(stderr, "%s\n", c.status().ToString().c_str());
    std::abort();
  }
  return std::move(c).value();
}

[[noreturn]] void Mismatch(const char* what, const std::string& a, const std::string& b) {
  std::fprintf(stderr, "round trip changed the %s:\nfirst:  %.2000s\nsecond: %.2000s\n", what,
               a.c_str(), b.c_str());
  std::abort();
}

template <typename Message>
void FuzzOne(Codec* codec, Codec* second, ByteView payload, const char* what) {
  Message m;
  Status s;
#if WIREBENCH_FUZZ_RESPONSE
  s = codec->DecodeResponse(payload, &m);
#else
  s = codec->DecodeRequest(payload, &m);
#endif
  if (!s.ok()) {
    if (s.message().empty()) {
      std::fprintf(stderr, "a decode error must say what was wrong\n");
      std::abort();
    }
    return;
  }
  const std::string first = Dump(m);  // Reads every byte the views point at.
  ByteBuffer again;
#if WIREBENCH_FUZZ_RESPONSE
  s = codec->EncodeResponse(1, m, &again);
#else
  s = codec->EncodeRequest(1, m, &again);
#endif
  if (!s.ok()) return;  // Some decodable messages are not encodable (limits).
  Message back;
#if WIREBENCH_FUZZ_RESPONSE
  s = second->DecodeResponse(again.view(), &back);
#else
  s = second->DecodeRequest(again.view(), &back);
#endif
  if (!s.ok()) {
    std::fprintf(stderr, "re-encoded %s does not decode: %s\n", what, s.ToString().c_str());
    std::abort();
  }
  const std::string second_dump = Dump(back);
  if (first != second_dump) Mismatch(what, first, second_dump);
}

}  // namespace
}  // namespace wirebench::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wirebench;
  static std::unique_ptr<Codec> codec = fuzz::MakeCodec();
  static std::unique_ptr<Codec> second = fuzz::MakeCodec();
  if (size < 1) return 0;
  // The payload in its own allocation, so a read past its end is caught.
  std::unique_ptr<uint8_t[]> copy(new uint8_t[size - 1]);
  if (size > 1) std::memcpy(copy.get(), data + 1, size - 1);
  const ByteView payload(copy.get(), size - 1);
  switch (data[0] & 3) {
#if WIREBENCH_FUZZ_RESPONSE
    case 0: fuzz::FuzzOne<MutateResponse>(codec.get(), second.get(), payload, "Mutate"); break;
    case 1: fuzz::FuzzOne<GetResponse>(codec.get(), second.get(), payload, "Get"); break;
    case 2: fuzz::FuzzOne<ScanResponse>(codec.get(), second.get(), payload, "Scan"); break;
    default: fuzz::FuzzOne<MultiResponse>(codec.get(), second.get(), payload, "Multi"); break;
#else
    case 0: fuzz::FuzzOne<MutateRequest>(codec.get(), second.get(), payload, "Mutate"); break;
    case 1: fuzz::FuzzOne<GetRequest>(codec.get(), second.get(), payload, "Get"); break;
    case 2: fuzz::FuzzOne<ScanRequest>(codec.get(), second.get(), payload, "Scan"); break;
    default: fuzz::FuzzOne<MultiRequest>(codec.get(), second.get(), payload, "Multi"); break;
#endif
  }
  return 0;
}
