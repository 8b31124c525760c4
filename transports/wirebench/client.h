// The RPC client: a multiplexed connection that many logical clients share.
//
// Calls are matched to replies by call id, in any order. The connection is
// the network core's client (rpc/net_client.h: socket, reader, coalescing
// writer, call slots, failure and close); this class adds wirebench's framing.
// Every frame a logical client writes lands in the connection's output
// buffer; one writer coroutine sends whatever has accumulated while the
// previous write was in flight, so frames of many logical clients leave in as
// few writes as possible. Replies are dispatched synchronously from the reader
// to the call's PendingCall, while the payload is still in the receive buffer.
//
// The server sends nothing until it answers a call, so the first call is the
// handshake: if no byte comes back within `handshake_timeout_ms` of it, or
// what comes back is not a wirebench frame, every call fails with an error
// that says the peer is not (or does not behave as) a wirebench server.
//
// Thread-safety: a ClientConnection belongs to one io_context, which must
// be run by one thread; every method must be called on that thread, except
// CloseFromAnyThread() and CallFromOtherThread().
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include "common/bytes.h"
#include "common/counters.h"
#include "common/status.h"
#include "rpc/call_channel.h"
#include "rpc/endpoint.h"
#include "rpc/net_client.h"
#include "transports/wirebench/frame.h"

namespace wirebench::wbrpc {

// The server's endpoint, and
struct ClientOptions : rpc::Endpoint {
  // Codec announced in the preamble.
  uint8_t codec_id = 1;
  // Largest reply frame accepted.
  uint32_t max_frame = rpc::kDefaultMaxCallBytes;
  // Largest request frame the server accepts (its --max-frame). A bigger
  // request is not sent: its call fails at once, saying so.
  uint32_t max_request_frame = rpc::kDefaultMaxCallBytes;
  // How long the first call may wait for the first byte of an answer before
  // the peer is declared not to be a wirebench server. 0: no limit.
  int handshake_timeout_ms = 2000;
  bool tcp_nodelay = true;
};

class ClientConnection final : public std::enable_shared_from_this<ClientConnection>,
                               public rpc::NetClient<ClientConnection> {
 public:
  // Connects, sends the preamble and starts the reader and writer.
  static boost::asio::awaitable<StatusOr<std::shared_ptr<ClientConnection>>> Connect(
      boost::asio::io_context& ctx, ClientOptions options);

  ClientConnection(boost::asio::io_context& ctx, boost::asio::ip::tcp::socket socket,
                   ClientOptions options);
  ~ClientConnection();
  ClientConnection(const ClientConnection&) = delete;
  ClientConnection& operator=(const ClientConnection&) = delete;

  // Starts a call: writes the frame header and returns the buffer to append
  // the payload to; then call Send() (or Abandon() if encoding failed).
  // Returns nullptr if the connection has failed (see error()) or has 65535
  // calls in flight.
  ByteBuffer* BeginCall(uint8_t method, rpc::PendingCall* pending, uint32_t* call_id = nullptr);
  // Queues the call. A request over options.max_request_frame is dropped
  // instead and its PendingCall fails before Send() returns (the connection
  // stays usable).
  void Send();

  // Cancel, Abandon, ok, error, inflight, stats, peer and Close are the
  // core's (rpc/net_client.h).

  // Close() posted to the connection's thread; callable from any thread
  // (e.g. a driver stopping on request).
  void CloseFromAnyThread();
  boost::asio::io_context& context() { return ctx_; }

 private:
  // The core's hooks.
  friend class rpc::NetClient<ClientConnection>;
  // Flattened: the frame parser, the call slots and the dispatch of every
  // reply in a read inline (about 30 instructions a reply less).
  [[gnu::flatten]] size_t ConsumeReplies(ByteView in, size_t* unit);
  void OnReadError(const boost::system::error_code& ec);
  Status WriteError(const boost::system::error_code& ec) const;
  void OnAnswered() { handshake_timer_.cancel(); }
  void OnClose() { handshake_timer_.cancel(); }

  void DispatchFrame(const Frame& f);
  // The reply bytes `in` are not a frame; fails the connection.
  void FailBadReply(ByteView in, const std::string& why);
  void ArmHandshakeTimer();

  ClientOptions options_;
  boost::asio::steady_timer handshake_timer_;
  bool handshake_armed_ = false;
};

// Blocking one-shot call on a fresh connection (for Stats and Ping from
// the command line): returns the reply payload, or an error naming the
// server and the cause. Fails after `timeout_ms`.
StatusOr<std::string> CallOnce(const ClientOptions& options, Method method, ByteView payload,
                               int timeout_ms = 10000);

// Blocking call over an existing connection from a thread other than the
// connection's (whose io_context must be running): returns the reply payload
// or an error. A call that times out is unregistered from the connection
// before its waiter goes away, so a late reply or a later Close() never
// touches freed memory.
StatusOr<std::string> CallFromOtherThread(ClientConnection& conn, Method method,
                                          ByteView payload, std::chrono::milliseconds timeout);

// "16 MiB", "64 KiB" or "1000 bytes": a frame limit, for messages.
std::string FrameLimitText(uint32_t bytes);
// The printable first line of what a peer sent ("HTTP/1.0 200 OK"), at most
// `max_chars` long (with "..." if cut); empty when it does not start with text.
std::string PrintablePrefix(ByteView bytes, size_t max_chars = 40);

// The errors a client of the wirebench protocol fails its calls with, worded
// the same by every such client (ClientConnection, and the OS-thread model's
// WirebenchSharedConnection for --thread-model os).
// A request frame of `length` bytes over the server's `limit`.
Status RequestTooLargeError(size_t length, uint32_t limit);
// Nothing came back within `timeout_ms` of the first request.
Status PreambleUnansweredError(const std::string& peer, int timeout_ms);
// The server's connection-level error frame (header h, its text in payload).
Status ServerClosedError(const std::string& peer, const FrameHeader& h, ByteView payload);
// A reply frame that does not parse (`why`): corruption once valid frames
// have come back, else a peer that speaks another protocol (`received` is
// what it sent).
Status BadReplyError(const std::string& peer, bool had_valid_frame, ByteView received,
                     const std::string& why);
// The connection ended (`cause`: "closed by the server" or the socket error),
// perhaps before the server answered anything sent to it.
Status ConnectionLostError(const std::string& peer, std::string cause,
                           bool preamble_unanswered);

}  // namespace wirebench::wbrpc
