// Small workloads for end-to-end tests (test doubles of the YCSB workload):
// a fixed 1 KB put, a Get, a Scan and a Multi of puts, all over static storage.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "bench/loadgen/driver.h"

namespace wirebench::testing {

// Ten 100-byte fields of one row, as YCSB's defaults build them.
struct Record {
  Record() : row("user6284781860667377211"), family("family"), value(100, 'x') {
    for (int i = 0; i < 10; ++i) qualifiers.push_back("field" + std::to_string(i));
    for (int i = 0; i < 10; ++i)
      cells.push_back(Cell{ByteView(row), ByteView(family), ByteView(qualifiers[size_t(i)]), 0,
                           CellType::kPut, ByteView(value)});
  }
  std::string row, family, value;
  std::vector<std::string> qualifiers;
  std::vector<Cell> cells;
};

// Cycles put, get, scan, multi (or only puts): each call's request is built
// once, over the record, and copied into the planned op.
class MixedStream final : public OpStream {
 public:
  explicit MixedStream(bool puts_only) : puts_only_(puts_only) {
    put_ = Mutation{ByteView(rec_.row), MutationType::kPut, 0, rec_.cells};
    get_.row = ByteView(rec_.row);
    scan_.start_row = ByteView(rec_.row);
    scan_.number_of_rows = 10;
    for (int i = 0; i < 4; ++i) {
      Action a;
      a.index = uint32_t(i);
      a.kind = ActionKind::kMutation;
      a.mutation = put_;
      actions_.push_back(a);
    }
  }
  bool Next(PlannedOp* op) override {
    const int kind = puts_only_ ? 0 : int(n_++ % 4);
    op->ncalls = 1;
    PlannedCall& c = op->calls[0];
    switch (kind) {
      case 0:
        op->type = OpType::kUpdate;
        c.method = Method::kMutate;
        c.mutate.mutation = put_;
        break;
      case 1:
        op->type = OpType::kRead;
        c.method = Method::kGet;
        c.get = get_;
        break;
      case 2:
        op->type = OpType::kScan;
        c.method = Method::kScan;
        c.scan = scan_;
        break;
      default:
        op->type = OpType::kFlush;
        c.method = Method::kMulti;
        c.multi.actions = actions_;
        break;
    }
    return true;
  }

 private:
  bool puts_only_;
  uint64_t n_ = 0;
  Record rec_;
  Mutation put_;
  GetRequest get_;
  ScanRequest scan_;
  std::vector<Action> actions_;
};

class MixedWorkload final : public Workload {
 public:
  explicit MixedWorkload(bool puts_only = false) : puts_only_(puts_only) {}
  std::unique_ptr<OpStream> NewStream(int, int) override {
    return std::make_unique<MixedStream>(puts_only_);
  }

 private:
  bool puts_only_;
};

}  // namespace wirebench::testing
