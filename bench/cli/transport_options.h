// The transports' own options on the command line: each transport's entry
// lists its server options (Transport::ServerOptionSpecs, for the `server`
// command) and its client options (Transport::ClientOptionSpecs, for `run`,
// `load` and `compare`), so no transport's flag is written here.
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

// Which of an entry's lists: its server options or its client options.
enum class TransportOptionKind { kServer, kClient };

// Adds every transport's options of `kind` to `cmd` (a flag two transports
// share once), their values written into `values`, their defaults set.
void AddTransportOptions(CLI::App* cmd, TransportOptionKind kind, OptionSettings* values,
                         TransportFlags* flags);

// A transport's option given while none of `chosen` lists it is refused,
// naming the transports it belongs to.
Status CheckTransportFlags(TransportOptionKind kind, const TransportFlags& flags,
                           std::span<const Transport* const> chosen);

// CheckTransportFlags for client options, then each chosen transport checks
// the values of its own.
Status CheckTransportClientOptions(const TransportFlags& flags, const OptionSettings& values,
                                   std::span<const Transport* const> chosen);

}  // namespace wirebench
