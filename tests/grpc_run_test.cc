// `wirebench run --rpc grpc` end to end through the real binary, the parts
// only gRPC has (every transport's run, codec refusals and --handlers
// refusal are transport_run_test.cc): a 5 s closed-loop run with every
// operation answered, and gRPC's own client threads in the client's CPU.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tests/silent_listener.h"
#include "tests/wirebench_paths.h"
#include "transports/transport.h"

namespace wirebench {
namespace {

using testing::WirebenchProcess;

constexpr auto kBound = std::chrono::seconds(120);

int64_t Count(const nlohmann::json& results, const std::string& what) {
  int64_t n = 0;
  for (const auto& [op, e] : results.at("ops").items()) n += e.at("return").value(what, int64_t(0));
  return n;
}

// A 5 s closed-loop run over gRPC (32 clients, workload A) ends
// with every operation answered: zero failed operations, nothing partial.
TEST(GrpcRun, FiveSecondRunHasNoFailedOperations) {
  const std::string stem = std::string(WIREBENCH_BINARY_DIR) + "/grpc_run_five_seconds";
  const std::string json_path = stem + ".json";
  std::remove(json_path.c_str());
  WirebenchProcess p(kBinary,
                     {"run", "-P", kWorkloadA, "--rpc", "grpc", "--codec", "raw", "-threads", "32",
                      "--seconds", "5", "-p", "recordcount=1000", "--json", json_path},
                     stem);
  ASSERT_EQ(p.Wait(kBound), 0) << p.Stderr();
  std::ifstream in(json_path);
  const auto results = nlohmann::json::parse(in, nullptr, false).value("results", nlohmann::json());
  ASSERT_TRUE(results.is_object()) << p.Stderr();
  EXPECT_FALSE(results.at("partial").get<bool>());
  EXPECT_GT(results.at("operations").get<int64_t>(), 1000);
  EXPECT_EQ(Count(results, "ERROR"), 0) << results.at("ops").dump();
  EXPECT_GE(results.at("runtime_s").get<double>(), 4.9);
}

// The client's CPU over gRPC takes in the threads gRPC starts on its own
// (they never register); over wirebench's layer there are none to add.
TEST(GrpcRun, ClientCountsGrpcsOwnThreads) {
  EXPECT_EQ(DefaultTransport().OwnThreadsUsage().threads, 0);
  auto grpc = Transports().Resolve("grpc");
  ASSERT_TRUE(grpc.ok()) << grpc.status().ToString();
  std::thread unregistered([&grpc] {
    const ThreadUsage u = (*grpc)->OwnThreadsUsage();
    EXPECT_GE(u.threads, 1);  // This thread at least.
    EXPECT_GT(u.cpu_ns, 0);
  });
  unregistered.join();
}

}  // namespace
}  // namespace wirebench
