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

// One bounds check: the total length must fit what remains, and once the
// key and value lengths add up to it every field lies inside those bytes, so
// the fields are read by pointer with only the lengths checked against each
// other (not a remaining-size check per field, as a WireReader read does).
bool ReadKeyValue(WireReader& r, Cell* c) {
  uint32_t total;
  ByteView kv;
  if (!r.U32BE(&total) || total < 8 || !r.Bytes(total, &kv)) return false;
  const uint8_t* p = kv.data();
  const uint32_t key = LoadBE32(p);
  const uint32_t value = LoadBE32(p + 4);
  if (key > kMaxJavaInt || value > kMaxJavaInt) return false;
  if (uint64_t(key) + value + 8 != total || key < kKeyFixedBytes) return false;
  p += 8;
  const uint32_t row_len = LoadBE16(p);
  if (row_len > kMaxRowBytes) return false;
  uint32_t rest = key - 2;  // Bytes of the key after rowlength.
  if (row_len + 1 + 8 + 1 > rest) return false;
  c->row = ByteView(p + 2, row_len);
  p += 2 + row_len;
  rest -= row_len;
  const uint32_t family_len = *p++;
  rest -= 1;
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

}  // namespace wirebench::pb
