// Builds the server's region from command-line options: `null` (the
// HBASE-10001 empty region, with its calibration knobs), and the regions
// under regions/ when they are built in.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "bench/loadgen/colocated_server.h"  // RegionConfig
#include "nullregion/null_region.h"
#include "nullregion/region.h"

namespace wirebench {

void AddRegionOptions(CLI::App* cmd, RegionConfig* config);
// For the wal region, also prints what log recovery found and did to stderr.
StatusOr<std::unique_ptr<Region>> NewRegion(const RegionConfig& config);
// The names NewRegion accepts, for messages.
std::string RegionNames();

}  // namespace wirebench
