// Parses the --server argument: HOST:PORT, with an IPv6 address in
// brackets ([::1]:PORT).
// Thread-safety: a pure function.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace wirebench {

// `flag` names the option in error messages (e.g. "--server").
Status ParseHostPort(const std::string& s, std::string* host, uint16_t* port,
                     const std::string& flag = "--server");

}  // namespace wirebench
