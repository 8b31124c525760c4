// HdrHistogram's V2 histogram encoding, its zlib-compressed wrapper and the
// base64 text form used in .hlog files, in both directions, so wirebench's
// histograms can be read by HdrHistogram's tools (HistogramLogProcessor,
// hdr_histogram_log.c) and histograms from several client processes can be
// merged (wirebench merge).
//
// V2 encoding (AbstractHistogram.encodeIntoByteBuffer), all big-endian:
//   int32 cookie 0x1c849313, int32 payload length, int32 normalizing index
//   offset (0), int32 significant digits, int64 lowest discernible value,
//   int64 highest trackable value, double integer-to-double ratio (1.0),
//   then the counts up to the bucket of the max value as ZigZag LEB128-64b9B
//   varints, a run of N > 1 empty buckets written as -N (a single empty
//   bucket as 0, as the Java writer does; both forms are read).
// Compressed (encodeIntoCompressedByteBuffer): int32 cookie 0x1c849314,
//   int32 length of the zlib stream, the zlib (RFC 1950) stream of the above.
//
// Decoding treats its input as untrusted: every cookie, length, layout
// parameter, varint and zero run is checked and any fault is a Corruption
// (or InvalidArgument/Unimplemented) Status, never a crash or an allocation
// larger than the layout the header describes.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hdr/histogram.h"
#include "common/bytes.h"
#include "common/status.h"

namespace wirebench::hdr {

inline constexpr uint32_t kV2EncodingCookie = 0x1c849313;
inline constexpr uint32_t kV2CompressedEncodingCookie = 0x1c849314;
inline constexpr size_t kV2HeaderSize = 40;
inline constexpr size_t kMaxZigZagBytes = 9;

// ZigZag LEB128-64b9B (HdrHistogram's ZigZagEncoding.putLong): 7 bits per
// byte, low first, high bit = more; the 9th byte carries 8 full bits.
// Appends 1..9 bytes to *out.
void PutZigZag(int64_t value, std::vector<uint8_t>* out);
// Reads one value from the front of *in and advances it. False when *in ends
// inside the value.
[[nodiscard]] bool GetZigZag(ByteView* in, int64_t* value);

// The uncompressed V2 form.
std::vector<uint8_t> EncodeV2(const Histogram& histogram);
// The compressed form; `zlib_level` as zlib's compress2 (HdrHistogram's log
// writer uses 9, Deflater.BEST_COMPRESSION).
std::vector<uint8_t> EncodeCompressed(const Histogram& histogram, int zlib_level = 9);
// Base64 (RFC 4648, with padding) of EncodeCompressed: the last column of an
// .hlog interval line.
std::string EncodeCompressedBase64(const Histogram& histogram, int zlib_level = 9);

[[nodiscard]] StatusOr<Histogram> DecodeV2(ByteView encoded);
[[nodiscard]] StatusOr<Histogram> DecodeCompressed(ByteView compressed);
[[nodiscard]] StatusOr<Histogram> DecodeCompressedBase64(std::string_view base64);

// RFC 4648 base64 with '=' padding. Decode rejects characters outside the
// alphabet, misplaced padding and lengths that are not a multiple of 4.
std::string Base64Encode(ByteView bytes);
[[nodiscard]] StatusOr<std::vector<uint8_t>> Base64Decode(std::string_view text);

}  // namespace wirebench::hdr
