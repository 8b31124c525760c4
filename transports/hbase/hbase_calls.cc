// The call's way in: its RequestHeader read, the codec's own handler for
// the calls it can answer (the hot path), else the full path by service
// (hbase_get_calls.cc, hbase_mutate_calls.cc, hbase_multi_calls.cc,
// hbase_scan_calls.cc, hbase_meta_calls.cc), and wirebench's Stats and Ping.
#include "codecs/schemas/Client.pb.h"
#include "codecs/schemas/RPC.pb.h"
#include "transports/hbase/hbase_calls.h"

#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "codecs/codec.h"
#include "codecs/hbase/pb_mapping.h"
#include "codecs/hbase/pb_wire.h"
#include "common/callgrind_marks.h"
#include "common/calls.h"
#include "transports/hbase/fast_reader.h"
#include "transports/hbase/hbase_regions.h"
#include "transports/hbase/hbase_wire.pb.h"

namespace wirebench::hbaserpc {

namespace pbw = hbasewire;

namespace {

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

// The RequestHeader's call id, method name, whether a param follows, and
// the cell block's length (cell_block_meta); false when it is malformed
// (what was read before the fault is kept: the call id for the reply).
[[gnu::always_inline]] inline bool ReadRequestHeader(ByteView header, uint32_t* id,
                                                     std::string_view* method, bool* has_param,
                                                     bool* has_block, uint64_t* block_len) {
  Fast r(header);
  while (!r.done()) {
    uint32_t f, wt;
    if (!r.Tag(&f, &wt)) return false;
    uint64_t v;
    ByteView b;
    bool ok;
    if (f == 1 && wt == 0) {
      ok = r.Varint(&v);
      *id = uint32_t(v);
    } else if (f == 3 && wt == 2) {
      ok = r.Len(&b);
      *method = b.str();
    } else if (f == 4 && wt == 0) {
      ok = r.Varint(&v);
      *has_param = v != 0;
    } else if (f == 5 && wt == 2) {
      ok = r.Len(&b);
      *has_block = true;
      Fast m(b);
      while (ok && !m.done()) {
        uint32_t f2, wt2;
        ok = m.Tag(&f2, &wt2) && (f2 == 1 && wt2 == 0 ? m.Varint(block_len) : m.Skip(wt2));
      }
    } else {
      ok = r.Skip(wt);
    }
    if (!ok) return false;
  }
  return true;
}

// The call id and method of a call whose RequestHeader is laid out as
// HBase's codecs write it, field after field and nothing else: call_id
// (08), method_name (1A), request_param = true (20 01) and, with a cell
// block, cell_block_meta {length} (2A <n> 08 <length>). The codec's path
// reads no more of it (the codec reads the header again, and refuses what
// it cannot carry); false for any other layout or a method the codec does
// not answer, and Handle reads the header field by field.
bool PeekPlainHeader(ByteView body, uint32_t* id, Method* method) {
  const uint8_t* p = body.data();
  // Enough for the fixed bytes, with room for ReadVarint5 to look at five.
  if (body.size() < 16 || p[0] >= 0x80 || size_t(p[0]) + 1 > body.size()) return false;
  const uint8_t* const header_end = p + 1 + p[0];
  p += 1;
  if (*p++ != 0x08) return false;
  uint64_t v;
  if (*p < 0x80) {
    v = *p++;
  } else {
    p = pb::ReadVarint5(p, &v);
    if (p == nullptr) return false;
  }
  if (header_end - p < 4 || p[0] != 0x1A || p[1] >= 0x80 || header_end - p < 2 + p[1] + 2)
    return false;
  const Method m = MethodOf(std::string_view(reinterpret_cast<const char*>(p + 2), p[1]));
  if (m == Method(0) || m == Method::kScan) return false;
  p += 2 + p[1];
  if (p[0] != 0x20 || p[1] != 0x01) return false;
  p += 2;
  if (p != header_end) {
    // cell_block_meta with its length alone.
    if (header_end - p < 4 || p[0] != 0x2A || p[1] >= 0x80 || p + 2 + p[1] != header_end ||
        p[2] != 0x08)
      return false;
  }
  *id = uint32_t(v);
  *method = m;
  return true;
}

// The exception HBase sends for a region's failure on the codec's path,
// whose text may name one of HBase's classes after the path's own words
// ("region 'memstore' failed Mutate: Resource exhausted:
// org.apache.hadoop.hbase.RegionTooBusyException: Over memstore limit ..."):
// that class with the text after it, since HBase's clients retry by class;
// else java.io.IOException with the whole text.
std::pair<std::string_view, std::string_view> RegionFailure(std::string_view error) {
  const size_t at = error.find("org.apache.hadoop.hbase.");
  if (at == std::string_view::npos) return {exceptions::kIOException, error};
  const pb::ActionException named = pb::ActionExceptionOf(ByteView(error.substr(at)));
  if (named.name == pb::kExceptionName) return {exceptions::kIOException, error};
  return {named.name, named.text.str()};
}

}  // namespace

CallHandler::CallHandler(HBaseService* service, StatsSource* stats_source, HBaseIoStats* stats,
                         bool cell_blocks, bool meta_service)
    : service_(service),
      stats_source_(stats_source),
      stats_(stats),
      cell_blocks_(cell_blocks),
      meta_service_(meta_service),
      owner_(service->NewOwner()),
      split_(service->regions_per_table() > 1) {
  if (!meta_service_ && service_->codec_service() != nullptr) {
    // The codec the ConnectionHeader's cell-block codec class names.
    const CodecInfo* codec = FindCodec(uint8_t(cell_blocks_ ? CodecId::kCellBlock : CodecId::kPb));
    auto h = codec == nullptr ? StatusOr<std::unique_ptr<rpc::CallHandler>>(
                                    Status::NotFound("the cellblock and pb codecs are not built"))
                              : service_->codec_service()->NewCallHandler(*codec);
    if (h.ok()) {
      // A RegionService's handlers place requests in a table; any other
      // service's calls take the full path.
      std::unique_ptr<rpc::CallHandler> handler = std::move(h).value();
      if (auto* t = dynamic_cast<TableCallHandler*>(handler.get())) {
        handler.release();
        fast_.reset(t);
        fast_->set_gate(this);
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
  hbase::ResponseHeader h;
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
  // The codec answers what it can carry and Admit lets through; what it
  // refuses takes the full path. With several regions per table, only a
  // cluster member's calls take the codec's path (HBaseService::codec_path),
  // Admit checking the region is held and each row is in it; the full path
  // answers the rest with NotServingRegionException or
  // WrongRegionException. A call that may hold a cell over
  // hbase.server.keyvalue.maxsize takes it too, which checks that. A header
  // as HBase's codecs write it is read once, by the codec (PeekPlainHeader
  // takes only the call id and method); any other layout is read here first.
  const bool codec_path =
      fast_ && service_->codec_path() && body.size() <= kMaxCellBytes;
  bool tried_codec = false;
  if (codec_path) {
    Call peeked;
    Method pm;
    if (PeekPlainHeader(body, &peeked.id, &pm)) {
      if (TryFast(pm, peeked, body, out)) {
        BumpShared(stats_->calls[uint8_t(pm)], 1);
        return true;
      }
      tried_codec = true;
    }
  }
  Call c;
  ByteView header;
  ByteView rest = body;
  // A call refused before it runs: DoNotRetryIOException, the call answered.
  auto refuse = [&](uint32_t id, const std::string& why) {
    Fail(id, exceptions::kDoNotRetry, why, true, out);
    return true;
  };
  if (!FastDelimited(&rest, &header))
    return refuse(kNoCallId, "cannot read the RequestHeader of a call");
  uint64_t block_len = 0;
  bool has_block = false;
  const bool header_ok =
      ReadRequestHeader(header, &c.id, &c.method, &c.has_param, &has_block, &block_len);
  if (!header_ok) return refuse(c.id, "malformed RequestHeader");
  if (!c.has_param)
    return refuse(c.id, "Invalid request header: method " + std::string(c.method) +
                            ", should have param set in it");
  if (!FastDelimited(&rest, &c.param))
    return refuse(c.id, "unable to read call parameter: the " + std::string(c.method) +
                            " param is cut short");
  if (has_block && block_len > rest.size())
    return refuse(c.id, "unable to read call parameter: cell_block_meta.length is " +
                            std::to_string(block_len) + " but only " +
                            std::to_string(rest.size()) + " bytes follow the param");
  if (has_block) c.block = rest.Sub(0, size_t(block_len));
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
    if (codec_path && !tried_codec && m != Method::kScan && TryFast(m, c, body, out)) return true;
  }
  HandleClient(c, out);
  if (deferred_) {
    // Counted again when it runs.
    if (m != Method(0)) BumpShared(stats_->calls[uint8_t(m)], uint64_t(0) - 1);
    return false;
  }
  return true;
}

// ---- What the codec's path answers ----
// The codec has refused what it cannot carry (filters, conditions, time
// ranges, attributes, cells where it does not expect them, several
// regions); what is left to refuse is the transport's: a region that is not
// the table's one region or (a cluster member) one this server holds, the
// catalog's included; a row outside the region; increments and appends
// (their reply carries the new values), and keys too long for a KeyValue.

namespace {

// A put or delete whose row and families fit HBase's KeyValue (else the full
// path refuses it, saying which).
bool PlainMutation(const Mutation& m) {
  if (m.type != MutationType::kPut && m.type != MutationType::kDelete) return false;
  if (m.row.size() > kMaxRowBytes) return false;
  for (const Cell& cell : m.cells)
    if (cell.family.size() > kMaxFamilyBytes) return false;
  return true;
}

}  // namespace

bool CallHandler::RegionTable(ByteView region, ByteView* table) {
  // Only a name starting with 'h' can be the catalog's.
  if (region.empty() || (region[0] == 'h' && IsMetaRegion(region))) return false;
  if (split_) return HeldRegion(region, table);
  const std::string_view t = TableOf(region.str());
  const size_t n = t.size();
  // "T,,1" (the old format, wirebench's own client's), else the new one.
  if ((n > 0 && region.size() == n + 3 && region[n + 1] == ',' && region[n + 2] == '1') ||
      NewFormatRegionName(region, n)) {
    *table = ByteView(t);
    return true;
  }
  return false;
}

bool CallHandler::HeldRegion(ByteView region, ByteView* table) {
  // A client sends one region's name call after call: its index is kept.
  if (region != ByteView(known_region_)) {
    const int i = RegionIndex(region.str(), service_->layout());
    if (i < 0 || !service_->Holds(uint32_t(i))) return false;
    known_region_.assign(region.str());
    known_index_ = uint32_t(i);
  }
  *table = ByteView(TableOf(region.str()));
  return true;
}

bool CallHandler::InRegion(ByteView row) const {
  if (!split_) return true;  // The table's one region holds every row.
  const RegionLayout& layout = service_->layout();
  const std::string_view r = row.str();
  const std::string& end = layout.EndKey(known_index_);
  return r >= layout.StartKey(known_index_) && (end.empty() || r < end);
}

bool CallHandler::Admit(MutateRequest* r) {
  return RegionTable(r->region, &r->mutation.table) && PlainMutation(r->mutation) &&
         InRegion(r->mutation.row);
}

bool CallHandler::Admit(GetRequest* r) {
  return RegionTable(r->region, &r->table) && InRegion(r->row);
}

bool CallHandler::Admit(ScanRequest*) { return false; }  // Scanners are the full path's.

bool CallHandler::Admit(MultiRequest* r) {
  if (!RegionTable(r->region, &r->table)) return false;
  for (const Action& a : r->actions) {
    if (a.kind == ActionKind::kMutation && !PlainMutation(a.mutation)) return false;
    if (!InRegion(a.kind == ActionKind::kGet ? a.get.row : a.mutation.row)) return false;
  }
  return true;
}

bool CallHandler::NewFormatRegionName(ByteView name, size_t table) {
  // "T,,1.ENCODED." (the Java client's; its MD5 checked once per name).
  const size_t n = name.size();
  if (table == 0 || n != table + 3 + 34 || name[table + 1] != ',' || name[table + 2] != '1' ||
      name[table + 3] != '.' || name[n - 1] != '.')
    return false;
  if (name == ByteView(known_region_)) return true;
  if (RegionIndex(name.str(), service_->layout()) != 0) return false;
  known_region_.assign(name.str());
  return true;
}

bool CallHandler::TryFast(Method m, const Call& c, ByteView body, ByteBuffer* out) {
  const size_t start = out->size();
  out->Extend(4);
  rpc::CallHeader h;
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
    const auto [cls, text] = RegionFailure(outcome.error);
    Fail(c.id, cls, text, false, out);
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
         {exceptions::kNotServingRegion, exceptions::kWrongRegion, exceptions::kUnknownScanner,
          exceptions::kOutOfOrderScannerNext, exceptions::kUnknownProtocol,
          exceptions::kIOException, exceptions::kRegionTooBusy}) {
      if (msg.compare(0, known.size(), known) == 0 && msg.size() > known.size() + 1 &&
          msg[known.size()] == ':') {
        cls = known;
        msg = msg.substr(known.size() + 2);
        dnr = known != exceptions::kIOException && known != exceptions::kNotServingRegion &&
              known != exceptions::kRegionTooBusy && known != exceptions::kWrongRegion;
        break;
      }
    }
    Fail(c.id, cls, msg, dnr, out);
  };
  if (c.method == "Get") {
    hbase::GetResponse resp;
    return answer(resp, [&](hbase::GetResponse* r) { return DoGet(c, r); });
  }
  if (c.method == "Mutate") {
    hbase::MutateResponse resp;
    return answer(resp, [&](hbase::MutateResponse* r) { return DoMutate(c, r); });
  }
  if (c.method == "Multi") {
    hbase::MultiResponse resp;
    return answer(resp, [&](hbase::MultiResponse* r) { return DoMulti(c, r); });
  }
  if (c.method == "Scan") {
    hbase::ScanResponse resp;
    return answer(resp, [&](hbase::ScanResponse* r) { return DoScan(c, r); });
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

}  // namespace wirebench::hbaserpc
