// The `wirebench` command: server, load/run (the YCSB driver), compare,
// merge and walpe subcommands. This is the only place with process-wide
// state (exit code, signal handling).
#include <CLI/CLI.hpp>
#include <cstdio>

#include "bench/cli/calibrate_command.h"
#include "bench/cli/compare_command.h"
#include "bench/cli/diff_command.h"
#include "bench/cli/measure_command.h"
#include "bench/cli/merge_command.h"
#include "bench/cli/server_command.h"
#include "bench/cli/ycsb_command.h"
#include "regions/wal/walpe/walpe.h"

int main(int argc, char** argv) {
  CLI::App app{
      "wirebench: what the client, codec and RPC layers cost, measured against an empty "
      "region server (HBASE-10001)"};
  app.require_subcommand(1);
  int exit_code = 0;
  wirebench::AddServerCommand(app, &exit_code);
  wirebench::AddYcsbCommands(app, &exit_code);
  wirebench::AddCompareCommand(app, &exit_code);
  wirebench::AddMergeCommand(app, &exit_code);
  wirebench::AddDiffCommand(app, &exit_code);
  wirebench::AddVersionCommand(app, &exit_code);
  wirebench::AddCalibrateCommand(app, &exit_code);
  wirebench::AddMeasureCommand(app, &exit_code);
  // `walpe` has its own parser (HBase WALPerformanceEvaluation's options).
  if (argc >= 2 && std::string(argv[1]) == "walpe") return wirebench::RunWalpe(argc - 1, argv + 1);
  app.add_subcommand("walpe",
                     "WAL performance evaluation (HBase's WALPerformanceEvaluation): "
                     "wirebench walpe --help");
  // YCSB's single-dash long options (-threads, -target) become --threads etc.
  std::vector<std::string> args = wirebench::TranslateYcsbArgs(argc, argv);
  std::vector<std::string> reversed(args.rbegin(), args.rend() - 1);
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return exit_code;
}
