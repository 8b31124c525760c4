#include "transports/wirebench/client.h"

#include <boost/asio.hpp>
#include <chrono>
#include <future>

#include "rpc/asio_io.h"

namespace wirebench::wbrpc {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

// "2 s" or "1500 ms".
std::string DurationText(int ms) {
  return ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
}

// Statuses after which the server closes the connection (common/protocol.h).
bool ClosesConnection(uint8_t status) {
  switch (CallStatus(status)) {
    case CallStatus::kCallTooLarge:
    case CallStatus::kBadPreamble:
    case CallStatus::kOverloaded:
    case CallStatus::kShuttingDown:
      return true;
    default:
      return false;
  }
}
}  // namespace

std::string FrameLimitText(uint32_t bytes) {
  if (bytes != 0 && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes != 0 && bytes % (1u << 10) == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

std::string PrintablePrefix(ByteView bytes, size_t max_chars) {
  std::string text;
  for (size_t i = 0; i < bytes.size(); ++i) {
    const uint8_t c = bytes[i];
    if (c == '\r' || c == '\n') break;
    if (c < 0x20 || c > 0x7e) return i < 4 ? std::string() : text;  // Not text at all.
    if (text.size() == max_chars) return text + "...";
    text.push_back(char(c));
  }
  return text;
}

Status RequestTooLargeError(size_t length, uint32_t limit) {
  return Status::InvalidArgument("request of " + std::to_string(length) + " bytes exceeds the " +
                                 FrameLimitText(limit) +
                                 " frame limit (--max-frame on the server); make the request "
                                 "smaller or raise --max-frame");
}

Status PreambleUnansweredError(const std::string& peer, int timeout_ms) {
  return Status::Unavailable(peer + " did not answer the wirebench preamble within " +
                             DurationText(timeout_ms) + ": is it a wirebench server?");
}

Status ServerClosedError(const std::string& peer, const FrameHeader& h, ByteView payload) {
  return Status::Unavailable("server " + peer + " closed the connection (" +
                             std::string(CallStatusName(CallStatus(h.status))) +
                             "): " + payload.ToString());
}

Status BadReplyError(const std::string& peer, bool had_valid_frame, ByteView received,
                     const std::string& why) {
  if (had_valid_frame)
    return Status::Corruption("bad reply frame from server " + peer + ": " + why);
  // Nothing valid has come back yet: the peer speaks another protocol.
  const std::string text = PrintablePrefix(received);
  return Status::Unavailable(
      peer + " is not a wirebench server: " +
      (text.empty() ? "its first reply is not a wirebench frame (" + why + ")"
                    : "it answered '" + text + "'"));
}

Status ConnectionLostError(const std::string& peer, std::string cause,
                           bool preamble_unanswered) {
  if (preamble_unanswered)
    cause += " before answering the wirebench preamble (is it a wirebench server?)";
  return Status::Unavailable("connection to server " + peer + " lost: " + cause);
}

asio::awaitable<StatusOr<std::shared_ptr<ClientConnection>>> ClientConnection::Connect(
    asio::io_context& ctx, ClientOptions options) {
  tcp::socket socket(ctx);
  const rpc::DialOptions dial{options.host, options.port, options.tcp_nodelay,
                              "is `wirebench server` running there?"};
  Status dialed = co_await rpc::Dial(socket, dial);
  if (!dialed.ok()) co_return dialed;
  auto conn = std::make_shared<ClientConnection>(ctx, std::move(socket), std::move(options));
  conn->StartLoops();
  co_return conn;
}

ClientConnection::ClientConnection(asio::io_context& ctx, tcp::socket socket,
                                   ClientOptions options)
    : NetClient(ctx, std::move(socket), options.host + ":" + std::to_string(options.port)),
      options_(std::move(options)),
      handshake_timer_(ctx) {
  WritePreamble(options_.codec_id, &q_.out);
}

ClientConnection::~ClientConnection() = default;

ByteBuffer* ClientConnection::BeginCall(uint8_t method, rpc::PendingCall* pending,
                                        uint32_t* call_id) {
  uint32_t id;
  if (!BeginRequest(pending, {}, &id)) return nullptr;
  BeginFrame(&q_.out, id, method, 0);
  if (call_id) *call_id = id;
  return &q_.out;
}

void ClientConnection::Send() {
  const size_t length = q_.out.size() - request_start() - kLengthSize;
  if (length > options_.max_request_frame) {
    rpc::PendingCall* p = open_call().pending;
    Abandon();
    p->OnFailure(RequestTooLargeError(length, options_.max_request_frame));
    return;
  }
  EndFrame(&q_.out, request_start());
  RequestQueued();
  if (!handshake_armed_) ArmHandshakeTimer();
  WakeWriter();
}

void ClientConnection::ArmHandshakeTimer() {
  handshake_armed_ = true;
  if (answered() || options_.handshake_timeout_ms <= 0) return;
  handshake_timer_.expires_after(std::chrono::milliseconds(options_.handshake_timeout_ms));
  auto self = shared_from_this();
  handshake_timer_.async_wait([self](const boost::system::error_code& ec) {
    if (ec || self->answered() || self->closed()) return;
    self->Fail(PreambleUnansweredError(self->peer(), self->options_.handshake_timeout_ms));
  });
}

void ClientConnection::CloseFromAnyThread() {
  asio::post(ctx_, [self = shared_from_this()] { self->Close(); });
}

void ClientConnection::DispatchFrame(const Frame& f) {
  ++stats_.frames_in;
  const FrameHeader& h = f.header;
  if (h.status != uint8_t(CallStatus::kOk) && (h.call_id == 0 || ClosesConnection(h.status))) {
    // The server is closing the connection (bad preamble, unknown codec,
    // limits, an oversized frame): keep its reason for every call it strands.
    if (error_.ok()) error_ = ServerClosedError(peer(), h, f.payload);
    if (h.call_id == 0) return;
  }
  rpc::PendingCall* p = slots_.Finish(h.call_id).pending;
  if (p == nullptr) {
    ++stats_.stray_replies;
    return;
  }
  p->OnReply(h, f.payload);
}

size_t ClientConnection::ConsumeReplies(ByteView in, size_t* unit) {
  size_t pos = 0;
  std::string why;  // Set only for a bad frame, which ends the loop.
  for (;;) {
    Frame f;
    ByteView rest(in.data() + pos, in.size() - pos);
    ParseResult r = ParseFrame(rest, options_.max_frame, &f, &why);
    if (r == ParseResult::kNeedMore) {
      if (rest.size() >= kLengthSize) *unit = kLengthSize + LoadLE32(rest.data());
      return pos;
    }
    if (r == ParseResult::kBad) {
      FailBadReply(in, why);
      return pos;
    }
    DispatchFrame(f);
    pos += f.total_size;
  }
}

void ClientConnection::FailBadReply(ByteView in, const std::string& why) {
  Fail(BadReplyError(peer(), stats_.frames_in > 0, in, why));
}

void ClientConnection::OnReadError(const boost::system::error_code& ec) {
  Fail(ConnectionLostError(peer(), rpc::LossCause(ec), !answered() && inflight() > 0));
}

Status ClientConnection::WriteError(const boost::system::error_code& ec) const {
  return Status::Unavailable("cannot write to server " + peer() + ": " + ec.message());
}

namespace {

// A PendingCall that hands its outcome to a waiting thread through a promise.
struct ReplyPromise final : rpc::PendingCall {
  void OnReply(const rpc::CallHeader& h, ByteView p) override {
    if (h.status != uint8_t(CallStatus::kOk)) {
      Complete(Status::Unavailable(std::string(CallStatusName(CallStatus(h.status))) + ": " +
                                   p.ToString()));
    } else {
      Complete(p.ToString());
    }
  }
  void OnFailure(const Status& s) override { Complete(s); }
  void Complete(StatusOr<std::string> r) {
    if (completed) return;
    completed = true;
    done.set_value(std::move(r));
  }
  bool completed = false;
  uint32_t call_id = 0;
  std::promise<StatusOr<std::string>> done;
};

}  // namespace

StatusOr<std::string> CallOnce(const ClientOptions& options, Method method, ByteView payload,
                               int timeout_ms) {
  ReplyPromise waiter;
  auto reply = waiter.done.get_future();
  asio::io_context ctx(1);
  Status result = Status::Unavailable("no reply from server " + options.host + ":" +
                                      std::to_string(options.port) + " within " +
                                      std::to_string(timeout_ms) + " ms");
  std::shared_ptr<ClientConnection> conn;
  asio::co_spawn(
      ctx,
      [&]() -> asio::awaitable<void> {
        auto c = co_await ClientConnection::Connect(ctx, options);
        if (!c.ok()) {
          result = c.status();
          ctx.stop();
          co_return;
        }
        conn = *c;
        ByteBuffer* out = conn->BeginCall(uint8_t(method), &waiter);
        if (out == nullptr) {
          result = conn->error();
          ctx.stop();
          co_return;
        }
        out->Append(payload);
        conn->Send();
      },
      asio::detached);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!waiter.completed && !ctx.stopped() && std::chrono::steady_clock::now() < deadline)
    ctx.run_one_for(std::chrono::milliseconds(50));
  const bool completed = waiter.completed;
  // Close fails the call if it is still pending, so `waiter` is never
  // touched after this function returns.
  if (conn) conn->Close();
  ctx.restart();
  ctx.poll();
  if (completed) return reply.get();
  return result;
}

StatusOr<std::string> CallFromOtherThread(ClientConnection& conn, Method method,
                                          ByteView payload, std::chrono::milliseconds timeout) {
  // Shared with the connection's thread: it lives until the call can no
  // longer be completed (replied, failed or cancelled there).
  auto waiter = std::make_shared<ReplyPromise>();
  auto reply = waiter->done.get_future();
  auto self = conn.shared_from_this();
  asio::post(conn.context(), [self, waiter, method, body = payload.ToString()] {
    ByteBuffer* out = self->BeginCall(uint8_t(method), waiter.get(), &waiter->call_id);
    if (out == nullptr) {
      waiter->Complete(self->ok() ? Status::ResourceExhausted("too many calls in flight on " +
                                                              self->peer())
                                  : self->error());
      return;
    }
    out->Append(ByteView(body));
    self->Send();
  });
  if (reply.wait_for(timeout) == std::future_status::ready) return reply.get();
  // Unregister the call on its own thread; `waiter` stays alive until then.
  asio::post(conn.context(), [self, waiter] { self->Cancel(waiter->call_id); });
  return Status::Unavailable("no " + std::string(MethodName(method)) + " reply from server " +
                             conn.peer() + " within " +
                             DurationText(int(timeout.count())));
}

}  // namespace wirebench::wbrpc
