#include "transports/hbase/hbase_calls.h"

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
constexpr uint32_t kMaxReversedRows = 100000;  // Rows a reversed user-region scan collects.
constexpr uint32_t kScannerLeaseMs = 60000;    // HBase's default scanner lease.

uint64_t NowMs() {
  return uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count());
}

bool IsMetaRegion(ByteView name) {
  return name.str().substr(0, kMetaTable.size() + 1) == std::string(kMetaTable) + ",";
}

// The table a region name names: the part before the first ','.
std::string_view TableOf(std::string_view region_name) {
  const size_t comma = region_name.find(',');
  return comma == std::string_view::npos ? std::string_view() : region_name.substr(0, comma);
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

// ---- Eligibility for the codec's own handler (view-based, no allocation) ----

// The region name of a RegionSpecifier message.
bool RegionNameOf(ByteView spec, ByteView* name) {
  ProtoReader r(spec);
  while (!r.done()) {
    uint32_t f;
    WireType wt;
    if (!r.NextTag(&f, &wt)) return false;
    if (f == 2 && wt == WireType::kLen) {
      if (!r.Len(name)) return false;
    } else if (!r.Skip(wt)) {
      return false;
    }
  }
  return true;
}

bool PlainRegion(ByteView spec) {
  ByteView name;
  return RegionNameOf(spec, &name) && !name.empty() && !IsMetaRegion(name) &&
         !TableOf(name.str()).empty();
}

// A put or delete the codec maps as it is: no increment/append, and cells
// where the codec expects them (the cellblock codec refuses column_value).
bool PlainMutation(ByteView m, bool cell_blocks) {
  ProtoReader r(m);
  uint64_t type = ~uint64_t{0};
  while (!r.done()) {
    uint32_t f;
    WireType wt;
    if (!r.NextTag(&f, &wt)) return false;
    if (f == 2 && wt == WireType::kVarint) {
      if (!r.Varint(&type)) return false;
      continue;
    }
    if (f == 3 && cell_blocks) return false;
    if (f == 5 || f == 7) return false;  // Attributes, time range: full path.
    if (!r.Skip(wt)) return false;
  }
  return type == 2 || type == 3;
}

// A Get without existence_only, closest_row_before or a filter.
bool PlainGet(ByteView g) {
  ProtoReader r(g);
  while (!r.done()) {
    uint32_t f;
    WireType wt;
    if (!r.NextTag(&f, &wt)) return false;
    if (f == 4 || f == 10 || f == 11) return false;
    if (!r.Skip(wt)) return false;
  }
  return true;
}

bool PlainAction(ByteView a, bool cell_blocks) {
  ProtoReader r(a);
  while (!r.done()) {
    uint32_t f;
    WireType wt;
    if (!r.NextTag(&f, &wt)) return false;
    ByteView sub;
    if (wt == WireType::kLen && (f == 2 || f == 3)) {
      if (!r.Len(&sub)) return false;
      if (f == 2 ? !PlainMutation(sub, cell_blocks) : !PlainGet(sub)) return false;
      continue;
    }
    if (f == 4) return false;  // A coprocessor service call.
    if (!r.Skip(wt)) return false;
  }
  return true;
}

bool PlainParam(Method m, ByteView param, bool cell_blocks) {
  ProtoReader r(param);
  int region_actions = 0;
  bool region_ok = m == Method::kMulti;
  while (!r.done()) {
    uint32_t f;
    WireType wt;
    if (!r.NextTag(&f, &wt)) return false;
    ByteView sub;
    if (wt != WireType::kLen) {
      if (!r.Skip(wt)) return false;
      continue;
    }
    if (!r.Len(&sub)) return false;
    switch (m) {
      case Method::kMutate:
        if (f == 1) region_ok = PlainRegion(sub);
        if (f == 2 && !PlainMutation(sub, cell_blocks)) return false;
        if (f == 3) return false;  // A condition.
        break;
      case Method::kGet:
        if (f == 1) region_ok = PlainRegion(sub);
        if (f == 2 && !PlainGet(sub)) return false;
        break;
      case Method::kMulti: {
        if (f == 3) return false;  // A condition.
        if (f != 1) break;
        if (++region_actions > 1) return false;
        ProtoReader ra(sub);
        while (!ra.done()) {
          uint32_t f2;
          WireType wt2;
          if (!ra.NextTag(&f2, &wt2)) return false;
          ByteView sub2;
          if (wt2 != WireType::kLen) {
            if (!ra.Skip(wt2)) return false;
            continue;
          }
          if (!ra.Len(&sub2)) return false;
          if (f2 == 1 && !PlainRegion(sub2)) return false;
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

Method MethodOf(std::string_view name) {
  if (name == "Mutate") return Method::kMutate;
  if (name == "Get") return Method::kGet;
  if (name == "Scan") return Method::kScan;
  if (name == "Multi") return Method::kMulti;
  return Method(0);
}

int Compare3(std::string_view a, std::string_view b) {
  const int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
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
      meta_service_(meta_service) {
  if (!meta_service_ && service_->codec_service() != nullptr) {
    auto h = service_->codec_service()->NewCallHandler(
        uint8_t(cell_blocks_ ? CodecId::kCellBlock : CodecId::kPb));
    if (h.ok()) fast_ = std::move(h).value();
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

void CallHandler::Handle(ByteView body, ByteBuffer* out) {
  block_.Clear();
  Call c;
  ByteView header;
  ByteView rest = body;
  if (!pb::ReadDelimited(&rest, &header)) {
    Fail(kNoCallId, exceptions::kDoNotRetry, "cannot read the RequestHeader of a call", true, out);
    return;
  }
  uint64_t block_len = 0;
  bool has_block = false;
  bool header_ok = true;
  {
    ProtoReader r(header);
    while (!r.done() && header_ok) {
      uint32_t f;
      WireType wt;
      if (!r.NextTag(&f, &wt)) {
        header_ok = false;
        break;
      }
      uint64_t v;
      ByteView b;
      if (f == 1 && wt == WireType::kVarint) {
        header_ok = r.Varint(&v);
        c.id = uint32_t(v);
      } else if (f == 3 && wt == WireType::kLen) {
        header_ok = r.Len(&b);
        c.method = b.str();
      } else if (f == 4 && wt == WireType::kVarint) {
        header_ok = r.Varint(&v);
        c.has_param = v != 0;
      } else if (f == 5 && wt == WireType::kLen) {
        header_ok = r.Len(&b);
        has_block = true;
        ProtoReader m(b);
        while (header_ok && !m.done()) {
          uint32_t f2;
          WireType wt2;
          header_ok = m.NextTag(&f2, &wt2) &&
                      (f2 == 1 && wt2 == WireType::kVarint ? m.Varint(&block_len) : m.Skip(wt2));
        }
      } else {
        header_ok = r.Skip(wt);
      }
    }
  }
  if (!header_ok) {
    Fail(c.id, exceptions::kDoNotRetry, "malformed RequestHeader", true, out);
    return;
  }
  if (!c.has_param) {
    Fail(c.id, exceptions::kDoNotRetry,
         "Invalid request header: method " + std::string(c.method) +
             ", should have param set in it",
         true, out);
    return;
  }
  if (!pb::ReadDelimited(&rest, &c.param)) {
    Fail(c.id, exceptions::kDoNotRetry,
         "unable to read call parameter: the " + std::string(c.method) + " param is cut short",
         true, out);
    return;
  }
  if (has_block) {
    if (block_len > rest.size()) {
      Fail(c.id, exceptions::kDoNotRetry,
           "unable to read call parameter: cell_block_meta.length is " + std::to_string(block_len) +
               " but only " + std::to_string(rest.size()) + " bytes follow the param",
           true, out);
      return;
    }
    c.block = rest.Sub(0, size_t(block_len));
  }
  if (c.method == "WirebenchStats" || c.method == "WirebenchPing") {
    HandleWirebench(c, out);
    return;
  }
  if (meta_service_) {
    BumpShared(stats_->registry_calls, 1);
    HandleMeta(c, out);
    return;
  }
  const Method m = MethodOf(c.method);
  if (m != Method(0)) {
    BumpShared(stats_->calls[uint8_t(m)], 1);
    if (fast_ && PlainParam(m, c.param, cell_blocks_) && TryFast(m, c, body, out)) return;
  }
  HandleClient(c, out);
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
          exceptions::kIOException}) {
      if (msg.compare(0, known.size(), known) == 0 && msg.size() > known.size() + 1 &&
          msg[known.size()] == ':') {
        cls = known;
        msg = msg.substr(known.size() + 2);
        dnr = known != exceptions::kIOException && known != exceptions::kNotServingRegion;
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

void CallHandler::CatalogRow(std::string_view table, const std::vector<std::string>& families,
                             pbw::Result* out) {
  const bool want_info =
      families.empty() || std::find(families.begin(), families.end(), "info") != families.end();
  const std::string row = std::string(table) + ",," + std::to_string(kUserRegionId);
  if (!want_info) return;
  const ServerIdentity& id = service_->identity();
  pbw::RegionInfo ri;
  ri.set_region_id(kUserRegionId);
  SetTableName(table, ri.mutable_table_name());
  ri.set_start_key("");
  ri.set_end_key("");
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
    const std::string region_row = std::string(table) + ",," + std::to_string(kUserRegionId);
    if (g.closest_row_before() ? region_row <= row : region_row == row) {
      if (g.existence_only()) {
        out->set_exists(true);
        return Status::Ok();
      }
      CatalogRow(table, families, out);
    } else if (g.existence_only()) {
      out->set_exists(false);
    }
    return Status::Ok();
  }
  if (TableOf(region_name.str()).empty())
    return Status::NotFound(std::string(exceptions::kNotServingRegion) + ": Region " +
                            region_name.ToString() + " is not online on " +
                            service_->identity().ServerNameString());
  std::vector<Column> cols;
  for (const auto& col : g.column()) {
    if (col.qualifier_size() == 0) {
      cols.push_back(Column{ByteView(col.family()), ByteView()});
    } else {
      for (const auto& q : col.qualifier()) cols.push_back(Column{ByteView(col.family()), ByteView(q)});
    }
  }
  GetRequest req;
  req.row = ByteView(g.row());
  req.columns = std::span<const Column>(cols.data(), cols.size());
  GetResponse resp;
  WB_RETURN_IF_ERROR(service_->region()->Get(req, &scratch_, &resp));
  if (g.existence_only()) {
    out->set_exists(resp.result.exists || !resp.result.cells.empty());
    return Status::Ok();
  }
  EmitResult(resp.result, req.row, out);
  return Status::Ok();
}

Status CallHandler::DoGet(const Call& c, pbw::GetResponse* resp) {
  pbw::GetRequest req;
  if (!req.ParseFromArray(c.param.data(), int(c.param.size())))
    return Status::InvalidArgument("malformed GetRequest");
  return GetRow(ByteView(req.region().value()), req.get(), resp->mutable_result());
}

Status CallHandler::ReadMutation(const pbw::MutationProto& p, WireReader* block, Mutation* out) {
  mutation_cells_.clear();
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
      mutation_cells_.push_back(cell);
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
          case pbw::MutationProto::DELETE_FAMILY: cell.type = CellType::kDeleteFamily; break;
          default:
            return Status::InvalidArgument(
                "DELETE_FAMILY_VERSION deletes are not supported by wirebench's regions");
        }
      }
      mutation_cells_.push_back(cell);
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
    mutation_cells_.push_back(cell);
  }
  if (out->row.empty()) return Status::InvalidArgument("MutationProto has no row");
  out->cells = std::span<const Cell>(mutation_cells_.data(), mutation_cells_.size());
  return Status::Ok();
}

Status CallHandler::ApplyMutation(const pbw::MutationProto& p, WireReader* block,
                                  pbw::Result* result) {
  Mutation m;
  WB_RETURN_IF_ERROR(ReadMutation(p, block, &m));
  MutateResponse mr;
  if (m.type == MutationType::kPut || m.type == MutationType::kDelete)
    return service_->region()->Mutate(m, &mr);
  // Increment and append: read the current values, compute, write them as a
  // put, and answer the new values (HBase's default returnResults).
  const bool inc = m.type == MutationType::kIncrement;
  std::vector<Cell> updated(m.cells.begin(), m.cells.end());
  owned_.clear();
  owned_.reserve(updated.size());
  const uint64_t now = NowMs();
  for (Cell& cell : updated) {
    const Column col{cell.family, cell.qualifier};
    GetRequest g;
    g.row = m.row;
    g.columns = std::span<const Column>(&col, 1);
    GetResponse gr;
    WB_RETURN_IF_ERROR(service_->region()->Get(g, &scratch_, &gr));
    ByteView current;
    bool found = false;
    for (const Cell& have : gr.result.cells) {
      if (have.family == cell.family && have.qualifier == cell.qualifier) {
        current = have.value;
        found = true;
        break;
      }
    }
    if (inc) {
      if (cell.value.size() != 8)
        return Status::InvalidArgument("Increment: the amount for " + cell.qualifier.ToString() +
                                       " is " + std::to_string(cell.value.size()) +
                                       " bytes wide, not a long");
      if (found && current.size() != 8)
        return Status::InvalidArgument("Field is not a long, it's " +
                                       std::to_string(current.size()) + " bytes wide");
      const uint64_t sum = (found ? LoadBE64(current.data()) : 0) + LoadBE64(cell.value.data());
      owned_.push_back(BigEndian64(sum));
    } else {
      owned_.push_back((found ? current.ToString() : std::string()) + cell.value.ToString());
    }
    cell.value = ByteView(owned_.back());
    cell.type = CellType::kPut;
    cell.timestamp = now;
  }
  Mutation put = m;
  put.type = MutationType::kPut;
  put.cells = std::span<const Cell>(updated.data(), updated.size());
  WB_RETURN_IF_ERROR(service_->region()->Mutate(put, &mr));
  Result r;
  r.cells = put.cells;
  r.exists = true;
  if (result) EmitResult(r, m.row, result);
  return Status::Ok();
}

StatusOr<bool> CallHandler::CheckCondition(const pbw::Condition& c) {
  if (c.has_filter())
    return Status::Unimplemented(
        "a condition with a filter (checkAndMutate ifMatches(Filter)) is not evaluated by "
        "wirebench; use a column condition");
  const Column col{ByteView(c.family()), ByteView(c.qualifier())};
  GetRequest g;
  g.row = ByteView(c.row());
  g.columns = std::span<const Column>(&col, 1);
  GetResponse gr;
  WB_RETURN_IF_ERROR(service_->region()->Get(g, &scratch_, &gr));
  const Cell* found = nullptr;
  for (const Cell& have : gr.result.cells)
    if (have.family == col.family && have.qualifier == col.qualifier) {
      found = &have;
      break;
    }
  std::string expected;
  bool value_is_null = true;
  if (c.has_comparator() && c.comparator().name().find("NullComparator") == std::string::npos) {
    pbw::BinaryComparator bc;
    if (!bc.ParseFromString(c.comparator().serialized_comparator()))
      return Status::InvalidArgument("cannot read the condition's comparator " +
                                     c.comparator().name());
    expected = bc.comparable().value();
    value_is_null = expected.empty();
  }
  const pbw::CompareType op = c.compare_type();
  if (op == pbw::NO_OP) return false;
  if (value_is_null) {
    // HBase: an absent (or empty) cell matches a null value, except under NOT_EQUAL.
    const bool empty = found == nullptr || found->value.empty();
    return empty == (op != pbw::NOT_EQUAL);
  }
  if (found == nullptr) return false;
  const int cmp = Compare3(expected, found->value.str());
  switch (op) {
    case pbw::LESS: return cmp < 0;
    case pbw::LESS_OR_EQUAL: return cmp <= 0;
    case pbw::EQUAL: return cmp == 0;
    case pbw::NOT_EQUAL: return cmp != 0;
    case pbw::GREATER_OR_EQUAL: return cmp >= 0;
    case pbw::GREATER: return cmp > 0;
    default: return false;
  }
}

Status CallHandler::DoMutate(const Call& c, pbw::MutateResponse* resp) {
  pbw::MutateRequest req;
  if (!req.ParseFromArray(c.param.data(), int(c.param.size())))
    return Status::InvalidArgument("malformed MutateRequest");
  if (IsMetaRegion(ByteView(req.region().value())))
    return Status::InvalidArgument("hbase:meta is the catalog wirebench answers; it takes no "
                                   "writes");
  if (TableOf(req.region().value()).empty())
    return Status::NotFound(std::string(exceptions::kNotServingRegion) + ": Region " +
                            req.region().value() + " is not online");
  WireReader block(c.block);
  if (req.has_condition()) {
    auto ok = CheckCondition(req.condition());
    if (!ok.ok()) return ok.status();
    if (!*ok) {
      resp->set_processed(false);
      return Status::Ok();
    }
  }
  const auto t = req.mutation().mutate_type();
  pbw::Result result;
  WB_RETURN_IF_ERROR(ApplyMutation(req.mutation(), &block, &result));
  if (t == pbw::MutationProto::INCREMENT || t == pbw::MutationProto::APPEND)
    resp->mutable_result()->Swap(&result);
  resp->set_processed(true);
  return Status::Ok();
}

Status CallHandler::DoMulti(const Call& c, pbw::MultiResponse* resp) {
  pbw::MultiRequest req;
  if (!req.ParseFromArray(c.param.data(), int(c.param.size())))
    return Status::InvalidArgument("malformed MultiRequest");
  WireReader block(c.block);
  bool all_processed = true;
  for (const pbw::RegionAction& ra : req.regionaction()) {
    pbw::RegionActionResult* rar = resp->add_regionactionresult();
    const ByteView region(ra.region().value());
    if (TableOf(region.str()).empty() ||
        (IsMetaRegion(region) && std::any_of(ra.action().begin(), ra.action().end(),
                                             [](const auto& a) { return a.has_mutation(); }))) {
      auto* e = rar->mutable_exception();
      e->set_name(std::string(exceptions::kNotServingRegion));
      e->set_value("Region " + region.ToString() + " takes no mutations on this server");
      // Skip the cells of this region action's mutations in the block.
      for (const auto& a : ra.action()) {
        for (int32_t i = 0; a.has_mutation() && i < a.mutation().associated_cell_count(); ++i) {
          Cell skip;
          if (!pb::ReadKeyValue(block, &skip))
            return Status::InvalidArgument("the cell block is shorter than the Multi announces");
        }
      }
      continue;
    }
    // A condition on the region action (checkAndMutate with a RowMutations
    // or a batch of them): all of its mutations or none.
    const pbw::Condition* cond =
        ra.has_condition() ? &ra.condition() : (req.has_condition() ? &req.condition() : nullptr);
    bool run = true;
    if (cond != nullptr) {
      auto ok = CheckCondition(*cond);
      if (!ok.ok()) return ok.status();
      run = *ok;
      rar->set_processed(run);
      all_processed = all_processed && run;
    }
    for (const pbw::Action& a : ra.action()) {
      pbw::ResultOrException* roe = rar->add_resultorexception();
      roe->set_index(a.index());
      Status s;
      if (a.has_service_call()) {
        s = Status::Unimplemented(std::string(exceptions::kUnknownProtocol) +
                                  ": wirebench runs no coprocessor services");
      } else if (a.has_mutation()) {
        if (!run) {
          // Consume its cells so the next action's are found.
          for (int32_t i = 0; i < a.mutation().associated_cell_count(); ++i) {
            Cell skip;
            if (!pb::ReadKeyValue(block, &skip))
              return Status::InvalidArgument("the cell block is shorter than the Multi announces");
          }
          roe->mutable_result();
          continue;
        }
        const auto t = a.mutation().mutate_type();
        pbw::Result* r = roe->mutable_result();
        s = ApplyMutation(a.mutation(), &block, r);
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
        e->set_name(std::string(exceptions::kDoNotRetry));
        e->set_value(std::string(s.message()));
      }
    }
  }
  if (req.has_condition() || std::any_of(req.regionaction().begin(), req.regionaction().end(),
                                         [](const auto& ra) { return ra.has_condition(); }))
    resp->set_processed(all_processed);
  return Status::Ok();
}

StatusOr<bool> CallHandler::ScanBatch(Scanner* s, uint32_t max_rows, pbw::ScanResponse* resp) {
  auto add = [&](pbw::Result* r) {
    if (cell_blocks_) {
      resp->add_cells_per_result(uint32_t(r->associated_cell_count()));
      resp->add_partial_flag_per_result(false);
    } else {
      resp->add_results()->Swap(r);
      resp->add_partial_flag_per_result(false);
    }
  };
  if (max_rows == 0) return true;
  if (s->meta) {
    BumpShared(stats_->meta_calls, 1);
    if (s->started || s->table.empty()) return false;
    s->started = true;
    const std::string row = s->table + ",," + std::to_string(kUserRegionId);
    bool in_range;
    if (s->reversed) {
      in_range = (s->start_row.empty() || row <= s->start_row) &&
                 (s->stop_row.empty() || row > s->stop_row ||
                  (s->include_stop && row == s->stop_row));
    } else {
      in_range = row >= s->start_row && (s->stop_row.empty() || row < s->stop_row ||
                                          (s->include_stop && row == s->stop_row));
    }
    if (in_range) {
      std::vector<std::string> families;
      for (const auto& col : s->columns) families.push_back(col.first);
      pbw::Result r;
      CatalogRow(s->table, families, &r);
      if (r.associated_cell_count() > 0 || r.cell_size() > 0) add(&r);
    }
    return false;
  }
  std::vector<Column> cols;
  for (const auto& col : s->columns) cols.push_back(Column{ByteView(col.first), ByteView(col.second)});
  if (s->reversed) {
    if (!s->started) {
      s->started = true;
      ScanRequest sr;
      std::string stop = s->start_row.empty() ? std::string() : s->start_row + '\0';
      std::string start = s->stop_row;
      if (!start.empty() && !s->include_stop) start.push_back('\0');
      sr.start_row = ByteView(start);
      sr.stop_row = ByteView(stop);
      sr.number_of_rows = kMaxReversedRows;
      sr.columns = std::span<const Column>(cols.data(), cols.size());
      ScanResponse r;
      WB_RETURN_IF_ERROR(service_->region()->Scan(sr, &scratch_, &r));
      for (const Result& res : r.results)
        if (!res.cells.empty()) s->pending_rows.push_back(res.cells[0].row.ToString());
      // Ascending; batches take rows from the back, so they leave in descending order.
    }
    uint32_t n = 0;
    while (n < max_rows && !s->pending_rows.empty()) {
      const std::string row = std::move(s->pending_rows.back());
      s->pending_rows.pop_back();
      GetRequest g;
      g.row = ByteView(row);
      g.columns = std::span<const Column>(cols.data(), cols.size());
      GetResponse gr;
      WB_RETURN_IF_ERROR(service_->region()->Get(g, &scratch_, &gr));
      if (gr.result.cells.empty()) continue;
      pbw::Result r;
      EmitResult(gr.result, g.row, &r);
      add(&r);
      ++n;
    }
    return !s->pending_rows.empty();
  }
  ScanRequest sr;
  std::string start = s->started ? s->next_row : s->start_row;
  std::string stop = s->stop_row;
  if (s->include_stop && !stop.empty()) stop.push_back('\0');
  sr.start_row = ByteView(start);
  sr.stop_row = ByteView(stop);
  sr.number_of_rows = max_rows;
  sr.columns = std::span<const Column>(cols.data(), cols.size());
  ScanResponse r;
  WB_RETURN_IF_ERROR(service_->region()->Scan(sr, &scratch_, &r));
  s->started = true;
  for (const Result& res : r.results) {
    if (res.cells.empty()) continue;
    pbw::Result pr;
    EmitResult(res, ByteView(), &pr);
    add(&pr);
    s->next_row = res.cells[0].row.ToString() + '\0';
  }
  return r.more_results && r.results.size() >= max_rows;
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
    Scanner s;
    s.meta = IsMetaRegion(region);
    if (!s.meta && TableOf(region.str()).empty())
      return Status::NotFound(std::string(exceptions::kNotServingRegion) + ": Region " +
                              region.ToString() + " is not online");
    if (scan.has_filter() && !s.meta)
      return Status::Unimplemented("scans with a filter are not evaluated by wirebench");
    s.start_row = scan.start_row();
    if (!scan.include_start_row() && !s.start_row.empty() && !scan.reversed())
      s.start_row.push_back('\0');
    s.stop_row = scan.stop_row();
    s.include_stop = scan.include_stop_row();
    s.reversed = scan.reversed();
    for (const auto& col : scan.column()) {
      if (col.qualifier_size() == 0) s.columns.emplace_back(col.family(), "");
      for (const auto& q : col.qualifier()) s.columns.emplace_back(col.family(), q);
    }
    s.rows_left = req.limit_of_rows();
    if (s.meta) {
      s.table = std::string(TableOf(s.start_row));
      if (s.table.empty()) s.table = std::string(TableOf(s.stop_row));
    }
    id = service_->OpenScanner(std::move(s));
  } else {
    id = req.scanner_id();
  }
  resp->set_scanner_id(id);
  if (req.renew()) {
    const bool known = service_->WithScanner(id, [](Scanner* s) { return s != nullptr; });
    if (!known)
      return Status::NotFound(std::string(exceptions::kUnknownScanner) + ": Unknown scanner '" +
                              std::to_string(id) + "'; it was closed or never opened");
    resp->set_more_results(true);
    resp->set_ttl(kScannerLeaseMs);
    return Status::Ok();
  }
  uint32_t rows = req.has_number_of_rows() ? req.number_of_rows() : 0;
  if (req.close_scanner() && !req.has_number_of_rows()) rows = 0;
  Status st;
  bool known = true;
  bool more = service_->WithScanner(id, [&](Scanner* s) {
    if (s == nullptr) {
      known = false;
      return false;
    }
    if (req.has_next_call_seq() && req.next_call_seq() != s->next_call_seq) {
      st = Status::InvalidArgument(std::string(exceptions::kOutOfOrderScannerNext) +
                                   ": Expected nextCallSeq: " + std::to_string(s->next_call_seq) +
                                   " But the nextCallSeq got from client: " +
                                   std::to_string(req.next_call_seq()));
      return false;
    }
    ++s->next_call_seq;
    uint32_t n = std::min(rows, kMaxBatchRows);
    if (s->rows_left > 0) n = uint32_t(std::min<uint64_t>(n, s->rows_left));
    auto b = ScanBatch(s, n, resp);
    if (!b.ok()) {
      st = b.status();
      return false;
    }
    const uint32_t got = uint32_t(cell_blocks_ ? resp->cells_per_result_size() : resp->results_size());
    if (s->rows_left > 0) {
      s->rows_left -= std::min<uint64_t>(s->rows_left, got);
      if (s->rows_left == 0) return false;
    }
    return *b;
  });
  if (!known) {
    if (req.close_scanner()) {  // Closing what is already gone is not an error.
      resp->set_more_results(false);
      return Status::Ok();
    }
    return Status::NotFound(std::string(exceptions::kUnknownScanner) + ": Unknown scanner '" +
                            std::to_string(id) +
                            "'. This can happen due to any of the following reasons: the "
                            "scanner was closed, it expired, or it was never opened here");
  }
  if (!st.ok()) {
    if (st.message().substr(0, exceptions::kOutOfOrderScannerNext.size()) ==
        exceptions::kOutOfOrderScannerNext)
      service_->CloseScanner(id);
    return st;
  }
  if (!more || req.close_scanner()) service_->CloseScanner(id);
  resp->set_more_results(more && !req.close_scanner());
  resp->set_more_results_in_region(more);
  resp->set_ttl(kScannerLeaseMs);
  return Status::Ok();
}

}  // namespace wirebench::hbaserpc
