// Seeds for fuzz_hbase_connection (hbase_connection_fuzz.cc): whole
// connections as HBase clients open them, each led by the chunk-size byte.
#include <fstream>
#include <string>
#include <sys/stat.h>

#include "transports/hbase/hbase_wire.pb.h"

namespace wirebench::fuzz {

namespace {

namespace pbw = hbasewire;

std::string Be32(uint32_t v) {
  return std::string{char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
}

std::string Varint(uint64_t v) {
  std::string s;
  while (v >= 0x80) {
    s.push_back(char(v | 0x80));
    v >>= 7;
  }
  s.push_back(char(v));
  return s;
}

std::string Delimited(const google::protobuf::MessageLite& m) {
  const std::string b = m.SerializeAsString();
  return Varint(b.size()) + b;
}

std::string Hello(const std::string& service, const std::string& codec) {
  pbw::ConnectionHeader h;
  h.mutable_user_info()->set_effective_user("fuzz");
  h.set_service_name(service);
  if (!codec.empty()) h.set_cell_block_codec_class(codec);
  const std::string b = h.SerializeAsString();
  return std::string("HBas\x00\x50", 6) + Be32(uint32_t(b.size())) + b;
}

std::string Call(uint32_t id, const std::string& method, const google::protobuf::MessageLite& p,
                 const std::string& block = "") {
  pbw::RequestHeader h;
  h.set_call_id(id);
  h.set_method_name(method);
  h.set_request_param(true);
  if (!block.empty()) h.mutable_cell_block_meta()->set_length(uint32_t(block.size()));
  const std::string body = Delimited(h) + Delimited(p) + block;
  return Be32(uint32_t(body.size())) + body;
}

std::string KeyValue(const std::string& row, const std::string& q, const std::string& v) {
  std::string key = std::string{char(0), char(row.size())} + row + char(1) + "f" + q +
                    std::string(7, '\0') + char(1) + char(4);
  const std::string kv = Be32(uint32_t(key.size())) + Be32(uint32_t(v.size())) + key + v;
  return Be32(uint32_t(kv.size())) + kv;
}

void Region(pbw::RegionSpecifier* r, const std::string& name) {
  r->set_type(pbw::RegionSpecifier::REGION_NAME);
  r->set_value(name);
}

}  // namespace

int WriteHBaseSeeds(const std::string& root) {
  const std::string dir = root + "/fuzz_hbase_connection";
  mkdir(root.c_str(), 0755);
  mkdir(dir.c_str(), 0755);
  int n = 0, errors = 0;
  auto write = [&](const std::string& bytes) {
    std::ofstream f(dir + "/seed-" + std::to_string(n++), std::ios::binary);
    f.write(bytes.data(), std::streamsize(bytes.size()));
    errors += !f;
  };
  const std::string kv_codec = "org.apache.hadoop.hbase.codec.KeyValueCodec";

  pbw::MutateRequest put;
  Region(put.mutable_region(), "usertable,,1");
  put.mutable_mutation()->set_row("user1");
  put.mutable_mutation()->set_mutate_type(pbw::MutationProto::PUT);
  put.mutable_mutation()->set_associated_cell_count(1);
  pbw::MutateRequest pb_put = put;
  pb_put.mutable_mutation()->set_associated_cell_count(0);
  auto* qv = pb_put.mutable_mutation()->add_column_value();
  qv->set_family("f");
  qv->add_qualifier_value()->set_qualifier("q");
  pbw::GetRequest get;
  Region(get.mutable_region(), "usertable,,1");
  get.mutable_get()->set_row("user1");
  pbw::MultiRequest multi;
  auto* ra = multi.add_regionaction();
  Region(ra->mutable_region(), "usertable,,1");
  ra->set_atomic(true);
  auto* a = ra->add_action();
  a->set_index(0);
  *a->mutable_mutation() = put.mutation();
  ra->add_action()->mutable_get()->set_row("user2");
  pbw::ScanRequest meta;
  Region(meta.mutable_region(), "hbase:meta,,1");
  meta.mutable_scan()->set_start_row("usertable,user1,99999999999999");
  meta.mutable_scan()->set_reversed(true);
  meta.set_number_of_rows(1);
  pbw::ScanRequest next;
  next.set_scanner_id(1);
  next.set_number_of_rows(10);
  pbw::MutateRequest cas = pb_put;
  cas.mutable_condition()->set_row("user1");
  cas.mutable_condition()->set_family("f");
  cas.mutable_condition()->set_qualifier("q");
  cas.mutable_condition()->set_compare_type(pbw::EQUAL);
  cas.mutable_condition()->mutable_comparator()->set_name(
      "org.apache.hadoop.hbase.filter.NullComparator");

  const std::string cell = KeyValue("user1", "q", "value");
  const std::string lead(1, char(7));
  write(lead + Hello("ClientService", kv_codec) + Call(1, "Mutate", put, cell) +
        Call(2, "Get", get) + Call(3, "Multi", multi, cell) + Call(4, "Mutate", pb_put));
  write(lead + Hello("ClientService", "") + Call(1, "Mutate", pb_put) + Call(2, "Scan", meta) +
        Call(3, "Scan", next) + Call(4, "Mutate", cas) + Call(5, "NoSuchMethod", get));
  write(std::string(1, char(0)) + Hello("ClientMetaService", "") +
        Call(1, "GetClusterId", pbw::GetClusterIdRequest()) +
        Call(2, "GetMetaRegionLocations", pbw::GetMetaRegionLocationsRequest()));
  write(lead + "Regist");
  write(lead + "Securi" + Hello("ClientService", kv_codec) + Call(1, "Get", get));
  write(lead + "HBas" + char(1) + char(80));
  write(lead + "HBas" + char(0) + char(81));
  return errors;
}

}  // namespace wirebench::fuzz
