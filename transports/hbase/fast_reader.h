// The hot path's protobuf reader for `--rpc hbase`: HBase's RequestHeader,
// ResponseHeader and the params the codecs answer are small messages whose
// tags and most varints take one byte (field numbers below 16), so this
// reader takes that case (and values of up to five bytes: call ids) inline
// and falls back to pb::ProtoReader's general varint only for longer values. Views point into the input; no allocation.
// Thread-safety: a plain value.
#pragma once

#include <cstdint>

#include "codecs/hbase/pb_wire.h"
#include "common/bytes.h"

namespace wirebench::hbaserpc {

struct Fast {
  const uint8_t* p;
  const uint8_t* end;
  explicit Fast(ByteView in) : p(in.data()), end(in.data() + in.size()) {}
  bool done() const { return p == end; }
  [[gnu::always_inline]] bool Varint(uint64_t* v) {
    if (p < end && *p < 0x80) [[likely]] {
      *v = *p++;
      return true;
    }
    // Up to five bytes (a call id: its slot's generation is in the high
    // bits, so most take four or five).
    if (end - p >= 5) {
      if (const uint8_t* after = pb::ReadVarint5(p, v)) {
        p = after;
        return true;
      }
    }
    return SlowVarint(v);
  }
  [[gnu::noinline]] bool SlowVarint(uint64_t* v) {
    pb::ProtoReader r(ByteView(p, size_t(end - p)));
    if (!r.Varint(v)) return false;
    p = end - r.remaining();
    return true;
  }
  // The next field; *wt is the wire type.
  [[gnu::always_inline]] bool Tag(uint32_t* field, uint32_t* wt) {
    uint64_t t;
    if (!Varint(&t) || t > 0xFFFFFFFFu || (t >> 3) == 0) return false;
    *field = uint32_t(t >> 3);
    *wt = uint32_t(t & 7);
    return true;
  }
  [[gnu::always_inline]] bool Len(ByteView* v) {
    uint64_t n;
    if (!Varint(&n) || n > uint64_t(end - p)) return false;
    *v = ByteView(p, size_t(n));
    p += n;
    return true;
  }
  [[gnu::always_inline]] bool Skip(uint32_t wt) {
    uint64_t v;
    ByteView b;
    switch (wt) {
      case 0: return Varint(&v);
      case 1: return Advance(8);
      case 2: return Len(&b);
      case 5: return Advance(4);
      default: return false;
    }
  }
  bool Advance(size_t n) {
    if (size_t(end - p) < n) return false;
    p += n;
    return true;
  }
};


// Reads one varint-delimited message from the front of *in (advancing it).
inline bool FastDelimited(ByteView* in, ByteView* msg) {
  Fast r(*in);
  if (!r.Len(msg)) return false;
  *in = ByteView(r.p, size_t(r.end - r.p));
  return true;
}

}  // namespace wirebench::hbaserpc
