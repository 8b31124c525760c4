// The region options of the `server`, `run`/`load` and `compare` commands,
// made from the region registry (regions/registry.h): --region and every
// region's own options, as each entry describes them.
#pragma once

#include <CLI/CLI.hpp>

#include "regions/registry.h"

namespace wirebench {

// Adds --region and every registered region's options, writing into
// `config` (which must outlive parsing). Values already in `config` are the
// defaults shown.
void AddRegionOptions(CLI::App* cmd, RegionConfig* config);

}  // namespace wirebench
