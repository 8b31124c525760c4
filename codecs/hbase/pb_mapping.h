// How wirebench's message model (codecs/message.h) maps onto HBase's
// protobuf messages (codecs/schemas/*.proto), shared by the protobuf codecs.
//
// The rules, which the generated-message path (pb, pb-arena) and the
// hand-written path (cellblock) both follow:
//  - Requests name the region the request carries (MutateRequest::region,
//    set by a cluster's client), else the table's one region kRegionName
//    (REGION_NAME), as HBase's client does.
//  - A Mutation is a MutationProto: row, mutate_type, timestamp, and its
//    cells as column_value entries, one per run of consecutive cells of the
//    same family (so cell order survives), each cell a QualifierValue with
//    qualifier, value, timestamp and, for deletes, delete_type
//    (kDelete -> DELETE_ONE_VERSION, kDeleteColumn -> DELETE_MULTIPLE_VERSIONS,
//    kDeleteFamily -> DELETE_FAMILY). Decoded cells take the mutation's row.
//  - Columns become HBase Column messages: consecutive columns of one family
//    with qualifiers share one Column; a whole-family column (empty
//    qualifier) gets a Column of its own with no qualifier.
//  - Result.exists is written only when true and the Result has no cells (as
//    HBase: its toResult refuses exists with cells); read back, a Result with
//    cells exists. MutateResponse.processed always.
//  - A failed Multi action is ResultOrException.exception, a NameBytesPair
//    named as ActionExceptionOf says, whose value is the error text.
//
// Fill*() functions copy the model into generated messages and return the
// payload bytes (row, family, qualifier, value) they copied into strings.
// ModelBuilder reads generated messages back into the model; the views it
// returns point into the message it read, which must outlive them.
// Thread-safety: ModelBuilder is per codec instance; the rest is pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "codecs/message.h"
#include "codecs/schemas/Client.pb.h"
#include "codecs/schemas/RPC.pb.h"
#include "common/status.h"

namespace wirebench::pb {

// The region every request names, as HBase's client would
// (UserTableRegionName(""), codecs/message.h).
inline constexpr std::string_view kRegionName = "usertable,,1";
// The class name carried by a failed Multi action whose reason names none.
inline constexpr std::string_view kExceptionName = "java.io.IOException";

// A failed action's exception as HBase sends it: a reason that opens with
// one of HBase's exception classes ("org.apache.hadoop.hbase.
// RegionTooBusyException: Over memstore limit ...") goes as that class with
// the rest as its text, since HBase's clients retry by class, not by text;
// any other as kExceptionName with the whole reason.
struct ActionException {
  std::string_view name;
  ByteView text;
};
ActionException ActionExceptionOf(ByteView reason);

// HBase's MutationProto.DeleteType for a cell type; -1 for kPut (no delete type).
int DeleteTypeOf(CellType t);
// The cell type of a MutationProto.DeleteType; false for DELETE_FAMILY_VERSION
// (which the model does not have) and unknown values.
bool CellTypeOfDeleteType(uint64_t delete_type, CellType* out);

// Calls f(family, run) for each run of consecutive cells of one family.
template <typename F>
void ForEachFamilyRun(std::span<const Cell> cells, F&& f) {
  size_t i = 0;
  while (i < cells.size()) {
    size_t j = i + 1;
    while (j < cells.size() && cells[j].family == cells[i].family) ++j;
    f(cells[i].family, cells.subspan(i, j - i));
    i = j;
  }
}

// Calls f(family, group) for each HBase Column the columns turn into. A group
// of one column with an empty qualifier stands for the whole family.
template <typename F>
void ForEachColumnGroup(std::span<const Column> cols, F&& f) {
  size_t i = 0;
  while (i < cols.size()) {
    size_t j = i + 1;
    if (!cols[i].qualifier.empty()) {
      while (j < cols.size() && cols[j].family == cols[i].family && !cols[j].qualifier.empty()) ++j;
    }
    f(cols[i].family, cols.subspan(i, j - i));
    i = j;
  }
}

// REGION_NAME `named`, or kRegionName when `named` is empty.
void SetRegion(ByteView named, hbase::RegionSpecifier* region);

size_t Fill(const Mutation& m, hbase::MutationProto* p);
size_t Fill(const GetRequest& g, hbase::Get* p);
size_t Fill(const Result& r, hbase::Result* p);
size_t Fill(const MutateRequest& req, hbase::MutateRequest* p);
size_t Fill(const GetRequest& req, hbase::GetRequest* p);
size_t Fill(const ScanRequest& req, hbase::ScanRequest* p);
size_t Fill(const MultiRequest& req, hbase::MultiRequest* p);
size_t Fill(const MutateResponse& resp, hbase::MutateResponse* p);
size_t Fill(const GetResponse& resp, hbase::GetResponse* p);
size_t Fill(const ScanResponse& resp, hbase::ScanResponse* p);
size_t Fill(const MultiResponse& resp, hbase::MultiResponse* p);

// Reads generated messages into the model. Scratch vectors keep their
// capacity between calls. Each Read() replaces what the previous one built.
class ModelBuilder {
 public:
  ModelBuilder() = default;
  ModelBuilder(const ModelBuilder&) = delete;
  ModelBuilder& operator=(const ModelBuilder&) = delete;

  Status Read(const hbase::MutateRequest& p, MutateRequest* out);
  Status Read(const hbase::GetRequest& p, GetRequest* out);
  Status Read(const hbase::ScanRequest& p, ScanRequest* out);
  Status Read(const hbase::MultiRequest& p, MultiRequest* out);
  Status Read(const hbase::MutateResponse& p, MutateResponse* out);
  Status Read(const hbase::GetResponse& p, GetResponse* out);
  Status Read(const hbase::ScanResponse& p, ScanResponse* out);
  Status Read(const hbase::MultiResponse& p, MultiResponse* out);

  // Payload bytes the parser copied into the message the last Read() looked at.
  uint64_t copied() const { return copied_; }

 private:
  Status ReadMutation(const hbase::MutationProto& p, Cell** next, Mutation* out);
  void ReadColumns(const google::protobuf::RepeatedPtrField<hbase::Column>& p, Column** next,
                   std::span<const Column>* out);
  Status ReadResult(const hbase::Result& p, Cell** next, Result* out);
  void Begin();

  uint64_t copied_ = 0;
  DecodeScratch scratch_;
};

}  // namespace wirebench::pb
