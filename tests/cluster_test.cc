// A null cluster's plan (nullregion/cluster.h): where a table's regions
// split, which server holds each, what a server refuses, and how the
// servers' Stats add up to the cluster's (bench/results/cluster_stats.h).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "bench/results/cluster_stats.h"
#include "codecs/codec.h"
#include "nullregion/cluster.h"
#include "nullregion/null_region.h"
#include "nullregion/region_service.h"

namespace wirebench {
namespace {

std::vector<rpc::Endpoint> Servers(int n) {
  std::vector<rpc::Endpoint> out;
  for (int i = 0; i < n; ++i) out.push_back({"127.0.0.1", uint16_t(16020 + i)});
  return out;
}

// Each start key of `l`, in order, and the region holding each row.
void ExpectLayout(const RegionLayout& l, const std::vector<std::string>& starts,
                  const std::vector<std::pair<std::string, uint32_t>>& rows) {
  ASSERT_EQ(l.regions(), starts.size());
  for (uint32_t i = 0; i < starts.size(); ++i) {
    EXPECT_EQ(l.StartKey(i), starts[i]) << i;
    EXPECT_EQ(l.EndKey(i), i + 1 < starts.size() ? starts[i + 1] : "") << i;
    EXPECT_EQ(l.RegionStartingAt(starts[i]), int(i)) << i;
  }
  for (const auto& [row, region] : rows) EXPECT_EQ(l.RegionOfRow(row), region) << row;
}

TEST(RegionLayout, HexSplitsAreHBasesHexStringSplitPoints) {
  // Every YCSB key sorts after the last hex point.
  ExpectLayout(RegionLayout(4, SplitAlgorithm::kHexString),
               {"", "40000000", "80000000", "c0000000"},
               {{"user1234", 3}, {"3fffffff", 0}, {"40000000", 1}});
}

TEST(RegionLayout, YcsbSplitsSpreadYcsbKeysOverEveryRegion) {
  const RegionLayout l(3, SplitAlgorithm::kYcsb);
  ExpectLayout(l, {"", "user4000", "user7000"},
               {{"user1", 0}, {"user3999999", 0}, {"user4000", 1}, {"user6999", 1},
                {"user9", 2}, {"", 0}});
  EXPECT_EQ(l.RegionStartingAt("user5000"), -1);
}

TEST(ClusterPlan, RegionsGoRoundRobinAndStartCodesFollowThePlan) {
  auto plan = MakeClusterPlan(Servers(3), 0, SplitAlgorithm::kYcsb);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_TRUE(plan->clustered());
  EXPECT_EQ(plan->layout.regions(), 3 * kDefaultRegionsPerServer);
  for (uint32_t r = 0; r < plan->layout.regions(); ++r) EXPECT_EQ(plan->ServerOfRegion(r), r % 3);
  EXPECT_EQ(plan->StartCode(2), plan->start_code_base + 2);
  // The same list gives the same start codes on every host; another list others.
  auto again = MakeClusterPlan(Servers(3), 0, SplitAlgorithm::kYcsb);
  auto other = MakeClusterPlan(Servers(2), 0, SplitAlgorithm::kYcsb);
  EXPECT_EQ(again->start_code_base, plan->start_code_base);
  EXPECT_NE(other->start_code_base, plan->start_code_base);
  EXPECT_EQ(ClusterServersText(*plan), "127.0.0.1:16020,127.0.0.1:16021,127.0.0.1:16022");
}

TEST(ClusterPlan, RefusesWhatCannotBeACluster) {
  auto twice = Servers(2);
  twice[1] = twice[0];
  const auto same = MakeClusterPlan(twice, 0, SplitAlgorithm::kYcsb);
  ASSERT_FALSE(same.ok());
  EXPECT_NE(same.status().ToString().find("twice"), std::string::npos);
  const auto few = MakeClusterPlan(Servers(3), 2, SplitAlgorithm::kYcsb);
  ASSERT_FALSE(few.ok());
  EXPECT_NE(few.status().ToString().find("--cluster-regions 2"), std::string::npos);
  auto no_port = Servers(2);
  no_port[1].port = 0;
  EXPECT_FALSE(MakeClusterPlan(no_port, 0, SplitAlgorithm::kYcsb).ok());
  EXPECT_FALSE(ParseSplitAlgorithm("uniform").ok());
}

// A server of a cluster answers rows of its own regions and refuses the
// others' with NotServingRegionException's words, naming who holds them.
TEST(ClusterMember, RefusesRowsOfRegionsAnotherServerHolds) {
  ClusterMember member;
  member.plan = *MakeClusterPlan(Servers(3), 3, SplitAlgorithm::kYcsb);
  member.self = 1;  // Holds region 1: user4000 up to user7000.
  auto region = NewNullRegion(NullRegionOptions{});
  RegionService service(region.get(), &member);
  const CodecInfo* raw = Codecs().Find("raw");
  ASSERT_NE(raw, nullptr);
  auto handler = service.NewCallHandler(*raw);
  ASSERT_TRUE(handler.ok());
  std::unique_ptr<Codec> codec = raw->factory();
  for (const auto& [row, held] : std::vector<std::pair<std::string, bool>>{
           {"user5000", true}, {"user1000", false}, {"user8000", false}}) {
    GetRequest get;
    get.row = ByteView(row);
    ByteBuffer payload;
    ASSERT_TRUE(codec->EncodeRequest(7, get, &payload).ok());
    rpc::CallHeader h;
    h.call_id = 7;
    h.method = uint8_t(Method::kGet);
    ByteBuffer reply;
    rpc::CallOutcome outcome;
    (*handler)->Handle(h, payload.view(), &reply, &outcome);
    if (held) {
      EXPECT_EQ(outcome.status, CallStatus::kOk) << row << ": " << outcome.error;
    } else {
      EXPECT_EQ(outcome.status, CallStatus::kServerError) << row;
      EXPECT_NE(outcome.error.find("NotServingRegionException"), std::string::npos) << outcome.error;
      EXPECT_NE(outcome.error.find(row), std::string::npos) << outcome.error;
      EXPECT_NE(outcome.error.find(row == "user1000" ? "127.0.0.1:16020" : "127.0.0.1:16022"),
                std::string::npos)
          << outcome.error;
    }
  }
}

nlohmann::json Stats(uint64_t tid, double cpu_ns, uint64_t gets, uint64_t bytes_in) {
  return {{"threads", {{{"role", "server-io"}, {"name", "io-0"}, {"tid", tid}, {"cpu_ns", cpu_ns}}}},
          {"calls", {{"Get", gets}, {"Mutate", 0}}},
          {"bytes_in", bytes_in},
          {"server", {{"port", tid}}}};
}

TEST(ClusterStats, CombinedStatsHoldEveryServersThreadsAndSummedCounters) {
  const nlohmann::json all = CombineClusterStats({Stats(11, 1e6, 10, 100), Stats(22, 2e6, 30, 300)});
  EXPECT_EQ(all.at("threads").size(), 2u);
  EXPECT_EQ(all.at("calls").at("Get").get<uint64_t>(), 40u);
  EXPECT_EQ(all.at("bytes_in").get<uint64_t>(), 400u);
  EXPECT_EQ(all.at("server").at("port").get<uint64_t>(), 11u);  // The first's own description.
}

TEST(ClusterStats, FiguresGiveEachServersShareAndTheImbalance) {
  RunResult r;
  r.operations = 40;
  r.cluster_servers.push_back({"a:1", Stats(11, 0, 0, 0), Stats(11, 1e6, 10, 100)});
  r.cluster_servers.push_back({"b:2", Stats(22, 0, 0, 0), Stats(22, 3e6, 30, 300)});
  const ClusterFigures f = ComputeClusterFigures(r);
  ASSERT_EQ(f.servers.size(), 2u);
  EXPECT_DOUBLE_EQ(f.servers[0].calls, 10);
  EXPECT_DOUBLE_EQ(f.servers[1].share, 0.75);
  EXPECT_DOUBLE_EQ(f.servers[0].cpu_us_per_call, 100);  // 1 ms over 10 calls.
  EXPECT_DOUBLE_EQ(f.imbalance, 1.5);                   // 30 against a mean of 20.
  EXPECT_DOUBLE_EQ(f.ops_per_server_core_s, 10000);     // 40 operations in 4 ms of CPU.
  EXPECT_TRUE(ComputeClusterFigures(RunResult{}).servers.empty());
  // Layers whose servers do not count meta lookups: none reported.
  EXPECT_LT(f.meta_lookups_before, 0);
}

// --rpc hbase's servers count the hbase:meta lookups they answer: the
// clients' at connect (before the measured phase) apart from those per
// operation of the measured phase.
TEST(ClusterStats, MetaLookupsAreCountedBeforeAndPerOperation) {
  auto with_meta = [](nlohmann::json stats, int64_t meta_calls) {
    stats["hbase"] = {{"meta_calls", meta_calls}};
    return stats;
  };
  RunResult r;
  r.operations = 40;
  r.cluster_servers.push_back(
      {"a:1", with_meta(Stats(11, 0, 0, 0), 3), with_meta(Stats(11, 1e6, 10, 100), 5)});
  r.cluster_servers.push_back(
      {"b:2", with_meta(Stats(22, 0, 0, 0), 0), with_meta(Stats(22, 3e6, 30, 300), 0)});
  const ClusterFigures f = ComputeClusterFigures(r);
  EXPECT_EQ(f.meta_lookups_before, 3);
  EXPECT_DOUBLE_EQ(f.meta_lookups_per_op, 2.0 / 40);
}

}  // namespace
}  // namespace wirebench
