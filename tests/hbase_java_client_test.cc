// HBase's Java client (hbase-client 2.5/2.6 with its default settings)
// replayed against `--rpc hbase` over loopback: what that client sends, as
// its source builds it, and each answer checked the way the client parses
// it. The server starts through the transport registry, as `wirebench
// server --rpc hbase --region memstore` starts it, with one and with four
// regions per table, and as a null cluster of three such servers
// (tests/hbase_cluster.h), where the client looks each row's region up in
// hbase:meta on server 0 and goes to the server the catalog names: its puts
// and gets, a Multi split by server, and scans from region to region across
// the servers.
//
// From the client's source:
//   - connection: "HBas", version 0, SIMPLE (80); a ConnectionHeader with
//     user_info, service_name, cell_block_codec_class KeyValueCodec (the
//     default hbase.client.default.rpc.codec) and version_info
//     (NettyRpcConnection / RpcConnection.getConnectionHeader);
//   - the RPC registry (RpcConnectionRegistry): ClientMetaService's
//     GetClusterId, GetMetaRegionLocations, GetActiveMaster;
//   - region lookup (ConnectionImplementation.locateRegionInMeta): a
//     reversed Scan of hbase:meta from "T,ROW,99999999999999" to "T,,"
//     (stop row included), family info, caching 5, then close; the first
//     row's info:regioninfo ("PBUF" + RegionInfo) must hold ROW;
//   - Table.put: a Mutate with its cells in MutationProto.column_value;
//     Table.get: a Get; Table.batch: a Multi whose puts carry their cells in
//     a KeyValue cell block (associated_cell_count), one RegionAction per
//     region; region names in the new format, "T,START,ID.ENCODED."
//     (RegionInfo.createRegionName: ENCODED the MD5 of what precedes it);
//   - ClientScanner: a Scan per region with caching 2^31-1 and max result
//     size 2 MB, next calls with next_call_seq, the next region when
//     more_results_in_region is false;
//   - in a cluster (AsyncRegionLocator, AsyncBatchRpcRetryingCaller): the
//     region's server from its meta row (info:server, info:serverstartcode),
//     a Multi per server holding one RegionAction per region, and a
//     NotServingRegionException from a server that does not hold the region
//     sends it back to meta;
//   - every Result through ProtobufUtil.toResult(proto, cellScanner):
//     `exists` together with cells is refused ("bad proto: exists with
//     cells is no allowed"), associated_cell_count cells come from the
//     block.
#include <gtest/gtest.h>

#include <cstring>
#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "codecs/schemas/Client.pb.h"
#include "codecs/schemas/RPC.pb.h"
#include "nullregion/region_service.h"
#include "regions/memstore/memstore_region.h"
#include "rpc/transport_server.h"
#include "tests/hbase_cluster.h"
#include "tests/hbase_raw_wire.h"
#include "tests/raw_peer.h"
#include "transports/hbase/hbase_wire.pb.h"
#include "transports/transport.h"

namespace wirebench {
namespace {

namespace pbw = hbasewire;
using testing::Be32;
using testing::Call;
using testing::KeyValue;
using testing::kKeyValueCodec;
using testing::Varint;
using testing::RawPeer;
constexpr char kTable[] = "jt";
constexpr char kNines[] = "99999999999999";  // HConstants.NINES
// HBase's exception classes, as the client matches them.
constexpr char kNotServingRegion[] = "org.apache.hadoop.hbase.NotServingRegionException";
constexpr char kWrongRegion[] = "org.apache.hadoop.hbase.regionserver.WrongRegionException";

// The encoded names (MD5, hex) of the catalog's regions of kTable, computed
// outside wirebench (Python's hashlib.md5 of "jt,,1", "jt,40000000,1", ...),
// of the scan test's table "js", and of the cluster's tables "jc" and "jm".
const std::map<std::string, std::string>& EncodedNames() {
  static const std::map<std::string, std::string> m = {
      {"jt,,1", "16e4b50403f2d8dc2347be52b3ae161d"},
      {"jt,40000000,1", "6958d5c81897a687f969e9a878daab9d"},
      {"jt,80000000,1", "3c9da553b8cefaddfc78aa4b60ec8372"},
      {"jt,c0000000,1", "0f8c0029daf247f898a2c2f8da908f69"},
      {"js,,1", "18df0a7b1d37f5b48da56ca27b620432"},
      {"js,40000000,1", "5fa97685cf9db1bf4bde3878a110cecc"},
      {"js,80000000,1", "40b2c9f880fe1fffb774a1c1adff4354"},
      {"js,c0000000,1", "e5bce03a001cc6004468457de72e7c75"},
      // The null cluster's tables, split at YCSB's points in 12.
      {"jc,,1", "cc3b1bc6a501cf3399088d12043d72c0"},
      {"jc,user1750,1", "e9061b20418071689e9a6d116abcfe7d"},
      {"jc,user2500,1", "129007bb34e7213688c6de811e5f8557"},
      {"jc,user3250,1", "4ab6e1a4049b914ee9a8d867004aaf23"},
      {"jc,user4000,1", "63a4c59c86ec10778dcbf02463023eda"},
      {"jc,user4750,1", "6aa80f8db553c056ff082da33edd0670"},
      {"jc,user5500,1", "98daa17db75a5554d811dec02a591040"},
      {"jc,user6250,1", "cbc61277101855d53db396594d1d493a"},
      {"jc,user7000,1", "30efb1bae0e7196c353d8825c0163afc"},
      {"jc,user7750,1", "68a0accf650a2bc042f5b6e7709a373e"},
      {"jc,user8500,1", "ba69666e3c22303c5443f024276b0335"},
      {"jc,user9250,1", "b2f17a0981203cbf056991737779c1ec"},
      {"jm,,1", "1599307f6a30a946bbd71be91d3f04e6"},
      {"jm,user1750,1", "f776f3aabe407587f5c878be5a7c2306"},
      {"jm,user2500,1", "392f58599b05d0d21d9da58c44f11a4d"},
      {"jm,user3250,1", "8ff3fda925a797eb3a9f0e1dbf793540"},
      {"jm,user4000,1", "904eb8938979c62f645492a3370ea759"},
      {"jm,user4750,1", "e83667b27da41d507ab4fa8478386c85"},
      {"jm,user5500,1", "ba50206889f0f06a3f8e2c955cc78343"},
      {"jm,user6250,1", "6a37f8ff94dbe26131e71c9603746802"},
      {"jm,user7000,1", "20408ca582662de04bf87f926014e84e"},
      {"jm,user7750,1", "984a01f600a6ee4bb368b8026e652e80"},
      {"jm,user8500,1", "37f8c0f2c89524c4a02623a9a02b53ff"},
      {"jm,user9250,1", "239b0e58d53063d66fd0b1ec78fda2b4"},
  };
  return m;
}

std::string LenField(uint32_t field, const std::string& bytes) {
  return Varint(uint64_t(field) << 3 | 2) + Varint(bytes.size()) + bytes;
}

std::string VarintField(uint32_t field, uint64_t v) { return Varint(uint64_t(field) << 3) + Varint(v); }

// RpcConnection.getConnectionHeader with the client's VersionInfo
// (VersionInfoUtil.getCurrentClientVersionInfo: version, url, revision,
// user, date, src_checksum, version_major, version_minor).
std::string JavaConnectionHeader(const std::string& service) {
  pbw::ConnectionHeader h;
  h.mutable_user_info()->set_effective_user("ycsb");
  h.set_service_name(service);
  h.set_cell_block_codec_class(kKeyValueCodec);
  const std::string version = LenField(1, "2.5.8") +
                              LenField(2, "git://buildhost/hbase") +
                              LenField(3, "0123456789abcdef0123456789abcdef01234567") +
                              LenField(4, "builder") + LenField(5, "Thu Mar 28 2024") +
                              LenField(6, "1f2e3d4c5b6a79881f2e3d4c5b6a7988") +
                              VarintField(7, 2) + VarintField(8, 5);
  const std::string b = h.SerializeAsString() + LenField(5, version);
  return Be32(uint32_t(b.size())) + b;
}

using Kv = testing::KeyValueCell;

struct Reply : testing::HBaseReply {
  std::vector<Kv> cells;  // The cell block, as KeyValueCodec's decoder reads it.
  std::string exception() const {
    return header.has_exception() ? header.exception().exception_class_name() : std::string();
  }
};

// A reply that, unless the connection ended first (`closed`), must parse.
Reply ReadReply(RawPeer& peer) {
  Reply r;
  static_cast<testing::HBaseReply&>(r) = testing::ReadParsedHBaseReply(&peer);
  EXPECT_TRUE(r.ok || r.closed) << "the reply did not parse";
  r.cells = testing::ParseKeyValueBlock(r.block);
  return r;
}

// ProtobufUtil.toResult(proto, cellScanner): the client's rules. `next`
// walks the reply's cell block across the Results of one reply.
struct JavaResult {
  std::string error;  // What the client would throw; empty when parsed.
  bool has_exists = false, exists = false;
  std::vector<Kv> cells;
};

JavaResult ToResult(const hbase::Result& p, const std::vector<Kv>& block, size_t* next) {
  JavaResult r;
  if (p.has_exists()) {
    if (p.cell_size() > 0 || (p.has_associated_cell_count() && p.associated_cell_count() > 0)) {
      r.error = "IllegalArgumentException: bad proto: exists with cells is no allowed";
      return r;
    }
    r.has_exists = true;
    r.exists = p.exists();
    return r;
  }
  for (int i = 0; i < p.associated_cell_count(); ++i) {
    if (*next >= block.size()) {
      r.error = "IOException: Failed get " + std::to_string(i);
      return r;
    }
    r.cells.push_back(block[(*next)++]);
  }
  for (const hbase::Cell& c : p.cell())
    r.cells.push_back({c.row(), c.family(), c.qualifier(), c.value()});
  return r;
}

// One server started as `wirebench server --rpc hbase --region memstore`
// starts it: through the transport registry.
class JavaServer {
 public:
  explicit JavaServer(uint32_t regions) : region_(NewMemstoreRegion()), service_(region_.get()) {
    rpc::ServerOptions o;
    o.port = 0;
    OptionSettings own;  // The hbase transport's own options.
    own.Set("--regions-per-table", std::to_string(regions));
    auto transport = Transports().Resolve("hbase");
    EXPECT_TRUE(transport.ok());
    auto server = (*transport)->StartServer(o, own, region_.get(), &service_);
    EXPECT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    regions_ = regions;
  }
  ~JavaServer() { server_->Stop(); }
  uint16_t port() const { return server_->port(); }
  uint32_t regions() const { return regions_; }

  std::unique_ptr<RawPeer> Open(const std::string& service = "ClientService") {
    auto peer = std::make_unique<RawPeer>(port());
    EXPECT_TRUE(peer->Send(std::string("HBas\0\x50", 6) + JavaConnectionHeader(service)));
    return peer;
  }

 private:
  std::unique_ptr<Region> region_;
  RegionService service_;
  std::unique_ptr<rpc::TransportServer> server_;
  uint32_t regions_ = 1;
};

JavaServer* g_one = nullptr;
JavaServer* g_four = nullptr;

class Servers : public ::testing::Environment {
 public:
  void SetUp() override {
    g_one = new JavaServer(1);
    g_four = new JavaServer(4);
  }
  void TearDown() override {
    delete g_one;
    delete g_four;
  }
};
const auto* const kEnv = ::testing::AddGlobalTestEnvironment(new Servers);

void SetRegion(hbase::RegionSpecifier* r, const std::string& name) {
  r->set_type(hbase::RegionSpecifier::REGION_NAME);
  r->set_value(name);
}

// ScanRequest as ScannerCallable/RequestConverter.buildScanRequest write it.
hbase::ScanRequest OpenScanRequest(const std::string& region, const hbase::Scan& scan,
                                   uint32_t rows) {
  hbase::ScanRequest req;
  SetRegion(req.mutable_region(), region);
  *req.mutable_scan() = scan;
  req.set_number_of_rows(rows);
  req.set_close_scanner(false);
  req.set_client_handles_partials(true);
  req.set_client_handles_heartbeats(true);
  req.set_track_scan_metrics(false);
  req.set_renew(false);
  return req;
}

hbase::ScanRequest NextScanRequest(uint64_t id, uint32_t rows, uint64_t seq, bool close) {
  hbase::ScanRequest req;
  req.set_scanner_id(id);
  req.set_number_of_rows(rows);
  req.set_close_scanner(close);
  req.set_next_call_seq(seq);
  req.set_client_handles_partials(true);
  req.set_client_handles_heartbeats(true);
  req.set_track_scan_metrics(false);
  req.set_renew(false);
  return req;
}

// The Results of a ScanResponse, as ScannerCallable's
// ResponseConverter.getResults reads them (cells_per_result with a block).
std::vector<JavaResult> ScanResults(const Reply& r, const hbase::ScanResponse& resp) {
  std::vector<JavaResult> out;
  size_t next = 0;
  for (int i = 0; i < resp.cells_per_result_size(); ++i) {
    hbase::Result p;
    p.set_associated_cell_count(int32_t(resp.cells_per_result(i)));
    out.push_back(ToResult(p, r.cells, &next));
  }
  return out;
}

struct Location {
  std::string error;
  pbw::RegionInfo info;
  std::string server;
  std::string region_name;  // As the client names it (new format).
};

// The new-format name RegionInfo.createRegionName gives the region.
std::string JavaRegionName(const pbw::RegionInfo& ri) {
  const std::string base = ri.table_name().qualifier() + "," + ri.start_key() + "," +
                           std::to_string(ri.region_id());
  auto it = EncodedNames().find(base);
  return it == EncodedNames().end() ? base : base + "." + it->second + ".";
}

Location FromMetaRow(const JavaResult& row) {
  Location loc;
  for (const Kv& kv : row.cells) {
    if (kv.family != "info") continue;
    if (kv.qualifier == "server") loc.server = kv.value;
    if (kv.qualifier == "regioninfo") {
      if (kv.value.compare(0, 4, "PBUF") != 0 || !loc.info.ParseFromString(kv.value.substr(4)))
        loc.error = "info:regioninfo is not PBUF + RegionInfo";
    }
  }
  if (loc.error.empty() && !loc.info.has_table_name()) loc.error = "no info:regioninfo";
  loc.region_name = JavaRegionName(loc.info);
  return loc;
}

// locateRegionInMeta: the reversed meta scan, then close.
Location LocateRegion(RawPeer& peer, uint32_t* call_id, const std::string& row,
                      const std::string& table = kTable) {
  hbase::Scan scan;
  scan.add_column()->set_family("info");
  scan.set_start_row(table + "," + row + "," + kNines);
  scan.set_stop_row(table + ",,");
  scan.set_include_stop_row(true);
  scan.set_reversed(true);
  scan.set_caching(5);
  scan.set_max_result_size(2 * 1024 * 1024);
  scan.set_readtype(2);  // PREAD
  EXPECT_TRUE(peer.Send(Call(++*call_id, "Scan", OpenScanRequest("hbase:meta,,1", scan, 5))));
  Reply r = ReadReply(peer);
  Location loc;
  hbase::ScanResponse resp;
  if (!r.exception().empty() || !resp.ParseFromString(r.message)) {
    loc.error = "the meta scan failed: " + r.exception();
    return loc;
  }
  const auto results = ScanResults(r, resp);
  if (resp.more_results_in_region()) {  // The client closes what is still open.
    EXPECT_TRUE(peer.Send(Call(++*call_id, "Scan",
                               NextScanRequest(resp.scanner_id(), 0, 0, /*close=*/true))));
    EXPECT_EQ(ReadReply(peer).exception(), "");
  }
  if (results.empty()) {
    loc.error = "TableNotFoundException: the reversed meta scan returned no row";
    return loc;
  }
  if (!results[0].error.empty()) {
    loc.error = results[0].error;
    return loc;
  }
  return FromMetaRow(results[0]);
}

// Whether the region holds `row` (byte order, the end key excluded).
bool Holds(const pbw::RegionInfo& ri, const std::string& row) {
  return ri.start_key() <= row && (ri.end_key().empty() || row < ri.end_key());
}

std::vector<std::string> LookupRows() {
  std::vector<std::string> rows;
  for (int b = 0; b < 256; ++b) {
    rows.push_back(std::string(1, char(b)));
    rows.push_back(std::string(1, char(b)) + "row");
  }
  std::string seven(8, '\0');
  seven[7] = 7;  // Bytes.toBytes(7L)
  for (const std::string& r : {seven, std::string(" sp"), std::string("+x"), std::string(",0"),
                               std::string("user1"), std::string("\xff\xff")})
    rows.push_back(r);
  return rows;
}

class JavaClient : public ::testing::TestWithParam<int> {
 protected:
  JavaServer& server() { return GetParam() == 1 ? *g_one : *g_four; }
};

INSTANTIATE_TEST_SUITE_P(Regions, JavaClient, ::testing::Values(1, 4),
                         [](const auto& info) { return std::to_string(info.param) + "Regions"; });

TEST_P(JavaClient, RegistryCallsNameThisServer) {
  auto peer = server().Open("ClientMetaService");
  ASSERT_TRUE(peer->Send(Call(1, "GetClusterId", pbw::GetClusterIdRequest())));
  Reply r = ReadReply(*peer);
  ASSERT_EQ(r.exception(), "");
  pbw::GetClusterIdResponse id;
  ASSERT_TRUE(id.ParseFromString(r.message));
  EXPECT_EQ(id.cluster_id().size(), 36u);  // A UUID string.
  ASSERT_TRUE(peer->Send(Call(2, "GetMetaRegionLocations", pbw::GetMetaRegionLocationsRequest())));
  r = ReadReply(*peer);
  ASSERT_EQ(r.exception(), "");
  pbw::GetMetaRegionLocationsResponse meta;
  ASSERT_TRUE(meta.ParseFromString(r.message));
  ASSERT_EQ(meta.meta_locations_size(), 1);
  EXPECT_EQ(meta.meta_locations(0).server_name().port(), server().port());
  EXPECT_EQ(meta.meta_locations(0).region_info().table_name().namespace_(), "hbase");
  EXPECT_EQ(meta.meta_locations(0).region_info().table_name().qualifier(), "meta");
  ASSERT_TRUE(peer->Send(Call(3, "GetActiveMaster", pbw::GetActiveMasterRequest())));
  r = ReadReply(*peer);
  ASSERT_EQ(r.exception(), "");
}

// Hbase:meta in MetaCellComparator's order, so the
// reversed lookup finds rows whose first byte sorts below ','.
TEST_P(JavaClient, ReversedMetaLookupFindsEveryRow) {
  auto peer = server().Open();
  uint32_t id = 0;
  for (const std::string& row : LookupRows()) {
    Location loc = LocateRegion(*peer, &id, row);
    ASSERT_EQ(loc.error, "") << "row " << ::testing::PrintToString(row);
    EXPECT_EQ(loc.info.table_name().qualifier(), kTable);
    EXPECT_TRUE(Holds(loc.info, row)) << ::testing::PrintToString(row) << " located in ["
                                      << loc.info.start_key() << ", " << loc.info.end_key() << ")";
    EXPECT_EQ(loc.server, "127.0.0.1:" + std::to_string(server().port()));
  }
}

// The same through the closest_row_before Get older clients send.
TEST_P(JavaClient, ClosestRowBeforeGetFindsEveryRow) {
  auto peer = server().Open();
  uint32_t id = 0;
  for (const std::string& row : LookupRows()) {
    hbase::GetRequest g;
    SetRegion(g.mutable_region(), "hbase:meta,,1");
    g.mutable_get()->set_row(std::string(kTable) + "," + row + "," + kNines);
    g.mutable_get()->add_column()->set_family("info");
    g.mutable_get()->set_closest_row_before(true);
    ASSERT_TRUE(peer->Send(Call(++id, "Get", g)));
    Reply r = ReadReply(*peer);
    ASSERT_EQ(r.exception(), "");
    hbase::GetResponse resp;
    ASSERT_TRUE(resp.ParseFromString(r.message));
    size_t next = 0;
    const JavaResult jr = ToResult(resp.result(), r.cells, &next);
    ASSERT_EQ(jr.error, "");
    ASSERT_FALSE(jr.cells.empty()) << "no row before " << ::testing::PrintToString(row);
    const Location loc = FromMetaRow(jr);
    ASSERT_EQ(loc.error, "");
    EXPECT_TRUE(Holds(loc.info, row)) << ::testing::PrintToString(row);
  }
}

// Table.put as ProtobufUtil.toMutation writes it: cells in the message,
// timestamps HConstants.LATEST_TIMESTAMP.
hbase::MutateRequest JavaPut(const std::string& region, const std::string& row,
                           const std::string& value) {
  hbase::MutateRequest m;
  SetRegion(m.mutable_region(), region);
  auto* mu = m.mutable_mutation();
  mu->set_row(row);
  mu->set_mutate_type(hbase::MutationProto::PUT);
  mu->set_timestamp(INT64_MAX);
  auto* cv = mu->add_column_value();
  cv->set_family("f");
  auto* qv = cv->add_qualifier_value();
  qv->set_qualifier("q");
  qv->set_value(value);
  qv->set_timestamp(INT64_MAX);
  return m;
}

// ProtobufUtil.toGet of `new Get(row)`: cache_blocks and max_versions set.
hbase::Get JavaGet(const std::string& row) {
  hbase::Get g;
  g.set_row(row);
  g.set_cache_blocks(true);
  g.set_max_versions(1);
  return g;
}

// A Get (and a Multi's get) of a row that exists carries
// its cells and no `exists`; only an existence-only Get carries `exists`.
TEST_P(JavaClient, PutThenGetParseAsTheJavaClientParsesThem) {
  auto peer = server().Open();
  uint32_t id = 0;
  for (const std::string row : {"a-row", "user7", "\\x01bin", "~last"}) {
    const Location loc = LocateRegion(*peer, &id, row);
    ASSERT_EQ(loc.error, "");
    ASSERT_TRUE(peer->Send(Call(++id, "Mutate", JavaPut(loc.region_name, row, "v-" + row))));
    Reply r = ReadReply(*peer);
    ASSERT_EQ(r.exception(), "") << r.header.exception().stack_trace();
    hbase::MutateResponse mr;
    ASSERT_TRUE(mr.ParseFromString(r.message));
    EXPECT_TRUE(mr.processed());

    hbase::GetRequest g;
    SetRegion(g.mutable_region(), loc.region_name);
    *g.mutable_get() = JavaGet(row);
    ASSERT_TRUE(peer->Send(Call(++id, "Get", g)));
    r = ReadReply(*peer);
    ASSERT_EQ(r.exception(), "") << r.header.exception().stack_trace();
    hbase::GetResponse gr;
    ASSERT_TRUE(gr.ParseFromString(r.message));
    size_t next = 0;
    JavaResult jr = ToResult(gr.result(), r.cells, &next);
    ASSERT_EQ(jr.error, "") << row;
    ASSERT_EQ(jr.cells.size(), 1u);
    EXPECT_EQ(jr.cells[0].value, "v-" + row);

    g.mutable_get()->set_existence_only(true);  // Table.exists
    ASSERT_TRUE(peer->Send(Call(++id, "Get", g)));
    r = ReadReply(*peer);
    ASSERT_TRUE(gr.ParseFromString(r.message));
    next = 0;
    jr = ToResult(gr.result(), r.cells, &next);
    ASSERT_EQ(jr.error, "");
    EXPECT_TRUE(jr.has_exists && jr.exists);
  }
}

TEST_P(JavaClient, MultiWithAKeyValueCellBlockParsesAsTheJavaClientParsesIt) {
  auto peer = server().Open();
  uint32_t id = 0;
  // Rows in every region; one RegionAction per region, as the client groups them.
  std::map<std::string, std::vector<std::string>> by_region;
  for (const std::string row : {"0m", "5m", "9m", "a0", "f0", "user3"}) {
    const Location loc = LocateRegion(*peer, &id, row);
    ASSERT_EQ(loc.error, "");
    by_region[loc.region_name].push_back(row);
  }
  hbase::MultiRequest puts, gets;
  std::string block;
  uint32_t index = 0;
  for (const auto& [region, rows] : by_region) {
    auto* pra = puts.add_regionaction();
    SetRegion(pra->mutable_region(), region);
    auto* gra = gets.add_regionaction();
    SetRegion(gra->mutable_region(), region);
    for (const std::string& row : rows) {
      auto* a = pra->add_action();
      a->set_index(index);
      a->mutable_mutation()->set_row(row);
      a->mutable_mutation()->set_mutate_type(hbase::MutationProto::PUT);
      a->mutable_mutation()->set_associated_cell_count(2);
      block += KeyValue(row, "f", "a", 1700000000000, 4, "va-" + row);
      block += KeyValue(row, "f", "b", 1700000000000, 4, "vb-" + row);
      auto* ga = gra->add_action();
      ga->set_index(index++);
      *ga->mutable_get() = JavaGet(row);
    }
  }
  ASSERT_TRUE(peer->Send(Call(++id, "Multi", puts, block)));
  Reply r = ReadReply(*peer);
  ASSERT_EQ(r.exception(), "") << r.header.exception().stack_trace();
  ASSERT_TRUE(peer->Send(Call(++id, "Multi", gets)));
  r = ReadReply(*peer);
  ASSERT_EQ(r.exception(), "") << r.header.exception().stack_trace();
  hbase::MultiResponse resp;
  ASSERT_TRUE(resp.ParseFromString(r.message));
  ASSERT_EQ(resp.regionactionresult_size(), int(by_region.size()));
  size_t next = 0, results = 0;
  for (const auto& rar : resp.regionactionresult()) {
    ASSERT_FALSE(rar.has_exception()) << rar.exception().value();
    for (const auto& roe : rar.resultorexception()) {
      ASSERT_FALSE(roe.has_exception()) << roe.exception().value();
      const JavaResult jr = ToResult(roe.result(), r.cells, &next);
      ASSERT_EQ(jr.error, "") << "action " << roe.index();
      ASSERT_EQ(jr.cells.size(), 2u);
      EXPECT_EQ(jr.cells[0].value, "va-" + jr.cells[0].row);
      ++results;
    }
  }
  EXPECT_EQ(results, size_t(index));
}

// ClientScanner over every region: each row once, in order; `ttl` only on
// the call that opens a scanner; a call on a scanner
// that ran out answered with HBase's empty ScanResponse.
TEST_P(JavaClient, ScanAcrossRegionsWithNextAndClose) {
  auto peer = server().Open();
  uint32_t id = 0;
  const std::string table = "js";  // A table of its own: every row is this test's.
  std::vector<std::string> want;
  for (uint32_t i = 0; i < 64; ++i) {
    char row[16];
    std::snprintf(row, sizeof row, "%08x", i * 0x04000000u + 7);
    want.push_back(row);
    const Location loc = LocateRegion(*peer, &id, row, table);
    ASSERT_EQ(loc.error, "");
    ASSERT_TRUE(peer->Send(Call(++id, "Mutate", JavaPut(loc.region_name, row, "x"))));
    ASSERT_EQ(ReadReply(*peer).exception(), "");
  }
  for (bool reversed : {false, true}) {
    std::vector<std::string> got;
    // The row whose region comes next: the table's first (forward) or last
    // (reversed: above every split point) region first.
    std::string locate = reversed ? std::string(9, '\xff') : std::string();
    std::string start;  // Where the scan goes on: the previous region's bound.
    uint64_t last_id = 0;
    for (int region = 0; region < 8; ++region) {
      const Location loc = LocateRegion(*peer, &id, locate, table);
      ASSERT_EQ(loc.error, "");
      hbase::Scan scan;
      scan.set_max_result_size(2 * 1024 * 1024);
      scan.set_caching(2147483647);
      scan.set_reversed(reversed);
      scan.add_column()->set_family("f");
      scan.set_start_row(start);
      if (reversed && !start.empty()) scan.set_include_start_row(false);
      ASSERT_TRUE(peer->Send(Call(++id, "Scan", OpenScanRequest(loc.region_name, scan, 2147483647))));
      Reply r = ReadReply(*peer);
      ASSERT_EQ(r.exception(), "") << r.header.exception().stack_trace();
      hbase::ScanResponse resp;
      ASSERT_TRUE(resp.ParseFromString(r.message));
      EXPECT_TRUE(resp.has_ttl() || !resp.more_results_in_region())
          << "HBase sends ttl when a scanner opens";
      uint64_t seq = 0;
      for (;;) {
        for (const JavaResult& jr : ScanResults(r, resp)) {
          ASSERT_EQ(jr.error, "");
          ASSERT_FALSE(jr.cells.empty());
          got.push_back(jr.cells[0].row);
        }
        last_id = resp.scanner_id();
        if (!resp.more_results_in_region()) break;
        ASSERT_TRUE(peer->Send(
            Call(++id, "Scan", NextScanRequest(resp.scanner_id(), 2147483647, seq++, false))));
        r = ReadReply(*peer);
        ASSERT_EQ(r.exception(), "") << r.header.exception().stack_trace();
        ASSERT_TRUE(resp.ParseFromString(r.message));
        EXPECT_FALSE(resp.has_ttl()) << "HBase sends ttl only when a scanner opens";
      }
      if (!resp.more_results()) break;
      start = reversed ? loc.info.start_key() : loc.info.end_key();
      ASSERT_FALSE(start.empty()) << "more_results past the table's last region";
      locate = start;
      if (reversed) {  // A row just below the region's start key.
        locate.back() = char(uint8_t(locate.back()) - 1);
        locate += "\xff\xff";
      }
    }
    std::vector<std::string> expected = want;
    if (reversed) std::reverse(expected.begin(), expected.end());
    EXPECT_EQ(got, expected) << (reversed ? "reversed" : "forward");

    // The scanner ran out: HBase 2 remembers it closed and answers a
    // further call with an empty ScanResponse (no UnknownScannerException).
    ASSERT_TRUE(peer->Send(Call(++id, "Scan", NextScanRequest(last_id, 10, 1, false))));
    Reply r = ReadReply(*peer);
    ASSERT_EQ(r.exception(), "");
    hbase::ScanResponse resp;
    ASSERT_TRUE(resp.ParseFromString(r.message));
    EXPECT_EQ(resp.cells_per_result_size(), 0);
    EXPECT_FALSE(resp.has_more_results());
  }
}

// Scan.max_result_size bounds each reply (HBase's
// ScannerContext size limit): the Java client's default scan (caching
// 2^31-1, 2 MB) gets replies of at most the limit plus one row, the scanner
// staying open (more_results_in_region) until the rows run out.
TEST_P(JavaClient, MaxResultSizeBoundsEachScanReply) {
  auto peer = server().Open();
  uint32_t id = 0;
  const Location loc = LocateRegion(*peer, &id, "big");
  ASSERT_EQ(loc.error, "");
  const std::string value(100 * 1000, 'v');
  std::vector<std::string> want;
  for (int i = 0; i < 40; ++i) {
    char row[16];
    std::snprintf(row, sizeof row, "big%03d", i);
    want.push_back(row);
    ASSERT_TRUE(peer->Send(Call(++id, "Mutate", JavaPut(loc.region_name, row, value))));
    ASSERT_EQ(ReadReply(*peer).exception(), "");
  }
  constexpr uint64_t kLimit = 300 * 1000;
  hbase::Scan scan;
  scan.set_start_row("big");
  scan.set_stop_row("bih");
  scan.set_caching(2147483647);
  scan.set_max_result_size(kLimit);
  ASSERT_TRUE(peer->Send(Call(++id, "Scan", OpenScanRequest(loc.region_name, scan, 2147483647))));
  std::vector<std::string> got;
  uint64_t seq = 0;
  int replies = 0;
  for (;;) {
    Reply r = ReadReply(*peer);
    ASSERT_EQ(r.exception(), "") << r.header.exception().stack_trace();
    hbase::ScanResponse resp;
    ASSERT_TRUE(resp.ParseFromString(r.message));
    ++replies;
    uint64_t bytes = 0;
    for (const JavaResult& jr : ScanResults(r, resp)) {
      ASSERT_EQ(jr.error, "");
      got.push_back(jr.cells.at(0).row);
      for (const Kv& kv : jr.cells) bytes += kv.row.size() + kv.family.size() + kv.qualifier.size() + kv.value.size();
    }
    EXPECT_LE(bytes, kLimit + value.size() + 100) << "a reply past max_result_size plus one row";
    if (!resp.more_results_in_region()) break;
    ASSERT_LT(replies, 100);
    ASSERT_TRUE(peer->Send(Call(++id, "Scan", NextScanRequest(resp.scanner_id(), 2147483647, seq++, false))));
  }
  EXPECT_EQ(got, want);
  EXPECT_GE(replies, 10);  // 40 rows of 100 KB, at most 3 or 4 a reply.
}

// A cell over hbase.server.keyvalue.maxsize (10,485,760
// bytes as a KeyValue with its length) gets HBase's DoNotRetryIOException
// naming the limit, on every path; a request over the server's frame limit
// gets RequestTooBigException, as this client announces 2.5.
TEST_P(JavaClient, CellsOverTheKeyValueLimitAreRefused) {
  auto peer = server().Open();
  uint32_t id = 0;
  const Location loc = LocateRegion(*peer, &id, "huge");
  ASSERT_EQ(loc.error, "");
  // Row "huge" (4), family "f", qualifier "q": estimatedSerializedSizeOf is
  // 30 bytes and the value (int length, key and value lengths 4 + 4, the key
  // 2 + 4 + 1 + 1 + 1 + 8 + 1). At the limit is accepted; one byte more is not.
  const std::string fits(10485760 - 30, 'x'), over(10485760 - 29, 'x');
  ASSERT_TRUE(peer->Send(Call(++id, "Mutate", JavaPut(loc.region_name, "huge", fits))));
  EXPECT_EQ(ReadReply(*peer).exception(), "");
  ASSERT_TRUE(peer->Send(Call(++id, "Mutate", JavaPut(loc.region_name, "huge", over))));
  Reply r = ReadReply(*peer);
  EXPECT_EQ(r.exception(), "org.apache.hadoop.hbase.DoNotRetryIOException");
  EXPECT_NE(r.header.exception().stack_trace().find("hbase.server.keyvalue.maxsize"),
            std::string::npos);
  // The same cell in a Multi's KeyValue cell block.
  hbase::MultiRequest multi;
  auto* ra = multi.add_regionaction();
  SetRegion(ra->mutable_region(), loc.region_name);
  auto* a = ra->add_action();
  a->set_index(0);
  a->mutable_mutation()->set_row("huge");
  a->mutable_mutation()->set_mutate_type(hbase::MutationProto::PUT);
  a->mutable_mutation()->set_associated_cell_count(1);
  ASSERT_TRUE(peer->Send(Call(++id, "Multi", multi, KeyValue("huge", "f", "q", 1, 4, over))));
  r = ReadReply(*peer);
  ASSERT_EQ(r.exception(), "");
  hbase::MultiResponse mr;
  ASSERT_TRUE(mr.ParseFromString(r.message));
  ASSERT_EQ(mr.regionactionresult_size(), 1);
  ASSERT_EQ(mr.regionactionresult(0).resultorexception_size(), 1);
  EXPECT_EQ(mr.regionactionresult(0).resultorexception(0).exception().name(),
            "org.apache.hadoop.hbase.DoNotRetryIOException");
  // Past the frame limit (16 MiB): RequestTooBigException, then the close.
  ASSERT_TRUE(peer->Send(Be32(32u << 20)));
  EXPECT_EQ(ReadReply(*peer).exception(),
            "org.apache.hadoop.hbase.exceptions.RequestTooBigException");
}

// A scanner the client closed: a further call is answered empty, as
// RSRpcServices' closedScanners does.
TEST_P(JavaClient, CallOnAClosedScannerIsAnsweredEmpty) {
  auto peer = server().Open();
  uint32_t id = 0;
  const Location loc = LocateRegion(*peer, &id, "");
  ASSERT_EQ(loc.error, "");
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(peer->Send(
        Call(++id, "Mutate", JavaPut(loc.region_name, "0c" + std::to_string(i), "x"))));
    ASSERT_EQ(ReadReply(*peer).exception(), "");
  }
  hbase::Scan scan;
  scan.set_stop_row("0c9");
  ASSERT_TRUE(peer->Send(Call(++id, "Scan", OpenScanRequest(loc.region_name, scan, 1))));
  Reply r = ReadReply(*peer);
  hbase::ScanResponse resp;
  ASSERT_TRUE(resp.ParseFromString(r.message));
  ASSERT_TRUE(resp.more_results_in_region());
  const uint64_t scanner = resp.scanner_id();
  ASSERT_TRUE(peer->Send(Call(++id, "Scan", NextScanRequest(scanner, 0, 0, /*close=*/true))));
  ASSERT_EQ(ReadReply(*peer).exception(), "");
  ASSERT_TRUE(peer->Send(Call(++id, "Scan", NextScanRequest(scanner, 1, 1, false))));
  r = ReadReply(*peer);
  ASSERT_EQ(r.exception(), "") << "HBase 2 answers a closed scanner's call empty";
  ASSERT_TRUE(resp.ParseFromString(r.message));
  EXPECT_EQ(resp.cells_per_result_size(), 0);
}

// A region this server does not hold gets
// NotServingRegionException; a row outside the named region,
// WrongRegionException (HRegion.checkRow).
TEST_P(JavaClient, RegionsThatDoNotExistAreNotServed) {
  auto peer = server().Open();
  uint32_t id = 0;
  const Location loc = LocateRegion(*peer, &id, "row");
  ASSERT_EQ(loc.error, "");
  const std::string base = std::string(kTable) + ",,1";
  for (const std::string& name :
       {std::string(kTable) + ",,2", std::string(kTable) + ",,7", base + ".00000000000000000000000000000000.",
        std::string(kTable) + ",12345678,1", std::string("hbase:meta,,2"), std::string("nocomma")}) {
    hbase::GetRequest g;
    SetRegion(g.mutable_region(), name);
    *g.mutable_get() = JavaGet("row");
    ASSERT_TRUE(peer->Send(Call(++id, "Get", g)));
    Reply r = ReadReply(*peer);
    EXPECT_EQ(r.exception(), kNotServingRegion) << name;
    ASSERT_TRUE(peer->Send(Call(++id, "Mutate", JavaPut(name, "row", "x"))));
    EXPECT_EQ(ReadReply(*peer).exception(), kNotServingRegion) << name;
  }
  // Both spellings of the region that holds the row are served.
  for (const std::string& name : {loc.region_name, loc.region_name.substr(0, loc.region_name.find('.'))}) {
    hbase::GetRequest g;
    SetRegion(g.mutable_region(), name);
    *g.mutable_get() = JavaGet("row");
    ASSERT_TRUE(peer->Send(Call(++id, "Get", g)));
    EXPECT_EQ(ReadReply(*peer).exception(), "") << name;
  }
  if (server().regions() > 1) {
    hbase::GetRequest g;
    SetRegion(g.mutable_region(), loc.region_name);  // Holds "row" ('r' = 0x72 > '4'), not "0".
    *g.mutable_get() = JavaGet("0");
    ASSERT_TRUE(peer->Send(Call(++id, "Get", g)));
    EXPECT_EQ(ReadReply(*peer).exception(), kWrongRegion);
  }
}

// ---- A null cluster of three ----

// Three servers over memstore regions, 12 regions per table at YCSB's split
// points (region i on server i % 3), and the client's connections to them:
// one per server, opened when the catalog first sends it there.
class HBaseJavaCluster : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cluster_ = new testing::HBaseCluster({.servers = 3, .regions = 12,
                                          .split = SplitAlgorithm::kYcsb, .zookeeper = "",
                                          .region = [] { return NewMemstoreRegion(); }});
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(cluster_->ok()) << cluster_->why(); }

  // The connection to server k, as the client's connection pool keeps it.
  RawPeer& Peer(uint32_t k) {
    auto& p = peers_[k];
    if (!p) {
      p = std::make_unique<RawPeer>(cluster_->port(k));
      EXPECT_TRUE(p->Send(std::string("HBas\0\x50", 6) + JavaConnectionHeader("ClientService")));
    }
    return *p;
  }
  // The server a meta row names ("host:port"), or 3 when none.
  uint32_t ServerOf(const Location& loc) const {
    const size_t colon = loc.server.rfind(':');
    if (loc.server.substr(0, colon) != "127.0.0.1") return 3;
    return cluster_->ServerOnPort(uint16_t(std::stoi(loc.server.substr(colon + 1))));
  }
  // locateRegionInMeta on server 0, where GetMetaRegionLocations sends it.
  Location Locate(const std::string& row, const std::string& table) {
    return LocateRegion(Peer(0), &id_, row, table);
  }
  uint64_t Calls(uint32_t k, const char* method) {
    return cluster_->Stats(k)["calls"][method].get<uint64_t>();
  }

  static testing::HBaseCluster* cluster_;
  std::map<uint32_t, std::unique_ptr<RawPeer>> peers_;
  uint32_t id_ = 0;
};
testing::HBaseCluster* HBaseJavaCluster::cluster_ = nullptr;

// A YCSB key, user + 4 digits: spread over every region of the split.
std::string UserKey(uint32_t n) {
  char row[16];
  std::snprintf(row, sizeof row, "user%04u", n);
  return row;
}

// RpcConnectionRegistry against a bootstrap node that does not hold meta:
// the meta location, the master and the cluster id it answers are server 0's,
// and its bootstrap nodes name every server.
TEST_F(HBaseJavaCluster, RegistryOnAnyServerSendsTheClientToServerZeroForMeta) {
  auto peer = std::make_unique<RawPeer>(cluster_->port(2));
  ASSERT_TRUE(peer->Send(std::string("HBas\0\x50", 6) + JavaConnectionHeader("ClientMetaService")));
  ASSERT_TRUE(peer->Send(Call(1, "GetMetaRegionLocations", pbw::GetMetaRegionLocationsRequest())));
  Reply r = ReadReply(*peer);
  ASSERT_EQ(r.exception(), "");
  pbw::GetMetaRegionLocationsResponse meta;
  ASSERT_TRUE(meta.ParseFromString(r.message));
  ASSERT_EQ(meta.meta_locations_size(), 1);
  EXPECT_EQ(meta.meta_locations(0).server_name().port(), cluster_->port(0));
  EXPECT_EQ(meta.meta_locations(0).server_name().start_code(), cluster_->plan().StartCode(0));
  ASSERT_TRUE(peer->Send(Call(2, "GetBootstrapNodes", pbw::GetBootstrapNodesRequest())));
  r = ReadReply(*peer);
  pbw::GetBootstrapNodesResponse nodes;
  ASSERT_TRUE(nodes.ParseFromString(r.message));
  ASSERT_EQ(nodes.server_name_size(), 3);
  for (uint32_t k = 0; k < 3; ++k) EXPECT_EQ(nodes.server_name(int(k)).port(), cluster_->port(k));
  // The meta scan on a server that does not hold meta.
  uint32_t id = 0;
  const Location wrong = LocateRegion(Peer(2), &id, "user5000", "jm");
  EXPECT_NE(wrong.error.find(kNotServingRegion), std::string::npos) << wrong.error;
}

// Table.put and Table.get of rows in every region: each row looked up in
// hbase:meta, then sent to the server its meta row names, which holds it;
// the same put at another server is refused with NotServingRegionException
// (the client would look the region up again).
TEST_F(HBaseJavaCluster, EachRowLookedUpInMetaThenServedByItsServer) {
  std::vector<uint64_t> mutates;
  for (uint32_t k = 0; k < 3; ++k) mutates.push_back(Calls(k, "Mutate"));
  std::vector<std::string> rows;
  for (uint32_t n = 0; n < 10000; n += 250) rows.push_back(UserKey(n + 7));
  for (const std::string& row : {std::string("a"), std::string("user"), std::string("user1750"),
                                 std::string("user9999z"), std::string("\xff")})
    rows.push_back(row);
  std::vector<int> per_server(3, 0);
  for (const std::string& row : rows) {
    SCOPED_TRACE(row);
    const Location loc = Locate(row, "jm");
    ASSERT_EQ(loc.error, "");
    ASSERT_TRUE(Holds(loc.info, row));
    const uint32_t k = ServerOf(loc);
    ASSERT_EQ(k, cluster_->plan().ServerOfRow(row)) << loc.server;
    ++per_server[k];
    RawPeer& peer = Peer(k);
    ASSERT_TRUE(peer.Send(Call(++id_, "Mutate", JavaPut(loc.region_name, row, "v-" + row))));
    Reply r = ReadReply(peer);
    ASSERT_EQ(r.exception(), "") << r.header.exception().stack_trace();
    hbase::GetRequest g;
    SetRegion(g.mutable_region(), loc.region_name);
    *g.mutable_get() = JavaGet(row);
    ASSERT_TRUE(peer.Send(Call(++id_, "Get", g)));
    r = ReadReply(peer);
    ASSERT_EQ(r.exception(), "") << r.header.exception().stack_trace();
    hbase::GetResponse gr;
    ASSERT_TRUE(gr.ParseFromString(r.message));
    size_t next = 0;
    const JavaResult jr = ToResult(gr.result(), r.cells, &next);
    ASSERT_EQ(jr.error, "");
    ASSERT_EQ(jr.cells.size(), 1u);
    EXPECT_EQ(jr.cells[0].value, "v-" + row);
    RawPeer& other = Peer((k + 1) % 3);
    ASSERT_TRUE(other.Send(Call(++id_, "Mutate", JavaPut(loc.region_name, row, "x"))));
    r = ReadReply(other);
    EXPECT_EQ(r.exception(), kNotServingRegion);
    EXPECT_FALSE(r.header.exception().do_not_retry());
  }
  for (uint32_t k = 0; k < 3; ++k) {
    EXPECT_GE(per_server[k], 10) << "server " << k;
    // Its own rows, and one refused put for each row of the server before it.
    EXPECT_EQ(Calls(k, "Mutate") - mutates[k],
              uint64_t(per_server[k] + per_server[(k + 2) % 3]));
  }
}

// Table.batch over rows of every region: the client groups the actions by
// server, then by region, and sends one Multi to each server, its puts'
// cells in a KeyValue cell block; then the gets the same way.
TEST_F(HBaseJavaCluster, MultiSplitByServer) {
  std::map<uint32_t, std::map<std::string, std::vector<std::string>>> by_server;
  for (uint32_t n = 0; n < 10000; n += 125) {
    const std::string row = UserKey(n + 3);
    const Location loc = Locate(row, "jm");
    ASSERT_EQ(loc.error, "");
    by_server[ServerOf(loc)][loc.region_name].push_back(row);
  }
  ASSERT_EQ(by_server.size(), 3u);
  for (auto& [k, by_region] : by_server) {
    SCOPED_TRACE("server " + std::to_string(k));
    ASSERT_LT(k, 3u);
    EXPECT_EQ(by_region.size(), 4u) << "four regions on each server";
    const uint64_t multis = Calls(k, "Multi");
    hbase::MultiRequest puts, gets;
    std::string block;
    uint32_t index = 0;
    for (const auto& [region, rows] : by_region) {
      auto* pra = puts.add_regionaction();
      SetRegion(pra->mutable_region(), region);
      auto* gra = gets.add_regionaction();
      SetRegion(gra->mutable_region(), region);
      for (const std::string& row : rows) {
        auto* a = pra->add_action();
        a->set_index(index);
        a->mutable_mutation()->set_row(row);
        a->mutable_mutation()->set_mutate_type(hbase::MutationProto::PUT);
        a->mutable_mutation()->set_associated_cell_count(1);
        block += KeyValue(row, "f", "m", 1700000000000, 4, "m-" + row);
        auto* ga = gra->add_action();
        ga->set_index(index++);
        *ga->mutable_get() = JavaGet(row);
      }
    }
    RawPeer& peer = Peer(k);
    ASSERT_TRUE(peer.Send(Call(++id_, "Multi", puts, block)));
    Reply r = ReadReply(peer);
    ASSERT_EQ(r.exception(), "") << r.header.exception().stack_trace();
    hbase::MultiResponse resp;
    ASSERT_TRUE(resp.ParseFromString(r.message));
    for (const auto& rar : resp.regionactionresult()) {
      ASSERT_FALSE(rar.has_exception()) << rar.exception().value();
      for (const auto& roe : rar.resultorexception()) ASSERT_FALSE(roe.has_exception());
    }
    ASSERT_TRUE(peer.Send(Call(++id_, "Multi", gets)));
    r = ReadReply(peer);
    ASSERT_EQ(r.exception(), "") << r.header.exception().stack_trace();
    ASSERT_TRUE(resp.ParseFromString(r.message));
    ASSERT_EQ(resp.regionactionresult_size(), int(by_region.size()));
    size_t next = 0, results = 0;
    for (const auto& rar : resp.regionactionresult()) {
      ASSERT_FALSE(rar.has_exception()) << rar.exception().value();
      for (const auto& roe : rar.resultorexception()) {
        ASSERT_FALSE(roe.has_exception()) << roe.exception().value();
        const JavaResult jr = ToResult(roe.result(), r.cells, &next);
        ASSERT_EQ(jr.error, "");
        ASSERT_EQ(jr.cells.size(), 1u);
        EXPECT_EQ(jr.cells[0].value, "m-" + jr.cells[0].row);
        ++results;
      }
    }
    EXPECT_EQ(results, size_t(index));
    EXPECT_EQ(Calls(k, "Multi") - multis, 2u) << "one Multi of puts and one of gets";
  }
}

// ClientScanner over the whole table, forward and reversed: each region
// located in hbase:meta and scanned on the server holding it (next calls,
// more_results_in_region), then the next region from the last one's bound;
// every row once, in order, from all three servers.
TEST_F(HBaseJavaCluster, ScansCrossEveryServerBothWays) {
  std::vector<std::string> want;
  for (uint32_t n = 0; n < 10000; n += 97) {
    const std::string row = UserKey(n);
    want.push_back(row);
    const Location loc = Locate(row, "jc");
    ASSERT_EQ(loc.error, "");
    RawPeer& peer = Peer(ServerOf(loc));
    ASSERT_TRUE(peer.Send(Call(++id_, "Mutate", JavaPut(loc.region_name, row, "s"))));
    ASSERT_EQ(ReadReply(peer).exception(), "");
  }
  for (bool reversed : {false, true}) {
    SCOPED_TRACE(reversed ? "reversed" : "forward");
    std::vector<std::string> got;
    std::set<uint32_t> servers;
    std::string locate = reversed ? std::string(9, '\xff') : std::string();
    std::string start;
    int regions = 0;
    for (; regions < 20; ++regions) {
      const Location loc = Locate(locate, "jc");
      ASSERT_EQ(loc.error, "");
      const uint32_t k = ServerOf(loc);
      ASSERT_LT(k, 3u);
      servers.insert(k);
      RawPeer& peer = Peer(k);
      hbase::Scan scan;
      scan.set_max_result_size(2 * 1024 * 1024);
      scan.set_caching(2147483647);
      scan.set_reversed(reversed);
      scan.add_column()->set_family("f");
      scan.set_start_row(start);
      if (reversed && !start.empty()) scan.set_include_start_row(false);
      ASSERT_TRUE(peer.Send(Call(++id_, "Scan", OpenScanRequest(loc.region_name, scan, 5))));
      uint64_t seq = 0;
      hbase::ScanResponse resp;
      for (;;) {
        Reply r = ReadReply(peer);
        ASSERT_EQ(r.exception(), "") << r.header.exception().stack_trace();
        ASSERT_TRUE(resp.ParseFromString(r.message));
        for (const JavaResult& jr : ScanResults(r, resp)) {
          ASSERT_EQ(jr.error, "");
          ASSERT_FALSE(jr.cells.empty());
          got.push_back(jr.cells[0].row);
        }
        if (!resp.more_results_in_region()) break;
        ASSERT_TRUE(peer.Send(
            Call(++id_, "Scan", NextScanRequest(resp.scanner_id(), 5, seq++, false))));
      }
      if (!resp.more_results()) break;
      start = reversed ? loc.info.start_key() : loc.info.end_key();
      if (start.empty()) break;  // The table's last (or, reversed, first) region.
      locate = start;
      if (reversed) {
        locate.back() = char(uint8_t(locate.back()) - 1);
        locate += "\xff\xff";
      }
    }
    EXPECT_EQ(regions + 1, 12) << "one scanner per region";
    EXPECT_EQ(servers.size(), 3u);
    std::vector<std::string> expected = want;
    if (reversed) std::reverse(expected.begin(), expected.end());
    EXPECT_EQ(got, expected);
  }
}

}  // namespace
}  // namespace wirebench
