// The bad-input cases only gRPC has (the matrix every transport shares, run
// over gRPC too, is transport_bad_input_test.cc): a live `--rpc grpc` server
// started through the registry with the null region on port 0, one
// well-behaved client of the transport's own making calls for the whole test
// (tests/bad_input_fixture.h), and peers that open gRPC streams and never
// send a message on them. Every case must leave the good client with zero
// failed calls, still served, and the server holding a bounded number of
// waiting calls. The registry's server options become gRPC's limits:
// max_inflight_per_connection its MAX_CONCURRENT_STREAMS, max_connections
// its bound on calls waiting for their message, idle_timeout_ms theirs.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "codecs/codec.h"
#include "tests/bad_input_fixture.h"
#include "tests/grpc_idle_streams.h"
#include "transports/grpc/grpc_client.h"

namespace wirebench {
namespace {

using Clock = std::chrono::steady_clock;
using testing::IdleStreams;

// Waits (polling) until `pred` holds; false after 20 s.
template <typename Pred>
bool WaitFor(Pred pred) {
  // True once the predicate has been seen true: the counters it reads move
  // on (a good client's call waits for its message for a moment too), so a
  // second look could miss what the first one saw.
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  for (;;) {
    if (pred()) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

class GrpcBadInput : public testing::BadInputTest {
 protected:
  void StartServer(rpc::ServerOptions o = {}) { StartServerOf("grpc", o); }
};

// More idle streams than the server keeps calls requested (64 per queue):
// each is accepted and waits for its message outside the accept slots.
TEST_F(GrpcBadInput, IdleStreamsDoNotStopServing) {
  StartServer();
  IdleStreams idle(port(), 200);
  ASSERT_EQ(idle.error(), "");
  ASSERT_TRUE(WaitFor([&] { return Stat("calls_waiting_for_request") == 200; }))
      << server_->StatsJson().dump();
  EXPECT_TRUE(client_->WaitForMoreCalls(50)) << client_->first_error();
  // Stats (served by the generic service on grpc-native too) still answers.
  grpcrpc::GrpcClientOptions co;
  co.port = port();
  auto stats = grpcrpc::GrpcCallOnce(co, Method::kStats, "", 5000);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  // The 200 idle streams, and the steady client's one call when Stats was
  // taken between that call's accept and its message (seen once in CI: 201).
  const int waiting = nlohmann::json::parse(*stats)["calls_waiting_for_request"].get<int>();
  EXPECT_GE(waiting, 200);
  EXPECT_LE(waiting, 201);
  EXPECT_EQ(idle.ended(), 0);
  EXPECT_EQ(Stat("calls_ended_without_request"), 0);
}

// Streams the client resets before sending a message (the first half of an
// HTTP/2 "rapid reset") end on the server too, and are counted.
TEST_F(GrpcBadInput, StreamsResetByTheClientAreCounted) {
  StartServer();
  auto idle = std::make_unique<IdleStreams>(port(), 200);
  ASSERT_EQ(idle->error(), "");
  ASSERT_TRUE(WaitFor([&] { return Stat("calls_waiting_for_request") == 200; }))
      << server_->StatsJson().dump();
  idle.reset();  // Cancels (RST_STREAM) every stream.
  EXPECT_TRUE(WaitFor([&] {
    return Stat("calls_waiting_for_request") == 0 && Stat("calls_ended_without_request") == 200;
  })) << server_->StatsJson().dump();
  EXPECT_EQ(Stat("idle_calls_cancelled"), 0);
  EXPECT_EQ(Stat("calls_cancelled_over_limit"), 0);
}

TEST_F(GrpcBadInput, IdleStreamsAreCancelledAfterTheIdleTimeout) {
  rpc::ServerOptions o;
  o.idle_timeout_ms = 200;
  StartServer(o);
  const auto opened = Clock::now();
  IdleStreams idle(port(), 100);
  ASSERT_EQ(idle.error(), "");
  ASSERT_TRUE(WaitFor([&] { return idle.ended() == 100; })) << idle.ended() << " ended";
  EXPECT_GE(Clock::now() - opened, std::chrono::milliseconds(150)) << "cancelled too soon";
  EXPECT_EQ(idle.ended_not_ok(), 100);
  EXPECT_TRUE(WaitFor([&] { return Stat("calls_waiting_for_request") == 0; }));
  EXPECT_EQ(Stat("idle_calls_cancelled"), 100);
  EXPECT_TRUE(WaitFor([&] { return Stat("calls_ended_without_request") == 100; }))
      << server_->StatsJson().dump();
  client_->WaitForMoreCalls(20);
  const std::string log = TakeLog();
  EXPECT_NE(log.find("sent no request message within 200 ms of being accepted (--idle-timeout-ms)"),
            std::string::npos)
      << log;
}

// MAX_CONCURRENT_STREAMS: a connection opening more streams than allowed
// gets only that many onto the server; the rest wait in its client.
TEST_F(GrpcBadInput, StreamsPerConnectionAreCapped) {
  rpc::ServerOptions o;
  o.max_inflight_per_connection = 50;  // MAX_CONCURRENT_STREAMS.
  o.idle_timeout_ms = 0;
  StartServer(o);
  IdleStreams idle(port(), 120);
  ASSERT_EQ(idle.error(), "");
  ASSERT_TRUE(WaitFor([&] { return Stat("calls_waiting_for_request") == 50; }))
      << server_->StatsJson().dump();
  // A second connection gets its own 50.
  IdleStreams more(port(), 10);
  ASSERT_TRUE(WaitFor([&] { return Stat("calls_waiting_for_request") == 60; }))
      << server_->StatsJson().dump();
  ASSERT_TRUE(client_->WaitForMoreCalls(100)) << client_->first_error();
  // Still 60 (seen between the good client's calls, which wait a moment too).
  EXPECT_TRUE(WaitFor([&] { return Stat("calls_waiting_for_request") == 60; }))
      << server_->StatsJson().dump();
  EXPECT_EQ(server_->StatsJson()["server"]["max_streams_per_connection"], 50);
}

// Over max_waiting_calls the oldest waiting calls are cancelled (after a
// 100 ms grace, or at once past twice the limit): memory stays bounded
// however many connections open idle streams.
TEST_F(GrpcBadInput, WaitingCallsAreCappedOverTheServer) {
  rpc::ServerOptions o;
  o.max_connections = 100;  // Calls waiting for their message.
  o.idle_timeout_ms = 0;
  StartServer(o);
  std::vector<std::unique_ptr<IdleStreams>> peers;
  peers.push_back(std::make_unique<IdleStreams>(port(), 100));
  ASSERT_EQ(peers.back()->error(), "");
  ASSERT_TRUE(WaitFor([&] { return Stat("calls_waiting_for_request") == 100; }));
  ASSERT_TRUE(client_->WaitForMoreCalls(20)) << client_->first_error();
  // Two more connections' worth: the first peer's calls, the oldest, go.
  for (int i = 0; i < 2; ++i) {
    peers.push_back(std::make_unique<IdleStreams>(port(), 100));
    ASSERT_EQ(peers.back()->error(), "");
  }
  // (Each good call arriving while 100 idle ones wait also pushes one out,
  // so the counts are at least these.)
  ASSERT_TRUE(WaitFor([&] {
    return Stat("calls_cancelled_over_limit") >= 200 && Stat("calls_waiting_for_request") <= 100;
  })) << server_->StatsJson().dump();
  EXPECT_TRUE(WaitFor([&] { return peers[0]->ended_not_ok() == 100; })) << peers[0]->ended();
  int ended = 0;
  EXPECT_TRUE(WaitFor([&] {
    ended = 0;
    for (auto& p : peers) ended += p->ended_not_ok();
    return ended >= 200;
  })) << ended;
  EXPECT_TRUE(client_->WaitForMoreCalls(50)) << client_->first_error();
  const std::string log = TakeLog();
  EXPECT_NE(log.find("more than 100 calls waiting for their request message"), std::string::npos)
      << log;
}

}  // namespace
}  // namespace wirebench
