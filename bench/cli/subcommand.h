// A subcommand whose options are one Options value, made here and kept for
// as long as the app (CLI11 runs the callback after parsing, once this
// function has returned), and whose callback sets the process's exit code
// to what `run` answers for those options.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <utility>

namespace wirebench {

// Returns the subcommand, for its flags, and the options they fill.
template <class Options, class Run>
std::pair<CLI::App*, Options*> AddSubcommand(CLI::App& app, const std::string& name,
                                             const std::string& description, int* exit_code,
                                             Run run) {
  auto options = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(name, description);
  cmd->callback([options, exit_code, run] { *exit_code = run(*options); });
  return {cmd, options.get()};
}

}  // namespace wirebench
