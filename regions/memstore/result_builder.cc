#include "regions/memstore/result_builder.h"

#include <cassert>

namespace wirebench {

ResultBuilder::ResultBuilder(RegionScratch* scratch) : s_(scratch) {
  s_->cells.clear();
  s_->results.clear();
  s_->ranges.clear();
  s_->bytes.Clear();
}

uint32_t ResultBuilder::AppendBytes(ByteView v) {
  size_t off = s_->bytes.size();
  assert(off + v.size() <= UINT32_MAX);
  s_->bytes.Append(v);
  return uint32_t(off);
}

size_t ResultBuilder::BeginResult(ByteView row, bool exists) {
  header_ = s_->ranges.size();
  s_->ranges.emplace_back(AppendBytes(row), uint32_t(row.size()));
  s_->ranges.emplace_back(uint32_t(s_->cells.size()), 0u);
  Result r;
  r.exists = exists;
  s_->results.push_back(r);
  return s_->results.size() - 1;
}

void ResultBuilder::AddCell(ByteView family, ByteView qualifier, uint64_t timestamp, CellType type,
                            ByteView value) {
  assert(header_ != SIZE_MAX);
  s_->ranges.emplace_back(AppendBytes(family), uint32_t(family.size()));
  s_->ranges.emplace_back(AppendBytes(qualifier), uint32_t(qualifier.size()));
  s_->ranges.emplace_back(AppendBytes(value), uint32_t(value.size()));
  Cell c;
  c.timestamp = timestamp;
  c.type = type;
  s_->cells.push_back(c);
  ++s_->ranges[header_ + 1].second;
}

size_t ResultBuilder::current_cells() const {
  return header_ == SIZE_MAX ? 0 : s_->ranges[header_ + 1].second;
}

void ResultBuilder::DropResult() {
  assert(header_ != SIZE_MAX);
  const uint32_t row_off = s_->ranges[header_].first;
  const uint32_t first_cell = s_->ranges[header_ + 1].first;
  // Bytes of a dropped result are the last ones appended: give them back.
  s_->bytes.Resize(row_off);
  s_->ranges.resize(header_);
  s_->cells.resize(first_cell);
  s_->results.pop_back();
  header_ = SIZE_MAX;
}

ByteView ResultBuilder::Kept(uint32_t offset, size_t size) const {
  return size ? ByteView(s_->bytes.data() + offset, size) : ByteView();
}

void ResultBuilder::Finish() {
  const uint8_t* base = s_->bytes.data();
  auto view = [&](const std::pair<uint32_t, uint32_t>& r) {
    return r.second ? ByteView(base + r.first, r.second) : ByteView();
  };
  size_t pos = 0;
  for (Result& result : s_->results) {
    const ByteView row = view(s_->ranges[pos]);
    const uint32_t first = s_->ranges[pos + 1].first;
    const uint32_t n = s_->ranges[pos + 1].second;
    pos += 2;
    for (uint32_t i = 0; i < n; ++i) {
      Cell& c = s_->cells[first + i];
      c.row = row;
      c.family = view(s_->ranges[pos]);
      c.qualifier = view(s_->ranges[pos + 1]);
      c.value = view(s_->ranges[pos + 2]);
      pos += 3;
    }
    result.cells = std::span<const Cell>(s_->cells.data() + first, n);
  }
  assert(pos == s_->ranges.size());
  header_ = SIZE_MAX;
}

}  // namespace wirebench
