// grpc_idle_streams PORT stats: prints the server's waiting-call counters.
// grpc_idle_streams PORT STREAMS [CONNECTIONS]: opens STREAMS gRPC streams
// (headers only, never a message) spread over CONNECTIONS connections to
// 127.0.0.1:PORT and holds them until SIGINT/SIGTERM, printing how many the
// server has ended so far every second. An attack on idle streams,
// for measuring a server's throughput and memory under it by hand; ending
// it (SIGINT/SIGTERM) cancels every stream at once, an HTTP/2 "rapid
// reset" (README, "Limits worth knowing").
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tests/grpc_idle_streams.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s PORT STREAMS [CONNECTIONS]\n", argv[0]);
    return 2;
  }
  const int port = std::atoi(argv[1]);
  if (std::string(argv[2]) == "stats") {  // The server's waiting-call counters.
    wirebench::grpcrpc::GrpcClientOptions o;
    o.port = uint16_t(port);
    auto reply = wirebench::grpcrpc::GrpcCallOnce(o, wirebench::Method::kStats, "");
    if (!reply.ok()) {
      std::fprintf(stderr, "%s\n", reply.status().ToString().c_str());
      return 1;
    }
    const auto j = nlohmann::json::parse(*reply);
    for (const char* k : {"calls_waiting_for_request", "idle_calls_cancelled",
                          "calls_cancelled_over_limit", "calls_ended_without_request"})
      std::printf("%s=%s ", k, j[k].dump().c_str());
    std::printf("max_rss_kb=%s\n", j["process"]["max_rss_kb"].dump().c_str());
    return 0;
  }
  const int streams = std::atoi(argv[2]);
  const int conns = argc > 3 ? std::max(1, std::atoi(argv[3])) : 1;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::vector<std::unique_ptr<wirebench::testing::IdleStreams>> peers;
  for (int i = 0; i < conns; ++i) {
    const int n = streams / conns + (i < streams % conns ? 1 : 0);
    peers.push_back(std::make_unique<wirebench::testing::IdleStreams>(uint16_t(port), n));
    if (!peers.back()->error().empty()) {
      std::fprintf(stderr, "%s\n", peers.back()->error().c_str());
      return 1;
    }
  }
  std::printf("holding %d idle streams on %d connection(s)\n", streams, conns);
  std::fflush(stdout);
  const timespec second{1, 0};
  for (;;) {
    if (sigtimedwait(&set, nullptr, &second) > 0) break;
    int ended = 0;
    for (auto& p : peers) ended += p->ended();
    std::printf("ended by the server so far: %d\n", ended);
    std::fflush(stdout);
  }
  return 0;
}
