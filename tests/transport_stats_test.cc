// The Stats every transport answers, for every registered transport over
// every registered region (tests/transport_cases.h): a server started
// through the registry on the region, a client of the transport's own
// (Transport::Connect) making calls, then the server's figures both as the
// server reports them and as the Stats call carries them over the transport
// (bench/loadgen/stats_client.h, what `run` and `compare` read): every call
// counted by method, none failed, and the region's own figures as the region
// reports them.
#include <stdlib.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "bench/loadgen/stats_client.h"
#include "nullregion/region_service.h"
#include "regions/registry.h"
#include "tests/endpoint_steady_client.h"
#include "tests/transport_cases.h"
#include "transports/transport.h"

namespace wirebench {
namespace {

using Clock = std::chrono::steady_clock;
using testing::TransportRegion;

class TransportStats : public ::testing::TestWithParam<TransportRegion> {
 protected:
  void TearDown() override {
    if (server_) server_->Stop();
    region_.reset();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  // The region with its defaults; an option naming a directory with none
  // gets a fresh one.
  void MakeRegion() {
    RegionConfig config;
    config.entry = GetParam().region;
    SetRegionDefaults(&config);
    for (const RegionOptionSpec& spec : GetParam().region->options) {
      if (!spec.flag.ends_with("-dir") || !config.settings.Get(spec.flag).empty()) continue;
      char tmpl[] = "/tmp/wirebench_stats_test_XXXXXX";
      ASSERT_NE(mkdtemp(tmpl), nullptr);
      dir_ = tmpl;
      config.settings.Set(spec.flag, dir_);
    }
    ASSERT_TRUE(CheckRegion(config).ok()) << CheckRegion(config).ToString();
    auto made = NewRegion(config);
    ASSERT_TRUE(made.ok()) << made.status().ToString();
    region_ = std::move(made).value();
    service_ = std::make_unique<RegionService>(region_.get());
  }

  std::string dir_;
  std::unique_ptr<Region> region_;
  std::unique_ptr<RegionService> service_;
  std::unique_ptr<rpc::TransportServer> server_;
};

// The figures of `stats` that the calls made, checked against `calls` (the
// client's successful calls: Mutate, Get, Mutate, ...) and `region` (the
// region's own AppendStats), where the transport's row says it counts them.
void ExpectFigures(const testing::TransportCase& c, const nlohmann::json& stats, uint64_t calls,
                   const nlohmann::json& region) {
  const std::string key(c.stats_calls);
  ASSERT_TRUE(stats.contains(key)) << stats.dump();
  EXPECT_EQ(stats[key].value("Mutate", uint64_t(0)), (calls + 1) / 2) << stats[key].dump();
  EXPECT_EQ(stats[key].value("Get", uint64_t(0)), calls / 2) << stats[key].dump();
  EXPECT_EQ(stats.value("failed_calls", int64_t(-1)), 0) << stats.dump();
  if (c.stats_count_bytes) {
    EXPECT_GT(stats.value("bytes_in", int64_t(0)), 0) << stats.dump();
    EXPECT_GT(stats.value("bytes_out", int64_t(0)), 0) << stats.dump();
  }
  for (const auto& [key, value] : region.items()) {
    ASSERT_TRUE(stats.contains(key)) << key << " missing from " << stats.dump();
    EXPECT_EQ(stats[key], value) << key;
  }
}

TEST_P(TransportStats, CountsEveryCallAndCarriesTheRegionsFigures) {
  const Transport& t = *GetParam().transport;
  MakeRegion();
  if (HasFatalFailure()) return;
  auto started = t.StartServer(rpc::ServerOptions{}, region_.get(), service_.get());
  ASSERT_TRUE(started.ok()) << started.status().ToString();
  server_ = std::move(started).value();

  testing::EndpointSteadyClient client(t, server_->port(), uint8_t(testing::ClientCodecOf(t)));
  ASSERT_TRUE(client.WaitForMoreCalls(40)) << client.first_error();
  client.Stop();
  ASSERT_EQ(client.failed(), 0u) << client.first_error();
  const uint64_t calls = client.ok();

  nlohmann::json region;
  region_->AppendStats(&region);
  ASSERT_FALSE(region.empty()) << "region " << GetParam().region->name() << " reports nothing";

  // The server's own view (its counters may trail the last reply a moment).
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  const testing::TransportCase& c = testing::CaseOf(t);
  const std::string key(c.stats_calls);
  nlohmann::json own = server_->StatsJson();
  while (own[key].value("Get", uint64_t(0)) < calls / 2 && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    own = server_->StatsJson();
  }
  {
    SCOPED_TRACE("StatsJson()");
    ExpectFigures(c, own, calls, region);
  }

  // The same over the transport, as `run` reads them.
  auto stats_client = StatsClient::Connect(t, "127.0.0.1", server_->port(), std::chrono::seconds(10));
  ASSERT_TRUE(stats_client.ok()) << stats_client.status().ToString();
  auto fetched = (*stats_client)->Fetch(std::chrono::seconds(10));
  ASSERT_TRUE(fetched.ok()) << fetched.status().ToString();
  {
    SCOPED_TRACE("the Stats call over --rpc " + std::string(t.name()));
    ExpectFigures(c, *fetched, calls, region);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryRegion, TransportStats,
                         ::testing::ValuesIn(testing::TransportsTimesRegions()),
                         testing::TransportRegionParamName());

}  // namespace
}  // namespace wirebench
