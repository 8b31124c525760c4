#include "codecs/pb/cellblock_reader.h"

#include <string>

#include "codecs/hbase/key_value.h"
#include "codecs/pb/proto_fields.h"
#include "codecs/wire_reader.h"
#include "common/calls.h"

namespace wirebench::pb {

namespace {

// CellBlockMeta: the cell block's length.
Status ParseCellBlockMeta(ByteView in, uint64_t* length) {
  return ForEachField(in, "malformed CellBlockMeta", [&](uint32_t f, WireType wt, ProtoReader& r) {
    if (f == 1 && wt == WireType::kVarint) return VarintOf(r, length, "malformed CellBlockMeta");
    return SkipOf(r, wt, "malformed CellBlockMeta");
  });
}

// Checks the rest of the payload is exactly the announced cell block.
Status SplitBlock(ByteView rest, uint64_t block_len, ByteView* block) {
  if (rest.size() != block_len)
    return Bad(rest.size() < block_len ? "cell block shorter than cell_block_meta.length"
                                       : "bytes after the cell block");
  *block = rest;
  return Status::Ok();
}

}  // namespace

// RegionSpecifier.value, field by field (ReadRegion takes the usual layout).
Status CellBlockReader::ParseRegion(ByteView spec, ByteView* name) {
  *name = ByteView();
  const char* what = "malformed RegionSpecifier";
  return ForEachField(spec, what, [&](uint32_t f, WireType wt, ProtoReader& r) {
    if (f == 2 && wt == WireType::kLen) return LenOf(r, name, what);
    return SkipOf(r, wt, what);
  });
}

Status CellBlockReader::OpenRequest(ByteView payload, uint8_t method, ByteView* param,
                                    ByteView* block) {
  ByteView header;
  if (!ReadDelimited(&payload, &header)) return Bad("truncated RequestHeader");
  ByteView name;
  uint64_t request_param = 0, block_len = 0;
  WB_RETURN_IF_ERROR(
      ForEachField(header, "malformed RequestHeader", [&](uint32_t f, WireType wt, ProtoReader& r) {
        const char* what = "malformed RequestHeader";
        if (f == 3 && wt == WireType::kLen) return LenOf(r, &name, what);
        if (f == 4 && wt == WireType::kVarint) return VarintOf(r, &request_param, what);
        if (f == 5 && wt == WireType::kLen) {
          ByteView meta;
          WB_RETURN_IF_ERROR(LenOf(r, &meta, what));
          return ParseCellBlockMeta(meta, &block_len);
        }
        return SkipOf(r, wt, what);
      }));
  std::string_view expected = MethodName(Method(method));
  if (name.str() != expected)
    return Status::Corruption("cellblock: RequestHeader.method_name is '" + name.ToString() +
                              "', expected '" + std::string(expected) + "'");
  if (request_param == 0) return Bad("RequestHeader.request_param is not set");
  if (!ReadDelimited(&payload, param)) return Bad("truncated param message");
  return SplitBlock(payload, block_len, block);
}

Status CellBlockReader::OpenResponse(ByteView payload, ByteView* param, ByteView* block) {
  ByteView header;
  if (!ReadDelimited(&payload, &header)) return Bad("truncated ResponseHeader");
  uint64_t block_len = 0;
  ByteView exception;
  bool has_exception = false;
  WB_RETURN_IF_ERROR(ForEachField(header, "malformed ResponseHeader",
                                  [&](uint32_t f, WireType wt, ProtoReader& r) {
                                    const char* what = "malformed ResponseHeader";
                                    if (f == 2 && wt == WireType::kLen) {
                                      has_exception = true;
                                      return LenOf(r, &exception, what);
                                    }
                                    if (f == 3 && wt == WireType::kLen) {
                                      ByteView meta;
                                      WB_RETURN_IF_ERROR(LenOf(r, &meta, what));
                                      return ParseCellBlockMeta(meta, &block_len);
                                    }
                                    return SkipOf(r, wt, what);
                                  }));
  if (has_exception) {
    ByteView cls, trace;
    WB_RETURN_IF_ERROR(ForEachField(exception, "malformed ExceptionResponse",
                                    [&](uint32_t f, WireType wt, ProtoReader& r) {
                                      const char* what = "malformed ExceptionResponse";
                                      if (f == 1 && wt == WireType::kLen)
                                        return LenOf(r, &cls, what);
                                      if (f == 2 && wt == WireType::kLen)
                                        return LenOf(r, &trace, what);
                                      return SkipOf(r, wt, what);
                                    }));
    return Status::Internal("cellblock: the server answered with " + cls.ToString() + ": " +
                            trace.ToString());
  }
  if (!ReadDelimited(&payload, param)) return Bad("truncated response message");
  return SplitBlock(payload, block_len, block);
}

Status CellBlockReader::ParseMutation(ByteView in, MutationRef* m) {
  *m = MutationRef{};
  const char* what = "malformed MutationProto";
  WB_RETURN_IF_ERROR(ForEachField(in, what, [&](uint32_t f, WireType wt, ProtoReader& r) {
    if (f == 1 && wt == WireType::kLen) return LenOf(r, &m->row, what);
    if (f == 2 && wt == WireType::kVarint) return VarintOf(r, &m->type, what);
    if (f == 4 && wt == WireType::kVarint) return VarintOf(r, &m->timestamp, what);
    if (f == 8 && wt == WireType::kVarint) return VarintOf(r, &m->cells, what);
    if (f == 3)
      return Bad(
          "MutationProto carries column_value; the cellblock codec expects its cells in "
          "the cell block (use the pb codec)");
    // What the model has no place for: refused, not dropped (a server's
    // transport answers such a call its own way).
    if (f == 5) return Bad("MutationProto carries attributes, which the cellblock codec does not");
    if (f == 7) return Bad("MutationProto carries a time_range, which the cellblock codec does not");
    return SkipOf(r, wt, what);
  }));
  if (m->type > uint64_t(MutationType::kDelete))
    return Bad("MutationProto has no valid mutate_type");
  if (m->cells > kMaxJavaInt) return Bad("MutationProto.associated_cell_count is negative");
  return Status::Ok();
}

Status CellBlockReader::ParseColumn(ByteView in) {
  const char* what = "malformed Column";
  // Family first (it may follow the qualifiers on the wire), then qualifiers.
  ByteView family;
  bool has_family = false;
  WB_RETURN_IF_ERROR(ForEachField(in, what, [&](uint32_t f, WireType wt, ProtoReader& r) {
    if (f == 1 && wt == WireType::kLen) {
      has_family = true;
      return LenOf(r, &family, what);
    }
    return SkipOf(r, wt, what);
  }));
  if (!has_family) return Bad("Column has no family");
  size_t before = scratch_.columns.size();
  WB_RETURN_IF_ERROR(ForEachField(in, what, [&](uint32_t f, WireType wt, ProtoReader& r) {
    if (f != 2 || wt != WireType::kLen) return SkipOf(r, wt, what);
    ByteView q;
    WB_RETURN_IF_ERROR(LenOf(r, &q, what));
    scratch_.columns.push_back(Column{family, q});
    return Status::Ok();
  }));
  if (scratch_.columns.size() == before)
    scratch_.columns.push_back(Column{family, ByteView()});  // Whole family.
  return Status::Ok();
}

Status CellBlockReader::ParseGet(ByteView in, GetRef* g) {
  *g = GetRef{};
  g->columns.begin = uint32_t(scratch_.columns.size());
  const char* what = "malformed Get";
  WB_RETURN_IF_ERROR(ForEachField(in, what, [&](uint32_t f, WireType wt, ProtoReader& r) {
    if (f == 1 && wt == WireType::kLen) {
      g->has_row = true;
      return LenOf(r, &g->row, what);
    }
    if (f == 2 && wt == WireType::kLen) {
      ByteView col;
      WB_RETURN_IF_ERROR(LenOf(r, &col, what));
      return ParseColumn(col);
    }
    // The Get options the model has no place for: refused, not dropped.
    if (f == 4) return Bad("Get carries a filter, which the cellblock codec does not");
    if (f == 10) return Bad("Get carries existence_only, which the cellblock codec does not");
    if (f == 11) return Bad("Get carries closest_row_before, which the cellblock codec does not");
    if (f == 5 && wt == WireType::kLen) {  // A time range: all of time (empty) only.
      ByteView tr;
      WB_RETURN_IF_ERROR(LenOf(r, &tr, what));
      return tr.empty() ? Status::Ok()
                        : Bad("Get carries a time_range, which the cellblock codec does not");
    }
    if (f == 6 && wt == WireType::kVarint) {
      uint64_t versions = 0;
      WB_RETURN_IF_ERROR(VarintOf(r, &versions, what));
      return versions == 1
                 ? Status::Ok()
                 : Bad("Get asks for max_versions other than 1, which the cellblock codec does "
                       "not carry");
    }
    return SkipOf(r, wt, what);
  }));
  if (!g->has_row) return Bad("Get has no row");
  g->columns.count = uint32_t(scratch_.columns.size() - g->columns.begin);
  return Status::Ok();
}

Status CellBlockReader::ParseAction(ByteView in) {
  ActionRef& a = action_refs_.emplace_back();
  const char* what = "malformed Action";
  WB_RETURN_IF_ERROR(ForEachField(in, what, [&](uint32_t f, WireType wt, ProtoReader& r) {
    ByteView sub;
    if (f == 1 && wt == WireType::kVarint) return VarintOf(r, &a.index, what);
    if (f == 2 && wt == WireType::kLen) {
      a.has_mutation = true;
      WB_RETURN_IF_ERROR(LenOf(r, &sub, what));
      return ParseMutation(sub, &a.mutation);
    }
    if (f == 3 && wt == WireType::kLen) {
      a.has_get = true;
      WB_RETURN_IF_ERROR(LenOf(r, &sub, what));
      return ParseGet(sub, &a.get);
    }
    if (f == 4) return Bad("Action carries a coprocessor service call, which the cellblock codec does not");
    return SkipOf(r, wt, what);
  }));
  if (a.has_mutation == a.has_get) return Bad("Action must carry exactly one of mutation and get");
  return Status::Ok();
}

Status CellBlockReader::ParseRegionAction(ByteView in, ByteView* region) {
  const char* what = "malformed RegionAction";
  return ForEachField(in, what, [&](uint32_t f, WireType wt, ProtoReader& r) {
    if (wt != WireType::kLen) return SkipOf(r, wt, what);
    ByteView sub;
    WB_RETURN_IF_ERROR(LenOf(r, &sub, what));
    if (f == 3) return ParseAction(sub);
    if (f == 1) return ReadRegion(sub, region);
    if (f == 4) return Bad("RegionAction carries a condition, which the cellblock codec does not");
    return Status::Ok();
  });
}

Status CellBlockReader::ParseResult(ByteView in, ResultRef* res) {
  *res = ResultRef{};
  const char* what = "malformed Result";
  WB_RETURN_IF_ERROR(ForEachField(in, what, [&](uint32_t f, WireType wt, ProtoReader& r) {
    uint64_t v = 0;
    if (f == 1 && wt == WireType::kLen)
      return Bad(
          "Result carries cells in Result.cell; the cellblock codec expects them in the "
          "cell block (use the pb codec)");
    if (f == 2 && wt == WireType::kVarint) return VarintOf(r, &res->cells, what);
    if (f == 3 && wt == WireType::kVarint) {
      WB_RETURN_IF_ERROR(VarintOf(r, &v, what));
      res->exists = v != 0;
      return Status::Ok();
    }
    return SkipOf(r, wt, what);
  }));
  if (res->cells > kMaxJavaInt) return Bad("Result.associated_cell_count is negative");
  return Status::Ok();
}

Status CellBlockReader::ParseResultOrException(ByteView in) {
  ActionResultRef& a = action_result_refs_.emplace_back();
  const char* what = "malformed ResultOrException";
  return ForEachField(in, what, [&](uint32_t f, WireType wt, ProtoReader& r) {
    ByteView sub;
    if (f == 1 && wt == WireType::kVarint) return VarintOf(r, &a.index, what);
    if (f == 2 && wt == WireType::kLen) {
      WB_RETURN_IF_ERROR(LenOf(r, &sub, what));
      return ParseResult(sub, &a.result);
    }
    if (f == 3 && wt == WireType::kLen) {
      a.has_exception = true;
      WB_RETURN_IF_ERROR(LenOf(r, &sub, what));
      return ForEachField(sub, "malformed NameBytesPair",
                          [&](uint32_t f2, WireType wt2, ProtoReader& r2) {
                            if (f2 == 2 && wt2 == WireType::kLen)
                              return LenOf(r2, &a.error, "malformed NameBytesPair");
                            return SkipOf(r2, wt2, "malformed NameBytesPair");
                          });
    }
    return SkipOf(r, wt, what);
  });
}

Status CellBlockReader::ParseRegionActionResult(ByteView in) {
  const char* what = "malformed RegionActionResult";
  return ForEachField(in, what, [&](uint32_t f, WireType wt, ProtoReader& r) {
    ByteView sub;
    if (f == 1 && wt == WireType::kLen) {
      WB_RETURN_IF_ERROR(LenOf(r, &sub, what));
      return ParseResultOrException(sub);
    }
    if (f == 2 && wt == WireType::kLen)
      return Status::Internal("cellblock: the region failed the whole Multi");
    return SkipOf(r, wt, what);
  });
}

Status CellBlockReader::ReadCells(ByteView block, uint64_t total) {
  // Refuse counts the block cannot hold before sizing anything by them.
  if (total > block.size() / kMinKeyValueBytes)
    return Bad("cell counts exceed what the cell block can hold");
  scratch_.cells.resize(size_t(total));
  std::optional<size_t> used = ReadKeyValues(block, scratch_.cells.data(), scratch_.cells.size());
  if (!used) return Bad("malformed KeyValue in the cell block");
  if (*used != block.size()) return Bad("cell block holds more than its cells");
  return Status::Ok();
}

Status CellBlockReader::TakeMutationCells(const MutationRef& ref, size_t* next, Mutation* out) {
  out->row = ref.row;
  out->type = MutationType(ref.type);
  out->timestamp = ref.timestamp;
  out->cells = std::span<const Cell>(scratch_.cells.data() + *next, size_t(ref.cells));
  for (const Cell& c : out->cells)
    if (!(c.row == ref.row)) return Bad("a cell's row differs from its mutation's row");
  *next += size_t(ref.cells);
  return Status::Ok();
}

}  // namespace wirebench::pb
