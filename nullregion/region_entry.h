// A region's registry entry (regions/registry.h lists them): what every
// entry has (common/registry.h: its --region name, summary and symbol
// prefixes), its command-line options as data, and how to make one from their
// values. Options are data rather than CLI code so the `server` command, the
// co-located child's command line and `run`/`compare` all get them from one
// place: a region with options is its folder plus its entry.
// Thread-safety: entries are immutable; RegionSettings is a plain value.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/option_settings.h"
#include "common/registry.h"
#include "common/status.h"
#include "nullregion/region.h"

namespace wirebench {

// Options as data (common/option_settings.h), named for regions.
using RegionOptionSpec = OptionSpec;
using RegionSettings = OptionSettings;

struct RegionEntry : RegistryEntry {
  std::vector<RegionOptionSpec> options;
  // Checks the settings without making anything (a co-located run checks
  // them before it starts the child); errors name the flag.
  Status (*check)(const RegionSettings& settings) = nullptr;
  // Makes the region. REQUIRES: check(settings) is OK.
  StatusOr<std::unique_ptr<Region>> (*make)(const RegionSettings& settings) = nullptr;
  // A warning about serving it with `handlers` handler threads, or "".
  std::string (*advice)(const RegionSettings& settings, int handlers) = nullptr;
};

// The null region's entry (nullregion/null_region.cc).
const RegionEntry& NullRegionEntry();

}  // namespace wirebench
