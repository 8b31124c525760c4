// The `writable` codec (id 7): HBase 0.94's Writable RPC serialization of the
// same calls (codecs/writable/README.md). A request payload is 0.94's
// Invocation (method name, client version, parameters written by
// HbaseObjectWritable with their class codes); a response payload is the
// HbaseObjectWritable of the method's return value. Put, Delete, Get, Scan,
// Result, MultiAction and MultiResponse are written field for field as 0.94's
// write() methods wrote them: big-endian Java DataOutput, Hadoop vints,
// Bytes.writeByteArray (vint length + bytes) and KeyValues with their 4-byte
// length. The call id, length and error flag 0.94 put around them are the
// frame's (transports/wirebench/frame.h).
//
// Encoding sizes the payload exactly, reserves it once and writes through a
// pointer: each payload byte is copied once (a cell's row is copied into
// every KeyValue, as 0.94 did). Decoding checks every length and count and
// returns views into the payload: nothing is copied.
// Thread-safety: one instance per connection or handler thread.
#pragma once

#include <memory>

#include "codecs/codec.h"

namespace wirebench {

std::unique_ptr<Codec> NewWritableCodec();

}  // namespace wirebench
