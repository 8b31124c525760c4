// A gRPC peer that opens streams and never sends a message on them: each
// call is started (headers only) and held until the server ends it or the
// peer is destroyed. Used by the gRPC cases of the bad-input matrix and by
// tests/grpc_idle_streams_tool.cc.
// Thread-safety: construct and destroy on one thread; the counters may be
// read from any.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include "transports/wirebench/frame.h"
#include "transports/grpc/grpc_client.h"
#include "transports/grpc/grpc_protocol.h"

namespace wirebench::testing {

class IdleStreams {
 public:
  // Opens one gRPC connection to 127.0.0.1:port and `n` streams on it.
  IdleStreams(uint16_t port, int n) {
    grpcrpc::GrpcClientOptions o;
    o.port = port;
    auto channel = grpcrpc::OpenGrpcChannel(o, nullptr);
    if (!channel.ok()) {
      error_ = channel.status().ToString();
      return;
    }
    channel_ = *channel;
    stub_ = std::make_unique<grpc::GenericStub>(channel_);
    streams_.reserve(size_t(n));
    for (int i = 0; i < n; ++i) {
      auto s = std::make_unique<Stream>();
      s->call = stub_->PrepareCall(&s->ctx, grpcrpc::GrpcMethodPath(Method::kPing), &cq_);
      s->call->StartCall(s.get());
      // Pending until the server ends the call (or we cancel it); the tag
      // is the stream's address with the low bit set.
      s->call->Finish(&s->status, reinterpret_cast<void*>(uintptr_t(s.get()) | 1));
      streams_.push_back(std::move(s));
    }
    thread_ = std::thread([this] { Drain(); });
  }
  ~IdleStreams() {
    for (auto& s : streams_) s->ctx.TryCancel();
    if (thread_.joinable()) thread_.join();  // Drain returns once every call ended.
    cq_.Shutdown();
    void* tag;
    bool ok;
    while (cq_.Next(&tag, &ok)) {
    }
  }
  const std::string& error() const { return error_; }
  int size() const { return int(streams_.size()); }
  // Streams the server has ended so far (cancelled, or refused).
  int ended() const { return ended_.load(); }
  // Of those, how many ended with a status other than OK.
  int ended_not_ok() const { return ended_not_ok_.load(); }

 private:
  struct Stream {
    grpc::ClientContext ctx;
    std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call;
    grpc::Status status;
  };

  void Drain() {
    int finished = 0;
    void* tag;
    bool ok;
    while (finished < int(streams_.size()) && cq_.Next(&tag, &ok)) {
      const uintptr_t bits = reinterpret_cast<uintptr_t>(tag);
      if ((bits & 1) == 0) continue;  // A start.
      ++finished;
      if (!reinterpret_cast<Stream*>(bits & ~uintptr_t(1))->status.ok()) ended_not_ok_.fetch_add(1);
      ended_.fetch_add(1);
    }
  }

  std::string error_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<grpc::GenericStub> stub_;
  grpc::CompletionQueue cq_;
  std::vector<std::unique_ptr<Stream>> streams_;
  std::thread thread_;
  std::atomic<int> ended_{0}, ended_not_ok_{0};
};

}  // namespace wirebench::testing
