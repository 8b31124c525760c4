#include "bench/cli/region_factory.h"

#include <set>
#include <string>

namespace wirebench {

void AddRegionOptions(CLI::App* cmd, RegionConfig* config) {
  std::string help = "Region behind the server:";
  for (const RegionEntry* e : AllRegions())
    help += std::string(e == AllRegions().front() ? " " : "; ") + std::string(e->name) + " (" +
            std::string(e->summary) + ")";
  cmd->add_option("--region", config->name, help)->capture_default_str();
  SetRegionDefaults(config);
  std::set<std::string_view> added;  // Two regions may share a flag.
  for (const RegionEntry* e : AllRegions()) {
    for (const RegionOptionSpec& o : e->options) {
      if (!added.insert(o.flag).second) continue;
      cmd->add_option(std::string(o.flag), *config->settings.Slot(o.flag), std::string(o.help))
          ->capture_default_str();
    }
  }
}

}  // namespace wirebench
