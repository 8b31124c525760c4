// The protobuf wire format at the byte level, for the codecs that read and
// write HBase's messages without generated classes (cellblock) and for the
// varint-delimited framing every protobuf codec uses (HBase's
// writeDelimitedTo / parseDelimitedFrom).
//
// ProtoReader walks the fields of one serialized message and returns
// length-delimited fields as views into the bytes it was given, so reading a
// row or a qualifier copies nothing. Every read is bounds-checked and fails
// (returns false) instead of reading past the end. ProtoWriter writes into
// memory the caller has already sized with the *Size() helpers, so nested
// messages get their lengths without a second pass over the output.
// Thread-safety: plain values and pure functions.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "common/bytes.h"

namespace wirebench::pb {

enum class WireType : uint8_t {
  kVarint = 0,
  kFixed64 = 1,
  kLen = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

// Bytes a varint of `v` takes (1..10).
inline size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}
inline size_t TagSize(uint32_t field) { return VarintSize(uint64_t(field) << 3); }
// Size of a varint field (tag + value).
inline size_t VarintFieldSize(uint32_t field, uint64_t v) { return TagSize(field) + VarintSize(v); }
// Size of a length-delimited field whose contents take `n` bytes.
inline size_t LenFieldSize(uint32_t field, size_t n) { return TagSize(field) + VarintSize(n) + n; }

inline uint8_t* WriteVarint(uint8_t* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = uint8_t(v | 0x80);
    v >>= 7;
  }
  *p++ = uint8_t(v);
  return p;
}

// Reads a varint of two to five bytes (any 32-bit value: a call id, a
// length) at p, which has five bytes to read and a first byte of 0x80 or
// more, with no bounds check per byte: the byte after it, or null when it
// is longer (the caller reads it byte by byte then).
inline const uint8_t* ReadVarint5(const uint8_t* p, uint64_t* v) {
  uint64_t r = p[0] & 0x7F;
  for (int i = 1; i < 5; ++i) {
    r |= uint64_t(p[i] & 0x7F) << (7 * i);
    if (p[i] < 0x80) {
      *v = r;
      return p + i + 1;
    }
  }
  return nullptr;
}

// Writes fields into memory sized beforehand; never allocates.
class ProtoWriter {
 public:
  explicit ProtoWriter(uint8_t* p) : p_(p) {}

  uint8_t* position() const { return p_; }
  void Varint(uint64_t v) { p_ = WriteVarint(p_, v); }
  void Tag(uint32_t field, WireType wt) { Varint((uint64_t(field) << 3) | uint64_t(wt)); }
  void VarintField(uint32_t field, uint64_t v) {
    Tag(field, WireType::kVarint);
    Varint(v);
  }
  // The tag and length of a nested message or bytes field; its contents follow.
  void LenHeader(uint32_t field, size_t n) {
    Tag(field, WireType::kLen);
    Varint(n);
  }
  // A bytes field. Returns the bytes copied, for copy accounting.
  size_t BytesField(uint32_t field, ByteView v) {
    LenHeader(field, v.size());
    Raw(v);
    return v.size();
  }
  void Raw(ByteView v) {
    if (v.empty()) return;
    std::memcpy(p_, v.data(), v.size());
    p_ += v.size();
  }

 private:
  uint8_t* p_;
};

// Reads the fields of one serialized message. Views point into the input.
class ProtoReader {
 public:
  explicit ProtoReader(ByteView in) : p_(in.data()), end_(in.data() + in.size()) {}

  bool done() const { return p_ == end_; }
  size_t remaining() const { return size_t(end_ - p_); }

  // The next field's number and wire type. False at a malformed tag (field
  // number 0 or above 2^29-1, or an unknown wire type); call only when !done().
  bool NextTag(uint32_t* field, WireType* wt) {
    uint64_t tag;
    if (!Varint(&tag) || tag > 0xFFFFFFFFu) return false;
    uint32_t f = uint32_t(tag >> 3);
    uint32_t t = uint32_t(tag & 7);
    if (f == 0 || t > 5) return false;
    *field = f;
    *wt = WireType(t);
    return true;
  }

  bool Varint(uint64_t* v) {
    // Most tags, lengths and counts are one byte.
    if (p_ != end_ && *p_ < 0x80) {
      *v = *p_++;
      return true;
    }
    uint64_t result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ == end_) return false;
      uint8_t b = *p_++;
      // The 10th byte may only carry the top bit of a 64-bit value.
      if (shift == 63 && b > 1) return false;
      result |= uint64_t(b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        *v = result;
        return true;
      }
    }
    return false;
  }
  // A varint that must fit in 32 bits unsigned (lengths, counts).
  bool Varint32(uint32_t* v) {
    uint64_t x;
    if (!Varint(&x) || x > 0xFFFFFFFFu) return false;
    *v = uint32_t(x);
    return true;
  }
  // The contents of a length-delimited field, as a view.
  bool Len(ByteView* v) {
    uint64_t n;
    if (!Varint(&n) || n > remaining()) return false;
    *v = ByteView(p_, size_t(n));
    p_ += n;
    return true;
  }
  // Skips a field's value. Groups (deprecated, unused by HBase) are refused.
  bool Skip(WireType wt) {
    uint64_t v;
    ByteView b;
    switch (wt) {
      case WireType::kVarint:
        return Varint(&v);
      case WireType::kFixed64:
        return Advance(8);
      case WireType::kLen:
        return Len(&b);
      case WireType::kFixed32:
        return Advance(4);
      default:
        return false;
    }
  }

 private:
  bool Advance(size_t n) {
    if (remaining() < n) return false;
    p_ += n;
    return true;
  }

  const uint8_t* p_;
  const uint8_t* end_;
};

// Reads one varint-delimited message from the front of *in: its bytes in
// *msg, and *in advanced past it.
inline bool ReadDelimited(ByteView* in, ByteView* msg) {
  ProtoReader r(*in);
  if (!r.Len(msg)) return false;
  in->RemovePrefix(in->size() - r.remaining());
  return true;
}

}  // namespace wirebench::pb
