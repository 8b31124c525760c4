// End to end over loopback: a real wbrpc::Server with the null region on port
// 0, and the real driver or raw connections against it.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <boost/asio.hpp>
#include <nlohmann/json.hpp>
#include <thread>

#include "bench/loadgen/driver.h"
#include "codecs/codec.h"
#include "nullregion/null_region.h"
#include "nullregion/region_service.h"
#include "transports/wirebench/client.h"
#include "transports/wirebench/server.h"
#include "tests/null_server_fixture.h"
#include "tests/test_workloads.h"

namespace wirebench {
namespace {

class EndToEnd : public ::testing::Test {
 protected:
  void StartServer(rpc::ServerOptions o = {}, NullRegionOptions n = {}) {
    region_ = NewNullRegion(n);
    service_ = std::make_unique<RegionService>(region_.get());
    server_ = std::make_unique<wbrpc::Server>(o, service_.get());
    ASSERT_TRUE(server_->Start().ok());
    ASSERT_NE(server_->port(), 0);
  }
  DriverOptions Driver(int threads, int64_t ops) {
    DriverOptions d;
    d.port = server_->port();
    d.threads = threads;
    d.operations = ops;
    return d;
  }
  std::unique_ptr<Region> region_;
  std::unique_ptr<RegionService> service_;
  std::unique_ptr<wbrpc::Server> server_;
};

TEST_F(EndToEnd, PutGetScanMultiThroughNullRegion) {
  StartServer();
  testing::MixedWorkload w;
  auto r = RunLoad(Driver(4, 400), &w);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->partial) << r->error.ToString();
  EXPECT_EQ(r->operations, 400u);
  EXPECT_EQ(r->ops[size_t(OpType::kUpdate)].results[size_t(OpResult::kOk)], 100u);
  // The null region answers every Get empty: YCSB's HBase binding counts NOT_FOUND.
  EXPECT_EQ(r->ops[size_t(OpType::kRead)].results[size_t(OpResult::kNotFound)], 100u);
  EXPECT_EQ(r->ops[size_t(OpType::kScan)].results[size_t(OpResult::kOk)], 100u);
  EXPECT_EQ(r->ops[size_t(OpType::kFlush)].results[size_t(OpResult::kOk)], 100u);
  EXPECT_EQ(r->ops[size_t(OpType::kUpdate)].latency.total_count(), 100);
  const nlohmann::json& after = r->server_after;
  ASSERT_TRUE(after.is_object());
  EXPECT_GE(after["calls"]["Mutate"].get<uint64_t>(), 100u);
  EXPECT_GE(after["region"]["puts"].get<uint64_t>(), 100u + 400u);  // Multi of 4 puts each.
  EXPECT_EQ(after["failed_calls"].get<uint64_t>(), 0u);
}

TEST_F(EndToEnd, CannedReadsReturnARecord) {
  NullRegionOptions n;
  n.reads = NullRegionOptions::Reads::kCanned;
  StartServer({}, n);
  testing::MixedWorkload w;
  auto r = RunLoad(Driver(2, 40), &w);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->ops[size_t(OpType::kRead)].results[size_t(OpResult::kOk)], 10u);
  EXPECT_EQ(r->ops[size_t(OpType::kRead)].results[size_t(OpResult::kNotFound)], 0u);
}

TEST_F(EndToEnd, HundredsOfLogicalClientsOnOneConnectionWithHandlerPool) {
  rpc::ServerOptions o;
  o.io_threads = 2;
  o.handlers = 4;  // Replies come back from 4 threads: out of order on the wire.
  StartServer(o);
  testing::MixedWorkload w(/*puts_only=*/true);
  DriverOptions d = Driver(300, 30000);
  d.connections = 1;
  auto r = RunLoad(d, &w);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->partial);
  EXPECT_EQ(r->operations, 30000u);
  EXPECT_EQ(r->ops[size_t(OpType::kUpdate)].results[size_t(OpResult::kOk)], 30000u);
  EXPECT_EQ(r->connections.stray_replies, 0u);
  // Coalescing: many frames per write.
  EXPECT_LT(r->connections.writes, r->connections.frames_out);
}

// Sends raw bytes on a blocking socket and reads what comes back until EOF.
std::string Exchange(uint16_t port, const std::string& bytes) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) return "connect failed";
  (void)!write(fd, bytes.data(), bytes.size());
  std::string got;
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n <= 0) break;
    got.append(buf, size_t(n));
  }
  close(fd);
  return got;
}

TEST_F(EndToEnd, GarbageConnectionIsClosedWhileAnotherKeepsWorking) {
  StartServer();
  testing::MixedWorkload w(/*puts_only=*/true);
  DriverOptions d = Driver(8, 0);
  d.max_seconds = 1.0;
  std::thread load([&] {
    auto r = RunLoad(d, &w);
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r->partial) << r->error.ToString();
    EXPECT_EQ(r->ops[size_t(OpType::kUpdate)].results[size_t(OpResult::kError)], 0u);
    EXPECT_GT(r->operations, 100u);
  });
  std::string reply = Exchange(server_->port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_NE(reply.find("magic"), std::string::npos) << reply;
  // Valid preamble, then a frame longer than the maximum.
  ByteBuffer b;
  wbrpc::WritePreamble(1, &b);
  uint8_t len[4];
  StoreLE32(len, 0xFFFFFFFFu);
  b.Append(len, 4);
  reply = Exchange(server_->port(), std::string(b.view().str()));
  EXPECT_NE(reply.find("exceeds the maximum"), std::string::npos) << reply;
  // Unknown codec id.
  b.Clear();
  wbrpc::WritePreamble(200, &b);
  reply = Exchange(server_->port(), std::string(b.view().str()));
  EXPECT_NE(reply.find("unknown codec id 200"), std::string::npos) << reply;
  load.join();
}

TEST_F(EndToEnd, ConnectToNothingIsAClearError) {
  StartServer();
  const uint16_t port = server_->port();
  server_->Stop();
  testing::MixedWorkload w;
  DriverOptions d;
  d.port = port;
  d.operations = 10;
  auto r = RunLoad(d, &w);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cannot connect to server 127.0.0.1:"), std::string::npos)
      << r.status().ToString();
}

TEST_F(EndToEnd, CleanShutdownWithCallsInFlightLeavesAPartialResult) {
  StartServer();
  testing::MixedWorkload w(/*puts_only=*/true);
  DriverOptions d = Driver(64, 0);
  d.max_seconds = 30;
  d.fetch_server_stats = false;
  StatusOr<RunResult> r = Status::Internal("not run");
  std::thread load([&] { r = RunLoad(d, &w); });
  // Wait until calls are flowing, then stop the server under load.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline &&
         server_->StatsJson()["calls"]["Mutate"].get<uint64_t>() < 1000)
    std::this_thread::yield();
  server_->Stop();
  load.join();
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->partial);
  EXPECT_NE(r->error.message().find("127.0.0.1"), std::string::npos) << r->error.ToString();
  EXPECT_GT(r->operations, 0u);  // What was measured before the failure is kept.
}

TEST(Ping, EchoesPayload) {
  testing::NullServerFixture server;
  wbrpc::ClientOptions co;
  co.port = server.server->port();
  auto reply = wbrpc::CallOnce(co, Method::kPing, ByteView("hello"));
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ(*reply, "hello");
  auto stats = wbrpc::CallOnce(co, Method::kStats, ByteView());
  ASSERT_TRUE(stats.ok());
  auto j = nlohmann::json::parse(*stats);
  EXPECT_EQ(j["calls"]["Ping"].get<int>(), 1);
  EXPECT_EQ(j["region"]["name"], "null");
}

}  // namespace
}  // namespace wirebench
