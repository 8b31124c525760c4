// The region registry: one line per region.
#include "regions/registry.h"

namespace wirebench {

// Each region's folder defines its entry's accessor.
const RegionEntry& MemstoreRegionEntry();
const RegionEntry& WalRegionEntry();

namespace {

const std::vector<const RegionEntry*>& Registry() {
  static const std::vector<const RegionEntry*> entries = {
      &NullRegionEntry(),
      &MemstoreRegionEntry(),
      &WalRegionEntry(),
  };
  return entries;
}

Status Unknown(const std::string& name) {
  return Status::InvalidArgument("unknown region '" + name + "'; known regions: " +
                                 RegionNames());
}

}  // namespace

std::span<const RegionEntry* const> AllRegions() { return Registry(); }

const RegionEntry* FindRegion(std::string_view name) {
  for (const RegionEntry* e : Registry())
    if (e->name == name) return e;
  return nullptr;
}

std::string RegionNames() {
  std::string names;
  for (const RegionEntry* e : Registry())
    names += (names.empty() ? "" : ", ") + std::string(e->name);
  return names;
}

void SetRegionDefaults(RegionConfig* config) {
  for (const RegionEntry* e : Registry())
    for (const RegionOptionSpec& o : e->options)
      config->settings.SetDefault(o.flag, o.default_value);
}

Status CheckRegion(const RegionConfig& config) {
  const RegionEntry* e = FindRegion(config.name);
  if (e == nullptr) return Unknown(config.name);
  RegionConfig filled = config;
  SetRegionDefaults(&filled);
  return e->check(filled.settings);
}

StatusOr<std::unique_ptr<Region>> NewRegion(const RegionConfig& config) {
  const RegionEntry* e = FindRegion(config.name);
  if (e == nullptr) return Unknown(config.name);
  RegionConfig filled = config;
  SetRegionDefaults(&filled);
  WB_RETURN_IF_ERROR(e->check(filled.settings));
  return e->make(filled.settings);
}

std::string RegionAdvice(const RegionConfig& config, int handlers) {
  const RegionEntry* e = FindRegion(config.name);
  return e == nullptr || e->advice == nullptr ? "" : e->advice(config.settings, handlers);
}

std::vector<std::string> RegionArgs(const RegionConfig& config) {
  std::vector<std::string> args = {"--region", config.name};
  if (const RegionEntry* e = FindRegion(config.name)) {
    for (const RegionOptionSpec& o : e->options) {
      const std::string& v = config.settings.Get(o.flag);
      if (!v.empty()) args.insert(args.end(), {std::string(o.flag), v});
    }
  }
  return args;
}

std::string DescribeRegion(const RegionConfig& config) {
  std::string out = config.name;
  const RegionEntry* e = FindRegion(config.name);
  if (e == nullptr || e->options.empty()) return out;
  std::string opts;  // The options set to something other than their default.
  for (const RegionOptionSpec& o : e->options) {
    const std::string& v = config.settings.Get(o.flag);
    if (!v.empty() && v != o.default_value)
      opts += (opts.empty() ? "" : ", ") + std::string(o.flag) + " " + v;
  }
  return opts.empty() ? out : out + " (" + opts + ")";
}

}  // namespace wirebench
