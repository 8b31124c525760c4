// ResultBuilder: builds Results (rows of cells) in a caller's RegionScratch.
//
// Cell bytes are appended to scratch->bytes while results are built, and
// views are only made in Finish(), once the buffer has stopped growing (it
// may move while it grows). Until Finish() the builder records offsets in
// scratch->ranges: per result two entries (row bytes, then cell index range),
// per cell three (family, qualifier, value). Several gets of one Multi can
// share one builder, so every result stays valid after the call.
// Thread-safety: a plain object over one scratch; one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codecs/message.h"
#include "common/bytes.h"
#include "nullregion/region.h"

namespace wirebench {

class ResultBuilder {
 public:
  // Clears the scratch members it uses (cells, results, ranges, bytes).
  explicit ResultBuilder(RegionScratch* scratch);
  ResultBuilder(const ResultBuilder&) = delete;
  ResultBuilder& operator=(const ResultBuilder&) = delete;

  // Starts a new result for `row`; its cells follow with AddCell().
  // Returns the result's index in scratch->results.
  size_t BeginResult(ByteView row, bool exists);
  // Adds one cell to the current result.
  // REQUIRES: BeginResult() was called.
  void AddCell(ByteView family, ByteView qualifier, uint64_t timestamp, CellType type,
               ByteView value);
  // Drops the current result (e.g. a scanned row with no matching cells).
  void DropResult();
  // Number of cells in the current result.
  size_t current_cells() const;

  // Keeps `text` in the scratch between results (a failed action's reason)
  // and returns where: Kept() views it once Finish() has run.
  // REQUIRES: no result is being built (BeginResult() not followed by more).
  uint32_t Keep(ByteView text) {
    header_ = SIZE_MAX;
    return AppendBytes(text);
  }
  // The `size` bytes kept at `offset`. REQUIRES: Finish() was called.
  ByteView Kept(uint32_t offset, size_t size) const;

  // Makes every view. After this, scratch->results[i].cells and every cell
  // view point into scratch, valid until the scratch is next reused.
  void Finish();

 private:
  uint32_t AppendBytes(ByteView v);

  RegionScratch* s_;
  size_t header_ = SIZE_MAX;  // Index in ranges of the current result's header.
};

}  // namespace wirebench
