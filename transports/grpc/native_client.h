// The `grpc-native` client call path: the region calls as gRPC's generated
// stub for transports/grpc/wirebench_region.proto, HBase's protobuf messages filled
// from wirebench's message model (codecs/hbase/pb_mapping.h) and serialized by
// gRPC, replies read back into the model. This is how gRPC is normally
// used, as opposed to grpcrpc::GrpcConnection, which carries a codec's bytes.
//
// Each call is one heap object holding its ClientContext and messages (as a
// typical gRPC async client has); `cq_threads` threads drain the
// connection's completion queues and post completions to the owning
// io_context, where the NativePendingCall is told the outcome.
//
// Thread-safety: a NativeConnection belongs to one io_context run by one
// thread; every method must be called on it.
#pragma once

#include <memory>
#include <thread>
#include <unordered_set>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "codecs/message.h"
#include "common/status.h"
#include "transports/grpc/grpc_client.h"

namespace wirebench {

// The decoded reply of one native call: the member of the call's method is
// set. Valid only during OnNativeReply.
struct NativeReply {
  Method method = Method::kPing;
  const MutateResponse* mutate = nullptr;
  const GetResponse* get = nullptr;
  const ScanResponse* scan = nullptr;
  const MultiResponse* multi = nullptr;
};

class NativePendingCall {
 public:
  // `status` is OK with `reply` set, or says why the call failed (gRPC's
  // code and message, naming the server).
  virtual void OnNativeReply(const Status& status, const NativeReply& reply) = 0;

 protected:
  ~NativePendingCall() = default;
};

class NativeConnection : public std::enable_shared_from_this<NativeConnection> {
 public:
  // Opens the channel and waits (blocking, at most connect_timeout_ms)
  // until it is connected. options.codec_id is not used.
  static StatusOr<std::shared_ptr<NativeConnection>> Connect(boost::asio::io_context& ctx,
                                                             grpcrpc::GrpcClientOptions options);
  ~NativeConnection();
  NativeConnection(const NativeConnection&) = delete;
  NativeConnection& operator=(const NativeConnection&) = delete;

  // Starts a call; `pending` is told the outcome on the io_context thread.
  // Fails at once (without calling `pending`) after Close().
  Status Call(const MutateRequest& req, NativePendingCall* pending);
  Status Call(const GetRequest& req, NativePendingCall* pending);
  Status Call(const ScanRequest& req, NativePendingCall* pending);
  Status Call(const MultiRequest& req, NativePendingCall* pending);

  size_t inflight() const { return inflight_.size(); }
  // Wire bytes both ways, from the socket (transports/grpc/socket_counter.h).
  grpcrpc::SocketBytes wire_bytes();
  std::string peer() const;
  // Cancels calls in flight (they complete with CANCELLED) and stops the
  // threads.
  void Close();

  class CallBase;  // One call in flight (native_client.cc).

 private:
  struct Grpc;
  NativeConnection(boost::asio::io_context& ctx, grpcrpc::GrpcClientOptions options);
  template <typename Req>
  Status Start(const Req& req, NativePendingCall* pending);
  void Drain(int index);
  void OnComplete(CallBase* call);

  boost::asio::io_context& ctx_;
  grpcrpc::GrpcClientOptions options_;
  grpcrpc::SocketCounter socket_;
  std::unique_ptr<Grpc> grpc_;
  std::vector<std::thread> threads_;
  std::unordered_set<CallBase*> inflight_;
  size_t next_cq_ = 0;
  bool closed_ = false;
};

}  // namespace wirebench
