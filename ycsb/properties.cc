#include "ycsb/properties.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ycsb/standard_workloads.h"

namespace wirebench::ycsb {

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\f'; }

// `s` without leading and trailing IsSpace, which Java's Double.parseDouble
// ignores.
std::string TrimSpace(std::string_view s) {
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  return std::string(s);
}

// Number of consecutive backslashes ending at s[end - 1].
size_t TrailingBackslashes(std::string_view s, size_t end) {
  size_t n = 0;
  while (n < end && s[end - 1 - n] == '\\') ++n;
  return n;
}

void AppendUtf8(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    out->push_back(char(cp));
  } else if (cp < 0x800) {
    out->push_back(char(0xC0 | (cp >> 6)));
    out->push_back(char(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(char(0xE0 | (cp >> 12)));
    out->push_back(char(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(char(0x80 | (cp & 0x3F)));
  }
}

// Java's escape processing: \t \n \r \f, \uXXXX, and \x for any other x.
Status Unescape(std::string_view in, std::string* out, const std::string& where) {
  out->clear();
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c != '\\' || i + 1 == in.size()) {
      out->push_back(c);
      continue;
    }
    c = in[++i];
    constexpr std::string_view kLetters = "tnrf", kControls = "\t\n\r\f";
    if (const size_t at = kLetters.find(c); at != std::string_view::npos) {
      out->push_back(kControls[at]);
      continue;
    }
    if (c != 'u') {
      out->push_back(c);
      continue;
    }
    if (i + 4 >= in.size()) {
      return Status::InvalidArgument(where + ": malformed \\uXXXX escape");
    }
    uint32_t cp = 0;
    for (int k = 1; k <= 4; ++k) {
      const char h = in[i + k];
      cp <<= 4;
      if (h >= '0' && h <= '9')
        cp |= uint32_t(h - '0');
      else if (h >= 'a' && h <= 'f')
        cp |= uint32_t(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F')
        cp |= uint32_t(h - 'A' + 10);
      else
        return Status::InvalidArgument(where + ": malformed \\uXXXX escape");
    }
    AppendUtf8(out, cp);
    i += 4;
  }
  return Status::Ok();
}

std::string Lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = char(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

Properties::Properties() {
  for (const PropertySpec& spec : YcsbPropertySpecs()) known_[spec.name] = spec;
}

void Properties::RegisterKey(PropertySpec spec) {
  std::string name = spec.name;
  known_[name] = std::move(spec);
}

bool Properties::IsKnown(std::string_view key) const {
  // HBase and ZooKeeper client settings (hbase-site.xml keys given with -p),
  // HTrace's and BasicDB's: read by YCSB's libraries, never by wirebench.
  for (std::string_view prefix : {"hbase.", "zookeeper.", "htrace.", "basicdb."})
    if (key.substr(0, prefix.size()) == prefix) return true;
  return known_.find(key) != known_.end();
}

Status Properties::Load(std::span<const std::string> files,
                        std::span<const std::string> overrides) {
  for (const std::string& f : files) WB_RETURN_IF_ERROR(LoadFile(f));
  for (const std::string& o : overrides) WB_RETURN_IF_ERROR(ApplyOverride(o));
  return Status::Ok();
}

Status Properties::LoadFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return Status::InvalidArgument("-P " + path +
                                   " is a directory; give a property file (e.g. "
                                   "workloads/workloada)");
  // As given, else (workloads/workloadX) the installed or built-in copy.
  auto found = FindWorkload(path);
  if (!found.ok()) {
    const std::string why =
        "property file " + std::string(found.status().message()) + " (given with -P)";
    return found.status().code() == Status::Code::kNotFound ? Status::NotFound(why)
                                                            : Status::InvalidArgument(why);
  }
  NoteOnce(found->note);
  auto text = ReadWorkload(*found);
  if (!text.ok())
    return text.status().code() == Status::Code::kInvalidArgument
               ? Status::InvalidArgument("property file " + std::string(text.status().message()) +
                                         " (given with -P)")
               : Status::IoError("property file: " + std::string(text.status().message()));
  return LoadText(*text, found->source);
}

Status Properties::LoadText(std::string_view text, std::string_view source) {
  size_t pos = 0;
  int line_no = 0;
  std::string logical;
  std::string key, value;
  while (pos < text.size()) {
    // Gather one logical line (natural lines joined by trailing backslashes).
    logical.clear();
    const int first_line = line_no + 1;
    bool first = true;
    for (;;) {
      size_t end = text.find('\n', pos);
      if (end == std::string_view::npos) end = text.size();
      std::string_view line = text.substr(pos, end - pos);
      pos = end + 1;
      ++line_no;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      size_t start = 0;
      while (start < line.size() && IsSpace(line[start])) ++start;
      line.remove_prefix(start);
      if (first && (line.empty() || line[0] == '#' || line[0] == '!')) break;  // Blank or comment.
      first = false;
      if (TrailingBackslashes(line, line.size()) % 2 == 1 && pos <= text.size()) {
        logical.append(line.substr(0, line.size() - 1));
        if (pos >= text.size()) break;
        continue;
      }
      logical.append(line);
      break;
    }
    if (first) continue;
    // java.util.Properties keeps trailing whitespace in the value.
    std::string_view l(logical);
    // The key runs to the first unescaped '=', ':' or whitespace.
    size_t k = 0;
    while (k < l.size()) {
      const char c = l[k];
      if (c == '\\') {
        k += 2;
        continue;
      }
      if (c == '=' || c == ':' || IsSpace(c)) break;
      ++k;
    }
    if (k > l.size()) k = l.size();
    size_t v = k;
    while (v < l.size() && IsSpace(l[v])) ++v;
    if (v < l.size() && (l[v] == '=' || l[v] == ':')) ++v;
    while (v < l.size() && IsSpace(l[v])) ++v;
    const std::string where = std::string(source) + ":" + std::to_string(first_line);
    WB_RETURN_IF_ERROR(Unescape(l.substr(0, k), &key, where));
    WB_RETURN_IF_ERROR(Unescape(l.substr(v), &value, where));
    Set(key, value, where);
  }
  return Status::Ok();
}

Status Properties::ApplyOverride(std::string_view kv) {
  const size_t eq = kv.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    return Status::InvalidArgument("-p expects key=value, got '" + std::string(kv) + "'");
  }
  Set(kv.substr(0, eq), kv.substr(eq + 1), "-p");
  return Status::Ok();
}

void Properties::Set(std::string_view key, std::string_view value, std::string_view source) {
  auto it = values_.find(key);
  if (it == values_.end()) it = values_.emplace(std::string(key), Entry{}).first;
  it->second.value.assign(value);
  it->second.source.assign(source);
}

std::string ClosestKnownKey(const Properties& props, std::string_view key) {
  const std::string lk = Lower(key);
  std::string best;
  size_t best_d = std::string::npos;
  for (const auto& [name, spec] : props.known()) {
    const size_t d = EditDistance(lk, Lower(name));
    if (d < best_d) {
      best_d = d;
      best = name;
    }
  }
  const size_t limit = std::max<size_t>(2, key.size() / 3);
  return best_d <= limit ? best : std::string();
}

Status Properties::CheckAllKnown() const {
  for (const auto& [key, entry] : values_) {
    if (IsKnown(key)) continue;
    std::string msg = "unknown property '" + key + "' (set at " + entry.source + ")";
    const std::string hint = ClosestKnownKey(*this, key);
    if (!hint.empty()) msg += "; did you mean '" + hint + "'?";
    return Status::InvalidArgument(msg);
  }
  return Status::Ok();
}

std::vector<std::string> Properties::UnknownKeyNotes() const {
  std::vector<std::string> out;
  for (const auto& [key, entry] : values_) {
    if (IsKnown(key)) continue;
    std::string msg = "property '" + key + "' (set at " + entry.source +
                      ") is read by neither YCSB's CoreWorkload and Client nor the HBase "
                      "binding; passed through unused, as YCSB passes it to the binding";
    const std::string hint = ClosestKnownKey(*this, key);
    if (!hint.empty()) msg += " (did you mean '" + hint + "'?)";
    out.push_back(std::move(msg));
  }
  return out;
}

void Properties::Note(std::string note) const {
  if (std::find(notes_.begin(), notes_.end(), note) == notes_.end())
    notes_.push_back(std::move(note));
}

bool Properties::Has(std::string_view key) const { return values_.find(key) != values_.end(); }

std::string Properties::SourceOf(std::string_view key) const {
  auto it = values_.find(key);
  return it == values_.end() ? std::string("default") : it->second.source;
}

StatusOr<std::string> Properties::GetString(std::string_view key) const {
  if (auto it = values_.find(key); it != values_.end()) return it->second.value;
  if (auto it = known_.find(key); it != known_.end() && it->second.default_value) {
    return *it->second.default_value;
  }
  return Status::NotFound("property '" + std::string(key) + "' is not set and has no default");
}

Status Properties::BadValue(std::string_view key, const std::string& value,
                            const char* what) const {
  return Status::InvalidArgument("property '" + std::string(key) + "' must be " + what + ", got '" +
                                 value + "' (set at " + SourceOf(key) + ")");
}

StatusOr<int64_t> Properties::GetInt(std::string_view key) const {
  StatusOr<std::string> s = GetString(key);
  if (!s.ok()) return s.status();
  const std::string& v = *s;
  if (!v.empty() && IsSpace(v.back()))  // Java's Properties keep it; Integer.parseInt refuses it.
    return Status::InvalidArgument("property '" + std::string(key) + "' = '" + v + "' (set at " +
                                   SourceOf(key) +
                                   ") ends in whitespace, which YCSB's Integer.parseInt refuses "
                                   "(NumberFormatException): remove the trailing space");
  if (v.empty()) return BadValue(key, *s, "an integer");
  errno = 0;
  char* end = nullptr;
  const long long r = std::strtoll(v.c_str(), &end, 10);
  if (end != v.c_str() + v.size() || std::isspace(static_cast<unsigned char>(v[0]))) {
    return BadValue(key, v, "an integer");
  }
  if (errno == ERANGE) return BadValue(key, v, "a 64-bit integer");
  return int64_t(r);
}

StatusOr<double> Properties::GetDouble(std::string_view key) const {
  StatusOr<std::string> s = GetString(key);
  if (!s.ok()) return s.status();
  const std::string v = TrimSpace(*s);
  char* end = nullptr;
  const double r = v.empty() ? 0 : std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size() || std::isspace(static_cast<unsigned char>(v[0])) ||
      !std::isfinite(r)) {
    return BadValue(key, v, "a number");
  }
  return r;
}

StatusOr<bool> Properties::GetBool(std::string_view key) const {
  StatusOr<std::string> s = GetString(key);
  if (!s.ok()) return s.status();
  const std::string l = Lower(*s);
  if (l == "true") return true;
  if (l == "false") return false;
  return BadValue(key, *s, "true or false");
}

bool Properties::GetYcsbBool(std::string_view key) const {
  StatusOr<std::string> s = GetString(key);
  if (!s.ok()) return false;
  const std::string l = Lower(*s);
  if (l != "true" && l != "false")
    Note("property '" + std::string(key) + "' = '" + *s + "' (set at " + SourceOf(key) +
         "): YCSB's Boolean.parseBoolean reads anything but 'true' as false; so does wirebench");
  return l == "true";
}

StatusOr<std::vector<double>> Properties::GetDoubleList(std::string_view key) const {
  StatusOr<std::string> s = GetString(key);
  if (!s.ok()) return s.status();
  std::vector<double> out;
  std::string_view rest = *s;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string item = TrimSpace(rest.substr(0, comma));
    char* end = nullptr;
    const double d = item.empty() ? 0 : std::strtod(item.c_str(), &end);
    if (item.empty() || end != item.c_str() + item.size() || !std::isfinite(d)) {
      return BadValue(key, *s, "a comma-separated list of numbers");
    }
    out.push_back(d);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> Properties::Explicit() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [k, e] : values_) out.emplace_back(k, e.value);
  return out;
}

}  // namespace wirebench::ycsb
