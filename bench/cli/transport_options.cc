#include "bench/cli/transport_options.h"

#include <string>

namespace wirebench {

namespace {

std::span<const OptionSpec> SpecsOf(const Transport& t, TransportOptionKind kind) {
  return kind == TransportOptionKind::kServer ? t.ServerOptionSpecs() : t.ClientOptionSpecs();
}

}  // namespace

void AddTransportOptions(CLI::App* cmd, TransportOptionKind kind, OptionSettings* values,
                         TransportFlags* flags) {
  for (const Transport* t : Transports().all()) {
    for (const OptionSpec& spec : SpecsOf(*t, kind)) {
      bool seen = false;
      for (const auto& f : *flags) seen = seen || f.first == spec.flag;
      if (seen) continue;
      values->SetDefault(spec.flag, spec.default_value);
      CLI::Option* option =
          cmd->add_option(std::string(spec.flag), *values->Slot(spec.flag),
                          "--rpc " + std::string(t->name()) + ": " + std::string(spec.help));
      const bool number = !spec.default_value.empty() &&
                          spec.default_value.find_first_not_of("0123456789") == std::string::npos;
      option->type_name(number ? "UINT" : "VALUE");
      if (!spec.default_value.empty()) option->capture_default_str();
      flags->emplace_back(spec.flag, option);
    }
  }
}

Status CheckTransportFlags(TransportOptionKind kind, const TransportFlags& flags,
                           std::span<const Transport* const> chosen) {
  std::string chosen_names;
  for (const Transport* t : chosen)
    chosen_names += (chosen_names.empty() ? "--rpc " : ", ") + std::string(t->name());
  const char* what = kind == TransportOptionKind::kServer ? "server" : "client";
  for (const auto& [flag, option] : flags) {
    if (option->count() == 0) continue;
    bool listed = false;
    std::string owners;
    for (const Transport* t : Transports().all()) {
      for (const OptionSpec& spec : SpecsOf(*t, kind)) {
        if (spec.flag != flag) continue;
        for (const Transport* c : chosen) listed = listed || c == t;
        owners += (owners.empty() ? "--rpc " : " or --rpc ") + std::string(t->name());
      }
    }
    if (!listed)
      return Status::InvalidArgument(std::string(flag) + " is a " + what + " option of " +
                                     owners + ", and " + chosen_names + " has none: use " +
                                     owners + ", or leave " + std::string(flag) + " out");
  }
  return Status::Ok();
}

Status CheckTransportClientOptions(const TransportFlags& flags, const OptionSettings& values,
                                   std::span<const Transport* const> chosen) {
  WB_RETURN_IF_ERROR(CheckTransportFlags(TransportOptionKind::kClient, flags, chosen));
  for (const Transport* t : chosen) WB_RETURN_IF_ERROR(t->CheckClientOptions(values));
  return Status::Ok();
}

}  // namespace wirebench
