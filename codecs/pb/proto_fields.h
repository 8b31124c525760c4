// Small helpers for reading protobuf messages field by field with
// ProtoReader (pb_wire.h), shared by the cellblock reader's files. Every
// failure is a Corruption status prefixed "cellblock: ".
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "codecs/hbase/pb_wire.h"
#include "common/bytes.h"
#include "common/status.h"

namespace wirebench::pb {

inline Status Bad(const char* what) {
  return Status::Corruption(std::string("cellblock: ") + what);
}

// Runs f(field, wire_type, reader) for every field of the message in `in`;
// f consumes the field's value (reading it, or skipping a field it does not
// know, as protobuf does) and returns a Status. Malformed tags fail with `what`.
template <typename F>
inline Status ForEachField(ByteView in, const char* what, F&& f) {
  ProtoReader r(in);
  while (!r.done()) {
    uint32_t field;
    WireType wt;
    if (!r.NextTag(&field, &wt)) return Bad(what);
    WB_RETURN_IF_ERROR(f(field, wt, r));
  }
  return Status::Ok();
}

// Field readers that fail with `what`.
inline Status VarintOf(ProtoReader& r, uint64_t* v, const char* what) {
  return r.Varint(v) ? Status::Ok() : Bad(what);
}
// A uint32 field: protobuf keeps the low 32 bits of a longer varint.
inline Status VarintOf(ProtoReader& r, uint32_t* v, const char* what) {
  uint64_t wide = 0;
  WB_RETURN_IF_ERROR(VarintOf(r, &wide, what));
  *v = uint32_t(wide);
  return Status::Ok();
}
inline Status LenOf(ProtoReader& r, ByteView* v, const char* what) {
  return r.Len(v) ? Status::Ok() : Bad(what);
}
inline Status SkipOf(ProtoReader& r, WireType wt, const char* what) {
  return r.Skip(wt) ? Status::Ok() : Bad(what);
}

}  // namespace wirebench::pb
