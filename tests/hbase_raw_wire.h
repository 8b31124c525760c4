// HBase's RPC bytes by hand, for peers that misbehave on the `--rpc hbase`
// port (tests/hbase_bad_input_test.cc, and the hbase row of
// tests/transport_cases.cc): the connection preamble, a ConnectionHeader, a
// Get call (optionally with a RegexStringComparator ValueFilter), and one
// reply read back; and the pieces HBase's own client writes (a delimited
// message, a KeyValue, a call), shared by the protocol and Java-client tests.
#pragma once

#include <cstdint>
#include <string>

#include "common/bytes.h"
#include "tests/raw_peer.h"
#include "transports/hbase/hbase_wire.pb.h"

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

// A call: RequestHeader, param and an optional cell block, with the length word.
inline std::string Call(uint32_t id, const std::string& method,
                        const google::protobuf::MessageLite& param, const std::string& block = "") {
  hbasewire::RequestHeader h;
  h.set_call_id(id);
  h.set_method_name(method);
  h.set_request_param(true);
  if (!block.empty()) h.mutable_cell_block_meta()->set_length(uint32_t(block.size()));
  const std::string body = Delimited(h) + Delimited(param) + block;
  return Be32(uint32_t(body.size())) + body;
}

// "HBas", RPC version 0, auth SIMPLE (0x50).
inline const std::string kHBaseHello = std::string("HBas\x00\x50", 6);

// ConnectionHeader { service_name: "ClientService" } by hand (field 2,
// length 13), with its length word.
inline std::string HBaseConnectionHeader() {
  const std::string h = std::string("\x12\x0d", 2) + "ClientService";
  return Be32(uint32_t(h.size())) + h;
}

// A Get of row "r" in usertable as a call body with its length word; with
// `regex`, its ValueFilter compares with RegexStringComparator(*regex).
inline std::string HBaseGetCall(uint32_t call_id, const std::string* regex = nullptr) {
  namespace pbw = hbasewire;
  pbw::RequestHeader h;
  h.set_call_id(call_id);
  h.set_method_name("Get");
  h.set_request_param(true);
  pbw::GetRequest g;
  g.mutable_region()->set_type(pbw::RegionSpecifier::REGION_NAME);
  g.mutable_region()->set_value("usertable,,1");
  g.mutable_get()->set_row("r");
  if (regex != nullptr) {
    pbw::RegexStringComparator rc;
    rc.set_pattern(*regex);
    rc.set_pattern_flags(0);
    rc.set_charset("UTF-8");
    pbw::RowFilter vf;  // ValueFilter has RowFilter's layout.
    vf.mutable_compare_filter()->set_compare_op(pbw::EQUAL);
    vf.mutable_compare_filter()->mutable_comparator()->set_name(
        "org.apache.hadoop.hbase.filter.RegexStringComparator");
    vf.mutable_compare_filter()->mutable_comparator()->set_serialized_comparator(
        rc.SerializeAsString());
    pbw::Filter f;
    f.set_name("org.apache.hadoop.hbase.filter.ValueFilter");
    f.set_serialized_filter(vf.SerializeAsString());
    g.mutable_get()->set_filter(f.SerializeAsString());
  }
  auto delimited = [](const std::string& m) {
    std::string out;
    uint64_t n = m.size();
    do {
      out.push_back(char((n & 0x7F) | (n > 0x7F ? 0x80 : 0)));
      n >>= 7;
    } while (n != 0);
    return out + m;
  };
  const std::string body = delimited(h.SerializeAsString()) + delimited(g.SerializeAsString());
  return Be32(uint32_t(body.size())) + body;
}

// A Get whose ValueFilter compares with RegexStringComparator(pattern).
inline std::string RegexGetCall(uint32_t call_id, const std::string& pattern) {
  return HBaseGetCall(call_id, &pattern);
}

// One reply's bytes (after its length word).
inline std::string ReadHBaseReply(RawPeer* peer) {
  std::string len, reply;
  if (peer->ReadExactly(4, &len) != RawPeer::Read::kOk) return "(no reply)";
  if (peer->ReadExactly(LoadBE32(reinterpret_cast<const uint8_t*>(len.data())), &reply) !=
      RawPeer::Read::kOk)
    return "(cut short)";
  return reply;
}

}  // namespace wirebench::testing
