// The wirebench wire format (docs/design.md, "Wire format"): the connection preamble and the
// length-prefixed call frame, with an incremental parser for each.
//
//   Preamble (client -> server, once): "WBNC" magic, u8 version, u8 codec id,
//   2 reserved bytes (zero).
//   Frame: u32 length (of everything after it), u32 call_id, u8 method,
//   u8 status, u16 flags, then the payload. All little-endian.
//
// The parsers are pure functions over the bytes received so far: they return
// kComplete with the frame's extent, kNeedMore, or kBad with a reason, and
// never look past the view they are given.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/bytes.h"
#include "common/calls.h"
#include "rpc/call_header.h"

namespace wirebench::wbrpc {

inline constexpr uint8_t kMagic[4] = {'W', 'B', 'N', 'C'};
inline constexpr uint8_t kProtocolVersion = 1;
inline constexpr size_t kPreambleSize = 8;
inline constexpr size_t kLengthSize = 4;
inline constexpr size_t kFixedHeaderSize = 8;  // call_id, method, status, flags.
inline constexpr size_t kFrameHeaderSize = kLengthSize + kFixedHeaderSize;

enum class ParseResult { kComplete, kNeedMore, kBad };

struct Preamble {
  uint8_t version = kProtocolVersion;
  uint8_t codec_id = 0;
};

// The call header as this framing carries it: the length word, then the
// call header (rpc/call_header.h).
struct FrameHeader : rpc::CallHeader {
  uint32_t length = 0;  // Bytes after the length word: fixed header + payload.
  size_t payload_size() const { return length - kFixedHeaderSize; }
};

struct Frame {
  FrameHeader header;
  ByteView payload;
  size_t total_size = 0;  // kLengthSize + header.length.
};

// Parses a preamble from the first bytes of a connection. Checks the magic
// and the reserved bytes; the version and codec are checked by the caller,
// which knows what it supports. On kBad, *why says what was wrong.
ParseResult ParsePreamble(ByteView in, Preamble* out, std::string* why);
void WritePreamble(uint8_t codec_id, ByteBuffer* out);

// Parses the frame at the start of `in`. A length below the fixed header
// size or above `max_length` is kBad (checked as soon as the length word is
// in, so an oversized frame is refused before it is buffered).
// Inline: every call crosses it on both sides.
inline ParseResult ParseFrame(ByteView in, uint32_t max_length, Frame* out, std::string* why);

// Appends a frame header with a zero length and returns its offset; the
// caller appends the payload and then calls EndFrame to fill in the length.
inline size_t BeginFrame(ByteBuffer* out, uint32_t call_id, uint8_t method, uint8_t status,
                         uint16_t flags = 0);
// REQUIRES: `offset` came from BeginFrame on the same buffer.
inline void EndFrame(ByteBuffer* out, size_t offset);
// Overwrites the status byte of the frame that starts at `offset`.
void SetFrameStatus(ByteBuffer* out, size_t offset, uint8_t status);
// Appends a whole frame whose payload is a readable reason (error replies).
void AppendErrorFrame(ByteBuffer* out, uint32_t call_id, uint8_t method, CallStatus status,
                      std::string_view reason);

// kBad, with the reason, for a length word ParseFrame refuses.
ParseResult RefuseFrameLength(uint32_t length, uint32_t max_length, std::string* why);

inline ParseResult ParseFrame(ByteView in, uint32_t max_length, Frame* out, std::string* why) {
  if (in.size() < kLengthSize) return ParseResult::kNeedMore;
  const uint32_t length = LoadLE32(in.data());
  if (length < kFixedHeaderSize || length > max_length) [[unlikely]]
    return RefuseFrameLength(length, max_length, why);
  // length >= kFixedHeaderSize, so this also waits for the whole header.
  if (in.size() - kLengthSize < length) return ParseResult::kNeedMore;
  const uint8_t* p = in.data() + kLengthSize;
  out->header.length = length;
  out->header.call_id = LoadLE32(p);
  out->header.method = p[4];
  out->header.status = p[5];
  out->header.flags = LoadLE16(p + 6);
  out->payload = ByteView(p + kFixedHeaderSize, length - kFixedHeaderSize);
  out->total_size = kLengthSize + length;
  return ParseResult::kComplete;
}

inline size_t BeginFrame(ByteBuffer* out, uint32_t call_id, uint8_t method, uint8_t status,
                         uint16_t flags) {
  const size_t offset = out->size();
  uint8_t* p = out->Extend(kFrameHeaderSize);
  StoreLE32(p, 0);
  StoreLE32(p + 4, call_id);
  p[8] = method;
  p[9] = status;
  StoreLE16(p + 10, flags);
  return offset;
}

inline void EndFrame(ByteBuffer* out, size_t offset) {
  StoreLE32(out->data() + offset, uint32_t(out->size() - offset - kLengthSize));
}

}  // namespace wirebench::wbrpc
