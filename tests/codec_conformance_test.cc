// The conformance suite every codec in the registry must pass. It is
// instantiated over Codecs(), so a codec listed in codecs/codec_registry.cc
// is covered without touching this file. Inputs: Cases() in
// tests/codec_test_messages.h.
//
// Payloads are decoded where the RPC layer leaves them: after a 12-byte frame
// header, in a heap block that ends exactly at the payload's last byte, so
// AddressSanitizer reports any read past the end.
//
// What "rejected" means per codec is the registry entry's DecodeGuarantees
// (codecs/codec.h; each codec's folder defines its entry):
//  - Truncation: a codec that promises it must reject every proper prefix;
//    any other must fail or decode exactly the original message.
//  - Random garbage: a codec that promises it must reject every input (>= 16
//    bytes); any other may accept at most 1%. Whatever is accepted must be
//    sane (views readable, inside the payload for zero-copy codecs, valid
//    cell types).
#include <gtest/gtest.h>
#include <sanitizer/asan_interface.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "codecs/codec.h"
#include "common/thread_stats.h"
#include "transports/wirebench/frame.h"
#include "tests/codec_test_messages.h"

namespace wirebench {
namespace {

using testing::AnyMessage;
using testing::Cases;
using testing::MessageCase;
using testing::SameMessage;

constexpr uint32_t kCallId = testing::kTestCallId;
constexpr uint64_t kGarbageSeed = 20240611;
constexpr uint64_t kCorruptionSeed = 4242;

// A payload placed after a frame header, in a block that ends where it ends.
class FramedPayload {
 public:
  explicit FramedPayload(ByteView payload, size_t offset = wbrpc::kFrameHeaderSize)
      : block_(new uint8_t[offset + payload.size()]), offset_(offset), size_(payload.size()) {
    std::memset(block_.get(), 0xEE, offset);
    if (size_) std::memcpy(block_.get() + offset, payload.data(), size_);
  }
  ~FramedPayload() { ASAN_UNPOISON_MEMORY_REGION(block_.get() + offset_, size_); }
  ByteView view() const { return ByteView(block_.get() + offset_, size_); }

  // The payload's first `len` bytes, the rest made unreadable under
  // AddressSanitizer (until the next call): a decoder reading past them is
  // caught as if the block ended there. One block for every prefix of a
  // payload: a block per prefix costs ASan a fresh mapping each time, which
  // made the truncation test take minutes.
  ByteView Prefix(size_t len) {
    ASAN_UNPOISON_MEMORY_REGION(block_.get() + offset_, size_);
    ASAN_POISON_MEMORY_REGION(block_.get() + offset_ + len, size_ - len);
    return ByteView(block_.get() + offset_, len);
  }

 private:
  std::unique_ptr<uint8_t[]> block_;
  size_t offset_, size_;
};

using testing::kIsRequest;

using testing::Decode;
using testing::Encode;

// Encodes after a frame header already in the buffer, as the RPC layer
// does, checks the header was left alone, and returns the payload alone.
template <typename M>
std::string EncodePayload(Codec& c, const M& m) {
  ByteBuffer out;
  out.Append(std::string(wbrpc::kFrameHeaderSize, '\xAB').data(), wbrpc::kFrameHeaderSize);
  Status s = Encode(c, m, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_GE(out.size(), wbrpc::kFrameHeaderSize);
  for (size_t i = 0; i < wbrpc::kFrameHeaderSize && i < out.size(); ++i)
    EXPECT_EQ(out.data()[i], 0xAB) << "encode overwrote byte " << i << " before the payload";
  return std::string(out.view().chars() + wbrpc::kFrameHeaderSize,
                     out.size() - wbrpc::kFrameHeaderSize);
}

std::string EncodeAny(Codec& c, const AnyMessage& m) {
  return std::visit([&](const auto& msg) { return EncodePayload(c, msg); }, m);
}

// `payload` decodes with `codec` to the same message as `want`; `where` leads
// a failure's message.
void ExpectDecodesTo(Codec& codec, ByteView payload, const AnyMessage& want,
                     const std::string& where = "") {
  std::visit(
      [&](const auto& w) {
        std::decay_t<decltype(w)> got;
        const Status s = Decode(codec, payload, &got);
        ASSERT_TRUE(s.ok()) << where << s.ToString();
        EXPECT_TRUE(SameMessage(w, got)) << where;
      },
      want);
}

// Reads every byte of every view (so ASan sees bad views) and checks what a
// decoded message must satisfy even when it came from garbage.
template <typename M>
::testing::AssertionResult Sane(const Codec& codec, ByteView payload, const M& m) {
  uint64_t sum = 0;
  std::string bad;
  testing::ForEachView(m, [&](ByteView v) {
    for (uint8_t b : v) sum += b;
    if (codec.zero_copy_decode() && !v.empty() && !v.Within(payload.data(), payload.size()) &&
        bad.empty())
      bad = "a view outside the payload: " + testing::Show(v);
  });
  auto check_cells = [&](std::span<const Cell> cells) {
    for (const Cell& c : cells)
      if (!IsValidCellType(uint8_t(c.type)) && bad.empty()) bad = "an invalid cell type";
  };
  if constexpr (std::is_same_v<M, MutateRequest>) check_cells(m.mutation.cells);
  if constexpr (std::is_same_v<M, GetResponse>) check_cells(m.result.cells);
  if constexpr (std::is_same_v<M, ScanResponse>)
    for (const Result& r : m.results) check_cells(r.cells);
  volatile uint64_t sink = sum;  // Keeps the reads.
  (void)sink;
  if (bad.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "decoded message has " << bad;
}

class CodecConformance : public ::testing::TestWithParam<const CodecInfo*> {
 protected:
  std::unique_ptr<Codec> NewInstance() const { return GetParam()->factory(); }
  const DecodeGuarantees& guarantees() const { return GetParam()->guarantees; }
};

TEST_P(CodecConformance, RoundTripsEveryMessageAndEncodesDeterministically) {
  auto encoder = NewInstance();
  auto decoder = NewInstance();
  EXPECT_EQ(encoder->name(), GetParam()->name());
  EXPECT_EQ(encoder->id(), GetParam()->id);
  for (const MessageCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    std::string payload = EncodeAny(*encoder, c.message);
    EXPECT_EQ(EncodeAny(*encoder, c.message), payload) << "a reused encoder changed its output";
    FramedPayload framed(payload);
    ExpectDecodesTo(*decoder, framed.view(), c.message);
  }
}

TEST_P(CodecConformance, DecodedViewsPointIntoThePayloadIffZeroCopy) {
  auto codec = NewInstance();
  for (const MessageCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    FramedPayload framed(EncodeAny(*codec, c.message));
    ByteView p = framed.view();
    std::visit(
        [&](const auto& want) {
          std::decay_t<decltype(want)> got;
          ASSERT_TRUE(Decode(*codec, p, &got).ok());
          auto check = [&](std::span<const Cell> cells) {
            for (const Cell& cell : cells) {
              if (codec->zero_copy_decode()) {
                testing::ForEachView(cell, [&](ByteView v) {
                  if (!v.empty()) {
                    EXPECT_TRUE(v.Within(p.data(), p.size())) << testing::Show(v);
                  }
                });
              } else if (!cell.value.empty()) {
                EXPECT_FALSE(cell.value.Within(p.data(), p.size())) << "a copying codec's value "
                                                                       "points into the payload";
              }
            }
          };
          using M = std::decay_t<decltype(got)>;
          if constexpr (std::is_same_v<M, MutateRequest>) check(got.mutation.cells);
          if constexpr (std::is_same_v<M, GetResponse>) check(got.result.cells);
          if constexpr (std::is_same_v<M, ScanResponse>)
            for (const Result& r : got.results) check(r.cells);
          if constexpr (std::is_same_v<M, MultiRequest>)
            for (const Action& a : got.actions) check(a.mutation.cells);
          if constexpr (std::is_same_v<M, MultiResponse>)
            for (const ActionResult& r : got.results) check(r.result.cells);
        },
        c.message);
  }
}

// The prefix lengths tried for a payload of n bytes: all of them up to 16 KiB,
// else the first and last 2 KiB and 512 spread between.
std::vector<size_t> PrefixLengths(size_t n) {
  std::vector<size_t> out;
  if (n <= (16u << 10)) {
    for (size_t i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  for (size_t i = 0; i < 2048; ++i) out.push_back(i);
  for (size_t i = 1; i < 512; ++i) out.push_back(2048 + (n - 4096) * i / 512);
  for (size_t i = n - 2048; i < n; ++i) out.push_back(i);
  return out;
}

TEST_P(CodecConformance, EveryTruncationIsRejected) {
  auto encoder = NewInstance();
  auto decoder = NewInstance();
  const bool strict = guarantees().rejects_every_truncation;
  for (const MessageCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    const std::string payload = EncodeAny(*encoder, c.message);
    std::visit(
        [&](const auto& want) {
          using M = std::decay_t<decltype(want)>;
          size_t accepted = 0;
          FramedPayload framed(payload);
          for (size_t len : PrefixLengths(payload.size())) {
            M got;
            Status s = Decode(*decoder, framed.Prefix(len), &got);
            if (s.ok()) {
              ++accepted;
              ASSERT_FALSE(strict) << "a " << len << "-byte prefix of a " << payload.size()
                                   << "-byte payload decoded as OK";
              ASSERT_TRUE(SameMessage(want, got)) << "prefix " << len << " decoded differently";
            }
          }
          // The decoder must still work after all those errors.
          FramedPayload whole(payload);
          M got;
          ASSERT_TRUE(Decode(*decoder, whole.view(), &got).ok());
          EXPECT_TRUE(SameMessage(want, got));
          if (!strict) RecordProperty(c.name + "_accepted_prefixes", int(accepted));
        },
        c.message);
  }
}

template <typename M>
void DecodeGarbage(Codec& codec, bool strict, std::mt19937_64& rng, int trials) {
  int accepted = 0;
  std::uniform_int_distribution<size_t> len_dist(16, 1024);
  for (int t = 0; t < trials; ++t) {
    std::string bytes(len_dist(rng), '\0');
    for (char& b : bytes) b = char(rng());
    FramedPayload framed(bytes);
    M got;
    if (Decode(codec, framed.view(), &got).ok()) {
      ++accepted;
      EXPECT_FALSE(strict) << "garbage input " << t << " (" << bytes.size()
                           << " bytes) decoded as OK";
      EXPECT_TRUE(Sane(codec, framed.view(), got)) << "garbage input " << t;
    }
  }
  EXPECT_LE(accepted, trials / 100) << "too much garbage accepted";
}

TEST_P(CodecConformance, RandomGarbageIsRejected) {
  std::printf("garbage seed: %llu\n", static_cast<unsigned long long>(kGarbageSeed));
  std::mt19937_64 rng(kGarbageSeed);
  auto codec = NewInstance();
  const bool strict = guarantees().rejects_all_garbage;
  constexpr int kTrials = 500;
  DecodeGarbage<MutateRequest>(*codec, strict, rng, kTrials);
  DecodeGarbage<GetRequest>(*codec, strict, rng, kTrials);
  DecodeGarbage<ScanRequest>(*codec, strict, rng, kTrials);
  DecodeGarbage<MultiRequest>(*codec, strict, rng, kTrials);
  DecodeGarbage<MutateResponse>(*codec, strict, rng, kTrials);
  DecodeGarbage<GetResponse>(*codec, strict, rng, kTrials);
  DecodeGarbage<ScanResponse>(*codec, strict, rng, kTrials);
  DecodeGarbage<MultiResponse>(*codec, strict, rng, kTrials);
}

// Valid payloads with a few bytes overwritten: these reach deep into a
// decoder (past any magic or size check), so they are where an unchecked
// offset or length would read out of bounds. Any result is allowed except a
// crash or an insane message.
TEST_P(CodecConformance, CorruptedEncodingsNeverReadOutOfBounds) {
  std::printf("corruption seed: %llu\n", static_cast<unsigned long long>(kCorruptionSeed));
  std::mt19937_64 rng(kCorruptionSeed);
  auto codec = NewInstance();
  for (const MessageCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    std::string payload = EncodeAny(*codec, c.message);
    if (payload.empty() || payload.size() > (8u << 10)) continue;
    std::visit(
        [&](const auto& want) {
          using M = std::decay_t<decltype(want)>;
          for (int t = 0; t < 300; ++t) {
            std::string bad = payload;
            const int flips = 1 + int(rng() % 4);
            for (int f = 0; f < flips; ++f) bad[rng() % bad.size()] = char(rng());
            FramedPayload framed(bad);
            M got;
            if (Decode(*codec, framed.view(), &got).ok()) {
              ASSERT_TRUE(Sane(*codec, framed.view(), got)) << "corruption " << t;
            }
          }
        },
        c.message);
  }
}

TEST_P(CodecConformance, OneDecoderReusedAcrossMessagesStaysCorrect) {
  auto encoder = NewInstance();
  auto decoder = NewInstance();
  std::vector<std::string> payloads;
  for (const MessageCase& c : Cases()) payloads.push_back(EncodeAny(*encoder, c.message));
  // Forward, backward, then big/small interleaved: scratch left over from a
  // larger or different message must never leak into the next result.
  std::vector<size_t> order;
  const size_t n = Cases().size();
  for (size_t i = 0; i < n; ++i) order.push_back(i);
  for (size_t i = n; i-- > 0;) order.push_back(i);
  for (size_t i = 0; i < n; ++i) order.push_back(i % 2 ? i : n - 1 - i);
  for (size_t i : order) {
    const MessageCase& c = Cases()[i];
    SCOPED_TRACE(c.name);
    FramedPayload framed(payloads[i]);
    ExpectDecodesTo(*decoder, framed.view(), c.message);
  }
}

const AnyMessage& CaseNamed(std::string_view name) {
  for (const MessageCase& c : Cases())
    if (c.name == name) return c.message;
  ADD_FAILURE() << "no case " << name;
  return Cases()[0].message;
}

TEST_P(CodecConformance, CarriesTheSameLogicalContent) {
  auto codec = NewInstance();
  FramedPayload put(EncodeAny(*codec, CaseNamed("put_1k")));
  MutateRequest req;
  ASSERT_TRUE(codec->DecodeRequest(put.view(), &req).ok());
  MessageSize s = SizeOf(req.mutation);
  EXPECT_EQ(s.cells, 10u);
  EXPECT_EQ(s.value_bytes, 1000u);
  EXPECT_EQ(s.key_bytes, 10u * (23 + 6 + 6));  // row "user"+19 digits, "family", "fieldN".
  for (const Cell& c : req.mutation.cells) EXPECT_EQ(c.value.size(), 100u);

  FramedPayload get(EncodeAny(*codec, CaseNamed("get_1k")));
  GetResponse resp;
  ASSERT_TRUE(codec->DecodeResponse(get.view(), &resp).ok());
  s = SizeOf(resp.result);
  EXPECT_EQ(s.cells, 10u);
  EXPECT_EQ(s.value_bytes, 1000u);
  EXPECT_TRUE(resp.result.exists);
}

TEST_P(CodecConformance, DecodesAtEveryPayloadAlignment) {
  auto codec = NewInstance();
  for (const char* name : {"put_1k", "get_all_bytes", "multi_response_mixed"}) {
    SCOPED_TRACE(name);
    const AnyMessage& m = CaseNamed(name);
    std::string payload = EncodeAny(*codec, m);
    for (size_t offset = 0; offset < 16; ++offset) {
      FramedPayload framed(payload, offset);
      ExpectDecodesTo(*codec, framed.view(), m, "offset " + std::to_string(offset) + " ");
    }
  }
}

// The RPC layer appends a frame wherever its send buffer ends (after other
// frames, or after a partial write's remainder), so a codec must encode
// correctly after a prefix of any length, not only at the 12 bytes of a
// buffer's first frame (capnp, for one, builds in place only where that
// leaves its segment 8-byte aligned, and copies otherwise).
TEST_P(CodecConformance, EncodesAfterAPrefixOfAnyLength) {
  auto encoder = NewInstance();
  auto decoder = NewInstance();
  for (const char* name : {"put_1k", "get_all_bytes", "multi_response_mixed"}) {
    SCOPED_TRACE(name);
    const AnyMessage& m = CaseNamed(name);
    const std::string want = EncodeAny(*encoder, m);
    for (size_t prefix = 0; prefix < 16; ++prefix) {
      ByteBuffer out;
      out.Append(std::string(prefix, '\xCD').data(), prefix);
      std::visit([&](const auto& msg) { ASSERT_TRUE(Encode(*encoder, msg, &out).ok()); }, m);
      for (size_t i = 0; i < prefix; ++i) ASSERT_EQ(out.data()[i], 0xCD) << "prefix " << prefix;
      const std::string payload(out.view().chars() + prefix, out.size() - prefix);
      EXPECT_EQ(payload, want) << "prefix " << prefix << " changed the encoding";
      FramedPayload framed(payload);
      ExpectDecodesTo(*decoder, framed.view(), m, "prefix " + std::to_string(prefix) + " ");
    }
  }
}

// raw copies a Result's qualifiers and values at once when they sit in one
// block in cell order (as the null region's canned record does), one by one
// otherwise: the bytes on the wire are the same either way.
TEST(RawCodec, AResultInOneBlockEncodesAsTheSameCellsApart) {
  auto codec = NewCodec("raw");
  ASSERT_TRUE(codec.ok());
  const std::string row = "user42", family = "family";
  std::vector<std::string> apart;  // Each qualifier and value a string of its own.
  std::string block;               // The same bytes, one after another.
  for (int i = 0; i < 5; ++i) {
    apart.push_back("field" + std::to_string(i));
    apart.push_back(std::string(size_t(40 + i), char('a' + i)));
    block += apart[apart.size() - 2] + apart.back();
  }
  auto result_of = [&](auto view_of) {
    std::vector<Cell> cells(5);
    for (size_t i = 0; i < cells.size(); ++i) {
      cells[i].row = ByteView(row);
      cells[i].family = ByteView(family);
      cells[i].timestamp = 7 + i;
      cells[i].qualifier = view_of(2 * i);
      cells[i].value = view_of(2 * i + 1);
    }
    return cells;
  };
  const std::vector<Cell> separate = result_of([&](size_t k) { return ByteView(apart[k]); });
  size_t at = 0;
  const std::vector<Cell> contiguous = result_of([&](size_t k) {
    const ByteView v(reinterpret_cast<const uint8_t*>(block.data()) + at, apart[k].size());
    at += apart[k].size();
    return v;
  });
  ASSERT_EQ(contiguous.front().qualifier.data() + block.size(), contiguous.back().value.end());
  GetResponse a, b;
  a.result = Result{separate, true};
  b.result = Result{contiguous, true};
  const std::string bytes = EncodeAny(**codec, a);
  EXPECT_EQ(EncodeAny(**codec, b), bytes);
  // The same block, said to be one by the region that built it.
  const CellRun run{ByteView(block), contiguous.size()};
  ASSERT_TRUE(run.Describes(contiguous));
  GetResponse said;
  said.result = Result{contiguous, true, run};
  EXPECT_EQ(EncodeAny(**codec, said), bytes);
  // A filter that drops a cell keeps the run in its copy of the Result: the
  // run no longer describes the cells, and the cells are what is written.
  std::vector<Cell> kept = contiguous, kept_apart = separate;
  kept.erase(kept.begin() + 2);
  kept_apart.erase(kept_apart.begin() + 2);
  ASSERT_FALSE(run.Describes(kept));
  GetResponse filtered, filtered_apart;
  filtered.result = Result{kept, true, run};
  filtered_apart.result = Result{kept_apart, true};
  EXPECT_EQ(EncodeAny(**codec, filtered), EncodeAny(**codec, filtered_apart));
  EXPECT_EQ(bytes.size(), 1 + (4 + row.size()) + (4 + family.size()) + 4 + 5 * 17 + block.size());
  // The qualifiers and values follow every cell's fixed fields, in cell order.
  EXPECT_EQ(bytes.substr(bytes.size() - block.size()), block);
  FramedPayload framed(bytes);
  GetResponse got;
  ASSERT_TRUE((*codec)->DecodeResponse(framed.view(), &got).ok());
  ASSERT_EQ(got.result.cells.size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(got.result.cells[i].qualifier.ToString(), apart[2 * i]);
    EXPECT_EQ(got.result.cells[i].value.ToString(), apart[2 * i + 1]);
    EXPECT_EQ(got.result.cells[i].timestamp, 7 + i);
  }
}

TEST_P(CodecConformance, CountsItsCopiesHonestly) {
  auto codec = NewInstance();
  const auto& put = std::get<MutateRequest>(CaseNamed("put_1k"));
  CounterTotals before = ThisThreadTotals();
  std::string payload = EncodePayload(*codec, put);
  CounterTotals enc = ThisThreadTotals() - before;
  // Every codec copies each value byte at least once into the send buffer.
  EXPECT_GE(enc.encode_copied, 1000u);
  EXPECT_EQ(enc.decode_copied, 0u);

  FramedPayload framed(payload);
  MutateRequest got;
  before = ThisThreadTotals();
  ASSERT_TRUE(codec->DecodeRequest(framed.view(), &got).ok());
  CounterTotals dec = ThisThreadTotals() - before;
  EXPECT_EQ(dec.encode_copied, 0u);
  if (codec->zero_copy_decode()) {
    EXPECT_EQ(dec.decode_copied, 0u);
  } else {
    EXPECT_GE(dec.decode_copied, 1000u);
  }
}

std::vector<const CodecInfo*> RegisteredCodecs() {
  std::vector<const CodecInfo*> out;
  return {Codecs().begin(), Codecs().end()};
}

INSTANTIATE_TEST_SUITE_P(AllCodecs, CodecConformance, ::testing::ValuesIn(RegisteredCodecs()),
                         [](const ::testing::TestParamInfo<const CodecInfo*>& info) {
                           std::string name(info.param->name());
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// ---- Codec-specific promises ----

// Decodes the 1 KB put once to warm the codec's scratch, then counts.
CounterTotals SteadyStateDecode(std::string_view codec_name, size_t offset) {
  auto codec = NewCodec(codec_name);
  EXPECT_TRUE(codec.ok());
  std::string payload = EncodeAny(**codec, CaseNamed("put_1k"));
  FramedPayload framed(payload, offset);
  MutateRequest got;
  EXPECT_TRUE((*codec)->DecodeRequest(framed.view(), &got).ok());
  CounterTotals before = ThisThreadTotals();
  EXPECT_TRUE((*codec)->DecodeRequest(framed.view(), &got).ok());
  CounterTotals d = ThisThreadTotals() - before;
  EXPECT_EQ(got.mutation.cells.size(), 10u);
  return d;
}

// raw and flatbuffers decode as views into the payload.
TEST(ZeroCopyCodecs, DecodeOf1KbPutAllocatesAndCopiesNothing) {
  ASSERT_TRUE(AllocationCountingActive());
  for (const char* name : {"raw", "flatbuffers"}) {
    SCOPED_TRACE(name);
    CounterTotals d = SteadyStateDecode(name, wbrpc::kFrameHeaderSize);
    EXPECT_EQ(d.allocs, 0u);
    EXPECT_EQ(d.decode_copied, 0u);
  }
}

// A region's Result is one row of one family: raw writes both once, then
// each cell's fixed fields, then every qualifier and value (codecs/raw/raw_codec.cc).
TEST(RawCodec, AResultOfOneRowAndOneFamilyCarriesThemOnce) {
  auto codec = NewCodec("raw");
  ASSERT_TRUE(codec.ok());
  const size_t cell = 8 + 1 + 4 + 4 + 6 + 100;  // ts, type, lengths, "fieldN", value.
  EXPECT_EQ(EncodeAny(**codec, CaseNamed("get_1k")).size(),
            1 + (4 + 23) + (4 + 6) + 4 + 10 * cell);
  // Equal bytes at other addresses count as one family too; two families do not.
  EXPECT_EQ(EncodeAny(**codec, CaseNamed("get_one_family_copied")).size(),
            1 + (4 + 5) + (4 + 3) + 4 + 2 * (17 + 2) + 7);
  EXPECT_EQ(EncodeAny(**codec, CaseNamed("get_two_families_copied")).size(),
            1 + (4 + 5) + 4 + 4 * (17 + 2 + 4 + 3) + 42);
}

TEST(FlatBuffersCodec, MisalignedPayloadIsCopiedOnceAndCounted) {
  std::string payload;
  {
    auto codec = NewCodec("flatbuffers");
    payload = EncodeAny(**codec, CaseNamed("put_1k"));
  }
  CounterTotals d = SteadyStateDecode("flatbuffers", wbrpc::kFrameHeaderSize + 1);
  EXPECT_EQ(d.allocs, 0u);
  EXPECT_EQ(d.decode_copied, payload.size());
}

// Encodes `req` twice (the first warms the codec) and returns the second's counters.
template <typename Request>
CounterTotals SteadyStateFlatBuffersEncode(const Request& req, std::string* payload) {
  auto codec = NewCodec("flatbuffers");
  EXPECT_TRUE(codec.ok());
  ByteBuffer out(64 << 10);
  EXPECT_TRUE((*codec)->EncodeRequest(kCallId, req, &out).ok());  // Warm-up.
  out.Clear();
  CounterTotals before = ThisThreadTotals();
  EXPECT_TRUE((*codec)->EncodeRequest(kCallId, req, &out).ok());
  CounterTotals d = ThisThreadTotals() - before;
  payload->assign(out.view().chars(), out.size());
  return d;
}

// Decodes the payload at a 4-byte aligned and at an unaligned address.
template <typename Request>
void ExpectFlatBuffersDecodesTo(const std::string& payload, const Request& want) {
  auto codec = NewCodec("flatbuffers");
  ASSERT_TRUE(codec.ok());
  for (size_t offset : {wbrpc::kFrameHeaderSize, wbrpc::kFrameHeaderSize + 1}) {
    FramedPayload framed(payload, offset);
    Request got;
    ASSERT_TRUE((*codec)->DecodeRequest(framed.view(), &got).ok());
    EXPECT_TRUE(SameMessage(want, got));
  }
}

// A put is written front to back straight into the frame: every byte string
// once (the shared family once for all cells), nothing through a builder.
TEST(FlatBuffersCodec, EncodesAPutStraightIntoTheFrameCopyingEachStringOnce) {
  const auto& put = std::get<MutateRequest>(CaseNamed("put_1k"));
  std::string payload;
  CounterTotals d = SteadyStateFlatBuffersEncode(put, &payload);
  EXPECT_EQ(d.allocs, 0u);
  EXPECT_EQ(d.encode_copied, 23u + 6 + 10 * 6 + 1000);
  ExpectFlatBuffersDecodesTo(payload, put);
}

TEST(FlatBuffersCodec, EncodesALongValueOnceStraightIntoTheFrame) {
  const auto& put = std::get<MutateRequest>(CaseNamed("put_1mib_value"));
  ASSERT_EQ(put.mutation.cells.size(), 1u);
  const Cell& c = put.mutation.cells[0];
  ASSERT_EQ(c.value.size(), size_t(1) << 20);
  std::string payload;
  CounterTotals d = SteadyStateFlatBuffersEncode(put, &payload);
  EXPECT_EQ(d.allocs, 0u);
  EXPECT_EQ(d.encode_copied,
            c.value.size() + put.mutation.row.size() + c.family.size() + c.qualifier.size());
  ExpectFlatBuffersDecodesTo(payload, put);
}

// Calls other than puts and get answers go through FlatBufferBuilder: short
// strings are copied into the builder and with it into the frame (twice),
// long ones (512 bytes or more) are gathered straight from the message
// between the builder's bytes (once). Ten 1,000-byte values in a Multi.
TEST(FlatBuffersCodec, BuilderCallsGatherLongValuesBetweenTheirStructure) {
  testing::MessageStore st;
  const MutateRequest put{testing::YcsbPut(&st, 7, 10, 1000)};
  const Action action{0, ActionKind::kMutation, put.mutation, {}};
  const MultiRequest multi{std::span<const Action>(&action, 1)};
  std::string payload;
  CounterTotals d = SteadyStateFlatBuffersEncode(multi, &payload);
  EXPECT_EQ(d.allocs, 0u);
  EXPECT_EQ(d.encode_copied, 10u * 1000 + 2 * (put.mutation.row.size() + 6 + 10 * 6));
  ExpectFlatBuffersDecodesTo(payload, multi);
}

TEST(FlatBuffersCodec, RejectsAPayloadOfAnotherMethod) {
  auto codec = NewCodec("flatbuffers");
  ASSERT_TRUE(codec.ok());
  FramedPayload framed(EncodeAny(**codec, CaseNamed("get_columns")));
  MutateRequest got;
  Status s = (*codec)->DecodeRequest(framed.view(), &got);
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_NE(s.message().find("expected a MutateRequest payload, got GetRequest"),
            std::string_view::npos)
      << s.ToString();
}

// Every registry entry is named by its codec folder's CMakeLists.txt
// (wirebench_codec_names), which is how the build makes per-codec targets such
// as the fuzz targets, and the folders name nothing the registry lacks.
TEST(CodecRegistry, CodecFoldersNameExactlyTheRegisteredCodecs) {
  std::vector<std::string> from_build;
  std::string_view list = WIREBENCH_BUILD_CODEC_NAMES;
  while (!list.empty()) {
    const size_t comma = std::min(list.find(','), list.size());
    from_build.emplace_back(list.substr(0, comma));
    list.remove_prefix(std::min(comma + 1, list.size()));
  }
  std::vector<std::string> registered;
  for (const CodecInfo* c : Codecs()) registered.emplace_back(c->name());
  std::sort(from_build.begin(), from_build.end());
  std::sort(registered.begin(), registered.end());
  EXPECT_EQ(from_build, registered)
      << "add wirebench_codec_names(<name>) to the codec folder's CMakeLists.txt";
}

// Every registry entry has a summary, a unique name and id, and makes a
// codec that reports them.
TEST(CodecRegistry, EntriesAreUniqueAndDescribed) {
  std::set<std::string_view> names;
  std::set<uint8_t> ids;
  for (const CodecInfo* c : Codecs()) {
    EXPECT_TRUE(names.insert(c->name()).second) << c->name();
    EXPECT_TRUE(ids.insert(uint8_t(c->id)).second) << c->name();
    EXPECT_FALSE(c->summary().empty()) << c->name();
    auto codec = c->factory();
    EXPECT_EQ(codec->name(), c->name());
    EXPECT_EQ(codec->id(), c->id);
  }
}

}  // namespace
}  // namespace wirebench
