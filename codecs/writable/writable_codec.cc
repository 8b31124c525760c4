// The `writable` codec: HBase 0.94's Writable RPC serialization
// (codecs/writable/README.md has the layouts and how they map to the
// message model). All integers are big-endian, as Java's DataOutput writes
// them; "vint" is Hadoop's WritableUtils variable-length integer; "bytes" is
// Bytes.writeByteArray: a vint length, then the bytes.
//
//   Request  = Invocation: u8 version (1), u16 length + method name
//              (writeUTF), i64 client version, i32 methods hash, i32 count,
//              parameters as HbaseObjectWritable.writeObject writes them:
//              vint class code of the declared class, then (for a Writable)
//              the instance's class code and its write().
//   Response = the return value, written by writeObject the same way.
//
//   Mutate: put|delete|append(byte[] region, Put|Delete|Append)
//   Get:    get(byte[] region, Get) -> Result, or a null Result for a
//           missing row
//   Scan:   openScanner(byte[] region, Scan), answered with next()'s
//           Result[] and a trailing boolean "more results" (0.94 needed a
//           further round trip to learn there were none)
//   Multi:  multi(MultiAction) -> MultiResponse
//   A Mutate answer is put()'s void (a null of class void), or, when not
//   processed, checkAndPut()'s boolean false.
#include "codecs/writable/writable_codec.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "codecs/codec_adapter.h"
#include "codecs/hbase/key_value.h"
#include "codecs/wire_reader.h"
#include "common/thread_stats.h"

namespace wirebench {

namespace {

// HbaseObjectWritable's class codes: positions in 0.94's static block.
enum ClassCode : int32_t {
  kBooleanCode = 1,
  kVoidCode = 9,
  kByteArrayCode = 11,
  kWritableCode = 14,
  kNullInstanceCode = 17,
  kDeleteCode = 31,
  kGetCode = 32,
  kPutCode = 35,
  kResultCode = 37,
  kResultArrayCode = 38,
  kScanCode = 39,
  kRowCode = 64,
  kActionCode = 65,
  kMultiActionCode = 66,
  kMultiResponseCode = 67,
  kAppendCode = 78,
};

constexpr uint8_t kInvocationVersion = 1;  // Invocation's RPC_VERSION.
constexpr uint64_t kClientVersion = 29;    // HRegionInterface.VERSION in 0.94.
// Stands in for the hash of HRegionInterface's methods 0.94 sent; the
// server here only reads it.
constexpr uint32_t kMethodsHash = 0x2C6E7F1Bu;
constexpr uint8_t kPutVersion = 1;  // A Put without attributes.
constexpr uint8_t kDeleteVersion = 3;
constexpr uint8_t kGetVersion = 2;
constexpr uint8_t kScanVersion = 3;
constexpr uint8_t kResultArrayVersion = 1;
constexpr uint64_t kNoLock = ~uint64_t(0);          // lockId -1.
constexpr uint64_t kLatestTimestamp = INT64_MAX;    // HConstants.LATEST_TIMESTAMP.
constexpr uint32_t kMinusOne = ~uint32_t(0);
constexpr uint32_t kMaxJavaInt = 0x7FFFFFFFu;
// The messages name no region; every request carries this one, as long as
// a real region name.
constexpr std::string_view kRegionName =
    "usertable,,1386000000000.8ba3dc3d8e0c2e5ea5d3ef1d5d3e4a7b.";
// The class a failed Multi action's exception is reported as.
constexpr std::string_view kExceptionClass = "java.io.IOException";

ByteView AsBytes(std::string_view s) { return ByteView(s); }

bool SameBytes(ByteView a, ByteView b) { return a == b; }

// ---- Encoding: one walk sizes the payload, a second writes it ----

// The payload's exact size, and the first reason it cannot be written.
class Sizer {
 public:
  void U8(uint8_t) { n_ += 1; }
  void Bool(bool) { n_ += 1; }
  void U16(uint16_t) { n_ += 2; }
  void I32(uint32_t) { n_ += 4; }
  void I64(uint64_t) { n_ += 8; }
  void VInt(int64_t v) { n_ += VIntSize(v); }
  void ByteArray(ByteView v, bool payload = true) {
    CheckLength(v);
    n_ += VIntSize(int64_t(v.size())) + v.size();
  }
  // WritableUtils.writeString: i32 length, then the bytes.
  void JavaString(ByteView v, bool payload = true) {
    CheckLength(v);
    n_ += 4 + v.size();
  }
  void Utf(std::string_view s) { n_ += 2 + s.size(); }
  void KeyValue(ByteView row, const Cell& c) {
    if (row.size() > pb::kMaxRowBytes) {
      Fail("row of " + std::to_string(row.size()) + " bytes exceeds KeyValue's limit of 32767");
    } else if (c.family.size() > pb::kMaxFamilyBytes) {
      Fail("family of " + std::to_string(c.family.size()) +
           " bytes exceeds KeyValue's limit of 127");
    } else if (pb::KeyValueBytes(row, c) > kMaxJavaInt) {
      Fail("cell exceeds KeyValue's 2 GiB limit");
    }
    n_ += pb::KeyValueBytes(row, c);
  }
  void Fail(std::string why) {
    if (status_.ok()) status_ = Status::InvalidArgument("writable: " + why);
  }

  size_t size() const { return n_; }
  const Status& status() const { return status_; }

  static size_t VIntSize(int64_t v) {
    if (v >= -112 && v <= 127) return 1;
    if (v < 0) v = ~v;
    size_t n = 1;
    for (uint64_t t = uint64_t(v); t != 0; t >>= 8) ++n;
    return n;
  }

 private:
  void CheckLength(ByteView v) {
    if (v.size() > kMaxJavaInt) Fail("byte string exceeds Java's 2 GiB array limit");
  }

  size_t n_ = 0;
  Status status_;
};

// Writes into the space the Sizer measured; counts payload bytes copied.
class Writer {
 public:
  Writer(ByteBuffer* out, size_t size) : p_(out->Extend(size)) {}
  ~Writer() { CountEncodeCopy(copied_); }

  void U8(uint8_t v) { *p_++ = v; }
  void Bool(bool v) { *p_++ = v ? 1 : 0; }
  void U16(uint16_t v) { PutBE(p_, v); }
  void I32(uint32_t v) { PutBE(p_, v); }
  void I64(uint64_t v) { PutBE(p_, v); }
  // WritableUtils.writeVLong.
  void VInt(int64_t v) {
    if (v >= -112 && v <= 127) {
      *p_++ = uint8_t(int8_t(v));
      return;
    }
    int len = -112;
    if (v < 0) {
      v = ~v;
      len = -120;
    }
    int bytes = 0;
    for (uint64_t t = uint64_t(v); t != 0; t >>= 8) ++bytes;
    *p_++ = uint8_t(int8_t(len - bytes));
    for (int i = bytes; i > 0; --i) *p_++ = uint8_t(uint64_t(v) >> ((i - 1) * 8));
  }
  void ByteArray(ByteView v, bool payload = true) {
    VInt(int64_t(v.size()));
    Raw(v, payload);
  }
  void JavaString(ByteView v, bool payload = true) {
    I32(uint32_t(v.size()));
    Raw(v, payload);
  }
  void Utf(std::string_view s) {
    U16(uint16_t(s.size()));
    Raw(AsBytes(s), false);
  }
  void KeyValue(ByteView row, const Cell& c) {
    p_ = pb::WriteKeyValue(p_, row, c);
    copied_ += row.size() + c.family.size() + c.qualifier.size() + c.value.size();
  }
  void Fail(const std::string&) {}

 private:
  void Raw(ByteView v, bool payload) {
    if (!v.empty()) std::memcpy(p_, v.data(), v.size());
    p_ += v.size();
    if (payload) copied_ += v.size();
  }

  uint8_t* p_;
  uint64_t copied_ = 0;
};

// Cells in runs of one family: 0.94 kept a Put's or Delete's KeyValues in a
// map from family to list; consecutive cells of a family form one entry here
// (the same bytes when, as in YCSB's puts, cells are grouped by family).
template <typename F>
void ForEachFamilyRun(std::span<const Cell> cells, F f) {
  for (size_t i = 0; i < cells.size();) {
    size_t j = i + 1;
    while (j < cells.size() && SameBytes(cells[j].family, cells[i].family)) ++j;
    f(cells.subspan(i, j - i));
    i = j;
  }
}

size_t FamilyRuns(std::span<const Cell> cells) {
  size_t n = 0;
  ForEachFamilyRun(cells, [&](std::span<const Cell>) { ++n; });
  return n;
}

// Columns in 0.94's family map entries: a column without a qualifier is a
// whole-family entry; consecutive qualified columns of one family share one.
template <typename F>
void ForEachColumnEntry(std::span<const Column> columns, F f) {
  for (size_t i = 0; i < columns.size();) {
    size_t j = i + 1;
    if (!columns[i].qualifier.empty()) {
      while (j < columns.size() && !columns[j].qualifier.empty() &&
             SameBytes(columns[j].family, columns[i].family))
        ++j;
    }
    f(columns.subspan(i, j - i));
    i = j;
  }
}

size_t ColumnEntries(std::span<const Column> columns) {
  size_t n = 0;
  ForEachColumnEntry(columns, [&](std::span<const Column>) { ++n; });
  return n;
}

template <typename S>
void WriteInvocation(S& s, std::string_view method, uint32_t params) {
  s.U8(kInvocationVersion);
  s.Utf(method);
  s.I64(kClientVersion);
  s.I32(kMethodsHash);
  s.I32(params);
}

// A byte[] parameter: its class code, then the bytes.
template <typename S>
void WriteRegionParam(S& s) {
  s.VInt(kByteArrayCode);
  s.ByteArray(AsBytes(kRegionName), /*payload=*/false);
}

// writeObject of a Writable declared as its own class: the code twice.
template <typename S>
void WriteWritableHeader(S& s, ClassCode code) {
  s.VInt(code);
  s.VInt(code);
}

// A null declared as `declared`: Writable's code, NullInstance's, then the
// declared class's.
template <typename S>
void WriteNull(S& s, ClassCode declared) {
  s.VInt(kWritableCode);
  s.VInt(kNullInstanceCode);
  s.VInt(declared);
}

template <typename S>
void WriteTimeRange(S& s) {  // All time: [0, Long.MAX_VALUE).
  s.I64(0);
  s.I64(kLatestTimestamp);
  s.Bool(true);
}

ClassCode MutationCode(MutationType t) {
  switch (t) {
    case MutationType::kPut:
      return kPutCode;
    case MutationType::kDelete:
      return kDeleteCode;
    case MutationType::kAppend:
      return kAppendCode;
    default:
      return kWritableCode;  // No 0.94 equivalent; refused by CheckMutation.
  }
}

std::string_view MutationMethod(MutationType t) {
  switch (t) {
    case MutationType::kDelete:
      return "delete";
    case MutationType::kAppend:
      return "append";
    default:
      return "put";
  }
}

Status CheckMutation(const Mutation& m) {
  if (m.type == MutationType::kPut || m.type == MutationType::kDelete ||
      m.type == MutationType::kAppend)
    return Status::Ok();
  return Status::InvalidArgument(
      "writable: mutation type " + std::to_string(int(m.type)) +
      " has no HBase 0.94 Writable form (0.94's Increment carries 8-byte amounts, not cells); "
      "use put, delete or append");
}

// Put.write (and Append's, which has the same layout) or Delete.write.
template <typename S>
void WriteMutationBody(S& s, const Mutation& m) {
  const bool is_delete = m.type == MutationType::kDelete;
  s.U8(is_delete ? kDeleteVersion : kPutVersion);
  s.ByteArray(m.row);
  s.I64(m.timestamp);
  s.I64(kNoLock);
  s.Bool(true);  // writeToWAL.
  s.I32(uint32_t(FamilyRuns(m.cells)));
  ForEachFamilyRun(m.cells, [&](std::span<const Cell> run) {
    s.ByteArray(run[0].family);
    s.I32(uint32_t(run.size()));
    if (!is_delete) {
      // Put's extra total: KeyValue lengths without their 4-byte prefixes.
      uint64_t total = 0;
      for (const Cell& c : run) total += pb::KeyValueBytes(m.row, c) - 4;
      if (total > kMaxJavaInt) s.Fail("a family's cells exceed Put's 2 GiB limit");
      s.I32(uint32_t(total));
    }
    for (const Cell& c : run) s.KeyValue(m.row, c);
  });
  if (is_delete) s.I32(0);  // No attributes.
}

template <typename S>
void WriteGetBody(S& s, const GetRequest& g) {
  s.U8(kGetVersion);
  s.ByteArray(g.row);
  s.I64(kNoLock);
  s.I32(1);       // maxVersions.
  s.Bool(false);  // No filter.
  s.Bool(true);   // cacheBlocks.
  WriteTimeRange(s);
  s.I32(uint32_t(ColumnEntries(g.columns)));
  ForEachColumnEntry(g.columns, [&](std::span<const Column> entry) {
    s.ByteArray(entry[0].family);
    const bool has_columns = !entry[0].qualifier.empty();
    s.Bool(has_columns);
    if (has_columns) {
      s.I32(uint32_t(entry.size()));
      for (const Column& c : entry) s.ByteArray(c.qualifier);
    }
  });
  s.I32(0);  // No attributes.
}

template <typename S>
void WriteScanBody(S& s, const ScanRequest& req) {
  s.U8(kScanVersion);
  s.ByteArray(req.start_row);
  s.ByteArray(req.stop_row);
  s.I32(1);                   // maxVersions.
  s.I32(kMinusOne);           // batch: none.
  s.I32(req.number_of_rows);  // caching: the rows to return.
  s.Bool(true);               // cacheBlocks.
  s.Bool(false);              // No filter.
  WriteTimeRange(s);
  s.I32(uint32_t(ColumnEntries(req.columns)));
  ForEachColumnEntry(req.columns, [&](std::span<const Column> entry) {
    s.ByteArray(entry[0].family);
    // Scan writes 0 columns for a whole family.
    const bool whole_family = entry[0].qualifier.empty();
    s.I32(whole_family ? 0 : uint32_t(entry.size()));
    if (!whole_family)
      for (const Column& c : entry) s.ByteArray(c.qualifier);
  });
  s.I32(0);          // No attributes.
  s.I64(~uint64_t(0));  // maxResultSize -1: no limit.
}

// Result.write: i32 total (KeyValues with their prefixes), then the KeyValues.
template <typename S>
void WriteResultBody(S& s, const Result& r) {
  uint64_t total = 0;
  for (const Cell& c : r.cells) total += pb::KeyValueBytes(c.row, c);
  if (total > kMaxJavaInt) s.Fail("a Result's cells exceed its 2 GiB limit");
  s.I32(uint32_t(total));
  for (const Cell& c : r.cells) s.KeyValue(c.row, c);
}

// A Result declared as Result: a missing row is a null Result; a row found
// with no matching cells is an empty one.
template <typename S>
void WriteResultObject(S& s, const Result& r) {
  if (!r.exists && r.cells.empty()) {
    WriteNull(s, kResultCode);
    return;
  }
  WriteWritableHeader(s, kResultCode);
  WriteResultBody(s, r);
}

// ---- Decoding ----

// Java DataInput reads over a WireReader: views into the payload.
class JavaReader {
 public:
  explicit JavaReader(ByteView in) : r_(in) {}

  WireReader& wire() { return r_; }
  bool done() const { return r_.done(); }
  size_t remaining() const { return r_.remaining(); }

  bool U8(uint8_t* v) { return r_.U8(v); }
  // Strict: 0 or 1 (Java reads any non-zero byte as true; nothing here
  // writes other values, so anything else is corruption).
  bool Bool(bool* v) {
    uint8_t b;
    if (!r_.U8(&b) || b > 1) return false;
    *v = b == 1;
    return true;
  }
  bool I32(uint32_t* v) { return r_.U32BE(v); }
  // A count or length: a non-negative Java int.
  bool Count(uint32_t* v) { return r_.U32BE(v) && *v <= kMaxJavaInt; }
  bool I64(uint64_t* v) { return r_.U64BE(v); }
  // WritableUtils.readVLong, narrowed to an int as readVInt does.
  bool VInt(int32_t* v) {
    uint8_t first;
    if (!r_.U8(&first)) return false;
    const int8_t f = int8_t(first);
    if (f >= -112) {
      *v = f;
      return true;
    }
    const bool negative = f < -120;
    const int len = negative ? -120 - f : -112 - f;  // Bytes that follow.
    uint64_t x = 0;
    for (int i = 0; i < len; ++i) {
      uint8_t b;
      if (!r_.U8(&b)) return false;
      x = (x << 8) | b;
    }
    if (negative) x = ~x;
    const int64_t s = int64_t(x);
    if (s < INT32_MIN || s > INT32_MAX) return false;
    *v = int32_t(s);
    return true;
  }
  bool Code(ClassCode want) {
    int32_t c;
    return VInt(&c) && c == want;
  }
  // Bytes.readByteArray.
  bool ByteArray(ByteView* v) {
    int32_t n;
    return VInt(&n) && n >= 0 && r_.Bytes(size_t(n), v);
  }
  bool JavaString(ByteView* v) {
    uint32_t n;
    return Count(&n) && r_.Bytes(n, v);
  }
  bool Utf(ByteView* v) {
    uint16_t n;
    return r_.U16BE(&n) && r_.Bytes(n, v);
  }
  bool KeyValue(Cell* c) { return pb::ReadKeyValue(r_, c); }

 private:
  WireReader r_;
};

Status WritableMalformed(const char* what) {
  return Status::Corruption(std::string("writable: malformed ") + what +
                            " (truncated, corrupt, or not a wirebench Writable call)");
}

// Where a decoded message's cells or columns start in the scratch vectors;
// spans are made once every element is in (the vectors may move as they grow).
struct Slice {
  size_t first = 0;
  size_t count = 0;
};

template <typename T>
std::span<const T> SpanOf(const std::vector<T>& v, Slice s) {
  return std::span<const T>(v.data() + s.first, s.count);
}

class WritableCodec final : public CodecAdapter<WritableCodec> {
 public:
  WritableCodec() : CodecAdapter(CodecId(7), "writable", /*zero_copy_decode=*/true) {}

  // ---- Requests ----

  Status Encode(uint32_t, const MutateRequest& req, ByteBuffer* out) {
    const Mutation& m = req.mutation;
    WB_RETURN_IF_ERROR(CheckMutation(m));
    return Emit(out, [&](auto& s) {
      WriteInvocation(s, MutationMethod(m.type), 2);
      WriteRegionParam(s);
      WriteWritableHeader(s, MutationCode(m.type));
      WriteMutationBody(s, m);
    });
  }
  Status Encode(uint32_t, const GetRequest& req, ByteBuffer* out) {
    return Emit(out, [&](auto& s) {
      WriteInvocation(s, "get", 2);
      WriteRegionParam(s);
      WriteWritableHeader(s, kGetCode);
      WriteGetBody(s, req);
    });
  }
  Status Encode(uint32_t, const ScanRequest& req, ByteBuffer* out) {
    return Emit(out, [&](auto& s) {
      WriteInvocation(s, "openScanner", 2);
      WriteRegionParam(s);
      WriteWritableHeader(s, kScanCode);
      WriteScanBody(s, req);
    });
  }
  Status Encode(uint32_t, const MultiRequest& req, ByteBuffer* out) {
    for (const Action& a : req.actions) {
      if (a.kind == ActionKind::kMutation) {
        WB_RETURN_IF_ERROR(CheckMutation(a.mutation));
      } else if (a.kind != ActionKind::kGet) {
        return Status::InvalidArgument("writable: Multi action " + std::to_string(a.index) +
                                       " has unknown kind " + std::to_string(int(a.kind)));
      }
    }
    return Emit(out, [&](auto& s) {
      WriteInvocation(s, "multi", 1);
      WriteWritableHeader(s, kMultiActionCode);
      // MultiAction.write: a map from region to actions; all in one region.
      s.I32(req.actions.empty() ? 0 : 1);
      if (req.actions.empty()) return;
      s.ByteArray(AsBytes(kRegionName), /*payload=*/false);
      s.I32(uint32_t(req.actions.size()));
      for (const Action& a : req.actions) {
        WriteWritableHeader(s, kActionCode);
        // Action.write: the Row (declared as Row), the index, a null result.
        s.VInt(kRowCode);
        if (a.kind == ActionKind::kMutation) {
          s.VInt(MutationCode(a.mutation.type));
          WriteMutationBody(s, a.mutation);
        } else {
          s.VInt(kGetCode);
          WriteGetBody(s, a.get);
        }
        s.I32(a.index);
        WriteNull(s, kWritableCode);
      }
    });
  }

  Status Decode(ByteView payload, MutateRequest* req) {
    JavaReader r(payload);
    ByteView method;
    WB_RETURN_IF_ERROR(ReadInvocation(r, 2, &method));
    ClassCode code;
    if (method == AsBytes("put")) {
      code = kPutCode;
    } else if (method == AsBytes("delete")) {
      code = kDeleteCode;
    } else if (method == AsBytes("append")) {
      code = kAppendCode;
    } else {
      return Status::Corruption("writable: expected a put, delete or append call, got '" +
                                std::string(method.chars(), method.size()) + "'");
    }
    if (!ReadRegionParam(r) || !r.Code(code) || !r.Code(code)) return WritableMalformed("Mutate request");
    scratch_.cells.clear();
    Slice cells;
    if (!ReadMutationBody(r, code, &req->mutation, &cells) || !r.done())
      return WritableMalformed("Mutate request");
    req->mutation.cells = SpanOf(scratch_.cells, cells);
    return Status::Ok();
  }
  Status Decode(ByteView payload, GetRequest* req) {
    JavaReader r(payload);
    WB_RETURN_IF_ERROR(ReadInvocation(r, 2, "get"));
    scratch_.columns.clear();
    Slice columns;
    if (!ReadRegionParam(r) || !r.Code(kGetCode) || !r.Code(kGetCode) ||
        !ReadGetBody(r, &req->row, &columns) || !r.done())
      return WritableMalformed("Get request");
    req->columns = SpanOf(scratch_.columns, columns);
    return Status::Ok();
  }
  Status Decode(ByteView payload, ScanRequest* req) {
    JavaReader r(payload);
    WB_RETURN_IF_ERROR(ReadInvocation(r, 2, "openScanner"));
    scratch_.columns.clear();
    Slice columns;
    if (!ReadRegionParam(r) || !r.Code(kScanCode) || !r.Code(kScanCode) ||
        !ReadScanBody(r, req, &columns) || !r.done())
      return WritableMalformed("Scan request");
    req->columns = SpanOf(scratch_.columns, columns);
    return Status::Ok();
  }
  Status Decode(ByteView payload, MultiRequest* req) {
    JavaReader r(payload);
    WB_RETURN_IF_ERROR(ReadInvocation(r, 1, "multi"));
    if (!r.Code(kMultiActionCode) || !r.Code(kMultiActionCode)) return WritableMalformed("Multi request");
    scratch_.actions.clear();
    action_cells_.clear();
    action_columns_.clear();
    scratch_.cells.clear();
    scratch_.columns.clear();
    uint32_t regions;
    if (!r.Count(&regions)) return WritableMalformed("Multi request");
    for (uint32_t i = 0; i < regions; ++i) {
      ByteView region;
      uint32_t n;
      if (!r.ByteArray(&region) || !r.Count(&n)) return WritableMalformed("Multi request");
      for (uint32_t j = 0; j < n; ++j) {
        Action a;
        Slice cells, columns;
        int32_t code;
        if (!r.Code(kActionCode) || !r.Code(kActionCode) || !r.Code(kRowCode) || !r.VInt(&code))
          return WritableMalformed("Multi request action");
        if (code == kGetCode) {
          a.kind = ActionKind::kGet;
          if (!ReadGetBody(r, &a.get.row, &columns)) return WritableMalformed("Multi request Get");
        } else if (code == kPutCode || code == kDeleteCode || code == kAppendCode) {
          a.kind = ActionKind::kMutation;
          if (!ReadMutationBody(r, ClassCode(code), &a.mutation, &cells))
            return WritableMalformed("Multi request mutation");
        } else {
          return Status::Corruption("writable: Multi action of class code " +
                                    std::to_string(code) + " is neither a Get nor a mutation");
        }
        if (!r.I32(&a.index) || !r.Code(kWritableCode) || !r.Code(kNullInstanceCode) ||
            !r.Code(kWritableCode))
          return WritableMalformed("Multi request action");
        scratch_.actions.push_back(a);
        action_cells_.push_back(cells);
        action_columns_.push_back(columns);
      }
    }
    if (!r.done()) return WritableMalformed("Multi request");
    for (size_t i = 0; i < scratch_.actions.size(); ++i) {
      scratch_.actions[i].mutation.cells = SpanOf(scratch_.cells, action_cells_[i]);
      scratch_.actions[i].get.columns = SpanOf(scratch_.columns, action_columns_[i]);
    }
    req->actions = std::span<const Action>(scratch_.actions.data(), scratch_.actions.size());
    return Status::Ok();
  }

  // ---- Responses ----

  Status Encode(uint32_t, const MutateResponse& resp, ByteBuffer* out) {
    return Emit(out, [&](auto& s) {
      if (resp.processed) {
        WriteNull(s, kVoidCode);  // put() returns void.
      } else {
        s.VInt(kBooleanCode);  // checkAndPut()'s false.
        s.Bool(false);
      }
    });
  }
  Status Encode(uint32_t, const GetResponse& resp, ByteBuffer* out) {
    return Emit(out, [&](auto& s) { WriteResultObject(s, resp.result); });
  }
  Status Encode(uint32_t, const ScanResponse& resp, ByteBuffer* out) {
    return Emit(out, [&](auto& s) {
      // Result.writeArray, declared as Result[] (one code).
      s.VInt(kResultArrayCode);
      s.U8(kResultArrayVersion);
      s.I32(uint32_t(resp.results.size()));
      if (!resp.results.empty()) {
        uint64_t total = 0;
        for (const Result& r : resp.results) {
          total += 4;
          for (const Cell& c : r.cells) total += pb::KeyValueBytes(c.row, c);
        }
        if (total > kMaxJavaInt) s.Fail("a Result[]'s cells exceed its 2 GiB limit");
        s.I32(uint32_t(total));
        for (const Result& r : resp.results) {
          s.I32(uint32_t(r.cells.size()));
          for (const Cell& c : r.cells) s.KeyValue(c.row, c);
        }
      }
      s.Bool(resp.more_results);
    });
  }
  Status Encode(uint32_t, const MultiResponse& resp, ByteBuffer* out) {
    return Emit(out, [&](auto& s) {
      WriteWritableHeader(s, kMultiResponseCode);
      s.I32(resp.results.empty() ? 0 : 1);
      if (resp.results.empty()) return;
      s.ByteArray(AsBytes(kRegionName), /*payload=*/false);
      s.I32(uint32_t(resp.results.size()));
      for (const ActionResult& ar : resp.results) {
        s.I32(ar.index);
        s.Bool(!ar.ok);  // "is an exception".
        if (ar.ok) {
          WriteResultObject(s, ar.result);
        } else {
          s.JavaString(AsBytes(kExceptionClass), /*payload=*/false);
          s.JavaString(ar.error);
        }
      }
    });
  }

  Status Decode(ByteView payload, MutateResponse* resp) {
    JavaReader r(payload);
    int32_t code;
    if (!r.VInt(&code)) return WritableMalformed("Mutate response");
    if (code == kWritableCode) {
      if (!r.Code(kNullInstanceCode) || !r.Code(kVoidCode) || !r.done())
        return WritableMalformed("Mutate response");
      resp->processed = true;
    } else if (code == kBooleanCode) {
      if (!r.Bool(&resp->processed) || !r.done()) return WritableMalformed("Mutate response");
    } else {
      return WritableMalformed("Mutate response");
    }
    return Status::Ok();
  }
  Status Decode(ByteView payload, GetResponse* resp) {
    JavaReader r(payload);
    scratch_.cells.clear();
    Slice cells;
    if (!ReadResultObject(r, &resp->result, &cells) || !r.done())
      return WritableMalformed("Get response");
    resp->result.cells = SpanOf(scratch_.cells, cells);
    return Status::Ok();
  }
  Status Decode(ByteView payload, ScanResponse* resp) {
    JavaReader r(payload);
    uint8_t version;
    uint32_t n;
    if (!r.Code(kResultArrayCode) || !r.U8(&version) || version != kResultArrayVersion ||
        !r.Count(&n))
      return WritableMalformed("Scan response");
    scratch_.results.clear();
    result_cells_.clear();
    scratch_.cells.clear();
    if (n > 0) {
      uint32_t total;
      if (!r.Count(&total) || total > r.remaining()) return WritableMalformed("Scan response");
      const size_t end = r.remaining() - total;
      for (uint32_t i = 0; i < n; ++i) {
        uint32_t ncells;
        if (!r.Count(&ncells)) return WritableMalformed("Scan response");
        Slice cells{scratch_.cells.size(), 0};
        for (uint32_t j = 0; j < ncells; ++j) {
          Cell c;
          if (!r.KeyValue(&c)) return WritableMalformed("Scan response cell");
          scratch_.cells.push_back(c);
        }
        cells.count = ncells;
        scratch_.results.push_back(Result{{}, true});  // A scan returns rows that exist.
        result_cells_.push_back(cells);
      }
      if (r.remaining() != end) return WritableMalformed("Scan response (length disagrees)");
    }
    if (!r.Bool(&resp->more_results) || !r.done()) return WritableMalformed("Scan response");
    for (size_t i = 0; i < scratch_.results.size(); ++i)
      scratch_.results[i].cells = SpanOf(scratch_.cells, result_cells_[i]);
    resp->results = std::span<const Result>(scratch_.results.data(), scratch_.results.size());
    return Status::Ok();
  }
  Status Decode(ByteView payload, MultiResponse* resp) {
    JavaReader r(payload);
    if (!r.Code(kMultiResponseCode) || !r.Code(kMultiResponseCode))
      return WritableMalformed("Multi response");
    scratch_.action_results.clear();
    result_cells_.clear();
    scratch_.cells.clear();
    uint32_t regions;
    if (!r.Count(&regions)) return WritableMalformed("Multi response");
    for (uint32_t i = 0; i < regions; ++i) {
      ByteView region;
      uint32_t n;
      if (!r.ByteArray(&region) || !r.Count(&n)) return WritableMalformed("Multi response");
      for (uint32_t j = 0; j < n; ++j) {
        ActionResult ar;
        Slice cells{scratch_.cells.size(), 0};
        bool failed;
        if (!r.I32(&ar.index) || !r.Bool(&failed)) return WritableMalformed("Multi response result");
        ar.ok = !failed;
        if (failed) {
          ByteView exception_class;
          if (!r.JavaString(&exception_class) || !r.JavaString(&ar.error))
            return WritableMalformed("Multi response exception");
        } else if (!ReadResultObject(r, &ar.result, &cells)) {
          return WritableMalformed("Multi response result");
        }
        scratch_.action_results.push_back(ar);
        result_cells_.push_back(cells);
      }
    }
    if (!r.done()) return WritableMalformed("Multi response");
    for (size_t i = 0; i < scratch_.action_results.size(); ++i)
      scratch_.action_results[i].result.cells = SpanOf(scratch_.cells, result_cells_[i]);
    resp->results = std::span<const ActionResult>(scratch_.action_results.data(), scratch_.action_results.size());
    return Status::Ok();
  }

 private:
  // Sizes the payload, reserves it once, writes it.
  template <typename F>
  Status Emit(ByteBuffer* out, F write) {
    Sizer sizer;
    write(sizer);
    WB_RETURN_IF_ERROR(sizer.status());
    Writer writer(out, sizer.size());
    write(writer);
    return Status::Ok();
  }

  static Status ReadInvocation(JavaReader& r, uint32_t params, ByteView* method) {
    uint8_t version;
    uint64_t client_version;
    uint32_t hash, n;
    if (!r.U8(&version) || version != kInvocationVersion || !r.Utf(method) ||
        !r.I64(&client_version) || !r.I32(&hash) || !r.Count(&n))
      return WritableMalformed("Invocation");
    if (n != params)
      return Status::Corruption("writable: call has " + std::to_string(n) +
                                " parameters, expected " + std::to_string(params));
    return Status::Ok();
  }
  static Status ReadInvocation(JavaReader& r, uint32_t params, std::string_view want) {
    ByteView method;
    WB_RETURN_IF_ERROR(ReadInvocation(r, params, &method));
    if (!(method == AsBytes(want)))
      return Status::Corruption("writable: expected a " + std::string(want) + " call, got '" +
                                std::string(method.chars(), method.size()) + "'");
    return Status::Ok();
  }

  static bool ReadRegionParam(JavaReader& r) {
    ByteView region;
    return r.Code(kByteArrayCode) && r.ByteArray(&region);
  }

  // OperationWithAttributes.readAttributes: skipped.
  static bool SkipAttributes(JavaReader& r) {
    uint32_t n;
    if (!r.Count(&n)) return false;
    for (uint32_t i = 0; i < n; ++i) {
      ByteView name, value;
      if (!r.JavaString(&name) || !r.ByteArray(&value)) return false;
    }
    return true;
  }

  static bool SkipTimeRange(JavaReader& r) {
    uint64_t min, max;
    bool all;
    return r.I64(&min) && r.I64(&max) && r.Bool(&all);
  }

  // Put/Append.readFields or Delete.readFields, by class code.
  bool ReadMutationBody(JavaReader& r, ClassCode code, Mutation* m, Slice* cells) {
    const bool is_delete = code == kDeleteCode;
    uint8_t version;
    uint64_t lock;
    bool wal = true;
    uint32_t families;
    if (!r.U8(&version) || version < 1 || version > (is_delete ? kDeleteVersion : 2) ||
        !r.ByteArray(&m->row) || !r.I64(&m->timestamp) || !r.I64(&lock))
      return false;
    // Delete versions 1 and 2 predate writeToWAL.
    if ((!is_delete || version > 2) && !r.Bool(&wal)) return false;
    if (!r.Count(&families)) return false;
    m->type = is_delete ? MutationType::kDelete
                        : code == kAppendCode ? MutationType::kAppend : MutationType::kPut;
    cells->first = scratch_.cells.size();
    for (uint32_t i = 0; i < families; ++i) {
      ByteView family;
      uint32_t n, total = 0;
      if (!r.ByteArray(&family) || !r.Count(&n) || (!is_delete && !r.Count(&total)))
        return false;
      const size_t start = r.remaining();
      for (uint32_t j = 0; j < n; ++j) {
        Cell c;
        // Every KeyValue of a Put or Delete is of its row (0.94's Put.add
        // refused others); the encoder writes the mutation's row in each.
        if (!r.KeyValue(&c) || !(c.row == m->row)) return false;
        scratch_.cells.push_back(c);
      }
      // Put's total leaves out the KeyValues' 4-byte lengths.
      if (!is_delete && uint64_t(start - r.remaining()) != uint64_t(total) + 4ull * n)
        return false;
    }
    cells->count = scratch_.cells.size() - cells->first;
    return version < 2 || SkipAttributes(r);
  }

  bool ReadGetBody(JavaReader& r, ByteView* row, Slice* columns) {
    uint8_t version;
    uint64_t lock;
    uint32_t max_versions, families;
    bool filter, cache_blocks;
    if (!r.U8(&version) || version < 1 || version > kGetVersion || !r.ByteArray(row) ||
        !r.I64(&lock) || !r.I32(&max_versions) || !r.Bool(&filter) || filter ||
        !r.Bool(&cache_blocks) || !SkipTimeRange(r) || !r.Count(&families))
      return false;
    columns->first = scratch_.columns.size();
    for (uint32_t i = 0; i < families; ++i) {
      ByteView family;
      bool has_columns;
      if (!r.ByteArray(&family) || !r.Bool(&has_columns)) return false;
      if (!has_columns) {
        scratch_.columns.push_back(Column{family, {}});
        continue;
      }
      uint32_t n;
      if (!r.Count(&n)) return false;
      for (uint32_t j = 0; j < n; ++j) {
        ByteView qualifier;
        if (!r.ByteArray(&qualifier)) return false;
        scratch_.columns.push_back(Column{family, qualifier});
      }
    }
    columns->count = scratch_.columns.size() - columns->first;
    return version < 2 || SkipAttributes(r);
  }

  bool ReadScanBody(JavaReader& r, ScanRequest* s, Slice* columns) {
    uint8_t version;
    uint32_t max_versions, batch, families;
    bool cache_blocks, filter;
    if (!r.U8(&version) || version < 1 || version > kScanVersion || !r.ByteArray(&s->start_row) ||
        !r.ByteArray(&s->stop_row) || !r.I32(&max_versions) || !r.I32(&batch) ||
        !r.I32(&s->number_of_rows) || !r.Bool(&cache_blocks) || !r.Bool(&filter) || filter ||
        !SkipTimeRange(r) || !r.Count(&families))
      return false;
    columns->first = scratch_.columns.size();
    for (uint32_t i = 0; i < families; ++i) {
      ByteView family;
      uint32_t n;
      if (!r.ByteArray(&family) || !r.Count(&n)) return false;
      if (n == 0) scratch_.columns.push_back(Column{family, {}});
      for (uint32_t j = 0; j < n; ++j) {
        ByteView qualifier;
        if (!r.ByteArray(&qualifier)) return false;
        scratch_.columns.push_back(Column{family, qualifier});
      }
    }
    columns->count = scratch_.columns.size() - columns->first;
    uint64_t max_result_size;
    return (version < 2 || SkipAttributes(r)) && (version < 3 || r.I64(&max_result_size));
  }

  // A Result declared as Result, or a null one.
  bool ReadResultObject(JavaReader& r, Result* out, Slice* cells) {
    int32_t code;
    if (!r.VInt(&code)) return false;
    *out = Result{};
    cells->first = scratch_.cells.size();
    cells->count = 0;
    if (code == kWritableCode) return r.Code(kNullInstanceCode) && r.Code(kResultCode);
    uint32_t total;
    if (code != kResultCode || !r.Code(kResultCode) || !r.Count(&total) ||
        total > r.remaining())
      return false;
    out->exists = true;
    const size_t end = r.remaining() - total;
    while (r.remaining() > end) {
      Cell c;
      if (!r.KeyValue(&c)) return false;
      scratch_.cells.push_back(c);
    }
    cells->count = scratch_.cells.size() - cells->first;
    return r.remaining() == end;
  }

  DecodeScratch scratch_;
  std::vector<Slice> action_cells_;
  std::vector<Slice> action_columns_;
  std::vector<Slice> result_cells_;
};

}  // namespace

std::unique_ptr<Codec> NewWritableCodec() { return std::make_unique<WritableCodec>(); }

}  // namespace wirebench
