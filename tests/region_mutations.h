// Writing to a Region directly in a test: one row's mutation of the given
// cells, as a codec would hand it over.
#pragma once

#include <span>
#include <string>

#include "codecs/message.h"
#include "common/status.h"
#include "nullregion/region.h"

namespace wirebench::testing {

// Applies to `r` a put or delete (a delete with no cells is the whole
// row's) of `row` with `cells`, in `table` (empty: the default one).
inline Status MutateRow(Region* r, const std::string& row, MutationType type,
                        std::span<const Cell> cells, ByteView table = {}) {
  Mutation m;
  m.row = ByteView(row);
  m.type = type;
  m.cells = cells;
  m.table = table;
  MutateResponse resp;
  return r->Mutate(m, &resp);
}

// A put of one cell, family:qualifier = value (timestamp 0: the server's clock).
inline Status PutCell(Region* r, const std::string& row, const std::string& family,
                      const std::string& qualifier, const std::string& value,
                      uint64_t timestamp = 0, ByteView table = {}) {
  const Cell c{ByteView(row), ByteView(family), ByteView(qualifier), timestamp, CellType::kPut,
               ByteView(value)};
  return MutateRow(r, row, MutationType::kPut, {&c, 1}, table);
}

}  // namespace wirebench::testing
