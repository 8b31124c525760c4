#include "hdr/histogram_encoding.h"

#include <zlib.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>

namespace wirebench::hdr {

namespace {

constexpr uint32_t kV0EncodingCookieBase = 0x1c849308;
constexpr uint32_t kV1EncodingCookieBase = 0x1c849301;
constexpr uint32_t kV0CompressedCookieBase = 0x1c849309;
constexpr uint32_t kV1CompressedCookieBase = 0x1c849302;
constexpr size_t kCompressedHeaderSize = 8;

std::string Hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%08x", v);
  return buf;
}

Status Corrupt(const std::string& what) { return Status::Corruption("hdr histogram: " + what); }

struct V2Header {
  int32_t payload_length = 0;
  HistogramOptions options;
  int32_t counts_array_length = 0;
};

Status ParseV2Header(const uint8_t* p, V2Header* header) {
  const uint32_t cookie = LoadBE32(p);
  if (cookie != kV2EncodingCookie) {
    const uint32_t base = cookie & ~0xf0u;
    if (base == kV0EncodingCookieBase || base == kV1EncodingCookieBase) {
      return Status::Unimplemented("hdr histogram: V0/V1 encodings (cookie " + Hex32(cookie) +
                                   ") are not supported; write the histogram with a current "
                                   "HdrHistogram (V2)");
    }
    return Corrupt("bad encoding cookie " + Hex32(cookie) + ", expected " + Hex32(kV2EncodingCookie));
  }
  header->payload_length = static_cast<int32_t>(LoadBE32(p + 4));
  const int32_t normalizing_offset = static_cast<int32_t>(LoadBE32(p + 8));
  header->options.significant_digits = static_cast<int32_t>(LoadBE32(p + 12));
  header->options.lowest_discernible_value = static_cast<int64_t>(LoadBE64(p + 16));
  header->options.highest_trackable_value = static_cast<int64_t>(LoadBE64(p + 24));
  const uint64_t ratio_bits = LoadBE64(p + 32);
  double ratio;
  std::memcpy(&ratio, &ratio_bits, sizeof(ratio));
  if (header->payload_length < 0) {
    return Corrupt("negative payload length " + std::to_string(header->payload_length));
  }
  if (normalizing_offset != 0) {
    return Status::Unimplemented("hdr histogram: non-zero normalizing index offset (" +
                                 std::to_string(normalizing_offset) +
                                 ", a shifted histogram) is not supported");
  }
  if (!std::isfinite(ratio) || ratio <= 0) {
    return Corrupt("integer-to-double conversion ratio is not a positive number");
  }
  StatusOr<BucketLayout> layout = ComputeBucketLayout(header->options);
  if (!layout.ok()) return Corrupt("header has an invalid layout: " + std::string(layout.status().message()));
  header->counts_array_length = layout->counts_array_length;
  if (static_cast<uint64_t>(header->payload_length) >
      kMaxZigZagBytes * static_cast<uint64_t>(header->counts_array_length)) {
    return Corrupt("payload length " + std::to_string(header->payload_length) +
                   " exceeds what " + std::to_string(header->counts_array_length) + " buckets can need");
  }
  return Status::Ok();
}

StatusOr<Histogram> DecodeCounts(const V2Header& header, ByteView payload) {
  StatusOr<Histogram> made = Histogram::Create(header.options);
  if (!made.ok()) return made.status();
  Histogram h = std::move(made).value();
  const int64_t length = h.counts_array_length();
  int64_t index = 0;
  int64_t total = 0;
  while (!payload.empty()) {
    int64_t v;
    if (!GetZigZag(&payload, &v)) return Corrupt("payload ends inside a varint");
    if (v < 0) {
      if (v == INT64_MIN || -v > length - index) {
        return Corrupt("zero run of " + std::to_string(v) + " at bucket " + std::to_string(index) +
                       " runs past the " + std::to_string(length) + " buckets");
      }
      index += -v;
      continue;
    }
    if (index >= length) return Corrupt("more counts than the " + std::to_string(length) + " buckets");
    if (v > INT64_MAX - total) return Corrupt("total count overflows 64 bits");
    total += v;
    h.AddCountAtIndex(static_cast<int32_t>(index), v);
    ++index;
  }
  return h;
}

struct InflateEnd {
  void operator()(z_stream* zs) const { inflateEnd(zs); }
};

}  // namespace

void PutZigZag(int64_t value, std::vector<uint8_t>* out) {
  uint64_t v = (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
  for (int i = 0; i < 8; ++i) {
    if ((v >> 7) == 0) {
      out->push_back(static_cast<uint8_t>(v));
      return;
    }
    out->push_back(static_cast<uint8_t>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<uint8_t>(v));  // 9th byte: the remaining 8 bits.
}

bool GetZigZag(ByteView* in, int64_t* value) {
  uint64_t v = 0;
  size_t i = 0;
  for (;; ++i) {
    if (i >= in->size()) return false;
    const uint64_t b = (*in)[i];
    if (i == 8) {
      v |= b << 56;
      break;
    }
    v |= (b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) break;
  }
  in->RemovePrefix(i + 1);
  *value = static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
  return true;
}

std::vector<uint8_t> EncodeV2(const Histogram& h) {
  std::vector<uint8_t> out(kV2HeaderSize);
  const int32_t counts_limit = std::max<int32_t>(h.MaxNonZeroIndex() + 1, 1);
  for (int32_t i = 0; i < counts_limit;) {
    const int64_t count = h.CountAtIndex(i++);
    int64_t zeros = 0;
    if (count == 0) {
      zeros = 1;
      while (i < counts_limit && h.CountAtIndex(i) == 0) {
        ++zeros;
        ++i;
      }
    }
    PutZigZag(zeros > 1 ? -zeros : count, &out);
  }
  uint8_t* p = out.data();
  StoreBE32(p, kV2EncodingCookie);
  StoreBE32(p + 4, static_cast<uint32_t>(out.size() - kV2HeaderSize));
  StoreBE32(p + 8, 0);  // Normalizing index offset.
  StoreBE32(p + 12, static_cast<uint32_t>(h.significant_digits()));
  StoreBE64(p + 16, static_cast<uint64_t>(h.lowest_discernible_value()));
  StoreBE64(p + 24, static_cast<uint64_t>(h.highest_trackable_value()));
  const double ratio = 1.0;
  uint64_t ratio_bits;
  std::memcpy(&ratio_bits, &ratio, sizeof(ratio_bits));
  StoreBE64(p + 32, ratio_bits);
  return out;
}

std::vector<uint8_t> EncodeCompressed(const Histogram& h, int zlib_level) {
  const std::vector<uint8_t> encoded = EncodeV2(h);
  uLongf compressed_length = compressBound(static_cast<uLong>(encoded.size()));
  std::vector<uint8_t> out(kCompressedHeaderSize + compressed_length);
  const int rc = compress2(out.data() + kCompressedHeaderSize, &compressed_length, encoded.data(),
                           static_cast<uLong>(encoded.size()), zlib_level);
  // compress2 into a compressBound-sized buffer fails only on a bad level or
  // out of memory, both programming or environment errors.
  assert(rc == Z_OK);
  (void)rc;
  out.resize(kCompressedHeaderSize + compressed_length);
  StoreBE32(out.data(), kV2CompressedEncodingCookie);
  StoreBE32(out.data() + 4, static_cast<uint32_t>(compressed_length));
  return out;
}

std::string EncodeCompressedBase64(const Histogram& h, int zlib_level) {
  const std::vector<uint8_t> compressed = EncodeCompressed(h, zlib_level);
  return Base64Encode(ByteView(compressed.data(), compressed.size()));
}

StatusOr<Histogram> DecodeV2(ByteView encoded) {
  if (encoded.size() < kV2HeaderSize) {
    return Corrupt("encoding of " + std::to_string(encoded.size()) + " bytes is shorter than its " +
                   std::to_string(kV2HeaderSize) + "-byte header");
  }
  V2Header header;
  WB_RETURN_IF_ERROR(ParseV2Header(encoded.data(), &header));
  if (encoded.size() - kV2HeaderSize != static_cast<size_t>(header.payload_length)) {
    return Corrupt("payload is " + std::to_string(encoded.size() - kV2HeaderSize) +
                   " bytes but the header says " + std::to_string(header.payload_length));
  }
  return DecodeCounts(header, encoded.Sub(kV2HeaderSize, encoded.size() - kV2HeaderSize));
}

StatusOr<Histogram> DecodeCompressed(ByteView compressed) {
  if (compressed.size() < kCompressedHeaderSize) {
    return Corrupt("compressed histogram of " + std::to_string(compressed.size()) +
                   " bytes is shorter than its 8-byte header");
  }
  const uint32_t cookie = LoadBE32(compressed.data());
  if (cookie != kV2CompressedEncodingCookie) {
    const uint32_t base = cookie & ~0xf0u;
    if (base == kV0CompressedCookieBase || base == kV1CompressedCookieBase) {
      return Status::Unimplemented("hdr histogram: V0/V1 compressed histograms (cookie " + Hex32(cookie) +
                                   ") are not supported");
    }
    return Corrupt("bad compression cookie " + Hex32(cookie) + ", expected " +
                   Hex32(kV2CompressedEncodingCookie));
  }
  const int32_t length = static_cast<int32_t>(LoadBE32(compressed.data() + 4));
  if (length < 0 || static_cast<size_t>(length) != compressed.size() - kCompressedHeaderSize) {
    return Corrupt("compressed length field says " + std::to_string(length) + " bytes but " +
                   std::to_string(compressed.size() - kCompressedHeaderSize) + " follow it");
  }
  z_stream zs;
  std::memset(&zs, 0, sizeof(zs));
  if (inflateInit(&zs) != Z_OK) return Status::Internal("hdr histogram: zlib inflateInit failed");
  std::unique_ptr<z_stream, InflateEnd> guard(&zs);
  zs.next_in = const_cast<Bytef*>(compressed.data() + kCompressedHeaderSize);
  zs.avail_in = static_cast<uInt>(length);

  // The header first, so the payload buffer is sized (and bounded) by it.
  uint8_t header_bytes[kV2HeaderSize];
  zs.next_out = header_bytes;
  zs.avail_out = kV2HeaderSize;
  int rc = inflate(&zs, Z_SYNC_FLUSH);
  if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
    return Corrupt(std::string("zlib stream is corrupt: ") + (zs.msg ? zs.msg : "inflate failed"));
  }
  if (zs.total_out != kV2HeaderSize) {
    return Corrupt("inflated data (" + std::to_string(zs.total_out) + " bytes) is shorter than the " +
                   std::to_string(kV2HeaderSize) + "-byte V2 header");
  }
  V2Header header;
  WB_RETURN_IF_ERROR(ParseV2Header(header_bytes, &header));
  // One spare byte, so a stream longer than the header says is caught.
  std::vector<uint8_t> payload(static_cast<size_t>(header.payload_length) + 1);
  size_t produced = 0;
  if (rc != Z_STREAM_END) {
    zs.next_out = payload.data();
    zs.avail_out = static_cast<uInt>(payload.size());
    rc = inflate(&zs, Z_FINISH);
    if (rc != Z_STREAM_END) {
      if (rc == Z_DATA_ERROR) {
        return Corrupt(std::string("zlib stream is corrupt: ") + (zs.msg ? zs.msg : "data error"));
      }
      return Corrupt("zlib stream is truncated or longer than the header's payload length " +
                     std::to_string(header.payload_length));
    }
    produced = payload.size() - zs.avail_out;
  }
  if (produced != static_cast<size_t>(header.payload_length)) {
    return Corrupt("inflated payload is " + std::to_string(produced) + " bytes but the header says " +
                   std::to_string(header.payload_length));
  }
  if (zs.avail_in != 0) return Corrupt("bytes follow the end of the zlib stream");
  return DecodeCounts(header, ByteView(payload.data(), produced));
}

StatusOr<Histogram> DecodeCompressedBase64(std::string_view base64) {
  StatusOr<std::vector<uint8_t>> bytes = Base64Decode(base64);
  if (!bytes.ok()) return bytes.status();
  return DecodeCompressed(ByteView(bytes->data(), bytes->size()));
}

namespace {
constexpr char kBase64Alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int Base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}
}  // namespace

std::string Base64Encode(ByteView bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t n = (uint32_t{bytes[i]} << 16) | (uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
    out += kBase64Alphabet[(n >> 18) & 63];
    out += kBase64Alphabet[(n >> 12) & 63];
    out += kBase64Alphabet[(n >> 6) & 63];
    out += kBase64Alphabet[n & 63];
  }
  const size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t n = uint32_t{bytes[i]} << 16;
    if (rest == 2) n |= uint32_t{bytes[i + 1]} << 8;
    out += kBase64Alphabet[(n >> 18) & 63];
    out += kBase64Alphabet[(n >> 12) & 63];
    out += rest == 2 ? kBase64Alphabet[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

StatusOr<std::vector<uint8_t>> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) {
    return Status::Corruption("base64: length " + std::to_string(text.size()) +
                              " is not a multiple of 4 (truncated?)");
  }
  std::vector<uint8_t> out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    int v[4];
    int padding = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = text[i + k];
      if (c == '=' && last && k >= 2) {
        v[k] = 0;
        ++padding;
        continue;
      }
      if (padding > 0 || (v[k] = Base64Value(c)) < 0) {
        return Status::Corruption("base64: invalid character at offset " + std::to_string(i + k));
      }
    }
    const uint32_t n = (uint32_t(v[0]) << 18) | (uint32_t(v[1]) << 12) | (uint32_t(v[2]) << 6) | uint32_t(v[3]);
    out.push_back(static_cast<uint8_t>(n >> 16));
    if (padding < 2) out.push_back(static_cast<uint8_t>(n >> 8));
    if (padding < 1) out.push_back(static_cast<uint8_t>(n));
  }
  return out;
}

}  // namespace wirebench::hdr
