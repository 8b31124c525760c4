// Builds the server's region from command-line options: `null` (the
// HBASE-10001 empty region, with its calibration knobs), and the regions
// under regions/ when they are built in.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "nullregion/null_region.h"
#include "nullregion/region.h"

namespace wirebench {

struct RegionConfig {
  std::string name = "null";
  std::string null_reads = "empty";
  uint32_t spin_us = 0;
  uint32_t delay_us = 0;
  uint32_t spin_instructions = 0;
  std::string wal_dir;
  std::string wal_sync = "every";  // Sync mode for the wal region.
  uint32_t wal_sync_interval = 100;
};

void AddRegionOptions(CLI::App* cmd, RegionConfig* config);
StatusOr<std::unique_ptr<Region>> NewRegion(const RegionConfig& config);
// The names NewRegion accepts, for messages.
std::string RegionNames();

}  // namespace wirebench
