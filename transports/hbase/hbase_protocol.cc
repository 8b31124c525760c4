#include "codecs/schemas/RPC.pb.h"
#include "transports/hbase/hbase_protocol.h"

#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "codecs/hbase/pb_wire.h"
#include "rpc/net_server.h"
#include "transports/hbase/hbase_calls.h"
#include "transports/hbase/hbase_wire.pb.h"

namespace wirebench::hbaserpc {

namespace pbw = hbasewire;

namespace {

// VersionInfoUtil.hasMinimumVersion: the client's version at least
// major.minor (version_major/version_minor, else the version string's first
// two numbers); no version_info, or one that does not parse, is not.
bool HasMinimumVersion(const pbw::ConnectionHeader& h, uint32_t major, uint32_t minor) {
  if (!h.has_version_info()) return false;
  const pbw::VersionInfo& v = h.version_info();
  if (v.has_version_major() && v.has_version_minor()) {
    if (v.version_major() != major) return v.version_major() > major;
    return v.version_minor() >= minor;
  }
  // The version string split at '.' and '-' ("2.5.8-SNAPSHOT"), as
  // getVersionComponents; a part that is no number: false.
  std::vector<std::string> parts;
  std::string part;
  for (char c : v.version() + ".") {
    if (c == '.' || c == '-') {
      parts.push_back(part);
      part.clear();
    } else {
      part.push_back(c);
    }
  }
  auto number = [&](size_t i, uint64_t* out) {
    *out = 0;
    if (i >= parts.size()) return true;
    const std::string& p = parts[i];
    if (p.empty() || p.size() > 9 || p.find_first_not_of("0123456789") != std::string::npos)
      return false;
    *out = std::stoull(p);
    return true;
  };
  uint64_t client_major, client_minor;
  if (!number(0, &client_major)) return false;
  if (client_major != major) return client_major > major;
  return number(1, &client_minor) && client_minor >= minor;
}

std::string Printable(ByteView b) {
  std::string s;
  for (uint8_t c : b) {
    if (c >= 0x20 && c < 0x7F) {
      s.push_back(char(c));
    } else {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      s += buf;
    }
  }
  return s;
}

}  // namespace

ConnectionCore::ConnectionCore(HBaseService* service, StatsSource* stats_source,
                               HBaseIoStats* stats, uint32_t max_frame)
    : service_(service), stats_source_(stats_source), stats_(stats), max_frame_(max_frame) {}

ConnectionCore::~ConnectionCore() = default;

void ConnectionCore::Refuse(std::string_view exception_class, const std::string& message,
                            ByteBuffer* out) {
  AppendExceptionReply(kNoCallId, exception_class, message, true, out);
  BumpShared(stats_->frames_out, 1);
  BumpShared(stats_->failed_calls, 1);
  state_ = State::kClosed;
}

size_t ConnectionCore::UnitSize(ByteView in) const {
  switch (state_) {
    case State::kPreamble:
      return kPreambleSize;
    case State::kHeader:
    case State::kCalls:
      return in.size() >= 4 ? 4 + size_t(LoadBE32(in.data())) : 0;
    case State::kClosed:
      return 0;
  }
  return 0;
}

size_t ConnectionCore::Consume(ByteView in, ByteBuffer* out, bool* close) {
  size_t pos = 0;
  *close = false;
  // host_->Backlogged() (an HBase connection never holds), read once: the
  // queue's room holds until this returns, and `out` is the host's queue.
  const size_t out_limit =
      host_ != nullptr ? out->size() + host_->QueueRoom() : std::numeric_limits<size_t>::max();
  while (!*close && state_ != State::kClosed) {
    // A client that pipelines calls and reads nothing got every reply in
    // the read buffer built at once: 1,500 Gets of a 1 MiB row (64 KiB of
    // calls) took the server to 2.1 GB. HBase's server stops reading a
    // channel that is not writable; so does this, call by call.
    if (out->size() >= out_limit) break;
    ByteView rest(in.data() + pos, in.size() - pos);
    size_t n = 0;
    switch (state_) {
      case State::kPreamble: n = OnPreamble(rest, out, close); break;
      case State::kHeader: n = OnHeader(rest, out, close); break;
      case State::kCalls: n = OnCall(rest, out, close); break;
      case State::kClosed: break;
    }
    if (n == 0) break;
    pos += n;
    if (has_deferred_) break;
  }
  if (state_ == State::kClosed) *close = true;
  return pos;
}

size_t ConnectionCore::OnPreamble(ByteView in, ByteBuffer* out, bool* close) {
  if (in.size() < kPreambleSize) {
    // A wrong magic is refused as soon as it shows, so a peer speaking
    // another protocol does not wait for a reply it will never get.
    const size_t n = in.size() < 4 ? in.size() : 4;
    const bool maybe = std::memcmp(in.data(), kRpcHeader, n) == 0 ||
                       std::memcmp(in.data(), kRegistryPreamble, n) == 0 ||
                       std::memcmp(in.data(), kSecurityPreamble, n) == 0;
    if (maybe || n == 0) return 0;
  }
  if (in.size() >= kPreambleSize && std::memcmp(in.data(), kRegistryPreamble, 6) == 0) {
    // HBase 2.6's connection registry preamble: the cluster id, then close.
    BumpShared(stats_->registry_calls, 1);
    hbase::ResponseHeader h;
    h.set_call_id(kNoCallId);
    pbw::GetConnectionRegistryResponse r;
    r.set_cluster_id(service_->identity().cluster_id);
    AppendReply(h, &r, out);
    BumpShared(stats_->frames_out, 1);
    state_ = State::kClosed;
    *close = true;
    return kPreambleSize;
  }
  if (in.size() >= kPreambleSize && std::memcmp(in.data(), kSecurityPreamble, 6) == 0) {
    // Asking for the server principal: security is off, the real preamble follows.
    AppendExceptionReply(kNoCallId, exceptions::kSecurityNotEnabled, "security is not enabled",
                         true, out);
    BumpShared(stats_->frames_out, 1);
    return kPreambleSize;
  }
  const size_t shown = in.size() < 4 ? in.size() : 4;
  if (std::memcmp(in.data(), kRpcHeader, shown) != 0) {
    Refuse(exceptions::kFatalConnection,
           "Expected HEADER=HBas but received HEADER=" + Printable(in.Sub(0, shown)) +
               ": this is wirebench's HBase RPC port (--rpc hbase); connect an HBase client",
           out);
    *close = true;
    return in.size();
  }
  if (in.size() < kPreambleSize) return 0;
  const uint8_t version = in[4], auth = in[5];
  const std::string fatal = "serverVersion=" + std::to_string(kRpcVersion) +
                            ", clientVersion=" + std::to_string(version) +
                            ", authMethod=" + std::to_string(auth);
  if (version != kRpcVersion) {
    Refuse(exceptions::kWrongVersion, fatal + ": this server speaks RPC version 0 (HBase 0.96+)",
           out);
    *close = true;
    return kPreambleSize;
  }
  if (auth == kAuthKerberos || auth == kAuthDigest) {
    Refuse(exceptions::kAccessDenied,
           fatal + (auth == kAuthKerberos ? ", authName=KERBEROS" : ", authName=DIGEST") +
               ": wirebench has no security; connect with "
               "hbase.security.authentication=simple",
           out);
    *close = true;
    return kPreambleSize;
  }
  if (auth != kAuthSimple) {
    Refuse(exceptions::kBadAuth,
           fatal + ", authName=unknown: the only authentication wirebench takes is SIMPLE (80)",
           out);
    *close = true;
    return kPreambleSize;
  }
  state_ = State::kHeader;
  return kPreambleSize;
}

size_t ConnectionCore::OnHeader(ByteView in, ByteBuffer* out, bool* close) {
  if (in.size() < 4) return 0;
  const uint32_t len = LoadBE32(in.data());
  if (len > max_frame_) {
    Refuse(exceptions::kFatalConnection,
           "the ConnectionHeader's length " + std::to_string(len) + " is above the server's " +
               std::to_string(max_frame_) + "-byte limit (--max-frame)",
           out);
    *close = true;
    return in.size();
  }
  if (in.size() < 4 + size_t(len)) return 0;
  BumpShared(stats_->frames_in, 1);
  pbw::ConnectionHeader h;
  if (!h.ParseFromArray(in.data() + 4, int(len))) {
    Refuse(exceptions::kFatalConnection, "the ConnectionHeader does not parse", out);
    *close = true;
    return 4 + len;
  }
  if (!h.has_service_name()) {
    Refuse(exceptions::kEmptyServiceName, "the ConnectionHeader names no service", out);
    *close = true;
    return 4 + len;
  }
  if (h.service_name() == kClientService) {
    meta_service_ = false;
  } else if (h.service_name() == kClientMetaService) {
    meta_service_ = true;
  } else {
    Refuse(exceptions::kUnknownService,
           "Unknown service " + h.service_name() +
               ": wirebench serves ClientService and ClientMetaService",
           out);
    *close = true;
    return 4 + len;
  }
  if (!h.cell_block_codec_class().empty()) {
    if (h.cell_block_codec_class() != kKeyValueCodecClass) {
      Refuse(exceptions::kUnsupportedCellCodec,
             "Unsupported cell codec " + h.cell_block_codec_class() +
                 ": wirebench reads " + std::string(kKeyValueCodecClass) +
                 " cell blocks, or none (hbase.client.default.rpc.codec empty)",
             out);
      *close = true;
      return 4 + len;
    }
    if (h.has_cell_block_compressor_class() && !h.cell_block_compressor_class().empty()) {
      Refuse(exceptions::kUnsupportedCompressionCodec,
             "Unsupported compression codec " + h.cell_block_compressor_class() +
                 ": wirebench reads uncompressed cell blocks (leave "
                 "hbase.client.rpc.compressor unset)",
             out);
      *close = true;
      return 4 + len;
    }
    cell_blocks_ = true;
  }
  // RequestTooBigException is for clients of 1.2 and later (ServerRpcConnection).
  knows_request_too_big_ = HasMinimumVersion(h, 1, 2);
  handler_ = std::make_unique<CallHandler>(service_, stats_source_, stats_, cell_blocks_,
                                           meta_service_);
  handler_->set_defer_filters(defer_filters_);
  state_ = State::kCalls;
  return 4 + len;
}

size_t ConnectionCore::OnCall(ByteView in, ByteBuffer* out, bool* close) {
  if (in.size() < 4) return 0;
  const uint32_t len = LoadBE32(in.data());
  if (len > max_frame_) {
    // HBase's RequestTooBigException, with the call id when the header is
    // already in, then the connection closes.
    uint32_t call_id = kNoCallId;
    ByteView rest = in.Sub(4, in.size() - 4), header;
    if (pb::ReadDelimited(&rest, &header)) {
      hbase::RequestHeader rh;
      if (rh.ParseFromArray(header.data(), int(header.size())) && rh.has_call_id())
        call_id = rh.call_id();
    }
    // As ServerRpcConnection: RequestTooBigException to a client of 1.2 or
    // later, a DoNotRetryIOException to older ones (and before the header).
    AppendExceptionReply(call_id,
                         knows_request_too_big_ ? exceptions::kRequestTooBig
                                                : exceptions::kDoNotRetry,
                         "RPC data length of " + std::to_string(len) +
                             " received is greater than max allowed " +
                             std::to_string(max_frame_) + " (--max-frame)",
                         true, out);
    BumpShared(stats_->frames_out, 1);
    BumpShared(stats_->failed_calls, 1);
    state_ = State::kClosed;
    *close = true;
    return in.size();
  }
  if (in.size() < 4 + size_t(len)) return 0;
  BumpShared(stats_->frames_in, 1);
  if (!handler_->Handle(in.Sub(4, len), out)) {
    deferred_.assign(reinterpret_cast<const char*>(in.data()) + 4, len);
    has_deferred_ = true;
  }
  return 4 + len;
}

void ConnectionCore::RunDeferred(HBaseIoStats* stats, ByteBuffer* out) {
  if (!has_deferred_) return;
  BumpShared(stats->handler_calls, 1);
  handler_->set_defer_filters(false);
  handler_->set_stats(stats);
  handler_->Handle(ByteView(deferred_), out);
  handler_->set_stats(stats_);
  handler_->set_defer_filters(defer_filters_);
  has_deferred_ = false;
  deferred_.clear();
  deferred_.shrink_to_fit();
}

}  // namespace wirebench::hbaserpc
