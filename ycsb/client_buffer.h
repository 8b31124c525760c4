// Internal to ClientWorkload: the fixed scratch of the client-side buffer
// (clientbuffering=true, HBase's BufferedMutator, whose puts it holds; with
// wirebench.batch it holds reads too, as Table.batch would), sized once from
// writebuffersize or the batch, the record shape and ClientWorkloadOptions.
// Thread-safety: owned by one ClientWorkload.
#pragma once

#include <algorithm>
#include <memory>

#include "ycsb/client_workload.h"

namespace wirebench::ycsb {

struct ClientWorkload::Buffer {
  Buffer(const CoreWorkload& w, const ClientWorkloadOptions& options) {
    const CoreWorkloadConfig& c = w.config();
    const size_t fields = size_t(c.field_count);
    max_ops = c.batch_ops > 0 ? uint32_t(c.batch_ops)
                              : std::max<uint32_t>(1, options.max_buffered_puts);
    // Every buffered cell accounts for at least this many bytes, so cells
    // beyond writebuffersize / min_cell_bytes (plus one record) never fit.
    size_t min_qualifier = SIZE_MAX;
    for (const std::string& f : w.field_names()) min_qualifier = std::min(min_qualifier, f.size());
    const size_t min_cell_bytes =
        kKeyPrefixBytes + c.column_family.size() + min_qualifier +
        size_t(c.field_length_distribution == LengthDistribution::kConstant ? c.field_length
                                                                            : c.min_field_length) +
        kCellOverheadBytes;
    max_cells = c.batch_ops > 0 ? size_t(max_ops) * fields
                                : std::min(size_t(max_ops) * fields,
                                           size_t(c.write_buffer_size) / min_cell_bytes + fields);
    max_cells = std::max(max_cells, fields);
    key_stride = w.max_key_length();
    keys.reset(new char[size_t(max_ops) * key_stride]);
    cells.reset(new Cell[max_cells]);
    actions.reset(new Action[max_ops]);
    ack_keys.reset(new int64_t[max_ops]);
    if (c.data_integrity) values.reset(new uint8_t[max_cells * size_t(c.field_length)]);
  }

  // Bytes a buffered cell counts besides row, family, qualifier and value:
  // its timestamp and type, as in a KeyValue.
  static constexpr size_t kCellOverheadBytes = 9;
  static constexpr size_t kKeyPrefixBytes = 5;  // The shortest row: "user" + one digit.

  uint32_t max_ops = 0;
  size_t max_cells = 0;
  size_t key_stride = 0;
  std::unique_ptr<char[]> keys;
  std::unique_ptr<Cell[]> cells;
  std::unique_ptr<Action[]> actions;
  std::unique_ptr<int64_t[]> ack_keys;  // Run-phase inserts to acknowledge after the flush.
  std::unique_ptr<uint8_t[]> values;    // dataintegrity only: max_cells * fieldlength.
  uint32_t num_acks = 0;
  size_t cells_used = 0;
  MultiRequest multi;
};

}  // namespace wirebench::ycsb
