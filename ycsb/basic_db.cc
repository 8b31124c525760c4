#include "ycsb/basic_db.h"

#include <algorithm>
#include <numeric>

namespace wirebench::ycsb {

namespace {

// The fields a request names, or none for whole families ("<all fields>").
std::string FieldList(std::span<const Column> columns) {
  std::vector<std::string_view> names;
  for (const Column& c : columns) {
    if (c.qualifier.empty()) return "<all fields>";
    names.push_back(c.qualifier.str());
  }
  if (names.empty()) return "<all fields>";
  std::string out;
  for (size_t i : JavaHashMapOrder(names)) {
    out += names[i];
    out += ' ';
  }
  return out;
}

}  // namespace

int32_t JavaStringHash(std::string_view s) {
  uint32_t h = 0;
  for (char c : s) h = 31 * h + uint32_t(uint8_t(c));
  return int32_t(h);
}

std::vector<size_t> JavaHashMapOrder(std::span<const std::string_view> keys) {
  size_t capacity = 16;
  while (double(keys.size()) > 0.75 * double(capacity)) capacity *= 2;
  std::vector<size_t> bucket(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint32_t h = uint32_t(JavaStringHash(keys[i]));
    bucket[i] = size_t(h ^ (h >> 16)) & (capacity - 1);
  }
  std::vector<size_t> order(keys.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return bucket[a] < bucket[b]; });
  return order;
}

std::string BasicDbReadLine(std::string_view table, ByteView key, std::span<const Column> columns) {
  std::string line = "READ ";
  line += table;
  line += ' ';
  line += key.str();
  line += " [ ";
  line += FieldList(columns);
  line += ']';
  return line;
}

std::string BasicDbScanLine(std::string_view table, const ScanRequest& scan) {
  std::string line = "SCAN ";
  line += table;
  line += ' ';
  line += scan.start_row.str();
  line += ' ';
  line += std::to_string(scan.number_of_rows);
  line += " [ ";
  line += FieldList(scan.columns);
  line += ']';
  return line;
}

std::string BasicDbWriteLine(std::string_view verb, std::string_view table, const Mutation& m) {
  std::string line(verb);
  line += ' ';
  line += table;
  line += ' ';
  line += m.row.str();
  line += " [ ";
  std::vector<std::string_view> names;
  for (const Cell& c : m.cells) names.push_back(c.qualifier.str());
  for (size_t i : JavaHashMapOrder(names)) {
    line += names[i];
    line += '=';
    line += m.cells[i].value.str();
    line += ' ';
  }
  line += ']';
  return line;
}

int32_t BasicDbReadHash(std::string_view table, ByteView key, std::span<const Column> columns) {
  std::string text(table);
  text += key.str();
  std::vector<std::string_view> fields;
  for (const Column& c : columns) {
    if (c.qualifier.empty()) return JavaStringHash(text);  // fields == null.
    fields.push_back(c.qualifier.str());
  }
  std::sort(fields.begin(), fields.end());
  for (std::string_view f : fields) text += f;
  return JavaStringHash(text);
}

int32_t BasicDbWriteHash(std::string_view table, const Mutation& m) {
  std::string text(table);
  text += m.row.str();
  std::vector<size_t> order(m.cells.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return m.cells[a].qualifier.str() < m.cells[b].qualifier.str();
  });
  for (size_t i : order) {
    text += m.cells[i].qualifier.str();
    text += m.cells[i].value.str();
  }
  return JavaStringHash(text);
}

std::string BasicDbPropertiesBlock(const std::vector<std::pair<std::string, std::string>>& props) {
  std::string out = "***************** properties *****************\n";
  for (const auto& [k, v] : props) {
    out += '"';
    out += k;
    out += "\"=\"";
    out += v;
    out += "\"\n";
  }
  out += "**********************************************\n";
  return out;
}

}  // namespace wirebench::ycsb
