// `wirebench compare --builds before=PATH,after=PATH`: builds as columns.
// Every cell of the matrix (workload x threads x codec@rpc x repeat) runs
// once per build, by that build's own binary as a child process
// (`PATH compare` over that one cell, with the command line's other flags),
// so each build measures with its own client and its own co-located server,
// and --instructions runs each build under callgrind with its own layer
// attribution. Repeats interleave the builds as compare interleaves codecs
// (ColumnRunAt: ABBA). Each build's cells land in OUT/<label>/ as a compare
// folder of its own (cells/, comparison.*), which `wirebench diff` reads; the
// before/after table (bench/results/build_compare.h) is OUT/comparison.md,
// with OUT/builds.json.
// Thread-safety: RunBuildsCompare is called from one thread; it watches
// SIGINT/SIGTERM while it runs and passes a stop on to the running child.
#pragma once

#include <string>
#include <vector>

#include "bench/loadgen/compare_runner.h"
#include "common/status.h"

namespace wirebench {

struct BuildSpec {
  std::string label;
  std::string path;
};

// "before=PATH,after=PATH" -> specs. Labels are letters, digits, '.', '_'
// and '-', distinct; two or more builds.
StatusOr<std::vector<BuildSpec>> ParseBuilds(const std::string& spec);

// The arguments of a `compare` command line after the subcommand, less the
// ones each cell sets itself (--builds, --codecs, --rpcs, --workloads,
// --threads, --repeat, --baseline, --out), in either "--flag value" or
// "--flag=value" form: what every cell's child is also given.
std::vector<std::string> ForwardedCompareArgs(const std::vector<std::string>& args);

struct BuildsCompareOptions {
  std::vector<BuildSpec> builds;
  CompareOptions compare;  // The matrix (codecs, rpcs, workloads, threads, repeat, out).
  std::vector<std::string> forwarded;  // ForwardedCompareArgs of the command line.
};

struct BuildsOutcome {
  std::string out;
  std::string markdown;  // OUT/comparison.md.
  std::vector<std::string> written;
  std::vector<std::string> warnings;  // EnvironmentWarnings.
  std::vector<std::string> failures;  // Cells that failed, outputs not written.
  int cells = 0;                      // Cells measured, over all builds.
  bool interrupted = false;
};

// Checks each PATH is an executable wirebench whose results this wirebench
// can compare (refusing with the reason otherwise), then runs the matrix and
// writes the outputs. Errors are for bad options and refused builds; a cell
// that fails is listed in `failures`.
StatusOr<BuildsOutcome> RunBuildsCompare(BuildsCompareOptions o);

}  // namespace wirebench
