// `--rpc grpc` and `--rpc grpc-native`, the gRPC transport's two entries.
//  - grpc: every codec's bytes over gRPC's generic async API
//    (transports/grpc/grpc_server.h, transports/grpc/grpc_client.h), served by the same
//    RegionService as wirebench's framing.
//  - grpc-native: gRPC's generated service for HBase's protobuf messages
//    (native_service.h), codec pb only. Its client is a CallChannel over
//    NativeConnection (gRPC's generated stub) with a matching Codec, so the
//    driver's logical clients run unchanged:
//     - NativeCodec::EncodeRequest serializes nothing: it hands the request
//       (the message model) to the channel, whose Send() starts the
//       generated call (gRPC fills and serializes the protobuf messages);
//     - the reply reaches the logical client as an empty payload, and
//       NativeCodec::DecodeResponse copies the model gRPC's reply was read
//       into (NativeReply, valid during the callback) into the client's
//       response.
//    Stats and Ping (not in the generated service) go over a second,
//    generic GrpcConnection to the same server, idle during the load.
#include <nlohmann/json.hpp>
#include <type_traits>
#include <variant>

#include "rpc/call_channel.h"
#include "transports/grpc/grpc_client.h"
#include "transports/grpc/grpc_protocol.h"
#include "transports/grpc/grpc_server.h"
#include "transports/grpc/native_client.h"
#include "transports/grpc/native_service.h"
#include "transports/grpc/process_threads.h"
#include "transports/transport.h"

namespace wirebench {

namespace {

constexpr uint32_t kNativeIdBit = 0x80000000u;  // Call ids of native calls.

class NativeChannel;

// pb's model, encoded by gRPC's generated code instead of a codec.
class NativeCodec final : public Codec {
 public:
  explicit NativeCodec(NativeChannel* channel) : channel_(channel) {}
  CodecId id() const override { return CodecId::kPb; }
  std::string_view name() const override { return "pb"; }
  bool zero_copy_decode() const override { return false; }
  Status EncodeRequest(uint32_t, const MutateRequest& r, ByteBuffer*) override;
  Status EncodeRequest(uint32_t, const GetRequest& r, ByteBuffer*) override;
  Status EncodeRequest(uint32_t, const ScanRequest& r, ByteBuffer*) override;
  Status EncodeRequest(uint32_t, const MultiRequest& r, ByteBuffer*) override;
  Status DecodeRequest(ByteView, MutateRequest*) override { return ServerSide(); }
  Status DecodeRequest(ByteView, GetRequest*) override { return ServerSide(); }
  Status DecodeRequest(ByteView, ScanRequest*) override { return ServerSide(); }
  Status DecodeRequest(ByteView, MultiRequest*) override { return ServerSide(); }
  Status EncodeResponse(uint32_t, const MutateResponse&, ByteBuffer*) override {
    return ServerSide();
  }
  Status EncodeResponse(uint32_t, const GetResponse&, ByteBuffer*) override {
    return ServerSide();
  }
  Status EncodeResponse(uint32_t, const ScanResponse&, ByteBuffer*) override {
    return ServerSide();
  }
  Status EncodeResponse(uint32_t, const MultiResponse&, ByteBuffer*) override {
    return ServerSide();
  }
  Status DecodeResponse(ByteView, MutateResponse* r) override;
  Status DecodeResponse(ByteView, GetResponse* r) override;
  Status DecodeResponse(ByteView, ScanResponse* r) override;
  Status DecodeResponse(ByteView, MultiResponse* r) override;

 private:
  static Status ServerSide() {
    return Status::Internal("grpc-native: the server side is gRPC's generated service");
  }
  NativeChannel* channel_;
};

using StagedRequest = std::variant<std::monostate, const MutateRequest*, const GetRequest*,
                                   const ScanRequest*, const MultiRequest*>;

class NativeChannel final : public rpc::CallChannel {
 public:
  NativeChannel(std::shared_ptr<NativeConnection> native,
                std::shared_ptr<grpcrpc::GrpcConnection> side)
      : native_(std::move(native)), side_(std::move(side)) {}
  ~NativeChannel() override { Close(); }

  ByteBuffer* BeginCall(uint8_t method, rpc::PendingCall* pending, uint32_t* call_id) override {
    if (!error_.ok() || closed_) return nullptr;
    if (!IsRegionMethod(Method(method))) {
      side_call_ = true;
      return side_->BeginCall(method, pending, call_id);
    }
    side_call_ = false;
    uint32_t slot;
    if (free_.empty()) {
      slot = uint32_t(slots_.size());
      slots_.push_back(std::make_unique<Slot>());
      slots_.back()->channel = this;
      slots_.back()->index = slot;
    } else {
      slot = free_.back();
      free_.pop_back();
    }
    open_ = slot;
    Slot& s = *slots_[slot];
    s.pending = pending;
    s.method = Method(method);
    s.id = kNativeIdBit | slot;
    if (call_id) *call_id = s.id;
    staged_ = std::monostate{};
    scratch_.Clear();
    return &scratch_;
  }

  void Stage(StagedRequest r) { staged_ = r; }

  void Send() override {
    if (side_call_) return side_->Send();
    Slot* s = slots_[open_].get();
    Status st = std::visit(
        [&](auto req) -> Status {
          if constexpr (std::is_same_v<decltype(req), std::monostate>) {
            return Status::Internal("grpc-native: the codec staged no request");
          } else {
            return native_->Call(*req, s);
          }
        },
        staged_);
    if (!st.ok()) {
      error_ = st;
      rpc::PendingCall* p = s->pending;
      Free(s);
      if (p) p->OnFailure(st);
      return;
    }
    ++stats_.frames_out;
  }

  void Abandon() override {
    if (side_call_) return side_->Abandon();
    Free(slots_[open_].get());
  }

  void Cancel(uint32_t call_id) override {
    if (!(call_id & kNativeIdBit)) return side_->Cancel(call_id);
    const uint32_t slot = call_id & ~kNativeIdBit;
    if (slot < slots_.size() && slots_[slot]->id == call_id) slots_[slot]->pending = nullptr;
  }

  bool ok() const override { return error_.ok() && side_->ok(); }
  const Status& error() const override { return error_.ok() ? side_->error() : error_; }
  size_t inflight() const override { return native_->inflight() + side_->inflight(); }
  const rpc::ClientConnectionStats& stats() const override {
    const grpcrpc::SocketBytes b = native_->wire_bytes();
    stats_.bytes_out = b.bytes_out;
    stats_.bytes_in = b.bytes_in;
    return stats_;
  }
  std::string peer() const override { return native_->peer(); }
  void Close() override {
    if (closed_) return;
    closed_ = true;
    native_->Close();
    side_->Close();
  }

  // The reply being delivered (valid inside PendingCall::OnReply only).
  const NativeReply* reply() const { return reply_; }

 private:
  struct Slot final : NativePendingCall {
    NativeChannel* channel = nullptr;
    rpc::PendingCall* pending = nullptr;
    Method method = Method::kPing;
    uint32_t index = 0;
    uint32_t id = 0;  // kNativeIdBit | index while in flight, else 0.
    void OnNativeReply(const Status& status, const NativeReply& reply) override {
      channel->Complete(this, status, reply);
    }
  };

  static bool IsRegionMethod(Method m) {
    return m == Method::kMutate || m == Method::kGet || m == Method::kScan || m == Method::kMulti;
  }

  void Free(Slot* s) {
    s->pending = nullptr;
    s->id = 0;
    free_.push_back(s->index);
  }

  void Complete(Slot* s, const Status& status, const NativeReply& reply) {
    rpc::PendingCall* p = s->pending;
    const uint32_t id = s->id;
    Free(s);
    if (p == nullptr) return;  // Cancelled by its owner.
    if (!status.ok()) {
      if (error_.ok()) error_ = status;
      p->OnFailure(status);
      return;
    }
    ++stats_.frames_in;
    rpc::CallHeader h;
    h.call_id = id;
    h.method = uint8_t(reply.method);
    h.status = uint8_t(CallStatus::kOk);
    reply_ = &reply;
    p->OnReply(h, ByteView());
    reply_ = nullptr;
  }

  std::shared_ptr<NativeConnection> native_;
  std::shared_ptr<grpcrpc::GrpcConnection> side_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<uint32_t> free_;
  uint32_t open_ = 0;
  bool side_call_ = false;
  bool closed_ = false;
  StagedRequest staged_;
  ByteBuffer scratch_;
  Status error_;
  const NativeReply* reply_ = nullptr;
  mutable rpc::ClientConnectionStats stats_;
};

Status NativeCodec::EncodeRequest(uint32_t, const MutateRequest& r, ByteBuffer*) {
  channel_->Stage(&r);
  return Status::Ok();
}
Status NativeCodec::EncodeRequest(uint32_t, const GetRequest& r, ByteBuffer*) {
  channel_->Stage(&r);
  return Status::Ok();
}
Status NativeCodec::EncodeRequest(uint32_t, const ScanRequest& r, ByteBuffer*) {
  channel_->Stage(&r);
  return Status::Ok();
}
Status NativeCodec::EncodeRequest(uint32_t, const MultiRequest& r, ByteBuffer*) {
  channel_->Stage(&r);
  return Status::Ok();
}

// Copies the member of the reply being delivered that `Resp` names.
template <typename Resp>
Status CopyReply(const NativeReply* reply, const Resp* NativeReply::*member,
                 Resp* out) {
  if (reply == nullptr || reply->*member == nullptr)
    return Status::Internal("grpc-native: no reply of this method is being delivered");
  *out = *(reply->*member);
  return Status::Ok();
}

Status NativeCodec::DecodeResponse(ByteView, MutateResponse* r) {
  return CopyReply(channel_->reply(), &NativeReply::mutate, r);
}
Status NativeCodec::DecodeResponse(ByteView, GetResponse* r) {
  return CopyReply(channel_->reply(), &NativeReply::get, r);
}
Status NativeCodec::DecodeResponse(ByteView, ScanResponse* r) {
  return CopyReply(channel_->reply(), &NativeReply::scan, r);
}
Status NativeCodec::DecodeResponse(ByteView, MultiResponse* r) {
  return CopyReply(channel_->reply(), &NativeReply::multi, r);
}

// The client's own option: completion-queue threads per connection.
constexpr std::string_view kCqThreads = "--grpc-cq-threads";
constexpr OptionSpec kClientOptions[] = {
    {kCqThreads, "completion-queue threads per client connection (1-64)", "1"},
};

StatusOr<int> CqThreads(const OptionSettings& given) {
  OptionSettings s = given;
  s.SetDefault(kCqThreads, "1");
  auto n = s.GetUint32(kCqThreads, 1, 64);
  if (!n.ok()) return n.status();
  return int(*n);
}

StatusOr<ClientEndpoint> ConnectGrpc(boost::asio::io_context& ctx, const EndpointOptions& o,
                                     bool native) {
  auto cq_threads = CqThreads(o.client_options);
  if (!cq_threads.ok()) return cq_threads.status();
  grpcrpc::GrpcClientOptions go;
  go.host = o.host;
  go.port = o.port;
  const CodecInfo& codec = o.codec_entry();
  go.codec_id = uint8_t(codec.id);  // The call metadata's codec.
  // grpc-native: `side` only carries Stats, on one completion-queue thread.
  go.cq_threads = native ? 1 : *cq_threads;
  auto side = grpcrpc::GrpcConnection::Connect(ctx, go);
  if (!side.ok()) return side.status();
  if (!native) return ClientEndpoint{*side, codec.factory()};
  go.cq_threads = *cq_threads;
  auto conn = NativeConnection::Connect(ctx, go);
  if (!conn.ok()) return conn.status();
  auto channel = std::make_shared<NativeChannel>(*conn, *side);
  auto native_codec = std::make_unique<NativeCodec>(channel.get());
  return ClientEndpoint{std::move(channel), std::move(native_codec)};
}

// A GrpcServer in front of the RegionService, plus, for grpc-native, gRPC's
// generated service on the region, on the same completion queues.
class GrpcServing final : public rpc::ServerWrapper {
 public:
  GrpcServing(const rpc::ServerOptions& o, Region* region, rpc::Service* service, bool native,
              const ClusterMember* cluster) {
    if (native) native_ = std::make_unique<NativeRegionService>(region, cluster);
    grpcrpc::GrpcServerOptions so;
    so.host = o.host;
    so.port = o.port;
    so.cq_threads = o.io_threads;
    so.max_message = o.max_call_bytes;
    // The wirebench transport's limits, as gRPC can hold them: calls in
    // flight per connection become HTTP/2's concurrent-stream limit, and
    // calls waiting for their message are bounded in number and time.
    so.max_streams_per_connection = o.max_inflight_per_connection;
    so.max_waiting_calls = o.max_connections;
    so.idle_timeout_ms = o.idle_timeout_ms;
    server_ = std::make_unique<grpcrpc::GrpcServer>(so, service, native_.get());
    Wrap(server_.get());
  }

 private:
  std::unique_ptr<NativeRegionService> native_;  // Outlives server_.
  std::unique_ptr<grpcrpc::GrpcServer> server_;
};

// An HTTP/2 frame header (9 bytes: length, type, flags, stream): a
// SETTINGS frame (type 4, a multiple of 6 bytes long) on stream 0, the
// server's connection preface, which a gRPC server sends unasked.
bool IsHttp2Settings(std::string_view b) {
  if (b.size() < 9) return false;
  const auto u = [&](size_t i) { return uint32_t(uint8_t(b[i])); };
  const uint32_t length = u(0) << 16 | u(1) << 8 | u(2);
  const uint32_t stream = (u(5) & 0x7f) << 24 | u(6) << 16 | u(7) << 8 | u(8);
  return u(3) == 0x04 && stream == 0 && length % 6 == 0;
}

// Both entries speak gRPC over HTTP/2.
constexpr WireProtocol kGrpcWire = {
    .family = "gRPC",
    .speaks =
        "gRPC (HTTP/2: it sent a SETTINGS frame, as a `wirebench server --rpc grpc` or "
        "`--rpc grpc-native` does)",
    .recognises = &IsHttp2Settings};

class GrpcEntry final : public Transport {
 public:
  explicit GrpcEntry(bool native)
      : Transport(
            native ? RegistryEntry("grpc-native",
                                   "gRPC's generated protobuf service for HBase's messages",
                                   {"wirebench::grpcrpc::", "wirebench::native::", "grpc::"})
                   : RegistryEntry("grpc", "every codec's bytes over gRPC's generic async API",
                                   {"wirebench::grpcrpc::", "grpc::"}),
            native ? TransportTraits{.codecs = {"pb"},
                                     .codecs_why = "gRPC's own generated protobuf service "
                                                   "for HBase's messages, which only codec "
                                                   "pb writes",
                                     .codecs_otherwise = "grpc",
                                     .wire = kGrpcWire,
                                     // The generic service's refusal
                                     // (grpc_server.cc, Serve).
                                     .mismatch_hints = {{
                                         grpcrpc::kUnknownGrpcMethod,
                                         "serves wirebench's generic gRPC service (`wirebench "
                                         "server --rpc grpc`), not gRPC's generated one: "
                                         "pass --rpc grpc, or start the server with --rpc "
                                         "grpc-native",
                                     }}}
                   : TransportTraits{.wire = kGrpcWire}),
        native_(native) {}

  // The gRPC server runs handlers inline on its completion-queue threads and
  // has its own connection handling: the flags that do not apply are refused.
  Status CheckServerOptions(const rpc::ServerOptions& s) const override {
    if (s.handlers != 0)
      return Status::InvalidArgument(
          "--handlers " + std::to_string(s.handlers) + " with --rpc " + std::string(name()) +
          ": the gRPC server runs the region inline on its completion-queue threads; use "
          "--handlers 0 and --io-threads N for N completion-queue threads");
    return Status::Ok();
  }

  StatusOr<std::unique_ptr<rpc::TransportServer>> StartServer(
      const rpc::ServerOptions& options, const OptionSettings&, Region* region,
      rpc::Service* service, const ClusterMember* cluster) const override {
    auto serving = std::make_unique<GrpcServing>(options, region, service, native_, cluster);
    WB_RETURN_IF_ERROR(serving->Start());
    return std::unique_ptr<rpc::TransportServer>(std::move(serving));
  }

  boost::asio::awaitable<StatusOr<ClientEndpoint>> Connect(
      boost::asio::io_context& ctx, EndpointOptions options) const override {
    co_return ConnectGrpc(ctx, options, native_);  // Blocks until connected (bounded).
  }

  std::span<const OptionSpec> ClientOptionSpecs() const override { return kClientOptions; }
  Status CheckClientOptions(const OptionSettings& own) const override {
    return CqThreads(own).status();
  }

  ThreadUsage OwnThreadsUsage() const override { return grpcrpc::UnregisteredThreadsUsage(); }
  CounterTotals OwnThreadsCounters() const override { return grpcrpc::UnregisteredAllocations(); }

 private:
  const bool native_;
};

}  // namespace

const Transport& GrpcTransport() {
  static const GrpcEntry entry(/*native=*/false);
  return entry;
}

const Transport& GrpcNativeTransport() {
  static const GrpcEntry entry(/*native=*/true);
  return entry;
}

}  // namespace wirebench
