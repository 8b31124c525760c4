// The region registry: one line per region.
#include "regions/registry.h"

namespace wirebench {

// Each region's folder defines its entry's accessor.
const RegionEntry& MemstoreRegionEntry();
const RegionEntry& WalRegionEntry();

const Registry<RegionEntry>& Regions() {
  static const Registry<RegionEntry> registry("--region", {
                                                              &NullRegionEntry(),
                                                              &MemstoreRegionEntry(),
                                                              &WalRegionEntry(),
                                                          });
  return registry;
}

void SetRegionDefaults(RegionConfig* config) {
  for (const RegionEntry* e : Regions().all())
    for (const RegionOptionSpec& o : e->options)
      config->settings.SetDefault(o.flag, o.default_value);
}

Status CheckRegion(const RegionConfig& config) {
  const RegionEntry* e = config.entry;
  RegionConfig filled = config;
  SetRegionDefaults(&filled);
  return e->check(filled.settings);
}

StatusOr<std::unique_ptr<Region>> NewRegion(const RegionConfig& config) {
  const RegionEntry* e = config.entry;
  RegionConfig filled = config;
  SetRegionDefaults(&filled);
  WB_RETURN_IF_ERROR(e->check(filled.settings));
  return e->make(filled.settings);
}

std::string RegionAdvice(const RegionConfig& config, int handlers) {
  const RegionEntry* e = config.entry;
  return e->advice == nullptr ? "" : e->advice(config.settings, handlers);
}

std::vector<std::string> RegionArgs(const RegionConfig& config) {
  std::vector<std::string> args = {"--region", std::string(config.entry->name())};
  for (const RegionOptionSpec& o : config.entry->options) {
    const std::string& v = config.settings.Get(o.flag);
    if (!v.empty()) args.insert(args.end(), {std::string(o.flag), v});
  }
  return args;
}

std::string DescribeRegion(const RegionConfig& config) {
  std::string out(config.entry->name());
  const RegionEntry* e = config.entry;
  if (e->options.empty()) return out;
  std::string opts;  // The options set to something other than their default.
  for (const RegionOptionSpec& o : e->options) {
    const std::string& v = config.settings.Get(o.flag);
    if (!v.empty() && v != o.default_value)
      opts += (opts.empty() ? "" : ", ") + std::string(o.flag) + " " + v;
  }
  return opts.empty() ? out : out + " (" + opts + ")";
}

}  // namespace wirebench
