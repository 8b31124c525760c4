// The bytes of HBase's RPC as its own client writes them, built by hand: a
// length word, a varint-delimited protobuf message, a KeyValue as
// KeyValueCodec writes it (and a cell block of them read back), a whole
// call, the connection preamble and the cell block codec's name. Shared by
// the tests that speak HBase's protocol byte by byte (tests/hbase_raw_wire.h)
// and by the fuzzer's seed generator (tests/fuzz/hbase_seeds.cc); no
// GoogleTest here, so the seed generator can include it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codecs/schemas/RPC.pb.h"
#include "common/bytes.h"

namespace wirebench::testing {

inline std::string Be32(uint32_t v) {
  std::string s(4, '\0');
  StoreBE32(reinterpret_cast<uint8_t*>(s.data()), v);
  return s;
}

inline std::string Varint(uint64_t v) {
  std::string s;
  while (v >= 0x80) {
    s.push_back(char(v | 0x80));
    v >>= 7;
  }
  s.push_back(char(v));
  return s;
}

// A protobuf message with its varint length, as HBase writes each part of a call.
inline std::string Delimited(const google::protobuf::MessageLite& m) {
  const std::string b = m.SerializeAsString();
  return Varint(b.size()) + b;
}

// One KeyValue as KeyValueCodec writes it: int length, then the KeyValue
// (type 4 = Put).
inline std::string KeyValue(const std::string& row, const std::string& family,
                            const std::string& qual, uint64_t ts, uint8_t type,
                            const std::string& value) {
  std::string key;
  key.push_back(char(row.size() >> 8));
  key.push_back(char(row.size() & 0xFF));
  key += row;
  key.push_back(char(family.size()));
  key += family + qual;
  std::string t(8, '\0');
  StoreBE64(reinterpret_cast<uint8_t*>(t.data()), ts);
  key += t;
  key.push_back(char(type));
  const std::string kv = Be32(uint32_t(key.size())) + Be32(uint32_t(value.size())) + key + value;
  return Be32(uint32_t(kv.size())) + kv;
}

// One cell of a KeyValue cell block, and the block read as KeyValueCodec's
// decoder reads it (the inverse of KeyValue above).
struct KeyValueCell {
  std::string row, family, qualifier, value;
  uint8_t type = 0;
};

inline std::vector<KeyValueCell> ParseKeyValueBlock(const std::string& block) {
  std::vector<KeyValueCell> out;
  const auto* p = reinterpret_cast<const uint8_t*>(block.data());
  size_t pos = 0;
  while (pos + 12 <= block.size()) {
    pos += 4;  // The cell's length.
    const uint32_t klen = LoadBE32(p + pos), vlen = LoadBE32(p + pos + 4);
    pos += 8;
    KeyValueCell kv;
    const uint16_t rlen = LoadBE16(p + pos);
    kv.row = block.substr(pos + 2, rlen);
    const uint8_t flen = p[pos + 2 + rlen];
    kv.family = block.substr(pos + 3 + rlen, flen);
    const size_t qlen = klen - 2 - rlen - 1 - flen - 9;
    kv.qualifier = block.substr(pos + 3 + rlen + flen, qlen);
    kv.type = p[pos + klen - 1];
    kv.value = block.substr(pos + klen, vlen);
    pos += klen + vlen;
    out.push_back(kv);
  }
  return out;
}

// A call: RequestHeader, param and an optional cell block, with the length word.
inline std::string Call(uint32_t id, const std::string& method,
                        const google::protobuf::MessageLite& param, const std::string& block = "") {
  hbase::RequestHeader h;
  h.set_call_id(id);
  h.set_method_name(method);
  h.set_request_param(true);
  if (!block.empty()) h.mutable_cell_block_meta()->set_length(uint32_t(block.size()));
  const std::string body = Delimited(h) + Delimited(param) + block;
  return Be32(uint32_t(body.size())) + body;
}

// The cell block codec HBase's client asks for by default
// (hbase.client.default.rpc.codec), as its ConnectionHeader names it.
inline constexpr char kKeyValueCodec[] = "org.apache.hadoop.hbase.codec.KeyValueCodec";

// "HBas", RPC version 0, auth SIMPLE (0x50).
inline const std::string kHBaseHello = std::string("HBas\x00\x50", 6);

}  // namespace wirebench::testing
