// Canonical text dumps of decoded messages for the fuzz targets: every field
// of every message, so that (a) each byte a decoder's views point at is read
// (a view past the payload or into freed memory shows up under ASan), and
// (b) a decode -> encode -> decode round trip can be compared field by field.
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "codecs/message.h"

namespace wirebench::fuzz {

inline void DumpBytes(ByteView v, std::string* out) {
  *out += std::to_string(v.size());
  *out += ':';
  out->append(v.chars(), v.size());
  *out += ';';
}

inline void DumpCell(const Cell& c, std::string* out) {
  *out += "cell{";
  DumpBytes(c.row, out);
  DumpBytes(c.family, out);
  DumpBytes(c.qualifier, out);
  *out += std::to_string(c.timestamp) + ";" + std::to_string(int(c.type)) + ";";
  DumpBytes(c.value, out);
  *out += "}";
}

inline void DumpMutation(const Mutation& m, std::string* out) {
  *out += "mutation{";
  DumpBytes(m.row, out);
  *out += std::to_string(int(m.type)) + ";" + std::to_string(m.timestamp) + ";";
  for (const Cell& c : m.cells) DumpCell(c, out);
  *out += "}";
}

inline void DumpColumns(std::span<const Column> cols, std::string* out) {
  for (const Column& c : cols) {
    *out += "col{";
    DumpBytes(c.family, out);
    DumpBytes(c.qualifier, out);
    *out += "}";
  }
}

inline void DumpResult(const Result& r, std::string* out) {
  *out += r.exists ? "result+{" : "result-{";
  for (const Cell& c : r.cells) DumpCell(c, out);
  *out += "}";
}

inline void DumpGet(const GetRequest& g, std::string* out) {
  *out += "get{";
  DumpBytes(g.row, out);
  DumpColumns(g.columns, out);
  *out += "}";
}

inline std::string Dump(const MutateRequest& r) {
  std::string s;
  DumpMutation(r.mutation, &s);
  return s;
}
inline std::string Dump(const GetRequest& r) {
  std::string s;
  DumpGet(r, &s);
  return s;
}
inline std::string Dump(const ScanRequest& r) {
  std::string s = "scan{";
  DumpBytes(r.start_row, &s);
  DumpBytes(r.stop_row, &s);
  s += std::to_string(r.number_of_rows) + ";";
  DumpColumns(r.columns, &s);
  return s + "}";
}
inline std::string Dump(const MultiRequest& r) {
  std::string s = "multi{";
  for (const Action& a : r.actions) {
    s += "action{" + std::to_string(a.index) + ";" + std::to_string(int(a.kind)) + ";";
    if (a.kind == ActionKind::kMutation) {
      DumpMutation(a.mutation, &s);
    } else {
      DumpGet(a.get, &s);
    }
    s += "}";
  }
  return s + "}";
}
inline std::string Dump(const MutateResponse& r) {
  return r.processed ? "processed" : "not processed";
}
inline std::string Dump(const GetResponse& r) {
  std::string s;
  DumpResult(r.result, &s);
  return s;
}
inline std::string Dump(const ScanResponse& r) {
  std::string s = r.more_results ? "scan+{" : "scan-{";
  for (const Result& res : r.results) DumpResult(res, &s);
  return s + "}";
}
inline std::string Dump(const MultiResponse& r) {
  std::string s = "multi{";
  for (const ActionResult& a : r.results) {
    // A failed action carries only its error, a successful one only its
    // result (message.h); codecs need not carry the other across.
    s += "ar{" + std::to_string(a.index) + (a.ok ? ";ok;" : ";failed;");
    if (a.ok) {
      DumpResult(a.result, &s);
    } else {
      DumpBytes(a.error, &s);
    }
    s += "}";
  }
  return s + "}";
}

}  // namespace wirebench::fuzz
