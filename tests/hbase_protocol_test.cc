// `--rpc hbase` against requests shaped as HBase's Java client shapes them,
// built here from HBase's field numbers (codecs/schemas/ and
// transports/hbase/hbase_wire.proto) and KeyValueCodec's cell layout, over
// real TCP to an HBaseServer in this process: the connection set-up and its
// refusals (each answered with the exception class HBase's server sends),
// cell blocks both ways, the protobuf-only Mutate on a cell-block
// connection, the catalog, the RPC registry, conditions, increments,
// scanners, and unknown methods.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "codecs/schemas/Client.pb.h"
#include "codecs/schemas/RPC.pb.h"
#include "nullregion/null_region.h"
#include "nullregion/region_service.h"
#include "regions/memstore/memstore_region.h"
#include "tests/hbase_raw_wire.h"
#include "tests/raw_peer.h"
#include "transports/hbase/hbase_server.h"
#include "transports/hbase/hbase_wire.pb.h"

namespace wirebench {
namespace {

namespace pbw = hbasewire;
using testing::Be32;
using testing::Call;
using testing::KeyValue;
using testing::kKeyValueCodec;
using testing::ParseKeyValueBlock;
using testing::RawPeer;

std::string Preamble(uint8_t version = 0, uint8_t auth = 80) {
  return std::string("HBas") + char(version) + char(auth);
}

std::string ConnectionHeader(const std::string& service, const std::string& codec = "",
                             const std::string& compressor = "") {
  pbw::ConnectionHeader h;
  h.mutable_user_info()->set_effective_user("tester");
  h.set_service_name(service);
  if (!codec.empty()) h.set_cell_block_codec_class(codec);
  if (!compressor.empty()) h.set_cell_block_compressor_class(compressor);
  const std::string b = h.SerializeAsString();
  return Be32(uint32_t(b.size())) + b;
}

using Reply = testing::HBaseReply;

// A reply that, unless the connection ended first (`closed`), must parse.
Reply ReadReply(RawPeer& peer) {
  Reply r = testing::ReadParsedHBaseReply(&peer);
  EXPECT_TRUE(r.ok || r.closed) << "the reply did not parse";
  return r;
}

hbase::RegionSpecifier* Region(hbase::RegionSpecifier* r, const std::string& name) {
  r->set_type(hbase::RegionSpecifier::REGION_NAME);
  r->set_value(name);
  return r;
}

// A put of one cell, f:q = value, carried in the message (column_value), as
// the Java client's Table.put writes it.
void PutOneCell(hbase::MutationProto* mu, const std::string& row, const std::string& value) {
  mu->set_row(row);
  mu->set_mutate_type(hbase::MutationProto::PUT);
  auto* qv = mu->add_column_value();
  qv->set_family("f");
  auto* v = qv->add_qualifier_value();
  v->set_qualifier("q");
  v->set_value(value);
}

// One server per fixture: a null region or a memstore behind it.
class HBaseServerFixture {
 public:
  explicit HBaseServerFixture(std::unique_ptr<wirebench::Region> region,
                              uint32_t regions_per_table = 1)
      : region_(std::move(region)), service_(region_.get()) {
    rpc::ServerOptions o;
    o.port = 0;
    o.max_call_bytes = 1 << 20;
    server_ =
        std::make_unique<hbaserpc::HBaseServer>(o, region_.get(), &service_,
                                                RegionLayout(regions_per_table));
    EXPECT_TRUE(server_->Start().ok());
  }
  uint16_t port() const { return server_->port(); }
  hbaserpc::HBaseServer& server() { return *server_; }

  // A connection past its preamble and header.
  std::unique_ptr<RawPeer> Open(const std::string& codec = kKeyValueCodec,
                                const std::string& service = "ClientService") {
    auto peer = std::make_unique<RawPeer>(port());
    EXPECT_TRUE(peer->Send(Preamble() + ConnectionHeader(service, codec)));
    return peer;
  }

 private:
  std::unique_ptr<wirebench::Region> region_;
  RegionService service_;
  std::unique_ptr<hbaserpc::HBaseServer> server_;
};

HBaseServerFixture* g_null = nullptr;
HBaseServerFixture* g_mem = nullptr;
HBaseServerFixture* g_split = nullptr;  // A memstore, four regions per table.

class Servers : public ::testing::Environment {
 public:
  void SetUp() override {
    g_null = new HBaseServerFixture(NewNullRegion({}));
    g_mem = new HBaseServerFixture(NewMemstoreRegion());
    g_split = new HBaseServerFixture(NewMemstoreRegion(), 4);
  }
  void TearDown() override {
    delete g_split;
    delete g_null;
    delete g_mem;
  }
};
const auto* const kEnv = ::testing::AddGlobalTestEnvironment(new Servers);

void ExpectRefused(const std::string& bytes, const std::string& exception,
                   const std::string& text = "") {
  RawPeer peer(g_null->port());
  ASSERT_TRUE(peer.Send(bytes));
  Reply r = ReadReply(peer);
  ASSERT_FALSE(r.closed);
  EXPECT_EQ(r.header.call_id(), 0xFFFFFFFFu);  // Java's -1.
  ASSERT_TRUE(r.header.has_exception());
  EXPECT_EQ(r.header.exception().exception_class_name(), exception);
  if (!text.empty()) {
    EXPECT_NE(r.header.exception().stack_trace().find(text), std::string::npos)
        << r.header.exception().stack_trace();
  }
  EXPECT_EQ(peer.ReadUntilClosed(), RawPeer::Read::kClosed);
}

TEST(HBaseConnection, WrongMagicGetsFatalConnectionException) {
  ExpectRefused("GET / HTTP/1.0\r\n\r\n", "org.apache.hadoop.hbase.ipc.FatalConnectionException",
                "Expected HEADER=HBas");
}

TEST(HBaseConnection, WrongVersionGetsWrongVersionException) {
  ExpectRefused(Preamble(1) + ConnectionHeader("ClientService"),
                "org.apache.hadoop.hbase.ipc.WrongVersionException", "clientVersion=1");
}

TEST(HBaseConnection, KerberosIsRefusedSayingThereIsNoSecurity) {
  ExpectRefused(Preamble(0, 81), "org.apache.hadoop.hbase.security.AccessDeniedException",
                "wirebench has no security");
}

TEST(HBaseConnection, UnknownAuthGetsBadAuthException) {
  ExpectRefused(Preamble(0, 7), "org.apache.hadoop.hbase.ipc.BadAuthException", "authMethod=7");
}

TEST(HBaseConnection, OtherCellCodecGetsUnsupportedCellCodecException) {
  ExpectRefused(Preamble() + ConnectionHeader("ClientService",
                                              "org.apache.hadoop.hbase.codec.KeyValueCodecWithTags"),
                "org.apache.hadoop.hbase.ipc.UnsupportedCellCodecException", "KeyValueCodecWithTags");
}

TEST(HBaseConnection, CompressorGetsUnsupportedCompressionCodecException) {
  ExpectRefused(Preamble() + ConnectionHeader("ClientService", kKeyValueCodec,
                                              "org.apache.hadoop.io.compress.GzipCodec"),
                "org.apache.hadoop.hbase.ipc.UnsupportedCompressionCodecException", "GzipCodec");
}

TEST(HBaseConnection, UnknownServiceGetsUnknownServiceException) {
  ExpectRefused(Preamble() + ConnectionHeader("AdminService"),
                "org.apache.hadoop.hbase.ipc.UnknownServiceException", "AdminService");
}

TEST(HBaseConnection, RegistryPreambleAnswersTheClusterIdAndCloses) {
  RawPeer peer(g_null->port());
  ASSERT_TRUE(peer.Send("Regist"));
  Reply r = ReadReply(peer);
  ASSERT_FALSE(r.closed);
  EXPECT_EQ(r.header.call_id(), 0xFFFFFFFFu);
  pbw::GetConnectionRegistryResponse resp;
  ASSERT_TRUE(resp.ParseFromString(r.message));
  EXPECT_EQ(resp.cluster_id(), g_null->server().identity().cluster_id);
  EXPECT_EQ(resp.cluster_id().size(), 36u);
  EXPECT_EQ(peer.ReadUntilClosed(), RawPeer::Read::kClosed);
}

TEST(HBaseConnection, SecurityPreambleIsAnsweredNotEnabledAndTheConnectionGoesOn) {
  RawPeer peer(g_null->port());
  ASSERT_TRUE(peer.Send("Securi"));
  Reply r = ReadReply(peer);
  ASSERT_TRUE(r.header.has_exception());
  EXPECT_EQ(r.header.exception().exception_class_name(),
            "org.apache.hadoop.hbase.ipc.SecurityNotEnabledException");
  ASSERT_TRUE(peer.Send(Preamble() + ConnectionHeader("ClientService")));
  hbase::GetRequest g;
  Region(g.mutable_region(), "usertable,,1");
  g.mutable_get()->set_row("user1");
  ASSERT_TRUE(peer.Send(Call(5, "Get", g)));
  Reply r2 = ReadReply(peer);
  EXPECT_EQ(r2.header.call_id(), 5u);
  EXPECT_FALSE(r2.header.has_exception());
}

TEST(HBaseCalls, ProtobufOnlyMutateOnACellBlockConnectionIsServed) {
  // Table.put from the Java client: cells in MutationProto.column_value even
  // on a KeyValueCodec connection.
  auto peer = g_mem->Open();
  hbase::MutateRequest m;
  Region(m.mutable_region(), "pbonly,,1");
  PutOneCell(m.mutable_mutation(), "row-a", "v1");
  ASSERT_TRUE(peer->Send(Call(1, "Mutate", m)));
  Reply r = ReadReply(*peer);
  ASSERT_FALSE(r.header.has_exception()) << r.header.exception().stack_trace();
  hbase::MutateResponse resp;
  ASSERT_TRUE(resp.ParseFromString(r.message));
  EXPECT_TRUE(resp.processed());
  // Read back: the cells come in a KeyValue cell block.
  hbase::GetRequest g;
  Region(g.mutable_region(), "pbonly,,1");
  g.mutable_get()->set_row("row-a");
  ASSERT_TRUE(peer->Send(Call(2, "Get", g)));
  Reply r2 = ReadReply(*peer);
  hbase::GetResponse gr;
  ASSERT_TRUE(gr.ParseFromString(r2.message));
  EXPECT_EQ(gr.result().associated_cell_count(), 1);
  auto cells = ParseKeyValueBlock(r2.block);
  ASSERT_EQ(cells.size(), 1u);
  EXPECT_EQ(cells[0].row, "row-a");
  EXPECT_EQ(cells[0].qualifier, "q");
  EXPECT_EQ(cells[0].value, "v1");
}

TEST(HBaseCalls, MultiWithKeyValueCellBlocksBothWays) {
  auto peer = g_mem->Open();
  hbase::MultiRequest req;
  auto* ra = req.add_regionaction();
  Region(ra->mutable_region(), "multi,,1");
  std::string block;
  for (int i = 0; i < 2; ++i) {
    auto* a = ra->add_action();
    a->set_index(uint32_t(i));
    auto* mu = a->mutable_mutation();
    const std::string row = "m" + std::to_string(i);
    mu->set_row(row);
    mu->set_mutate_type(hbase::MutationProto::PUT);
    mu->set_associated_cell_count(2);
    block += KeyValue(row, "f", "a", 10, 4, "va" + std::to_string(i));
    block += KeyValue(row, "f", "b", 10, 4, "vb" + std::to_string(i));
  }
  auto* get = ra->add_action();
  get->set_index(2);
  get->mutable_get()->set_row("m1");
  ASSERT_TRUE(peer->Send(Call(9, "Multi", req, block)));
  Reply r = ReadReply(*peer);
  ASSERT_FALSE(r.header.has_exception()) << r.header.exception().stack_trace();
  EXPECT_EQ(r.header.call_id(), 9u);
  hbase::MultiResponse resp;
  ASSERT_TRUE(resp.ParseFromString(r.message));
  ASSERT_EQ(resp.regionactionresult_size(), 1);
  const auto& rar = resp.regionactionresult(0);
  ASSERT_EQ(rar.resultorexception_size(), 3);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(rar.resultorexception(i).index(), uint32_t(i));
    EXPECT_FALSE(rar.resultorexception(i).has_exception());
  }
  // The Get's cells come back in the reply's cell block.
  EXPECT_EQ(rar.resultorexception(2).result().associated_cell_count(), 2);
  auto cells = ParseKeyValueBlock(r.block);
  ASSERT_EQ(cells.size(), 2u);
  EXPECT_EQ(cells[0].row, "m1");
  EXPECT_EQ(cells[0].value, "va1");
  EXPECT_EQ(cells[1].value, "vb1");
}

TEST(HBaseCalls, PlainPutsAndGetsTakeTheCodecPath) {
  auto peer = g_null->Open();
  const auto before = g_null->server().StatsJson()["hbase"]["codec_path_calls"].get<uint64_t>();
  hbase::MutateRequest m;
  Region(m.mutable_region(), "usertable,,1");
  auto* mu = m.mutable_mutation();
  mu->set_row("user9");
  mu->set_mutate_type(hbase::MutationProto::PUT);
  mu->set_associated_cell_count(1);
  ASSERT_TRUE(peer->Send(Call(3, "Mutate", m, KeyValue("user9", "f", "q", 1, 4, "x"))));
  Reply r = ReadReply(*peer);
  ASSERT_FALSE(r.header.has_exception()) << r.header.exception().stack_trace();
  hbase::MutateResponse resp;
  ASSERT_TRUE(resp.ParseFromString(r.message));
  EXPECT_TRUE(resp.processed());
  EXPECT_EQ(g_null->server().StatsJson()["hbase"]["codec_path_calls"].get<uint64_t>(), before + 1);
}

TEST(HBaseCalls, UnknownMethodsGetHBasesExceptionAndTheConnectionStaysUp) {
  auto peer = g_null->Open();
  hbase::GetRequest g;
  Region(g.mutable_region(), "usertable,,1");
  g.mutable_get()->set_row("user1");
  const std::pair<std::string, std::string> cases[] = {
      {"NoSuchMethod", "org.apache.hadoop.hbase.DoNotRetryIOException"},
      {"BulkLoadHFile", "org.apache.hadoop.hbase.DoNotRetryIOException"},
      {"ExecService", "org.apache.hadoop.hbase.exceptions.UnknownProtocolException"}};
  uint32_t id = 20;
  for (const auto& [method, exception] : cases) {
    ASSERT_TRUE(peer->Send(Call(id, method, g)));
    Reply r = ReadReply(*peer);
    EXPECT_EQ(r.header.call_id(), id);
    ASSERT_TRUE(r.header.has_exception()) << method;
    EXPECT_EQ(r.header.exception().exception_class_name(), exception) << method;
    EXPECT_TRUE(r.header.exception().do_not_retry());
    ++id;
  }
  ASSERT_TRUE(peer->Send(Call(id, "Get", g)));
  Reply ok = ReadReply(*peer);
  EXPECT_EQ(ok.header.call_id(), id);
  EXPECT_FALSE(ok.header.has_exception());
}

TEST(HBaseCatalog, ReversedMetaScanLocatesAnyTableOnThisServer) {
  auto peer = g_null->Open("");  // Protobuf only: cells in the messages.
  hbase::ScanRequest sr;
  Region(sr.mutable_region(), "hbase:meta,,1");
  auto* scan = sr.mutable_scan();
  scan->set_start_row("anytable,somerow,99999999999999");
  scan->set_stop_row("anytable,,");
  scan->set_include_stop_row(true);
  scan->set_reversed(true);
  scan->add_column()->set_family("info");
  sr.set_number_of_rows(1);
  sr.set_close_scanner(true);
  ASSERT_TRUE(peer->Send(Call(1, "Scan", sr)));
  Reply r = ReadReply(*peer);
  ASSERT_FALSE(r.header.has_exception()) << r.header.exception().stack_trace();
  hbase::ScanResponse resp;
  ASSERT_TRUE(resp.ParseFromString(r.message));
  ASSERT_EQ(resp.results_size(), 1);
  std::string regioninfo, server, startcode;
  for (const auto& c : resp.results(0).cell()) {
    EXPECT_EQ(c.row(), "anytable,,1");
    if (c.qualifier() == "regioninfo") regioninfo = c.value();
    if (c.qualifier() == "server") server = c.value();
    if (c.qualifier() == "serverstartcode") startcode = c.value();
  }
  ASSERT_EQ(regioninfo.substr(0, 4), "PBUF");
  pbw::RegionInfo ri;
  ASSERT_TRUE(ri.ParseFromString(regioninfo.substr(4)));
  EXPECT_EQ(ri.table_name().namespace_(), "default");
  EXPECT_EQ(ri.table_name().qualifier(), "anytable");
  EXPECT_TRUE(ri.start_key().empty());
  EXPECT_TRUE(ri.end_key().empty());
  const auto& id = g_null->server().identity();
  EXPECT_EQ(server, id.host + ":" + std::to_string(id.port));
  ASSERT_EQ(startcode.size(), 8u);
  EXPECT_EQ(LoadBE64(reinterpret_cast<const uint8_t*>(startcode.data())), id.start_code);
  EXPECT_FALSE(resp.more_results());
}

TEST(HBaseCatalog, TableStateIsEnabled) {
  auto peer = g_null->Open("");
  hbase::GetRequest g;
  Region(g.mutable_region(), "hbase:meta,,1");
  g.mutable_get()->set_row("usertable");
  g.mutable_get()->add_column()->set_family("table");
  ASSERT_TRUE(peer->Send(Call(1, "Get", g)));
  Reply r = ReadReply(*peer);
  hbase::GetResponse resp;
  ASSERT_TRUE(resp.ParseFromString(r.message));
  ASSERT_EQ(resp.result().cell_size(), 1);
  const std::string v = resp.result().cell(0).value();
  ASSERT_EQ(v.substr(0, 4), "PBUF");
  pbw::TableState st;
  ASSERT_TRUE(st.ParseFromString(v.substr(4)));
  EXPECT_EQ(st.state(), pbw::TableState::ENABLED);
}

TEST(HBaseRegistry, ClientMetaServiceNamesThisServer) {
  auto peer = g_null->Open("", "ClientMetaService");
  ASSERT_TRUE(peer->Send(Call(1, "GetClusterId", pbw::GetClusterIdRequest())));
  pbw::GetClusterIdResponse cid;
  ASSERT_TRUE(cid.ParseFromString(ReadReply(*peer).message));
  EXPECT_EQ(cid.cluster_id(), g_null->server().identity().cluster_id);
  ASSERT_TRUE(peer->Send(Call(2, "GetMetaRegionLocations", pbw::GetMetaRegionLocationsRequest())));
  pbw::GetMetaRegionLocationsResponse loc;
  ASSERT_TRUE(loc.ParseFromString(ReadReply(*peer).message));
  ASSERT_EQ(loc.meta_locations_size(), 1);
  EXPECT_EQ(loc.meta_locations(0).region_info().table_name().namespace_(), "hbase");
  EXPECT_EQ(loc.meta_locations(0).server_name().port(), g_null->port());
  ASSERT_TRUE(peer->Send(Call(3, "GetBootstrapNodes", pbw::GetBootstrapNodesRequest())));
  pbw::GetBootstrapNodesResponse nodes;
  ASSERT_TRUE(nodes.ParseFromString(ReadReply(*peer).message));
  ASSERT_EQ(nodes.server_name_size(), 1);
  EXPECT_EQ(nodes.server_name(0).start_code(), g_null->server().identity().start_code);
  ASSERT_TRUE(peer->Send(Call(4, "GetActiveMaster", pbw::GetActiveMasterRequest())));
  pbw::GetActiveMasterResponse master;
  ASSERT_TRUE(master.ParseFromString(ReadReply(*peer).message));
  EXPECT_EQ(master.server_name().host_name(), g_null->server().identity().host);
}

hbase::MutateRequest CheckAndPut(const std::string& row, const std::string& expected) {
  hbase::MutateRequest m;
  Region(m.mutable_region(), "cond,,1");
  auto* c = m.mutable_condition();
  c->set_row(row);
  c->set_family("f");
  c->set_qualifier("q");
  c->set_compare_type(hbase::EQUAL);
  if (expected.empty()) {
    c->mutable_comparator()->set_name("org.apache.hadoop.hbase.filter.NullComparator");
  } else {
    hbase::BinaryComparator bc;
    bc.mutable_comparable()->set_value(expected);
    c->mutable_comparator()->set_name("org.apache.hadoop.hbase.filter.BinaryComparator");
    c->mutable_comparator()->set_serialized_comparator(bc.SerializeAsString());
  }
  PutOneCell(m.mutable_mutation(), row, "set");
  return m;
}

bool Processed(RawPeer& peer, uint32_t id, const hbase::MutateRequest& m) {
  EXPECT_TRUE(peer.Send(Call(id, "Mutate", m)));
  Reply r = ReadReply(peer);
  EXPECT_FALSE(r.header.has_exception()) << r.header.exception().stack_trace();
  hbase::MutateResponse resp;
  EXPECT_TRUE(resp.ParseFromString(r.message));
  return resp.processed();
}

TEST(HBaseCalls, CheckAndPutAgainstTheRegion) {
  auto peer = g_mem->Open();
  EXPECT_TRUE(Processed(*peer, 1, CheckAndPut("c1", "")));      // Absent: put.
  EXPECT_FALSE(Processed(*peer, 2, CheckAndPut("c1", "")));     // Present now: not.
  EXPECT_TRUE(Processed(*peer, 3, CheckAndPut("c1", "set")));   // Equal value: put.
  EXPECT_FALSE(Processed(*peer, 4, CheckAndPut("c1", "other")));
}

TEST(HBaseCalls, IncrementReturnsTheNewValue) {
  auto peer = g_null->Open("");
  hbase::MutateRequest m;
  Region(m.mutable_region(), "usertable,,1");
  auto* mu = m.mutable_mutation();
  mu->set_row("counter");
  mu->set_mutate_type(hbase::MutationProto::INCREMENT);
  auto* cv = mu->add_column_value();
  cv->set_family("f");
  auto* qv = cv->add_qualifier_value();
  qv->set_qualifier("n");
  std::string delta(8, '\0');
  StoreBE64(reinterpret_cast<uint8_t*>(delta.data()), 5);
  qv->set_value(delta);
  ASSERT_TRUE(peer->Send(Call(1, "Mutate", m)));
  Reply r = ReadReply(*peer);
  ASSERT_FALSE(r.header.has_exception()) << r.header.exception().stack_trace();
  hbase::MutateResponse resp;
  ASSERT_TRUE(resp.ParseFromString(r.message));
  ASSERT_EQ(resp.result().cell_size(), 1);  // The null region has no value: the delta.
  EXPECT_EQ(LoadBE64(reinterpret_cast<const uint8_t*>(resp.result().cell(0).value().data())), 5u);
}

TEST(HBaseCalls, ScannerPagesWithIdsAndIsClosedWhenDone) {
  auto peer = g_mem->Open("");
  for (int i = 0; i < 5; ++i) {
    hbase::MutateRequest m;
    Region(m.mutable_region(), "scan,,1");
    PutOneCell(m.mutable_mutation(), "s" + std::to_string(i), "v");
    ASSERT_TRUE(Processed(*peer, uint32_t(100 + i), m));
  }
  hbase::ScanRequest open;
  Region(open.mutable_region(), "scan,,1");
  open.mutable_scan()->set_start_row("s");
  open.mutable_scan()->set_stop_row("t");
  open.set_number_of_rows(2);
  ASSERT_TRUE(peer->Send(Call(1, "Scan", open)));
  hbase::ScanResponse first;
  ASSERT_TRUE(first.ParseFromString(ReadReply(*peer).message));
  ASSERT_EQ(first.results_size(), 2);
  EXPECT_EQ(first.results(0).cell(0).row(), "s0");
  EXPECT_TRUE(first.more_results());
  const uint64_t id = first.scanner_id();
  std::vector<std::string> rows;
  uint64_t seq = 0;  // The opening call carries none; the first next sends 0.
  for (int call = 0; call < 4; ++call) {
    hbase::ScanRequest next;
    next.set_scanner_id(id);
    next.set_number_of_rows(2);
    next.set_next_call_seq(seq++);
    ASSERT_TRUE(peer->Send(Call(uint32_t(2 + call), "Scan", next)));
    hbase::ScanResponse resp;
    ASSERT_TRUE(resp.ParseFromString(ReadReply(*peer).message));
    for (const auto& res : resp.results()) rows.push_back(res.cell(0).row());
    if (!resp.more_results()) break;
  }
  EXPECT_EQ(rows, (std::vector<std::string>{"s2", "s3", "s4"}));
  // The scanner ran out and is closed; a client of the 0.96/0.98 protocol
  // (the npm client) calls once more and gets an empty last batch.
  hbase::ScanRequest again;
  again.set_scanner_id(id);
  again.set_number_of_rows(2);
  ASSERT_TRUE(peer->Send(Call(50, "Scan", again)));
  Reply last = ReadReply(*peer);
  ASSERT_FALSE(last.header.has_exception());
  hbase::ScanResponse empty;
  ASSERT_TRUE(empty.ParseFromString(last.message));
  EXPECT_EQ(empty.results_size(), 0);
  EXPECT_FALSE(empty.more_results());
  // A scanner never opened: HBase's UnknownScannerException.
  again.set_scanner_id(id + 1000);
  ASSERT_TRUE(peer->Send(Call(51, "Scan", again)));
  Reply r = ReadReply(*peer);
  ASSERT_TRUE(r.header.has_exception());
  EXPECT_EQ(r.header.exception().exception_class_name(),
            "org.apache.hadoop.hbase.UnknownScannerException");
}

// The open scanners' budget (256 MiB) counts what a filter really takes
// once parsed: a MultipleColumnPrefixFilter of ~200,000 short prefixes is
// 1 MiB on the wire and tens of MiB in memory. Counted as 4x its wire size,
// sixty such scanners were taken, holding several times the budget.
TEST(HBaseCalls, TheScannerBudgetCountsWhatAFilterTakesParsed) {
  auto peer = g_mem->Open("");
  for (int i = 0; i < 3; ++i) {
    hbase::MutateRequest m;
    Region(m.mutable_region(), "budget,,1");
    PutOneCell(m.mutable_mutation(), "r" + std::to_string(i), "");
    ASSERT_TRUE(Processed(*peer, uint32_t(200 + i), m));
  }
  pbw::MultipleColumnPrefixFilter prefixes;
  // Distinct 3-byte prefixes, about 200,000 of them (a filter keeps each once).
  for (size_t i = 0, bytes = 0; bytes < (1 << 20) - 4096; ++i) {
    std::string p{char('a' + i / 676 % 26), char('a' + i / 26 % 26), char('a' + i % 26)};
    p += std::to_string(i / 17576);
    bytes += 2 + p.size();  // Its tag, length and bytes.
    prefixes.add_sorted_prefixes(std::move(p));
  }
  prefixes.add_sorted_prefixes("q");  // The rows' column: the scan finds rows and stays open.
  hbase::ScanRequest open;
  Region(open.mutable_region(), "budget,,1");
  pbw::Filter f;
  f.set_name("org.apache.hadoop.hbase.filter.MultipleColumnPrefixFilter");
  f.set_serialized_filter(prefixes.SerializeAsString());
  open.mutable_scan()->set_filter(f.SerializeAsString());  // Read when the scan opens.
  open.set_number_of_rows(1);  // Rows remain: the scanner stays open.
  std::vector<uint64_t> opened;
  std::string refusal;
  for (uint32_t call = 0; call < 24 && refusal.empty(); ++call) {
    ASSERT_TRUE(peer->Send(Call(300 + call, "Scan", open)));
    Reply r = ReadReply(*peer);
    ASSERT_FALSE(r.closed);
    if (r.header.has_exception()) {
      refusal = r.header.exception().stack_trace();
      break;
    }
    hbase::ScanResponse resp;
    ASSERT_TRUE(resp.ParseFromString(r.message));
    ASSERT_TRUE(resp.more_results());
    opened.push_back(resp.scanner_id());
  }
  // A Get's filter is held in the same budget while it is parsed and used:
  // refused while the scanners hold it, served once they are closed.
  hbase::GetRequest get;
  Region(get.mutable_region(), "budget,,1");
  get.mutable_get()->set_row("r0");
  get.mutable_get()->set_filter(f.SerializeAsString());
  ASSERT_TRUE(peer->Send(Call(350, "Get", get)));
  const Reply refused_get = ReadReply(*peer);
  for (size_t i = 0; i < opened.size(); ++i) {  // The shared server's budget, given back.
    hbase::ScanRequest close;
    close.set_scanner_id(opened[i]);
    close.set_close_scanner(true);
    ASSERT_TRUE(peer->Send(Call(400 + uint32_t(i), "Scan", close)));
    ASSERT_FALSE(ReadReply(*peer).header.has_exception());
  }
  EXPECT_NE(refusal.find("open scanners hold"), std::string::npos)
      << opened.size() << " scanners of a 1 MiB prefix filter were taken, none refused";
  EXPECT_GE(opened.size(), 1u);
  ASSERT_TRUE(refused_get.header.has_exception());
  EXPECT_NE(refused_get.header.exception().stack_trace().find("to parse"), std::string::npos)
      << refused_get.header.exception().stack_trace();
  ASSERT_TRUE(peer->Send(Call(450, "Get", get)));
  const Reply served = ReadReply(*peer);
  EXPECT_FALSE(served.header.has_exception()) << served.header.exception().stack_trace();
}

// As ServerRpcConnection: RequestTooBigException for a client that
// announces 1.2 or later in its ConnectionHeader's version_info, a
// DoNotRetryIOException for older clients and those that announce nothing.
TEST(HBaseCalls, OversizedCallGetsHBasesAnswerForTheClientsVersionAndCloses) {
  auto peer = g_null->Open();
  ASSERT_TRUE(peer->Send(Be32((1u << 20) + 1)));
  Reply r = ReadReply(*peer);
  ASSERT_TRUE(r.header.has_exception());
  EXPECT_EQ(r.header.exception().exception_class_name(),
            "org.apache.hadoop.hbase.DoNotRetryIOException");
  EXPECT_EQ(peer->ReadUntilClosed(), RawPeer::Read::kClosed);
  for (const auto& [version, major, minor, expected] :
       {std::tuple{"1.1.2", 0u, 0u, "org.apache.hadoop.hbase.DoNotRetryIOException"},
        std::tuple{"1.2.0", 0u, 0u, "org.apache.hadoop.hbase.exceptions.RequestTooBigException"},
        std::tuple{"2.5.8-SNAPSHOT", 0u, 0u,
                   "org.apache.hadoop.hbase.exceptions.RequestTooBigException"},
        std::tuple{"junk", 2u, 6u, "org.apache.hadoop.hbase.exceptions.RequestTooBigException"},
        std::tuple{"junk", 0u, 0u, "org.apache.hadoop.hbase.DoNotRetryIOException"}}) {
    pbw::ConnectionHeader h;
    h.set_service_name("ClientService");
    h.mutable_version_info()->set_version(version);
    if (major != 0) {
      h.mutable_version_info()->set_version_major(major);
      h.mutable_version_info()->set_version_minor(minor);
    }
    const std::string hb = h.SerializeAsString();
    RawPeer versioned(g_null->port());
    ASSERT_TRUE(versioned.Send(Preamble() + Be32(uint32_t(hb.size())) + hb + Be32((1u << 20) + 1)));
    Reply v = ReadReply(versioned);
    ASSERT_TRUE(v.header.has_exception()) << version;
    EXPECT_EQ(v.header.exception().exception_class_name(), expected) << version;
  }
}

}  // namespace
}  // namespace wirebench

namespace wirebench {
namespace {

// --regions-per-table 4: the catalog lists HexStringSplit's regions, and a
// row outside the region a call names gets NotServingRegionException.
TEST(HBaseRegions, CatalogListsSplitRegionsAndRowsAreCheckedAgainstThem) {
  auto peer = g_split->Open("");
  // The Java client's lookup: a reversed scan of hbase:meta from the row's key.
  hbase::ScanRequest locate;
  Region(locate.mutable_region(), "hbase:meta,,1");
  locate.mutable_scan()->set_start_row("t,9z,99999999999999");
  locate.mutable_scan()->set_reversed(true);
  locate.set_number_of_rows(1);
  ASSERT_TRUE(peer->Send(Call(1, "Scan", locate)));
  hbase::ScanResponse found;
  ASSERT_TRUE(found.ParseFromString(ReadReply(*peer).message));
  ASSERT_EQ(found.results_size(), 1);
  EXPECT_EQ(found.results(0).cell(0).row(), "t,80000000,1");
  pbw::RegionInfo ri;
  ASSERT_TRUE(ri.ParseFromString(found.results(0).cell(0).value().substr(4)));
  EXPECT_EQ(ri.start_key(), "80000000");
  EXPECT_EQ(ri.end_key(), "c0000000");
  // A forward scan of the table's rows (from "t,,", MetaTableAccessor's
  // getTableStartRowForMeta; in MetaCellComparator's order "t," sorts after
  // "t,,1") lists all four, in order.
  hbase::ScanRequest all;
  Region(all.mutable_region(), "hbase:meta,,1");
  all.mutable_scan()->set_start_row("t,,");
  all.mutable_scan()->set_stop_row("t-");
  all.set_number_of_rows(10);
  ASSERT_TRUE(peer->Send(Call(2, "Scan", all)));
  hbase::ScanResponse listed;
  ASSERT_TRUE(listed.ParseFromString(ReadReply(*peer).message));
  std::vector<std::string> rows;
  for (const auto& r : listed.results()) rows.push_back(r.cell(0).row());
  EXPECT_EQ(rows, (std::vector<std::string>{"t,,1", "t,40000000,1", "t,80000000,1", "t,c0000000,1"}));

  auto put = [](const std::string& region, const std::string& row) {
    hbase::MutateRequest m;
    Region(m.mutable_region(), region);
    PutOneCell(m.mutable_mutation(), row, "v");
    return m;
  };
  EXPECT_TRUE(Processed(*peer, 3, put("t,80000000,1", "90")));
  ASSERT_TRUE(peer->Send(Call(4, "Mutate", put("t,,1", "90"))));
  Reply wrong = ReadReply(*peer);
  ASSERT_TRUE(wrong.header.has_exception());
  // A row outside the named region: HRegion.checkRow's WrongRegionException.
  EXPECT_EQ(wrong.header.exception().exception_class_name(),
            "org.apache.hadoop.hbase.regionserver.WrongRegionException");
  EXPECT_NE(wrong.header.exception().stack_trace().find("row='90'"), std::string::npos);
  hbase::GetRequest g;
  Region(g.mutable_region(), "t,40000000,1");
  g.mutable_get()->set_row("10");
  ASSERT_TRUE(peer->Send(Call(5, "Get", g)));
  Reply get_wrong = ReadReply(*peer);
  ASSERT_TRUE(get_wrong.header.has_exception());
  EXPECT_EQ(get_wrong.header.exception().exception_class_name(),
            "org.apache.hadoop.hbase.regionserver.WrongRegionException");
  g.mutable_region()->set_value("t,80000000,1");
  g.mutable_get()->set_row("90");
  ASSERT_TRUE(peer->Send(Call(6, "Get", g)));
  Reply ok = ReadReply(*peer);
  ASSERT_FALSE(ok.header.has_exception());
  hbase::GetResponse got;
  ASSERT_TRUE(got.ParseFromString(ok.message));
  ASSERT_EQ(got.result().cell_size(), 1);
  EXPECT_EQ(got.result().cell(0).value(), "v");
  // A region the catalog never named.
  g.mutable_region()->set_value("t,12345678,1");
  ASSERT_TRUE(peer->Send(Call(7, "Get", g)));
  Reply unknown = ReadReply(*peer);
  ASSERT_TRUE(unknown.header.has_exception());
  EXPECT_EQ(unknown.header.exception().exception_class_name(),
            "org.apache.hadoop.hbase.NotServingRegionException");
}

}  // namespace
}  // namespace wirebench
