// `--rpc hbase` servers as members of a null cluster of three
// (tests/hbase_cluster.h: real servers in this process, real TCP on
// loopback), regions split at YCSB's points ("user1000".."user9999"), four
// per server, region i on server i % 3, null regions behind them. Checked
// with calls built from HBase's field numbers, as HBase's clients send them:
//   - hbase:meta, on server 0 only, lists each region on the server that
//     holds it (info:server, info:serverstartcode, info:sn), and every
//     server's registry (ClientMetaService) answers alike;
//   - a region a server does not hold gets NotServingRegionException in
//     HBase's words, on the codec's path and on the full path, hbase:meta
//     on servers 1 and 2 included; a row outside the named region gets
//     WrongRegionException;
//   - a region the server holds keeps the codec's path ("codec_path_calls");
//   - a plan of one server is no cluster, and a server must listen where
//     the plan says.
#include <gtest/gtest.h>
#include <google/protobuf/io/coded_stream.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "codecs/schemas/Client.pb.h"
#include "codecs/schemas/RPC.pb.h"
#include "nullregion/null_region.h"
#include "tests/hbase_cluster.h"
#include "tests/hbase_raw_wire.h"
#include "tests/raw_peer.h"
#include "transports/hbase/hbase_service.h"
#include "transports/hbase/hbase_wire.pb.h"

namespace wirebench {
namespace {

namespace pbw = hbasewire;
using testing::Be32;
using testing::Call;
using testing::KeyValue;
using testing::RawPeer;

using testing::kKeyValueCodec;
constexpr char kNotServingRegion[] = "org.apache.hadoop.hbase.NotServingRegionException";
constexpr char kWrongRegion[] = "org.apache.hadoop.hbase.regionserver.WrongRegionException";
constexpr char kTable[] = "usertable";

// YCSB's split of 12 regions, written out: 1000 + 750 * i.
const std::vector<std::string>& StartKeys() {
  static const std::vector<std::string> keys = {
      "",         "user1750", "user2500", "user3250", "user4000", "user4750",
      "user5500", "user6250", "user7000", "user7750", "user8500", "user9250"};
  return keys;
}
// The old-format name of region i: "usertable,START,1".
std::string RegionName(uint32_t i) { return std::string(kTable) + "," + StartKeys()[i] + ",1"; }
// A row inside region i.
std::string RowIn(uint32_t i) { return i == 0 ? "user0042" : StartKeys()[i] + "1"; }

testing::HBaseCluster* g_cluster = nullptr;

class Cluster : public ::testing::Environment {
 public:
  void SetUp() override {
    g_cluster = new testing::HBaseCluster(
        {.servers = 3, .regions = 0, .split = SplitAlgorithm::kYcsb, .zookeeper = "",
         .region = [] { return NewNullRegion({}); }});
  }
  void TearDown() override { delete g_cluster; }
};
const auto* const kEnv = ::testing::AddGlobalTestEnvironment(new Cluster);

// A connection to server k past its preamble and ConnectionHeader; `codec`
// empty is a client without a cell codec (cells in the messages).
std::unique_ptr<RawPeer> Open(uint32_t k, const std::string& codec = kKeyValueCodec,
                              const std::string& service = "ClientService") {
  pbw::ConnectionHeader h;
  h.mutable_user_info()->set_effective_user("tester");
  h.set_service_name(service);
  if (!codec.empty()) h.set_cell_block_codec_class(codec);
  const std::string b = h.SerializeAsString();
  auto peer = std::make_unique<RawPeer>(g_cluster->port(k));
  EXPECT_TRUE(peer->Send(testing::kHBaseHello + Be32(uint32_t(b.size())) + b));
  return peer;
}

struct Reply {
  hbase::ResponseHeader header;
  std::string message;
  std::string exception() const {
    return header.has_exception() ? header.exception().exception_class_name() : "";
  }
  std::string text() const { return header.exception().stack_trace(); }
};

Reply Ask(RawPeer& peer, uint32_t id, const std::string& method,
          const google::protobuf::MessageLite& param, const std::string& block = "") {
  EXPECT_TRUE(peer.Send(Call(id, method, param, block)));
  const testing::HBaseReply raw = testing::ReadParsedHBaseReply(&peer);
  EXPECT_TRUE(raw.ok) << method << ": no reply";
  Reply r;
  r.header = raw.header;
  r.message = raw.message;
  return r;
}

void SetRegion(hbase::RegionSpecifier* r, const std::string& name) {
  r->set_type(hbase::RegionSpecifier::REGION_NAME);
  r->set_value(name);
}

uint64_t CodecPathCalls(uint32_t k) {
  return g_cluster->HBaseStats(k)["codec_path_calls"].get<uint64_t>();
}

std::string ServerName(uint32_t k) {
  return "127.0.0.1," + std::to_string(g_cluster->port(k)) + "," +
         std::to_string(g_cluster->plan().StartCode(k));
}

std::string BigEndian64(uint64_t v) {
  std::string s(8, '\0');
  StoreBE64(reinterpret_cast<uint8_t*>(s.data()), v);
  return s;
}

// A meta row's info cells by qualifier (a client without a cell codec gets
// them in the Result).
std::map<std::string, std::string> InfoCells(const hbase::Result& r) {
  std::map<std::string, std::string> out;
  for (const hbase::Cell& c : r.cell())
    if (c.family() == "info") out[c.qualifier()] = c.value();
  return out;
}

TEST(HBaseCluster, PlanIsThreeServersOfFourRegionsEach) {
  ASSERT_TRUE(g_cluster->ok()) << g_cluster->why();
  const ClusterPlan& plan = g_cluster->plan();
  ASSERT_EQ(plan.layout.regions(), 12u);
  for (uint32_t i = 0; i < 12; ++i) EXPECT_EQ(plan.layout.StartKey(i), StartKeys()[i]);
}

// The Java client's and the npm client's way to learn the regions: a scan
// of hbase:meta over the table's rows, on server 0.
TEST(HBaseCluster, MetaListsEachRegionOnTheServerHoldingIt) {
  ASSERT_TRUE(g_cluster->ok()) << g_cluster->why();
  auto peer = Open(0, "");
  hbase::ScanRequest req;
  SetRegion(req.mutable_region(), "hbase:meta,,1");
  req.mutable_scan()->set_start_row(std::string(kTable) + ",,00000000000000");
  req.mutable_scan()->set_stop_row("usertablf,,00000000000000");
  req.mutable_scan()->add_column()->set_family("info");
  req.set_number_of_rows(100);
  req.set_close_scanner(true);
  Reply r = Ask(*peer, 1, "Scan", req);
  ASSERT_EQ(r.exception(), "") << r.text();
  hbase::ScanResponse resp;
  ASSERT_TRUE(resp.ParseFromString(r.message));
  ASSERT_EQ(resp.results_size(), 12);
  for (uint32_t i = 0; i < 12; ++i) {
    const uint32_t k = i % 3;
    SCOPED_TRACE("region " + std::to_string(i));
    EXPECT_EQ(resp.results(int(i)).cell(0).row(), RegionName(i));
    auto info = InfoCells(resp.results(int(i)));
    EXPECT_EQ(info["server"], "127.0.0.1:" + std::to_string(g_cluster->port(k)));
    EXPECT_EQ(info["serverstartcode"], BigEndian64(g_cluster->plan().StartCode(k)));
    EXPECT_EQ(info["sn"], ServerName(k));
    pbw::RegionInfo ri;
    ASSERT_EQ(info["regioninfo"].substr(0, 4), "PBUF");
    ASSERT_TRUE(ri.ParseFromString(info["regioninfo"].substr(4)));
    EXPECT_EQ(ri.start_key(), StartKeys()[i]);
    EXPECT_EQ(ri.end_key(), i + 1 < 12 ? StartKeys()[i + 1] : "");
    EXPECT_EQ(ri.table_name().qualifier(), kTable);
  }
  // The older clients' lookup: the row at or before "T,ROW,99999999999999".
  hbase::GetRequest g;
  SetRegion(g.mutable_region(), "hbase:meta,,1");
  g.mutable_get()->set_row(std::string(kTable) + ",user5000,99999999999999");
  g.mutable_get()->add_column()->set_family("info");
  g.mutable_get()->set_closest_row_before(true);
  r = Ask(*peer, 2, "Get", g);
  ASSERT_EQ(r.exception(), "") << r.text();
  hbase::GetResponse gr;
  ASSERT_TRUE(gr.ParseFromString(r.message));
  auto info = InfoCells(gr.result());
  EXPECT_EQ(info["sn"], ServerName(2)) << "user5000 is in region 5 (user4750), server 2's";
}

TEST(HBaseCluster, OnlyServerZeroHoldsMeta) {
  ASSERT_TRUE(g_cluster->ok()) << g_cluster->why();
  for (uint32_t k : {1u, 2u}) {
    SCOPED_TRACE("server " + std::to_string(k));
    auto peer = Open(k);
    hbase::GetRequest g;
    SetRegion(g.mutable_region(), "hbase:meta,,1");
    g.mutable_get()->set_row(std::string(kTable) + ",user5000,99999999999999");
    g.mutable_get()->set_closest_row_before(true);
    Reply r = Ask(*peer, 1, "Get", g);
    EXPECT_EQ(r.exception(), kNotServingRegion);
    EXPECT_NE(r.text().find("Region hbase:meta,,1 is not online on " + ServerName(k)),
              std::string::npos)
        << r.text();
    EXPECT_FALSE(r.header.exception().do_not_retry()) << "the client looks meta up again";
    hbase::ScanRequest sr;
    SetRegion(sr.mutable_region(), "hbase:meta,,1");
    sr.mutable_scan()->set_start_row(std::string(kTable) + ",user5000,99999999999999");
    sr.mutable_scan()->set_reversed(true);
    sr.set_number_of_rows(1);
    EXPECT_EQ(Ask(*peer, 2, "Scan", sr).exception(), kNotServingRegion);
    hbase::MultiRequest m;
    auto* ra = m.add_regionaction();
    SetRegion(ra->mutable_region(), "hbase:meta,,1");
    *ra->add_action()->mutable_get() = g.get();
    r = Ask(*peer, 3, "Multi", m);
    ASSERT_EQ(r.exception(), "");
    hbase::MultiResponse mr;
    ASSERT_TRUE(mr.ParseFromString(r.message));
    ASSERT_EQ(mr.regionactionresult_size(), 1);
    EXPECT_EQ(mr.regionactionresult(0).exception().name(), kNotServingRegion);
  }
  for (uint32_t k : {1u, 2u}) EXPECT_EQ(g_cluster->HBaseStats(k)["meta_calls"], 0) << k;
}

// ClientMetaService, as HBase 2.5's RpcConnectionRegistry asks it of any
// bootstrap node: every server names server 0 as master and meta's server,
// every server as a bootstrap node, and one cluster id.
TEST(HBaseCluster, EveryServersRegistryAnswersAlike) {
  ASSERT_TRUE(g_cluster->ok()) << g_cluster->why();
  std::string cluster_id;
  for (uint32_t k = 0; k < 3; ++k) {
    SCOPED_TRACE("server " + std::to_string(k));
    auto peer = Open(k, "", "ClientMetaService");
    pbw::GetClusterIdResponse id;
    ASSERT_TRUE(
        id.ParseFromString(Ask(*peer, 1, "GetClusterId", pbw::GetClusterIdRequest()).message));
    EXPECT_EQ(id.cluster_id().size(), 36u) << id.cluster_id();
    if (k == 0) cluster_id = id.cluster_id();
    EXPECT_EQ(id.cluster_id(), cluster_id);
    const auto names = [](const pbw::ServerName& s) {
      return s.host_name() + "," + std::to_string(s.port()) + "," + std::to_string(s.start_code());
    };
    pbw::GetMetaRegionLocationsResponse meta;
    ASSERT_TRUE(meta.ParseFromString(
        Ask(*peer, 2, "GetMetaRegionLocations", pbw::GetMetaRegionLocationsRequest()).message));
    ASSERT_EQ(meta.meta_locations_size(), 1);
    EXPECT_EQ(names(meta.meta_locations(0).server_name()), ServerName(0));
    pbw::GetActiveMasterResponse master;
    ASSERT_TRUE(master.ParseFromString(
        Ask(*peer, 3, "GetActiveMaster", pbw::GetActiveMasterRequest()).message));
    EXPECT_EQ(names(master.server_name()), ServerName(0));
    pbw::GetMastersResponse masters;
    // GetMastersRequest is empty, as GetActiveMasterRequest is.
    ASSERT_TRUE(masters.ParseFromString(
        Ask(*peer, 4, "GetMasters", pbw::GetActiveMasterRequest()).message));
    ASSERT_EQ(masters.master_servers_size(), 1);
    EXPECT_EQ(names(masters.master_servers(0).server_name()), ServerName(0));
    EXPECT_TRUE(masters.master_servers(0).is_active());
    pbw::GetBootstrapNodesResponse nodes;
    ASSERT_TRUE(nodes.ParseFromString(
        Ask(*peer, 5, "GetBootstrapNodes", pbw::GetBootstrapNodesRequest()).message));
    ASSERT_EQ(nodes.server_name_size(), 3);
    for (uint32_t j = 0; j < 3; ++j) EXPECT_EQ(names(nodes.server_name(int(j))), ServerName(j));
  }
}

hbase::MutateRequest PutIn(const std::string& region, const std::string& row) {
  hbase::MutateRequest m;
  SetRegion(m.mutable_region(), region);
  m.mutable_mutation()->set_row(row);
  m.mutable_mutation()->set_mutate_type(hbase::MutationProto::PUT);
  m.mutable_mutation()->set_associated_cell_count(1);
  return m;
}

hbase::GetRequest GetIn(const std::string& region, const std::string& row) {
  hbase::GetRequest g;
  SetRegion(g.mutable_region(), region);
  g.mutable_get()->set_row(row);
  return g;
}

// Every region another server holds, named by a put and a get as the codec
// writes them (so the codec's path sees them first) and by a scan and a
// Multi: NotServingRegionException, which the client retries after looking
// the region up again; nothing reaches the codec's path.
TEST(HBaseCluster, RegionsHeldElsewhereGetNotServingRegion) {
  ASSERT_TRUE(g_cluster->ok()) << g_cluster->why();
  for (uint32_t k = 0; k < 3; ++k) {
    auto peer = Open(k);
    uint32_t id = 0;
    const uint64_t before = CodecPathCalls(k);
    for (uint32_t i = 0; i < 12; ++i) {
      if (i % 3 == k) continue;
      SCOPED_TRACE("server " + std::to_string(k) + ", region " + std::to_string(i));
      const std::string row = RowIn(i);
      Reply r = Ask(*peer, ++id, "Mutate", PutIn(RegionName(i), row),
                    KeyValue(row, "f", "q", 1, 4, "v"));
      EXPECT_EQ(r.exception(), kNotServingRegion);
      EXPECT_NE(r.text().find("Region " + RegionName(i) + " is not online on " + ServerName(k)),
                std::string::npos)
          << r.text();
      EXPECT_EQ(Ask(*peer, ++id, "Get", GetIn(RegionName(i), row)).exception(), kNotServingRegion);
      hbase::ScanRequest sr;
      SetRegion(sr.mutable_region(), RegionName(i));
      sr.mutable_scan()->set_start_row(row);
      sr.set_number_of_rows(10);
      EXPECT_EQ(Ask(*peer, ++id, "Scan", sr).exception(), kNotServingRegion);
      hbase::MultiRequest m;
      auto* held = m.add_regionaction();
      SetRegion(held->mutable_region(), RegionName(k));
      *held->add_action()->mutable_get() = GetIn("", RowIn(k)).get();
      auto* other = m.add_regionaction();
      SetRegion(other->mutable_region(), RegionName(i));
      *other->add_action()->mutable_get() = GetIn("", row).get();
      r = Ask(*peer, ++id, "Multi", m);
      ASSERT_EQ(r.exception(), "");
      hbase::MultiResponse mr;
      ASSERT_TRUE(mr.ParseFromString(r.message));
      ASSERT_EQ(mr.regionactionresult_size(), 2);
      EXPECT_FALSE(mr.regionactionresult(0).has_exception()) << "its own region is answered";
      EXPECT_EQ(mr.regionactionresult(1).exception().name(), kNotServingRegion);
    }
    EXPECT_EQ(CodecPathCalls(k), before) << "server " << k;
  }
  // A start key that is none of the plan's is no region anywhere.
  auto peer = Open(0);
  EXPECT_EQ(
      Ask(*peer, 1, "Get", GetIn(std::string(kTable) + ",user1000,1", "user1001")).exception(),
      kNotServingRegion);
}

// A held region's plain calls are the codec's, whichever held region each
// names (a connection switching between two), and a row outside the named
// region takes the full path, which answers WrongRegionException.
TEST(HBaseCluster, HeldRegionsKeepTheCodecPath) {
  ASSERT_TRUE(g_cluster->ok()) << g_cluster->why();
  for (uint32_t k = 0; k < 3; ++k) {
    for (const std::string& codec : {std::string(kKeyValueCodec), std::string()}) {
      SCOPED_TRACE("server " + std::to_string(k) + (codec.empty() ? ", pb" : ", cellblock"));
      auto peer = Open(k, codec);
      uint32_t id = 0;
      uint64_t expected = CodecPathCalls(k);
      for (uint32_t i : {k, k + 3, k + 9, k}) {
        const std::string row = RowIn(i);
        hbase::MutateRequest put = PutIn(RegionName(i), row);
        std::string block = KeyValue(row, "f", "q", 1, 4, "v");
        if (codec.empty()) {  // The cell in the message, as a client without a codec sends it.
          put.mutable_mutation()->clear_associated_cell_count();
          auto* qv = put.mutable_mutation()->add_column_value();
          qv->set_family("f");
          qv->add_qualifier_value()->set_qualifier("q");
          qv->mutable_qualifier_value(0)->set_value("v");
          block.clear();
        }
        Reply r = Ask(*peer, ++id, "Mutate", put, block);
        ASSERT_EQ(r.exception(), "") << r.text();
        EXPECT_EQ(CodecPathCalls(k), ++expected) << "a put in region " << i;
        r = Ask(*peer, ++id, "Get", GetIn(RegionName(i), row));
        ASSERT_EQ(r.exception(), "") << r.text();
        EXPECT_EQ(CodecPathCalls(k), ++expected) << "a get in region " << i;
        hbase::MultiRequest m;
        auto* ra = m.add_regionaction();
        SetRegion(ra->mutable_region(), RegionName(i));
        *ra->add_action()->mutable_get() = GetIn("", row).get();
        *ra->add_action()->mutable_get() = GetIn("", row + "2").get();
        r = Ask(*peer, ++id, "Multi", m);
        ASSERT_EQ(r.exception(), "") << r.text();
        EXPECT_EQ(CodecPathCalls(k), ++expected) << "a multi in region " << i;
        // A row of the next region (or, from the last, of the first).
        const std::string outside = RowIn(i + 1 < 12 ? i + 1 : 0);
        r = Ask(*peer, ++id, "Get", GetIn(RegionName(i), outside));
        EXPECT_EQ(r.exception(), kWrongRegion) << outside << " in region " << i;
        EXPECT_EQ(CodecPathCalls(k), expected);
        hbase::MultiRequest straddle;
        auto* sra = straddle.add_regionaction();
        SetRegion(sra->mutable_region(), RegionName(i));
        *sra->add_action()->mutable_get() = GetIn("", row).get();
        *sra->add_action()->mutable_get() = GetIn("", outside).get();
        r = Ask(*peer, ++id, "Multi", straddle);
        ASSERT_EQ(r.exception(), "");
        hbase::MultiResponse mr;
        ASSERT_TRUE(mr.ParseFromString(r.message));
        ASSERT_EQ(mr.regionactionresult_size(), 1);
        ASSERT_EQ(mr.regionactionresult(0).resultorexception_size(), 2);
        EXPECT_FALSE(mr.regionactionresult(0).resultorexception(0).has_exception());
        EXPECT_EQ(mr.regionactionresult(0).resultorexception(1).exception().name(), kWrongRegion);
        EXPECT_EQ(CodecPathCalls(k), expected) << "a Multi straddling two regions";
      }
    }
  }
}

TEST(HBaseCluster, EveryServerNamesItselfAsThePlanDoes) {
  ASSERT_TRUE(g_cluster->ok()) << g_cluster->why();
  for (uint32_t k = 0; k < 3; ++k) {
    const auto stats = g_cluster->HBaseStats(k);
    EXPECT_EQ(stats["server_name"], ServerName(k));
    EXPECT_EQ(stats["cluster_id"], hbaserpc::ClusterIdOf(g_cluster->plan()));
  }
}

// A plan of one server is no cluster: the server is itself (a start code of
// its own clock, a fresh cluster id), holds hbase:meta and one region per
// table as --regions-per-table says, as it always did.
TEST(HBaseCluster, APlanOfOneServerIsNoCluster) {
  testing::HBaseCluster one({.servers = 1, .regions = 0, .split = SplitAlgorithm::kYcsb,
                             .zookeeper = "", .region = [] { return NewNullRegion({}); }});
  ASSERT_TRUE(one.ok()) << one.why();
  ASSERT_EQ(one.plan().layout.regions(), 4u) << "the plan's own default";
  const auto stats = one.HBaseStats(0);
  EXPECT_NE(stats["server_name"].get<std::string>(),
            "127.0.0.1," + std::to_string(one.port(0)) + "," +
                std::to_string(one.plan().StartCode(0)));
  EXPECT_NE(stats["cluster_id"], hbaserpc::ClusterIdOf(one.plan()));
  pbw::ConnectionHeader h;
  h.set_service_name("ClientService");
  h.set_cell_block_codec_class(kKeyValueCodec);
  const std::string b = h.SerializeAsString();
  RawPeer peer(one.port(0));
  ASSERT_TRUE(peer.Send(testing::kHBaseHello + Be32(uint32_t(b.size())) + b));
  hbase::GetRequest g;
  SetRegion(g.mutable_region(), "hbase:meta,,1");
  g.mutable_get()->set_row(std::string(kTable) + ",user5000,99999999999999");
  g.mutable_get()->set_closest_row_before(true);
  g.mutable_get()->set_existence_only(true);
  EXPECT_EQ(Ask(peer, 1, "Get", g).exception(), "");
  EXPECT_EQ(Ask(peer, 2, "Get", GetIn(std::string(kTable) + ",,1", "user5000")).exception(), "");
  EXPECT_EQ(Ask(peer, 3, "Get", GetIn(std::string(kTable) + ",user4000,1", "user5000")).exception(),
            kNotServingRegion)
      << "the plan's split is not this server's";
  EXPECT_EQ(one.HBaseStats(0)["codec_path_calls"], 1);
}

// Where a member listens is the plan's: its peers' catalog sends clients
// there. Every server splits as the plan says.
TEST(HBaseCluster, AMemberListensWhereThePlanSaysAndSplitsAsItSays) {
  auto plan = MakeClusterPlan({rpc::Endpoint{"127.0.0.1", testing::PickLoopbackPort()},
                               rpc::Endpoint{"127.0.0.1", testing::PickLoopbackPort()}},
                              0, SplitAlgorithm::kHexString);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const ClusterMember member{*plan, 1};
  auto region = NewNullRegion({});
  RegionService service(region.get(), &member);
  auto transport = Transports().Resolve("hbase");
  ASSERT_TRUE(transport.ok());
  rpc::ServerOptions o;
  o.port = 0;
  auto server = (*transport)->StartServer(o, OptionSettings(), region.get(), &service, &member);
  ASSERT_FALSE(server.ok());
  const std::string planned = "127.0.0.1:" + std::to_string(plan->servers[1].port);
  EXPECT_NE(server.status().message().find("cluster server 1 is planned at " + planned),
            std::string::npos)
      << server.status().ToString();
  OptionSettings own;
  own.Set("--regions-per-table", "5");
  o.port = plan->servers[1].port;
  server = (*transport)->StartServer(o, own, region.get(), &service, &member);
  ASSERT_FALSE(server.ok());
  EXPECT_NE(server.status().message().find("splits each table in 8"), std::string::npos)
      << server.status().ToString();
}

}  // namespace
}  // namespace wirebench
