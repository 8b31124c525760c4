// Properties: YCSB's configuration, loaded the way YCSB's Client loads it.
//
// Property files (-P, repeatable) are read in order in Java .properties
// syntax (key=value, key = value, key:value, key value; # and ! comments;
// backslash line continuations and escapes), then -p key=value overrides are
// applied, later settings replacing earlier ones. Every key must be known:
// the YCSB CoreWorkload, Client and HBase-binding keys are registered from the
// start, and the driver registers its own with RegisterKey(). An unknown key
// is an error that names it, where it was set, and the closest known key.
// Typed getters fail with a message naming the property and the bad value.
// Thread-safety: a value; const methods may be called from several threads.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace wirebench::ycsb {

// One known property: its name, its default (none when it must be set or is
// derived from others), and a one-line description for --help output.
struct PropertySpec {
  std::string name;
  std::optional<std::string> default_value;
  std::string description;
};

// The keys YCSB itself defines (CoreWorkload, Client, measurements, exporters,
// HBase binding) plus wirebench's `seed`, with YCSB's defaults.
const std::vector<PropertySpec>& YcsbPropertySpecs();

class Properties {
 public:
  // Knows YcsbPropertySpecs().
  Properties();

  // Adds a known key (replacing the spec of one already known).
  void RegisterKey(PropertySpec spec);
  bool IsKnown(std::string_view key) const;
  const std::map<std::string, PropertySpec, std::less<>>& known() const { return known_; }

  // Reads YCSB property files in order, then applies "key=value" overrides.
  // Unknown keys are kept (see UnknownKeyNotes). The usual entry point for -P and -p.
  [[nodiscard]] Status Load(std::span<const std::string> files,
                            std::span<const std::string> overrides);
  // Reads one property file; settings replace earlier ones.
  [[nodiscard]] Status LoadFile(const std::string& path);
  // Parses .properties text; `source` names it in messages (a file name).
  [[nodiscard]] Status LoadText(std::string_view text, std::string_view source);
  // Applies one -p override of the form key=value.
  [[nodiscard]] Status ApplyOverride(std::string_view key_equals_value);
  // Sets a value directly (`source` says where it came from, for messages).
  void Set(std::string_view key, std::string_view value, std::string_view source = "code");

  // An error naming the first key set that is not known, with a hint.
  [[nodiscard]] Status CheckAllKnown() const;
  // One line per set key that is not known: what it is, where it was set,
  // that it is passed through unused as YCSB does, and the closest known key.
  std::vector<std::string> UnknownKeyNotes() const;

  // True when the key was set explicitly (not just defaulted).
  bool Has(std::string_view key) const;
  // The explicit value, else the registered default; NotFound when neither.
  [[nodiscard]] StatusOr<std::string> GetString(std::string_view key) const;
  [[nodiscard]] StatusOr<int64_t> GetInt(std::string_view key) const;
  [[nodiscard]] StatusOr<double> GetDouble(std::string_view key) const;
  // true/false, case-insensitive; anything else is an error.
  [[nodiscard]] StatusOr<bool> GetBool(std::string_view key) const;
  // As YCSB reads a boolean property (Boolean.parseBoolean): true for "true"
  // in any case, false for anything else, with a note when the value is
  // neither true nor false ("yes", "true ").
  bool GetYcsbBool(std::string_view key) const;
  // Notes recorded by the getters, each once, in the order recorded.
  const std::vector<std::string>& notes() const { return notes_; }
  // Records a note (once).
  void Note(std::string note) const;
  // A comma-separated list of numbers ("50,95,99").
  [[nodiscard]] StatusOr<std::vector<double>> GetDoubleList(std::string_view key) const;
  // Where a key was set ("workloads/workloada:27", "-p", ...), or "default".
  std::string SourceOf(std::string_view key) const;

  // Every explicitly set key and value, in key order (for result files).
  std::vector<std::pair<std::string, std::string>> Explicit() const;

 private:
  struct Entry {
    std::string value;
    std::string source;
  };
  Status BadValue(std::string_view key, const std::string& value, const char* what) const;

  std::map<std::string, PropertySpec, std::less<>> known_;
  std::map<std::string, Entry, std::less<>> values_;
  mutable std::vector<std::string> notes_;
};

// The known key closest to `key` by edit distance, or "" when none is close.
std::string ClosestKnownKey(const Properties& props, std::string_view key);

}  // namespace wirebench::ycsb
