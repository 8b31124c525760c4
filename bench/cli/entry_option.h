// `--codec NAME`, `--rpc NAME`, `--region NAME` (and the comma lists
// `--codecs`, `--rpcs`): a registry name resolved once, where the command line
// is parsed, to its entry's pointer (common/registry.h). A wrong name is a
// usage error (exit 2) in the registry's words, before anything starts; the
// pointer is what the command passes on.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "common/registry.h"

namespace wirebench {

template <class Entry>
CLI::Option* AddEntryOption(CLI::App* cmd, const std::string& flag, const Entry** out,
                            const Registry<Entry>& registry, const std::string& help) {
  return cmd
      ->add_option_function<std::string>(
          flag,
          [out, &registry](const std::string& name) {
            auto e = registry.Resolve(name);
            if (!e.ok()) throw CLI::ValidationError(std::string(e.status().message()));
            *out = *e;
          },
          help)
      ->type_name("NAME")
      ->default_str(*out == nullptr ? "" : std::string((*out)->name()));
}

template <class Entry>
CLI::Option* AddEntryListOption(CLI::App* cmd, const std::string& flag,
                                std::vector<const Entry*>* out, const Registry<Entry>& registry,
                                const std::string& help) {
  return cmd
      ->add_option_function<std::vector<std::string>>(
          flag,
          [out, &registry, flag](const std::vector<std::string>& names) {
            out->clear();
            for (const std::string& name : names) {
              auto e = registry.Resolve(name, flag);
              if (!e.ok()) throw CLI::ValidationError(std::string(e.status().message()));
              out->push_back(*e);
            }
          },
          help)
      ->delimiter(',')
      ->type_name("NAME,...");
}

}  // namespace wirebench
