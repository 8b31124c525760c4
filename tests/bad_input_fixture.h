// The fixture of every bad-input matrix (tests/transport_bad_input_test.cc
// for the cases every transport shares, tests/bad_input_test.cc,
// grpc_bad_input_test.cc and hbase_bad_input_test.cc for those only one
// wire format has): a live server of one registered transport, started
// through the registry (Transport::StartServer) with the null region on
// port 0; one well-behaved client opened through the registry
// (tests/endpoint_steady_client.h) making calls for the whole test; and the
// server's log captured. Every case must leave the good client with zero
// failed calls and still being served, the server with no leftover
// connections (where it counts them), and its heap bounded.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include <nlohmann/json.hpp>

#include "nullregion/null_region.h"
#include "nullregion/region_service.h"
#include "rpc/transport_server.h"
#include "tests/active_connections.h"
#include "tests/endpoint_steady_client.h"
#include "tests/heap_bytes.h"
#include "tests/transport_cases.h"
#include "transports/transport.h"

namespace wirebench::testing {

class BadInputTest : public ::testing::Test {
 protected:
  using Clock = std::chrono::steady_clock;

  // Starts `transport`'s server (and the good client, unless `with_client`
  // is false) with `o`.
  void StartServerOf(std::string_view transport, rpc::ServerOptions o = {},
                     bool with_client = true) {
    auto t = Transports().Resolve(transport);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    StartServerOf(**t, o, with_client);
  }
  void StartServerOf(const Transport& transport, rpc::ServerOptions o = {},
                     bool with_client = true) {
    if (!capturing_) {
      ::testing::internal::CaptureStderr();
      capturing_ = true;
    }
    transport_ = &transport;
    if (!region_) {
      region_ = NewNullRegion({});
      service_ = std::make_unique<RegionService>(region_.get());
    }
    auto started = transport.StartServer(o, region_.get(), service_.get());
    ASSERT_TRUE(started.ok()) << started.status().ToString();
    server_ = std::move(started).value();
    port_ = server_->port();
    heap_at_start_ = HeapBytesInUse();
    ASSERT_GT(heap_at_start_, 0u) << "the allocator reports no heap statistics";
    if (!with_client) return;
    client_ = std::make_unique<EndpointSteadyClient>(transport, port_,
                                                     uint8_t(ClientCodecOf(transport)));
    // The misbehaving peer starts only once the good client is being served.
    ASSERT_TRUE(client_->WaitForMoreCalls(50)) << client_->first_error();
  }

  // Stops the good client and the server (a case that restarts the server
  // with other options).
  void StopServer() {
    if (client_) client_->Stop();
    client_.reset();
    if (server_) server_->Stop();
  }

  void TearDown() override {
    if (client_) {
      // The good client is still being served after the bad peer is done...
      EXPECT_TRUE(client_->WaitForMoreCalls(50)) << client_->first_error();
      client_->Stop();
      // ... and never had a call fail.
      EXPECT_EQ(client_->failed(), 0u) << client_->first_error();
      EXPECT_GT(client_->ok(), 100u);
    }
    if (server_) {
      // Every misbehaving connection (and the good one) is gone from the
      // server, where it counts them (gRPC's are gRPC's own).
      if (HasActiveConnections()) {
        EXPECT_TRUE(WaitForActiveConnections(0)) << server_->StatsJson()["connections"].dump();
      }
      // Bounded memory: nothing a bad peer sent is held on to. Heap bytes
      // in use, not RSS: RSS also counts the allocator's cache and, in the
      // sanitizer stages, shadow memory, neither of which the server holds.
      // Once every bad connection is gone the heap is back within 1 MiB of
      // where it started in every build; the bound leaves room for the
      // largest legitimate buffer here (the 16 MiB max-frame case).
      const size_t heap = HeapBytesInUse();
      EXPECT_LT(heap, heap_at_start_ + (32u << 20))
          << "heap in use grew from " << heap_at_start_ << " to " << heap << " bytes";
      server_->Stop();
    }
    if (capturing_) log_ = ::testing::internal::GetCapturedStderr();
    capturing_ = false;
    if (HasFailure()) std::printf("server log:\n%.20000s\n", log_.c_str());
  }

  uint16_t port() const { return port_; }
  nlohmann::json Stats() { return server_->StatsJson(); }
  // -1 when the server does not report it.
  int64_t Stat(const char* name) { return server_->StatsJson().value(name, int64_t(-1)); }
  bool HasActiveConnections() {
    const nlohmann::json j = server_->StatsJson();
    return j.contains("connections") && j["connections"].contains("active");
  }
  int64_t ActiveConnections() { return testing::ActiveConnections(*server_); }
  bool WaitForActiveConnections(int64_t n) {
    return testing::WaitForActiveConnections(*server_, n);
  }
  // The server's log so far (stops capturing it).
  std::string TakeLog() {
    capturing_ = false;
    log_ = ::testing::internal::GetCapturedStderr();
    return log_;
  }
  static int Count(const std::string& haystack, const std::string& needle) {
    int n = 0;
    for (size_t p = haystack.find(needle); p != std::string::npos;
         p = haystack.find(needle, p + 1))
      ++n;
    return n;
  }
  void ExpectLoggedOnce(const std::string& reason_part) {
    std::string log = TakeLog();
    EXPECT_EQ(Count(log, reason_part), 1) << log;
  }

  const Transport* transport_ = nullptr;
  std::unique_ptr<Region> region_;
  std::unique_ptr<RegionService> service_;
  std::unique_ptr<rpc::TransportServer> server_;
  std::unique_ptr<EndpointSteadyClient> client_;
  uint16_t port_ = 0;
  size_t heap_at_start_ = 0;
  bool capturing_ = false;
  std::string log_;
};

}  // namespace wirebench::testing
