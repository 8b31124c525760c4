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
#include <cstring>
#include <optional>

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

// keylength minus the variable parts: rowlength, familylength, timestamp, type.
inline constexpr uint32_t kKeyFixedBytes = 2 + 1 + 8 + 1;
inline constexpr uint32_t kMaxJavaInt = 0x7FFFFFFFu;

// True when the cell, written with `row` as its row, fits KeyValue's length
// fields: the test every encoder runs per cell, inline and without building a
// Status. CheckKeyValue() says which limit a cell breaks.
inline bool FitsKeyValue(ByteView row, const Cell& c) {
  return row.size() <= kMaxRowBytes && c.family.size() <= kMaxFamilyBytes &&
         uint64_t(kKeyFixedBytes) + row.size() + c.family.size() + c.qualifier.size() +
                 c.value.size() + 8 <=
             kMaxJavaInt;
}

// OK when FitsKeyValue(row, c); InvalidArgument naming the limit otherwise.
Status CheckKeyValue(ByteView row, const Cell& c);

// Bytes WriteKeyValue() writes for the cell, length prefix included.
// REQUIRES: FitsKeyValue(row, c)
inline size_t KeyValueBytes(ByteView row, const Cell& c) {
  return kMinKeyValueBytes + row.size() + c.family.size() + c.qualifier.size() + c.value.size();
}

// Writes the length-prefixed KeyValue of `c` with `row` as its row at p and
// returns the end. Counts nothing; the caller accounts for the copy.
// REQUIRES: KeyValueBytes(row, c) bytes of room at p.
inline uint8_t* WriteKeyValue(uint8_t* p, ByteView row, const Cell& c) {
  const uint32_t key = uint32_t(kKeyFixedBytes + row.size() + c.family.size() + c.qualifier.size());
  const uint32_t value = uint32_t(c.value.size());
  StoreBE32(p, 8 + key + value);
  StoreBE32(p + 4, key);
  StoreBE32(p + 8, value);
  StoreBE16(p + 12, uint16_t(row.size()));
  p += 14;
  CopySmall(p, row.data(), row.size());
  p += row.size();
  *p++ = uint8_t(c.family.size());
  CopySmall(p, c.family.data(), c.family.size());
  p += c.family.size();
  CopySmall(p, c.qualifier.data(), c.qualifier.size());
  p += c.qualifier.size();
  StoreBE64(p, c.timestamp);
  p[8] = uint8_t(c.type);
  p += 9;
  CopySmall(p, c.value.data(), c.value.size());
  return p + c.value.size();
}

// Reads the KeyValue in kv[0, total) (after its length prefix) into *c, as
// views into kv. False when the bytes are not a well-formed KeyValue (lengths
// that disagree or overrun, a negative Java int, an unknown type).
// One bounds check: the caller has checked that `total` bytes are there, and
// once the key and value lengths add up to it every field lies inside them,
// so fields are read by pointer with only the lengths checked against each
// other (not a remaining-size check per field, as a WireReader read does).
inline bool ParseKeyValue(const uint8_t* kv, uint32_t total, Cell* c) {
  if (total < 8) return false;
  const uint8_t* p = kv;
  const uint32_t key = LoadBE32(p);
  const uint32_t value = LoadBE32(p + 4);
  if (key > kMaxJavaInt || value > kMaxJavaInt) return false;
  if (uint64_t(key) + value + 8 != total || key < kKeyFixedBytes) return false;
  p += 8;
  const uint32_t row_len = LoadBE16(p);
  uint32_t rest = key - 2;  // Bytes of the key after rowlength.
  if (row_len > kMaxRowBytes || row_len + 1 + 8 + 1 > rest) return false;
  c->row = ByteView(p + 2, row_len);
  p += 2 + row_len;
  rest -= row_len + 1;
  const uint32_t family_len = *p++;
  if (family_len > kMaxFamilyBytes || family_len + 8 + 1 > rest) return false;
  c->family = ByteView(p, family_len);
  p += family_len;
  rest -= family_len;
  c->qualifier = ByteView(p, rest - 9);
  p += rest - 9;
  c->timestamp = LoadBE64(p);
  const uint8_t type = p[8];
  if (!IsValidCellType(type)) return false;
  c->type = CellType(type);
  c->value = ByteView(p + 9, value);
  return true;
}

// Reads one length-prefixed KeyValue from r into *c, as views into the
// block. False, with r in an unspecified position, when the bytes are not a
// well-formed KeyValue.
inline bool ReadKeyValue(WireReader& r, Cell* c) {
  uint32_t total;
  ByteView kv;
  return r.U32BE(&total) && r.Bytes(total, &kv) && ParseKeyValue(kv.data(), total, c);
}

// Reads n length-prefixed KeyValues from the start of `block` into
// cells[0, n) and returns the bytes they took; nullopt when one is malformed
// or overruns the block.
inline std::optional<size_t> ReadKeyValues(ByteView block, Cell* cells, size_t n) {
  const uint8_t* const begin = block.data();
  const uint8_t* const end = begin + block.size();
  const uint8_t* p = begin;
  for (size_t i = 0; i < n; ++i) {
    if (end - p < 4) return std::nullopt;
    const uint32_t total = LoadBE32(p);
    p += 4;
    if (total > size_t(end - p) || !ParseKeyValue(p, total, &cells[i])) return std::nullopt;
    p += total;
  }
  return size_t(p - begin);
}

}  // namespace wirebench::pb
