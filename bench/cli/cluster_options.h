// The null cluster's flags on a command line (bench/loadgen/cluster_flags.h
// holds their values and the plan they describe).
// Thread-safety: used while parsing a command line.
#pragma once

#include <CLI/CLI.hpp>

#include "bench/loadgen/cluster_flags.h"

namespace wirebench {

// --cluster, --cluster-regions, --cluster-split; with `server` also
// --cluster-index and --cluster-start-code.
void AddClusterOptions(CLI::App* cmd, ClusterFlags* flags, bool server);

}  // namespace wirebench
