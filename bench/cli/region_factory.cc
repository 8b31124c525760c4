#include "bench/cli/region_factory.h"

#include <cstdio>
#include <set>
#include <string>

#include "bench/cli/entry_option.h"

namespace wirebench {

namespace {

// What `flag` of region `e` takes, for --help: the entry's own check is
// asked about a value that is not a number, and a "must be a whole number
// from A to B" answer makes it "UINT:INT in [A - B]", as CLI11 shows a
// range (the options are strings underneath, which CLI11 would show as
// TEXT). Otherwise "UINT" for a numeric default, else "VALUE".
std::string TypeName(const RegionEntry& e, const RegionOptionSpec& spec) {
  const bool digits = !spec.default_value.empty() &&
                      spec.default_value.find_first_not_of("0123456789") == std::string_view::npos;
  const std::string fallback = digits ? "UINT" : "VALUE";
  if (e.check == nullptr) return fallback;
  RegionConfig probe;
  probe.entry = &e;
  SetRegionDefaults(&probe);
  probe.settings.Set(spec.flag, "not-a-number");
  const Status st = e.check(probe.settings);
  const std::string message(st.message());
  const std::string whole = std::string(spec.flag) + " must be a whole number from ";
  const size_t at = message.find(whole);
  if (st.ok() || at == std::string::npos) return fallback;
  unsigned long long lo = 0, hi = 0;
  if (std::sscanf(message.c_str() + at + whole.size(), "%llu to %llu", &lo, &hi) != 2)
    return "UINT";
  if (lo == 0 && hi == 4294967295ull) return "UINT";
  return "UINT:INT in [" + std::to_string(lo) + " - " + std::to_string(hi) + "]";
}

}  // namespace

void AddRegionOptions(CLI::App* cmd, RegionConfig* config) {
  std::string help = "Region behind the server:";
  for (const RegionEntry* e : Regions().all())
    help += std::string(e == &Regions().front() ? " " : "; ") + std::string(e->name()) + " (" +
            std::string(e->summary()) + ")";
  AddEntryOption(cmd, "--region", &config->entry, Regions(), help);
  SetRegionDefaults(config);
  std::set<std::string_view> added;  // Two regions may share a flag.
  for (const RegionEntry* e : Regions().all()) {
    for (const RegionOptionSpec& o : e->options) {
      if (!added.insert(o.flag).second) continue;
      cmd->add_option(std::string(o.flag), *config->settings.Slot(o.flag), std::string(o.help))
          ->capture_default_str()
          ->type_name(TypeName(*e, o));
    }
  }
}

}  // namespace wirebench
