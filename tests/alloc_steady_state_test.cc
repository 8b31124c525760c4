// After warm-up, a put round trip through client, raw codec, server and null
// region allocates nothing (and so does a put-and-get round trip with the
// capnp and writable codecs, which build in the frame and read in place): counted exactly by the operator new hook, on the
// client's event-loop threads (or, with --thread-model os, its OS threads and
// their connections' reader threads) and on the server's I/O threads.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "bench/loadgen/driver.h"
#include "codecs/codec.h"
#include "nullregion/null_region.h"
#include "nullregion/region_service.h"
#include "transports/wirebench/server.h"
#include "tests/test_workloads.h"

namespace wirebench {
namespace {

uint64_t ServerIoAllocs(const nlohmann::json& stats) {
  uint64_t n = 0;
  for (const auto& t : stats["threads"])
    if (t["role"] == "server-io") n += t["allocs"].get<uint64_t>();
  return n;
}

// Puts against an in-process null-region server: after a warm-up long enough
// for every buffer and cache to reach its high-water mark, 20,000 operations
// allocate nothing on the client threads or the server's I/O thread.
void ExpectPutsAllocateNothing(DriverOptions d, int client_threads, const char* codec = "raw",
                               bool puts_only = true) {
  ASSERT_TRUE(AllocationCountingActive()) << "the allocation hook is not linked";
  auto region = NewNullRegion({});
  RegionService service(region.get());
  wbrpc::Server server({}, &service);
  ASSERT_TRUE(server.Start().ok());
  testing::MixedWorkload w(puts_only);
  d.port = server.port();
  d.codec = Codecs().Find(codec);
  ASSERT_NE(d.codec, nullptr) << codec;
  d.warmup_seconds = 1.0;
  d.operations = 20000;
  auto r = RunLoad(d, &w);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(r->partial) << r->error.ToString();
  ASSERT_EQ(r->operations, 20000u);
  EXPECT_EQ(r->client_usage.threads, client_threads);
  EXPECT_EQ(r->client_counters.allocs, 0u)
      << r->client_counters.alloc_bytes << " bytes allocated by client threads";
  ASSERT_TRUE(r->server_before.is_object());
  ASSERT_TRUE(r->server_after.is_object());
  EXPECT_EQ(ServerIoAllocs(r->server_after) - ServerIoAllocs(r->server_before), 0u);
}

TEST(AllocSteadyState, PutRoundTripAllocatesNothing) {
  DriverOptions d;
  d.threads = 8;
  ExpectPutsAllocateNothing(d, /*client_threads=*/1);  // One event loop.
}

// The same with --thread-model os: the client threads and the connections'
// reader threads allocate nothing per operation.
TEST(AllocSteadyState, OsModelPutRoundTripAllocatesNothing) {
  DriverOptions d;
  d.threads = 8;
  d.connections = 2;
  d.thread_model = ThreadModel::kOs;
  ExpectPutsAllocateNothing(d, /*client_threads=*/8 + 2);  // Plus a reader per connection.
}

// Puts and gets with the codecs that promise no allocation per op on either
// side: capnp (built only where Cap'n Proto is) and writable.
TEST(AllocSteadyState, CapnpRoundTripsAllocateNothing) {
  if (Codecs().Find("capnp") == nullptr) GTEST_SKIP() << "built without Cap'n Proto";
  DriverOptions d;
  d.threads = 8;
  ExpectPutsAllocateNothing(d, /*client_threads=*/1, "capnp", /*puts_only=*/false);
}

TEST(AllocSteadyState, WritableRoundTripsAllocateNothing) {
  DriverOptions d;
  d.threads = 8;
  ExpectPutsAllocateNothing(d, /*client_threads=*/1, "writable", /*puts_only=*/false);
}

}  // namespace
}  // namespace wirebench
