#include "transports/wirebench/frame.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace wirebench::wbrpc {
namespace {

// A stream of three frames with different payload sizes, including empty.
ByteBuffer MakeStream(std::vector<Frame>* expect_headers) {
  ByteBuffer out;
  const std::string payloads[] = {"", "hello", std::string(300, '\xAB')};
  uint32_t id = 7;
  for (const std::string& p : payloads) {
    size_t off = BeginFrame(&out, id++, uint8_t(Method::kMutate), 0, 0x0102);
    out.Append(ByteView(p));
    EndFrame(&out, off);
    Frame f;
    f.header.length = uint32_t(kFixedHeaderSize + p.size());
    expect_headers->push_back(f);
  }
  return out;
}

TEST(Frame, ParsesEveryValidStreamSplitAtEveryByte) {
  std::vector<Frame> expect;
  ByteBuffer stream = MakeStream(&expect);
  for (size_t split = 0; split <= stream.size(); ++split) {
    // Feed the stream in two parts as a connection would: parse what has
    // arrived, keep the rest, and never look past it.
    ByteBuffer received;
    received.Append(stream.data(), split);
    std::vector<uint32_t> ids;
    auto drain = [&] {
      for (;;) {
        Frame f;
        std::string why;
        ParseResult r = ParseFrame(received.view(), rpc::kDefaultMaxCallBytes, &f, &why);
        ASSERT_NE(r, ParseResult::kBad) << why;
        if (r == ParseResult::kNeedMore) return;
        EXPECT_LE(f.total_size, received.size());
        EXPECT_TRUE(f.payload.Within(received.data(), received.size()));
        ids.push_back(f.header.call_id);
        EXPECT_EQ(f.header.method, uint8_t(Method::kMutate));
        EXPECT_EQ(f.header.flags, 0x0102);
        received.Consume(f.total_size);
      }
    };
    drain();
    received.Append(stream.data() + split, stream.size() - split);
    drain();
    EXPECT_EQ(received.size(), 0u) << "split " << split;
    EXPECT_EQ(ids, (std::vector<uint32_t>{7, 8, 9})) << "split " << split;
  }
}

TEST(Frame, RefusesOversizedFrameAsSoonAsLengthArrives) {
  uint8_t len[4];
  StoreLE32(len, 1025);
  Frame f;
  std::string why;
  EXPECT_EQ(ParseFrame(ByteView(len, 4), 1024, &f, &why), ParseResult::kBad);
  EXPECT_NE(why.find("exceeds the maximum"), std::string::npos) << why;
  StoreLE32(len, 1024);
  EXPECT_EQ(ParseFrame(ByteView(len, 4), 1024, &f, &why), ParseResult::kNeedMore);
  StoreLE32(len, 0xFFFFFFFFu);
  EXPECT_EQ(ParseFrame(ByteView(len, 4), rpc::kDefaultMaxCallBytes, &f, &why), ParseResult::kBad);
}

TEST(Frame, RefusesLengthShorterThanHeader) {
  for (uint32_t bad = 0; bad < kFixedHeaderSize; ++bad) {
    uint8_t len[4];
    StoreLE32(len, bad);
    Frame f;
    std::string why;
    EXPECT_EQ(ParseFrame(ByteView(len, 4), rpc::kDefaultMaxCallBytes, &f, &why), ParseResult::kBad) << bad;
  }
}

TEST(Frame, NeedsMoreForEveryPrefixOfAFrame) {
  ByteBuffer out;
  size_t off = BeginFrame(&out, 1, 2, 0);
  out.Append(ByteView("abcdef"));
  EndFrame(&out, off);
  for (size_t n = 0; n < out.size(); ++n) {
    Frame f;
    std::string why;
    EXPECT_EQ(ParseFrame(ByteView(out.data(), n), rpc::kDefaultMaxCallBytes, &f, &why),
              ParseResult::kNeedMore)
        << n;
  }
}

TEST(Preamble, RoundTripAndBadMagic) {
  ByteBuffer out;
  WritePreamble(3, &out);
  Preamble p;
  std::string why;
  for (size_t n = 0; n < kPreambleSize; ++n)
    EXPECT_EQ(ParsePreamble(ByteView(out.data(), n), &p, &why), ParseResult::kNeedMore);
  ASSERT_EQ(ParsePreamble(out.view(), &p, &why), ParseResult::kComplete);
  EXPECT_EQ(p.codec_id, 3);
  EXPECT_EQ(p.version, kProtocolVersion);

  EXPECT_EQ(ParsePreamble(ByteView("GET / HTTP/1.1\r\n"), &p, &why), ParseResult::kBad);
  EXPECT_NE(why.find("magic"), std::string::npos);
  EXPECT_EQ(ParsePreamble(ByteView("WX"), &p, &why), ParseResult::kBad);

  out.data()[6] = 1;
  EXPECT_EQ(ParsePreamble(out.view(), &p, &why), ParseResult::kBad);
  EXPECT_NE(why.find("reserved"), std::string::npos);
}

}  // namespace
}  // namespace wirebench::wbrpc
