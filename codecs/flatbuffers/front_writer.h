// Writes a size-prefixed FlatBuffers buffer front to back, straight into
// memory sized beforehand (the frame), instead of back to front into a
// FlatBufferBuilder that is copied out afterwards.
//
// FlatBuffers does not require back-to-front order: a table's offset fields
// are unsigned distances to higher addresses, its vtable may lie anywhere
// (a signed distance), and flatbuffers::Verifier checks only bounds,
// alignment relative to the buffer start, and that offsets point forward.
// Writing a parent before its children therefore yields a buffer that
// verifies and reads like a builder-made one; the layout is the caller's:
// it places each table's vtable, fields and padding explicitly, and every
// piece it writes keeps the position 4-byte aligned (the widest scalar of
// wirebench.fbs), so scalars are aligned as the Verifier demands.
//
// Usage: compute the exact size with the same layout (BytesSize() and the
// table sizes), reserve it, then write: Header(), tables with Table() or
// SharedTable(), vectors with Bytes()/OffsetVector(), and the offsets from
// fields to what they point at with Offset().
// Thread-safety: a value type, one buffer at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "common/bytes.h"

namespace wirebench::fbfront {

// Size prefix, root offset and file identifier.
inline constexpr size_t kHeaderBytes = 12;

// Bytes a byte vector takes: its length, its bytes, padding to 4.
constexpr size_t BytesSize(size_t n) { return 4 + ((n + 3) & ~size_t(3)); }

// Bytes a table with `fields` vtable entries and a `table_bytes` table
// takes when written by Table(): padding, vtable, table.
constexpr size_t TableSize(size_t fields, size_t table_bytes) {
  const size_t vtable = 4 + 2 * fields;
  return ((vtable + 3) & ~size_t(3)) + table_bytes;
}

class FrontWriter {
 public:
  // `base` is where the buffer starts (its size prefix); `size` its exact size.
  FrontWriter(uint8_t* base, size_t size) : base_(base), size_(size) {}

  size_t position() const { return pos_; }
  bool complete() const { return pos_ == size_; }

  // The size prefix and identifier; the root offset is set by Root().
  void Header(const char identifier[4]) {
    StoreLE32(base_, uint32_t(size_ - 4));
    std::memcpy(base_ + 8, identifier, 4);
    pos_ = kHeaderBytes;
  }
  void Root(size_t table) { Offset(4, table); }

  // A vtable (its entries are the fields' byte offsets in the table, 0 for
  // an absent field) directly followed by a table of `table_bytes`, of which
  // only the vtable offset is written: the caller writes every other byte
  // (each field, and a one-byte field's padding with Byte()). Returns the
  // table's position.
  size_t Table(std::initializer_list<uint16_t> fields, uint16_t table_bytes) {
    const size_t vtable_bytes = 4 + 2 * fields.size();
    const size_t pad = (4 - vtable_bytes % 4) % 4;  // 0 or 2: vtables are even-sized.
    if (pad != 0) StoreLE16(base_ + pos_, 0);
    const size_t vtable = pos_ + pad;
    StoreLE16(base_ + vtable, uint16_t(vtable_bytes));
    StoreLE16(base_ + vtable + 2, table_bytes);
    size_t at = vtable + 4;
    for (uint16_t f : fields) {
      StoreLE16(base_ + at, f);
      at += 2;
    }
    pos_ = at;
    return SharedTable(vtable, table_bytes);
  }

  // A table using the vtable at `vtable` (one written before, by Table(),
  // for a table of the same shape); the caller writes its fields as for
  // Table(). Returns the table's position.
  size_t SharedTable(size_t vtable, uint16_t table_bytes) {
    const size_t table = pos_;
    StoreLE32(base_ + table, uint32_t(table - vtable));  // soffset: vtable = table - it.
    pos_ += table_bytes;
    return table;
  }
  // The position of the vtable a table written by Table() uses.
  size_t VtableOf(size_t table) const { return table - LoadLE32(base_ + table); }

  // A byte vector; returns its position (that of its length).
  size_t Bytes(ByteView v) {
    const size_t at = pos_;
    const size_t padded = BytesSize(v.size());
    StoreLE32(base_ + at + padded - 4, 0);  // The padding (the bytes overwrite the rest).
    StoreLE32(base_ + at, uint32_t(v.size()));
    CopySmall(base_ + at + 4, v.data(), v.size());
    pos_ += padded;
    return at;
  }

  // A vector of n offsets, to be set with Offset(element(i), target).
  // Returns its position.
  size_t OffsetVector(size_t n) {
    const size_t at = pos_;
    StoreLE32(base_ + at, uint32_t(n));
    pos_ += 4 + 4 * n;
    return at;
  }
  static size_t Element(size_t vector, size_t i) { return vector + 4 + 4 * i; }

  // Sets the offset field at `at` to point at `target` (which lies after it).
  void Offset(size_t at, size_t target) { StoreLE32(base_ + at, uint32_t(target - at)); }
  void U32(size_t at, uint32_t v) { StoreLE32(base_ + at, v); }
  // A one-byte field and the three bytes of padding after it (zeroed).
  void Byte(size_t at, uint8_t v) { StoreLE32(base_ + at, v); }

 private:
  uint8_t* base_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace wirebench::fbfront
