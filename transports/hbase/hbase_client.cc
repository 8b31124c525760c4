#include "codecs/schemas/Client.pb.h"
#include "codecs/schemas/RPC.pb.h"
#include "transports/hbase/hbase_client.h"

#include <boost/asio.hpp>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "codecs/hbase/key_value.h"
#include "codecs/hbase/pb_wire.h"
#include "codecs/wire_reader.h"
#include "common/calls.h"
#include "rpc/asio_io.h"
#include "rpc/net_client.h"
#include "transports/hbase/fast_reader.h"
#include "transports/hbase/hbase_protocol.h"
#include "transports/hbase/hbase_wire.pb.h"

namespace wirebench::hbaserpc {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
namespace pbw = hbasewire;
using pb::ProtoReader;
using pb::WireType;

namespace {

using rpc::kNoThrow;
constexpr uint32_t kMaxReply = 64u << 20;
// The region name the codecs write (codecs/hbase/pb_mapping.h's kRegionName is
// "usertable,,1"): table, empty start key, region id kUserRegionId.
std::string RegionNameOf(const std::string& table) {
  return table + ",," + std::to_string(kUserRegionId);
}

// The region locations found so far, per "host:port" and table.
std::mutex g_cache_mu;
std::map<std::string, std::string>& Cache() {
  static auto* m = new std::map<std::string, std::string>;
  return *m;
}

// Appends a whole call: length, delimited RequestHeader, delimited param.
void AppendCall(uint32_t call_id, std::string_view method,
                const google::protobuf::MessageLite& param, ByteBuffer* out) {
  hbase::RequestHeader h;
  h.set_call_id(call_id);
  h.set_method_name(std::string(method));
  h.set_request_param(true);
  const size_t hs = h.ByteSizeLong(), ps = param.ByteSizeLong();
  const size_t total = pb::VarintSize(hs) + hs + pb::VarintSize(ps) + ps;
  uint8_t* p = out->Extend(4 + total);
  StoreBE32(p, uint32_t(total));
  p = pb::WriteVarint(p + 4, hs);
  p = h.SerializeWithCachedSizesToArray(p);
  p = pb::WriteVarint(p, ps);
  param.SerializeWithCachedSizesToArray(p);
}

// The parts of a reply body: the exception (if any), the response message
// and the cell block, as views into the body.
struct ReplyParts {
  uint32_t call_id = kNoCallId;
  bool has_exception = false;
  ByteView exception_class, exception_text;
  ByteView message;
  ByteView block;
};

// With `header_only`, stops after the ResponseHeader (the codec reads the
// rest of a region method's reply itself).
bool ParseReply(ByteView body, ReplyParts* out, bool header_only = false) {
  ByteView header;
  if (!FastDelimited(&body, &header)) return false;
  uint64_t block_len = 0;
  Fast r(header);
  while (!r.done()) {
    uint32_t f, wt;
    if (!r.Tag(&f, &wt)) return false;
    uint64_t v;
    ByteView sub;
    if (f == 1 && wt == 0) {
      if (!r.Varint(&v)) return false;
      out->call_id = uint32_t(v);
    } else if ((f == 2 || f == 3) && wt == 2) {
      if (!r.Len(&sub)) return false;
      Fast m(sub);
      while (!m.done()) {
        uint32_t f2, wt2;
        if (!m.Tag(&f2, &wt2)) return false;
        if (f == 2 && (f2 == 1 || f2 == 2) && wt2 == 2) {
          if (!m.Len(f2 == 1 ? &out->exception_class : &out->exception_text)) return false;
        } else if (f == 3 && f2 == 1 && wt2 == 0) {
          if (!m.Varint(&block_len)) return false;
        } else if (!m.Skip(wt2)) {
          return false;
        }
      }
      if (f == 2) out->has_exception = true;
    } else if (!r.Skip(wt)) {
      return false;
    }
  }
  if (out->has_exception || header_only) return true;
  if (!FastDelimited(&body, &out->message)) return false;
  if (block_len > body.size()) return false;
  out->block = body.Sub(0, size_t(block_len));
  return true;
}

std::string ExceptionText(const ReplyParts& p) {
  std::string text = p.exception_text.ToString();
  const std::string cls = p.exception_class.ToString();
  if (text.compare(0, cls.size(), cls) != 0) text = cls + ": " + text;
  const size_t nl = text.find('\n');  // The first line; the rest is a stack.
  return nl == std::string::npos ? text : text.substr(0, nl);
}

// Reads one whole reply (length word and body) from a socket not yet
// handed to a channel.
asio::awaitable<StatusOr<std::string>> ReadOneReply(tcp::socket& socket, const std::string& where) {
  uint8_t len_bytes[4];
  auto [ec, n] = co_await asio::async_read(socket, asio::buffer(len_bytes, 4), kNoThrow);
  if (ec)
    co_return Status::Unavailable("server " + where + " closed the connection during the "
                                  "HBase handshake (" + ec.message() +
                                  "): is it `wirebench server --rpc hbase`?");
  const uint32_t len = LoadBE32(len_bytes);
  if (len > kMaxReply)
    co_return Status::Unavailable(
        "server " + where + " answered with a " + std::to_string(len) +
        "-byte frame: it does not speak HBase's RPC protocol (is it `wirebench server --rpc "
        "hbase`?)");
  std::string body(len, '\0');
  auto [ec2, n2] = co_await asio::async_read(socket, asio::buffer(body.data(), len), kNoThrow);
  if (ec2) co_return Status::Unavailable("server " + where + " cut its reply short: " + ec2.message());
  co_return body;
}

class HBaseChannel final : public std::enable_shared_from_this<HBaseChannel>,
                           public rpc::NetClient<HBaseChannel, uint8_t> {  // Extra: the method.
 public:
  // `handshake` (preamble and ConnectionHeader) and `endpoint` open the
  // connection again when the server has closed it while idle.
  HBaseChannel(asio::io_context& ctx, tcp::socket socket, std::string peer, std::string handshake,
               int connect_timeout_ms)
      : NetClient(ctx, std::move(socket), std::move(peer)),
        handshake_(std::move(handshake)),
        connect_timeout_ms_(connect_timeout_ms) {
    boost::system::error_code ignored;
    endpoint_ = socket_.remote_endpoint(ignored);
  }
  ~HBaseChannel() override { Close(); }

  using NetClient::StartLoops;

  ByteBuffer* BeginCall(uint8_t method, rpc::PendingCall* pending, uint32_t* call_id) override {
    uint32_t hid;
    // Java's call ids are non-negative ints: keep the top bit clear.
    if (!BeginRequest(pending, method, &hid, 0x7FFFFFFFu)) return nullptr;
    if (call_id) *call_id = hid;
    if (IsRegionMethod(method)) {
      // The codec writes the RequestHeader (with this id), param and block.
      q_.out.Extend(4);
      return &q_.out;
    }
    // Stats and Ping: the payload goes to side_; Send wraps it.
    side_.Clear();
    return &side_;
  }

  void Send() override {
    const auto& s = open_call();
    if (!IsRegionMethod(s.extra)) {
      pbw::WirebenchBlob blob;
      blob.set_data(side_.data(), side_.size());
      AppendCall(s.call_id,
                 s.extra == uint8_t(Method::kStats) ? "WirebenchStats" : "WirebenchPing", blob,
                 &q_.out);
    } else {
      StoreBE32(q_.out.data() + request_start(),
                uint32_t(q_.out.size() - request_start() - 4));
    }
    RequestQueued();
    if (disconnected_) {
      Reconnect();
      return;
    }
    WakeWriter();
  }

 private:
  // The core's hooks.
  friend class rpc::NetClient<HBaseChannel, uint8_t>;

  static bool IsRegionMethod(uint8_t m) {
    return m == uint8_t(Method::kMutate) || m == uint8_t(Method::kGet) ||
           m == uint8_t(Method::kScan) || m == uint8_t(Method::kMulti);
  }

  // The writer holds its output while the connection is being opened again.
  bool Writable() const { return !disconnected_; }

  // The server closed the connection while no call was in flight (HBase's
  // server closes idle connections once it holds many). As HBase's client
  // does, the next call opens a new one: calls wait in out() meanwhile.
  // Closing a connection with a call in flight still fails the call.
  bool ClosedWhileIdle(const boost::system::error_code& ec) const {
    return ec == asio::error::eof && error_.ok() && slots_.inflight() == 0 &&
           q_.writing.empty() && request_start() == SIZE_MAX;
  }

  void OnReadError(const boost::system::error_code& ec) {
    if (ClosedWhileIdle(ec)) {
      boost::system::error_code ignored;
      socket_.close(ignored);
      disconnected_ = true;
      return;
    }
    Fail(Status::Unavailable("connection to HBase server " + peer_ + " lost: " +
                             rpc::LossCause(ec)));
  }

  Status WriteError(const boost::system::error_code& ec) const {
    return Status::Unavailable("cannot write to HBase server " + peer_ + ": " + ec.message());
  }

  void Reconnect() {
    if (reconnecting_) return;
    reconnecting_ = true;
    auto self = shared_from_this();
    asio::co_spawn(ctx_, [self]() { return self->Reopen(); }, asio::detached);
  }

  asio::awaitable<void> Reopen() {
    auto self = shared_from_this();
    boost::system::error_code ec;
    socket_ = tcp::socket(ctx_);
    rpc::SocketDeadline deadline(ctx_, std::chrono::milliseconds(connect_timeout_ms_));
    deadline.Arm(socket_);
    std::tie(ec) = co_await socket_.async_connect(endpoint_, kNoThrow);
    if (!ec) {
      socket_.set_option(tcp::no_delay(true), ec);
      size_t n = 0;
      std::tie(ec, n) = co_await asio::async_write(
          socket_, asio::buffer(handshake_.data(), handshake_.size()), kNoThrow);
    }
    deadline.Cancel();
    reconnecting_ = false;
    if (closed()) co_return;
    if (ec) {
      Fail(Status::Unavailable("HBase server " + peer_ +
                               " closed the idle connection and connecting again failed: " +
                               ec.message() + " (is the server still running?)"));
      co_return;
    }
    disconnected_ = false;
    in_.Clear();
    StartReading();
    q_.Wake();
  }

  void Dispatch(ByteView body) {
    ++stats_.frames_in;
    ReplyParts parts;
    if (!ParseReply(body, &parts, /*header_only=*/true)) {
      Fail(Status::Corruption("bad reply from HBase server " + peer_ +
                              ": its ResponseHeader or response does not parse"));
      return;
    }
    if (parts.call_id == kNoCallId) {
      // The server refuses the connection (call id -1): every call fails with its reason.
      FailAll(Status::Unavailable("HBase server " + peer_ + " closed the connection: " +
                                  ExceptionText(parts)));
      return;
    }
    const auto s = slots_.Finish(parts.call_id);
    if (s.pending == nullptr) {
      ++stats_.stray_replies;
      return;
    }
    rpc::CallHeader h;
    h.call_id = s.call_id;
    h.method = s.extra;
    if (parts.has_exception) {
      h.status = uint8_t(CallStatus::kServerError);
      const std::string text = ExceptionText(parts);
      s.pending->OnReply(h, ByteView(text));
      return;
    }
    h.status = uint8_t(CallStatus::kOk);
    if (IsRegionMethod(s.extra)) {
      s.pending->OnReply(h, body);
      return;
    }
    DispatchSideReply(s.pending, h, body);
  }

  // WirebenchStats / WirebenchPing: the blob's bytes.
  void DispatchSideReply(rpc::PendingCall* pending, const rpc::CallHeader& h, ByteView body) {
    ReplyParts parts;
    ByteView data;
    if (!ParseReply(body, &parts)) {
      pending->OnFailure(Status::Corruption("bad Stats/Ping reply from HBase server " + peer_));
      return;
    }
    ProtoReader r(parts.message);
    while (!r.done()) {
      uint32_t f;
      WireType wt;
      if (!r.NextTag(&f, &wt)) break;
      if (f == 1 && wt == WireType::kLen) {
        if (!r.Len(&data)) break;
      } else if (!r.Skip(wt)) {
        break;
      }
    }
    pending->OnReply(h, data);
  }

  // Each reply: HBase's 4-byte big-endian length, then its body.
  [[gnu::flatten]] size_t ConsumeReplies(ByteView in, size_t* unit) {
    size_t pos = 0;
    while (in.size() - pos >= 4) {
      const uint32_t len = LoadBE32(in.data() + pos);
      if (len > kMaxReply) {
        Fail(Status::Corruption("HBase server " + peer_ + " sent a " + std::to_string(len) +
                                "-byte reply, above the client's limit"));
        return pos;
      }
      if (in.size() - pos < 4 + size_t(len)) {
        *unit = 4 + size_t(len);
        break;
      }
      Dispatch(ByteView(in.data() + pos + 4, len));
      pos += 4 + len;
      if (closed()) break;
    }
    return pos;
  }

  std::string handshake_;
  int connect_timeout_ms_;
  tcp::endpoint endpoint_;
  bool disconnected_ = false;  // Closed by the server while idle; the next call reconnects.
  bool reconnecting_ = false;
  ByteBuffer side_;  // The payload of a Stats or Ping call.
};

// A null cluster's catalog (hbase:meta on server 0) against its plan: the
// table's every region, split where the plan splits it, each on the server
// the plan gives it, named as the codecs name it.
Status CheckClusterCatalog(const HBaseClientOptions& o, const std::string& where,
                           const std::vector<Cell>& cells) {
  const ClusterPlan& plan = *o.cluster;
  const RegionLayout& layout = plan.layout;
  const std::string differs = "hbase:meta on " + where + " does not list table '" + o.table +
                              "' as the client's plan has it (--cluster, --cluster-regions, "
                              "--cluster-split must be the servers'): ";
  std::vector<bool> seen(layout.regions(), false);
  for (size_t i = 0; i < cells.size(); ++i) {
    if (cells[i].family.str() != "info" || cells[i].qualifier.str() != "regioninfo") continue;
    ByteView server;
    for (size_t j = 0; j < cells.size(); ++j)
      if (cells[j].row == cells[i].row && cells[j].family.str() == "info" &&
          cells[j].qualifier.str() == "server")
        server = cells[j].value;
    pbw::RegionInfo ri;
    const ByteView info = cells[i].value;
    if (info.size() < 4 || std::memcmp(info.data(), "PBUF", 4) != 0 ||
        !ri.ParseFromArray(info.data() + 4, int(info.size() - 4)))
      return Status::Corruption(differs + "a region's info:regioninfo does not parse");
    const int index = layout.RegionStartingAt(ri.start_key());
    if (index < 0 || ri.end_key() != layout.EndKey(uint32_t(index)) ||
        ri.region_id() != kUserRegionId)
      return Status::Unimplemented(differs + "it has a region from '" + ri.start_key() +
                                   "' to '" + ri.end_key() + "'");
    const rpc::Endpoint& holder = plan.servers[plan.ServerOfRegion(uint32_t(index))];
    const std::string expected = holder.host + ":" + std::to_string(holder.port);
    if (server.str() != expected)
      return Status::Unimplemented(differs + "region " + std::to_string(index) + " is on '" +
                                   server.ToString() + "', the plan says '" + expected + "'");
    seen[size_t(index)] = true;
  }
  for (uint32_t r = 0; r < layout.regions(); ++r)
    if (!seen[r])
      return Status::Unimplemented(differs + "region " + std::to_string(r) + " (from '" +
                                   layout.StartKey(r) + "') is missing");
  return Status::Ok();
}

// Checks hbase:meta's answer for `table`: one region covering every key,
// on the server connected to, named as the codecs name it.
Status CheckLocation(const HBaseClientOptions& o, const std::string& where, const ReplyParts& p) {
  hbase::ScanResponse resp;
  if (!resp.ParseFromArray(p.message.data(), int(p.message.size())))
    return Status::Corruption("hbase:meta lookup on " + where + ": the ScanResponse does not parse");
  std::vector<Cell> cells;
  for (const auto& r : resp.results())
    for (const auto& c : r.cell()) {
      Cell cell;
      cell.row = ByteView(c.row());
      cell.family = ByteView(c.family());
      cell.qualifier = ByteView(c.qualifier());
      cell.value = ByteView(c.value());
      cells.push_back(cell);
    }
  WireReader block(p.block);
  while (!block.done()) {
    Cell cell;
    if (!pb::ReadKeyValue(block, &cell))
      return Status::Corruption("hbase:meta lookup on " + where + ": malformed cell block");
    cells.push_back(cell);
  }
  if (o.cluster != nullptr) return CheckClusterCatalog(o, where, cells);
  const std::string not_found = "hbase:meta on " + where + " has no region for table '" +
                                o.table + "'";
  ByteView regioninfo, server;
  for (const Cell& c : cells) {
    if (c.family.str() != "info") continue;
    if (c.qualifier.str() == "regioninfo") regioninfo = c.value;
    if (c.qualifier.str() == "server") server = c.value;
  }
  if (regioninfo.size() < 4 || std::memcmp(regioninfo.data(), "PBUF", 4) != 0)
    return Status::NotFound(not_found + " (no PBUF info:regioninfo in its answer)");
  pbw::RegionInfo ri;
  if (!ri.ParseFromArray(regioninfo.data() + 4, int(regioninfo.size() - 4)))
    return Status::Corruption(not_found + " (its info:regioninfo does not parse)");
  const std::string_view table = o.table;
  const std::string qualifier(table.substr(table.find(':') == std::string_view::npos
                                               ? 0
                                               : table.find(':') + 1));
  if (ri.table_name().qualifier() != qualifier)
    return Status::NotFound(not_found + " (it answered table '" + ri.table_name().qualifier() +
                            "')");
  if (!ri.start_key().empty() || !ri.end_key().empty())
    return Status::Unimplemented(
        "hbase:meta on " + where + " splits table '" + o.table +
        "' into several regions; wirebench's hbase client addresses one region per table "
        "(it follows no splits): start the server with --regions-per-table 1 for it (HBase's "
        "own clients, the npm and Java ones, follow splits)");
  const std::string name = o.table + ",," + std::to_string(ri.region_id());
  if (name != RegionNameOf(o.table))
    return Status::Unimplemented("hbase:meta on " + where + " names the region '" + name +
                                 "'; wirebench's codecs address '" + RegionNameOf(o.table) +
                                 "' (region id " + std::to_string(kUserRegionId) + ")");
  const std::string sv = server.ToString();
  const size_t colon = sv.rfind(':');
  if (colon == std::string::npos || sv.substr(colon + 1) != std::to_string(o.port))
    return Status::Unimplemented("hbase:meta on " + where + " places table '" + o.table +
                                 "' on '" + sv +
                                 "', another server; wirebench's hbase client talks to the "
                                 "server it was given (--server) and follows no region moves");
  return Status::Ok();
}

bool IsLocated(const std::string& key) {
  std::lock_guard<std::mutex> lock(g_cache_mu);
  return Cache().count(key) > 0;
}

void RememberLocation(const std::string& key, std::string region) {
  std::lock_guard<std::mutex> lock(g_cache_mu);
  Cache()[key] = std::move(region);
}

}  // namespace

void ClearRegionCache() {
  std::lock_guard<std::mutex> lock(g_cache_mu);
  Cache().clear();
}

namespace {

// The connection's preamble ("HBas", version, auth) and ConnectionHeader,
// as the Java client sends them.
ByteBuffer Preamble(const HBaseClientOptions& o) {
  ByteBuffer hello;
  hello.Append(kRpcHeader, 4);
  hello.PushBack(kRpcVersion);
  hello.PushBack(kAuthSimple);
  pbw::ConnectionHeader ch;
  ch.mutable_user_info()->set_effective_user("wirebench");
  ch.set_service_name(std::string(kClientService));
  if (o.cell_blocks) ch.set_cell_block_codec_class(std::string(kKeyValueCodecClass));
  ch.mutable_version_info()->set_version("wirebench");
  const std::string chb = ch.SerializeAsString();
  uint8_t* p = hello.Extend(4);
  StoreBE32(p, uint32_t(chb.size()));
  hello.Append(ByteView(chb));
  return hello;
}

// The Java client's region lookup: a reversed scan of hbase:meta from the
// row's meta key down to the table's first possible region.
// A null cluster's client reads every region of the table at once: a
// forward scan of the table's rows of hbase:meta.
void AppendMetaLookup(const HBaseClientOptions& o, ByteBuffer* out) {
  const std::string& table = o.table;
  hbase::ScanRequest sr;
  sr.mutable_region()->set_type(hbase::RegionSpecifier::REGION_NAME);
  sr.mutable_region()->set_value(std::string(kMetaRegionName));
  hbase::Scan* scan = sr.mutable_scan();
  scan->add_column()->set_family("info");
  if (o.cluster != nullptr) {
    const uint32_t regions = o.cluster->layout.regions();
    scan->set_start_row(table + ",,");
    scan->set_caching(regions);
    sr.set_number_of_rows(regions);
    sr.set_close_scanner(true);
    AppendCall(0, "Scan", sr, out);
    return;
  }
  scan->set_start_row(table + ",user,99999999999999");
  scan->set_stop_row(table + ",,");
  scan->set_include_stop_row(true);
  scan->set_reversed(true);
  scan->set_caching(1);
  sr.set_number_of_rows(1);
  sr.set_close_scanner(true);
  AppendCall(0, "Scan", sr, out);
}

// The reply to the lookup: in time, an HBase reply, no exception, and a
// location this client can use (CheckLocation).
Status CheckMetaReply(const HBaseClientOptions& o, const std::string& where, bool timed_out,
                      const StatusOr<std::string>& body) {
  if (timed_out)
    return Status::Unavailable("server " + where + " did not answer the hbase:meta lookup "
                               "within " + std::to_string(o.connect_timeout_ms) +
                               " ms: is it `wirebench server --rpc hbase`?");
  if (!body.ok()) return body.status();
  ReplyParts parts;
  if (!ParseReply(ByteView(*body), &parts))
    return Status::Unavailable("server " + where + " answered the HBase handshake with "
                               "bytes that are not an HBase reply: is it `wirebench server "
                               "--rpc hbase`?");
  if (parts.has_exception)
    return Status::Unavailable("HBase server " + where + " refused the connection: " +
                               ExceptionText(parts));
  return CheckLocation(o, where, parts);
}

}  // namespace

// g++ 12 warns -Wmismatched-new-delete on this coroutine's frame (Asio's
// awaitable_frame_base allocates and frees it with its own matching
// operators; the warning is the compiler's false positive on coroutine
// frames), and -Werror builds would fail on it.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
asio::awaitable<StatusOr<std::shared_ptr<rpc::CallChannel>>> ConnectHBase(
    asio::io_context& ctx, HBaseClientOptions o) {
  const std::string where = o.host + ":" + std::to_string(o.port);
  tcp::socket socket(ctx);
  // Connecting and the handshake are bounded: a silent peer is an error, not a hang.
  rpc::SocketDeadline deadline(ctx, std::chrono::milliseconds(o.connect_timeout_ms));
  const rpc::DialOptions dial{o.host, o.port, true,
                              "is `wirebench server --rpc hbase` running there?"};
  Status dialed = co_await rpc::Dial(socket, dial, &deadline);
  if (!dialed.ok()) co_return dialed;

  ByteBuffer hello = Preamble(o);
  const std::string handshake = hello.view().ToString();
  // A cluster's catalog is on its first server, read once (its other
  // servers are connected to after it).
  const std::string cache_key =
      o.cluster != nullptr ? ClusterServersText(*o.cluster) + "/" + o.table
                           : where + "/" + o.table;
  const bool cached =
      IsLocated(cache_key) || (o.cluster != nullptr && o.server_index != 0);
  if (!cached) AppendMetaLookup(o, &hello);
  auto [wec, wn] = co_await asio::async_write(socket, asio::buffer(hello.data(), hello.size()),
                                              kNoThrow);
  if (wec) {
    deadline.Cancel();
    co_return Status::Unavailable("cannot write to server " + where + ": " + wec.message());
  }
  if (!cached) {
    auto body = co_await ReadOneReply(socket, where);
    const bool timed_out = deadline.expired();
    deadline.Cancel();
    if (Status s = CheckMetaReply(o, where, timed_out, body); !s.ok()) co_return s;
    RememberLocation(cache_key, RegionNameOf(o.table));
  } else {
    deadline.Cancel();
  }
  auto channel = std::make_shared<HBaseChannel>(ctx, std::move(socket), where, handshake,
                                                o.connect_timeout_ms);
  channel->StartLoops();
  co_return std::shared_ptr<rpc::CallChannel>(std::move(channel));
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

}  // namespace wirebench::hbaserpc
