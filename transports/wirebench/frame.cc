#include "transports/wirebench/frame.h"

#include <cstring>

namespace wirebench::wbrpc {

ParseResult ParsePreamble(ByteView in, Preamble* out, std::string* why) {
  // Check the magic byte by byte as it arrives, so a wrong peer (an HTTP
  // client, say) is refused without waiting for all eight bytes.
  size_t n = in.size() < 4 ? in.size() : 4;
  if (std::memcmp(in.data(), kMagic, n) != 0) {
    *why = "bad preamble: magic is not 'WBNC' (is this a wirebench client?)";
    return ParseResult::kBad;
  }
  if (in.size() < kPreambleSize) return ParseResult::kNeedMore;
  out->version = in[4];
  out->codec_id = in[5];
  if (in[6] != 0 || in[7] != 0) {
    *why = "bad preamble: reserved bytes must be zero";
    return ParseResult::kBad;
  }
  return ParseResult::kComplete;
}

void WritePreamble(uint8_t codec_id, ByteBuffer* out) {
  uint8_t* p = out->Extend(kPreambleSize);
  std::memcpy(p, kMagic, 4);
  p[4] = kProtocolVersion;
  p[5] = codec_id;
  p[6] = 0;
  p[7] = 0;
}

ParseResult RefuseFrameLength(uint32_t length, uint32_t max_length, std::string* why) {
  if (length < kFixedHeaderSize) {
    *why = "bad frame: length " + std::to_string(length) + " is shorter than the 8-byte call header";
  } else {
    *why = "frame of " + std::to_string(length) + " bytes exceeds the maximum of " +
           std::to_string(max_length) + " bytes";
  }
  return ParseResult::kBad;
}

void SetFrameStatus(ByteBuffer* out, size_t offset, uint8_t status) {
  out->data()[offset + kLengthSize + 5] = status;
}

void AppendErrorFrame(ByteBuffer* out, uint32_t call_id, uint8_t method, CallStatus status,
                      std::string_view reason) {
  size_t off = BeginFrame(out, call_id, method, uint8_t(status));
  out->Append(reason);
  EndFrame(out, off);
}

}  // namespace wirebench::wbrpc
