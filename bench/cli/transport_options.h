// The transports' own client options on `run`, `load` and `compare`: each
// transport's entry lists them (Transport::ClientOptionSpecs), as it lists
// its server options for the `server` command, so no transport's flag is
// written here.
#pragma once

#include <CLI/CLI.hpp>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "common/option_settings.h"
#include "common/status.h"
#include "transports/transport.h"

namespace wirebench {

// Which transport flags a command line set.
using TransportFlags = std::vector<std::pair<std::string_view, CLI::Option*>>;

// Adds every transport's client options to `cmd` (a flag two transports
// share once), their values written into `values`, their defaults set.
void AddTransportClientOptions(CLI::App* cmd, OptionSettings* values, TransportFlags* flags);

// A transport's client option given while none of `chosen` lists it is
// refused, naming the transports it belongs to; then each chosen transport
// checks the values of its own.
Status CheckTransportClientOptions(const TransportFlags& flags, const OptionSettings& values,
                                   std::span<const Transport* const> chosen);

}  // namespace wirebench
