// `wirebench run --rpc grpc|grpc-native` end to end through the real binary:
// a co-located server started with the same --rpc, every codec over gRPC
// with a small operation count and zero failed operations, grpc-native with
// pb, server figures from the Stats call over gRPC, gRPC's own client
// threads in the client's CPU, and the refusals (grpc-native with another
// codec, --handlers with a gRPC server).
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "codecs/codec.h"
#include "tests/silent_listener.h"
#include "transports/transport.h"

namespace wirebench {
namespace {

using testing::WirebenchProcess;

const std::string kBinary = std::string(WIREBENCH_BINARY_DIR) + "/bench/wirebench";
const std::string kWorkloadA = std::string(WIREBENCH_SOURCE_DIR) + "/workloads/workloada";
constexpr auto kBound = std::chrono::seconds(120);

std::string Stem(const std::string& name) {
  return std::string(WIREBENCH_BINARY_DIR) + "/grpc_run_" + name;
}

struct RunOutcome {
  int rc = -1;
  std::string err;
  nlohmann::json results;
};

// `wirebench run` with a co-located server over `rpc`, 300 operations on 4 clients.
RunOutcome RunOver(const std::string& rpc, const std::string& codec) {
  const std::string stem = Stem(rpc + "_" + codec);
  const std::string json_path = stem + ".json";
  std::remove(json_path.c_str());
  WirebenchProcess p(kBinary,
                     {"run", "-P", kWorkloadA, "--rpc", rpc, "--codec", codec, "-threads", "4",
                      "--ops", "300", "-p", "recordcount=1000", "--json", json_path},
                     stem);
  RunOutcome out;
  out.rc = p.Wait(kBound);
  out.err = p.Stderr();
  std::ifstream in(json_path);
  if (in) out.results = nlohmann::json::parse(in, nullptr, false).value("results", nlohmann::json());
  return out;
}

int64_t Count(const nlohmann::json& results, const std::string& what) {
  int64_t n = 0;
  for (const auto& [op, e] : results.at("ops").items()) n += e.at("return").value(what, int64_t(0));
  return n;
}

void ExpectCleanRun(const RunOutcome& r) {
  ASSERT_EQ(r.rc, 0) << r.err;
  ASSERT_TRUE(r.results.is_object()) << r.err;
  EXPECT_FALSE(r.results.at("partial").get<bool>()) << r.results.dump();
  EXPECT_EQ(r.results.at("operations").get<int64_t>(), 300);
  EXPECT_EQ(Count(r.results, "ERROR"), 0) << r.results.at("ops").dump();
  EXPECT_EQ(Count(r.results, "OK") + Count(r.results, "NOT_FOUND"), 300);
  // Server figures came from the Stats call over gRPC, before and after.
  EXPECT_TRUE(r.results.at("server").at("after").is_object()) << r.results.at("server").dump();
  EXPECT_GT(r.results.at("client_raw").at("cpu_ns").get<double>(), 0);
}

TEST(GrpcRun, EveryCodecOverGrpcRunsWithoutFailedOperations) {
  for (const CodecInfo& c : AllCodecs()) {
    SCOPED_TRACE(std::string(c.name));
    const RunOutcome r = RunOver("grpc", std::string(c.name));
    ExpectCleanRun(r);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// The client's CPU over gRPC takes in the threads gRPC starts on its own
// (they never register); over wirebench's layer there are none to add.
// Issue 14: a 5 s closed-loop run over gRPC (32 clients, workload A) ends
// with every operation answered: zero failed operations, nothing partial.
TEST(GrpcRun, FiveSecondRunHasNoFailedOperations) {
  const std::string stem = Stem("five_seconds");
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

TEST(GrpcRun, ClientCountsGrpcsOwnThreads) {
  EXPECT_EQ(DefaultTransport().OwnThreadsUsage().threads, 0);
  auto grpc = FindTransport("grpc");
  ASSERT_TRUE(grpc.ok()) << grpc.status().ToString();
  std::thread unregistered([&grpc] {
    const ThreadUsage u = (*grpc)->OwnThreadsUsage();
    EXPECT_GE(u.threads, 1);  // This thread at least.
    EXPECT_GT(u.cpu_ns, 0);
  });
  unregistered.join();
}

TEST(GrpcRun, GrpcNativeRunsWithPb) {
  const RunOutcome r = RunOver("grpc-native", "pb");
  ExpectCleanRun(r);
  if (::testing::Test::HasFatalFailure()) return;
  // The server answered through the generated service.
  const auto& native = r.results.at("server").at("after").at("native_calls");
  EXPECT_FALSE(native.is_null()) << r.results.at("server").at("after").dump();
}

TEST(GrpcRun, GrpcNativeRefusesOtherCodecs) {
  const RunOutcome r = RunOver("grpc-native", "raw");
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("--rpc grpc-native"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--codec pb"), std::string::npos) << r.err;
}

TEST(GrpcRun, UnknownRpcIsRefusedNamingTheValues) {
  const RunOutcome r = RunOver("http", "raw");
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("--rpc must be one of wirebench, grpc, grpc-native"), std::string::npos)
      << r.err;
}

TEST(GrpcRun, GrpcServerRefusesHandlerThreads) {
  WirebenchProcess p(kBinary, {"server", "--rpc", "grpc", "--handlers", "4", "--quiet"},
                     Stem("handlers"));
  EXPECT_EQ(p.Wait(kBound), 2);
  EXPECT_NE(p.Stderr().find("--handlers 4 with --rpc grpc"), std::string::npos) << p.Stderr();
}

}  // namespace
}  // namespace wirebench
