// An in-process wirebench server over a null region, for driver tests that
// run RunLoad against a real loopback server.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>

#include "bench/loadgen/driver.h"
#include "nullregion/null_region.h"
#include "nullregion/region_service.h"
#include "transports/wirebench/server.h"

namespace wirebench::testing {

struct NullServerFixture {
  explicit NullServerFixture(NullRegionOptions n = {})
      : region(NewNullRegion(n)), service(region.get()) {
    server = std::make_unique<wbrpc::Server>(rpc::ServerOptions{}, &service);
    EXPECT_TRUE(server->Start().ok());
  }
  // A run of `threads` logical clients against this server.
  DriverOptions Options(int threads) const {
    DriverOptions d;
    d.port = server->port();
    d.threads = threads;
    return d;
  }
  uint64_t ServerMutates() const { return server->StatsJson()["calls"]["Mutate"].get<uint64_t>(); }
  std::unique_ptr<Region> region;
  RegionService service;
  std::unique_ptr<wbrpc::Server> server;
};

}  // namespace wirebench::testing
