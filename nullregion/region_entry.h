// A region's registry entry (regions/registry.h lists them): its --region
// name, its command-line options as data, and how to make one from their
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

#include "common/status.h"
#include "nullregion/region.h"

namespace wirebench {

struct RegionOptionSpec {
  std::string_view flag;           // "--wal-dir"
  std::string_view help;           // One sentence for --help.
  std::string_view default_value;  // "" = none; an empty value is never forwarded.
};

// Region option values keyed by flag, as the command line set them.
class RegionSettings {
 public:
  // Sets `flag` unless it already has a value (so a command's own default,
  // set first, survives the registry's).
  void SetDefault(std::string_view flag, std::string_view value);
  void Set(std::string_view flag, std::string value);
  // The value, or "" when the flag has none.
  const std::string& Get(std::string_view flag) const;
  // A whole number in [min, max]; the error names the flag and the range.
  StatusOr<uint32_t> GetUint32(std::string_view flag, uint32_t min, uint32_t max) const;
  // Where the command line writes `flag`'s value; stable while this object lives.
  std::string* Slot(std::string_view flag);

 private:
  std::map<std::string, std::string, std::less<>> values_;
};

struct RegionEntry {
  std::string_view name;     // --region NAME
  std::string_view summary;  // One phrase for --help.
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
