// StrCat: one string from pieces, sized once and appended in order.
//
// Prefer it to `"literal" + std::string(...)`: besides saving the
// intermediate strings, that form (operator+(const char*, std::string&&),
// which inserts at position 0) trips GCC 12's false-positive -Wrestrict
// warning at -O2/-O3, which stops -DWIREBENCH_WERROR=ON builds.
// Thread-safety: a pure function.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace wirebench {

// Every part must convert to std::string_view (string literals,
// std::string, std::string_view; numbers through std::to_string).
template <typename... Parts>
std::string StrCat(const Parts&... parts) {
  std::string out;
  out.reserve((std::string_view(parts).size() + ... + 0));
  (out.append(std::string_view(parts)), ...);
  return out;
}

// The items as an English list: "a", "a and b", "a, b and c".
inline std::string ListedWithAnd(const std::vector<std::string_view>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out.append(i + 1 == items.size() ? " and " : ", ");
    out.append(items[i]);
  }
  return out;
}

}  // namespace wirebench
