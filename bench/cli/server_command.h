// `wirebench server`: serves every codec wirebench knows, on every
// connection, in front of the chosen region, until SIGINT or SIGTERM.
#pragma once

#include <CLI/CLI.hpp>

namespace wirebench {

// Adds the `server` subcommand to `app`; its callback runs the server.
void AddServerCommand(CLI::App& app, int* exit_code);

}  // namespace wirebench
