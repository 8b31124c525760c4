#include "transports/hbase/hbase_calls.h"

#include "transports/hbase/fast_reader.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>

#include "codecs/codec.h"
#include "codecs/pb/key_value.h"
#include "codecs/pb/pb_wire.h"
#include "codecs/wire_reader.h"
#include "common/callgrind_marks.h"
#include "common/protocol.h"

namespace wirebench::hbaserpc {

namespace pbw = hbasewire;
using pb::ProtoReader;
using pb::WireType;

namespace {

constexpr uint32_t kMaxBatchRows = 10000;      // Rows one Scan reply carries at most.
constexpr size_t kMaxRowBytes = 32767;         // HBase's Short.MAX_VALUE.
constexpr size_t kMaxFamilyBytes = 127;        // HBase's Byte.MAX_VALUE.

bool IsMetaRegion(ByteView name) {
  constexpr std::string_view kPrefix = "hbase:meta,";
  return name.size() >= kPrefix.size() && std::memcmp(name.data(), kPrefix.data(), kPrefix.size()) == 0;
}

// The table a region name names: the part before the first ','.
// (An empty name may have no data pointer at all: no memchr on it.)
std::string_view TableOf(std::string_view region_name) {
  const size_t comma = region_name.find(',');
  return comma == std::string_view::npos ? std::string_view() : region_name.substr(0, comma);
}

// The start key of region `i` of `n` of a table: "" for the first, else
// HBase's HexStringSplit point (the 32-bit space in n equal parts, 8
// lowercase hex digits).
std::string SplitPoint(uint32_t i, uint32_t n) {
  if (i == 0 || n <= 1) return std::string();
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%08llx",
                static_cast<unsigned long long>((uint64_t{1} << 32) * i / n));
  return buf;
}

// The catalog's row (and the region's name) for region `i` of `table`.
std::string RegionRow(std::string_view table, uint32_t i, uint32_t n) {
  return std::string(table) + "," + SplitPoint(i, n) + "," + std::to_string(kUserRegionId);
}

// Which of the table's n regions a region name names; -1 when none.
int RegionIndex(std::string_view name, uint32_t n) {
  const std::string_view table = TableOf(name);
  if (table.empty()) return -1;
  const size_t last = name.rfind(',');
  if (last == std::string_view::npos || last <= table.size()) return -1;
  const std::string_view start = name.substr(table.size() + 1, last - table.size() - 1);
  for (uint32_t i = 0; i < n; ++i)
    if (SplitPoint(i, n) == start) return int(i);
  return -1;
}

// The region (of n) holding `row`.
uint32_t RegionOfRow(std::string_view row, uint32_t n) {
  uint32_t i = 0;
  while (i + 1 < n && row >= SplitPoint(i + 1, n)) ++i;
  return i;
}

std::string BigEndian64(uint64_t v) {
  std::string s(8, '\0');
  StoreBE64(reinterpret_cast<uint8_t*>(s.data()), v);
  return s;
}

void SetTableName(std::string_view table, pbw::TableName* t) {
  const size_t colon = table.find(':');
  if (colon == std::string_view::npos) {
    t->set_namespace_("default");
    t->set_qualifier(std::string(table));
  } else {
    t->set_namespace_(std::string(table.substr(0, colon)));
    t->set_qualifier(std::string(table.substr(colon + 1)));
  }
}

void SetServerName(const ServerIdentity& id, pbw::ServerName* s) {
  s->set_host_name(id.host);
  s->set_port(id.port);
  s->set_start_code(id.start_code);
}

void MetaRegionInfo(pbw::RegionInfo* ri) {
  ri->set_region_id(1);
  SetTableName(kMetaTable, ri->mutable_table_name());
  ri->set_start_key("");
  ri->set_end_key("");
  ri->set_offline(false);
  ri->set_split(false);
  ri->set_replica_id(0);
}

// ---- Eligibility for the codec's own handler ----
// The hot path of every call: a reader for HBase's small messages whose
// tags and most varints are one byte (field numbers below 16), falling back
// to the general varint only when a value needs more. No allocation.
// A region the codec may answer: any but the catalog. The RegionSpecifier
// as every HBase client writes it, {type: REGION_NAME, value: name} (08 01
// 12 <n> name), is checked in place; any other layout field by field.
bool PlainRegion(ByteView spec, ByteView* region_name) {
  ByteView name;
  if (spec.size() >= 4 && spec[0] == 0x08 && spec[1] == 0x01 && spec[2] == 0x12 &&
      spec[3] < 0x80 && size_t(spec[3]) + 4 == spec.size()) {
    name = spec.Sub(4, spec[3]);
  } else {
    Fast r(spec);
    while (!r.done()) {
      uint32_t f, wt;
      if (!r.Tag(&f, &wt)) return false;
      if (f == 2 && wt == 2) {
        if (!r.Len(&name)) return false;
      } else if (!r.Skip(wt)) {
        return false;
      }
    }
  }
  *region_name = name;
  // Only a name starting with 'h' can be the catalog's.
  return !name.empty() && !(name[0] == 'h' && IsMetaRegion(name));
}

// A put or delete the codec maps as it is: no increment/append, and cells
// where the codec expects them (the cellblock codec refuses column_value).
bool PlainMutation(ByteView m, bool cell_blocks) {
  Fast r(m);
  uint64_t type = ~uint64_t{0};
  while (!r.done()) {
    uint32_t f, wt;
    if (!r.Tag(&f, &wt)) return false;
    if (f == 2 && wt == 0) {
      if (!r.Varint(&type)) return false;
      continue;
    }
    if ((f == 3 && cell_blocks) || f == 5 || f == 7) return false;  // Attributes, time range: full path.
    if ((f == 1 || f == 3) && wt == 2) {
      // A row or a family too long for a KeyValue: the full path refuses it.
      ByteView b;
      if (!r.Len(&b) || (f == 1 && b.size() > kMaxRowBytes)) return false;
      if (f == 3 && b.size() > 2 && b[0] == 0x0A) {  // ColumnValue.family first, as clients write it.
        Fast cv(b);
        uint32_t f2, wt2;
        ByteView family;
        if (!cv.Tag(&f2, &wt2) || !cv.Len(&family) || family.size() > kMaxFamilyBytes) return false;
      } else if (f == 3) {
        return false;
      }
      continue;
    }
    if (!r.Skip(wt)) return false;
  }
  return type == 2 || type == 3;
}

// A Get without a filter, existence_only, closest_row_before, a time range
// or a max_versions other than 1 (the codecs carry none of these).
bool PlainGet(ByteView g) {
  Fast r(g);
  while (!r.done()) {
    uint32_t f, wt;
    if (!r.Tag(&f, &wt)) return false;
    if (f == 4 || f == 10 || f == 11) return false;
    if (f == 5 && wt == 2) {  // A time range: plain only when empty (all of time).
      ByteView tr;
      if (!r.Len(&tr) || !tr.empty()) return false;
      continue;
    }
    if (f == 6 && wt == 0) {
      uint64_t v;
      if (!r.Varint(&v) || v != 1) return false;
      continue;
    }
    if (!r.Skip(wt)) return false;
  }
  return true;
}

bool PlainAction(ByteView a, bool cell_blocks) {
  Fast r(a);
  while (!r.done()) {
    uint32_t f, wt;
    if (!r.Tag(&f, &wt)) return false;
    ByteView sub;
    if (wt == 2 && (f == 2 || f == 3)) {
      if (!r.Len(&sub)) return false;
      if (f == 2 ? !PlainMutation(sub, cell_blocks) : !PlainGet(sub)) return false;
      continue;
    }
    if (f == 4) return false;  // A coprocessor service call.
    if (!r.Skip(wt)) return false;
  }
  return true;
}

// `region_name`: the region the call names (a view into `param`).
bool PlainParam(Method m, ByteView param, bool cell_blocks, ByteView* region_name) {
  Fast r(param);
  int region_actions = 0;
  bool region_ok = m == Method::kMulti;
  while (!r.done()) {
    uint32_t f, wt;
    if (!r.Tag(&f, &wt)) return false;
    ByteView sub;
    if (wt != 2) {
      if (!r.Skip(wt)) return false;
      continue;
    }
    if (!r.Len(&sub)) return false;
    switch (m) {
      case Method::kMutate:
        if (f == 1) region_ok = PlainRegion(sub, region_name);
        if (f == 2 && !PlainMutation(sub, cell_blocks)) return false;
        if (f == 3) return false;  // A condition.
        break;
      case Method::kGet:
        if (f == 1) region_ok = PlainRegion(sub, region_name);
        if (f == 2 && !PlainGet(sub)) return false;
        break;
      case Method::kMulti: {
        if (f == 3) return false;  // A condition.
        if (f != 1) break;
        if (++region_actions > 1) return false;
        Fast ra(sub);
        while (!ra.done()) {
          uint32_t f2, wt2;
          if (!ra.Tag(&f2, &wt2)) return false;
          ByteView sub2;
          if (wt2 != 2) {
            if (!ra.Skip(wt2)) return false;
            continue;
          }
          if (!ra.Len(&sub2)) return false;
          if (f2 == 1 && !PlainRegion(sub2, region_name)) return false;
          if (f2 == 3 && !PlainAction(sub2, cell_blocks)) return false;
          if (f2 == 4) return false;  // A condition.
        }
        break;
      }
      default:
        return false;
    }
  }
  return region_ok;
}

// ClientService's four data methods by name, without a library call.
Method MethodOf(std::string_view n) {
  switch (n.size()) {
    case 3: return n[0] == 'G' && n[1] == 'e' && n[2] == 't' ? Method::kGet : Method(0);
    case 4:
      return n[0] == 'S' && n[1] == 'c' && n[2] == 'a' && n[3] == 'n' ? Method::kScan : Method(0);
    case 5:
      return n[0] == 'M' && n[1] == 'u' && n[2] == 'l' && n[3] == 't' && n[4] == 'i'
                 ? Method::kMulti
                 : Method(0);
    case 6:
      return n[0] == 'M' && n[1] == 'u' && n[2] == 't' && n[3] == 'a' && n[4] == 't' &&
                     n[5] == 'e'
                 ? Method::kMutate
                 : Method(0);
    default: return Method(0);
  }
}

// A TimeRange message (HBase.proto) as the model's; all of time when empty.
StatusOr<TimeRange> ReadTimeRange(const std::string& bytes) {
  TimeRange tr;
  if (bytes.empty()) return tr;
  pbw::TimeRange p;
  if (!p.ParseFromString(bytes)) return Status::InvalidArgument("malformed TimeRange");
  if (p.has_from()) tr.min = p.from();
  if (p.has_to()) tr.max = p.to();
  if (tr.max < tr.min)
    return Status::InvalidArgument("TimeRange: maxStamp " + std::to_string(tr.max) +
                                   " is smaller than minStamp " + std::to_string(tr.min));
  return tr;
}

}  // namespace

// ---- The call ----

struct CallHandler::Call {
  uint32_t id = kNoCallId;
  std::string_view method;
  bool has_param = false;
  ByteView param;
  ByteView block;
};

CallHandler::CallHandler(HBaseService* service, StatsSource* stats_source, HBaseIoStats* stats,
                         bool cell_blocks, bool meta_service)
    : service_(service),
      stats_source_(stats_source),
      stats_(stats),
      cell_blocks_(cell_blocks),
      meta_service_(meta_service),
      owner_(service->NewOwner()) {
  if (!meta_service_ && service_->codec_service() != nullptr) {
    auto h = service_->codec_service()->NewCallHandler(
        uint8_t(cell_blocks_ ? CodecId::kCellBlock : CodecId::kPb));
    if (h.ok()) {
      // A RegionService's handlers place requests in a table; any other
      // service's calls take the full path.
      std::unique_ptr<rpc::CallHandler> handler = std::move(h).value();
      if (auto* t = dynamic_cast<TableCallHandler*>(handler.get())) {
        handler.release();
        fast_.reset(t);
      }
    }
  }
}

CallHandler::~CallHandler() = default;

void CallHandler::Fail(uint32_t call_id, std::string_view exception_class,
                       std::string_view message, bool do_not_retry, ByteBuffer* out) {
  BumpShared(stats_->failed_calls, 1);
  AppendExceptionReply(call_id, exception_class, message, do_not_retry, out);
}

void CallHandler::Reply(uint32_t call_id, const google::protobuf::MessageLite& resp,
                        ByteBuffer* out) {
  pbw::ResponseHeader h;
  h.set_call_id(call_id);
  if (!block_.empty()) h.mutable_cell_block_meta()->set_length(uint32_t(block_.size()));
  const size_t hs = h.ByteSizeLong(), rs = resp.ByteSizeLong();
  const size_t total = pb::VarintSize(hs) + hs + pb::VarintSize(rs) + rs + block_.size();
  uint8_t* p = out->Extend(4 + total);
  StoreBE32(p, uint32_t(total));
  p = pb::WriteVarint(p + 4, hs);
  p = h.SerializeWithCachedSizesToArray(p);
  p = pb::WriteVarint(p, rs);
  p = resp.SerializeWithCachedSizesToArray(p);
  if (!block_.empty()) std::memcpy(p, block_.data(), block_.size());
  block_.Clear();
  BumpShared(stats_->frames_out, 1);
}

bool CallHandler::Handle(ByteView body, ByteBuffer* out) {
  block_.Clear();
  deferred_ = false;
  Call c;
  ByteView header;
  ByteView rest = body;
  if (!FastDelimited(&rest, &header)) {
    Fail(kNoCallId, exceptions::kDoNotRetry, "cannot read the RequestHeader of a call", true, out);
    return true;
  }
  uint64_t block_len = 0;
  bool has_block = false;
  bool header_ok = true;
  {
    Fast r(header);
    while (header_ok && !r.done()) {
      uint32_t f, wt;
      if (!r.Tag(&f, &wt)) {
        header_ok = false;
        break;
      }
      uint64_t v;
      ByteView b;
      if (f == 1 && wt == 0) {
        header_ok = r.Varint(&v);
        c.id = uint32_t(v);
      } else if (f == 3 && wt == 2) {
        header_ok = r.Len(&b);
        c.method = b.str();
      } else if (f == 4 && wt == 0) {
        header_ok = r.Varint(&v);
        c.has_param = v != 0;
      } else if (f == 5 && wt == 2) {
        header_ok = r.Len(&b);
        has_block = true;
        Fast m(b);
        while (header_ok && !m.done()) {
          uint32_t f2, wt2;
          header_ok = m.Tag(&f2, &wt2) && (f2 == 1 && wt2 == 0 ? m.Varint(&block_len) : m.Skip(wt2));
        }
      } else {
        header_ok = r.Skip(wt);
      }
    }
  }
  if (!header_ok) {
    Fail(c.id, exceptions::kDoNotRetry, "malformed RequestHeader", true, out);
    return true;
  }
  if (!c.has_param) {
    Fail(c.id, exceptions::kDoNotRetry,
         "Invalid request header: method " + std::string(c.method) +
             ", should have param set in it",
         true, out);
    return true;
  }
  if (!FastDelimited(&rest, &c.param)) {
    Fail(c.id, exceptions::kDoNotRetry,
         "unable to read call parameter: the " + std::string(c.method) + " param is cut short",
         true, out);
    return true;
  }
  if (has_block) {
    if (block_len > rest.size()) {
      Fail(c.id, exceptions::kDoNotRetry,
           "unable to read call parameter: cell_block_meta.length is " + std::to_string(block_len) +
               " but only " + std::to_string(rest.size()) + " bytes follow the param",
           true, out);
      return true;
    }
    c.block = rest.Sub(0, size_t(block_len));
  }
  const Method m = MethodOf(c.method);
  if (m == Method(0) && (c.method == "WirebenchStats" || c.method == "WirebenchPing")) {
    HandleWirebench(c, out);
    return true;
  }
  if (meta_service_) {
    BumpShared(stats_->registry_calls, 1);
    HandleMeta(c, out);
    return true;
  }
  if (m != Method(0)) {
    BumpShared(stats_->calls[uint8_t(m)], 1);
    // With several regions per table the full path checks each row's region.
    ByteView region_name;
    if (fast_ && service_->regions_per_table() == 1 &&
        PlainParam(m, c.param, cell_blocks_, &region_name)) {
      // The codec's requests are in the region's table (c.param holds the name).
      fast_->set_table(ByteView(TableOf(region_name.str())));
      if (TryFast(m, c, body, out)) return true;
    }
  }
  HandleClient(c, out);
  if (deferred_) {
    // Counted again when it runs.
    if (m != Method(0)) BumpShared(stats_->calls[uint8_t(m)], uint64_t(0) - 1);
    return false;
  }
  return true;
}

bool CallHandler::TryFast(Method m, const Call& c, ByteView body, ByteBuffer* out) {
  const size_t start = out->size();
  out->Extend(4);
  rpc::FrameHeader h;
  h.call_id = c.id;
  h.method = uint8_t(m);
  rpc::CallOutcome outcome;
  fast_->Handle(h, body, out, &outcome);
  if (outcome.status == CallStatus::kBadRequest) {  // Not decoded: the full path answers.
    out->Resize(start);
    return false;
  }
  if (outcome.status != CallStatus::kOk) {
    out->Resize(start);
    Fail(c.id, exceptions::kIOException, outcome.error, false, out);
    return true;
  }
  StoreBE32(out->data() + start, uint32_t(out->size() - start - 4));
  BumpShared(stats_->fast_calls, 1);
  BumpShared(stats_->frames_out, 1);
  return true;
}

void CallHandler::HandleWirebench(const Call& c, ByteBuffer* out) {
  pbw::WirebenchBlob in, reply;
  if (!in.ParseFromArray(c.param.data(), int(c.param.size()))) {
    Fail(c.id, exceptions::kDoNotRetry, "malformed " + std::string(c.method) + " param", true,
         out);
    return;
  }
  if (c.method == "WirebenchPing") {
    BumpShared(stats_->calls[uint8_t(Method::kPing)], 1);
    reply.set_data(in.data());
    Reply(c.id, reply, out);
    return;
  }
  BumpShared(stats_->calls[uint8_t(Method::kStats)], 1);
  // The instrument's own work is left out of this thread's counts, as the
  // rpc server does for its Stats method.
  const CounterTotals at_entry = ThisThreadTotals();
  callgrind::EndPhase(callgrind::kServerStatsLabel);
  {
    reply.set_data(stats_source_ ? stats_source_->StatsReply(at_entry) : "{}");
    Reply(c.id, reply, out);
    pbw::WirebenchBlob().Swap(&reply);
  }
  callgrind::StartPhase();
  ExcludeFromThisThread(ThisThreadTotals() - at_entry);
}

// ---- ClientMetaService (the RPC connection registry) ----

void CallHandler::HandleMeta(const Call& c, ByteBuffer* out) {
  const ServerIdentity& id = service_->identity();
  if (c.method == "GetClusterId") {
    pbw::GetClusterIdResponse r;
    r.set_cluster_id(id.cluster_id);
    return Reply(c.id, r, out);
  }
  if (c.method == "GetActiveMaster") {
    pbw::GetActiveMasterResponse r;
    SetServerName(id, r.mutable_server_name());
    return Reply(c.id, r, out);
  }
  if (c.method == "GetMasters") {
    pbw::GetMastersResponse r;
    auto* e = r.add_master_servers();
    SetServerName(id, e->mutable_server_name());
    e->set_is_active(true);
    return Reply(c.id, r, out);
  }
  if (c.method == "GetMetaRegionLocations") {
    pbw::GetMetaRegionLocationsResponse r;
    auto* loc = r.add_meta_locations();
    MetaRegionInfo(loc->mutable_region_info());
    SetServerName(id, loc->mutable_server_name());
    loc->set_seq_num(0);
    return Reply(c.id, r, out);
  }
  if (c.method == "GetBootstrapNodes") {
    pbw::GetBootstrapNodesResponse r;
    SetServerName(id, r.add_server_name());
    return Reply(c.id, r, out);
  }
  BumpShared(stats_->other_calls, 1);
  Fail(c.id, exceptions::kDoNotRetry,
       "java.lang.UnsupportedOperationException: " + std::string(c.method) +
           " (ClientMetaService has GetClusterId, GetActiveMaster, GetMasters, "
           "GetMetaRegionLocations and GetBootstrapNodes)",
       true, out);
}

// ---- ClientService ----

void CallHandler::HandleClient(const Call& c, ByteBuffer* out) {
  Status s;
  auto answer = [&](auto& resp, auto&& run) {
    s = run(&resp);
    if (s.ok()) return Reply(c.id, resp, out);
    block_.Clear();
    if (deferred_) return;  // Handed back unanswered (see Handle).
    // The caller's mistakes are not retried; the region's own failures are.
    const bool callers = s.code() == Status::Code::kInvalidArgument ||
                         s.code() == Status::Code::kCorruption ||
                         s.code() == Status::Code::kUnimplemented;
    std::string_view cls = callers ? exceptions::kDoNotRetry : exceptions::kIOException;
    bool dnr = callers;
    std::string msg(s.message());
    // A status may name the exception class HBase would send: "Class: text".
    for (std::string_view known :
         {exceptions::kNotServingRegion, exceptions::kUnknownScanner,
          exceptions::kOutOfOrderScannerNext, exceptions::kUnknownProtocol,
          exceptions::kIOException, exceptions::kRegionTooBusy}) {
      if (msg.compare(0, known.size(), known) == 0 && msg.size() > known.size() + 1 &&
          msg[known.size()] == ':') {
        cls = known;
        msg = msg.substr(known.size() + 2);
        dnr = known != exceptions::kIOException && known != exceptions::kNotServingRegion &&
              known != exceptions::kRegionTooBusy;
        break;
      }
    }
    Fail(c.id, cls, msg, dnr, out);
  };
  if (c.method == "Get") {
    pbw::GetResponse resp;
    return answer(resp, [&](pbw::GetResponse* r) { return DoGet(c, r); });
  }
  if (c.method == "Mutate") {
    pbw::MutateResponse resp;
    return answer(resp, [&](pbw::MutateResponse* r) { return DoMutate(c, r); });
  }
  if (c.method == "Multi") {
    pbw::MultiResponse resp;
    return answer(resp, [&](pbw::MultiResponse* r) { return DoMulti(c, r); });
  }
  if (c.method == "Scan") {
    pbw::ScanResponse resp;
    return answer(resp, [&](pbw::ScanResponse* r) { return DoScan(c, r); });
  }
  BumpShared(stats_->other_calls, 1);
  if (c.method == "ExecService" || c.method == "ExecRegionServerService") {
    return Fail(c.id, exceptions::kUnknownProtocol,
                "No registered coprocessor service found for the " + std::string(c.method) +
                    " call: wirebench runs no coprocessors",
                true, out);
  }
  if (c.method == "BulkLoadHFile" || c.method == "PrepareBulkLoad" ||
      c.method == "CleanupBulkLoad") {
    return Fail(c.id, exceptions::kDoNotRetry,
                std::string(c.method) +
                    " is not served: wirebench's region has no store files to load into",
                true, out);
  }
  Fail(c.id, exceptions::kDoNotRetry,
       "java.lang.UnsupportedOperationException: " + std::string(c.method) +
           " (ClientService methods served: Get, Mutate, Multi, Scan)",
       true, out);
}

void CallHandler::EmitResult(const Result& r, ByteView row, pbw::Result* out) {
  if (cell_blocks_) {
    size_t bytes = 0;
    for (const Cell& cell : r.cells) bytes += pb::KeyValueBytes(row.empty() ? cell.row : row, cell);
    uint8_t* p = block_.Extend(bytes);
    for (const Cell& cell : r.cells) p = pb::WriteKeyValue(p, row.empty() ? cell.row : row, cell);
    out->set_associated_cell_count(int32_t(r.cells.size()));
  } else {
    for (const Cell& cell : r.cells) {
      pbw::Cell* pc = out->add_cell();
      const ByteView rr = row.empty() ? cell.row : row;
      pc->set_row(rr.data(), rr.size());
      pc->set_family(cell.family.data(), cell.family.size());
      pc->set_qualifier(cell.qualifier.data(), cell.qualifier.size());
      pc->set_timestamp(cell.timestamp);
      pc->set_cell_type(pbw::CellType(uint8_t(cell.type)));
      pc->set_value(cell.value.data(), cell.value.size());
    }
  }
  if (r.cells.empty() && r.exists) out->set_exists(true);
}

void CallHandler::TableStateRow(ByteView row, pbw::Result* out) {
  pbw::TableState st;
  st.set_state(pbw::TableState::ENABLED);
  const std::string value = "PBUF" + st.SerializeAsString();
  Cell cell;
  cell.row = row;
  cell.family = ByteView("table");
  cell.qualifier = ByteView("state");
  cell.timestamp = service_->identity().start_code;
  cell.value = ByteView(value);
  Result r;
  r.cells = std::span<const Cell>(&cell, 1);
  r.exists = true;
  EmitResult(r, row, out);
}

void CallHandler::CatalogRow(std::string_view table, uint32_t index,
                             const std::vector<std::string>& families, pbw::Result* out) {
  const bool want_info =
      families.empty() || std::find(families.begin(), families.end(), "info") != families.end();
  const uint32_t n = service_->regions_per_table();
  const std::string row = RegionRow(table, index, n);
  if (!want_info) return;
  const ServerIdentity& id = service_->identity();
  pbw::RegionInfo ri;
  ri.set_region_id(kUserRegionId);
  SetTableName(table, ri.mutable_table_name());
  ri.set_start_key(SplitPoint(index, n));
  ri.set_end_key(index + 1 < n ? SplitPoint(index + 1, n) : std::string());
  ri.set_offline(false);
  ri.set_split(false);
  ri.set_replica_id(0);
  const std::string regioninfo = "PBUF" + ri.SerializeAsString();
  const std::string server = id.host + ":" + std::to_string(id.port);
  const std::string startcode = BigEndian64(id.start_code);
  const std::string seqnum = BigEndian64(1);
  const std::string sn = id.ServerNameString();
  // Qualifiers in HBase's sort order, as a region server returns them.
  Cell cells[5];
  const std::pair<const char*, const std::string*> cols[5] = {{"regioninfo", &regioninfo},
                                                              {"seqnumDuringOpen", &seqnum},
                                                              {"server", &server},
                                                              {"serverstartcode", &startcode},
                                                              {"sn", &sn}};
  for (int i = 0; i < 5; ++i) {
    cells[i].row = ByteView(row);
    cells[i].family = ByteView("info");
    cells[i].qualifier = ByteView(cols[i].first);
    cells[i].timestamp = id.start_code;
    cells[i].value = ByteView(*cols[i].second);
  }
  Result r;
  r.cells = std::span<const Cell>(cells, 5);
  r.exists = true;
  EmitResult(r, ByteView(row), out);
}

Status CallHandler::GetRow(ByteView region_name, const pbw::Get& g, pbw::Result* out) {
  if (IsMetaRegion(region_name)) {
    BumpShared(stats_->meta_calls, 1);
    std::vector<std::string> families;
    for (const auto& col : g.column()) families.push_back(col.family());
    const std::string& row = g.row();
    const std::string_view table = TableOf(row);
    if (table.empty()) {
      // A table's row: its state.
      if (families.empty() ||
          std::find(families.begin(), families.end(), "table") != families.end())
        TableStateRow(ByteView(row), out);
      return Status::Ok();
    }
    // A region row (or, with closest_row_before, the row at or before it).
    const uint32_t n = service_->regions_per_table();
    int found = -1;
    for (uint32_t i = 0; i < n; ++i) {
      const std::string region_row = RegionRow(table, i, n);
      if (g.closest_row_before() ? region_row <= row : region_row == row) found = int(i);
    }
    if (found >= 0) {
      if (g.existence_only()) {
        out->set_exists(true);
        return Status::Ok();
      }
      CatalogRow(table, uint32_t(found), families, out);
    } else if (g.existence_only()) {
      out->set_exists(false);
    }
    return Status::Ok();
  }
  if (region_name.empty())
    return Status::NotFound(std::string(exceptions::kNotServingRegion) +
                            ": the request names no region");
  WB_RETURN_IF_ERROR(CheckRow(region_name, ByteView(g.row())));
  std::vector<Column> cols;
  for (const auto& col : g.column()) {
    if (col.qualifier_size() == 0) {
      cols.push_back(Column{ByteView(col.family()), ByteView()});
    } else {
      for (const auto& q : col.qualifier()) cols.push_back(Column{ByteView(col.family()), ByteView(q)});
    }
  }
  auto tr = ReadTimeRange(g.time_range());
  if (!tr.ok()) return tr.status();
  std::unique_ptr<Filter> filter;
  if (g.has_filter()) {
    if (defer_filters_) return Defer();
    auto f = ParseFilter(g.filter());
    if (!f.ok()) return f.status();
    filter = std::move(f).value();
  }
  const uint32_t max_versions = std::max<uint32_t>(1, g.max_versions());
  GetRequest req;
  req.table = ByteView(TableOf(region_name.str()));
  req.row = ByteView(g.row());
  req.columns = std::span<const Column>(cols.data(), cols.size());
  req.time_range = *tr;
  // A filter sees every version in the range; versions are counted after it.
  req.max_versions = filter ? UINT32_MAX : max_versions;
  GetResponse resp;
  WB_RETURN_IF_ERROR(service_->region()->Get(req, &scratch_, &resp));
  Result result = resp.result;
  if (filter) {
    filtered_.clear();
    filter_storage_.clear();
    FilterOneRow(filter.get(), req.row, resp.result.cells, max_versions, &filtered_,
                 &filter_storage_);
    result.cells = std::span<const Cell>(filtered_.data(), filtered_.size());
  }
  if (g.existence_only()) {
    out->set_exists(!result.cells.empty());
    return Status::Ok();
  }
  result.exists = false;  // HBase's Result of a Get carries no exists flag.
  EmitResult(result, req.row, out);
  return Status::Ok();
}

Status CallHandler::DoGet(const Call& c, pbw::GetResponse* resp) {
  pbw::GetRequest req;
  if (!req.ParseFromArray(c.param.data(), int(c.param.size())))
    return Status::InvalidArgument("malformed GetRequest");
  return GetRow(ByteView(req.region().value()), req.get(), resp->mutable_result());
}

Status CallHandler::ReadMutation(const pbw::MutationProto& p, WireReader* block, Mutation* out,
                                 std::vector<Cell>* cells) {
  cells->clear();
  out->row = ByteView(p.row());
  out->timestamp = p.timestamp();
  switch (p.mutate_type()) {
    case pbw::MutationProto::PUT: out->type = MutationType::kPut; break;
    case pbw::MutationProto::DELETE: out->type = MutationType::kDelete; break;
    case pbw::MutationProto::INCREMENT: out->type = MutationType::kIncrement; break;
    case pbw::MutationProto::APPEND: out->type = MutationType::kAppend; break;
  }
  const bool is_delete = p.mutate_type() == pbw::MutationProto::DELETE;
  for (const auto& cv : p.column_value()) {
    if (cv.qualifier_value_size() == 0 && is_delete) {
      Cell cell;
      cell.row = out->row;
      cell.family = ByteView(cv.family());
      cell.type = CellType::kDeleteFamily;
      cell.timestamp = p.timestamp();
      cells->push_back(cell);
    }
    for (const auto& qv : cv.qualifier_value()) {
      Cell cell;
      cell.row = out->row;
      cell.family = ByteView(cv.family());
      cell.qualifier = ByteView(qv.qualifier());
      cell.value = ByteView(qv.value());
      cell.timestamp = qv.has_timestamp() ? qv.timestamp() : p.timestamp();
      cell.type = CellType::kPut;
      if (is_delete) {
        switch (qv.delete_type()) {
          case pbw::MutationProto::DELETE_ONE_VERSION: cell.type = CellType::kDelete; break;
          case pbw::MutationProto::DELETE_MULTIPLE_VERSIONS:
            cell.type = CellType::kDeleteColumn;
            break;
          case pbw::MutationProto::DELETE_FAMILY:
            cell.type = CellType::kDeleteFamily;
            cell.qualifier = ByteView();
            break;
          case pbw::MutationProto::DELETE_FAMILY_VERSION:
            cell.type = CellType::kDeleteFamilyVersion;
            cell.qualifier = ByteView();
            break;
          default:
            return Status::InvalidArgument("unknown MutationProto.DeleteType " +
                                           std::to_string(int(qv.delete_type())));
        }
      }
      cells->push_back(cell);
    }
  }
  const int32_t n = p.associated_cell_count();
  if (n < 0) return Status::InvalidArgument("MutationProto.associated_cell_count is negative");
  for (int32_t i = 0; i < n; ++i) {
    Cell cell;
    if (block == nullptr || !pb::ReadKeyValue(*block, &cell))
      return Status::InvalidArgument(
          "the cell block holds fewer cells than associated_cell_count announces, or a "
          "malformed KeyValue");
    if (cell.row != out->row)
      return Status::InvalidArgument("a cell of the cell block names another row than its "
                                     "mutation");
    cells->push_back(cell);
  }
  if (out->row.empty()) return Status::InvalidArgument("MutationProto has no row");
  // HBase's KeyValue holds a row's length in 2 bytes and a family's in 1:
  // what does not fit could never be read back over a cell block.
  if (out->row.size() > kMaxRowBytes)
    return Status::InvalidArgument("java.lang.IllegalArgumentException: Row length " +
                                   std::to_string(out->row.size()) + " is > " +
                                   std::to_string(kMaxRowBytes));
  for (const Cell& cell : *cells)
    if (cell.family.size() > kMaxFamilyBytes)
      return Status::InvalidArgument("java.lang.IllegalArgumentException: Family length " +
                                     std::to_string(cell.family.size()) + " is > " +
                                     std::to_string(kMaxFamilyBytes));
  out->cells = std::span<const Cell>(cells->data(), cells->size());
  return Status::Ok();
}

Status CallHandler::CheckRow(ByteView region_name, ByteView row) {
  const uint32_t n = service_->regions_per_table();
  if (n <= 1) return Status::Ok();
  const int index = RegionIndex(region_name.str(), n);
  if (index < 0)
    return Status::NotFound(std::string(exceptions::kNotServingRegion) + ": Region " +
                            region_name.ToString() + " is not online on this server");
  if (RegionOfRow(row.str(), n) != uint32_t(index))
    return Status::NotFound(std::string(exceptions::kNotServingRegion) + ": Region " +
                            region_name.ToString() + " does not hold row '" + row.ToString() +
                            "' (its keys are [" + SplitPoint(uint32_t(index), n) + ", " +
                            SplitPoint(uint32_t(index) + 1 < n ? uint32_t(index) + 1 : 0, n) +
                            "))");
  return Status::Ok();
}

Status CallHandler::ApplyMutation(ByteView region_name, const pbw::MutationProto& p,
                                  WireReader* block, pbw::Result* result) {
  Mutation m;
  WB_RETURN_IF_ERROR(ReadMutation(p, block, &m, &mutation_cells_));
  WB_RETURN_IF_ERROR(CheckRow(region_name, m.row));
  m.table = ByteView(TableOf(region_name.str()));
  MutateResponse mr;
  if (m.type == MutationType::kPut || m.type == MutationType::kDelete)
    return service_->region()->Mutate(m, &mr);
  // Increment and append: the region reads, computes and writes in one
  // step and answers the new values (HBase's default returnResults).
  Result r;
  WB_RETURN_IF_ERROR(service_->region()->ReadModifyWrite(m, &scratch_, &r));
  if (result) EmitResult(r, m.row, result);
  return Status::Ok();
}

StatusOr<Condition> CallHandler::ReadCondition(const pbw::Condition& c) {
  if (c.has_filter())
    return Status::Unimplemented(
        "a condition with a filter (checkAndMutate ifMatches(Filter)) is not evaluated by "
        "wirebench; use a column condition");
  Condition out;
  out.row = ByteView(c.row());
  out.family = ByteView(c.family());
  out.qualifier = ByteView(c.qualifier());
  out.op = CompareOp(uint8_t(c.compare_type()));
  auto tr = ReadTimeRange(c.time_range());
  if (!tr.ok()) return tr.status();
  out.time_range = *tr;
  out.value_is_null = true;
  if (c.has_comparator() && c.comparator().name().find("NullComparator") == std::string::npos) {
    const std::string& name = c.comparator().name();
    if (name.find("BinaryComparator") == std::string::npos)
      return Status::Unimplemented("checkAndMutate compares with BinaryComparator here, not " +
                                   name);
    pbw::BinaryComparator bc;
    if (!bc.ParseFromString(c.comparator().serialized_comparator()))
      return Status::InvalidArgument("cannot read the condition's comparator " + name);
    condition_value_ = bc.comparable().value();
    out.value = ByteView(condition_value_);
    out.value_is_null = condition_value_.empty();
  }
  return out;
}

Status CallHandler::DoMutate(const Call& c, pbw::MutateResponse* resp) {
  pbw::MutateRequest req;
  if (!req.ParseFromArray(c.param.data(), int(c.param.size())))
    return Status::InvalidArgument("malformed MutateRequest");
  if (IsMetaRegion(ByteView(req.region().value())))
    return Status::InvalidArgument("hbase:meta is the catalog wirebench answers; it takes no "
                                   "writes");
  if (req.region().value().empty())
    return Status::NotFound(std::string(exceptions::kNotServingRegion) +
                            ": the request names no region");
  WireReader block(c.block);
  if (req.has_condition()) {
    auto cond = ReadCondition(req.condition());
    if (!cond.ok()) return cond.status();
    Mutation m;
    WB_RETURN_IF_ERROR(ReadMutation(req.mutation(), &block, &m, &mutation_cells_));
    WB_RETURN_IF_ERROR(CheckRow(ByteView(req.region().value()), m.row));
    cond->table = ByteView(TableOf(req.region().value()));
    m.table = cond->table;
    bool processed = false;
    WB_RETURN_IF_ERROR(service_->region()->CheckAndMutate(*cond, std::span<const Mutation>(&m, 1),
                                                          &scratch_, &processed));
    resp->set_processed(processed);
    return Status::Ok();
  }
  const auto t = req.mutation().mutate_type();
  pbw::Result result;
  WB_RETURN_IF_ERROR(ApplyMutation(ByteView(req.region().value()), req.mutation(), &block, &result));
  if (t == pbw::MutationProto::INCREMENT || t == pbw::MutationProto::APPEND)
    resp->mutable_result()->Swap(&result);
  resp->set_processed(true);
  return Status::Ok();
}

Status CallHandler::DoMulti(const Call& c, pbw::MultiResponse* resp) {
  pbw::MultiRequest req;
  if (!req.ParseFromArray(c.param.data(), int(c.param.size())))
    return Status::InvalidArgument("malformed MultiRequest");
  // A filtered Get anywhere in the batch: nothing is applied here.
  if (defer_filters_)
    for (const pbw::RegionAction& ra : req.regionaction())
      for (const pbw::Action& a : ra.action())
        if (a.has_get() && a.get().has_filter()) return Defer();
  WireReader block(c.block);
  bool all_processed = true;
  auto skip_cells = [&](const pbw::Action& a) {
    for (int32_t i = 0; a.has_mutation() && i < a.mutation().associated_cell_count(); ++i) {
      Cell skip;
      if (!pb::ReadKeyValue(block, &skip)) return false;
    }
    return true;
  };
  for (const pbw::RegionAction& ra : req.regionaction()) {
    pbw::RegionActionResult* rar = resp->add_regionactionresult();
    const ByteView region(ra.region().value());
    if (region.empty() ||
        (IsMetaRegion(region) && std::any_of(ra.action().begin(), ra.action().end(),
                                             [](const auto& a) { return a.has_mutation(); }))) {
      auto* e = rar->mutable_exception();
      e->set_name(std::string(exceptions::kNotServingRegion));
      e->set_value("Region " + region.ToString() + " takes no mutations on this server");
      // Skip the cells of this region action's mutations in the block.
      for (const auto& a : ra.action())
        if (!skip_cells(a))
          return Status::InvalidArgument("the cell block is shorter than the Multi announces");
      continue;
    }
    // A condition on the region action (checkAndMutate with a RowMutations
    // or a batch of them): all of its mutations or none, in one atomic step.
    const pbw::Condition* cond =
        ra.has_condition() ? &ra.condition() : (req.has_condition() ? &req.condition() : nullptr);
    if (cond != nullptr) {
      auto condition = ReadCondition(*cond);
      if (!condition.ok()) return condition.status();
      condition->table = ByteView(TableOf(region.str()));
      std::vector<std::vector<Cell>> cells(size_t(ra.action_size()));
      std::vector<Mutation> mutations;
      for (int i = 0; i < ra.action_size(); ++i) {
        const pbw::Action& a = ra.action(i);
        if (!a.has_mutation())
          return Status::InvalidArgument("a conditional RegionAction holds only mutations");
        Mutation m;
        WB_RETURN_IF_ERROR(ReadMutation(a.mutation(), &block, &m, &cells[size_t(i)]));
        WB_RETURN_IF_ERROR(CheckRow(region, m.row));
        m.table = condition->table;
        mutations.push_back(m);
      }
      bool processed = false;
      WB_RETURN_IF_ERROR(service_->region()->CheckAndMutate(*condition, mutations, &scratch_,
                                                            &processed));
      rar->set_processed(processed);
      all_processed = all_processed && processed;
      for (const pbw::Action& a : ra.action()) {
        pbw::ResultOrException* roe = rar->add_resultorexception();
        roe->set_index(a.index());
        roe->mutable_result();
      }
      continue;
    }
    for (const pbw::Action& a : ra.action()) {
      pbw::ResultOrException* roe = rar->add_resultorexception();
      roe->set_index(a.index());
      Status s;
      if (a.has_service_call()) {
        s = Status::Unimplemented(std::string(exceptions::kUnknownProtocol) +
                                  ": wirebench runs no coprocessor services");
      } else if (a.has_mutation()) {
        const auto t = a.mutation().mutate_type();
        pbw::Result* r = roe->mutable_result();
        s = ApplyMutation(region, a.mutation(), &block, r);
        if (s.ok() && t != pbw::MutationProto::INCREMENT && t != pbw::MutationProto::APPEND)
          r->Clear();
      } else if (a.has_get()) {
        s = GetRow(region, a.get(), roe->mutable_result());
      }
      if (!s.ok()) {
        if (s.code() == Status::Code::kInvalidArgument && ra.atomic())
          return s;  // An atomic action's bad mutation fails the whole call.
        roe->clear_result();
        auto* e = roe->mutable_exception();
        std::string msg(s.message());
        const std::string_view nsr = exceptions::kNotServingRegion;
        const std::string_view busy = exceptions::kRegionTooBusy;
        if (msg.compare(0, nsr.size(), nsr) == 0 && msg.size() > nsr.size() + 1) {
          e->set_name(std::string(nsr));
          e->set_value(msg.substr(nsr.size() + 2));
        } else if (msg.compare(0, busy.size(), busy) == 0 && msg.size() > busy.size() + 1) {
          e->set_name(std::string(busy));
          e->set_value(msg.substr(busy.size() + 2));
        } else {
          e->set_name(std::string(exceptions::kDoNotRetry));
          e->set_value(msg);
        }
      }
    }
  }
  if (req.has_condition() || std::any_of(req.regionaction().begin(), req.regionaction().end(),
                                         [](const auto& ra) { return ra.has_condition(); }))
    resp->set_processed(all_processed);
  return Status::Ok();
}

StatusOr<bool> CallHandler::ScanBatch(Scanner* s, uint32_t max_rows, pbw::ScanResponse* resp) {
  auto add = [&](pbw::Result* r, bool partial) {
    if (cell_blocks_) {
      resp->add_cells_per_result(uint32_t(r->associated_cell_count()));
    } else {
      resp->add_results()->Swap(r);
    }
    resp->add_partial_flag_per_result(partial);
  };
  if (max_rows == 0) return true;
  if (s->meta) {
    BumpShared(stats_->meta_calls, 1);
    if (s->table.empty()) return false;
    // The table's region rows, in the scan's direction, after the last one returned.
    const uint32_t regions = service_->regions_per_table();
    std::vector<std::pair<uint32_t, std::string>> rows;
    for (uint32_t i = 0; i < regions; ++i) rows.emplace_back(i, RegionRow(s->table, i, regions));
    if (s->reversed) std::reverse(rows.begin(), rows.end());
    uint32_t added = 0;
    for (const auto& [index, row] : rows) {
      bool in_range;
      if (s->reversed) {
        in_range = (s->start_row.empty() || row < s->start_row ||
                    (s->include_start && row == s->start_row)) &&
                   (s->stop_row.empty() || row > s->stop_row ||
                    (s->include_stop && row == s->stop_row));
        if (s->started && !(row < s->next_row)) in_range = false;
      } else {
        in_range = (row > s->start_row || (s->include_start && row == s->start_row)) &&
                   (s->stop_row.empty() || row < s->stop_row ||
                    (s->include_stop && row == s->stop_row));
        if (s->started && !(row > s->next_row)) in_range = false;
      }
      if (!in_range) continue;
      if (added == max_rows) return true;
      std::vector<std::string> families;
      for (const auto& col : s->columns) families.push_back(col.first);
      pbw::Result r;
      CatalogRow(s->table, index, families, &r);
      s->started = true;
      s->next_row = row;
      if (r.associated_cell_count() > 0 || r.cell_size() > 0) {
        add(&r, false);
        ++added;
      }
    }
    return false;
  }
  std::vector<Column> cols;
  for (const auto& col : s->columns) cols.push_back(Column{ByteView(col.first), ByteView(col.second)});
  uint32_t n = 0;
  for (;;) {
    if (s->filter && s->filter->FilterAllRemaining()) return false;
    ScanRequest sr;
    sr.table = ByteView(s->table);
    sr.reversed = s->reversed;
    if (s->started) {
      sr.start_row = ByteView(s->next_row);
      sr.include_start = false;
    } else {
      sr.start_row = ByteView(s->start_row);
      sr.include_start = s->include_start;
    }
    sr.stop_row = ByteView(s->stop_row);
    sr.include_stop = s->include_stop;
    if (s->cut_by_region) {  // The region's bound is nearer than the scan's.
      sr.stop_row = ByteView(s->reversed ? s->region_start : s->region_end);
      sr.include_stop = s->reversed;  // A region holds its start key, not its end key.
    }
    sr.number_of_rows = max_rows - n;
    sr.columns = std::span<const Column>(cols.data(), cols.size());
    sr.time_range = s->time_range;
    sr.max_versions = s->filter ? UINT32_MAX : s->max_versions;
    ScanResponse r;
    WB_RETURN_IF_ERROR(service_->region()->Scan(sr, &scratch_, &r));
    for (const Result& res : r.results) {
      if (res.cells.empty()) continue;
      const ByteView row = res.cells[0].row;
      s->started = true;
      s->next_row = row.ToString();
      std::span<const Cell> cells = res.cells;
      if (s->filter) {
        if (s->filter->FilterAllRemaining()) return false;
        filtered_.clear();
        filter_storage_.clear();
        if (!FilterOneRow(s->filter.get(), row, res.cells, s->max_versions, &filtered_,
                          &filter_storage_))
          continue;
        cells = std::span<const Cell>(filtered_.data(), filtered_.size());
      }
      // Scan.batch: a row's cells in Results of at most `batch` cells; all
      // but the last flagged partial (mayHaveMoreCellsInRow).
      const size_t step = s->batch > 0 ? s->batch : cells.size();
      for (size_t at = 0; at < cells.size(); at += step) {
        const size_t k = std::min(step, cells.size() - at);
        Result part;
        part.cells = cells.subspan(at, k);
        pbw::Result pr;
        EmitResult(part, ByteView(), &pr);
        add(&pr, at + k < cells.size());
      }
      ++n;
    }
    if (!r.more_results) return false;
    if (n >= max_rows) return true;
  }
}

Status CallHandler::DoScan(const Call& c, pbw::ScanResponse* resp) {
  pbw::ScanRequest req;
  if (!req.ParseFromArray(c.param.data(), int(c.param.size())))
    return Status::InvalidArgument("malformed ScanRequest");
  uint64_t id;
  if (!req.has_scanner_id()) {
    if (!req.has_scan() || !req.has_region())
      return Status::InvalidArgument("a ScanRequest without scanner_id must carry region and scan");
    const ByteView region(req.region().value());
    const pbw::Scan& scan = req.scan();
    // HBase's Scan refuses these too; a scanner keeps its bounds for its life.
    for (const auto& [what, key] : {std::pair{"startRow", &scan.start_row()},
                                    std::pair{"stopRow", &scan.stop_row()}})
      if (key->size() > kMaxRowBytes)
        return Status::InvalidArgument(std::string("java.lang.IllegalArgumentException: ") + what +
                                       "'s length must be less than or equal to " +
                                       std::to_string(kMaxRowBytes) +
                                       " to meet the rowkey restriction (it is " +
                                       std::to_string(key->size()) + ")");
    Scanner s;
    s.meta = IsMetaRegion(region);
    if (!s.meta && region.empty())
      return Status::NotFound(std::string(exceptions::kNotServingRegion) +
                              ": the request names no region");
    if (scan.has_filter() && !s.meta) {
      if (defer_filters_) return Defer();
      auto f = ParseFilter(scan.filter());
      if (!f.ok()) return f.status();
      s.filter = std::shared_ptr<Filter>(std::move(f).value());
    }
    auto tr = ReadTimeRange(scan.time_range());
    if (!tr.ok()) return tr.status();
    s.time_range = *tr;
    s.max_versions = std::max<uint32_t>(1, scan.max_versions());
    s.batch = scan.batch_size();
    s.caching = scan.caching();
    s.start_row = scan.start_row();
    s.include_start = scan.include_start_row();
    s.stop_row = scan.stop_row();
    s.include_stop = scan.include_stop_row();
    s.reversed = scan.reversed();
    for (const auto& col : scan.column()) {
      if (col.qualifier_size() == 0) s.columns.emplace_back(col.family(), "");
      for (const auto& q : col.qualifier()) s.columns.emplace_back(col.family(), q);
    }
    s.rows_left = req.limit_of_rows();
    if (!s.meta && service_->regions_per_table() > 1) {
      const uint32_t regions = service_->regions_per_table();
      const int index = RegionIndex(region.str(), regions);
      if (index < 0)
        return Status::NotFound(std::string(exceptions::kNotServingRegion) + ": Region " +
                                region.ToString() + " is not online on this server");
      s.region_start = SplitPoint(uint32_t(index), regions);
      s.region_end = uint32_t(index) + 1 < regions ? SplitPoint(uint32_t(index) + 1, regions)
                                                   : std::string();
      // Start where the scan starts, within the region.
      if (!s.reversed) {
        if (s.start_row < s.region_start) {
          s.start_row = s.region_start;
          s.include_start = true;
        }
        s.cut_by_region = !s.region_end.empty() &&
                          (s.stop_row.empty() || s.stop_row > s.region_end ||
                           (s.stop_row == s.region_end && s.include_stop));
      } else {
        if (!s.region_end.empty() && (s.start_row.empty() || s.start_row >= s.region_end)) {
          // Reversed from the region's last key: its end key is not in it.
          s.start_row = s.region_end;
          s.include_start = false;
        }
        s.cut_by_region = !s.region_start.empty() &&
                          (s.stop_row.empty() || s.stop_row < s.region_start);
      }
    }
    if (s.meta) {
      s.table = std::string(TableOf(s.start_row));
      if (s.table.empty()) s.table = std::string(TableOf(s.stop_row));
    } else {
      s.table = std::string(TableOf(region.str()));
    }
    s.owner = owner_;
    s.bytes = sizeof(Scanner) + s.start_row.size() + s.stop_row.size() + s.table.size() +
              kMaxRowBytes /* next_row */ + 4 * scan.filter().size();
    // A regex comparator's RE2 may grow to its memory budget as it runs.
    if (scan.filter().find("RegexStringComparator") != std::string::npos)
      s.bytes += kRegexMemoryBytes;
    for (const auto& [f, q] : s.columns) s.bytes += 32 + f.size() + q.size();
    uint32_t rows = req.has_number_of_rows() ? req.number_of_rows() : s.caching;
    if (req.close_scanner() && !req.has_number_of_rows()) rows = 0;
    // The first batch runs before the scanner takes a slot: a scan that ends
    // here (a region lookup, a small scan, limit 1) never needs one.
    bool more = false;
    WB_RETURN_IF_ERROR(NextBatch(&s, req, rows, resp, &more));
    const bool cut_by_region = s.cut_by_region;
    if (more && !req.close_scanner()) {
      std::string why;
      id = service_->OpenScanner(std::move(s), &why);
      if (id == 0) {
        resp->Clear();
        block_.Clear();
        return Status::ResourceExhausted(
            std::string(exceptions::kIOException) + ": " + why +
            ": close scanners (ScanRequest.close_scanner) when done, or let their leases (60 s) "
            "run out");
      }
    } else {
      id = service_->FinishedId();
    }
    resp->set_scanner_id(id);
    FinishReply(req, more, cut_by_region, resp);
    return Status::Ok();
  }
  id = req.scanner_id();
  if (defer_filters_ && !req.renew() &&
      service_->WithScanner(id, [](Scanner* s) { return s != nullptr && s->filter != nullptr; }))
    return Defer();
  resp->set_scanner_id(id);
  if (req.renew()) {
    const bool known = service_->WithScanner(id, [](Scanner* s) { return s != nullptr; });
    if (!known)
      return Status::NotFound(std::string(exceptions::kUnknownScanner) + ": Unknown scanner '" +
                              std::to_string(id) + "'; it was closed, its lease expired, or it was never opened");
    resp->set_more_results(true);
    resp->set_ttl(kScannerLeaseMs);
    return Status::Ok();
  }
  Status st;
  bool known = true;
  bool cut_by_region = false;
  bool more = service_->WithScanner(id, [&](Scanner* s) {
    cut_by_region = s != nullptr && s->cut_by_region;
    if (s == nullptr) {
      known = false;
      return false;
    }
    uint32_t rows = req.has_number_of_rows() ? req.number_of_rows() : s->caching;
    if (req.close_scanner() && !req.has_number_of_rows()) rows = 0;
    bool m = false;
    st = NextBatch(s, req, rows, resp, &m);
    return st.ok() && m;
  });
  if (!known) {
    // Closing what is already gone is not an error; a call on a scanner that
    // ran out of rows gets an empty last batch (see FinishScanner).
    if (req.close_scanner() || service_->WasFinished(id)) {
      resp->set_more_results(false);
      resp->set_more_results_in_region(false);
      return Status::Ok();
    }
    return Status::NotFound(std::string(exceptions::kUnknownScanner) + ": Unknown scanner '" +
                            std::to_string(id) +
                            "'. This can happen due to any of the following reasons: the "
                            "scanner was closed, its lease expired, or it was never opened here");
  }
  if (!st.ok()) {
    if (st.message().substr(0, exceptions::kOutOfOrderScannerNext.size()) ==
        exceptions::kOutOfOrderScannerNext)
      service_->CloseScanner(id);
    return st;
  }
  if (req.close_scanner()) {
    service_->CloseScanner(id);
  } else if (!more) {
    service_->FinishScanner(id);
  }
  FinishReply(req, more, cut_by_region, resp);
  return Status::Ok();
}

Status CallHandler::NextBatch(Scanner* s, const pbw::ScanRequest& req, uint32_t rows,
                              pbw::ScanResponse* resp, bool* more) {
  *more = false;
  if (req.has_next_call_seq() && req.next_call_seq() != s->next_call_seq)
    return Status::InvalidArgument(std::string(exceptions::kOutOfOrderScannerNext) +
                                   ": Expected nextCallSeq: " + std::to_string(s->next_call_seq) +
                                   " But the nextCallSeq got from client: " +
                                   std::to_string(req.next_call_seq()));
  ++s->next_call_seq;
  uint32_t n = std::min(rows, kMaxBatchRows);
  if (s->rows_left > 0) n = uint32_t(std::min<uint64_t>(n, s->rows_left));
  const int before = cell_blocks_ ? resp->cells_per_result_size() : resp->results_size();
  auto b = ScanBatch(s, n, resp);
  if (!b.ok()) return b.status();
  if (s->rows_left > 0) {
    // Rows, not batch parts: count the Results that end a row.
    uint64_t got = 0;
    for (int i = before; i < resp->partial_flag_per_result_size(); ++i)
      if (!resp->partial_flag_per_result(i)) ++got;
    s->rows_left -= std::min<uint64_t>(s->rows_left, got);
    if (s->rows_left == 0) return Status::Ok();
  }
  *more = *b;
  return Status::Ok();
}

void CallHandler::FinishReply(const pbw::ScanRequest& req, bool more, bool cut_by_region,
                              pbw::ScanResponse* resp) {
  // A scan that goes on past its region: HBase 2 says more results, none in
  // this region, and the client moves to the next region.
  resp->set_more_results((more || cut_by_region) && !req.close_scanner());
  resp->set_more_results_in_region(more);
  resp->set_ttl(kScannerLeaseMs);
}

}  // namespace wirebench::hbaserpc
