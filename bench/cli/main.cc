// The `wirebench` command: server, load/run (the YCSB driver), compare,
// merge and walpe subcommands. This is the only place with process-wide
// state (exit code, signal handling).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>

#include "bench/cli/calibrate_command.h"
#include "bench/cli/compare_command.h"
#include "bench/cli/diff_command.h"
#include "bench/cli/floor_command.h"
#include "bench/cli/front_door.h"
#include "bench/cli/measure_command.h"
#include "bench/cli/merge_command.h"
#include "bench/cli/server_command.h"
#include "bench/cli/ycsb_command.h"
#include "common/build_info.h"
#include "regions/wal/walpe/walpe.h"

#ifndef WIREBENCH_VERSION
#define WIREBENCH_VERSION "unknown"
#endif

int main(int argc, char** argv) {
  CLI::App app{
      "wirebench: what the client, codec and RPC layers cost, measured against an empty "
      "region server (HBASE-10001)"};
  app.name("wirebench");
  app.require_subcommand(1);
  int exit_code = 0;
  wirebench::AddServerCommand(app, &exit_code);
  wirebench::AddYcsbCommands(app, &exit_code);
  wirebench::AddCompareCommand(app, &exit_code);
  wirebench::AddMergeCommand(app, &exit_code);
  wirebench::AddDiffCommand(app, &exit_code);
  wirebench::AddVersionCommand(app, &exit_code);
  wirebench::AddCalibrateCommand(app, &exit_code);
  wirebench::AddFloorCommand(app, &exit_code);
  wirebench::AddMeasureCommand(app, &exit_code);
  const std::string version = std::string("wirebench ") + WIREBENCH_VERSION + " (git " +
                              wirebench::GitRevision() + ", " + wirebench::BuildType() + ")";
  app.set_version_flag("-V,--version", version,
                       "Print the version and exit (wirebench version: the build as JSON)");
  // `walpe` has its own parser (HBase WALPerformanceEvaluation's options).
  if (argc >= 2 && std::string(argv[1]) == "walpe") return wirebench::RunWalpe(argc - 1, argv + 1);
  app.add_subcommand("walpe",
                     "WAL performance evaluation (HBase's WALPerformanceEvaluation): "
                     "wirebench walpe --help");
  app.footer(wirebench::ExitStatusHelp());
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    sub->footer(wirebench::ExitStatusHelp());
  wirebench::CheckCpuListFlags(app);
  if (argc == 2 && (std::string(argv[1]) == "--version" || std::string(argv[1]) == "-V")) {
    std::printf("%s\n", version.c_str());
    return 0;
  }
  std::vector<std::string> given(argv + 1, argv + argc);
  // `wirebench help [COMMAND]` is `wirebench [COMMAND] --help`.
  if (!given.empty() && given[0] == "help") {
    given.erase(given.begin());
    given.resize(std::min<size_t>(given.size(), 1));
    given.push_back("--help");
  }
  if (auto why = wirebench::CheckCommandLine(app, given)) {
    std::fprintf(stderr, "%s\n", why->c_str());
    return wirebench::kExitUsage;
  }
  // YCSB's single-dash long options (-threads, -target) become --threads etc.
  std::vector<char*> translated = {argv[0]};
  for (std::string& g : given) translated.push_back(g.data());
  std::vector<std::string> args =
      wirebench::TranslateYcsbArgs(int(translated.size()), translated.data());
  std::vector<std::string> reversed(args.rbegin(), args.rend() - 1);
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const CLI::App* sub = nullptr;
    if (!given.empty())
      for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; }))
        if (s->get_name() == given[0]) sub = s;
    std::fprintf(stderr, "%s\n", wirebench::DescribeParseError(app, sub, e).c_str());
    return wirebench::kExitUsage;
  }
  return exit_code;
}
