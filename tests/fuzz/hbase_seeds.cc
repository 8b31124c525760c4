// Seeds for fuzz_hbase_connection (hbase_connection_fuzz.cc): whole
// connections as HBase clients open them, each led by the chunk-size byte.
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "codecs/schemas/Client.pb.h"
#include "tests/hbase_call_bytes.h"
#include "transports/hbase/hbase_wire.pb.h"

namespace wirebench::fuzz {

namespace {

namespace pbw = hbasewire;

using testing::Be32;
using testing::Call;
using testing::Delimited;
using testing::kHBaseHello;
using testing::kKeyValueCodec;

// A Put cell as KeyValueCodec writes it: family "f", timestamp 1.
std::string KeyValue(const std::string& row, const std::string& q, const std::string& v) {
  return testing::KeyValue(row, "f", q, 1, 4, v);
}

std::string Hello(const std::string& service, const std::string& codec) {
  pbw::ConnectionHeader h;
  h.mutable_user_info()->set_effective_user("fuzz");
  h.set_service_name(service);
  if (!codec.empty()) h.set_cell_block_codec_class(codec);
  const std::string b = h.SerializeAsString();
  return kHBaseHello + Be32(uint32_t(b.size())) + b;
}

void Region(hbase::RegionSpecifier* r, const std::string& name) {
  r->set_type(hbase::RegionSpecifier::REGION_NAME);
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

  hbase::MutateRequest put;
  Region(put.mutable_region(), "usertable,,1");
  put.mutable_mutation()->set_row("user1");
  put.mutable_mutation()->set_mutate_type(hbase::MutationProto::PUT);
  put.mutable_mutation()->set_associated_cell_count(1);
  hbase::MutateRequest pb_put = put;
  pb_put.mutable_mutation()->set_associated_cell_count(0);
  auto* qv = pb_put.mutable_mutation()->add_column_value();
  qv->set_family("f");
  qv->add_qualifier_value()->set_qualifier("q");
  hbase::GetRequest get;
  Region(get.mutable_region(), "usertable,,1");
  get.mutable_get()->set_row("user1");
  hbase::MultiRequest multi;
  auto* ra = multi.add_regionaction();
  Region(ra->mutable_region(), "usertable,,1");
  ra->set_atomic(true);
  auto* a = ra->add_action();
  a->set_index(0);
  *a->mutable_mutation() = put.mutation();
  ra->add_action()->mutable_get()->set_row("user2");
  hbase::ScanRequest meta;
  Region(meta.mutable_region(), "hbase:meta,,1");
  meta.mutable_scan()->set_start_row("usertable,user1,99999999999999");
  meta.mutable_scan()->set_reversed(true);
  meta.set_number_of_rows(1);
  hbase::ScanRequest next;
  next.set_scanner_id(1);
  next.set_number_of_rows(10);
  hbase::MutateRequest cas = pb_put;
  cas.mutable_condition()->set_row("user1");
  cas.mutable_condition()->set_family("f");
  cas.mutable_condition()->set_qualifier("q");
  cas.mutable_condition()->set_compare_type(hbase::EQUAL);
  cas.mutable_condition()->mutable_comparator()->set_name(
      "org.apache.hadoop.hbase.filter.NullComparator");

  const std::string cell = KeyValue("user1", "q", "value");
  const std::string lead(1, char(7));
  write(lead + Hello("ClientService", kKeyValueCodec) + Call(1, "Mutate", put, cell) +
        Call(2, "Get", get) + Call(3, "Multi", multi, cell) + Call(4, "Mutate", pb_put));
  write(lead + Hello("ClientService", "") + Call(1, "Mutate", pb_put) + Call(2, "Scan", meta) +
        Call(3, "Scan", next) + Call(4, "Mutate", cas) + Call(5, "NoSuchMethod", get));
  write(std::string(1, char(0)) + Hello("ClientMetaService", "") +
        Call(1, "GetClusterId", pbw::GetClusterIdRequest()) +
        Call(2, "GetMetaRegionLocations", pbw::GetMetaRegionLocationsRequest()));
  write(lead + "Regist");
  write(lead + "Securi" + Hello("ClientService", kKeyValueCodec) + Call(1, "Get", get));
  write(lead + "HBas" + char(1) + char(80));
  write(lead + "HBas" + char(0) + char(81));
  return errors;
}

}  // namespace wirebench::fuzz
