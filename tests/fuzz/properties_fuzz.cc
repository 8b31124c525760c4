// libFuzzer target for YCSB property text and -p overrides
// (ycsb/properties.h): the input is loaded as a property file, each
// of its lines is also applied as a -p override, and then every explicit
// key is read back through every typed getter and the unknown-key check
// (with its closest-key hint). Nothing may crash, hang or fail silently: a
// failed load or getter must say why.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ycsb/properties.h"

namespace {
[[noreturn]] void Fail(const char* what, const wirebench::Status& s) {
  std::fprintf(stderr, "properties: %s (%s)\n", what, s.ToString().c_str());
  std::abort();
}

template <typename T>
void CheckGetter(const wirebench::StatusOr<T>& v) {
  if (!v.ok() && v.status().message().empty()) Fail("getter failed without a reason", v.status());
}

void ReadBack(const wirebench::ycsb::Properties& props) {
  wirebench::Status s = props.CheckAllKnown();
  if (!s.ok() && s.message().empty()) Fail("unknown key without a message", s);
  for (const auto& [key, value] : props.Explicit()) {
    if (!props.Has(key)) Fail("explicit key not Has()", wirebench::Status::Ok());
    auto str = props.GetString(key);
    if (!str.ok() || *str != value) Fail("GetString disagrees with Explicit", str.status());
    CheckGetter(props.GetInt(key));
    CheckGetter(props.GetDouble(key));
    CheckGetter(props.GetBool(key));
    CheckGetter(props.GetDoubleList(key));
    if (props.SourceOf(key).empty()) Fail("explicit key without a source", wirebench::Status::Ok());
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using wirebench::ycsb::Properties;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  {
    Properties props;
    wirebench::Status s = props.LoadText(text, "fuzz.properties");
    if (!s.ok() && s.message().empty()) Fail("LoadText failed without a reason", s);
    ReadBack(props);
  }
  {
    Properties props;
    size_t pos = 0;
    while (pos <= text.size()) {
      size_t end = text.find('\n', pos);
      if (end == std::string_view::npos) end = text.size();
      wirebench::Status s = props.ApplyOverride(text.substr(pos, end - pos));
      if (!s.ok() && s.message().empty()) Fail("ApplyOverride failed without a reason", s);
      pos = end + 1;
    }
    ReadBack(props);
  }
  return 0;
}
