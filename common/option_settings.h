// Options as data: a registry entry (a region's, a transport's) lists its
// command-line options with their help and defaults, and takes their values
// as strings keyed by flag, so the `server` command, the co-located child's
// command line and `run`/`compare` all get them from one place.
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "common/status.h"

namespace wirebench {

struct OptionSpec {
  std::string_view flag;           // "--wal-dir"
  std::string_view help;           // One sentence for --help.
  std::string_view default_value;  // "" = none; an empty value is never forwarded.
};

// Option values keyed by flag, as the command line set them.
class OptionSettings {
 public:
  // Sets `flag` unless it already has a value (so a command's own default,
  // set first, survives the registry's).
  void SetDefault(std::string_view flag, std::string_view value);
  void Set(std::string_view flag, std::string value);
  // The value, or "" when the flag has none.
  const std::string& Get(std::string_view flag) const;
  // A whole number in [min, max]; the error names the flag and the range.
  StatusOr<uint32_t> GetUint32(std::string_view flag, uint32_t min, uint32_t max) const;
  // Where the command line writes `flag`'s value; stable while this object lives.
  std::string* Slot(std::string_view flag);

 private:
  std::map<std::string, std::string, std::less<>> values_;
};

}  // namespace wirebench
