// The region registry (`--region NAME`): every region this binary has, each
// a RegionEntry (nullregion/region_entry.h), and the one RegionConfig the
// `server`, `run` and `compare` commands parse and the co-located child is
// handed. Adding a region: a folder regions/<name>/ with the region and its
// entry, one line in regions/registry.cc and one add_subdirectory in
// regions/CMakeLists.txt (README, "Adding a region").
// Thread-safety: entries are immutable; the functions are pure.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"
#include "nullregion/region.h"
#include "nullregion/region_entry.h"

namespace wirebench {

struct RegionConfig {
  // The region (--region NAME, resolved once where it is parsed).
  const RegionEntry* entry = &NullRegionEntry();
  // Every region's options, by flag (the command line writes them).
  RegionSettings settings;
};

// Every region this binary has; the first (null) is the default.
const Registry<RegionEntry>& Regions();
// Fills every option the command line left unset with its entry's default.
void SetRegionDefaults(RegionConfig* config);
// OK when the region's options are valid; errors name the flag.
Status CheckRegion(const RegionConfig& config);
StatusOr<std::unique_ptr<Region>> NewRegion(const RegionConfig& config);
// The chosen region's warning for `handlers` handler threads, or "".
std::string RegionAdvice(const RegionConfig& config, int handlers);
// `--region NAME` and each of the chosen region's options that has a value,
// for the co-located child's command line.
std::vector<std::string> RegionArgs(const RegionConfig& config);
// "null (--null-reads canned)": the region and its options that differ
// from their defaults, for reports.
std::string DescribeRegion(const RegionConfig& config);

}  // namespace wirebench
