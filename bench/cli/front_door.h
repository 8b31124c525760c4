// What the `wirebench` command line checks before and around CLI11's parse:
// YCSB's single-dash flags are exactly YCSB's own (-P -p -s -t
// -load -db -threads -target -l) and any other single-dash word is refused
// naming it and the double-dash flag meant; an empty value is refused; an
// unknown command is named with the list of commands; and CLI11's own errors
// come out as one line and exit status 2 (never CLI11's 104-109).
// Thread-safety: pure functions of their arguments.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace wirebench {

// The exit statuses every subcommand uses, for --help's footer.
inline constexpr int kExitOk = 0;
inline constexpr int kExitRunFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitPartial = 3;
std::string ExitStatusHelp();

// "server, load, run, ..." (the app's subcommands, in order).
std::string SubcommandNames(const CLI::App& app);

// The one-line error for a command line CLI11 would mis-handle, or nullopt
// when it may go to CLI11. `args` is argv without the program name.
std::optional<std::string> CheckCommandLine(const CLI::App& app,
                                            const std::vector<std::string>& args);

// CLI11's error for `sub` (nullptr: the top level) as one line saying what
// was wrong and where to look.
std::string DescribeParseError(const CLI::App& app, const CLI::App* sub,
                               const CLI::ParseError& e);

// Adds to every --cpus, --client-cpus and --server-cpus option a check that
// the list parses and names only CPUs this process may run on, so a bad one
// is refused before anything starts (not inside a compare cell).
void CheckCpuListFlags(CLI::App& app);
// "0-1" / "0,2-3": the CPUs this process may run on.
std::string AvailableCpus();

}  // namespace wirebench
