// One shape for the three registries (docs/design.md, "Registries"): codecs
// (`--codec`, codecs/codec.h), regions (`--region`, regions/registry.h) and
// transports (`--rpc`, transports/transport.h). Every entry is a
// RegistryEntry (its name, one phrase, the symbol prefixes of its code) plus
// what its kind adds; every registry is a Registry<Entry>, which finds a name
// once and hands out the entry's pointer. A command resolves each name where
// it parses it (bench/cli/entry_option.h) and passes the pointer on, so a
// name is looked up once per process and a wrong one is refused before
// anything starts, in the same words for every kind.
//
// Thread-safety: entries and registries are immutable once made (function
// statics); every method may be called from any thread.
#pragma once

#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace wirebench {

class RegistryEntry {
 public:
  RegistryEntry(std::string_view name, std::string_view summary,
                std::initializer_list<std::string_view> symbol_prefixes = {})
      : name_(name), summary_(summary), symbol_prefixes_(symbol_prefixes) {}

  // The name on the command line and in results ("cellblock", "memstore", "hbase").
  std::string_view name() const { return name_; }
  // One phrase for help texts and reports: what this entry is.
  std::string_view summary() const { return summary_; }
  // Qualified-name prefixes of the code this entry runs ("wirebench::fb::",
  // "flatbuffers::"): `--instructions` puts a function whose name starts
  // with one in the entry's layer (bench/loadgen/instructions.cc).
  std::span<const std::string_view> symbol_prefixes() const { return symbol_prefixes_; }

 private:
  std::string_view name_;
  std::string_view summary_;
  std::vector<std::string_view> symbol_prefixes_;
};

template <class Entry>
class Registry {
 public:
  // An entry this source tree has but a build may leave out, and how to build it in.
  struct Absent {
    std::string_view name;
    std::string_view how;
  };

  // `flag` names the kind in errors ("--codec"); `entries` in help-text order.
  Registry(std::string_view flag, std::vector<const Entry*> entries,
           std::vector<Absent> absent = {})
      : flag_(flag), entries_(std::move(entries)), absent_(std::move(absent)) {}

  std::span<const Entry* const> all() const { return entries_; }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }
  // The first entry: the default.
  const Entry& front() const { return *entries_.front(); }

  // nullptr when unknown.
  const Entry* Find(std::string_view name) const {
    for (const Entry* e : entries_)
      if (e->name() == name) return e;
    return nullptr;
  }

  // The entry, or an error that names the flag (`as`, when the name came
  // from another flag, as --codecs) and the valid names, or says this build
  // left the entry out and how to build it in.
  StatusOr<const Entry*> Resolve(std::string_view name, std::string_view as = {}) const {
    if (const Entry* e = Find(name)) return e;
    const std::string flag(as.empty() ? flag_ : as);
    for (const Absent& a : absent_)
      if (a.name == name)
        return Status::InvalidArgument(flag + " " + std::string(name) + ": " + std::string(a.how) +
                                       ", or use " + flag + " " + std::string(front().name()));
    return Status::InvalidArgument(flag + " must be one of " + Names() + ", got '" +
                                   std::string(name) + "'");
  }

  // The names, comma separated, for help texts and errors.
  std::string Names() const {
    std::string out;
    for (const Entry* e : entries_) out += (out.empty() ? "" : ", ") + std::string(e->name());
    return out;
  }

 private:
  std::string_view flag_;
  std::vector<const Entry*> entries_;
  std::vector<Absent> absent_;
};

}  // namespace wirebench
