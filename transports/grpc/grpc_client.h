// The gRPC client: GrpcConnection implements rpc::CallChannel over one gRPC
// channel (its own TCP connection), so the driver's logical clients run
// over gRPC with the same code as over wirebench's own RPC layer.
//
// A call: BeginCall() hands out a per-call buffer the codec appends its
// payload to; Send() starts a generic unary gRPC call with that buffer as
// the request message (a static slice: no copy on our side), the codec id
// in the metadata, and the call object as the completion-queue tag. Each of
// the connection's `cq_threads` threads drains one completion queue (gRPC
// polls the socket from inside CompletionQueue::Next there) and posts every
// completion to the owning io_context, where the call's PendingCall is told
// the outcome: OnReply with the reply payload, OnReply with a non-OK status
// for a call the server refused or a message over the size limit, and
// OnFailure, for this and every other pending call, when the connection
// itself failed (UNAVAILABLE, ...).
//
// stats(): frames are calls; bytes_out/bytes_in are wire bytes from the
// socket's TCP_INFO (transports/grpc/socket_counter.h) once gRPC has opened it,
// else payload bytes (wire_bytes_from_socket() says which); writes and
// reads are not known (gRPC does its own I/O) and stay 0.
//
// Thread-safety: like ClientConnection, a GrpcConnection belongs to one
// io_context run by one thread; every method must be called on it. Its
// completion-queue threads only post to that io_context.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "common/bytes.h"
#include "common/status.h"
#include "rpc/call_channel.h"
#include "rpc/endpoint.h"
#include "transports/grpc/grpc_protocol.h"
#include "transports/grpc/socket_counter.h"

namespace grpc {
class Channel;
}

namespace wirebench::grpcrpc {

struct GrpcClientOptions : rpc::Endpoint {
  // Codec announced in each call's metadata.
  uint8_t codec_id = 1;
  // Largest request and reply message, bytes.
  uint32_t max_message = kGrpcMaxMessage;
  // Completion queues of this connection, one draining thread each.
  int cq_threads = 1;
  // How long Connect waits for the channel to be ready.
  int connect_timeout_ms = 10000;
};

// A gRPC channel to options.host:port with wirebench's settings (message
// limits both ways, a TCP connection of its own, `counter` on its socket if
// not null), once connected: blocks at most connect_timeout_ms.
StatusOr<std::shared_ptr<grpc::Channel>> OpenGrpcChannel(const GrpcClientOptions& options,
                                                         SocketCounter* counter);

class GrpcConnection final : public rpc::CallChannel,
                             public std::enable_shared_from_this<GrpcConnection> {
 public:
  // Opens the channel and waits (blocking the calling thread, at most
  // connect_timeout_ms) until it is connected; then starts the threads.
  static StatusOr<std::shared_ptr<GrpcConnection>> Connect(boost::asio::io_context& ctx,
                                                           GrpcClientOptions options);
  ~GrpcConnection() override;
  GrpcConnection(const GrpcConnection&) = delete;
  GrpcConnection& operator=(const GrpcConnection&) = delete;

  ByteBuffer* BeginCall(uint8_t method, rpc::PendingCall* pending, uint32_t* call_id = nullptr) override;
  void Send() override;
  void Abandon() override;
  void Cancel(uint32_t call_id) override;
  bool ok() const override { return error_.ok(); }
  const Status& error() const override { return error_; }
  size_t inflight() const override { return inflight_; }
  const rpc::ClientConnectionStats& stats() const override;
  std::string peer() const override;
  void Close() override;

  // True when stats() bytes are the socket's (TCP_INFO), false when they
  // are payload bytes.
  bool wire_bytes_from_socket() const;
  uint64_t payload_bytes_out() const { return payload_out_; }
  uint64_t payload_bytes_in() const { return payload_in_; }

 private:
  struct Call;
  struct Grpc;  // gRPC objects (channel, stub, queues), kept out of this header.

  GrpcConnection(boost::asio::io_context& ctx, GrpcClientOptions options);
  void Drain(int index);
  void OnComplete(Call* call);
  void Deliver(Call* call, rpc::PendingCall* pending);
  void FailAll(const Status& status);
  void FreeSlot(uint32_t slot);

  boost::asio::io_context& ctx_;
  GrpcClientOptions options_;
  std::string codec_metadata_;
  SocketCounter socket_;
  std::unique_ptr<Grpc> grpc_;
  std::vector<std::thread> threads_;
  std::vector<std::unique_ptr<Call>> calls_;  // Slots; destroyed before grpc_.
  std::vector<uint32_t> free_slots_;
  rpc::CallIdGenerator call_ids_;
  uint32_t open_slot_ = UINT32_MAX;
  size_t next_cq_ = 0;
  size_t inflight_ = 0;
  bool closed_ = false;
  Status error_;
  uint64_t payload_out_ = 0, payload_in_ = 0;
  mutable rpc::ClientConnectionStats stats_;
  mutable bool socket_bytes_ = false;
};

// Blocking one-shot call on a fresh gRPC connection (Stats and Ping from
// the command line): the reply payload, or an error naming the server and
// the cause. Fails after `timeout_ms`.
StatusOr<std::string> GrpcCallOnce(const GrpcClientOptions& options, Method method,
                                   ByteView payload, int timeout_ms = 10000);

}  // namespace wirebench::grpcrpc
