// HBase's RPC bytes by hand, for peers that misbehave on the `--rpc hbase`
// port (tests/hbase_bad_input_test.cc, the hbase row of
// tests/transport_cases.cc, and the attacks of tests/attacks/): the
// connection preamble, a ConnectionHeader, a Get call (optionally with a
// RegexStringComparator ValueFilter), filtered scans and a new client's
// hbase:meta lookup, and one reply read back. The pieces HBase's own client writes (a delimited
// message, a KeyValue, a call) are tests/hbase_call_bytes.h's.
#pragma once

#include <cstdint>
#include <string>

#include <google/protobuf/io/coded_stream.h>

#include "codecs/schemas/Client.pb.h"
#include "codecs/schemas/RPC.pb.h"
#include "common/bytes.h"
#include "tests/hbase_call_bytes.h"
#include "tests/raw_peer.h"
#include "transports/hbase/hbase_wire.pb.h"

namespace wirebench::testing {

// ConnectionHeader { service_name: "ClientService" } by hand (field 2,
// length 13), with its length word.
inline std::string HBaseConnectionHeader() {
  const std::string h = std::string("\x12\x0d", 2) + "ClientService";
  return Be32(uint32_t(h.size())) + h;
}

// A serialized Filter: ValueFilter(EQUAL, RegexStringComparator(pattern)).
inline std::string RegexValueFilter(const std::string& pattern) {
  namespace pbw = hbasewire;
  hbase::RegexStringComparator rc;
  rc.set_pattern(pattern);
  rc.set_pattern_flags(0);
  rc.set_charset("UTF-8");
  pbw::RowFilter vf;  // ValueFilter has RowFilter's layout.
  vf.mutable_compare_filter()->set_compare_op(hbase::EQUAL);
  vf.mutable_compare_filter()->mutable_comparator()->set_name(
      "org.apache.hadoop.hbase.filter.RegexStringComparator");
  vf.mutable_compare_filter()->mutable_comparator()->set_serialized_comparator(
      rc.SerializeAsString());
  pbw::Filter f;
  f.set_name("org.apache.hadoop.hbase.filter.ValueFilter");
  f.set_serialized_filter(vf.SerializeAsString());
  return f.SerializeAsString();
}

// A Get of row "r" in usertable as a call body with its length word; with
// `regex`, its ValueFilter compares with RegexStringComparator(*regex).
inline std::string HBaseGetCall(uint32_t call_id, const std::string* regex = nullptr) {
  namespace pbw = hbasewire;
  hbase::RequestHeader h;
  h.set_call_id(call_id);
  h.set_method_name("Get");
  h.set_request_param(true);
  hbase::GetRequest g;
  g.mutable_region()->set_type(hbase::RegionSpecifier::REGION_NAME);
  g.mutable_region()->set_value("usertable,,1");
  g.mutable_get()->set_row("r");
  if (regex != nullptr) g.mutable_get()->set_filter(RegexValueFilter(*regex));
  const std::string body = Delimited(h) + Delimited(g);
  return Be32(uint32_t(body.size())) + body;
}

// A Get whose ValueFilter compares with RegexStringComparator(pattern).
inline std::string RegexGetCall(uint32_t call_id, const std::string& pattern) {
  return HBaseGetCall(call_id, &pattern);
}

// FilterList(MUST_PASS_ONE) of `count` ValueFilters each matching `pattern`
// (RegexStringComparator): every failing row's values are read `count`
// times, so a scan under it is as slow as `count` makes it.
inline std::string RegexFilterList(const std::string& pattern, int count) {
  namespace pbw = hbasewire;
  pbw::FilterList list;
  list.set_operator_(pbw::FilterList::MUST_PASS_ONE);
  for (int i = 0; i < count; ++i) list.add_filters()->ParseFromString(RegexValueFilter(pattern));
  pbw::Filter f;
  f.set_name("org.apache.hadoop.hbase.filter.FilterList");
  f.set_serialized_filter(list.SerializeAsString());
  return f.SerializeAsString();
}

// The ScanRequest that opens a scanner of usertable under `filter` (a
// serialized Filter), reading `rows` rows; `heartbeats` says the client
// handles partial results and heartbeats (HBase's Java client since 1.1).
inline hbase::ScanRequest OpenFilteredScan(const std::string& filter, uint32_t rows,
                                               bool heartbeats) {
  hbase::ScanRequest req;
  req.mutable_region()->set_type(hbase::RegionSpecifier::REGION_NAME);
  req.mutable_region()->set_value("usertable,,1");
  req.mutable_scan()->set_filter(filter);
  req.set_number_of_rows(rows);
  req.set_client_handles_partials(heartbeats);
  req.set_client_handles_heartbeats(heartbeats);
  return req;
}

// A next on scanner `id`: `rows` rows, call sequence `seq`.
inline hbase::ScanRequest NextScan(uint64_t id, uint32_t rows, uint64_t seq, bool heartbeats) {
  hbase::ScanRequest req;
  req.set_scanner_id(id);
  req.set_number_of_rows(rows);
  req.set_next_call_seq(seq);
  req.set_client_handles_partials(heartbeats);
  req.set_client_handles_heartbeats(heartbeats);
  return req;
}

// What a new client asks first: where usertable's region is (a reversed,
// closing scan of hbase:meta, as the Java client's locator sends it).
inline std::string MetaLookup(uint32_t call_id) {
  hbase::ScanRequest sr;
  sr.mutable_region()->set_type(hbase::RegionSpecifier::REGION_NAME);
  sr.mutable_region()->set_value("hbase:meta,,1");
  sr.mutable_scan()->set_start_row("usertable,row00001,99999999999999");
  sr.mutable_scan()->set_stop_row("usertable,,");
  sr.mutable_scan()->set_include_stop_row(true);
  sr.mutable_scan()->set_reversed(true);
  sr.mutable_scan()->add_column()->set_family("info");
  sr.set_number_of_rows(1);
  sr.set_close_scanner(true);
  return Call(call_id, "Scan", sr);
}

// What ReadHBaseReply returns when not even a reply's length word came (the
// connection closed or went quiet). No reply parses as it: its first byte
// announces a 40-byte header.
inline constexpr char kNoHBaseReply[] = "(no reply)";

// One reply's bytes (after its length word).
inline std::string ReadHBaseReply(RawPeer* peer) {
  std::string len, reply;
  if (peer->ReadExactly(4, &len) != RawPeer::Read::kOk) return kNoHBaseReply;
  if (peer->ReadExactly(LoadBE32(reinterpret_cast<const uint8_t*>(len.data())), &reply) !=
      RawPeer::Read::kOk)
    return "(cut short)";
  return reply;
}

// One reply read back and parsed: its header and response message (and
// cell block, if any). `ok` is false when the reply did not come or did
// not parse; `closed` tells the first apart: nothing came, not even the
// reply's length word.
struct HBaseReply {
  bool ok = false;
  bool closed = false;
  hbase::ResponseHeader header;
  std::string message;
  std::string block;
};

inline HBaseReply ReadParsedHBaseReply(RawPeer* peer) {
  HBaseReply r;
  const std::string body = ReadHBaseReply(peer);
  r.closed = body == kNoHBaseReply;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(body.data()),
                                            int(body.size()));
  uint32_t size = 0;
  std::string header;
  if (!in.ReadVarint32(&size) || !in.ReadString(&header, int(size)) ||
      !r.header.ParseFromString(header))
    return r;
  if (!r.header.has_exception()) {
    if (!in.ReadVarint32(&size) || !in.ReadString(&r.message, int(size))) return r;
    const uint32_t block =
        r.header.has_cell_block_meta() ? r.header.cell_block_meta().length() : 0;
    if (!in.ReadString(&r.block, int(block))) return r;
  }
  r.ok = true;
  return r;
}

}  // namespace wirebench::testing
