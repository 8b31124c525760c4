#include "common/option_settings.h"

#include <charconv>

namespace wirebench {

void OptionSettings::SetDefault(std::string_view flag, std::string_view value) {
  values_.try_emplace(std::string(flag), std::string(value));
}

void OptionSettings::Set(std::string_view flag, std::string value) {
  values_.insert_or_assign(std::string(flag), std::move(value));
}

const std::string& OptionSettings::Get(std::string_view flag) const {
  static const std::string kNone;
  auto it = values_.find(flag);
  return it == values_.end() ? kNone : it->second;
}

StatusOr<uint32_t> OptionSettings::GetUint32(std::string_view flag, uint32_t min,
                                             uint32_t max) const {
  const std::string& v = Get(flag);
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size() || n < min || n > max)
    return Status::InvalidArgument(std::string(flag) + " must be a whole number from " +
                                   std::to_string(min) + " to " + std::to_string(max) +
                                   ", got '" + v + "'");
  return uint32_t(n);
}

std::string* OptionSettings::Slot(std::string_view flag) {
  return &values_.try_emplace(std::string(flag)).first->second;
}

}  // namespace wirebench
