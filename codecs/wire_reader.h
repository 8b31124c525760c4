// A bounds-checked cursor over a payload, used by the hand-written decoders
// (raw, cellblock). Every read checks the remaining length first and fails
// instead of reading past the end; views it returns point into the payload.
// Thread-safety: a plain value.
#pragma once

#include <cstdint>

#include "common/bytes.h"

namespace wirebench {

class WireReader {
 public:
  explicit WireReader(ByteView in) : in_(in) {}

  size_t remaining() const { return in_.size(); }
  bool done() const { return in_.empty(); }
  const uint8_t* position() const { return in_.data(); }

  bool U8(uint8_t* v) {
    if (in_.size() < 1) return false;
    *v = in_[0];
    in_.RemovePrefix(1);
    return true;
  }
  bool U16BE(uint16_t* v) { return Fixed(2, v, [](const uint8_t* p) { return LoadBE16(p); }); }
  bool U32BE(uint32_t* v) { return Fixed(4, v, [](const uint8_t* p) { return LoadBE32(p); }); }
  bool U64BE(uint64_t* v) { return Fixed(8, v, [](const uint8_t* p) { return LoadBE64(p); }); }
  bool U32LE(uint32_t* v) { return Fixed(4, v, [](const uint8_t* p) { return LoadLE32(p); }); }
  bool U64LE(uint64_t* v) { return Fixed(8, v, [](const uint8_t* p) { return LoadLE64(p); }); }
  // A view of the next n bytes.
  bool Bytes(size_t n, ByteView* v) {
    if (in_.size() < n) return false;
    *v = in_.Sub(0, n);
    in_.RemovePrefix(n);
    return true;
  }
  // The next n bytes, as a pointer: for a decoder that checks the bounds of
  // several fixed fields at once.
  bool Take(size_t n, const uint8_t** p) {
    if (in_.size() < n) return false;
    *p = in_.data();
    in_.RemovePrefix(n);
    return true;
  }
  // A u32 little-endian length followed by that many bytes.
  bool LenBytesLE(ByteView* v) {
    uint32_t n;
    return U32LE(&n) && Bytes(n, v);
  }

 private:
  template <typename T, typename F>
  bool Fixed(size_t n, T* v, F load) {
    if (in_.size() < n) return false;
    *v = load(in_.data());
    in_.RemovePrefix(n);
    return true;
  }

  ByteView in_;
};

}  // namespace wirebench
