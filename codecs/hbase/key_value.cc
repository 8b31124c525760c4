#include "codecs/hbase/key_value.h"

#include <string>

namespace wirebench::pb {

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

}  // namespace wirebench::pb
