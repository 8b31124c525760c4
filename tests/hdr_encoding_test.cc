// Tests for HdrHistogram's V2 encoding: hand-computed ZigZag LEB128 vectors,
// the exact header and payload bytes, an independent decoder written here
// from the format description that reads the project's output bucket by
// bucket, histograms written by HdrHistogram's Java library, round trips,
// and rejection of truncated and corrupt input.
#include "hdr/histogram_encoding.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace wirebench::hdr {
namespace {

constexpr uint64_t kSeed = 0xC0FFEE11;
using Bytes = std::vector<uint8_t>;

// ---- The independent decoder: base64 -> compressed wrapper -> zlib -> V2. ----

struct IndependentDecode {
  std::string error;
  int32_t significant_digits = 0;
  int64_t lowest = 0, highest = 0;
  double ratio = 0;
  std::vector<int64_t> counts;  // Bucket by bucket, up to the last one written.
};

IndependentDecode Failed(const char* why) {
  IndependentDecode r;
  r.error = why;
  return r;
}

Bytes TestBase64Decode(const std::string& s) {
  static const std::string kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  Bytes out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    if (c == '=') break;
    acc = (acc << 6) | static_cast<uint32_t>(kAlphabet.find(c));
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<uint8_t>(acc >> bits));
    }
  }
  return out;
}

uint64_t Be(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | p[i];
  return v;
}

IndependentDecode DecodeIndependently(const std::string& base64) {
  IndependentDecode r;
  const Bytes wrapped = TestBase64Decode(base64);
  if (wrapped.size() < 8 || Be(wrapped.data(), 4) != 0x1c849314) return Failed("compression cookie");
  const uint64_t zlen = Be(wrapped.data() + 4, 4);
  if (zlen != wrapped.size() - 8) return Failed("compressed length");
  Bytes v2(1 << 22);
  uLongf v2_len = v2.size();
  if (uncompress(v2.data(), &v2_len, wrapped.data() + 8, zlen) != Z_OK) return Failed("zlib");
  v2.resize(v2_len);
  if (v2.size() < 40 || Be(v2.data(), 4) != 0x1c849313) return Failed("encoding cookie");
  const uint64_t payload_len = Be(v2.data() + 4, 4);
  if (payload_len != v2.size() - 40) return Failed("payload length");
  if (Be(v2.data() + 8, 4) != 0) return Failed("normalizing offset");
  r.significant_digits = static_cast<int32_t>(Be(v2.data() + 12, 4));
  r.lowest = static_cast<int64_t>(Be(v2.data() + 16, 8));
  r.highest = static_cast<int64_t>(Be(v2.data() + 24, 8));
  const uint64_t ratio_bits = Be(v2.data() + 32, 8);
  std::memcpy(&r.ratio, &ratio_bits, 8);
  size_t pos = 40;
  while (pos < v2.size()) {
    // LEB128-64b9B as ZigZagEncoding.getLong reads it.
    uint64_t value = 0;
    int shift = 0;
    for (int n = 0;; ++n) {
      if (pos >= v2.size()) return Failed("truncated varint");
      const uint64_t b = v2[pos++];
      if (n == 8) {
        value |= b << 56;
        break;
      }
      value |= (b & 0x7f) << shift;
      shift += 7;
      if (!(b & 0x80)) break;
    }
    const int64_t decoded = static_cast<int64_t>(value >> 1) ^ -static_cast<int64_t>(value & 1);
    if (decoded < 0) {
      r.counts.insert(r.counts.end(), static_cast<size_t>(-decoded), 0);
    } else {
      r.counts.push_back(decoded);
    }
  }
  return r;
}

Histogram LognormalHistogram(uint64_t seed, int n) {
  std::printf("seed=%llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> latency(11.5, 1.2);
  Histogram h;
  for (int i = 0; i < n; ++i) h.Record(static_cast<int64_t>(latency(rng)));
  return h;
}

void ExpectSameCounts(const Histogram& a, const Histogram& b) {
  ASSERT_TRUE(a.SameLayout(b));
  for (int32_t i = 0; i < a.counts_array_length(); ++i) ASSERT_EQ(a.CountAtIndex(i), b.CountAtIndex(i)) << i;
  EXPECT_EQ(a.total_count(), b.total_count());
  EXPECT_EQ(a.Min(), b.Min());
  EXPECT_EQ(a.Max(), b.Max());
  EXPECT_DOUBLE_EQ(a.Mean(), b.Mean());
  for (double p : {0.0, 50.0, 99.0, 99.99, 100.0}) EXPECT_EQ(a.ValueAtPercentile(p), b.ValueAtPercentile(p));
}

Bytes Zz(int64_t v) {
  Bytes out;
  PutZigZag(v, &out);
  return out;
}

TEST(HdrZigZag, HandComputedVectors) {
  EXPECT_EQ(Zz(0), (Bytes{0x00}));
  EXPECT_EQ(Zz(1), (Bytes{0x02}));
  EXPECT_EQ(Zz(-1), (Bytes{0x01}));
  EXPECT_EQ(Zz(63), (Bytes{0x7e}));
  EXPECT_EQ(Zz(-64), (Bytes{0x7f}));
  EXPECT_EQ(Zz(64), (Bytes{0x80, 0x01}));
  EXPECT_EQ(Zz(-8), (Bytes{0x0f}));
  EXPECT_EQ(Zz(8191), (Bytes{0xfe, 0x7f}));
  EXPECT_EQ(Zz(300), (Bytes{0xd8, 0x04}));
  // 2^56 -> zigzag 2^57: eight continuation bytes with zero bits, then the
  // 9th byte with the top 8 bits (2) in full.
  EXPECT_EQ(Zz(int64_t{1} << 56), (Bytes{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02}));
  EXPECT_EQ(Zz(INT64_MAX), (Bytes{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}));
  EXPECT_EQ(Zz(INT64_MIN), (Bytes{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}));
}

TEST(HdrZigZag, RoundTripsAndDetectsTruncation) {
  std::mt19937_64 rng(kSeed);
  for (int i = 0; i < 10000; ++i) {
    const int64_t v = static_cast<int64_t>(rng()) >> (rng() % 64);
    Bytes b = Zz(v);
    ASSERT_LE(b.size(), kMaxZigZagBytes);
    ByteView in(b.data(), b.size());
    int64_t back;
    ASSERT_TRUE(GetZigZag(&in, &back));
    ASSERT_EQ(back, v);
    ASSERT_TRUE(in.empty());
    ByteView cut(b.data(), b.size() - 1);
    ASSERT_FALSE(GetZigZag(&cut, &back)) << v;
  }
}

TEST(HdrEncoding, HeaderAndPayloadBytes) {
  Histogram h;
  h.Record(1);
  h.Record(3);   // counts[0..3] = 0 1 0 1: single zeros are written as 0 (Java's writer).
  h.Record(10);  // counts[4..9] empty (a run of 6 -> -6), counts[10] = 1.
  const Bytes v2 = EncodeV2(h);
  const Bytes expected_header = {
      0x1c, 0x84, 0x93, 0x13,                          // cookie
      0x00, 0x00, 0x00, 0x06,                          // payload length
      0x00, 0x00, 0x00, 0x00,                          // normalizing index offset
      0x00, 0x00, 0x00, 0x03,                          // significant digits
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,  // lowest discernible value
      0x00, 0x00, 0x03, 0x46, 0x30, 0xb8, 0xa0, 0x00,  // highest trackable value (3.6e12)
      0x3f, 0xf0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // 1.0
  };
  ASSERT_EQ(v2.size(), 46u);
  EXPECT_EQ(Bytes(v2.begin(), v2.begin() + 40), expected_header);
  EXPECT_EQ(Bytes(v2.begin() + 40, v2.end()), (Bytes{0x00, 0x02, 0x00, 0x02, 0x0b, 0x02}));

  const Bytes empty = EncodeV2(Histogram());
  ASSERT_EQ(empty.size(), 41u);  // One zero count, as Java writes an empty histogram.
  EXPECT_EQ(empty[40], 0x00);

  const Bytes compressed = EncodeCompressed(h);
  EXPECT_EQ(Be(compressed.data(), 4), 0x1c849314u);
  EXPECT_EQ(Be(compressed.data() + 4, 4), compressed.size() - 8);
  EXPECT_EQ(compressed[8], 0x78);  // zlib (RFC 1950) header.
  EXPECT_EQ(EncodeCompressedBase64(h).substr(0, 6), "HISTFA");
}

TEST(HdrEncoding, IndependentDecoderReadsEveryBucket) {
  Histogram h = LognormalHistogram(kSeed + 2, 100000);
  h.Record(0);
  h.Record(3'600'000'000'000);
  const IndependentDecode d = DecodeIndependently(EncodeCompressedBase64(h));
  ASSERT_EQ(d.error, "");
  EXPECT_EQ(d.significant_digits, 3);
  EXPECT_EQ(d.lowest, 1);
  EXPECT_EQ(d.highest, 3'600'000'000'000);
  EXPECT_EQ(d.ratio, 1.0);
  ASSERT_EQ(static_cast<int32_t>(d.counts.size()), h.MaxNonZeroIndex() + 1);
  int64_t total = 0;
  for (int32_t i = 0; i < h.counts_array_length(); ++i) {
    const int64_t independent = i < static_cast<int32_t>(d.counts.size()) ? d.counts[static_cast<size_t>(i)] : 0;
    ASSERT_EQ(independent, h.CountAtIndex(i)) << "bucket " << i;
    total += independent;
  }
  EXPECT_EQ(total, 100002);
}

TEST(HdrEncoding, RoundTripsDefaultAndOtherLayouts) {
  const Histogram h = LognormalHistogram(kSeed + 3, 50000);
  StatusOr<Histogram> back = DecodeCompressedBase64(EncodeCompressedBase64(h));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectSameCounts(h, *back);

  const Bytes encoded = EncodeV2(h);
  StatusOr<Histogram> v2 = DecodeV2(ByteView(encoded.data(), encoded.size()));
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  ExpectSameCounts(h, *v2);

  StatusOr<Histogram> other = Histogram::Create({1000, 10'000'000'000, 2});
  ASSERT_TRUE(other.ok());
  for (int64_t v = 500; v < 20'000'000'000; v = v * 5 / 4 + 1) other->Record(v);
  // The very top bucket lies past highest_trackable_value; only index-based
  // decoding reproduces it.
  other->AddCountAtIndex(other->counts_array_length() - 1, 7);
  StatusOr<Histogram> other_back = DecodeCompressedBase64(EncodeCompressedBase64(*other, 1));
  ASSERT_TRUE(other_back.ok()) << other_back.status().ToString();
  ExpectSameCounts(*other, *other_back);

  StatusOr<Histogram> empty_back = DecodeCompressedBase64(EncodeCompressedBase64(Histogram()));
  ASSERT_TRUE(empty_back.ok());
  EXPECT_EQ(empty_back->total_count(), 0);
}

// Interval histograms written by HdrHistogram's Java HistogramLogWriter
// (HdrHistogram/HdrHistogram src/test/resources/org/HdrHistogram/
// tagged-non-monotonic.hlog, public domain), with their Interval_Max column
// (ms of a ns histogram).
struct JavaLine {
  const char* max_column;
  const char* base64;
};
constexpr JavaLine kJavaLines[] = {
    {"0.426", "HISTFAAAAD942pNpmSzMwMAgwwABTBDKT4GBgdnNYMcCBvsPEBE+Ph4OLgk5OSkeIS4+LgEeswIDo1+MbmdYNASYAA51CSo="},
    {"0.426", "HISTFAAAAD942pNpmSzMwMAgwwABTBDKT4GBgdnNYMcCBvsPEBExPiEpITEFGTkRKSEeOR6FkCg1hTeMXvNYlHhYABQ5CTo="},
    {"2.769", "HISTFAAAAEV42pNpmSzMwMCgyAABTBDKT4GBgdnNYMcCBvsPEBEJISEuATEZMQ4uASkhIR4nrxg9v2lMaxhvMekILGZkKmcCAEf2CsI="},
    {"0.442", "HISTFAAAAEJ42pNpmSzMwMAgxwABTBDKT4GBgdnNYMcCBvsPEBEWLj45FTExAT4pBSEBKa6UkAgBi1uM7xjfMMlwMDABAC0CCjM="},
    {"0.442", "HISTFAAAAEF42pNpmSzMwMAgxwABTBDKT4GBgdnNYMcCBvsPEBEWIS4FITEhDiEJERE+GT6ZkhZGLbl7jEqrWHREmFgAIbAJMw=="},
    {"0.459", "HISTFAAAAEJ42pNpmSzMwMCgwAABTBDKD8hndjPYsYDB/gNEhEtMQEBBTk5MQERCRkBEQEWlh9FJbg9jE+MS5ig1LhYmADkkCcE="},
};

TEST(HdrEncoding, ReadsHistogramsWrittenByHdrHistogramJava) {
  for (const JavaLine& line : kJavaLines) {
    StatusOr<Histogram> h = DecodeCompressedBase64(line.base64);
    ASSERT_TRUE(h.ok()) << h.status().ToString();
    EXPECT_GT(h->total_count(), 0);
    char max_ms[32];
    std::snprintf(max_ms, sizeof(max_ms), "%.3f", static_cast<double>(h->Max()) / 1e6);
    EXPECT_STREQ(max_ms, line.max_column);
    // Byte-for-byte: our V2 encoding of what we decoded equals the V2 bytes
    // Java compressed.
    const Bytes wrapped = TestBase64Decode(line.base64);
    Bytes java_v2(1 << 20);
    uLongf java_len = java_v2.size();
    ASSERT_EQ(uncompress(java_v2.data(), &java_len, wrapped.data() + 8, wrapped.size() - 8), Z_OK);
    java_v2.resize(java_len);
    EXPECT_EQ(EncodeV2(*h), java_v2);
    // And the independent decoder agrees with ours on every bucket.
    const IndependentDecode d = DecodeIndependently(line.base64);
    ASSERT_EQ(d.error, "");
    for (size_t i = 0; i < d.counts.size(); ++i) ASSERT_EQ(d.counts[i], h->CountAtIndex(static_cast<int32_t>(i)));
  }
}

constexpr int64_t kActualLength = INT64_MIN;

// A V2 encoding with the given header fields and raw payload, compressed.
Bytes CraftCompressed(const Bytes& payload, int32_t digits = 3, int64_t lowest = 1,
                      int64_t highest = 3'600'000'000'000, int64_t payload_len = kActualLength,
                      uint32_t cookie = 0x1c849313) {
  Bytes v2(40);
  StoreBE32(v2.data(), cookie);
  StoreBE32(v2.data() + 4, static_cast<uint32_t>(payload_len != kActualLength ? payload_len : int64_t(payload.size())));
  StoreBE32(v2.data() + 12, static_cast<uint32_t>(digits));
  StoreBE64(v2.data() + 16, static_cast<uint64_t>(lowest));
  StoreBE64(v2.data() + 24, static_cast<uint64_t>(highest));
  StoreBE64(v2.data() + 32, 0x3ff0000000000000ull);
  v2.insert(v2.end(), payload.begin(), payload.end());
  uLongf zlen = compressBound(v2.size());
  Bytes out(8 + zlen);
  EXPECT_EQ(compress2(out.data() + 8, &zlen, v2.data(), v2.size(), 6), Z_OK);
  out.resize(8 + zlen);
  StoreBE32(out.data(), 0x1c849314);
  StoreBE32(out.data() + 4, static_cast<uint32_t>(zlen));
  return out;
}

Status DecodeStatus(const Bytes& b) { return DecodeCompressed(ByteView(b.data(), b.size())).status(); }

TEST(HdrEncoding, CraftedHeadersAndPayloadsAreRejected) {
  ASSERT_TRUE(DecodeStatus(CraftCompressed(Zz(5))).ok());  // The crafting itself is valid.
  Bytes two_max = Zz(INT64_MAX);
  const Bytes again = Zz(INT64_MAX);
  two_max.insert(two_max.end(), again.begin(), again.end());
  const Bytes long_run = Zz(-40000);  // Past the 33792 buckets.
  Bytes too_many;
  for (int i = 0; i < 33793; ++i) too_many.push_back(0x02);
  const struct {
    const char* what;
    Bytes bytes;
  } cases[] = {
      {"zero run past the end", CraftCompressed(long_run)},
      {"INT64_MIN run", CraftCompressed(Zz(INT64_MIN))},
      {"more counts than buckets", CraftCompressed(too_many)},
      {"truncated varint", CraftCompressed(Bytes{0x80, 0x80})},
      {"total overflow", CraftCompressed(two_max)},
      {"digits 6", CraftCompressed(Zz(1), 6)},
      {"lowest 0", CraftCompressed(Zz(1), 3, 0)},
      {"highest < 2 lowest", CraftCompressed(Zz(1), 3, 10, 15)},
      {"payload longer than header", CraftCompressed(Zz(1), 3, 1, 3'600'000'000'000, 0)},
      {"payload shorter than header", CraftCompressed(Zz(1), 3, 1, 3'600'000'000'000, 5)},
      {"negative payload length", CraftCompressed(Zz(1), 3, 1, 3'600'000'000'000, INT32_MIN)},
      {"huge payload length", CraftCompressed(Zz(1), 3, 1, 3'600'000'000'000, INT32_MAX)},
      {"bad encoding cookie", CraftCompressed(Zz(1), 3, 1, 3'600'000'000'000, kActualLength, 0x12345678)},
      {"V1 encoding cookie", CraftCompressed(Zz(1), 3, 1, 3'600'000'000'000, kActualLength, 0x1c849301)},
  };
  for (const auto& c : cases) {
    const Status s = DecodeStatus(c.bytes);
    EXPECT_FALSE(s.ok()) << c.what;
    EXPECT_FALSE(s.message().empty()) << c.what;
  }
}

TEST(HdrEncoding, TruncatedAndCorruptInputsFailCleanly) {
  const Histogram h = LognormalHistogram(kSeed + 4, 5000);
  const Bytes good = EncodeCompressed(h);
  for (size_t n = 0; n < good.size(); ++n) {
    EXPECT_FALSE(DecodeStatus(Bytes(good.begin(), good.begin() + n)).ok()) << "truncated to " << n;
  }
  Bytes trailing = good;
  trailing.push_back(0);
  EXPECT_FALSE(DecodeStatus(trailing).ok());
  Bytes cookie = good;
  cookie[3] ^= 0x01;
  EXPECT_EQ(DecodeStatus(cookie).code(), Status::Code::kCorruption);
  Bytes length = good;
  length[7] ^= 0x01;
  EXPECT_FALSE(DecodeStatus(length).ok());
  // Every single-byte flip either fails with a Status or, where deflate
  // ignores the bits, decodes to the very same histogram; it never crashes.
  int failed = 0;
  for (size_t i = 0; i < good.size(); ++i) {
    Bytes flipped = good;
    flipped[i] ^= 0x5a;
    StatusOr<Histogram> r = DecodeCompressed(ByteView(flipped.data(), flipped.size()));
    if (!r.ok()) {
      ++failed;
      continue;
    }
    ExpectSameCounts(h, *r);
  }
  EXPECT_GT(failed, static_cast<int>(good.size()) - 4);

  // Uncompressed V2 input is checked too.
  const Bytes v2 = EncodeV2(h);
  for (size_t n : {size_t{0}, size_t{39}, size_t{40}, v2.size() - 1}) {
    EXPECT_FALSE(DecodeV2(ByteView(v2.data(), n)).ok()) << n;
  }
}

TEST(HdrBase64, EncodesAndRejectsBadText) {
  EXPECT_EQ(Base64Encode(ByteView("")), "");
  EXPECT_EQ(Base64Encode(ByteView("f")), "Zg==");
  EXPECT_EQ(Base64Encode(ByteView("fo")), "Zm8=");
  EXPECT_EQ(Base64Encode(ByteView("foo")), "Zm9v");
  EXPECT_EQ(Base64Encode(ByteView("foobar")), "Zm9vYmFy");
  StatusOr<Bytes> d = Base64Decode("Zm9vYg==");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(std::string(d->begin(), d->end()), "foob");
  EXPECT_FALSE(Base64Decode("Zm9").ok());       // Length not a multiple of 4.
  EXPECT_FALSE(Base64Decode("Zm9*").ok());      // Not in the alphabet.
  EXPECT_FALSE(Base64Decode("Z=9v").ok());      // Misplaced padding.
  EXPECT_FALSE(Base64Decode("Zg==Zm9v").ok());  // Padding before the end.
  EXPECT_FALSE(DecodeCompressedBase64("HISTFAAAAD94!").ok());
}

}  // namespace
}  // namespace wirebench::hdr
