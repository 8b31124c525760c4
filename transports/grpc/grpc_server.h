// The gRPC server: serves any rpc::Service over gRPC, so every codec and
// region runs over gRPC unchanged (transports/grpc/grpc_protocol.h says how calls
// map onto gRPC methods and metadata).
//
// It uses gRPC's generic async API (grpc::AsyncGenericService): the server
// keeps `calls_per_cq` calls requested on each of `cq_threads` completion
// queues; each queue is drained by one thread that reads the request,
// runs the Service's CallHandler inline (one handler per codec per thread,
// like wbrpc::Server's inline mode) and writes the reply with the status in
// one batch (WriteAndFinish). gRPC polls its sockets from those same threads
// (the epoll1 engine polls inside CompletionQueue::Next); it also starts
// threads of its own (timer manager, executor), which Stats lists from
// /proc/self/task with role "unregistered" (transports/grpc/process_threads.h).
// Ping and Stats are served here, as in wbrpc::Server; reply delays the
// null region asks for (calibration) are not applied over gRPC.
//
// Thread-safety: Start, Stop and Wait may be called from any one thread;
// StatsJson from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "common/status.h"
#include "transports/grpc/grpc_protocol.h"
#include "rpc/endpoint.h"
#include "rpc/service.h"
#include "rpc/transport_server.h"

namespace grpc {
class Service;
class ServerCompletionQueue;
}  // namespace grpc

namespace wirebench::grpcrpc {

// What a completion-queue thread holds: an object with one operation in
// flight, whose address is the tag.
class GrpcTag {
 public:
  virtual ~GrpcTag() = default;
  // Asks gRPC for the next call of its method (the first operation).
  virtual void Request() = 0;
  // Its pending operation completed. False: the tag is done; delete it.
  virtual bool Proceed(bool ok) = 0;
};

// The server side of GrpcTag::Proceed: a finished call asks again here, so
// that no request races the queues' shutdown.
class GrpcRequestGate {
 public:
  virtual ~GrpcRequestGate() = default;
  // Calls tag->Request() and returns true, unless the server is stopping.
  virtual bool RequestAgain(GrpcTag* tag) = 0;
};

// A generated async gRPC service served by the same server, on the same
// completion queues and threads (the grpc-native variant).
class GrpcExtraService {
 public:
  virtual ~GrpcExtraService() = default;
  virtual grpc::Service* service() = 0;
  // Requests the first calls on queue `index` (its tags are GrpcTag*s);
  // called before the queue's thread starts.
  virtual void StartQueue(int index, grpc::ServerCompletionQueue* cq, GrpcRequestGate* gate,
                          int calls) = 0;
  // Adds the service's figures to the server's Stats reply.
  virtual void AppendStats(nlohmann::json* out) = 0;
};

// host is the address to bind, port the TCP port (0: a free one, see
// GrpcServer::port()).
struct GrpcServerOptions : rpc::Endpoint {
  // Completion queues, each with one thread that polls and runs handlers.
  int cq_threads = 1;
  // Calls kept requested on each completion queue (accept depth). An
  // accepted call is replaced at once, so calls waiting for their request
  // message (idle streams) never take these slots.
  int calls_per_cq = 64;
  // Most concurrent streams per connection (HTTP/2 SETTINGS
  // MAX_CONCURRENT_STREAMS; `wirebench server --max-inflight`): a client
  // opening more waits for one to end.
  int max_streams_per_connection = 4096;
  // Most calls accepted and still waiting for their request message, over
  // the whole server (`--max-connections`): beyond it no new call is
  // accepted until one of them gets its message, ends or times out, so the
  // memory idle streams hold is bounded.
  int max_waiting_calls = 10000;
  // A call whose request message has not arrived this long after it was
  // accepted is cancelled (`--idle-timeout-ms`). 0 = never.
  int idle_timeout_ms = 30000;
  // Largest request and reply message, bytes.
  uint32_t max_message = kGrpcMaxMessage;
};

// A TransportServer: Start starts the completion-queue threads, Stop cancels
// the calls in flight. StatsJson has the same counters as wbrpc::Server's
// (calls per method, payload bytes, calls waiting for their request message
// and those cancelled for idling, per-thread CPU and allocations, process
// figures, the Service's figures), with every thread of the process listed:
// registered server threads by role, every unregistered one (gRPC's own) as
// "unregistered", and their allocations, which cannot be split per thread,
// as one entry named "unregistered-allocations" (tid -1).
class GrpcServer final : public rpc::ServerWrapper {
 public:
  // `service` (and `extra`, if any) must outlive the server.
  GrpcServer(const GrpcServerOptions& options, rpc::Service* service,
             GrpcExtraService* extra = nullptr);
  ~GrpcServer() override;  // Stops and joins.

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace wirebench::grpcrpc
