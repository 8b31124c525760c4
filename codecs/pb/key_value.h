// HBase's KeyValue cell encoding, as KeyValueCodec writes a cell block: per
// cell a 4-byte length, then the KeyValue itself:
//   int keylength, int valuelength,
//   key   = short rowlength, row, byte familylength, family,
//           qualifier (length implied), long timestamp, byte type,
//   value.
// All integers big-endian. Reading returns views into the block, so a
// decoded cell copies nothing.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codecs/message.h"
#include "codecs/wire_reader.h"
#include "common/bytes.h"
#include "common/status.h"

namespace wirebench::pb {

// Bytes of a KeyValue with empty row, family, qualifier and value, counting
// its 4-byte length prefix: the least a cell can take in a cell block.
inline constexpr size_t kMinKeyValueBytes = 4 + 4 + 4 + 2 + 1 + 8 + 1;
// HBase's limits: the row length is a Java short, the family length a byte.
inline constexpr size_t kMaxRowBytes = 32767;
inline constexpr size_t kMaxFamilyBytes = 127;

// OK when the cell, written with `row` as its row, fits KeyValue's length
// fields; InvalidArgument naming the limit otherwise.
Status CheckKeyValue(ByteView row, const Cell& c);

// Bytes WriteKeyValue() writes for the cell, length prefix included.
// REQUIRES: CheckKeyValue(row, c).ok()
inline size_t KeyValueBytes(ByteView row, const Cell& c) {
  return kMinKeyValueBytes + row.size() + c.family.size() + c.qualifier.size() + c.value.size();
}

// Writes the length-prefixed KeyValue of `c` with `row` as its row at p and
// returns the end. Counts nothing; the caller accounts for the copy.
// REQUIRES: KeyValueBytes(row, c) bytes of room at p.
uint8_t* WriteKeyValue(uint8_t* p, ByteView row, const Cell& c);

// Reads one length-prefixed KeyValue from r into *c, as views into the
// block. False, with r in an unspecified position, when the bytes are not a
// well-formed KeyValue (lengths that disagree or overrun, a negative Java
// int, an unknown type).
bool ReadKeyValue(WireReader& r, Cell* c);

}  // namespace wirebench::pb
