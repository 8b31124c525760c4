#include "transports/grpc/grpc_client.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <optional>
#include <string>

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include "transports/grpc/completion_drain.h"

namespace wirebench::grpcrpc {

namespace asio = boost::asio;

namespace {

// What a peer did with an HTTP/2 client preface (see ProbeHttp2).
struct Http2Probe {
  bool not_http2 = false;  // It answered, or closed, but not as HTTP/2 does.
  std::string what;        // What it did instead.
};

// Connects to host:port, sends the HTTP/2 client preface and an empty
// SETTINGS frame, and reads the first 9 bytes back: an HTTP/2 server's
// first frame is its SETTINGS (type 4). Used once a gRPC channel fails to
// connect, so a peer that speaks something else (a wirebench server, a web
// server) is named at once instead of after the connect timeout. A peer
// that cannot be reached, or says nothing within `timeout_ms`, is not
// judged (the channel's own wait goes on).
Http2Probe ProbeHttp2(const std::string& host, uint16_t port, int timeout_ms) {
  Http2Probe r;
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* ai = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &ai) != 0 || !ai) return r;
  const int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const bool connected = fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0;
  freeaddrinfo(ai);
  if (!connected) {
    if (fd >= 0) close(fd);
    return r;
  }
  static const char kPreface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
  std::string hello(kPreface, sizeof(kPreface) - 1);
  hello += std::string("\0\0\0\x04\0\0\0\0\0", 9);  // SETTINGS, empty, stream 0.
  if (send(fd, hello.data(), hello.size(), MSG_NOSIGNAL) != ssize_t(hello.size())) {
    close(fd);
    return r;
  }
  unsigned char got[9];
  size_t n = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  bool closed = false;
  while (n < sizeof(got)) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    pollfd p{fd, POLLIN, 0};
    if (left <= 0 || poll(&p, 1, int(left)) <= 0) break;
    const ssize_t k = recv(fd, got + n, sizeof(got) - n, 0);
    if (k <= 0) {
      closed = true;
      break;
    }
    n += size_t(k);
  }
  close(fd);
  if (n == sizeof(got)) {
    if (got[3] != 4 || (got[5] | got[6] | got[7] | got[8]) != 0) {
      r.not_http2 = true;
      r.what = "answered the HTTP/2 preface with bytes that are no HTTP/2 SETTINGS frame";
    }
  } else if (closed) {
    r.not_http2 = true;
    r.what = n == 0 ? "closed the connection on the HTTP/2 preface"
                    : "answered the HTTP/2 preface with " + std::to_string(n) +
                          " byte(s) and closed the connection";
  }
  return r;
}

}  // namespace

struct GrpcConnection::Grpc {
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<grpc::GenericStub> stub;
  std::vector<std::unique_ptr<grpc::CompletionQueue>> cqs;
};

// One call slot. Owned by the connection; its address is the tag. gRPC
// holds it from Send() until its completion has been handled.
struct GrpcConnection::Call {
  uint32_t slot = 0;
  uint32_t call_id = 0;
  uint8_t method = 0;
  rpc::PendingCall* pending = nullptr;  // Null once cancelled or failed.
  ByteBuffer request;
  std::optional<grpc::ClientContext> ctx;
  std::unique_ptr<grpc::GenericClientAsyncResponseReader> reader;
  grpc::ByteBuffer reply;
  grpc::Status status;
};

StatusOr<std::shared_ptr<grpc::Channel>> OpenGrpcChannel(const GrpcClientOptions& o,
                                                         SocketCounter* counter) {
  if (o.cq_threads < 1) return Status::InvalidArgument("--grpc-cq-threads must be at least 1");
  const std::string peer = o.host + ":" + std::to_string(o.port);
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(int(o.max_message));
  args.SetMaxSendMessageSize(int(o.max_message));
  // A TCP connection of its own, as each wirebench ClientConnection has.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  if (counter) counter->InstallIn(&args);
  auto channel = grpc::CreateCustomChannel(peer, grpc::InsecureChannelCredentials(), args);
  const auto deadline =
      std::chrono::system_clock::now() + std::chrono::milliseconds(o.connect_timeout_ms);
  // Waits for the connection; the first time an attempt fails, asks the
  // peer directly whether it speaks HTTP/2 at all.
  bool probed = false;
  for (;;) {
    const grpc_connectivity_state state = channel->GetState(/*try_to_connect=*/true);
    if (state == GRPC_CHANNEL_READY) return channel;
    if (state == GRPC_CHANNEL_TRANSIENT_FAILURE && !probed) {
      probed = true;
      const Http2Probe probe = ProbeHttp2(o.host, o.port, 1000);
      if (probe.not_http2)
        return Status::Unavailable(
            peer + " does not speak gRPC: it " + probe.what +
            " (a wirebench server? then use --rpc wirebench, or point --server at a "
            "`wirebench server --rpc grpc`)");
    }
    if (!channel->WaitForStateChange(state, deadline)) break;
  }
  if (channel->GetState(false) != GRPC_CHANNEL_READY)
    return Status::Unavailable("cannot connect to gRPC server " + peer + " within " +
                               std::to_string(o.connect_timeout_ms) +
                               " ms (is `wirebench server --rpc grpc` running there?)");
  return channel;
}

StatusOr<std::shared_ptr<GrpcConnection>> GrpcConnection::Connect(asio::io_context& ctx,
                                                                  GrpcClientOptions options) {
  std::shared_ptr<GrpcConnection> c(new GrpcConnection(ctx, std::move(options)));
  auto channel = OpenGrpcChannel(c->options_, &c->socket_);
  if (!channel.ok()) return channel.status();
  c->grpc_ = std::make_unique<Grpc>();
  c->grpc_->channel = std::move(channel).value();
  c->grpc_->stub = std::make_unique<grpc::GenericStub>(c->grpc_->channel);
  for (int i = 0; i < c->options_.cq_threads; ++i) {
    c->grpc_->cqs.push_back(std::make_unique<grpc::CompletionQueue>());
    c->threads_.emplace_back([raw = c.get(), i] { raw->Drain(i); });
  }
  return c;
}

GrpcConnection::GrpcConnection(asio::io_context& ctx, GrpcClientOptions options)
    : ctx_(ctx), options_(std::move(options)), codec_metadata_(std::to_string(options_.codec_id)) {}

GrpcConnection::~GrpcConnection() {
  if (threads_.empty()) return;  // Closed (or never connected).
  // Cancels what is in flight; the queues then drain (their threads drop
  // completions, the connection being gone) and the threads end.
  for (auto& c : calls_)
    if (c->ctx) c->ctx->TryCancel();
  for (auto& cq : grpc_->cqs) cq->Shutdown();
  for (auto& t : threads_) t.join();
}

std::string GrpcConnection::peer() const {
  return options_.host + ":" + std::to_string(options_.port);
}

void GrpcConnection::Drain(int index) {
  DrainCompletionQueue(*grpc_->cqs[index], "grpc-client-cq-" + std::to_string(index),
                       weak_from_this(), ctx_, [](GrpcConnection& self, void* tag) {
                         self.OnComplete(static_cast<Call*>(tag));
                       });
}

ByteBuffer* GrpcConnection::BeginCall(uint8_t method, rpc::PendingCall* pending, uint32_t* call_id) {
  if (!error_.ok() || closed_) return nullptr;
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    if (calls_.size() >= rpc::kMaxCallsInFlight) return nullptr;
    slot = uint32_t(calls_.size());
    calls_.push_back(std::make_unique<Call>());
    calls_.back()->slot = slot;
    free_slots_.reserve(calls_.capacity());
  }
  Call* c = calls_[slot].get();
  c->call_id = call_ids_.Next(slot);
  c->method = method;
  c->pending = pending;
  c->request.Clear();
  open_slot_ = slot;
  if (call_id) *call_id = c->call_id;
  return &c->request;
}

void GrpcConnection::Send() {
  Call* c = calls_[open_slot_].get();
  open_slot_ = UINT32_MAX;
  c->ctx.emplace();
  c->ctx->AddMetadata(kGrpcCodecKey, codec_metadata_);
  // The request buffer stays untouched until the completion: no copy.
  grpc::Slice slice(c->request.data(), c->request.size(), grpc::Slice::STATIC_SLICE);
  grpc::ByteBuffer request(&slice, 1);
  grpc::CompletionQueue* cq = grpc_->cqs[next_cq_++ % grpc_->cqs.size()].get();
  // An unknown method byte goes out too, and the server refuses it.
  c->reader = grpc_->stub->PrepareUnaryCall(
      &*c->ctx,
      IsKnownMethod(c->method) ? GrpcMethodPath(Method(c->method))
                               : GrpcUnknownMethodPath(c->method),
      request, cq);
  c->reader->StartCall();
  c->reader->Finish(&c->reply, &c->status, c);
  ++inflight_;
  ++stats_.frames_out;
  payload_out_ += c->request.size();
}

void GrpcConnection::Abandon() {
  calls_[open_slot_]->pending = nullptr;
  FreeSlot(open_slot_);
  open_slot_ = UINT32_MAX;
}

void GrpcConnection::FreeSlot(uint32_t slot) {
  Call* c = calls_[slot].get();
  c->reader.reset();
  c->ctx.reset();
  free_slots_.push_back(slot);
}

void GrpcConnection::Cancel(uint32_t call_id) {
  const uint32_t slot = call_id & 0xFFFF;
  if (slot >= calls_.size()) return;
  Call* c = calls_[slot].get();
  if (c->call_id != call_id || c->pending == nullptr || !c->ctx) return;
  c->pending = nullptr;  // The slot is freed when gRPC hands the call back.
  --inflight_;
  c->ctx->TryCancel();
}

void GrpcConnection::Close() {
  if (closed_) return;
  closed_ = true;
  FailAll(error_.ok() ? Status::Aborted("gRPC connection to " + peer() + " closed by the client")
                      : error_);
  // Every call is cancelled: the queues drain promptly. Their threads only
  // post completions to ctx_ (which free the slots when they run), so
  // joining them here cannot wait on this thread.
  for (auto& cq : grpc_->cqs) cq->Shutdown();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

void GrpcConnection::FailAll(const Status& status) {
  if (error_.ok()) error_ = status;
  // Collect first: OnFailure may start new calls (which fail at once).
  std::vector<rpc::PendingCall*> failed;
  for (auto& c : calls_) {
    if (c->pending == nullptr || !c->ctx) continue;
    failed.push_back(c->pending);
    c->pending = nullptr;
    c->ctx->TryCancel();
  }
  inflight_ = 0;
  for (rpc::PendingCall* p : failed) p->OnFailure(error_);
}

void GrpcConnection::OnComplete(Call* c) {
  rpc::PendingCall* p = c->pending;
  c->pending = nullptr;
  if (p == nullptr) {  // Cancelled, or failed with the connection.
    FreeSlot(c->slot);
    return;
  }
  --inflight_;
  ++stats_.frames_in;
  Deliver(c, p);
}

// Tells `p` how call `c` ended and frees its slot (before the callback, as
// ClientConnection does; the reply bytes stay referenced by `slice`).
void GrpcConnection::Deliver(Call* c, rpc::PendingCall* p) {
  rpc::CallHeader h;
  h.call_id = c->call_id;
  h.method = c->method;
  if (c->status.ok()) {
    grpc::Slice slice;
    if (!c->reply.TrySingleSlice(&slice).ok()) c->reply.DumpToSingleSlice(&slice);
    payload_in_ += slice.size();
    c->reply.Clear();
    FreeSlot(c->slot);
    p->OnReply(h, ByteView(slice.begin(), slice.size()));
    return;
  }
  const grpc::StatusCode code = c->status.error_code();
  const std::string message = c->status.error_message();
  CallStatus status = CallStatus::kOk;
  const auto& trailers = c->ctx->GetServerTrailingMetadata();
  auto it = trailers.find(kGrpcStatusKey);
  uint8_t wb_status = 0;
  const bool refused =
      it != trailers.end() &&
      ParseSmallDecimal(std::string_view(it->second.data(), it->second.size()), &wb_status);
  if (refused) status = CallStatus(wb_status);
  FreeSlot(c->slot);
  if (refused || CallStatusOfGrpcFailure(code, &status)) {
    std::string why = refused ? message
                              : "gRPC " + std::string(GrpcCodeName(code)) + " (server " + peer() +
                                    "): " + message;
    if (!refused && status == CallStatus::kCallTooLarge)
      why += " (a message over gRPC's size limit: " + std::to_string(kGrpcMaxMessage) +
             " bytes each way on a wirebench gRPC server, like --max-frame; this client allows " +
             std::to_string(options_.max_message) + ")";
    h.status = uint8_t(status);
    p->OnReply(h, ByteView(why));
    return;
  }
  FailAll(Status::Unavailable("gRPC call to server " + peer() + " failed: " +
                              std::string(GrpcCodeName(code)) + ": " + message));
  p->OnFailure(error_);
}

const rpc::ClientConnectionStats& GrpcConnection::stats() const {
  SocketBytes b = socket_.Read();
  socket_bytes_ = b.available;
  stats_.bytes_out = b.available ? b.bytes_out : payload_out_;
  stats_.bytes_in = b.available ? b.bytes_in : payload_in_;
  return stats_;
}

bool GrpcConnection::wire_bytes_from_socket() const {
  stats();
  return socket_bytes_;
}

StatusOr<std::string> GrpcCallOnce(const GrpcClientOptions& options, Method method,
                                   ByteView payload, int timeout_ms) {
  struct Waiter final : rpc::PendingCall {
    bool done = false;
    Status status;
    std::string reply;
    void OnReply(const rpc::CallHeader& h, ByteView p) override {
      done = true;
      if (h.status == uint8_t(CallStatus::kOk)) reply = p.ToString();
      else status = Status::Unavailable(std::string(CallStatusName(CallStatus(h.status))) + ": " +
                                        p.ToString());
    }
    void OnFailure(const Status& s) override {
      done = true;
      status = s;
    }
  } waiter;
  asio::io_context ctx(1);
  GrpcClientOptions o = options;
  o.connect_timeout_ms = timeout_ms;
  auto connected = GrpcConnection::Connect(ctx, o);
  if (!connected.ok()) return connected.status();
  std::shared_ptr<GrpcConnection> conn = std::move(connected).value();
  ByteBuffer* out = conn->BeginCall(uint8_t(method), &waiter);
  out->Append(payload);
  conn->Send();
  auto work = asio::make_work_guard(ctx);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!waiter.done && std::chrono::steady_clock::now() < deadline)
    ctx.run_one_for(std::chrono::milliseconds(50));
  conn->Close();
  if (!waiter.done)
    return Status::Unavailable("no reply from gRPC server " + conn->peer() + " within " +
                               std::to_string(timeout_ms) + " ms");
  if (!waiter.status.ok()) return waiter.status;
  return waiter.reply;
}

}  // namespace wirebench::grpcrpc
