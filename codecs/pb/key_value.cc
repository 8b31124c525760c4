#include "codecs/pb/key_value.h"

#include <string>

namespace wirebench::pb {

namespace {
constexpr uint32_t kMaxJavaInt = 0x7FFFFFFFu;
// keylength - (rowlength, familylength, timestamp, type fields).
constexpr uint32_t kKeyFixedBytes = 2 + 1 + 8 + 1;
}  // namespace

Status CheckKeyValue(ByteView row, const Cell& c) {
  if (row.size() > kMaxRowBytes)
    return Status::InvalidArgument("cellblock: row of " + std::to_string(row.size()) +
                                   " bytes exceeds KeyValue's limit of 32767");
  if (c.family.size() > kMaxFamilyBytes)
    return Status::InvalidArgument("cellblock: family of " + std::to_string(c.family.size()) +
                                   " bytes exceeds KeyValue's limit of 127");
  uint64_t key = kKeyFixedBytes + row.size() + c.family.size() + c.qualifier.size();
  if (key + c.value.size() + 8 > kMaxJavaInt)
    return Status::InvalidArgument("cellblock: cell exceeds KeyValue's 2 GiB limit");
  return Status::Ok();
}

uint8_t* WriteKeyValue(uint8_t* p, ByteView row, const Cell& c) {
  uint32_t key = uint32_t(kKeyFixedBytes + row.size() + c.family.size() + c.qualifier.size());
  uint32_t value = uint32_t(c.value.size());
  StoreBE32(p, 8 + key + value);
  StoreBE32(p + 4, key);
  StoreBE32(p + 8, value);
  StoreBE16(p + 12, uint16_t(row.size()));
  p += 14;
  if (!row.empty()) std::memcpy(p, row.data(), row.size());
  p += row.size();
  *p++ = uint8_t(c.family.size());
  if (!c.family.empty()) std::memcpy(p, c.family.data(), c.family.size());
  p += c.family.size();
  if (!c.qualifier.empty()) std::memcpy(p, c.qualifier.data(), c.qualifier.size());
  p += c.qualifier.size();
  StoreBE64(p, c.timestamp);
  p[8] = uint8_t(c.type);
  p += 9;
  if (!c.value.empty()) std::memcpy(p, c.value.data(), c.value.size());
  return p + c.value.size();
}

bool ReadKeyValue(WireReader& r, Cell* c) {
  uint32_t total, key, value;
  if (!r.U32BE(&total) || total > r.remaining() || total < 8) return false;
  if (!r.U32BE(&key) || !r.U32BE(&value) || key > kMaxJavaInt || value > kMaxJavaInt) return false;
  if (uint64_t(key) + value + 8 != total || key < kKeyFixedBytes) return false;
  uint16_t row_len;
  if (!r.U16BE(&row_len) || row_len > kMaxRowBytes) return false;
  uint32_t rest = key - 2;  // Bytes of the key after rowlength.
  if (uint32_t(row_len) + 1 + 8 + 1 > rest || !r.Bytes(row_len, &c->row)) return false;
  rest -= row_len;
  uint8_t family_len;
  if (!r.U8(&family_len) || family_len > kMaxFamilyBytes) return false;
  rest -= 1;
  if (uint32_t(family_len) + 8 + 1 > rest || !r.Bytes(family_len, &c->family)) return false;
  rest -= family_len;
  if (!r.Bytes(rest - 9, &c->qualifier)) return false;
  uint8_t type;
  if (!r.U64BE(&c->timestamp) || !r.U8(&type) || !IsValidCellType(type)) return false;
  c->type = CellType(type);
  return r.Bytes(value, &c->value);
}

}  // namespace wirebench::pb
